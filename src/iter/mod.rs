//! Parallel iterators in rayon's vocabulary: `use stealpool::prelude::*;`
//! and `par_iter()`, `into_par_iter()`, `par_sort()` and the rest work as
//! they do with rayon, on the checked pool.
//!
//! They run on the pool the caller is a worker of, else on the global pool
//! (see [`join`](crate::join)); [`ThreadPool::install`](crate::ThreadPool::install)
//! runs them on a given pool:
//!
//! ```
//! use stealpool::prelude::*;
//!
//! let pool = stealpool::ThreadPool::new(2);
//! let sum: u64 = pool.install(|| (1..=100u64).collect::<Vec<_>>().par_iter().map(|x| x * x).sum());
//! assert_eq!(sum, 338_350);
//! ```
//!
//! Work is split on [`join`](crate::join), adaptively: into about two
//! pieces per worker, and a piece that another worker steals is split
//! again where it lands. A panic in a closure reaches the caller once the
//! other pieces have finished; what was produced is dropped.
//!
//! The [`plumbing`] module has the producer and consumer traits that the
//! iterators are built from.

// The engine under every data-parallel call: the pool a call forks on,
// the adaptive splitter, the sorts, and the `ThreadPool` loops. The
// iterator API above it is the same on every backend, so a user's
// parallel iterators can be model-checked.
mod loops;
pub(crate) mod pool;
pub(crate) mod sort;
pub(crate) mod splitter;

mod adapters;
mod collect;
mod collections;
mod find;
mod find_first_last;
mod for_each;
mod par_bridge;
pub mod plumbing;
mod range;
mod reduce;
mod slice;
mod string;
mod vec;

pub use adapters::{
    Chain, Chunks, Enumerate, Filter, FilterMap, FlatMap, FlatMapIter, Fold, Map, MapInit, MapWith, MinLen,
    Rev, Skip, Take, WhileSome, Zip,
};
pub use par_bridge::{IterBridge, ParallelBridge};
pub use range::{InclusiveIter as RangeInclusiveIter, Iter as RangeIter};
pub use slice::{
    Chunks as SliceChunks, ChunksMut as SliceChunksMut, Iter as SliceIter, IterMut as SliceIterMut,
    ParallelSlice, ParallelSliceMut, Windows,
};
pub use string::{Lines, ParallelString, SplitWhitespace};
pub use vec::IntoIter as VecIntoIter;

mod indexed;
mod into;
mod parallel;

pub use indexed::IndexedParallelIterator;
pub use into::{
    FromParallelIterator, IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator,
    ParallelExtend,
};
pub use parallel::ParallelIterator;
