//! The work-stealing thread pool.
//!
//! Each worker owns a Chase-Lev [`deque`](crate::deque); threads outside the
//! pool submit through a global injector. A worker looks for work in its own
//! deque (newest first), then the injector (in batches), then steals half of
//! a random victim's deque. Out of work, it spins, yields, then sleeps in a
//! protocol with no lost wake-up (`proofs/sleep.md`).

mod affinity;
mod attention;
mod blocking;
mod builder;
mod claim;
mod continuation;
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod global;
mod handle;
mod injector;
mod injector_ordering;
// Also the public `deque::Injector`'s intake.
pub(crate) mod injector_queue;
mod job;
// The deque keeps jobs as themselves, one word each (`deque/element.rs`).
pub(crate) use job::JobRef;
mod join;
mod join_job;
mod latch;
mod ordering;
mod priority;
pub(crate) mod probes;
mod registry;
mod scope;
mod sleep;
mod stats;
mod topology;
mod worker;

pub use blocking::block_in_place;
pub use builder::{BuildError, Builder};
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
pub(crate) use global::in_worker;
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
pub use global::{current_num_threads, current_thread_index, join, scope, spawn};
pub use handle::JoinHandle;
pub use priority::Priority;
pub use scope::Scope;
pub use stats::{Stats, WorkerStats};
pub use topology::{Topology, TopologyError};

mod thread_pool;
pub use thread_pool::{current_worker_index, ThreadPool};
