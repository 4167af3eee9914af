//! The lock-free objects, the bottom layer above the facade: the Chase-Lev
//! deque, the bounded-steal deque, the injector's queue and the public
//! `Injector`, and the one-word job reference the pool's queues carry.
//!
//! Nothing here names a pool type: the pool's jobs are recognised as
//! one-word elements through [`JobRef`], defined here (`job.rs`).
//! `stealpool::deque` re-exports the public types.

mod bounded;
pub(crate) mod deque;
mod element;
pub(crate) mod injector;
mod job;
mod steal;

pub(crate) use bounded::BoundedLen;
pub use bounded::{BoundedStealer, BoundedWorker, MAX_STEALERS, ROUND_BOUND};
pub use deque::{Stealer, Worker};
#[allow(unused_imports)] // used by the tests
pub(crate) use element::is_boxed;
pub use injector::Injector;
pub(crate) use job::{JobHeader, JobRef};
pub use steal::Steal;
