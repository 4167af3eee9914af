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
//!
//! # Rayon's names not here yet
//!
//! The names of rayon 1.12's `prelude`, `iter`, `slice` and `str` are
//! here, with rayon's signatures, but for these (all in this module:
//! there are no `stealpool::slice` or `stealpool::str` modules, so the
//! slices' types whose names the adapters or the strings also use are
//! prefixed: `SliceIter`, `SliceChunks`, `SliceSplit`, `StrSplit`, ...):
//!
//! - `par_drain` moves the items out of the collection sequentially
//!   first, where rayon's `Vec` drain moves them in parallel, in place;
//!   its iterator is one type, [`Drain`], for every collection (rayon's
//!   `vec::Drain`, `hash_map::Drain`, ...).
//! - `fold_chunks` gathers each chunk in a `Vec` before folding it,
//!   where rayon's folds in place: same results, one allocation per chunk.
//! - `ParallelIterator::find`, deprecated and hidden in rayon
//!   (its replacement, [`find_any`](ParallelIterator::find_any), is here).
//!
//! Beyond rayon's names: [`Try`] names the types the `try_*` methods
//! take (rayon's is private), and [`Pattern`] those the strings'
//! `par_split` and its kin take (rayon's `str::Pattern`, whose methods
//! are private; this one's [`matches_char`](Pattern::matches_char) is
//! public). [`Either`] is the `either` crate's, as rayon's is: an `Either`
//! of two parallel iterators is one, and of two collections extends as
//! the one it holds.

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
mod drain;
mod either_impls;
mod find;
mod find_first_last;
mod for_each;
mod par_bridge;
pub mod plumbing;
mod range;
mod reduce;
mod slice;
mod slice_chunks;
mod slice_split;
mod sources;
mod split;
mod string;
mod try_reduce;
mod vec;
mod walk_tree;

pub use adapters::{
    Chain, Chunks, Enumerate, ExponentialBlocks, Filter, FilterMap, FlatMap, FlatMapIter, Flatten,
    FlattenIter, Fold, FoldChunks, FoldChunksWith, FoldWith, Inspect, Interleave, InterleaveShortest,
    Intersperse, Map, MapInit, MapWith, MaxLen, MinLen, PanicFuse, Positions, Rev, Skip, SkipAny,
    SkipAnyWhile, StepBy, Take, TakeAny, TakeAnyWhile, TryFold, TryFoldWith, UniformBlocks, Update,
    WhileSome, Zip, ZipEq,
};
pub use drain::{Drain, ParallelDrainFull, ParallelDrainRange};
pub use either::Either;
pub use par_bridge::{IterBridge, ParallelBridge};
pub use range::{InclusiveIter as RangeInclusiveIter, Iter as RangeIter};
pub use slice::{
    ArrayWindows, ChunkBy, ChunkByMut, Chunks as SliceChunks, ChunksExact, ChunksExactMut,
    ChunksMut as SliceChunksMut, Iter as SliceIter, IterMut as SliceIterMut, ParallelSlice, ParallelSliceMut,
    RChunks, RChunksExact, RChunksExactMut, RChunksMut, Split as SliceSplit,
    SplitInclusive as SliceSplitInclusive, SplitInclusiveMut as SliceSplitInclusiveMut,
    SplitMut as SliceSplitMut, Windows,
};
pub use sources::{empty, once, repeat, repeat_n, repeatn, Empty, Once, Repeat, RepeatN};
pub use split::{split, Split};
pub use string::{
    Bytes, CharIndices, Chars, EncodeUtf16, Lines, MatchIndices, Matches, ParallelString, Pattern,
    SplitAsciiWhitespace, SplitWhitespace, StrSplit, StrSplitInclusive, StrSplitTerminator,
};
pub use try_reduce::Try;
pub use vec::IntoIter as VecIntoIter;
pub use walk_tree::{
    walk_tree, walk_tree_postfix, walk_tree_prefix, WalkTree, WalkTreePostfix, WalkTreePrefix,
};

mod indexed;
mod into;
mod multizip;
mod parallel;

pub use indexed::IndexedParallelIterator;
pub use into::{
    FromParallelIterator, IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator,
    ParallelExtend,
};
pub use multizip::MultiZip;
pub use parallel::ParallelIterator;
