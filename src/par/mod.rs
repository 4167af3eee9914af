//! Parallel loops and sorts on a [`ThreadPool`], built on
//! [`join`](ThreadPool::join) alone.
//!
//! * [`for_each`](ThreadPool::for_each), [`for_each_range`](ThreadPool::for_each_range),
//!   [`for_each_chunk`](ThreadPool::for_each_chunk),
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
//! task of the pool, it runs there, helping with the work it forked while
//! it waits.

// One file per job: the loops and reductions; the sorts' public entry
// points; the quicksort; the merge sort; the merge sort's raw pointers and
// unwind guards; the pool they fork on; the adaptive split budget (also the
// parallel iterators').
mod guards;
mod loops;
mod merge_sort;
pub(crate) mod on_pool;
mod quicksort;
mod sort;
pub(crate) mod splitter;

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
pub(crate) use sort::{sort_by, sort_unstable_by_send};

// For the intra-doc links above.
#[cfg(doc)]
use crate::ThreadPool;

#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests;
