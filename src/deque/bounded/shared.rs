//! What every handle of a bounded deque shares, and the request protocol
//! run on it (G1-G9): announce, rounds of claims and deliveries,
//! withdrawal.

use super::*;

/// An element's cell (G10): the element while it travels, or, on the
/// owner's free list, the next free cell. Aligned so that its address is
/// a multiple of 4: a request word holding it is even (G2).
#[repr(C, align(4))]
pub(super) union Item<T> {
    value: ManuallyDrop<T>,
    next: *mut Item<T>,
}

/// A fresh cell holding `value`, as a word (G10: the owner's push when its
/// free list is empty).
#[cold]
#[inline(never)]
pub(super) fn into_word<T>(value: T) -> *mut () {
    Box::into_raw(Box::new(Item {
        value: ManuallyDrop::new(value),
    }))
    .cast()
}

/// Writes `value` into a free cell and returns it as a word (G10).
///
/// # Safety
///
/// `cell` is a free cell of the owner's list: no other thread reads it.
#[inline(always)]
pub(super) unsafe fn refill<T>(cell: *mut Item<T>, value: T) -> *mut () {
    // SAFETY: the caller's contract; a union field is written whole.
    unsafe { ptr::addr_of_mut!((*cell).value).write(ManuallyDrop::new(value)) };
    cell.cast()
}

/// Checks, in the checkers' builds and debug builds, that `word` is an
/// element's cell.
#[inline(always)]
fn check_word(word: *mut ()) {
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    assert!(!word.is_null() && word.addr() & 3 == 0, "not an element word");
    debug_assert!(!word.is_null() && word.addr() & 3 == 0, "not an element word");
}

/// Moves the element out of `word`'s cell and frees the cell (G10: a
/// thief's steal, the drop of a deque).
///
/// # Safety
///
/// `word` came from `into_word::<T>` or `refill::<T>`, holds an element,
/// and is turned back once.
#[inline(always)]
pub(super) unsafe fn from_word<T>(word: *mut ()) -> T {
    check_word(word);
    // SAFETY: the caller's contract: the cell is ours alone and holds an
    // element; dropping the box frees the cell and drops no field (a
    // union's fields have no drop glue run).
    let mut cell = unsafe { Box::from_raw(word.cast::<Item<T>>()) };
    unsafe { ManuallyDrop::take(&mut cell.value) }
}

/// Moves the element out of `word`'s cell and returns the cell, now free
/// (G10: the owner's pop).
///
/// # Safety
///
/// As [`from_word`]; the caller then owns the free cell.
#[inline(always)]
pub(super) unsafe fn empty_cell<T>(word: *mut ()) -> (T, *mut Item<T>) {
    check_word(word);
    let cell = word.cast::<Item<T>>();
    // SAFETY: the caller's contract.
    let value = unsafe { ManuallyDrop::take(&mut (*cell).value) };
    (value, cell)
}

/// Links `cell` in front of `head` (G10).
///
/// # Safety
///
/// `cell` is free and the caller's alone.
#[inline(always)]
pub(super) unsafe fn link<T>(cell: *mut Item<T>, head: *mut Item<T>) {
    // SAFETY: the caller's contract.
    unsafe { ptr::addr_of_mut!((*cell).next).write(head) };
}

/// The cell after `cell` on a free list (G10).
///
/// # Safety
///
/// `cell` is on the caller's free list.
#[inline(always)]
pub(super) unsafe fn next<T>(cell: *mut Item<T>) -> *mut Item<T> {
    // SAFETY: the caller's contract: the cell's `next` was written last.
    unsafe { (*cell).next }
}

/// Frees every cell of a free list (G10).
///
/// # Safety
///
/// The list is the caller's alone; its cells hold no element.
pub(super) unsafe fn free_cells<T>(mut head: *mut Item<T>) {
    while !head.is_null() {
        // SAFETY: the caller's contract; each cell came from a box.
        let cell = unsafe { Box::from_raw(head) };
        head = unsafe { cell.next };
    }
}

/// The most rounds any finished request of this process ran (T1: a
/// statistic for the checkers' builds, behind the facade's probe).
#[cfg(any(feature = "loom", feature = "shuttle"))]
pub(super) static MOST_ROUNDS: crate::sync::Probe = crate::sync::Probe::new();

/// What every handle shares.
pub(super) struct Shared<T> {
    /// Index (43 bits), pending requests (16 bits), tag (5 bits): the tag,
    /// when not 0, is `1 +` the slot that index `top - 1` was claimed for,
    /// its delivery perhaps not done yet.
    pub(super) top: CachePadded<AtomicU64>,
    /// One past the newest element; only the owner writes it.
    pub(super) bottom: CachePadded<AtomicI64>,
    /// The current buffer; only the owner stores it.
    pub(super) buffer: CachePadded<AtomicPtr<Buffer>>,
    /// Each slot's request word: idle, pending since an index, or the
    /// element delivered to it.
    pub(super) requests: Box<[CachePadded<AtomicPtr<()>>]>,
    /// Thief slots not held by a `BoundedStealer`.
    pub(super) free: AtomicUsize,
    pub(super) _owns: PhantomData<T>,
}

// SAFETY: elements move between threads (`T: Send`); no `&T` is shared;
// all shared state is atomic.
unsafe impl<T: Send> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// Runs `slot`'s request to its end: announce (G2), then rounds until
    /// its bit is clear.
    pub(super) fn request(&self, slot: usize) -> (Option<*mut ()>, usize) {
        self.announce(slot);
        self.serve(slot)
    }

    /// G2: publishes a request pending since the current index.
    pub(super) fn announce(&self, slot: usize) {
        // G1: the index every claim for this request will be at or above.
        let start = index(self.top.load(TOP_LOAD));
        // G2: our own word; published by the announce below.
        self.requests[slot].store(pending(start), OWN_WORD);
        // G2: release, so a helper that reads the bit sees the word.
        self.top.fetch_or(bit(slot), ANNOUNCE);
    }

    /// The rounds of a request announced by `slot` (G1): the element's
    /// word delivered to it, or `None` (withdrawn: `Empty`), and the number
    /// of rounds it ran.
    pub(super) fn serve(&self, slot: usize) -> (Option<*mut ()>, usize) {
        let mut rounds = 0;
        loop {
            rounds += 1;
            // G1: acquire, see TOP_LOAD.
            let current = self.top.load(TOP_LOAD);
            if current & bit(slot) == 0 {
                // Served or withdrawn. If served and not yet delivered,
                // deliver it ourselves (G4).
                if tag(current) == slot as u64 + 1 {
                    self.finish(current);
                }
                return self.take_result(slot, rounds);
            }
            if tag(current) != 0 {
                // G9: a claim is being delivered; help it first.
                self.finish(current);
                continue;
            }
            // G3: the thief's half of the store-buffering pair with G8.
            fence(ROUND_FENCE);
            // G3: acquire the pushes below `bottom`.
            let bottom = self.bottom.load(BOTTOM_LOAD);
            let t = index(current);
            if diff(low(bottom), t) <= 0 {
                // G5: empty: withdraw every pending request at once.
                let _ = self
                    .top
                    .compare_exchange(current, current & !PENDING_MASK, WITHDRAW, CAS_FAILURE);
            } else {
                // G6: claim index `t` for the requester whose turn it is.
                let served = choose(current, t);
                let next = (((t + 1) & INDEX_MASK) << INDEX_SHIFT)
                    | (current & PENDING_MASK & !bit(served))
                    | (served as u64 + 1);
                let _ = self.top.compare_exchange(current, next, CLAIM, CAS_FAILURE);
            }
        }
    }

    /// The end of `slot`'s request: the delivered element's word, or `None`.
    pub(super) fn take_result(&self, slot: usize, rounds: usize) -> (Option<*mut ()>, usize) {
        debug_assert!(
            rounds <= ROUND_BOUND,
            "{rounds} rounds, above the bound {ROUND_BOUND}"
        );
        // The checkers' builds check the bound in every build profile, and
        // keep the largest count seen (T1: a statistic, outside the facade).
        #[cfg(any(feature = "loom", feature = "shuttle"))]
        {
            assert!(
                rounds <= ROUND_BOUND,
                "{rounds} rounds, above the bound {ROUND_BOUND}"
            );
            MOST_ROUNDS.raise_to(rounds);
        }
        // G4: acquire the delivery, if there was one.
        let word = self.requests[slot].load(RESULT_LOAD);
        // G2: our own word; no helper compares against the idle one.
        self.requests[slot].store(ptr::without_provenance_mut(IDLE), OWN_WORD);
        // A delivered word is an element claimed for this request alone
        // (G6), delivered once (G4): the caller's to take.
        (if is_pending(word) { None } else { Some(word) }, rounds)
    }

    /// G4, G9: delivers the claim tagged in `current` and clears the tag.
    pub(super) fn finish(&self, current: u64) {
        let slot = (tag(current) - 1) as usize;
        let claimed = index(current).wrapping_sub(1) & INDEX_MASK;
        // G7: acquire a delivery already made.
        let word = self.requests[slot].load(REQUEST_LOAD);
        if is_pending(word) && diff(claimed, pending_start(word)) >= 0 {
            // G8: acquire the buffer; index `claimed` is intact in it.
            let buffer = self.buffer.load(LOAD_BUFFER);
            // SAFETY: buffers live as long as the deque, which we hold.
            let element = unsafe { (*buffer).read(claimed as i64) };
            // G4: deliver, once: only the first CAS from the pending word
            // succeeds, and a later request is pending since a higher index.
            let _ = self.requests[slot].compare_exchange(word, element, DELIVER, CAS_FAILURE);
        }
        // G9: release the delivery to whoever reads the cleared word.
        let _ = self
            .top
            .compare_exchange(current, current & !TAG_MASK, CLEAR, CAS_FAILURE);
    }

    /// A snapshot of the number of elements.
    pub(super) fn len(&self) -> usize {
        // G8: relaxed snapshots.
        let bottom = self.bottom.load(OWNER_LOCAL);
        let top = self.top.load(OWNER_LOCAL);
        usize::try_from(diff(low(bottom), index(top))).unwrap_or(0)
    }
}

impl<T> Drop for Shared<T> {
    fn drop(&mut self) {
        // The last handle is gone; `Arc`'s drop ordered every access before
        // this point, so relaxed loads (G8) see the final values.
        let top = self.top.load(OWNER_LOCAL);
        let bottom = self.bottom.load(OWNER_LOCAL);
        let buffer = self.buffer.load(OWNER_LOCAL);
        let first = bottom - diff(low(bottom), index(top));
        // SAFETY (all three): each word dropped here is an element that left
        // neither by a pop nor by a delivered steal, dropped once.
        if tag(top) != 0 {
            // A claim not delivered: its element is still in its slot.
            // G8: relaxed, as above.
            let word = self.requests[(tag(top) - 1) as usize].load(OWNER_LOCAL);
            let claimed = low(first - 1);
            if is_pending(word) && diff(claimed, pending_start(word)) >= 0 {
                drop(unsafe { from_word::<T>((*buffer).read(first - 1)) });
            }
        }
        for index in first..bottom {
            drop(unsafe { from_word::<T>((*buffer).read(index)) });
        }
        for request in self.requests.iter() {
            // G8: relaxed, as above; a delivered element is dropped here.
            let word = request.load(OWNER_LOCAL);
            if !is_pending(word) && word.addr() != IDLE {
                drop(unsafe { from_word::<T>(word) });
            }
        }
        // SAFETY: no handle is left.
        unsafe { Buffer::free_chain(buffer) };
    }
}
