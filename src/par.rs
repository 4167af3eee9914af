//! Parallel loops and sorts on a [`ThreadPool`], built on
//! [`join`](ThreadPool::join) alone.
//!
//! * [`for_each`](ThreadPool::for_each), [`for_each_range`](ThreadPool::for_each_range),
//!   [`for_each_chunk_mut`](ThreadPool::for_each_chunk_mut) and
//!   [`reduce`](ThreadPool::reduce) split an index range in halves with
//!   *adaptive* splitting: a range is cut into about two pieces per worker,
//!   and a piece that another worker steals is cut again. So a balanced loop
//!   pays for a handful of `join`s, and an unbalanced one is split further
//!   exactly where idle workers take work from.
//! * [`sort_unstable`](ThreadPool::sort_unstable) is a quicksort whose
//!   partition is itself parallel above a size threshold, so the first,
//!   largest partition does not run on one core while the others wait.
//! * [`sort`](ThreadPool::sort) is a stable merge sort whose merges are
//!   parallel too (each merge splits around the median of the longer run).
//!
//! Called from outside the pool, each of them runs on the pool (through
//! [`install`](ThreadPool::install)) and blocks until done; called from a
//! task of the pool, it runs there, helping with other work while it waits.

use crate::{current_worker_index, ThreadPool};
use std::cmp::Ordering;
use std::mem::{self, MaybeUninit};
use std::ops::Range;
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

/// Parallel loops.
impl ThreadPool {
    /// Calls `f(i)` for every `i` in `range`, in parallel, in no particular
    /// order. Returns when all calls have returned; a panic in `f` is
    /// re-raised here once the others have finished.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let squares: Vec<AtomicU64> = (0..100).map(|_| AtomicU64::new(0)).collect();
    /// pool.for_each(0..100, |i| squares[i].store((i * i) as u64, Ordering::Relaxed));
    /// assert_eq!(squares[9].load(Ordering::Relaxed), 81);
    /// ```
    pub fn for_each<F>(&self, range: Range<usize>, f: F)
    where
        F: Fn(usize) + Sync,
    {
        self.for_each_range(range, |piece| piece.for_each(&f));
    }

    /// Calls `f` on disjoint sub-ranges that together cover `range`, in
    /// parallel. Handing `f` a whole piece lets its loop vectorize and keep
    /// per-piece state (an accumulator, a buffer) out of the inner loop.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let total = AtomicU64::new(0);
    /// pool.for_each_range(0..1_000, |piece| {
    ///     let sum: u64 = piece.map(|i| i as u64).sum();
    ///     total.fetch_add(sum, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 999 * 1_000 / 2);
    /// ```
    pub fn for_each_range<F>(&self, range: Range<usize>, f: F)
    where
        F: Fn(Range<usize>) + Sync,
    {
        if range.is_empty() {
            return;
        }
        let splits = self.num_workers();
        self.install(|| self.reduce_pieces(range, splits, &|piece| f(piece), &|(), ()| ()));
    }

    /// Maps every index in `range` with `map` and combines the results with
    /// `op`, in parallel; `identity()` is the result of an empty range.
    ///
    /// `op` must be associative and `identity()` its neutral element; it
    /// need not be commutative: results are combined in index order, as
    /// `op(op(op(identity(), map(start)), map(start + 1)), ...)` would.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let sum = pool.reduce(0..1_000_000, || 0u64, |i| i as u64, |a, b| a + b);
    /// assert_eq!(sum, 999_999 * 1_000_000 / 2);
    ///
    /// // Order is kept: concatenation is associative, not commutative.
    /// let digits = pool.reduce(0..10, String::new, |i| i.to_string(), |a, b| a + &b);
    /// assert_eq!(digits, "0123456789");
    /// ```
    pub fn reduce<T, Id, Map, Op>(&self, range: Range<usize>, identity: Id, map: Map, op: Op) -> T
    where
        T: Send,
        Id: Fn() -> T + Sync,
        Map: Fn(usize) -> T + Sync,
        Op: Fn(T, T) -> T + Sync,
    {
        if range.is_empty() {
            return identity();
        }
        let leaf = |piece: Range<usize>| piece.fold(identity(), |acc, i| op(acc, map(i)));
        let splits = self.num_workers();
        self.install(|| self.reduce_pieces(range, splits, &leaf, &op))
    }

    /// Splits `range` in halves while `splits` allows, runs `leaf` on each
    /// piece and combines the pieces' results in order with `op`.
    ///
    /// `splits` halves at each level. When the right half is stolen (it runs
    /// on another worker than the one that split it), that worker gets a
    /// fresh budget of one split per worker: work that moves is work some
    /// worker was starved of, so it is cut finer where it lands.
    fn reduce_pieces<T, Leaf, Op>(&self, range: Range<usize>, splits: usize, leaf: &Leaf, op: &Op) -> T
    where
        T: Send,
        Leaf: Fn(Range<usize>) -> T + Sync,
        Op: Fn(T, T) -> T + Sync,
    {
        if range.len() < 2 || splits == 0 {
            return leaf(range);
        }
        let mid = range.start + range.len() / 2;
        let half = splits / 2;
        let home = current_worker_index();
        let (left, right) = self.join(
            || self.reduce_pieces(range.start..mid, half, leaf, op),
            || self.reduce_pieces(mid..range.end, self.right_splits(home, half), leaf, op),
        );
        op(left, right)
    }

    /// The split budget of the right half of a `join` forked on worker
    /// `home` with `half` splits left: a fresh one per worker if the half
    /// was stolen.
    fn right_splits(&self, home: Option<usize>, half: usize) -> usize {
        if current_worker_index() == home {
            half
        } else {
            half.max(self.num_workers())
        }
    }

    /// Calls `f(i, chunk)` for every `chunk_len`-long chunk of `v` (the
    /// last may be shorter), `i` being the chunk's index, in parallel. The
    /// chunks are split between workers as in [`for_each`](ThreadPool::for_each).
    ///
    /// # Panics
    ///
    /// If `chunk_len` is 0.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// // A 4 × 3 image, one row per chunk.
    /// let mut pixels = vec![0u32; 4 * 3];
    /// pool.for_each_chunk_mut(&mut pixels, 4, |row, line| {
    ///     for (column, pixel) in line.iter_mut().enumerate() {
    ///         *pixel = (row * 10 + column) as u32;
    ///     }
    /// });
    /// assert_eq!(pixels[4..8], [10, 11, 12, 13]);
    /// ```
    pub fn for_each_chunk_mut<T, F>(&self, v: &mut [T], chunk_len: usize, f: F)
    where
        T: Send,
        F: Fn(usize, &mut [T]) + Sync,
    {
        assert!(chunk_len > 0, "for_each_chunk_mut: chunk_len must be positive");
        if v.is_empty() {
            return;
        }
        let splits = self.num_workers();
        self.install(|| self.chunk_pieces(v, 0, chunk_len, splits, &f));
    }

    /// [`reduce_pieces`](ThreadPool::reduce_pieces) over the chunks of a
    /// slice; `first` is the index of `v`'s first chunk.
    fn chunk_pieces<T, F>(&self, v: &mut [T], first: usize, chunk_len: usize, splits: usize, f: &F)
    where
        T: Send,
        F: Fn(usize, &mut [T]) + Sync,
    {
        let chunks = v.len().div_ceil(chunk_len);
        if chunks < 2 || splits == 0 {
            for (i, chunk) in v.chunks_mut(chunk_len).enumerate() {
                f(first + i, chunk);
            }
            return;
        }
        let half_chunks = chunks / 2;
        let (left, right) = v.split_at_mut(half_chunks * chunk_len);
        let half = splits / 2;
        let home = current_worker_index();
        self.join(
            || self.chunk_pieces(left, first, chunk_len, half, f),
            || {
                self.chunk_pieces(
                    right,
                    first + half_chunks,
                    chunk_len,
                    self.right_splits(home, half),
                    f,
                )
            },
        );
    }
}

/// Sorts and merges of fewer elements always run sequentially: a `join`
/// costs tens of nanoseconds, sorting this many elements tens of
/// microseconds. Larger inputs are cut into about [`PIECES_PER_WORKER`]
/// pieces per worker (see `ThreadPool::sort_grain`).
const SEQUENTIAL_SORT: usize = 1 << 12;
/// Pieces per worker that the sorts aim for: enough for stealing to even
/// out uneven partitions, few enough that most of the work is done by the
/// sequential std sorts, which are faster per element than any level of
/// partitioning or merging above them.
const PIECES_PER_WORKER: usize = 8;
/// A parallel partition cuts its slice down to pieces of this many elements,
/// partitioned on one thread each.
///
/// Each half of a slice is partitioned in parallel and the misplaced middle
/// blocks are swapped: about 1.5 times the work of a sequential partition,
/// but spread over the workers. That pays only while workers would
/// otherwise wait, so the quicksort partitions in parallel only slices
/// longer than `1/workers` of its input: the first partition, with two
/// workers.
const PARALLEL_PARTITION: usize = 1 << 16;
/// Swaps of blocks up to this length run on one thread.
const PARALLEL_SWAP: usize = 1 << 15;

/// Parallel sorts.
impl ThreadPool {
    /// Sorts `v` in parallel, not necessarily keeping equal elements in
    /// order (a quicksort; it does not allocate).
    ///
    /// If `Ord` panics, the panic is re-raised here and `v` holds its
    /// elements in some order, none lost or duplicated.
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
        if v.len() <= SEQUENTIAL_SORT {
            v.sort_unstable_by(compare);
            return;
        }
        if self.num_workers() == 1 {
            // Nothing to run in parallel: the std sort, on the pool.
            return self.install(|| v.sort_unstable_by(&compare));
        }
        let grain = self.sort_grain(v.len());
        let parallel_partition_above = v.len() / self.num_workers();
        // Past 2·log2(n) levels the pivots have been bad; the sequential
        // sort below that point is O(n log n) whatever the input.
        let depth_limit = 2 * (usize::BITS - v.len().leading_zeros());
        self.install(|| {
            let sort = QuickSort {
                pool: self,
                compare: &compare,
                grain,
                parallel_partition_above,
            };
            sort.sort(v, None, depth_limit);
        });
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
        if v.len() <= SEQUENTIAL_SORT || mem::size_of::<T>() == 0 {
            v.sort_by(compare);
            return;
        }
        if self.num_workers() == 1 {
            // Nothing to run in parallel: the std sort, on the pool.
            return self.install(|| v.sort_by(&compare));
        }
        let len = v.len();
        // Scratch space: its length stays 0, so dropping it frees the memory
        // and never drops an element (the elements' owner is always `v` or
        // a bitwise copy tracked below).
        let mut buf: Vec<MaybeUninit<T>> = Vec::with_capacity(len);
        let sort = MergeSort {
            pool: self,
            compare: &compare,
            grain: self.sort_grain(len),
        };
        let v = SendPtr(v.as_mut_ptr());
        let buf = SendPtr(buf.as_mut_ptr().cast::<T>());
        // SAFETY: `v` holds `len` elements and `buf` room for `len` more; we
        // do not touch the caller's slice until `sort` returns, and it leaves
        // every element in `v` exactly once, even when it unwinds (see
        // `MergeSort::sort`).
        self.install(|| unsafe { sort.sort(v, buf, len, false) });
    }

    /// The length below which a parallel sort of `len` elements sorts (and
    /// merges) sequentially: [`PIECES_PER_WORKER`] pieces per worker.
    fn sort_grain(&self, len: usize) -> usize {
        (len / (PIECES_PER_WORKER * self.num_workers())).max(SEQUENTIAL_SORT)
    }
}

/// A raw pointer that may cross to the worker running the other half of a
/// `join`.
struct SendPtr<T>(*mut T);

impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// `self` advanced by `count` elements.
    ///
    /// # Safety
    ///
    /// As for `pointer::add`.
    unsafe fn add(self, count: usize) -> Self {
        // SAFETY: forwarded to the caller.
        SendPtr(unsafe { self.0.add(count) })
    }
}

// SAFETY: the sorts hand each task a range that no other task reads or
// writes meanwhile, and the `T`s it points to are `Send`.
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as above; shared `SendPtr`s are only copied, never dereferenced
// concurrently on overlapping ranges.
unsafe impl<T: Send> Sync for SendPtr<T> {}

/// The parallel quicksort behind [`ThreadPool::sort_unstable_by`]. All safe
/// code: elements only ever move by `swap`, so a panicking comparison
/// leaves a permutation of the input.
struct QuickSort<'a, C> {
    pool: &'a ThreadPool,
    compare: &'a C,
    /// Slices up to this long are sorted sequentially.
    grain: usize,
    /// Slices longer than this are partitioned in parallel.
    parallel_partition_above: usize,
}

impl<C: Sync> QuickSort<'_, C> {
    /// Sorts `v`, all of whose elements are `>= pred` when there is a `pred`
    /// (the pivot of an enclosing partition, just left of `v`).
    fn sort<T: Send + Sync>(&self, v: &mut [T], pred: Option<&T>, depth_limit: u32)
    where
        C: Fn(&T, &T) -> Ordering + Sync,
    {
        if v.len() <= self.grain || depth_limit == 0 {
            v.sort_unstable_by(self.compare);
            return;
        }
        let is_less = &|a: &T, b: &T| (self.compare)(a, b) == Ordering::Less;
        choose_pivot(v, self.compare);
        let (pivot, rest) = v.split_at_mut(1);
        let pivot = &pivot[0];
        if pred.is_some_and(|pred| !is_less(pred, pivot)) {
            // The pivot equals `pred`, the smallest possible value here: many
            // duplicates. Put every element equal to it first; they are
            // sorted already, and only the greater rest needs work. Without
            // this, an input of equal elements would recurse once per element.
            let equal = self.partition_top(rest, &|x| !is_less(pivot, x));
            return self.sort(&mut rest[equal..], Some(pivot), depth_limit - 1);
        }
        let less = self.partition_top(rest, &|x| is_less(x, pivot));
        // Move the pivot between the two parts: `v[..less]` < pivot.
        v.swap(0, less);
        let (left, right) = v.split_at_mut(less);
        let (pivot, right) = right.split_at_mut(1);
        let pivot = &pivot[0];
        self.pool.join(
            || self.sort(left, pred, depth_limit - 1),
            || self.sort(right, Some(pivot), depth_limit - 1),
        );
    }

    /// Partitions a slice the quicksort is about to split: in parallel if it
    /// is long enough (see [`PARALLEL_PARTITION`]).
    fn partition_top<T: Send + Sync>(&self, v: &mut [T], goes_left: &(impl Fn(&T) -> bool + Sync)) -> usize {
        if v.len() > self.parallel_partition_above {
            self.partition(v, goes_left)
        } else {
            partition_sequential(v, goes_left)
        }
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

/// The parallel merge sort behind [`ThreadPool::sort_by`].
///
/// It sorts back and forth between `v` and a scratch buffer of the same
/// length, moving elements with bitwise copies. The rule that keeps every
/// element owned exactly once, even when a comparison panics: a merge only
/// *reads* its source range, so until it has finished the source still holds
/// every element; only then does the destination become the owner. Each
/// level arms a [`CopyOnDrop`] that, on unwinding, copies the whole source
/// into the destination, so whatever happens below, each call leaves its
/// elements where its caller expects them.
struct MergeSort<'a, C> {
    pool: &'a ThreadPool,
    compare: &'a C,
    /// Runs up to this long are sorted, and merges up to this long done,
    /// sequentially.
    grain: usize,
}

impl<C: Sync> MergeSort<'_, C> {
    /// Sorts the `len` elements at `v`, leaving the result at `buf` when
    /// `into_buf`, at `v` otherwise.
    ///
    /// # Safety
    ///
    /// `v` holds `len` initialized elements and `buf` has room for `len`,
    /// neither range touched by anyone else during the call. On return (or
    /// unwind) the elements are owned by the range the result was asked in;
    /// the other range holds stale bitwise copies.
    unsafe fn sort<T: Send>(&self, v: SendPtr<T>, buf: SendPtr<T>, len: usize, into_buf: bool)
    where
        C: Fn(&T, &T) -> Ordering + Sync,
    {
        if len <= self.grain {
            // Copies `v` to `buf` once the sort is done or has unwound
            // (std's sort keeps a permutation when it unwinds).
            let _to_buf = into_buf.then_some(CopyOnDrop {
                src: v,
                dst: buf,
                len,
            });
            // SAFETY: `v` holds `len` elements nobody else touches.
            let slice = unsafe { std::slice::from_raw_parts_mut(v.0, len) };
            slice.sort_by(self.compare);
            return;
        }
        let mid = len / 2;
        // The halves are sorted into the other range, then merged into ours.
        let (src, dst) = if into_buf { (v, buf) } else { (buf, v) };
        // Whether each half's sort started: a half that never ran (`join`
        // drops `b` unrun when `a` panics) still has its elements in `v`.
        let ran = [AtomicBool::new(false), AtomicBool::new(false)];
        // Unwinding from the halves or the merge: gather every element in
        // `dst`, where our caller expects them.
        let guard = Unwind {
            v,
            buf,
            into_buf,
            halves: [(0, mid, &ran[0]), (mid, len - mid, &ran[1])],
        };
        // SAFETY: the two halves are disjoint sub-ranges of ours.
        let (v_right, buf_right) = unsafe { (v.add(mid), buf.add(mid)) };
        self.pool.join(
            || {
                ran[0].store(true, AtomicOrdering::Relaxed);
                // SAFETY: as above.
                unsafe { self.sort(v, buf, mid, !into_buf) }
            },
            || {
                ran[1].store(true, AtomicOrdering::Relaxed);
                // SAFETY: as above.
                unsafe { self.sort(v_right, buf_right, len - mid, !into_buf) }
            },
        );
        // SAFETY: `src` holds both sorted halves, `dst` has room for `len`.
        unsafe { self.merge(src, mid, src.add(mid), len - mid, dst) };
        // Merged: `dst` owns the elements; nothing to move.
        mem::forget(guard);
    }

    /// Copies the merge of two sorted runs to `dst`, in parallel when long:
    /// the longer run is cut at its middle element, the other run where that
    /// element would go, and the two pairs are merged side by side into
    /// their places in `dst`.
    ///
    /// # Safety
    ///
    /// The runs hold initialized elements and are not written during the
    /// call; `dst` has room for both, overlaps neither, and nobody else
    /// touches it.
    unsafe fn merge<T: Send>(
        &self,
        left: SendPtr<T>,
        left_len: usize,
        right: SendPtr<T>,
        right_len: usize,
        dst: SendPtr<T>,
    ) where
        C: Fn(&T, &T) -> Ordering + Sync,
    {
        let is_less = |a: &T, b: &T| (self.compare)(a, b) == Ordering::Less;
        if left_len + right_len <= self.grain {
            // SAFETY: forwarded.
            unsafe { merge_sequential(left.0, left_len, right.0, right_len, dst.0, &is_less) };
            return;
        }
        // SAFETY: the runs are initialized and not written meanwhile.
        let (l, r) = unsafe {
            (
                std::slice::from_raw_parts(left.0, left_len),
                std::slice::from_raw_parts(right.0, right_len),
            )
        };
        // Stability: an element of `left` goes before every equal element of
        // `right`, so equal elements of `right` stay right of a `left` pivot,
        // and equal elements of `left` stay left of a `right` pivot.
        let (left_cut, right_cut) = if left_len >= right_len {
            let cut = left_len / 2;
            (cut, r.partition_point(|x| is_less(x, &l[cut])))
        } else {
            let cut = right_len / 2;
            (l.partition_point(|x| !is_less(&r[cut], x)), cut)
        };
        // SAFETY: the four sub-runs and two destinations are disjoint parts
        // of the ranges above.
        unsafe {
            let (left_hi, right_hi) = (left.add(left_cut), right.add(right_cut));
            let dst_hi = dst.add(left_cut + right_cut);
            self.pool.join(
                || self.merge(left, left_cut, right, right_cut, dst),
                || {
                    self.merge(
                        left_hi,
                        left_len - left_cut,
                        right_hi,
                        right_len - right_cut,
                        dst_hi,
                    )
                },
            );
        }
    }
}

/// Copies `len` elements from `src` to `dst` when dropped.
struct CopyOnDrop<T> {
    src: SendPtr<T>,
    dst: SendPtr<T>,
    len: usize,
}

impl<T> Drop for CopyOnDrop<T> {
    fn drop(&mut self) {
        // SAFETY: the owners of guards (`MergeSort::sort`) arm them over two
        // disjoint ranges of `len` elements that they alone use.
        unsafe { ptr::copy_nonoverlapping(self.src.0, self.dst.0, self.len) };
    }
}

/// Armed by a level of [`MergeSort::sort`] while its halves and its merge
/// run; dropped while unwinding, it moves every element of the level to
/// where the level's caller expects them (`buf` when `into_buf`, else `v`).
///
/// A half that started leaves its elements where it was asked to (the
/// region that is not the level's destination), even when it unwinds; a
/// half that never started still has them in `v`. A merge only reads its
/// source, so a merge that unwinds changes nothing of this.
struct Unwind<'a, T> {
    v: SendPtr<T>,
    buf: SendPtr<T>,
    into_buf: bool,
    /// `(offset, len, started)` of each half.
    halves: [(usize, usize, &'a AtomicBool); 2],
}

impl<T> Drop for Unwind<'_, T> {
    fn drop(&mut self) {
        let dst = if self.into_buf { self.buf } else { self.v };
        for (offset, len, started) in self.halves {
            // Relaxed: the half ran on this thread or finished before `join`
            // returned or unwound, which orders its store before this load.
            let here = if !started.load(AtomicOrdering::Relaxed) || self.into_buf {
                self.v
            } else {
                self.buf
            };
            if here.0 != dst.0 {
                // SAFETY: `v` and `buf` are disjoint, and the half's range
                // is ours alone.
                unsafe { ptr::copy_nonoverlapping(here.0.add(offset), dst.0.add(offset), len) };
            }
        }
    }
}

/// Copies the merge of two sorted runs to `dst`, one element at a time.
///
/// # Safety
///
/// As for [`MergeSort::merge`].
unsafe fn merge_sequential<T>(
    left: *const T,
    left_len: usize,
    right: *const T,
    right_len: usize,
    dst: *mut T,
    is_less: &impl Fn(&T, &T) -> bool,
) {
    let (mut l, mut r, mut out) = (0, 0, dst);
    // SAFETY: `l < left_len`, `r < right_len` and `out` stays within the
    // `left_len + right_len` slots of `dst`; the runs are only read, so a
    // panicking `is_less` leaves them intact.
    unsafe {
        while l < left_len && r < right_len {
            let take_right = is_less(&*right.add(r), &*left.add(l));
            let from = if take_right { right.add(r) } else { left.add(l) };
            ptr::copy_nonoverlapping(from, out, 1);
            out = out.add(1);
            r += usize::from(take_right);
            l += usize::from(!take_right);
        }
        ptr::copy_nonoverlapping(left.add(l), out, left_len - l);
        ptr::copy_nonoverlapping(right.add(r), out.add(left_len - l), right_len - r);
    }
}

#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::*;
    use std::panic::{self, AssertUnwindSafe};
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};

    fn random(n: usize, seed: u64, modulus: u64) -> Vec<u64> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % modulus
            })
            .collect()
    }

    /// Inputs that break naive quicksorts and merges.
    fn inputs() -> Vec<(&'static str, Vec<u64>)> {
        let n = 200_000;
        vec![
            ("empty", vec![]),
            ("one", vec![7]),
            ("small", random(100, 1, u64::MAX)),
            ("random", random(n, 2, u64::MAX)),
            ("few distinct", random(n, 3, 4)),
            ("all equal", vec![5; n]),
            ("sorted", (0..n as u64).collect()),
            ("reversed", (0..n as u64).rev().collect()),
            ("sawtooth", (0..n as u64).map(|i| i % 1000).collect()),
            ("organ pipe", (0..n as u64).map(|i| i.min(n as u64 - i)).collect()),
            ("odd length", random(n + 7, 4, 1 << 20)),
        ]
    }

    #[test]
    fn for_each_visits_every_index_once() {
        for threads in [1, 2, 4] {
            let pool = ThreadPool::new(threads);
            for n in [0, 1, 2, 3, 100, 10_007] {
                let visits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                pool.for_each(0..n, |i| {
                    visits[i].fetch_add(1, AtomicOrdering::Relaxed);
                });
                assert!(
                    visits.iter().all(|v| v.load(AtomicOrdering::Relaxed) == 1),
                    "n = {n}"
                );
            }
        }
    }

    #[test]
    fn for_each_range_covers_an_offset_range_with_disjoint_pieces() {
        let pool = ThreadPool::new(3);
        let visits: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
        pool.for_each_range(100..1000, |piece| {
            assert!(!piece.is_empty());
            for i in piece {
                visits[i].fetch_add(1, AtomicOrdering::Relaxed);
            }
        });
        for (i, v) in visits.iter().enumerate() {
            assert_eq!(
                v.load(AtomicOrdering::Relaxed),
                usize::from(i >= 100),
                "index {i}"
            );
        }
    }

    #[test]
    fn for_each_chunk_mut_hands_out_each_chunk_once_with_its_index() {
        let pool = ThreadPool::new(2);
        for (len, chunk) in [(0, 3), (1, 3), (10, 3), (12, 3), (10_000, 7), (5, 100)] {
            let mut v = vec![usize::MAX; len];
            pool.for_each_chunk_mut(&mut v, chunk, |i, c| {
                assert!(c.len() == chunk || (i + 1) * chunk >= len);
                c.fill(i);
            });
            let expected: Vec<usize> = (0..len).map(|j| j / chunk).collect();
            assert!(v == expected, "len {len}, chunk {chunk}");
        }
    }

    #[test]
    fn an_unbalanced_loop_is_split_where_it_is_stolen() {
        // All the work is in the last indices: adaptive splitting must cut
        // that part finer than the initial two pieces per worker.
        let pool = ThreadPool::new(2);
        let pieces = AtomicUsize::new(0);
        pool.for_each_range(0..1 << 16, |piece| {
            pieces.fetch_add(1, AtomicOrdering::Relaxed);
            if piece.end > 60_000 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        });
        assert!(pieces.into_inner() >= 4);
    }

    #[test]
    fn reduce_matches_the_sequential_fold() {
        let data = random(100_003, 5, 1 << 32);
        for threads in [1, 2, 3] {
            let pool = ThreadPool::new(threads);
            let sum = pool.reduce(0..data.len(), || 0u64, |i| data[i], |a, b| a + b);
            assert_eq!(sum, data.iter().sum::<u64>());
            let max = pool.reduce(0..data.len(), || 0u64, |i| data[i], u64::max);
            assert_eq!(max, *data.iter().max().unwrap());
            assert_eq!(pool.reduce(0..0, || 42u64, |i| i as u64, |a, b| a + b), 42);
        }
    }

    #[test]
    fn reduce_combines_in_index_order() {
        let pool = ThreadPool::new(2);
        let all: Vec<usize> = pool.reduce(
            0..5_000,
            Vec::new,
            |i| vec![i],
            |mut a, b| {
                a.extend(b);
                a
            },
        );
        assert_eq!(all, (0..5_000).collect::<Vec<_>>());
    }

    #[test]
    fn for_each_and_reduce_work_from_inside_the_pool() {
        let pool = ThreadPool::new(2);
        let total = AtomicU64::new(0);
        pool.scope(|s| {
            s.spawn(|_| {
                let sum = pool.reduce(0..1000, || 0u64, |i| i as u64, |a, b| a + b);
                total.fetch_add(sum, AtomicOrdering::Relaxed);
            });
            s.spawn(|_| {
                pool.for_each(0..1000, |i| {
                    total.fetch_add(i as u64, AtomicOrdering::Relaxed);
                })
            });
        });
        assert_eq!(total.into_inner(), 2 * 999 * 1000 / 2);
    }

    #[test]
    fn sort_unstable_matches_std() {
        for threads in [1, 2, 4] {
            let pool = ThreadPool::new(threads);
            for (name, input) in inputs() {
                let mut expected = input.clone();
                expected.sort_unstable();
                let mut v = input;
                pool.sort_unstable(&mut v);
                assert!(v == expected, "{name}, {threads} threads");
            }
        }
    }

    #[test]
    fn sort_matches_std_and_is_stable() {
        for threads in [1, 2, 4] {
            let pool = ThreadPool::new(threads);
            for (name, input) in inputs() {
                // Sort (key, original index) by key only: a stable sort
                // leaves each key's indices increasing, as std's does.
                let mut v: Vec<(u64, usize)> = input.iter().map(|&k| (k % 1000, 0)).collect();
                for (i, e) in v.iter_mut().enumerate() {
                    e.1 = i;
                }
                let mut expected = v.clone();
                expected.sort_by_key(|e| e.0);
                pool.sort_by(&mut v, |a, b| a.0.cmp(&b.0));
                assert!(v == expected, "{name}, {threads} threads");
            }
        }
    }

    #[test]
    fn sorts_own_non_copy_elements() {
        let pool = ThreadPool::new(2);
        let input: Vec<String> = random(50_000, 6, 1 << 40).iter().map(u64::to_string).collect();
        let mut expected = input.clone();
        expected.sort();
        let mut v = input.clone();
        pool.sort(&mut v);
        assert!(v == expected);
        let mut v = input;
        pool.sort_unstable(&mut v);
        assert!(v == expected);
    }

    /// The smallest inputs that take every parallel path of both sorts
    /// (pieces, parallel merges, a parallel partition with block swaps),
    /// with owned elements: small enough for Miri to check the merge sort's
    /// raw copies.
    #[test]
    fn sorts_of_owned_elements_through_every_parallel_path() {
        let pool = ThreadPool::new(2);
        // Under Miri, only the merge sort's paths: a parallel partition
        // needs more elements than Miri gets through in reasonable time.
        let n = if cfg!(miri) {
            6 * SEQUENTIAL_SORT
        } else {
            3 * PARALLEL_PARTITION.max(2 * SEQUENTIAL_SORT)
        };
        let input: Vec<Box<u64>> = random(n, 8, 1000).into_iter().map(Box::new).collect();
        let mut expected = input.clone();
        expected.sort();
        let mut v = input.clone();
        pool.sort(&mut v);
        assert!(v == expected);
        let mut v = input;
        pool.sort_unstable(&mut v);
        assert!(v == expected);
    }

    /// A comparison that panics after `limit` calls must leave every
    /// element in the slice exactly once (no double drop, no leak).
    #[test]
    fn a_panicking_comparison_loses_and_duplicates_nothing() {
        static LIVE: AtomicUsize = AtomicUsize::new(0);
        struct Tracked(u64);
        impl Drop for Tracked {
            fn drop(&mut self) {
                LIVE.fetch_sub(1, AtomicOrdering::Relaxed);
            }
        }
        let pool = ThreadPool::new(2);
        for stable in [true, false] {
            for limit in [10, 100_000, usize::MAX] {
                let input = random(100_000, 7, 1 << 20);
                LIVE.store(input.len(), AtomicOrdering::Relaxed);
                let mut v: Vec<Tracked> = input.iter().map(|&x| Tracked(x)).collect();
                let calls = AtomicUsize::new(0);
                let compare = |a: &Tracked, b: &Tracked| {
                    if calls.fetch_add(1, AtomicOrdering::Relaxed) == limit {
                        panic!("comparison {limit} fails");
                    }
                    a.0.cmp(&b.0)
                };
                let result = panic::catch_unwind(AssertUnwindSafe(|| {
                    if stable {
                        pool.sort_by(&mut v, compare);
                    } else {
                        pool.sort_unstable_by(&mut v, compare);
                    }
                }));
                assert_eq!(
                    result.is_err(),
                    limit < usize::MAX,
                    "stable: {stable}, limit {limit}"
                );
                let mut got: Vec<u64> = v.iter().map(|t| t.0).collect();
                let mut expected = input;
                got.sort_unstable();
                expected.sort_unstable();
                assert!(
                    got == expected,
                    "elements lost or duplicated: stable: {stable}, limit {limit}"
                );
                drop(v);
                assert_eq!(
                    LIVE.load(AtomicOrdering::Relaxed),
                    0,
                    "stable: {stable}, limit {limit}"
                );
            }
        }
    }
}
