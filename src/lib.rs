#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
// Doc examples run on real threads: under a model checker, rustdoc collects
// none, so `cargo test --features loom` runs only the model harnesses.
#![cfg(not(all(doctest, any(feature = "loom", feature = "shuttle"))))]
#![deny(unsafe_op_in_unsafe_fn)]

mod sync;
mod weaken;

pub mod deque;
pub mod guide;
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
pub mod iter;
mod par;
mod pool;

/// `use stealpool::prelude::*;` brings the parallel iterator traits, with
/// rayon's names: `par_iter()`, `into_par_iter()`, `par_sort()`, ...
///
/// ```
/// use stealpool::prelude::*;
///
/// let v: Vec<u64> = (0..1_000u64).collect();
/// assert_eq!(v.par_iter().map(|x| x * 2).sum::<u64>(), 999_000);
/// ```
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
pub mod prelude {
    pub use crate::iter::{
        FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
        IntoParallelRefMutIterator, ParallelBridge, ParallelExtend, ParallelIterator, ParallelSlice,
        ParallelSliceMut, ParallelString,
    };
}

pub use pool::{
    block_in_place, current_worker_index, BuildError, Builder, JoinHandle, Priority, Scope, Stats,
    ThreadPool, Topology, TopologyError, WorkerStats,
};
// The free functions on the current pool; compiled out under the model
// checkers, where a process-wide pool would outlive each execution.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
pub use pool::{current_num_threads, current_thread_index, join, scope, spawn};

/// What the models observe beyond the public API: counts kept only in the
/// `loom` and `shuttle` builds.
#[cfg(any(feature = "loom", feature = "shuttle"))]
#[doc(hidden)]
pub mod model_probes {
    pub use crate::pool::probes::{
        ATTENTION_WRITES, COUNTERS_WRITES, POOL_LOCKS, SLEEPER_LOCKS, WAITS, WOKEN,
    };
    pub use crate::pool::probes::{HALVES_HELPED, INLINE_JOINS, REROUTED, WAITS_PARKED};
}
