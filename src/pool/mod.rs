//! The thread pool, in four layers; imports run downward only
//! (`tests/layers.rs` keeps it):
//!
//! * [`placement`]: where workers run and whom they steal from first
//!   (topology, affinity);
//! * [`queues`]: where jobs wait (the injectors, one per node; the
//!   priority levels);
//! * [`kernel`]: the registry, the worker loop and its waits, sleep and
//!   wake-up, latches, jobs, `join` and `scope`, spare threads, counters;
//! * [`api`]: `ThreadPool`, its builder, the global pool and the free
//!   functions, handles with their continuations, `block_in_place`.

pub(crate) mod api;
pub(crate) mod kernel;
pub(crate) mod placement;
pub(crate) mod queues;
