//! What every handle of a bounded deque shares, and the request protocol
//! run on it (G1-G11): announce, rounds of claims and deliveries,
//! withdrawal.

use super::*;
use crate::sync::flags::bug;

/// Checks, in the checkers' builds, that a boxed element's word is not
/// null (a slot read before the push's write reaches the reader).
#[inline(always)]
pub(super) fn check_word<T>(word: *mut ()) {
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    assert!(!is_boxed::<T>() || !word.is_null(), "not an element word");
    debug_assert!(!is_boxed::<T>() || !word.is_null(), "not an element word");
}

/// Takes back an element's word (element.rs: as itself, or unboxed).
///
/// # Safety
///
/// `word` is the word of one element, taken back once.
#[inline(always)]
pub(super) unsafe fn element<T>(word: *mut ()) -> T {
    check_word::<T>(word);
    // SAFETY: the caller's contract.
    unsafe { from_word(word) }
}

/// The most rounds any finished request of this process ran (T1: a
/// statistic for the checkers' builds, behind the facade's probe).
#[cfg(any(feature = "loom", feature = "shuttle"))]
pub(super) static MOST_ROUNDS: crate::sync::Probe = crate::sync::Probe::new();

/// How many elements owners moved into boxes (G10): a statistic for the
/// checkers' builds, so a model can show it reached the eviction (T1).
#[cfg(any(feature = "loom", feature = "shuttle"))]
pub(super) static EVICTIONS: crate::sync::Probe = crate::sync::Probe::new();

/// How many helpers found a pending word and then `top` changed, so
/// delivered nothing (G4's check): a statistic for the checkers' builds,
/// so a model can show it reached the check (T1).
#[cfg(any(feature = "loom", feature = "shuttle"))]
pub(super) static HELPS_REFUSED: crate::sync::Probe = crate::sync::Probe::new();

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
    /// Each slot's request word: idle, pending (by request number), an index
    /// delivered to it, or the owner's box of that index's element (G10).
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
    /// Runs `slot`'s request number `generation` to its end: announce
    /// (G2), then rounds until its bit is clear and its claim's tag gone.
    pub(super) fn request(&self, slot: usize, generation: usize) -> (Option<*mut ()>, usize) {
        self.announce(slot, generation);
        self.serve(slot, generation)
    }

    /// G2: publishes `slot`'s request number `generation`.
    pub(super) fn announce(&self, slot: usize, generation: usize) {
        // G2: our own word; published by the announce below, and released
        // to the owner's scan (G10).
        self.requests[slot].store(pending(generation), OWN_WORD);
        // G2: release, so a helper that reads the bit sees the word.
        self.top.fetch_or(bit(slot), ANNOUNCE);
    }

    /// The rounds of `slot`'s request number `generation` (G1): the word of
    /// the element claimed for it, or `None` (withdrawn: `Empty`), and the
    /// number of rounds it ran.
    pub(super) fn serve(&self, slot: usize, generation: usize) -> (Option<*mut ()>, usize) {
        let mut rounds = 0;
        loop {
            rounds += 1;
            // G1: acquire, see TOP_LOAD.
            let current = self.top.load(TOP_LOAD);
            if current & bit(slot) == 0 {
                // Served or withdrawn. If served, the tag of our claim must
                // be gone before we return (G4): deliver it and clear it
                // ourselves, and look again if the clear lost to an
                // announce.
                if tag(current) == slot as u64 + 1 && !self.finish(current, slot) {
                    continue;
                }
                return self.take_result(slot, generation, rounds);
            }
            if tag(current) != 0 {
                // G9: a claim is being delivered; help it first.
                self.finish(current, slot);
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

    /// The end of `slot`'s request: the word of the element claimed for it,
    /// or `None`.
    pub(super) fn take_result(
        &self,
        slot: usize,
        generation: usize,
        rounds: usize,
    ) -> (Option<*mut ()>, usize) {
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
        // G10: acquire, in case the word is already the owner's box.
        let word = self.requests[slot].load(RESULT_LOAD);
        if is_pending(word) {
            // G10: our own word, released to the owner's scan.
            self.requests[slot].store(idle(generation), OWN_WORD);
            return (None, rounds);
        }
        // A delivered index was claimed for this request alone (G6) and
        // delivered once (G4): its element is ours.
        (Some(self.consume(slot, generation, word)), rounds)
    }

    /// G10: takes the element delivered to `slot` (`word`, its request
    /// word): from its slot, unless the owner moved it into a box first.
    fn consume(&self, slot: usize, generation: usize, word: *mut ()) -> *mut () {
        let mut word = word;
        if is_delivered(word) {
            // G10: acquire the buffer; the delivered index is intact in it
            // until our word stops naming it.
            let buffer = self.buffer.load(LOAD_BUFFER);
            // SAFETY: buffers live as long as the deque, which we hold.
            let element = unsafe { (*buffer).read(delivered_index(word) as i64) };
            // G10: the element is ours if our word still names its index:
            // release our read of the slot to the owner's scan; on failure,
            // acquire the box the owner moved the element into.
            match self.requests[slot].compare_exchange(word, idle(generation), CONSUME, CONSUME_FAILURE) {
                Ok(_) => return element,
                Err(now) => word = now,
            }
        }
        debug_assert!(is_evicted(word), "a request word neither delivered nor evicted");
        // G10: the owner's box; our word is ours again.
        self.requests[slot].store(idle(generation), OWN_WORD);
        // SAFETY: an evicted word is a box the owner made for this delivery
        // alone, taken once (G10); its write happened before (CONSUME_FAILURE).
        let boxed = unsafe { Box::from_raw(word.cast::<Evicted>()) };
        boxed.with(|element| unsafe { *element })
    }

    /// G4, G9: `helper`'s round delivers the claim tagged in `current`
    /// and clears the tag; `true` if its clear succeeded.
    pub(super) fn finish(&self, current: u64, helper: usize) -> bool {
        let slot = (tag(current) - 1) as usize;
        let claimed = index(current).wrapping_sub(1) & INDEX_MASK;
        // G7: acquire, so that a later request's pending word orders the
        // look at `top` below after that request's start.
        let word = self.requests[slot].load(REQUEST_LOAD);
        if is_pending(word) {
            // G4: a claim for another slot: the helper's own bit is set in
            // `current`, so fewer than 16 claims can come while it stays
            // set, and a `top` unchanged since `current` means the claim
            // was still tagged, so its request still under way, when the
            // word was loaded: the word is that request's. Our own claim
            // needs no look: our request is under way.
            debug_assert!(slot == helper || current & bit(helper) != 0);
            // G4: relaxed, see RECHECK.
            if slot != helper && !bug!("bounded_unchecked_help") && self.top.load(RECHECK) != current {
                // T1: a statistic, outside the facade.
                #[cfg(any(feature = "loom", feature = "shuttle"))]
                HELPS_REFUSED.hit();
                return false;
            }
            // G4: deliver the index, once: the CAS succeeds only from this
            // request's pending word, which no other request repeats.
            let _ = self.requests[slot].compare_exchange(word, delivered(claimed), DELIVER, CAS_FAILURE);
        }
        // G9: release the delivery to whoever reads the cleared word.
        self.top
            .compare_exchange(current, current & !TAG_MASK, CLEAR, CAS_FAILURE)
            .is_ok()
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
        // SAFETY (all): each word dropped here is an element that left
        // neither by a pop nor by a steal that took it, dropped once; the
        // buffer holds every index in `first - 1..bottom` and every
        // delivered index not yet evicted (G8, G10).
        if tag(top) != 0 {
            // A claim not delivered: its element is still in its slot.
            // G8: relaxed, as above.
            // The claim is of the slot's request under way (G4), not yet
            // delivered if its word is still pending.
            let word = self.requests[(tag(top) - 1) as usize].load(OWNER_LOCAL);
            if is_pending(word) {
                drop(unsafe { from_word::<T>((*buffer).read(first - 1)) });
            }
        }
        for index in first..bottom {
            drop(unsafe { from_word::<T>((*buffer).read(index)) });
        }
        for request in self.requests.iter() {
            // G8: relaxed, as above: an element delivered and not taken.
            let word = request.load(OWNER_LOCAL);
            if is_delivered(word) {
                let at = first + diff(delivered_index(word), low(first));
                drop(unsafe { from_word::<T>((*buffer).read(at)) });
            } else if is_evicted(word) {
                let boxed = unsafe { Box::from_raw(word.cast::<Evicted>()) };
                drop(boxed.with(|element| unsafe { from_word::<T>(*element) }));
            }
        }
        // SAFETY: no handle is left.
        unsafe { Buffer::free_chain(buffer) };
    }
}
