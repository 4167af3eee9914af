//! The circular buffer: a power-of-two array of atomic word slots.
//!
//! Buffers only grow. A grown buffer keeps a pointer to the one it replaced
//! (`prev`), so the retired buffers form a chain that is freed, oldest last,
//! when the deque itself is dropped: a thief that loaded an old buffer
//! pointer can keep reading it for as long as it holds its `Stealer`
//! (proof R1 in `proofs/deque.md`). Capacities double, so the chain holds less
//! memory than the live buffer: the total stays under twice the largest.

use super::ordering::SLOT;
use crate::sync::{leak_track, AtomicPtr, LeakTrack};
use std::ptr;

/// The largest capacity a buffer can have: the largest power of two whose
/// slots fit in `isize::MAX` bytes, the most any allocation may hold.
pub(crate) const MAX_CAPACITY: usize =
    (isize::MAX as usize / std::mem::size_of::<AtomicPtr<()>>()).div_ceil(2);

pub(crate) struct Buffer {
    /// `capacity - 1`; capacity is a power of two.
    mask: usize,
    slots: Box<[AtomicPtr<()>]>,
    /// The buffer this one replaced, kept alive until the deque is dropped.
    prev: *mut Buffer,
    /// Under loom, a buffer that is never freed fails the model.
    _leak: LeakTrack,
}

impl Buffer {
    /// Allocates a buffer of `capacity` (a power of two) null slots.
    pub(crate) fn alloc(capacity: usize, prev: *mut Buffer) -> *mut Buffer {
        debug_assert!(capacity.is_power_of_two() && capacity <= MAX_CAPACITY);
        let slots = (0..capacity).map(|_| AtomicPtr::new(ptr::null_mut())).collect();
        Box::into_raw(Box::new(Buffer {
            mask: capacity - 1,
            slots,
            prev,
            _leak: leak_track(),
        }))
    }

    pub(crate) fn capacity(&self) -> usize {
        self.mask + 1
    }

    #[inline]
    fn slot(&self, index: i64) -> &AtomicPtr<()> {
        // Indices are never negative where slots are touched (top <= index).
        &self.slots[index as usize & self.mask]
    }

    /// D11: relaxed atomic read of the word at `index`.
    #[inline]
    pub(crate) fn read(&self, index: i64) -> *mut () {
        self.slot(index).load(SLOT)
    }

    /// D11: relaxed atomic write of the word at `index`.
    #[inline]
    pub(crate) fn write(&self, index: i64, word: *mut ()) {
        self.slot(index).store(word, SLOT)
    }

    /// Frees `buffer` and every buffer it retired.
    ///
    /// # Safety
    ///
    /// No other thread may access any buffer of the chain any more, and the
    /// chain must not be freed twice.
    pub(crate) unsafe fn free_chain(mut buffer: *mut Buffer) {
        while !buffer.is_null() {
            // SAFETY: each buffer of the chain came from `alloc` and is freed
            // once, here.
            let boxed = unsafe { Box::from_raw(buffer) };
            buffer = boxed.prev;
        }
    }
}
