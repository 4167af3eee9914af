//! Slices as parallel iterators: `par_iter`, `par_iter_mut`, `par_chunks`,
//! `par_chunks_mut`, `par_windows`, and the parallel sorts.

use super::plumbing::{bridge, Folder, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::iter::pool::CurrentPool;
use std::cmp::Ordering;

pub use super::slice_chunks::{
    ChunksExact, ChunksExactMut, RChunks, RChunksExact, RChunksExactMut, RChunksMut,
};
pub use super::slice_split::{ChunkBy, ChunkByMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut};

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

    /// The windows of `N` elements, as arrays: as
    /// [`par_windows(N)`](ParallelSlice::par_windows), each a `&[T; N]`.
    ///
    /// # Panics
    ///
    /// If `N` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let windows: Vec<&[i32; 2]> = [1, 2, 3].par_array_windows().collect();
    /// assert_eq!(windows, [&[1, 2], &[2, 3]]);
    /// ```
    fn par_array_windows<const N: usize>(&self) -> ArrayWindows<'_, T, N> {
        assert!(N != 0, "window size must be non-zero");
        ArrayWindows {
            slice: self.as_parallel_slice(),
        }
    }

    /// The slice's whole `chunk_size`-long chunks, as
    /// [`slice::chunks_exact`]; the items after the last are its
    /// [`remainder`](ChunksExact::remainder).
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let sums: Vec<u8> = [1u8, 2, 3, 4, 5].par_chunks_exact(2).map(|c| c[0] + c[1]).collect();
    /// assert_eq!(sums, [3, 7]);
    /// ```
    fn par_chunks_exact(&self, chunk_size: usize) -> ChunksExact<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        let slice = self.as_parallel_slice();
        let (slice, rem) = slice.split_at(slice.len() - slice.len() % chunk_size);
        ChunksExact {
            chunk_size,
            slice,
            rem,
        }
    }

    /// The slice's `chunk_size`-long chunks counted from its end (the
    /// last, the slice's first items, may be shorter), as
    /// [`slice::rchunks`].
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let firsts: Vec<u8> = [1u8, 2, 3, 4, 5].par_rchunks(2).map(|c| c[0]).collect();
    /// assert_eq!(firsts, [4, 2, 1]);
    /// ```
    fn par_rchunks(&self, chunk_size: usize) -> RChunks<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        RChunks {
            chunk_size,
            slice: self.as_parallel_slice(),
        }
    }

    /// The slice's whole `chunk_size`-long chunks counted from its end,
    /// as [`slice::rchunks_exact`]; the items before the last are its
    /// [`remainder`](RChunksExact::remainder).
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let firsts: Vec<u8> = [1u8, 2, 3, 4, 5].par_rchunks_exact(2).map(|c| c[0]).collect();
    /// assert_eq!(firsts, [4, 2]);
    /// ```
    fn par_rchunks_exact(&self, chunk_size: usize) -> RChunksExact<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        let slice = self.as_parallel_slice();
        let (rem, slice) = slice.split_at(slice.len() % chunk_size);
        RChunksExact {
            chunk_size,
            slice,
            rem,
        }
    }

    /// The parts between the elements for which `separator` holds, as
    /// [`slice::split`] (empty parts included).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let parts: Vec<usize> = [1u8, 0, 0, 2, 3].par_split(|x| *x == 0).map(|p| p.len()).collect();
    /// assert_eq!(parts, [1, 0, 2]);
    /// ```
    fn par_split<P>(&self, separator: P) -> Split<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Split::new(self.as_parallel_slice(), separator)
    }

    /// The parts ended by the elements for which `separator` holds (each
    /// part keeps its separator), as [`slice::split_inclusive`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let parts: Vec<usize> = [1u8, 0, 0, 2].par_split_inclusive(|x| *x == 0).map(|p| p.len()).collect();
    /// assert_eq!(parts, [2, 1, 1]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> SplitInclusive<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusive::new(self.as_parallel_slice(), separator)
    }

    /// The runs of neighbours for which `pred` holds, as
    /// [`slice::chunk_by`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let runs = [1u8, 2, 3, 1, 2].par_chunk_by(|a, b| a < b).count();
    /// assert_eq!(runs, 2);
    /// ```
    fn par_chunk_by<F>(&self, pred: F) -> ChunkBy<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkBy::new(self.as_parallel_slice(), pred)
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

    /// The slice's whole `chunk_size`-long chunks, mutably, as
    /// [`slice::chunks_exact_mut`].
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [1u8, 2, 3, 4, 5];
    /// v.par_chunks_exact_mut(2).for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [2, 1, 4, 3, 5]);
    /// ```
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ChunksExactMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        let slice = self.as_parallel_slice_mut();
        let whole = slice.len() - slice.len() % chunk_size;
        let (slice, rem) = slice.split_at_mut(whole);
        ChunksExactMut {
            chunk_size,
            slice,
            rem,
        }
    }

    /// The slice's `chunk_size`-long chunks counted from its end, mutably,
    /// as [`slice::rchunks_mut`].
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [0u8; 5];
    /// v.par_rchunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i as u8));
    /// assert_eq!(v, [2, 1, 1, 0, 0]);
    /// ```
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> RChunksMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        RChunksMut {
            chunk_size,
            slice: self.as_parallel_slice_mut(),
        }
    }

    /// The slice's whole `chunk_size`-long chunks counted from its end,
    /// mutably, as [`slice::rchunks_exact_mut`].
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [0u8; 5];
    /// v.par_rchunks_exact_mut(2).enumerate().for_each(|(i, c)| c.fill(i as u8 + 1));
    /// assert_eq!(v, [0, 2, 2, 1, 1]);
    /// ```
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> RChunksExactMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        let slice = self.as_parallel_slice_mut();
        let (rem, slice) = slice.split_at_mut(slice.len() % chunk_size);
        RChunksExactMut {
            chunk_size,
            slice,
            rem,
        }
    }

    /// The parts between the elements for which `separator` holds,
    /// mutably, as [`slice::split_mut`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [2u8, 1, 0, 4, 3];
    /// v.par_split_mut(|x| *x == 0).for_each(|p| p.sort());
    /// assert_eq!(v, [1, 2, 0, 3, 4]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> SplitMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// The parts ended by the elements for which `separator` holds,
    /// mutably, as [`slice::split_inclusive_mut`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [2u8, 0, 3, 1];
    /// v.par_split_inclusive_mut(|x| *x == 0).for_each(|p| p.sort());
    /// assert_eq!(v, [0, 2, 1, 3]);
    /// ```
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> SplitInclusiveMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusiveMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// The runs of neighbours for which `pred` holds, mutably, as
    /// [`slice::chunk_by_mut`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [1u8, 2, 3, 1, 2];
    /// v.par_chunk_by_mut(|a, b| a < b).for_each(|run| run.reverse());
    /// assert_eq!(v, [3, 2, 1, 2, 1]);
    /// ```
    fn par_chunk_by_mut<F>(&mut self, pred: F) -> ChunkByMut<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkByMut::new(self.as_parallel_slice_mut(), pred)
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

    /// Sorts by a key computed once per element, in parallel, keeping
    /// equal elements in order, as [`slice::sort_by_cached_key`]: for a
    /// costly key. The keys, with their positions, are sorted in
    /// parallel; the elements are then moved into place in one
    /// sequential pass of swaps.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = vec![-5i32, 4, 1, -3, 2];
    /// v.par_sort_by_cached_key(|x| x.to_string());
    /// assert_eq!(v, [-3, -5, 1, 2, 4]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, f: F)
    where
        F: Fn(&T) -> K + Sync,
        K: Ord + Send,
    {
        let slice = self.as_parallel_slice_mut();
        if slice.len() < 2 {
            return;
        }
        // Each key with its element's position: the positions are unique,
        // so the unstable sort orders equal keys by position, stably.
        let mut keyed: Vec<(K, usize)> = IterMut { slice: &mut *slice }
            .map(|x| f(x))
            .enumerate()
            .map(|(i, k)| (k, i))
            .collect();
        keyed.par_sort_unstable();
        // `keyed[i].1` is where the element that belongs at `i` was. By
        // the time `i` is reached, the swaps before it have moved that
        // element along a chain of earlier places, each recorded in the
        // entry of the place it left: follow the chain to a place not
        // below `i`, record it, and swap.
        for i in 0..slice.len() {
            let mut from = keyed[i].1;
            while from < i {
                from = keyed[from].1;
            }
            keyed[i].1 = from;
            slice.swap(i, from);
        }
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

/// The iterator of [`par_array_windows`](ParallelSlice::par_array_windows).
///
/// ```
/// use stealpool::prelude::*;
///
/// let w: stealpool::iter::ArrayWindows<'_, u8, 3> = [1u8, 2, 3, 4].par_array_windows();
/// assert_eq!(w.map(|[a, _, c]| a + c).collect::<Vec<_>>(), [4, 6]);
/// ```
#[derive(Debug)]
pub struct ArrayWindows<'a, T, const N: usize> {
    slice: &'a [T],
}

impl<T, const N: usize> Clone for ArrayWindows<'_, T, N> {
    fn clone(&self) -> Self {
        ArrayWindows { ..*self }
    }
}

impl<'a, T: Sync + 'a, const N: usize> ParallelIterator for ArrayWindows<'a, T, N> {
    type Item = &'a [T; N];

    fn drive_unindexed<C: UnindexedConsumer<&'a [T; N]>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'a, T: Sync + 'a, const N: usize> IndexedParallelIterator for ArrayWindows<'a, T, N> {
    fn len(&self) -> usize {
        self.slice.len().saturating_sub(N - 1)
    }

    fn with_producer<CB: ProducerCallback<&'a [T; N]>>(self, callback: CB) -> CB::Output {
        callback.callback(self)
    }
}

/// A window as the array it is.
fn as_array<T, const N: usize>(window: &[T]) -> &[T; N] {
    window.try_into().expect("a window is N long")
}

impl<'a, T: Sync, const N: usize> Producer for ArrayWindows<'a, T, N> {
    type Item = &'a [T; N];
    type IntoIter = std::iter::Map<std::slice::Windows<'a, T>, fn(&'a [T]) -> &'a [T; N]>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice
            .windows(N)
            .map(as_array::<T, N> as fn(&'a [T]) -> &'a [T; N])
    }

    fn fold_rev_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        folder.consume_iter(self.into_iter().rev())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        // As `Windows`: the left part keeps the `N - 1` elements after
        // `index` that its last windows need.
        let end = (index + N - 1).min(self.slice.len());
        (
            ArrayWindows {
                slice: &self.slice[..end],
            },
            ArrayWindows {
                slice: &self.slice[index.min(self.slice.len())..],
            },
        )
    }
}
