//! A Chase-Lev work-stealing deque, growable and free of data races, and an
//! injector queue in front of it.
//!
//! The owner of the deque, a [`Worker`], pushes and pops at the *bottom*
//! (LIFO, so it keeps working on what is hot in its cache); any number of
//! [`Stealer`]s take from the *top* (FIFO, so they take the oldest, usually
//! the largest, pieces of work). The owner of a [`Worker::new_fifo`] pops
//! at the top too, oldest first. The algorithm is the C/C++11-atomics formulation of Lê,
//! Pop, Cohen and Zappa Nardelli, "Correct and efficient work-stealing for
//! weak memory models" (PPoPP 2013), with a buffer that only grows. An
//! [`Injector`] is a FIFO queue shared by every thread, for work that comes
//! from outside the workers.
//!
//! # Compared with crossbeam-deque
//!
//! The names and the semantics are crossbeam-deque 0.8's, and its own tests
//! run against this module, every one of them (taken from the cargo
//! registry when the check runs): both flavours ([`Worker::new_lifo`],
//! [`Worker::new_fifo`]), the batch steals with and without a limit
//! ([`Stealer::steal_batch_with_limit`],
//! [`Stealer::steal_batch_with_limit_and_pop`], and the same on
//! [`Injector`]), which hand what they take over in crossbeam's order:
//! `dest.pop()` gives it as the victim's owner would have popped it,
//! whatever `dest`'s flavour. The differences:
//!
//! * **Batches claim one element at a time**, also from a FIFO worker,
//!   where crossbeam claims the batch with one CAS; how many a batch takes
//!   is unspecified in both. A limit of 0 panics, as in crossbeam.
//! * **Any `T`, one word per slot.** Every slot is one atomic word, so a
//!   thief that reads a slot the owner is rewriting is not a data race (it is
//!   one in crossbeam). A `T` that is not one word travels in a `Box<T>`: one
//!   allocation per push, freed when the element leaves. The integers,
//!   `bool`, `char`, the floats and zero-sized types travel as themselves,
//!   as do the pool's own jobs. `Box<T>` and `Arc<T>` are boxed too: stable
//!   Rust cannot tell a word-sized pointer from a word-sized union whose
//!   bytes may be uninitialized, which a word must not hold.
//! * **Owner-biased deques** ([`Worker::new_owner_biased`]) and
//!   [`Worker::pop_oldest`], which crossbeam does not have.
//!
//! ```
//! use stealpool::deque::{Injector, Steal, Worker};
//!
//! let jobs: Worker<Box<dyn FnOnce() -> u32 + Send>> = Worker::new();
//! jobs.push(Box::new(|| 1));
//! let outside: Injector<(u32, String)> = Injector::new();
//! outside.push((2, "two".to_string()));
//! assert_eq!((jobs.pop().unwrap())(), 1);
//! assert_eq!(outside.steal(), Steal::Success((2, "two".to_string())));
//! ```
//!
//! # Example
//!
//! ```
//! use stealpool::deque::{Steal, Worker};
//!
//! let worker = Worker::new();
//! let stealer = worker.stealer();
//! for i in 0..4 {
//!     worker.push(Box::new(i));
//! }
//! // The owner pops the newest, a thief steals the oldest.
//! assert_eq!(worker.pop(), Some(Box::new(3)));
//! assert_eq!(stealer.steal(), Steal::Success(Box::new(0)));
//!
//! let thief = Worker::new();
//! // Steals half of what is left (one of the two) and returns it.
//! assert_eq!(stealer.steal_batch_and_pop(&thief), Steal::Success(Box::new(1)));
//! assert_eq!(worker.len(), 1);
//! ```

pub use crate::lockfree::{
    BoundedStealer, BoundedWorker, Injector, Steal, Stealer, Worker, MAX_STEALERS, ROUND_BOUND,
};
