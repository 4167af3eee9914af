//! What every handle of a bounded deque shares, and the request protocol
//! run on it (G1-G9): announce, rounds of claims and deliveries,
//! withdrawal.

use super::*;

/// An element in its box; aligned so that its address is even.
#[repr(align(4))]
pub(super) struct Item<T>(T);

#[inline(always)]
pub(super) fn into_word<T>(value: T) -> *mut () {
    Box::into_raw(Box::new(Item(value))).cast()
}

/// # Safety
///
/// `word` came from `into_word::<T>` and is turned back once.
#[inline(always)]
pub(super) unsafe fn from_word<T>(word: *mut ()) -> T {
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    assert!(!word.is_null() && word.addr() & 3 == 0, "not an element word");
    debug_assert!(!word.is_null() && word.addr() & 3 == 0, "not an element word");
    // SAFETY: the caller's contract.
    unsafe { Box::from_raw(word.cast::<Item<T>>()) }.0
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
    pub(super) fn request(&self, slot: usize) -> Steal<T> {
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

    /// The rounds of a request announced by `slot` (G1).
    pub(super) fn serve(&self, slot: usize) -> Steal<T> {
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

    /// The end of `slot`'s request: the delivered element, or `Empty`.
    pub(super) fn take_result(&self, slot: usize, rounds: usize) -> Steal<T> {
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
        if is_pending(word) {
            Steal::Empty
        } else {
            // SAFETY: a delivered word is an element claimed for this
            // request alone (G6), delivered once (G4).
            Steal::Success(unsafe { from_word(word) })
        }
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
