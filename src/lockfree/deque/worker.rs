//! The owner's end of the deque: push and pop at the bottom.

use super::buffer::{Buffer, OwnerView, MAX_CAPACITY, SLOT_SIZE};
use super::ordering::{
    barrier_known, fence, CAS_FAILURE, OLDEST_CAS, OWNER_LOCAL, POP_CAS, POP_FENCE, POP_LIGHT_BARRIER,
    POP_STORE_BOTTOM, PUBLISH_BUFFER, PUSH_LOAD_TOP, PUSH_STORE_BOTTOM,
};
use super::Inner;
use super::DEFAULT_CAPACITY;
use crate::lockfree::element::from_word;
use crate::lockfree::element::into_word;
use crate::lockfree::Stealer;
use crate::sync::flags::bug;
use crate::sync::Arc;
use std::cell::Cell;
use std::fmt;
use std::ptr;

/// The owner's end of a work-stealing deque.
///
/// Only the owner pushes (at the bottom) and pops: at the bottom, last-in
/// first-out, for a worker made by [`new`](Self::new) or
/// [`new_lifo`](Self::new_lifo); at the top, first-in first-out, the end
/// thieves take from, for one made by [`new_fifo`](Self::new_fifo). A
/// `Worker` can be sent to another thread but not shared (`Send`, not
/// `Sync`); hand out [`Stealer`]s to let other threads take elements.
///
/// ```
/// use stealpool::deque::Worker;
///
/// let worker = Worker::with_capacity(2);
/// for i in 0..10 {
///     worker.push(i); // grows as needed
/// }
/// assert_eq!(worker.len(), 10);
/// assert_eq!(worker.pop(), Some(9));
/// ```
pub struct Worker<T> {
    inner: Arc<Inner<T>>,
    /// The owner's copy of `inner.buffer`: only the owner replaces the
    /// buffer, so it never needs to load the shared pointer. `Cell` also
    /// makes `Worker` `!Sync`.
    buffer: Cell<*mut Buffer>,
    /// The owner's view of that buffer's slots, replaced with it: `push`
    /// and `pop` index a slot without loading anything through `buffer`.
    slots: Cell<OwnerView>,
    /// `push` writes below this index without loading `top`: a `top` that
    /// D1 read, plus the capacity of the buffer then. `top` only grows, so
    /// an old one is a safe, smaller bound (D1).
    push_limit: Cell<i64>,
    /// Whether `pop` runs a light barrier instead of a fence (D15), so
    /// every steal must run the heavy one (D16). Fixed at creation and
    /// copied into every `Stealer`.
    owner_biased: bool,
    /// Whether heavy barriers were process-wide when this deque was made
    /// (M1): D15 then only stops the compiler. Read once, in
    /// `owner_biased_with_capacity`, after registering.
    expedited: bool,
    /// Whether `pop` takes the oldest element (D19), crossbeam-deque's FIFO
    /// flavour. Fixed at creation and copied into every `Stealer`, whose
    /// batch steals order what they move by it.
    fifo: bool,
}

// SAFETY: a `Worker` is the unique owner handle; moving it to another thread
// moves the owner role with it. The `Cell` keeps it `!Sync`.
unsafe impl<T: Send> Send for Worker<T> {}

impl<T> Worker<T> {
    /// Creates an empty deque with a small initial capacity.
    ///
    /// ```
    /// let worker: stealpool::deque::Worker<Box<u8>> = stealpool::deque::Worker::new();
    /// assert!(worker.is_empty());
    /// ```
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_CAPACITY)
    }

    /// Creates an empty deque whose owner pops the element it pushed last:
    /// the same as [`Worker::new`], under crossbeam-deque's name for its
    /// LIFO flavour.
    ///
    /// ```
    /// use stealpool::deque::Worker;
    ///
    /// let worker = Worker::new_lifo();
    /// worker.push(1);
    /// worker.push(2);
    /// assert_eq!(worker.pop(), Some(2));
    /// ```
    pub fn new_lifo() -> Self {
        Self::new()
    }

    /// Creates an empty deque whose owner pops the element it pushed
    /// first: crossbeam-deque's FIFO flavour. [`pop`](Self::pop) then takes
    /// from the top, the end thieves take from, by a CAS on `top` as a
    /// thief's claim (D19 in `proofs/deque.md`); `push`, the thieves' side
    /// and [`len`](Self::len) are those of any deque. Batch steals into
    /// a FIFO worker order what they move so that its `pop` gives them in
    /// the order the victim's owner would have (see
    /// [`Stealer::steal_batch`]).
    ///
    /// ```
    /// use stealpool::deque::{Steal, Worker};
    ///
    /// let worker = Worker::new_fifo();
    /// worker.push(1);
    /// worker.push(2);
    /// worker.push(3);
    /// assert_eq!(worker.pop(), Some(1));
    /// assert_eq!(worker.stealer().steal(), Steal::Success(2));
    /// assert_eq!(worker.pop(), Some(3));
    /// assert_eq!(worker.pop(), None);
    /// ```
    pub fn new_fifo() -> Self {
        Self::fifo_with_capacity(DEFAULT_CAPACITY)
    }

    /// [`new_fifo`](Self::new_fifo) with the initial capacity of
    /// [`with_capacity`](Self::with_capacity).
    ///
    /// ```
    /// let worker = stealpool::deque::Worker::fifo_with_capacity(1);
    /// worker.push('a');
    /// worker.push('b'); // grows
    /// assert_eq!(worker.pop(), Some('a'));
    /// ```
    ///
    /// # Panics
    ///
    /// As [`with_capacity`](Self::with_capacity).
    pub fn fifo_with_capacity(capacity: usize) -> Self {
        Worker {
            fifo: true,
            ..Self::with_capacity(capacity)
        }
    }

    /// Creates an empty deque that holds `capacity` elements before it
    /// first grows; `capacity` is rounded up to a power of two (at least 1),
    /// so `0` and `1` both give a deque of one slot that grows on the second
    /// push.
    ///
    /// ```
    /// let worker: stealpool::deque::Worker<usize> = stealpool::deque::Worker::with_capacity(100);
    /// worker.push(1);
    /// assert_eq!(worker.len(), 1);
    /// ```
    ///
    /// # Panics
    ///
    /// * If `capacity` is larger than the largest buffer a deque can have:
    ///   the largest power of two whose slots fit in one allocation
    ///   (`isize::MAX` bytes), 2^59 slots on a 64-bit target.
    /// * If the allocator refuses the buffer that `capacity` rounds up to,
    ///   for instance one larger than the address space. Such a capacity is
    ///   most likely a bad argument, so this panics where
    ///   `Vec::with_capacity` would abort; a [`push`](Self::push) that
    ///   grows the buffer still aborts, like a `Vec`.
    ///
    /// Both messages name the `capacity` passed.
    ///
    /// ```should_panic
    /// // "stealpool::deque::Worker::with_capacity: capacity 18446744073709551615
    /// // is larger than the largest buffer a deque can allocate (...)"
    /// let _ = stealpool::deque::Worker::<usize>::with_capacity(usize::MAX);
    /// ```
    pub fn with_capacity(capacity: usize) -> Self {
        // `MAX_CAPACITY` is a power of two, so no capacity up to it rounds
        // up past it (nor wraps to 0, which `usize::MAX` did).
        assert!(
            capacity <= MAX_CAPACITY,
            "stealpool::deque::Worker::with_capacity: capacity {capacity} is larger than the largest \
             buffer a deque can allocate ({MAX_CAPACITY} slots of {SLOT_SIZE} bytes)"
        );
        let slots = capacity.max(1).next_power_of_two();
        let buffer = Buffer::try_alloc(slots, ptr::null_mut()).unwrap_or_else(|| {
            panic!(
                "stealpool::deque::Worker::with_capacity: capacity {capacity} needs a buffer of {slots} \
                 slots ({} bytes), and the allocator refused it",
                slots * SLOT_SIZE
            )
        });
        let inner = Arc::new(Inner::new(buffer));
        // D12: relaxed; nothing is shared yet.
        let buffer = inner.buffer.load(OWNER_LOCAL);
        // SAFETY: the buffer lives as long as `inner`, which this `Worker`
        // holds (R1).
        let slots = Cell::new(unsafe { (*buffer).owner_view() });
        Worker {
            inner,
            buffer: Cell::new(buffer),
            slots,
            push_limit: Cell::new(0),
            owner_biased: false,
            expedited: false,
            fifo: false,
        }
    }

    /// Creates an empty deque whose owner pays no barrier: `pop` runs no
    /// fence at all, and every steal that finds an element runs a
    /// process-wide barrier instead (Linux
    /// `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, about half a
    /// microsecond; where that is unavailable, both sides fall back to the
    /// fences of [`new`](Self::new)). For deques popped far more often
    /// than stolen from, such as a fork-join worker's, whose own pops are
    /// then plain loads and stores.
    ///
    /// A steal that finds the deque empty runs no barrier, and may report
    /// [`Steal::Empty`](crate::deque::Steal::Empty) for a push that is still on
    /// its way to the thief's core; a caller that must not miss such an
    /// element runs a heavy barrier of its own before stealing, as the
    /// pool's sleepers do (the repository's `proofs/deque.md` has the
    /// argument).
    ///
    /// ```
    /// use stealpool::deque::{Steal, Worker};
    ///
    /// let worker = Worker::new_owner_biased();
    /// worker.push(1usize);
    /// worker.push(2);
    /// assert_eq!(worker.stealer().steal(), Steal::Success(1));
    /// assert_eq!(worker.pop(), Some(2));
    /// assert_eq!(worker.pop(), None);
    /// ```
    pub fn new_owner_biased() -> Self {
        Self::owner_biased_with_capacity(DEFAULT_CAPACITY)
    }

    /// [`new_owner_biased`](Self::new_owner_biased) with the capacity of
    /// [`with_capacity`](Self::with_capacity).
    ///
    /// ```
    /// let worker = stealpool::deque::Worker::owner_biased_with_capacity(1);
    /// worker.push(1usize);
    /// worker.push(2); // grows
    /// assert_eq!(worker.len(), 2);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`with_capacity`](Self::with_capacity).
    pub fn owner_biased_with_capacity(capacity: usize) -> Self {
        // M1: settle whether barriers are expedited before any handle of
        // this deque exists, so its owner and its thieves, which all come
        // after this call, agree on it.
        crate::sync::register_barriers();
        Worker {
            owner_biased: true,
            expedited: crate::sync::barriers_expedited(),
            ..Self::with_capacity(capacity)
        }
    }

    /// Creates a [`Stealer`] for this deque.
    ///
    /// ```
    /// use stealpool::deque::{Steal, Worker};
    ///
    /// let worker = Worker::new();
    /// worker.push(5usize);
    /// assert_eq!(worker.stealer().steal(), Steal::Success(5));
    /// ```
    pub fn stealer(&self) -> Stealer<T> {
        Stealer::new(self.inner.clone(), self.owner_biased, self.fifo)
    }

    /// The number of elements in the deque (a snapshot while thieves run).
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `true` if the deque holds no element (a snapshot while thieves run).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pushes `value` at the bottom, growing the buffer if it is full.
    ///
    /// ```
    /// let worker = stealpool::deque::Worker::new();
    /// worker.push(Box::new([0u8; 64]));
    /// assert_eq!(worker.len(), 1);
    /// ```
    ///
    /// # Panics
    ///
    /// If the deque is full at the largest buffer a deque can have (2^59
    /// elements on a 64-bit target, see [`with_capacity`](Self::with_capacity)):
    /// the deque is left as it was and `value` is dropped. As with a `Vec`, a
    /// grown buffer that the allocator refuses aborts the process.
    pub fn push(&self, value: T) {
        self.push_indexed(value);
    }

    /// `push`, returning the index the value went to: what `take_back`
    /// takes back.
    #[inline(always)]
    pub(crate) fn push_indexed(&self, value: T) -> i64 {
        let inner = &*self.inner;
        // D12: `bottom` is ours; we always read our own latest store.
        let bottom = inner.bottom.load(OWNER_LOCAL);
        let mut slots = self.slots.get();
        if bottom >= self.push_limit.get() {
            // D1: acquire, so the thief whose CAS moved `top` past a slot
            // has finished reading that slot before we overwrite it, here
            // or at any later push below the limit this load sets.
            let top = inner.top.load(PUSH_LOAD_TOP);
            if bottom - top >= slots.capacity() as i64 {
                slots = self.grow(top, bottom);
            }
            self.push_limit.set(top + slots.capacity() as i64);
        }
        // D11: relaxed slot write; thieves cannot claim index `bottom` until
        // they see the store of `bottom + 1` below.
        slots.write(bottom, into_word(value));
        // D2: release, publishing the slot to thieves that acquire `bottom`
        // (D7).
        inner.bottom.store(bottom + 1, PUSH_STORE_BOTTOM);
        bottom
    }

    /// Pops the newest element from the bottom (the oldest from the top,
    /// for a worker made by [`new_fifo`](Self::new_fifo)), or `None` if the
    /// deque is empty (or thieves took the last element first).
    ///
    /// ```
    /// use stealpool::deque::Worker;
    ///
    /// let worker = Worker::new();
    /// worker.push(1usize);
    /// worker.push(2);
    /// assert_eq!(worker.pop(), Some(2));
    /// assert_eq!(worker.pop(), Some(1));
    /// assert_eq!(worker.pop(), None);
    ///
    /// let fifo = Worker::new_fifo();
    /// fifo.push(1usize);
    /// fifo.push(2);
    /// assert_eq!(fifo.pop(), Some(1));
    /// ```
    pub fn pop(&self) -> Option<T> {
        let inner = &*self.inner;
        // D12: fast path. A stale `top` is an older, smaller one, so this
        // can only err towards "not empty", which the slow path rechecks;
        // an empty deque costs no fence (nor, on a FIFO worker, a CAS).
        let bottom = inner.bottom.load(OWNER_LOCAL);
        if bottom - inner.top.load(OWNER_LOCAL) <= 0 {
            return None;
        }
        if self.fifo {
            // D19: a FIFO worker's owner takes the oldest element by D17's
            // claim, and never lowers `bottom`.
            return self.pop_fifo();
        }
        self.take_bottom(bottom - 1, self.owner_biased)
    }

    /// A FIFO worker's `pop` (D19), out of line: a LIFO worker's `pop`
    /// inlines no more than the test of the flag.
    #[inline(never)]
    fn pop_fifo(&self) -> Option<T> {
        self.pop_oldest()
    }

    /// `pop` for an owner-biased deque, with no fast path for an empty one:
    /// for the pool's workers taking back their pending `join` halves, which
    /// almost always find one, so the check would only cost instructions.
    /// An empty deque is found as `pop`'s slow path finds it, after D15.
    #[inline]
    pub(crate) fn pop_biased(&self) -> Option<T> {
        debug_assert!(self.owner_biased, "pop_biased on a symmetric deque");
        // D12: `bottom` is ours.
        let bottom = self.inner.bottom.load(OWNER_LOCAL);
        self.take_bottom(bottom - 1, true)
    }

    /// An index no element is ever at: `take_back` with it is `pop_biased`
    /// (`bottom`, as the owner sees it, is never below zero).
    pub(crate) const NO_INDEX: i64 = -2;

    /// Takes back the element `push_indexed` put at `index`, for an
    /// owner-biased deque's owner that has pushed and popped in balance
    /// since: `Ok(())` if it did, without reading the element's slot (the
    /// caller knows what it pushed); `Err(None)` if thieves took it; and, if
    /// `bottom` is not `index + 1` after all, `Err` of what `pop_biased`
    /// returns. `paired` is the caller's word for whether light barriers
    /// pair with heavy ones (M1), so that D15 tests nothing: the pool's
    /// workers know it from their attention word (S7).
    ///
    /// Its store of `bottom` waits for no load of it: the value stored comes
    /// from the push, and the load of `bottom` only feeds a predicted branch.
    /// A pool worker's `join` nested in another then never waits for the
    /// inner one's store to be forwarded to its own load.
    ///
    /// # Safety
    ///
    /// `index` is what `push_indexed` returned for an element that this
    /// owner has not popped since, or [`Worker::NO_INDEX`]; on `Ok` the
    /// element left the deque with no `from_word`, so it must be one that
    /// needs no drop, or the caller must account for it. `paired` is `true`
    /// only if `crate::sync::barriers_expedited()` returned `true`, or
    /// `index` is `NO_INDEX` (which takes `pop_biased`'s own D15).
    #[inline(always)]
    pub(crate) unsafe fn take_back(&self, index: i64, paired: bool) -> Result<(), Option<T>> {
        debug_assert!(self.owner_biased, "take_back on a symmetric deque");
        let inner = &*self.inner;
        // D12: `bottom` is ours. Only compared, so nothing below waits for it.
        if inner.bottom.load(OWNER_LOCAL) != index + 1 {
            return Err(self.pop_biased());
        }
        // D14, then D15 in place of D3: as in `take_bottom`, with the
        // caller's word for whether the barrier is light.
        inner.bottom.store(index, POP_STORE_BOTTOM);
        barrier_known(POP_LIGHT_BARRIER, paired);
        // D12: relaxed; D15 is what makes it current enough.
        let top = inner.top.load(OWNER_LOCAL);
        if top < index {
            // More than one element, so the one at `index` is still the one
            // pushed there: only the owner writes slots, at `bottom`, which
            // stayed above `index` since, and a wrapped index would have
            // grown the buffer first.
            return Ok(());
        }
        // D4: the last element; the CAS's atomicity decides against thieves.
        let won = top == index
            && inner
                .top
                .compare_exchange(top, top + 1, POP_CAS, CAS_FAILURE)
                .is_ok();
        // D14: the deque is empty either way (thieves emptied it, or the
        // last element went to D4's winner): put `bottom` back.
        inner.bottom.store(index + 1, POP_STORE_BOTTOM);
        if won {
            Ok(())
        } else {
            Err(None)
        }
    }

    /// Takes index `bottom` (one below the current `bottom`) unless thieves
    /// took it first; `light` runs D15 in place of D3 (owner-biased only).
    #[inline(always)]
    fn take_bottom(&self, bottom: i64, light: bool) -> Option<T> {
        let inner = &*self.inner;
        // Take index `bottom` before looking at `top`.
        // D14: release, like every store of `bottom`: a thief that reads
        // this value must still see the slots of the pushes before it (since
        // C++20 a plain store ends the release sequence of D2). D3's fence
        // orders it before the load of `top`.
        inner.bottom.store(bottom, POP_STORE_BOTTOM);
        if light {
            // D15: the light side of the pair with every thief's D16, which
            // acts as D3's fence would: either the thief sees our smaller
            // `bottom`, or we see its larger `top`.
            barrier_known(POP_LIGHT_BARRIER, self.expedited);
        } else {
            // D3: SeqCst fence. Store buffering against the thief's D6:
            // either the thief sees our smaller `bottom`, or we see its
            // larger `top`.
            fence(POP_FENCE);
        }
        // D12: relaxed; D3 (or D15) is what makes it current enough.
        let top = inner.top.load(OWNER_LOCAL);
        if top > bottom {
            // Thieves emptied the deque: put `bottom` back (D14).
            inner.bottom.store(bottom + 1, POP_STORE_BOTTOM);
            return None;
        }
        // D11: relaxed; we wrote this slot ourselves.
        let word = self.slots.get().read(bottom);
        if top == bottom {
            // The last element: thieves may be after it too. D4's atomicity
            // decides.
            let won = inner
                .top
                .compare_exchange(top, top + 1, POP_CAS, CAS_FAILURE)
                .is_ok();
            // D14: the deque is empty either way (top == bottom + 1).
            inner.bottom.store(bottom + 1, POP_STORE_BOTTOM);
            if !won {
                // A thief's CAS claimed it: the word is the thief's now.
                return None;
            }
        }
        // SAFETY: index `bottom` is ours, by the CAS or because `top` was
        // below it after D3; its word is converted back exactly once.
        Some(unsafe { from_word::<T>(word) })
    }

    /// Takes the oldest element, the one a thief would take next, from the
    /// owner's side: with a CAS on `top` like a steal's, but with no fence
    /// or barrier, since the owner knows `bottom` without asking. Returns
    /// `None` if the deque is empty (or thieves took the last element first).
    ///
    /// For an owner that hands its oldest work on, as the pool's workers move
    /// their oldest pending `join` halves to the deque thieves look in first.
    ///
    /// ```
    /// let worker = stealpool::deque::Worker::new_owner_biased();
    /// worker.push(1usize);
    /// worker.push(2);
    /// assert_eq!(worker.pop_oldest(), Some(1));
    /// assert_eq!(worker.pop(), Some(2));
    /// assert_eq!(worker.pop_oldest(), None);
    /// ```
    pub fn pop_oldest(&self) -> Option<T> {
        self.pop_oldest_indexed().map(|(value, _)| value)
    }

    /// The index the next push will take: the owner's `bottom`, exact
    /// since only the owner changes it (D12). Every element pushed from
    /// now on sits at this index or above it, until it is taken.
    pub(crate) fn next_index(&self) -> i64 {
        // D12: `bottom` is ours; we always read our own latest store.
        self.inner.bottom.load(OWNER_LOCAL)
    }

    /// `pop_oldest`, with the index the element was taken from.
    pub(crate) fn pop_oldest_indexed(&self) -> Option<(T, i64)> {
        let inner = &*self.inner;
        // D12: `bottom` is ours, and stays put while we are here.
        let bottom = inner.bottom.load(OWNER_LOCAL);
        // D17 (D19 for a FIFO worker's pop): relaxed; a stale `top` is
        // smaller, and the CAS below fails on it.
        let mut top = inner.top.load(OWNER_LOCAL);
        // The word read for an index a thief took: kept only by the
        // `oldest_stale_word` mutant.
        let mut lost: Option<*mut ()> = None;
        loop {
            if bottom - top <= 0 {
                return None;
            }
            // D11: relaxed; we wrote this slot ourselves, and only we
            // rewrite slots.
            let fresh = self.slots.get().read(top);
            // `--cfg stealpool_bug="oldest_stale_word"`: a retry claims the
            // next index but keeps the word read for the one a thief took.
            let word = match lost {
                Some(stale) if bug!("oldest_stale_word") => stale,
                _ => fresh,
            };
            // `--cfg stealpool_bug="oldest_store"`: D17's claim by a plain
            // store, as if the owner's knowledge of `bottom` were enough.
            if bug!("oldest_store") {
                inner.top.store(top + 1, OLDEST_CAS);
                // SAFETY: none; the mutant exists to be caught.
                return Some((unsafe { from_word::<T>(word) }, top));
            }
            // D17 (D19 for a FIFO worker's pop): claim index `top` as a
            // thief's D9 would. Atomicity alone decides between us and the
            // thieves; we publish nothing through it and read nothing
            // through it (the slot is our own write).
            match inner.top.compare_exchange(top, top + 1, OLDEST_CAS, CAS_FAILURE) {
                // SAFETY: the CAS made index `top` ours; its word is converted once.
                Ok(_) => return Some((unsafe { from_word::<T>(word) }, top)),
                // A thief took index `top`: look at the next one, and read
                // its slot afresh.
                Err(current) => {
                    top = current;
                    lost = Some(word);
                }
            }
        }
    }

    /// Replaces a full buffer by one twice as large holding the elements
    /// `top..bottom`, and returns the owner's view of it.
    #[cold]
    fn grow(&self, top: i64, bottom: i64) -> OwnerView {
        let old = self.buffer.get();
        // SAFETY: the current buffer is freed only with `inner`.
        let capacity = unsafe { (*old).capacity() };
        // Before anything changes, so the deque is intact if this panics.
        // Both are powers of two, so below the limit, doubling reaches at
        // most the limit and cannot overflow.
        assert!(
            capacity < MAX_CAPACITY,
            "stealpool::deque::Worker::push: the deque holds {capacity} elements, the largest buffer a \
             deque can allocate ({MAX_CAPACITY} slots of {SLOT_SIZE} bytes), and cannot grow"
        );
        let new = Buffer::alloc(capacity * 2, old);
        for index in top..bottom {
            // D11: relaxed copies; D10 publishes them.
            // SAFETY: both buffers live as long as `inner`.
            unsafe { (*new).write(index, (*old).read(index)) };
        }
        // D10: release, so a thief that acquires the new pointer (D8) sees
        // the copied slots. The old buffer stays reachable through `prev`
        // for thieves still reading it, and is freed with `inner` (R1).
        self.inner.buffer.store(new, PUBLISH_BUFFER);
        self.buffer.set(new);
        // SAFETY: `new` lives as long as `inner` (R1).
        let slots = unsafe { (*new).owner_view() };
        self.slots.set(slots);
        slots
    }
}

impl<T> Default for Worker<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> fmt::Debug for Worker<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Worker")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

impl<T> Worker<T> {
    /// Whether this is a FIFO worker (`new_fifo`).
    pub(crate) fn is_fifo(&self) -> bool {
        self.fifo
    }

    /// Whether `self` and `stealer` are two ends of the same deque.
    pub(super) fn is_same_deque(&self, inner: &Arc<Inner<T>>) -> bool {
        Arc::ptr_eq(&self.inner, inner)
    }
}
