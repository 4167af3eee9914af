// Doc examples run on real threads: under a model checker, rustdoc collects
// none (the front page included), so `cargo test --features loom` runs only
// the model harnesses.
#![cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = include_str!("../README.md"))]
#![cfg_attr(
    any(feature = "loom", feature = "shuttle"),
    doc = "stealpool built on a model checker's threads and atomics (the `loom` or `shuttle` feature): \
           the front page and its examples are in the real-thread build's docs."
)]
#![cfg(not(all(doctest, any(feature = "loom", feature = "shuttle"))))]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

// The layers, bottom up; imports run downward only (`tests/layers.rs`):
// the sync facade, the lock-free objects, the pool (placement, queues,
// kernel, api), the data-parallel API.
mod sync;

mod lockfree;

mod pool;

pub mod iter;

pub mod deque;
pub mod guide;

/// `use stealpool::prelude::*;` brings the parallel iterator traits, with
/// rayon's names: `par_iter()`, `into_par_iter()`, `par_sort()`, ...
///
/// ```
/// use stealpool::prelude::*;
///
/// let v: Vec<u64> = (0..1_000u64).collect();
/// assert_eq!(v.par_iter().map(|x| x * 2).sum::<u64>(), 999_000);
/// ```
pub mod prelude {
    pub use crate::iter::{
        FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
        IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull, ParallelDrainRange, ParallelExtend,
        ParallelIterator, ParallelSlice, ParallelSliceMut, ParallelString,
    };
}

pub use pool::api::block_in_place::block_in_place;
pub use pool::api::builder::{BuildError, Builder};
pub use pool::api::handle::JoinHandle;
pub use pool::api::spawn_handler::ThreadBuilder;
pub use pool::api::thread_pool::{current_thread_index, ThreadPool};
pub use pool::kernel::broadcast::BroadcastContext;
pub use pool::kernel::scope::{Scope, ScopeFifo};
pub use pool::kernel::stats::{Stats, WorkerStats};
pub use pool::placement::topology::{Topology, TopologyError};
pub use pool::queues::priority::Priority;
// The free functions on the current pool. Under a model checker "the
// global pool" is one per execution (see `pool/api/global.rs`).
pub use pool::api::current::{
    current_thread_has_pending_tasks, max_num_threads, yield_local, yield_now, Yield,
};
pub use pool::api::global::{
    broadcast, current_num_threads, in_place_scope, in_place_scope_fifo, join, join_context, scope,
    scope_fifo, spawn, spawn_broadcast, spawn_fifo, FnContext,
};

/// rayon-core's name for [`Builder`]: code written for rayon builds its
/// pools unchanged.
pub type ThreadPoolBuilder<S = pool::api::spawn_handler::DefaultSpawn> = Builder<S>;
/// rayon-core's name for [`BuildError`].
pub type ThreadPoolBuildError = BuildError;

/// What the models observe beyond the public API: counts kept only in the
/// `loom` and `shuttle` builds.
#[cfg(any(feature = "loom", feature = "shuttle"))]
#[doc(hidden)]
pub mod model_probes {
    pub use crate::pool::kernel::probes::{
        ATTENTION_WRITES, COUNTERS_WRITES, POOL_LOCKS, SLEEPER_LOCKS, WAITS, WOKEN,
    };
    pub use crate::pool::kernel::probes::{
        HALVES_HELPED, INLINE_JOINS, POSTS_WOKE, REROUTED, STALLS_ESCAPED, WAITS_PARKED,
    };
}
