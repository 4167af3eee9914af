//! [`Chunks`]: the items grouped in `Vec`s of a given length.

use super::rev::fold_back;
use crate::iter::plumbing::{bridge, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::chunks`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let c: stealpool::iter::Chunks<_> = (0..7u32).into_par_iter().chunks(3);
/// assert_eq!(c.map(|v| v.len()).collect::<Vec<_>>(), [3, 3, 1]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Chunks<I> {
    base: I,
    size: usize,
}

impl<I> Chunks<I> {
    /// `size` is positive (checked by the caller).
    pub(crate) fn new(base: I, size: usize) -> Self {
        Chunks { base, size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Chunks<I> {
    type Item = Vec<I::Item>;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Chunks<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        return self.base.with_producer(Callback {
            callback,
            size: self.size,
            len,
        });

        struct Callback<CB> {
            callback: CB,
            size: usize,
            len: usize,
        }

        impl<T, CB: ProducerCallback<Vec<T>>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let (size, len) = (self.size, self.len);
                self.callback.callback(ChunksProducer { base, size, len })
            }
        }
    }
}

/// [`Chunks`]'s producer: `len` items of its base, in chunks of `size`.
struct ChunksProducer<P> {
    base: P,
    size: usize,
    len: usize,
}

impl<P: Producer> Producer for ChunksProducer<P> {
    type Item = Vec<P::Item>;
    type IntoIter = ChunkSeq<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        ChunkSeq {
            iter: self.base.into_iter(),
            size: self.size,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.size)
    }

    fn max_len(&self) -> usize {
        (self.base.max_len() / self.size).max(1)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let items = (index * self.size).min(self.len);
        let (left, right) = self.base.split_at(items);
        let size = self.size;
        (
            ChunksProducer {
                base: left,
                size,
                len: items,
            },
            ChunksProducer {
                base: right,
                size,
                len: self.len - items,
            },
        )
    }

    /// Has the base fold its items into chunks, so a base that folds
    /// without its iterator (`rev`) does so under `chunks` too.
    fn fold_with<F: Folder<Vec<P::Item>>>(self, folder: F) -> F {
        let chunker = Chunker {
            folder,
            chunk: Vec::new(),
            size: self.size,
            left: self.len,
        };
        let Chunker { folder, chunk, .. } = self.base.fold_with(chunker);
        // A short last chunk; the base yields `len` items, so no other.
        if chunk.is_empty() || folder.full() {
            folder
        } else {
            folder.consume(chunk)
        }
    }

    /// The chunks last to first, through [`fold_back`]: blocks of a few
    /// chunks, each read forwards (read one by one from the back, the
    /// chunks of a large piece took twice as long), handed over back to
    /// front. The last chunk, the short one if any, comes first.
    fn fold_rev_with<F: Folder<Vec<P::Item>>>(self, folder: F) -> F {
        let chunks = self.len.div_ceil(self.size);
        fold_back(self, chunks, folder)
    }
}

/// Gathers the items it is given into chunks of `size` for `folder`.
struct Chunker<F, T> {
    folder: F,
    /// The chunk being filled: allocated at its first item, for the
    /// items still to come or `size`, whichever is fewer.
    chunk: Vec<T>,
    size: usize,
    /// Items still to come, this chunk's included.
    left: usize,
}

impl<F, T> Chunker<F, T> {
    /// Makes room for the chunk's items when it has none yet.
    fn start_chunk(&mut self) {
        if self.chunk.capacity() == 0 {
            self.chunk.reserve_exact(self.size.min(self.left));
        }
    }
}

impl<F: Folder<Vec<T>>, T> Chunker<F, T> {
    /// Hands the chunk over if it is complete.
    fn hand_over_if_complete(mut self) -> Self {
        if self.chunk.len() == self.size {
            self.left = self.left.saturating_sub(self.size);
            let chunk = std::mem::take(&mut self.chunk);
            self.folder = self.folder.consume(chunk);
        }
        self
    }
}

impl<F: Folder<Vec<T>>, T> Folder<T> for Chunker<F, T> {
    type Result = F::Result;

    fn consume(mut self, item: T) -> Self {
        self.start_chunk();
        self.chunk.push(item);
        self.hand_over_if_complete()
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let mut iter = iter.into_iter();
        while !self.full() {
            self.start_chunk();
            let before = self.chunk.len();
            self.chunk.extend(iter.by_ref().take(self.size - before));
            let complete = self.chunk.len() == self.size;
            self = self.hand_over_if_complete();
            if !complete {
                break;
            }
        }
        self
    }

    fn complete(self) -> F::Result {
        self.folder.complete()
    }

    fn full(&self) -> bool {
        self.folder.full()
    }
}

/// A sequential iterator's items in `Vec`s of `size`.
pub(crate) struct ChunkSeq<I> {
    iter: I,
    size: usize,
}

impl<I: Iterator> Iterator for ChunkSeq<I> {
    type Item = Vec<I::Item>;

    fn next(&mut self) -> Option<Vec<I::Item>> {
        let chunk: Vec<I::Item> = self.iter.by_ref().take(self.size).collect();
        (!chunk.is_empty()).then_some(chunk)
    }
}
