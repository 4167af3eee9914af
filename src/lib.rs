//! A work-stealing thread pool on a model-checked Chase-Lev deque.
//!
//! * [`ThreadPool`]: per-worker deques, a global injector, random stealing,
//!   parking with no lost wake-up; `spawn`, `submit` (a [`JoinHandle`] that
//!   blocks or is a `Future`), fork-join [`join`](ThreadPool::join),
//!   borrowing [`scope`](ThreadPool::scope), `wait_all`, statistics;
//!   task graphs with no thread blocked ([`JoinHandle::then`],
//!   [`JoinHandle::zip`], [`ThreadPool::when_all`]) and [`Priority`].
//! * [`deque`]: the lock-free Chase-Lev deque ([`deque::Worker`],
//!   [`deque::Stealer`], [`deque::Steal`]), growable, with no data race even
//!   in the Rust abstract machine.
//!
//! Every lock-free part is written against one sync facade that switches
//! between `std`, `loom` and `shuttle`, so the code you run is the code that is
//! model-checked. The argument for every memory ordering is in `proofs/`.
//!
//! Model-check it with `cargo test --features loom`, then
//! `cargo test --features shuttle`: as typed, each runs every model at its
//! quick bounds, each model asserting a floor of executions and printing a
//! line as it starts and ends. On a fresh clone on 2 cores busy with other
//! builds, loom took 11 minutes (6 of them building), shuttle 9 alone.
//! `STEALPOOL_MODEL_BOUNDS=full` runs the full bounds that CI checks (the
//! README's Commands).
#![deny(missing_docs)]
// Doc examples run on real threads: under a model checker, rustdoc collects
// none, so `cargo test --features loom` runs only the model harnesses.
#![cfg(not(all(doctest, any(feature = "loom", feature = "shuttle"))))]
#![deny(unsafe_op_in_unsafe_fn)]

mod sync;
mod weaken;

pub mod deque;
mod par;
mod pool;

pub use pool::{
    block_in_place, current_worker_index, BuildError, Builder, JoinHandle, Priority, Scope, Stats,
    ThreadPool, Topology, TopologyError, WorkerStats,
};

/// What the models observe beyond the public API: counts kept only in the
/// `loom` and `shuttle` builds.
#[cfg(any(feature = "loom", feature = "shuttle"))]
#[doc(hidden)]
pub mod model_probes {
    pub use crate::pool::INLINE_JOINS;
}
