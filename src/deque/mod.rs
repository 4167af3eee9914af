//! A Chase-Lev work-stealing deque, growable and free of data races, and an
//! injector queue in front of it.
//!
//! The owner of the deque, a [`Worker`], pushes and pops at the *bottom*
//! (LIFO, so it keeps working on what is hot in its cache); any number of
//! [`Stealer`]s take from the *top* (FIFO, so they take the oldest, usually
//! the largest, pieces of work). The algorithm is the C/C++11-atomics formulation of Lê,
//! Pop, Cohen and Zappa Nardelli, "Correct and efficient work-stealing for
//! weak memory models" (PPoPP 2013), with a buffer that only grows. An
//! [`Injector`] is a FIFO queue shared by every thread, for work that comes
//! from outside the workers.
//!
//! # Compared with crossbeam-deque
//!
//! The names and the semantics are crossbeam-deque 0.8's, and its own tests
//! of [`Stealer`] and [`Injector`] run against this module
//! (`tests/crossbeam_steal.rs`, `tests/crossbeam_injector.rs`). The
//! differences:
//!
//! * **One flavor.** A [`Worker`] is crossbeam's LIFO worker
//!   (`Worker::new_lifo`); there is no FIFO one.
//!   [`steal_batch_and_pop`](Stealer::steal_batch_and_pop) returns the
//!   newest of the elements it stole, as crossbeam's does from a LIFO worker.
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
//! # Invariants
//!
//! * `top` only grows, by a CAS (D4, D9). `bottom` is written only by the
//!   owner. Both are 64-bit indices that never wrap (proof A1).
//! * The elements are the indices `top..bottom`; index `i` lives in slot
//!   `i mod capacity` of the current buffer.
//! * Every slot access is an atomic word access (D11): a thief may read a slot
//!   the owner is rewriting, and then its CAS fails; no access is ever a data
//!   race in the Rust abstract machine.
//! * A word read from a slot becomes an element again only after the CAS that
//!   claims its index succeeds (or, for the owner, when no CAS is needed):
//!   each element leaves the deque exactly once.
//! * Buffers only grow; a replaced buffer is retired into a chain freed when
//!   the last handle is dropped (R1), together with the elements left inside.
//!
//! Every atomic step cites its proof ID from `proofs/deque.md`; the orderings
//! are all in [`ordering`](self) as named constants.
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

mod bounded;
mod buffer;
mod element;
mod injector;
pub(crate) mod ordering;
mod steal;
mod stealer;
mod worker;

pub(crate) use bounded::BoundedLen;
pub use bounded::{BoundedStealer, BoundedWorker, MAX_STEALERS, ROUND_BOUND};
#[allow(unused_imports)] // used by the tests
pub(crate) use element::is_boxed;
pub use element::Element;
use element::{from_word, into_word};
pub use injector::Injector;
pub use steal::Steal;
pub use stealer::Stealer;
pub use worker::Worker;

use crate::sync::{AtomicI64, AtomicPtr};
use buffer::Buffer;
use crossbeam_utils::CachePadded;
use ordering::OWNER_LOCAL;
use std::marker::PhantomData;

/// The state shared by a `Worker` and its `Stealer`s.
///
/// `top` and `bottom` share one cache line, aligned to start it, and the
/// buffer pointer has a line of its own. Every take-back of a pool
/// worker's `join` half stores `bottom` and then loads `top`, so with both
/// on one line it touches one line of the deque where it touched two; in
/// a traversal that waits on a cache miss at nearly every node, that one
/// line fewer was about a nanosecond per `join` (`benches/README.md`, "The
/// tree sum's orders"). Thieves read both ends anyway, and a steal's CAS
/// on `top` now takes from the owner the line it next writes `bottom` on,
/// where before it took the line of the owner's next load of `top`: one
/// line moves either way.
#[repr(C, align(128))]
struct Inner<T> {
    /// Index of the oldest element; thieves take from here.
    top: AtomicI64,
    /// Index one past the newest element; only the owner writes it.
    bottom: AtomicI64,
    /// The current buffer. Only the owner stores it (D10).
    buffer: CachePadded<AtomicPtr<Buffer>>,
    /// The deque owns the `T`s whose words sit in the slots.
    _owns: PhantomData<T>,
}

// SAFETY: the deque moves `T`s between threads (so `T: Send`) and never
// shares a `&T`; all shared state is atomic.
unsafe impl<T: Send> Send for Inner<T> {}
// SAFETY: as above; `&Inner` gives access to atomics only.
unsafe impl<T: Send> Sync for Inner<T> {}

impl<T> Inner<T> {
    /// An empty deque on `buffer`, a freshly allocated buffer with no
    /// `prev`; the deque owns it from here on.
    fn new(buffer: *mut Buffer) -> Self {
        Inner {
            top: AtomicI64::new(0),
            bottom: AtomicI64::new(0),
            buffer: CachePadded::new(AtomicPtr::new(buffer)),
            _owns: PhantomData,
        }
    }

    /// A snapshot of the number of elements (D12): exact when nobody else
    /// is operating on the deque, otherwise a momentary estimate.
    fn len(&self) -> usize {
        let bottom = self.bottom.load(OWNER_LOCAL);
        let top = self.top.load(OWNER_LOCAL);
        usize::try_from(bottom.wrapping_sub(top)).unwrap_or(0)
    }
}

impl<T> Drop for Inner<T> {
    fn drop(&mut self) {
        // The last handle is gone: `Arc`'s drop made every other handle's
        // accesses happen before this point, so relaxed loads (D12) see the
        // final values.
        let top = self.top.load(OWNER_LOCAL);
        let bottom = self.bottom.load(OWNER_LOCAL);
        let buffer = self.buffer.load(OWNER_LOCAL);
        for index in top..bottom {
            // SAFETY: indices `top..bottom` hold words of elements that never
            // left the deque; each is turned back into a `T` once, here.
            drop(unsafe { from_word::<T>((*buffer).read(index)) });
        }
        // SAFETY: no handle is left, so no thread can reach any buffer.
        unsafe { Buffer::free_chain(buffer) };
    }
}

/// The capacity of `Worker::new()`.
const DEFAULT_CAPACITY: usize = 32;

/// The most elements one `steal_batch_and_pop` takes.
const MAX_BATCH: usize = 32;
