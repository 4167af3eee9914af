//! The kernel: the registry of a pool's shared state, the worker loop and
//! its waits, the sleep protocol and wake-ups, latches, the pool's jobs,
//! `join` and `scope`, spare threads, counters, the pool's ordering table
//! and the models' probes. It builds on the queues and placement below it
//! and on the lock-free objects; the API layer above builds on it.
//!
//! Inside the layer, `registry` and `worker` know each other (a worker
//! holds its registry; the registry starts and wakes workers), as do the
//! waits and the jobs they run: those cycles stay inside this folder.

pub(crate) mod attention;
pub(crate) mod broadcast;
pub(crate) mod fifo;
pub(crate) mod job;
pub(crate) mod join;
pub(crate) mod latch;
pub(crate) mod ordering;
pub(crate) mod probes;
pub(crate) mod registry;
pub(crate) mod scope;
pub(crate) mod serving;
pub(crate) mod sleep;
pub(crate) mod spares;
pub(crate) mod stall;
pub(crate) mod stats;
pub(crate) mod task_count;
pub(crate) mod thread_hooks;
pub(crate) mod worker;
