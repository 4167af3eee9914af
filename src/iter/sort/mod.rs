//! The sorts' public entry points, [`sort_unstable`](ThreadPool::sort_unstable)
//! and [`sort`](ThreadPool::sort) with their `_by` forms, and the grain both
//! algorithms cut their input to.

// One file per job: the quicksort; the merge sort; the merge sort's raw
// pointers and unwind guards.
mod guards;
mod merge_sort;
mod quicksort;
#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests;

use crate::iter::pool::OnPool;
use crate::ThreadPool;
use guards::SendPtr;
use merge_sort::MergeSort;
use quicksort::Sequential;
use quicksort::{Parallel, Partition, QuickSort};
use std::cmp::Ordering;
use std::mem::{self, MaybeUninit};

/// Sorts and merges of fewer elements always run sequentially: a `join`
/// costs tens of nanoseconds, sorting this many elements tens of
/// microseconds. Larger inputs are cut into about [`PIECES_PER_WORKER`]
/// pieces per worker (see `ThreadPool::sort_grain`).
pub(in crate::iter) const SEQUENTIAL_SORT: usize = 1 << 12;
/// Pieces per worker that the sorts aim for: enough for stealing to even
/// out uneven partitions, few enough that most of the work is done by the
/// sequential std sorts, which are faster per element than any level of
/// partitioning or merging above them.
const PIECES_PER_WORKER: usize = 8;

/// Parallel sorts.
impl ThreadPool {
    /// Sorts `v` in parallel, not necessarily keeping equal elements in
    /// order (a quicksort; it does not allocate).
    ///
    /// If `Ord` panics, the panic is re-raised here and `v` holds its
    /// elements in some order, none lost or duplicated.
    ///
    /// `T` must be `Sync`, where rayon's `par_sort_unstable` asks only
    /// `Send`: the partition of a long slice is itself parallel, so two
    /// workers compare against the same pivot at once, and the halves of
    /// a split compare against the same bound. For elements that are
    /// `Send` but not `Sync` (a `Cell` in them), [`sort`](ThreadPool::sort)
    /// asks only `Send`.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let mut v: Vec<u32> = (0..100_000).map(|i| i * 7919 % 100_003).collect();
    /// let mut expected = v.clone();
    /// expected.sort_unstable();
    /// pool.sort_unstable(&mut v);
    /// assert_eq!(v, expected);
    /// ```
    pub fn sort_unstable<T: Ord + Send + Sync>(&self, v: &mut [T]) {
        self.sort_unstable_by(v, T::cmp);
    }

    /// [`sort_unstable`](ThreadPool::sort_unstable) with a comparison
    /// function, which must be a total order.
    ///
    /// `T: Sync` because the workers partitioning the halves of a range
    /// compare against the same pivot at the same time.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let mut words = vec!["pear", "fig", "banana", "kiwi"];
    /// pool.sort_unstable_by(&mut words, |a, b| a.len().cmp(&b.len()).then(a.cmp(b)));
    /// assert_eq!(words, ["fig", "kiwi", "pear", "banana"]);
    /// ```
    pub fn sort_unstable_by<T, F>(&self, v: &mut [T], compare: F)
    where
        T: Send + Sync,
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        sort_unstable_by(self, v, compare);
    }

    /// Sorts `v` in parallel, keeping equal elements in their order (a merge
    /// sort with parallel merges; it allocates a buffer as long as `v`).
    ///
    /// If `Ord` panics, the panic is re-raised here and `v` holds its
    /// elements in some order, none lost or duplicated.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let mut v: Vec<u64> = (0..100_000u64).map(|i| i * 2_654_435_761 % 1_000_003).collect();
    /// let mut expected = v.clone();
    /// expected.sort();
    /// pool.sort(&mut v);
    /// assert_eq!(v, expected);
    /// ```
    pub fn sort<T: Ord + Send>(&self, v: &mut [T]) {
        self.sort_by(v, T::cmp);
    }

    /// [`sort`](ThreadPool::sort) with a comparison function, which must be
    /// a total order.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let mut people = vec![("ada", 36), ("alan", 41), ("grace", 36), ("edsger", 41)];
    /// pool.sort_by(&mut people, |a, b| a.1.cmp(&b.1));
    /// // Equal ages keep their original order.
    /// assert_eq!(people, [("ada", 36), ("grace", 36), ("alan", 41), ("edsger", 41)]);
    /// ```
    pub fn sort_by<T, F>(&self, v: &mut [T], compare: F)
    where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        sort_by(self, v, compare);
    }
}

/// [`ThreadPool::sort_unstable_by`] on any [`OnPool`]: long slices are
/// partitioned in parallel.
pub(crate) fn sort_unstable_by<P, T, F>(pool: &P, v: &mut [T], compare: F)
where
    P: OnPool,
    T: Send + Sync,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    quicksort::<Parallel, P, T, F>(pool, v, compare);
}

/// The quicksort of `par_sort_unstable_by`, for elements that are `Send`
/// but maybe not `Sync`: every partition runs on one thread, as rayon's do.
pub(crate) fn sort_unstable_by_send<P, T, F>(pool: &P, v: &mut [T], compare: F)
where
    P: OnPool,
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    quicksort::<Sequential, P, T, F>(pool, v, compare);
}

/// The quicksort, partitioning long slices as `M` does.
fn quicksort<M, P, T, F>(pool: &P, v: &mut [T], compare: F)
where
    M: Partition<T>,
    P: OnPool,
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if v.len() <= SEQUENTIAL_SORT {
        v.sort_unstable_by(compare);
        return;
    }
    if pool.num_workers() == 1 {
        // Nothing to run in parallel: the std sort, on the pool.
        return pool.install(|| v.sort_unstable_by(&compare));
    }
    let grain = sort_grain(pool, v.len());
    let parallel_partition_above = v.len() / pool.num_workers();
    // Past 2·log2(n) levels the pivots have been bad; the sequential
    // sort below that point is O(n log n) whatever the input.
    let depth_limit = 2 * (usize::BITS - v.len().leading_zeros());
    pool.install(|| {
        let sort = QuickSort {
            pool,
            compare: &compare,
            grain,
            parallel_partition_above,
        };
        sort.sort::<M, T>(v, None, depth_limit);
    });
}

/// [`ThreadPool::sort_by`] on any [`OnPool`].
pub(crate) fn sort_by<P, T, F>(pool: &P, v: &mut [T], compare: F)
where
    P: OnPool,
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if v.len() <= SEQUENTIAL_SORT || mem::size_of::<T>() == 0 {
        v.sort_by(compare);
        return;
    }
    if pool.num_workers() == 1 {
        // Nothing to run in parallel: the std sort, on the pool.
        return pool.install(|| v.sort_by(&compare));
    }
    let len = v.len();
    // Scratch space: its length stays 0, so dropping it frees the memory
    // and never drops an element (the elements' owner is always `v` or
    // a bitwise copy tracked below).
    let mut buf: Vec<MaybeUninit<T>> = Vec::with_capacity(len);
    let sort = MergeSort {
        pool,
        compare: &compare,
        grain: sort_grain(pool, len),
    };
    let v = SendPtr(v.as_mut_ptr());
    let buf = SendPtr(buf.as_mut_ptr().cast::<T>());
    // SAFETY: `v` holds `len` elements and `buf` room for `len` more; we
    // do not touch the caller's slice until `sort` returns, and it leaves
    // every element in `v` exactly once, even when it unwinds (see
    // `MergeSort::sort`).
    pool.install(|| unsafe { sort.sort(v, buf, len, false) });
}

/// The length below which a parallel sort of `len` elements sorts (and
/// merges) sequentially: [`PIECES_PER_WORKER`] pieces per worker.
fn sort_grain<P: OnPool>(pool: &P, len: usize) -> usize {
    (len / (PIECES_PER_WORKER * pool.num_workers())).max(SEQUENTIAL_SORT)
}
