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
use std::alloc::{handle_alloc_error, Layout};
use std::ptr;

/// The largest capacity a buffer can have: the largest power of two whose
/// slots fit in `isize::MAX` bytes, the most any allocation may hold (2^59
/// slots on a 64-bit target). A power of two even where a slot's size is not
/// (the model checkers' atomics), so a capacity up to it rounds up to at most
/// it, and doubling a smaller capacity cannot pass it.
pub(crate) const MAX_CAPACITY: usize = 1 << (isize::MAX as usize / SLOT_SIZE).ilog2();

/// The size of one slot in bytes.
pub(crate) const SLOT_SIZE: usize = std::mem::size_of::<AtomicPtr<()>>();

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
    /// Allocates a buffer of `capacity` (a power of two, at most
    /// `MAX_CAPACITY`) null slots; a refused allocation aborts, as in `std`'s
    /// collections.
    pub(crate) fn alloc(capacity: usize, prev: *mut Buffer) -> *mut Buffer {
        Self::try_alloc(capacity, prev).unwrap_or_else(|| {
            // Cannot fail: `capacity <= MAX_CAPACITY` slots fit in `isize::MAX` bytes.
            let layout = Layout::array::<AtomicPtr<()>>(capacity).expect("capacity <= MAX_CAPACITY");
            handle_alloc_error(layout)
        })
    }

    /// Like `alloc`, but `None` if the allocator refuses the slots.
    pub(crate) fn try_alloc(capacity: usize, prev: *mut Buffer) -> Option<*mut Buffer> {
        debug_assert!(capacity.is_power_of_two() && capacity <= MAX_CAPACITY);
        Some(Box::into_raw(Box::new(Buffer {
            mask: capacity - 1,
            slots: null_slots(capacity)?,
            prev,
            _leak: leak_track(),
        })))
    }

    pub(crate) fn capacity(&self) -> usize {
        self.mask + 1
    }

    #[inline]
    fn slot(&self, index: i64) -> &AtomicPtr<()> {
        // Indices are never negative where slots are touched (top <= index).
        let slot = index as usize & self.mask;
        debug_assert!(slot < self.slots.len());
        // SAFETY: `slots` holds `mask + 1` slots (`try_alloc`, the only
        // constructor), so a masked index is in bounds.
        unsafe { self.slots.get_unchecked(slot) }
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

    /// The owner's view of this buffer's slots (its `mask` and first slot),
    /// which it keeps beside the buffer pointer so that `push` and `pop`
    /// reach a slot with no load through the buffer.
    ///
    /// # Safety
    ///
    /// The view is used only while the buffer is live: for a deque's
    /// buffer, as long as the deque (R1).
    pub(crate) unsafe fn owner_view(&self) -> OwnerView {
        OwnerView {
            mask: self.mask,
            first: self.slots.as_ptr(),
        }
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

/// `capacity` (at least 1) null slots, or `None` if the allocator refuses
/// them. One zeroed allocation: a null `AtomicPtr` is all zero bytes (it
/// has the representation of `*mut ()`), and slot-by-slot initialization
/// was most of the cost of building a pool under Miri, which interprets
/// every step of it.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn null_slots(capacity: usize) -> Option<Box<[AtomicPtr<()>]>> {
    let layout = Layout::array::<AtomicPtr<()>>(capacity).ok()?;
    debug_assert!(layout.size() > 0);
    // SAFETY: the layout's size is not zero (`capacity >= 1` word-sized
    // slots).
    let first = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<AtomicPtr<()>>();
    if first.is_null() {
        return None;
    }
    // SAFETY: `first` is a fresh allocation with the layout of
    // `[AtomicPtr<()>; capacity]`, which is the layout a `Box` of that
    // slice frees with; its zero bytes are `capacity` valid null pointers.
    Some(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(first, capacity)) })
}

/// `capacity` null slots: the model checkers' atomics are not plain words,
/// so each is made by its constructor.
#[cfg(any(feature = "loom", feature = "shuttle"))]
fn null_slots(capacity: usize) -> Option<Box<[AtomicPtr<()>]>> {
    let mut slots = Vec::new();
    slots.try_reserve_exact(capacity).ok()?;
    slots.extend((0..capacity).map(|_| AtomicPtr::new(ptr::null_mut())));
    Some(slots.into_boxed_slice())
}

/// The owner's copy of a live buffer's `mask` and slots (see
/// [`Buffer::owner_view`]): the same slots, reached in one step.
#[derive(Clone, Copy)]
pub(crate) struct OwnerView {
    mask: usize,
    first: *const AtomicPtr<()>,
}

impl OwnerView {
    pub(crate) fn capacity(self) -> usize {
        self.mask + 1
    }

    #[inline]
    fn slot<'a>(self, index: i64) -> &'a AtomicPtr<()> {
        // Indices are never negative where slots are touched (top <= index).
        // SAFETY: the view's buffer is live (`owner_view`'s contract) and
        // holds `mask + 1` slots from `first`, so the masked index is one
        // of them.
        unsafe { &*self.first.add(index as usize & self.mask) }
    }

    /// D11: relaxed atomic read of the word at `index`, as [`Buffer::read`].
    #[inline]
    pub(crate) fn read(self, index: i64) -> *mut () {
        self.slot(index).load(SLOT)
    }

    /// D11: relaxed atomic write of the word at `index`, as [`Buffer::write`].
    #[inline]
    pub(crate) fn write(self, index: i64, word: *mut ()) {
        self.slot(index).store(word, SLOT)
    }
}
