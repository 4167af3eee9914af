//! Slices as parallel iterators: `par_iter`, `par_iter_mut`, `par_chunks`,
//! `par_chunks_mut`, `par_windows`, and the parallel sorts.

use super::plumbing::{bridge, Folder, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::iter::pool::CurrentPool;
use std::cmp::Ordering;

/// Parallel iterators over a slice's pieces: rayon's `ParallelSlice`.
///
/// ```
/// use stealpool::prelude::*;
///
/// let sums: Vec<i32> = [1, 2, 3, 4, 5].par_chunks(2).map(|c| c.iter().sum()).collect();
/// assert_eq!(sums, [3, 7, 5]);
/// ```
pub trait ParallelSlice<T: Sync> {
    /// The slice itself.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!(vec![1, 2].as_parallel_slice(), &[1, 2]);
    /// ```
    fn as_parallel_slice(&self) -> &[T];

    /// The slice's `chunk_size`-long chunks (the last may be shorter), as
    /// [`slice::chunks`].
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let lens: Vec<usize> = [0u8; 5].par_chunks(2).map(|c| c.len()).collect();
    /// assert_eq!(lens, [2, 2, 1]);
    /// ```
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        Chunks {
            chunk_size,
            slice: self.as_parallel_slice(),
        }
    }

    /// The slice's overlapping windows of `window_size`, as
    /// [`slice::windows`].
    ///
    /// # Panics
    ///
    /// If `window_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let rising = [1, 2, 4, 3].par_windows(2).filter(|w| w[0] < w[1]).count();
    /// assert_eq!(rising, 2);
    /// ```
    fn par_windows(&self, window_size: usize) -> Windows<'_, T> {
        assert!(window_size != 0, "window size must be non-zero");
        Windows {
            window_size,
            slice: self.as_parallel_slice(),
        }
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel iterators over a mutable slice's pieces, and parallel sorts:
/// rayon's `ParallelSliceMut`.
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = vec![5, 3, 1, 4, 2];
/// v.par_sort();
/// assert_eq!(v, [1, 2, 3, 4, 5]);
/// ```
pub trait ParallelSliceMut<T: Send> {
    /// The slice itself.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = vec![1, 2];
    /// v.as_parallel_slice_mut()[0] = 3;
    /// assert_eq!(v, [3, 2]);
    /// ```
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// The slice's `chunk_size`-long chunks, mutably.
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [0u8; 5];
    /// v.par_chunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i as u8));
    /// assert_eq!(v, [0, 0, 1, 1, 2]);
    /// ```
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        ChunksMut {
            chunk_size,
            slice: self.as_parallel_slice_mut(),
        }
    }

    /// Sorts in parallel, keeping equal elements in order (a merge sort;
    /// see [`ThreadPool::sort`](crate::ThreadPool::sort)).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = vec![3, 1, 2];
    /// v.par_sort();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        crate::iter::sort::sort_by(&CurrentPool, self.as_parallel_slice_mut(), T::cmp);
    }

    /// [`par_sort`](ParallelSliceMut::par_sort) by a comparison, which must
    /// be a total order.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = vec![1, 3, 2];
    /// v.par_sort_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [3, 2, 1]);
    /// ```
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        crate::iter::sort::sort_by(&CurrentPool, self.as_parallel_slice_mut(), compare);
    }

    /// [`par_sort`](ParallelSliceMut::par_sort) by a key.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = vec![-3, 1, -2];
    /// v.par_sort_by_key(|x: &i32| x.abs());
    /// assert_eq!(v, [1, -2, -3]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        let compare = |a: &T, b: &T| f(a).cmp(&f(b));
        crate::iter::sort::sort_by(&CurrentPool, self.as_parallel_slice_mut(), compare);
    }

    /// Sorts in parallel, not necessarily keeping equal elements in order
    /// (a quicksort that does not allocate). As rayon's, it asks only
    /// `T: Send`, so every partition runs on one thread;
    /// [`ThreadPool::sort_unstable`](crate::ThreadPool::sort_unstable)
    /// asks `T: Sync` too and partitions long slices in parallel.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use stealpool::prelude::*;
    ///
    /// let mut v = vec![3, 1, 2];
    /// v.par_sort_unstable();
    /// assert_eq!(v, [1, 2, 3]);
    /// // `Cell`s are `Send` but not `Sync`.
    /// let mut cells: Vec<Cell<u8>> = [2, 0, 1].map(Cell::new).to_vec();
    /// cells.par_sort_unstable_by_key(Cell::get);
    /// assert_eq!(cells.iter().map(Cell::get).collect::<Vec<_>>(), [0, 1, 2]);
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        crate::iter::sort::sort_unstable_by_send(&CurrentPool, self.as_parallel_slice_mut(), T::cmp);
    }

    /// [`par_sort_unstable`](ParallelSliceMut::par_sort_unstable) by a
    /// comparison, which must be a total order.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = vec![1, 3, 2];
    /// v.par_sort_unstable_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [3, 2, 1]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        crate::iter::sort::sort_unstable_by_send(&CurrentPool, self.as_parallel_slice_mut(), compare);
    }

    /// [`par_sort_unstable`](ParallelSliceMut::par_sort_unstable) by a key.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = vec!["ccc", "a", "bb"];
    /// v.par_sort_unstable_by_key(|s| s.len());
    /// assert_eq!(v, ["a", "bb", "ccc"]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        let compare = |a: &T, b: &T| f(a).cmp(&f(b));
        crate::iter::sort::sort_unstable_by_send(&CurrentPool, self.as_parallel_slice_mut(), compare);
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}

/// Implements `ParallelIterator` and `IndexedParallelIterator` for a
/// slice iterator whose producer is itself.
macro_rules! slice_iterator {
    ($iter:ident <$a:lifetime, $t:ident> where $bound:ident, item $item:ty, len $len:expr) => {
        impl<$a, $t: $bound + $a> ParallelIterator for $iter<$a, $t> {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$a, $t: $bound + $a> IndexedParallelIterator for $iter<$a, $t> {
            fn len(&self) -> usize {
                let len: fn(&Self) -> usize = $len;
                len(self)
            }

            fn with_producer<CB: ProducerCallback<$item>>(self, callback: CB) -> CB::Output {
                callback.callback(self)
            }
        }
    };
}

/// The parallel iterator of `&[T]`: `par_iter()` on a slice or `Vec`.
///
/// ```
/// use stealpool::prelude::*;
///
/// let it: stealpool::iter::SliceIter<'_, u8> = [1u8, 2].par_iter();
/// assert_eq!(it.count(), 2);
/// ```
#[derive(Debug)]
pub struct Iter<'a, T> {
    slice: &'a [T],
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter { slice: self.slice }
    }
}

slice_iterator!(Iter<'a, T> where Sync, item &'a T, len |it| it.slice.len());

impl<'a, T: Sync> Producer for Iter<'a, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.iter()
    }

    fn fold_rev_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        folder.consume_iter(self.into_iter().rev())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at(index);
        (Iter { slice: left }, Iter { slice: right })
    }
}

/// The parallel iterator of `&mut [T]`: `par_iter_mut()`.
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = [1u8, 2];
/// let it: stealpool::iter::SliceIterMut<'_, u8> = v.par_iter_mut();
/// it.for_each(|x| *x = 0);
/// assert_eq!(v, [0, 0]);
/// ```
#[derive(Debug)]
pub struct IterMut<'a, T> {
    slice: &'a mut [T],
}

slice_iterator!(IterMut<'a, T> where Send, item &'a mut T, len |it| it.slice.len());

impl<'a, T: Send> Producer for IterMut<'a, T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.iter_mut()
    }

    fn fold_rev_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        folder.consume_iter(self.into_iter().rev())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at_mut(index);
        (IterMut { slice: left }, IterMut { slice: right })
    }
}

/// The parallel iterator of [`par_chunks`](ParallelSlice::par_chunks).
///
/// ```
/// use stealpool::prelude::*;
///
/// let c: stealpool::iter::SliceChunks<'_, u8> = [1u8, 2, 3].par_chunks(2);
/// assert_eq!(c.count(), 2);
/// ```
#[derive(Debug)]
pub struct Chunks<'a, T> {
    chunk_size: usize,
    slice: &'a [T],
}

impl<T> Clone for Chunks<'_, T> {
    fn clone(&self) -> Self {
        Chunks { ..*self }
    }
}

slice_iterator!(Chunks<'a, T> where Sync, item &'a [T], len |it| it.slice.len().div_ceil(it.chunk_size));

impl<'a, T: Sync> Producer for Chunks<'a, T> {
    type Item = &'a [T];
    type IntoIter = std::slice::Chunks<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks(self.chunk_size)
    }

    fn fold_rev_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        folder.consume_iter(self.into_iter().rev())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = (index * self.chunk_size).min(self.slice.len());
        let (left, right) = self.slice.split_at(at);
        let chunk_size = self.chunk_size;
        (
            Chunks {
                chunk_size,
                slice: left,
            },
            Chunks {
                chunk_size,
                slice: right,
            },
        )
    }
}

/// The parallel iterator of [`par_chunks_mut`](ParallelSliceMut::par_chunks_mut).
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = [1u8, 2, 3];
/// let c: stealpool::iter::SliceChunksMut<'_, u8> = v.par_chunks_mut(2);
/// c.for_each(|chunk| chunk.reverse());
/// assert_eq!(v, [2, 1, 3]);
/// ```
#[derive(Debug)]
pub struct ChunksMut<'a, T> {
    chunk_size: usize,
    slice: &'a mut [T],
}

slice_iterator!(ChunksMut<'a, T> where Send, item &'a mut [T], len |it| it.slice.len().div_ceil(it.chunk_size));

impl<'a, T: Send> Producer for ChunksMut<'a, T> {
    type Item = &'a mut [T];
    type IntoIter = std::slice::ChunksMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_mut(self.chunk_size)
    }

    fn fold_rev_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        folder.consume_iter(self.into_iter().rev())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = (index * self.chunk_size).min(self.slice.len());
        let (left, right) = self.slice.split_at_mut(at);
        let chunk_size = self.chunk_size;
        (
            ChunksMut {
                chunk_size,
                slice: left,
            },
            ChunksMut {
                chunk_size,
                slice: right,
            },
        )
    }
}

/// The parallel iterator of [`par_windows`](ParallelSlice::par_windows).
///
/// ```
/// use stealpool::prelude::*;
///
/// let w: stealpool::iter::Windows<'_, u8> = [1u8, 2, 3].par_windows(2);
/// assert_eq!(w.count(), 2);
/// ```
#[derive(Debug)]
pub struct Windows<'a, T> {
    window_size: usize,
    slice: &'a [T],
}

impl<T> Clone for Windows<'_, T> {
    fn clone(&self) -> Self {
        Windows { ..*self }
    }
}

slice_iterator!(Windows<'a, T> where Sync, item &'a [T], len |it| it.slice.len().saturating_sub(it.window_size - 1));

impl<'a, T: Sync> Producer for Windows<'a, T> {
    type Item = &'a [T];
    type IntoIter = std::slice::Windows<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.windows(self.window_size)
    }

    fn fold_rev_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        folder.consume_iter(self.into_iter().rev())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        // The windows before `index` need the `window_size - 1` elements
        // after it too; the right part starts at window `index`.
        let end = (index + self.window_size - 1).min(self.slice.len());
        let window_size = self.window_size;
        (
            Windows {
                window_size,
                slice: &self.slice[..end],
            },
            Windows {
                window_size,
                slice: &self.slice[index.min(self.slice.len())..],
            },
        )
    }
}

impl<'a, T: Sync + 'a> IntoParallelIterator for &'a [T] {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter { slice: self }
    }
}

impl<'a, T: Sync + 'a> IntoParallelIterator for &'a Vec<T> {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter { slice: self }
    }
}

impl<'a, T: Sync + 'a, const N: usize> IntoParallelIterator for &'a [T; N] {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter { slice: self }
    }
}

impl<'a, T: Send + 'a> IntoParallelIterator for &'a mut [T] {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut { slice: self }
    }
}

impl<'a, T: Send + 'a> IntoParallelIterator for &'a mut Vec<T> {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut { slice: self }
    }
}

impl<'a, T: Send + 'a, const N: usize> IntoParallelIterator for &'a mut [T; N] {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut { slice: self }
    }
}
