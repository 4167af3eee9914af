//! The slices' chunk iterators beyond `par_chunks`: exact chunks
//! (`par_chunks_exact`, with the remainder left out) and chunks counted
//! from the end (`par_rchunks`, `par_rchunks_exact`), shared and mutable.
//! Each is its own producer, split between chunks, so item *k* stays at
//! index *k* (I8).

use super::plumbing::{bridge, Folder, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// Implements the iterator traits and `Producer` for a chunk iterator.
/// `$front` says which end the chunks are counted from; `$exact`, whether
/// the slice held is already cut to a multiple of the chunk size.
macro_rules! chunk_iterator {
    (
        $name:ident, $slice:ty, $bound:ident, $item:ty, $seq:ident, $seq_ty:ident,
        $split:ident, from $end:ident, exact $exact:literal $(, rest $field:ident)?
    ) => {
        impl<'a, T: $bound + 'a> ParallelIterator for $name<'a, T> {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<'a, T: $bound + 'a> IndexedParallelIterator for $name<'a, T> {
            fn len(&self) -> usize {
                if $exact {
                    self.slice.len() / self.chunk_size
                } else {
                    self.slice.len().div_ceil(self.chunk_size)
                }
            }

            fn with_producer<CB: ProducerCallback<$item>>(self, callback: CB) -> CB::Output {
                callback.callback(self)
            }
        }

        impl<'a, T: $bound + 'a> Producer for $name<'a, T> {
            type Item = $item;
            type IntoIter = std::slice::$seq_ty<'a, T>;

            fn into_iter(self) -> Self::IntoIter {
                self.slice.$seq(self.chunk_size)
            }

            fn fold_rev_with<F: Folder<$item>>(self, folder: F) -> F {
                folder.consume_iter(self.into_iter().rev())
            }

            fn split_at(self, index: usize) -> (Self, Self) {
                let chunk_size = self.chunk_size;
                let items = index.saturating_mul(chunk_size).min(self.slice.len());
                // The pieces need no remainder: only the iterator's owner asks.
                let (left, right) = chunk_iterator!(@split $end, self, items, $split);
                (
                    Self { chunk_size, slice: left, $($field: Default::default())? },
                    Self { chunk_size, slice: right, $($field: Default::default())? },
                )
            }
        }
    };
    (@split front, $self:ident, $items:ident, $split:ident) => {
        $self.slice.$split($items)
    };
    (@split back, $self:ident, $items:ident, $split:ident) => {{
        // The first `index` chunks are the last `index * chunk_size`
        // items; the rest stay aligned on the slice's end.
        let at = $self.slice.len() - $items;
        let (rest, last) = $self.slice.$split(at);
        (last, rest)
    }};
}

/// The parallel iterator of
/// [`par_chunks_exact`](super::ParallelSlice::par_chunks_exact).
///
/// ```
/// use stealpool::prelude::*;
///
/// let c: stealpool::iter::ChunksExact<'_, u8> = [1u8, 2, 3, 4, 5].par_chunks_exact(2);
/// assert_eq!(c.remainder(), &[5]);
/// assert_eq!(c.map(|c| c[0]).collect::<Vec<_>>(), [1, 3]);
/// ```
#[derive(Debug)]
pub struct ChunksExact<'a, T> {
    pub(super) chunk_size: usize,
    pub(super) slice: &'a [T],
    pub(super) rem: &'a [T],
}

impl<T> Clone for ChunksExact<'_, T> {
    fn clone(&self) -> Self {
        ChunksExact { ..*self }
    }
}

impl<'a, T> ChunksExact<'a, T> {
    /// The items after the last whole chunk.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!([0u8; 7].par_chunks_exact(3).remainder().len(), 1);
    /// ```
    pub fn remainder(&self) -> &'a [T] {
        self.rem
    }
}

chunk_iterator!(ChunksExact, &'a [T], Sync, &'a [T], chunks_exact, ChunksExact, split_at, from front, exact true, rest rem);

/// The parallel iterator of
/// [`par_chunks_exact_mut`](super::ParallelSliceMut::par_chunks_exact_mut).
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = [1u8, 2, 3, 4, 5];
/// let mut c: stealpool::iter::ChunksExactMut<'_, u8> = v.par_chunks_exact_mut(2);
/// c.take_remainder().fill(0);
/// c.for_each(|c| c.swap(0, 1));
/// assert_eq!(v, [2, 1, 4, 3, 0]);
/// ```
#[derive(Debug)]
pub struct ChunksExactMut<'a, T> {
    pub(super) chunk_size: usize,
    pub(super) slice: &'a mut [T],
    pub(super) rem: &'a mut [T],
}

impl<'a, T> ChunksExactMut<'a, T> {
    /// The items after the last whole chunk.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [0u8; 7];
    /// assert_eq!(v.par_chunks_exact_mut(3).into_remainder().len(), 1);
    /// ```
    pub fn into_remainder(self) -> &'a mut [T] {
        self.rem
    }

    /// The items after the last whole chunk, borrowed.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [0u8; 7];
    /// assert_eq!(v.par_chunks_exact_mut(3).remainder().len(), 1);
    /// ```
    pub fn remainder(&mut self) -> &mut [T] {
        self.rem
    }

    /// The items after the last whole chunk, taken out (left empty here).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [0u8; 7];
    /// let mut c = v.par_chunks_exact_mut(3);
    /// c.take_remainder()[0] = 9;
    /// assert!(c.remainder().is_empty());
    /// c.for_each(|_| ());
    /// assert_eq!(v[6], 9);
    /// ```
    pub fn take_remainder(&mut self) -> &'a mut [T] {
        std::mem::take(&mut self.rem)
    }
}

chunk_iterator!(ChunksExactMut, &'a mut [T], Send, &'a mut [T], chunks_exact_mut, ChunksExactMut, split_at_mut, from front, exact true, rest rem);

/// The parallel iterator of [`par_rchunks`](super::ParallelSlice::par_rchunks).
///
/// ```
/// use stealpool::prelude::*;
///
/// let c: stealpool::iter::RChunks<'_, u8> = [1u8, 2, 3, 4, 5].par_rchunks(2);
/// assert_eq!(c.collect::<Vec<_>>(), [&[4, 5][..], &[2, 3], &[1]]);
/// ```
#[derive(Debug)]
pub struct RChunks<'a, T> {
    pub(super) chunk_size: usize,
    pub(super) slice: &'a [T],
}

impl<T> Clone for RChunks<'_, T> {
    fn clone(&self) -> Self {
        RChunks { ..*self }
    }
}

chunk_iterator!(RChunks, &'a [T], Sync, &'a [T], rchunks, RChunks, split_at, from back, exact false);

/// The parallel iterator of
/// [`par_rchunks_mut`](super::ParallelSliceMut::par_rchunks_mut).
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = [1u8, 2, 3, 4, 5];
/// let c: stealpool::iter::RChunksMut<'_, u8> = v.par_rchunks_mut(2);
/// c.for_each(|c| c.reverse());
/// assert_eq!(v, [1, 3, 2, 5, 4]);
/// ```
#[derive(Debug)]
pub struct RChunksMut<'a, T> {
    pub(super) chunk_size: usize,
    pub(super) slice: &'a mut [T],
}

chunk_iterator!(RChunksMut, &'a mut [T], Send, &'a mut [T], rchunks_mut, RChunksMut, split_at_mut, from back, exact false);

/// The parallel iterator of
/// [`par_rchunks_exact`](super::ParallelSlice::par_rchunks_exact).
///
/// ```
/// use stealpool::prelude::*;
///
/// let c: stealpool::iter::RChunksExact<'_, u8> = [1u8, 2, 3, 4, 5].par_rchunks_exact(2);
/// assert_eq!(c.remainder(), &[1]);
/// assert_eq!(c.collect::<Vec<_>>(), [&[4, 5][..], &[2, 3]]);
/// ```
#[derive(Debug)]
pub struct RChunksExact<'a, T> {
    pub(super) chunk_size: usize,
    pub(super) slice: &'a [T],
    pub(super) rem: &'a [T],
}

impl<T> Clone for RChunksExact<'_, T> {
    fn clone(&self) -> Self {
        RChunksExact { ..*self }
    }
}

impl<'a, T> RChunksExact<'a, T> {
    /// The items before the first whole chunk (counted from the end).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!([1u8, 2, 3, 4].par_rchunks_exact(3).remainder(), &[1]);
    /// ```
    pub fn remainder(&self) -> &'a [T] {
        self.rem
    }
}

chunk_iterator!(RChunksExact, &'a [T], Sync, &'a [T], rchunks_exact, RChunksExact, split_at, from back, exact true, rest rem);

/// The parallel iterator of
/// [`par_rchunks_exact_mut`](super::ParallelSliceMut::par_rchunks_exact_mut).
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = [1u8, 2, 3, 4, 5];
/// let c: stealpool::iter::RChunksExactMut<'_, u8> = v.par_rchunks_exact_mut(2);
/// assert_eq!(c.into_remainder(), &[1]);
/// ```
#[derive(Debug)]
pub struct RChunksExactMut<'a, T> {
    pub(super) chunk_size: usize,
    pub(super) slice: &'a mut [T],
    pub(super) rem: &'a mut [T],
}

impl<'a, T> RChunksExactMut<'a, T> {
    /// The items before the first whole chunk (counted from the end).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [1u8, 2, 3, 4];
    /// assert_eq!(v.par_rchunks_exact_mut(3).into_remainder(), &[1]);
    /// ```
    pub fn into_remainder(self) -> &'a mut [T] {
        self.rem
    }

    /// The items before the first whole chunk, borrowed.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [1u8, 2, 3, 4];
    /// assert_eq!(v.par_rchunks_exact_mut(3).remainder(), &[1]);
    /// ```
    pub fn remainder(&mut self) -> &mut [T] {
        self.rem
    }

    /// The items before the first whole chunk, taken out (left empty here).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [1u8, 2, 3, 4];
    /// let mut c = v.par_rchunks_exact_mut(3);
    /// assert_eq!(c.take_remainder(), &[1]);
    /// assert!(c.remainder().is_empty());
    /// ```
    pub fn take_remainder(&mut self) -> &'a mut [T] {
        std::mem::take(&mut self.rem)
    }
}

chunk_iterator!(RChunksExactMut, &'a mut [T], Send, &'a mut [T], rchunks_exact_mut, RChunksExactMut, split_at_mut, from back, exact true, rest rem);
