//! The parallel quicksort behind [`ThreadPool::sort_unstable_by`]: a
//! partition that is itself parallel above a threshold, the pivot choice and
//! the sequential partition.

use crate::iter::pool::OnPool;
#[cfg(doc)]
use crate::ThreadPool;
use std::cmp::Ordering;

/// A parallel partition cuts its slice down to pieces of this many elements,
/// partitioned on one thread each.
///
/// Each half of a slice is partitioned in parallel and the misplaced middle
/// blocks are swapped: about 1.5 times the work of a sequential partition,
/// but spread over the workers. That pays only while workers would
/// otherwise wait, so the quicksort partitions in parallel only slices
/// longer than `1/workers` of its input: the first partition, with two
/// workers.
pub(in crate::iter) const PARALLEL_PARTITION: usize = 1 << 16;
/// Swaps of blocks up to this length run on one thread.
const PARALLEL_SWAP: usize = 1 << 15;

/// The parallel quicksort behind [`ThreadPool::sort_unstable_by`]. All safe
/// code: elements only ever move by `swap`, so a panicking comparison
/// leaves a permutation of the input.
pub(in crate::iter) struct QuickSort<'a, P, C> {
    pub(in crate::iter) pool: &'a P,
    pub(in crate::iter) compare: &'a C,
    /// Slices up to this long are sorted sequentially.
    pub(in crate::iter) grain: usize,
    /// Slices longer than this are partitioned in parallel.
    pub(in crate::iter) parallel_partition_above: usize,
}

/// How a quicksort partitions a long slice: [`Parallel`] for elements that
/// are `Sync` (two workers compare against one pivot), [`Sequential`]
/// otherwise.
pub(in crate::iter) trait Partition<T>: Sized {
    /// Moves the elements less than `pivot` (or not greater, if
    /// `not_greater`) to the front of `v` and returns how many there are.
    fn partition_top<P, C>(sort: &QuickSort<'_, P, C>, v: &mut [T], pivot: &T, not_greater: bool) -> usize
    where
        P: OnPool,
        C: Fn(&T, &T) -> Ordering + Sync;
}

/// Partitions slices longer than `parallel_partition_above` in parallel
/// (see [`PARALLEL_PARTITION`]); needs `T: Sync`.
pub(in crate::iter) struct Parallel;

/// Partitions on one thread, always: needs only `T: Send`, as rayon's
/// `par_sort_unstable` does.
pub(in crate::iter) struct Sequential;

impl<T: Send + Sync> Partition<T> for Parallel {
    fn partition_top<P, C>(sort: &QuickSort<'_, P, C>, v: &mut [T], pivot: &T, not_greater: bool) -> usize
    where
        P: OnPool,
        C: Fn(&T, &T) -> Ordering + Sync,
    {
        let compare = sort.compare;
        let long = v.len() > sort.parallel_partition_above;
        match (not_greater, long) {
            (true, true) => sort.partition(v, &|x| compare(pivot, x) != Ordering::Less),
            (true, false) => partition_sequential(v, &|x| compare(pivot, x) != Ordering::Less),
            (false, true) => sort.partition(v, &|x| compare(x, pivot) == Ordering::Less),
            (false, false) => partition_sequential(v, &|x| compare(x, pivot) == Ordering::Less),
        }
    }
}

impl<T: Send> Partition<T> for Sequential {
    fn partition_top<P, C>(sort: &QuickSort<'_, P, C>, v: &mut [T], pivot: &T, not_greater: bool) -> usize
    where
        P: OnPool,
        C: Fn(&T, &T) -> Ordering + Sync,
    {
        let compare = sort.compare;
        if not_greater {
            partition_sequential(v, &|x| compare(pivot, x) != Ordering::Less)
        } else {
            partition_sequential(v, &|x| compare(x, pivot) == Ordering::Less)
        }
    }
}

impl<P: OnPool, C: Sync> QuickSort<'_, P, C> {
    /// Sorts `v`, all of whose elements are `>= pred` when there is a `pred`
    /// (the pivot of an enclosing partition, just left of `v`), partitioning
    /// long slices as `M` does.
    ///
    /// `pred` is a `&mut`, the only reference to that pivot: it moves to
    /// the worker that sorts `v`, which needs `T: Send` and not `Sync`.
    pub(in crate::iter) fn sort<M: Partition<T>, T: Send>(
        &self,
        v: &mut [T],
        pred: Option<&mut T>,
        depth_limit: u32,
    ) where
        C: Fn(&T, &T) -> Ordering + Sync,
    {
        if v.len() <= self.grain || depth_limit == 0 {
            v.sort_unstable_by(self.compare);
            return;
        }
        choose_pivot(v, self.compare);
        let (pivot, rest) = v.split_at_mut(1);
        let pivot = &mut pivot[0];
        if pred
            .as_deref()
            .is_some_and(|pred| (self.compare)(pred, pivot) != Ordering::Less)
        {
            // The pivot equals `pred`, the smallest possible value here: many
            // duplicates. Put every element equal to it first; they are
            // sorted already, and only the greater rest needs work. Without
            // this, an input of equal elements would recurse once per element.
            let equal = M::partition_top(self, rest, pivot, true);
            return self.sort::<M, T>(&mut rest[equal..], Some(pivot), depth_limit - 1);
        }
        let less = M::partition_top(self, rest, pivot, false);
        // Move the pivot between the two parts: `v[..less]` < pivot.
        v.swap(0, less);
        let (left, right) = v.split_at_mut(less);
        let (pivot, right) = right.split_at_mut(1);
        let pivot = &mut pivot[0];
        self.pool.join(
            || self.sort::<M, T>(left, pred, depth_limit - 1),
            || self.sort::<M, T>(right, Some(pivot), depth_limit - 1),
        );
    }

    /// Moves the elements satisfying `goes_left` to the front of `v` and
    /// returns how many there are.
    fn partition<T: Send + Sync>(&self, v: &mut [T], goes_left: &(impl Fn(&T) -> bool + Sync)) -> usize {
        if v.len() <= PARALLEL_PARTITION {
            return partition_sequential(v, goes_left);
        }
        // Partition both halves at once, then swap the misplaced blocks:
        //   [ L yes | L no ][ R yes | R no ]  ->  [ yes ... | no ... ]
        let mid = v.len() / 2;
        let (left, right) = v.split_at_mut(mid);
        let (left_yes, right_yes) = self.pool.join(
            || self.partition(left, goes_left),
            || self.partition(right, goes_left),
        );
        // `left[left_yes..]` (all "no") and `right[..right_yes]` (all
        // "yes") change places; only `count` elements of each need to move:
        // the "no"s nearest the start, with the "yes"s nearest the end.
        let count = (mid - left_yes).min(right_yes);
        self.swap_blocks(
            &mut left[left_yes..left_yes + count],
            &mut right[right_yes - count..right_yes],
        );
        left_yes + right_yes
    }

    /// Swaps two blocks of equal length, in parallel when they are long.
    fn swap_blocks<T: Send>(&self, a: &mut [T], b: &mut [T]) {
        if a.len() <= PARALLEL_SWAP {
            a.swap_with_slice(b);
            return;
        }
        let mid = a.len() / 2;
        let (a_left, a_right) = a.split_at_mut(mid);
        let (b_left, b_right) = b.split_at_mut(mid);
        self.pool.join(
            || self.swap_blocks(a_left, b_left),
            || self.swap_blocks(a_right, b_right),
        );
    }
}

/// Swaps the median of a sample of `v` into `v[0]`.
///
/// The sample is about `sqrt(len)` elements (at most 255) spread evenly over
/// `v`: its median lands within a few percent of the true median, so the two
/// sides of a partition are nearly equal. That matters more here than in a
/// sequential quicksort: the sorts cut the input into only a few pieces per
/// worker, and the largest piece decides when the last worker finishes.
/// Evenly spread samples also keep sorted, reversed and sawtooth inputs
/// balanced.
fn choose_pivot<T>(v: &mut [T], compare: &impl Fn(&T, &T) -> Ordering) {
    let len = v.len();
    // Odd, and `samples² <= len` so the sample positions `i * step` (i ≥ 1)
    // lie beyond the first `samples` slots they are gathered into.
    let samples = (len.isqrt().min(255) - 1) | 1;
    let step = len / samples;
    for i in 1..samples {
        v.swap(i, i * step);
    }
    v[..samples].sort_unstable_by(compare);
    v.swap(0, samples / 2);
}

/// Lomuto partition without a data-dependent branch: every element is
/// swapped into the boundary slot, and the boundary advances when it
/// belongs on the left. Random inputs mispredict half of a branchy
/// partition's comparisons; this one mispredicts none.
fn partition_sequential<T>(v: &mut [T], goes_left: &impl Fn(&T) -> bool) -> usize {
    let mut boundary = 0;
    for i in 0..v.len() {
        let left = goes_left(&v[i]);
        v.swap(boundary, i);
        boundary += usize::from(left);
    }
    boundary
}
