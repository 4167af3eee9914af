//! [`Chunks`]: the items grouped in `Vec`s of a given length.

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

    /// Cuts the chunks off the front and has the base fold each into its
    /// `Vec`, so a base that folds without its iterator (`rev`) does so
    /// under `chunks` too.
    fn fold_with<F: Folder<Vec<P::Item>>>(self, mut folder: F) -> F {
        let (mut rest, mut len) = (self.base, self.len);
        while len > 0 && !folder.full() {
            let size = self.size.min(len);
            let (chunk, after) = rest.split_at(size);
            folder = folder.consume(gather(chunk, size));
            (rest, len) = (after, len - size);
        }
        folder
    }

    /// Cuts the chunks off the back (the last one the short one, as
    /// forwards), each folded forwards into its `Vec`.
    fn fold_rev_with<F: Folder<Vec<P::Item>>>(self, mut folder: F) -> F {
        let (mut rest, mut len) = (self.base, self.len);
        while len > 0 && !folder.full() {
            // The chunks start at multiples of `size` from the front.
            let size = match len % self.size {
                0 => self.size,
                short => short,
            };
            let (before, chunk) = rest.split_at(len - size);
            folder = folder.consume(gather(chunk, size));
            (rest, len) = (before, len - size);
        }
        folder
    }
}

/// The `len` items of `piece`, folded into a `Vec`.
fn gather<P: Producer>(piece: P, len: usize) -> Vec<P::Item> {
    piece.fold_with(Gather(Vec::with_capacity(len))).0
}

/// A folder that keeps the items it is given, in order.
struct Gather<T>(Vec<T>);

impl<T> Folder<T> for Gather<T> {
    type Result = Vec<T>;

    fn consume(mut self, item: T) -> Self {
        self.0.push(item);
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        self.0.extend(iter);
        self
    }

    fn complete(self) -> Vec<T> {
        self.0
    }

    fn full(&self) -> bool {
        false
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
