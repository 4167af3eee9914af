//! [`FoldChunks`] and [`FoldChunksWith`]: each run of `chunk_size` items
//! folded into one value; indexed, one value per chunk. Both run as
//! [`chunks`](crate::iter::IndexedParallelIterator::chunks) followed by a
//! sequential fold of each chunk, so they split as `chunks` does (each
//! chunk is gathered in a `Vec` first, which rayon's do not need).

use crate::iter::plumbing::{ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::fold_chunks`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let sums: stealpool::iter::FoldChunks<_, _, _> = (1..=7u32).into_par_iter().fold_chunks(3, || 0, |a, x| a + x);
/// assert_eq!(sums.collect::<Vec<_>>(), [6, 15, 7]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FoldChunks<I, ID, F> {
    base: I,
    size: usize,
    identity: ID,
    fold_op: F,
}

debug_without_closures!(FoldChunks<I, ID, F> { base: I, size: usize });

impl<I, ID, F> FoldChunks<I, ID, F> {
    /// `size` is positive (checked by the caller).
    pub(crate) fn new(base: I, size: usize, identity: ID, fold_op: F) -> Self {
        FoldChunks {
            base,
            size,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T> ParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    ID: Fn() -> T + Send + Sync,
    F: Fn(T, I::Item) -> T + Send + Sync,
    T: Send,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let (identity, fold_op) = (&self.identity, &self.fold_op);
        let fold = move |chunk: Vec<I::Item>| chunk.into_iter().fold(identity(), fold_op);
        self.base.chunks(self.size).map(fold).drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I, ID, F, T> IndexedParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    ID: Fn() -> T + Send + Sync,
    F: Fn(T, I::Item) -> T + Send + Sync,
    T: Send,
{
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let (identity, fold_op) = (&self.identity, &self.fold_op);
        let fold = move |chunk: Vec<I::Item>| chunk.into_iter().fold(identity(), fold_op);
        self.base.chunks(self.size).map(fold).with_producer(callback)
    }
}

/// The iterator of [`IndexedParallelIterator::fold_chunks_with`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let words: stealpool::iter::FoldChunksWith<_, _, _> =
///     ['a', 'b', 'c'].par_iter().fold_chunks_with(2, String::new(), |mut s, c| (s.push(*c), s).1);
/// assert_eq!(words.collect::<Vec<_>>(), ["ab", "c"]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FoldChunksWith<I, T, F> {
    base: I,
    size: usize,
    init: T,
    fold_op: F,
}

debug_without_closures!(FoldChunksWith<I, T, F> { base: I, size: usize, init: T });

impl<I, T, F> FoldChunksWith<I, T, F> {
    /// `size` is positive (checked by the caller).
    pub(crate) fn new(base: I, size: usize, init: T, fold_op: F) -> Self {
        FoldChunksWith {
            base,
            size,
            init,
            fold_op,
        }
    }
}

impl<I, T, F> ParallelIterator for FoldChunksWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(T, I::Item) -> T + Send + Sync,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let fold_op = &self.fold_op;
        let fold = move |init: &mut T, chunk: Vec<I::Item>| chunk.into_iter().fold(init.clone(), fold_op);
        self.base
            .chunks(self.size)
            .map_with(self.init, fold)
            .drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I, T, F> IndexedParallelIterator for FoldChunksWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(T, I::Item) -> T + Send + Sync,
{
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let fold_op = &self.fold_op;
        let fold = move |init: &mut T, chunk: Vec<I::Item>| chunk.into_iter().fold(init.clone(), fold_op);
        self.base
            .chunks(self.size)
            .map_with(self.init, fold)
            .with_producer(callback)
    }
}
