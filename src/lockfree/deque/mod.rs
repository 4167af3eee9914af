//! The Chase-Lev deque (`proofs/deque.md`): the owner's [`Worker`], the
//! thieves' [`Stealer`], the growable buffer and the orderings table.
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
//! are all in `ordering.rs` as named constants.
//!

pub(crate) mod buffer;
pub(crate) mod ordering;
mod stealer;
#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests;
mod worker;

use super::element::from_word;
pub(crate) use stealer::assert_limit;
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
pub(crate) const MAX_BATCH: usize = 32;
