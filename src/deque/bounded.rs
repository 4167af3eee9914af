//! A work-stealing deque whose steals never retry: [`BoundedWorker`] and
//! [`BoundedStealer`] (proofs in `proofs/bounded.md`, steps G1-G9).
//!
//! Today's [`Stealer::steal`](super::Stealer::steal) is lock-free: a thief
//! whose CAS on `top` loses returns `Retry`, and it can lose every time while
//! other thieves win. Here every steal, and the owner's `pop` of the last
//! element, finishes with `Success` or `Empty` within [`ROUND_BOUND`] rounds
//! of its own loop, whatever the other threads do or fail to do:
//!
//! * **Announce.** A thief (or the owner, for the last element) sets its bit
//!   in the pending mask that lives in the `top` word itself (G2).
//! * **Claims serve requests, not the claimer.** Any thread in a round reads
//!   `top`; if the deque holds an element at index `t`, it CASes `top` from
//!   `(t, mask, no tag)` to `(t + 1, mask without s, tag s)`, where `s` is
//!   the first pending requester at or after position `t mod 16` (G6): index
//!   `t` now belongs to `s`. Consecutive indices rotate the start, so a
//!   request that stays pending is served within 16 claims.
//! * **Helping.** While the tag is set, `top` does not move on: whoever
//!   reads it delivers the element of index `t` into `s`'s request word (one
//!   CAS from `s`'s pending word, G4) and clears the tag (G9). The slot of
//!   index `top - 1` is never reused by the owner (G8), so every helper
//!   reads the same element; the CAS lets one delivery through.
//! * **Combining.** A thread that sees the deque empty withdraws every
//!   pending request at once (one CAS clears the mask, G5): each of them
//!   returns `Empty`, linearized at that observation.
//!
//! Elements always travel boxed (one allocation per push, as today's deque
//! for every `T` larger than a word), so that a request word tells a pending
//! request (odd) from a delivered element (an even pointer).

use super::buffer::{Buffer, OwnerView};
use super::Steal;
use crate::sync::{Arc, AtomicI64, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use crate::weaken::{fence, orderings};
use crossbeam_utils::CachePadded;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::ptr;

use crate::sync::Ordering::{Acquire, Relaxed, Release, SeqCst};

orderings! {
    /// G1: a round's load of `top`. Acquire: reading a claim's tag, the
    /// round then reads the claimed requester's word (G7) and the claimed
    /// slot, which the announce (G2) and the push (G3) published.
    TOP_LOAD: Ordering = Acquire, weakened "bounded_top_load" => Relaxed;
    /// G2: the announce, `fetch_or` of the requester's bit. Release: the
    /// pending word stored just before it is what a helper that reads the
    /// bit (G1, through the release sequence of `top`) compares against.
    ANNOUNCE: Ordering = Release, weakened "bounded_announce" => Relaxed;
    /// G3: a round's fence between loading `top` and loading `bottom`,
    /// the thief's half of the store-buffering pair with the owner's G8
    /// fence, as D6 is with D3.
    ROUND_FENCE: Option<Ordering> = Some(SeqCst), weakened "bounded_round_fence" => None;
    /// G3: a round's load of `bottom`. Acquire: pairs with the push's
    /// release (G8), so the element of every index below it is visible to
    /// the claimer, and through its claim (G6) to every helper.
    BOTTOM_LOAD: Ordering = Acquire, weakened "bounded_bottom_load" => Relaxed;
    /// G6: the claim, a CAS of `top` that moves the index and tags the
    /// served requester. Release: the claimer's acquire of `bottom` (G3)
    /// reaches every helper that reads the tag (G1).
    CLAIM: Ordering = Release, weakened "bounded_claim" => Relaxed;
    /// G7: a helper's load of the served requester's word. Acquire: a
    /// delivery it reads (G4) happens before the tag clear (G9) that
    /// follows it, so the requester, which acquires the clear, sees it.
    REQUEST_LOAD: Ordering = Acquire, weakened "bounded_request_load" => Relaxed;
    /// G4: the delivery, a CAS of the requester's word from its pending
    /// value to the element. Release: the requester acquires it (G4's
    /// result load) and owns the box.
    DELIVER: Ordering = Release, weakened "bounded_deliver" => Relaxed;
    /// G4: the requester's load of its own word once its bit is clear.
    /// Acquire: pairs with the delivery (G4) or, through the clear (G9),
    /// with the helper that saw it.
    RESULT_LOAD: Ordering = Acquire, weakened "bounded_result_load" => Relaxed;
    /// G9: the tag clear. Release: the delivery the clearer made or read
    /// (G7) happens before any round that reads `top` without the tag,
    /// and before the owner's reuse of the slot (G8).
    CLEAR: Ordering = Release, weakened "bounded_clear" => Relaxed;
    /// G5: the withdrawal that clears every pending bit. Release: the
    /// `bottom` the withdrawer read (the owner's, when it is taking its
    /// last element) happens before every later round, which acquires
    /// `top` (G1) and so reads that `bottom` or a later one, and claims
    /// nothing the owner is taking.
    WITHDRAW: Ordering = Release, weakened "bounded_withdraw" => Relaxed;
    /// G8: the owner's load of `top` when its push reaches its limit.
    /// Acquire: every helper's read of a slot below `top - 1` happened
    /// before the clear it acquires, so the owner overwrites no slot a
    /// delivery may still read.
    PUSH_LOAD_TOP: Ordering = Acquire, weakened "bounded_push_load_top" => Relaxed;
    /// G8: the owner's stores of `bottom`. Release: publishes the slot
    /// written before it (push) to rounds that acquire `bottom` (G3).
    STORE_BOTTOM: Ordering = Release, weakened "bounded_store_bottom" => Relaxed;
    /// G8: the fence in `pop` between taking index `b` (storing `bottom`)
    /// and reading `top`, the owner's half of the pair with G3.
    POP_FENCE: Option<Ordering> = Some(SeqCst), weakened "bounded_pop_fence" => None;
    /// G8: the grown buffer's publication. Release: the copied slots are
    /// visible to a helper that acquires the pointer.
    PUBLISH_BUFFER: Ordering = Release, weakened "bounded_publish_buffer" => Relaxed;
    /// G8: a helper's load of the buffer pointer. Acquire, the other side.
    LOAD_BUFFER: Ordering = Acquire, weakened "bounded_load_buffer" => Relaxed;
}

/// G2: a requester's store of its own word (pending, then idle), and its
/// registration in `free`. Relaxed: the pending store is published by the
/// announce (G2); nobody compares against the idle word; a slot taken from
/// `free` by a new handle was left idle by the old one, whose drop
/// (release in `free`) the new handle's acquire reads.
const OWN_WORD: Ordering = Relaxed;

/// G8: the owner's reads of its own `bottom` and the relaxed snapshots of
/// `top` (the pop fast path, `len`, the drop). Relaxed, as D12.
const OWNER_LOCAL: Ordering = Relaxed;

/// G2: the failure ordering of every CAS: a failed CAS here decides
/// nothing from what it read (the next round loads `top` again, G1).
const CAS_FAILURE: Ordering = Relaxed;

/// The most thieves a deque can have at once (the owner takes the last of
/// the 16 request slots).
///
/// ```
/// use stealpool::deque::{BoundedWorker, MAX_STEALERS};
///
/// let worker = BoundedWorker::<u8>::new();
/// let thieves: Vec<_> = (0..MAX_STEALERS).map(|_| worker.stealer()).collect();
/// assert!(worker.try_stealer().is_none());
/// # drop(thieves);
/// ```
pub const MAX_STEALERS: usize = 15;

/// Request slots: 15 thieves and the owner.
const SLOTS: usize = 16;
/// The owner's request slot, used by `pop` for the last element.
const OWNER: usize = 15;

/// The most rounds one steal (or the owner's last-element `pop`) runs:
/// `4 * SLOTS` (G1 in `proofs/bounded.md`: at most `SLOTS` claims,
/// `SLOTS - 1` tag clears and `2 * (SLOTS - 1)` announces can change `top`
/// before a pending request is served or withdrawn, and each round that
/// does not return is matched to one of those changes). Every round does
/// at most one CAS of `top` and eight atomic steps in all.
///
/// ```
/// // 64 rounds of at most 8 atomic steps, plus the announce's 3.
/// assert_eq!(stealpool::deque::ROUND_BOUND * 8 + 3, 515);
/// ```
pub const ROUND_BOUND: usize = 4 * SLOTS;

// Layout of the `top` word: index (43 bits) | pending mask (16) | tag (5).
const TAG_BITS: u32 = 5;
const INDEX_SHIFT: u32 = TAG_BITS + SLOTS as u32;
const INDEX_BITS: u32 = 64 - INDEX_SHIFT;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;
const TAG_MASK: u64 = (1 << TAG_BITS) - 1;
const PENDING_MASK: u64 = ((1 << SLOTS) - 1) << TAG_BITS;
/// The largest buffer: differences of 43-bit indices are exact below 2^42.
const MAX_CAPACITY: usize = 1 << 40;

/// A request word that is neither pending nor an element.
const IDLE: usize = 3;

fn index(word: u64) -> u64 {
    word >> INDEX_SHIFT
}
fn tag(word: u64) -> u64 {
    word & TAG_MASK
}
fn bit(slot: usize) -> u64 {
    1 << (TAG_BITS + slot as u32)
}
/// The low 43 bits of a full index, as `top` holds it.
fn low(index: i64) -> u64 {
    index as u64 & INDEX_MASK
}
/// `a - b` for 43-bit indices, exact while the two are less than 2^42
/// apart (the deque never holds that many elements).
fn diff(a: u64, b: u64) -> i64 {
    ((a.wrapping_sub(b) << INDEX_SHIFT) as i64) >> INDEX_SHIFT
}
/// The requester at or after position `t mod 16` among `mask`'s bits.
fn choose(word: u64, t: u64) -> usize {
    let mask = ((word & PENDING_MASK) >> TAG_BITS) as u16;
    let start = (t % SLOTS as u64) as u32;
    ((mask.rotate_right(start).trailing_zeros() + start) % SLOTS as u32) as usize
}
/// A request pending since index `start` (odd, so never an element).
fn pending(start: u64) -> *mut () {
    ptr::without_provenance_mut(((start as usize) << 2) | 1)
}
fn is_pending(word: *mut ()) -> bool {
    word.addr() & 3 == 1
}
fn pending_start(word: *mut ()) -> u64 {
    (word.addr() >> 2) as u64
}

/// An element in its box; aligned so that its address is even.
#[repr(align(4))]
struct Item<T>(T);

#[inline(always)]
fn into_word<T>(value: T) -> *mut () {
    Box::into_raw(Box::new(Item(value))).cast()
}

/// # Safety
///
/// `word` came from `into_word::<T>` and is turned back once.
#[inline(always)]
unsafe fn from_word<T>(word: *mut ()) -> T {
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    assert!(!word.is_null() && word.addr() & 3 == 0, "not an element word");
    debug_assert!(!word.is_null() && word.addr() & 3 == 0, "not an element word");
    // SAFETY: the caller's contract.
    unsafe { Box::from_raw(word.cast::<Item<T>>()) }.0
}

#[cfg(any(feature = "loom", feature = "shuttle"))]
static MOST_ROUNDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What every handle shares.
struct Shared<T> {
    /// Index (43 bits), pending requests (16 bits), tag (5 bits): the tag,
    /// when not 0, is `1 +` the slot that index `top - 1` was claimed for,
    /// its delivery perhaps not done yet.
    top: CachePadded<AtomicU64>,
    /// One past the newest element; only the owner writes it.
    bottom: CachePadded<AtomicI64>,
    /// The current buffer; only the owner stores it.
    buffer: CachePadded<AtomicPtr<Buffer>>,
    /// Each slot's request word: idle, pending since an index, or the
    /// element delivered to it.
    requests: Box<[CachePadded<AtomicPtr<()>>]>,
    /// Thief slots not held by a `BoundedStealer`.
    free: AtomicUsize,
    _owns: PhantomData<T>,
}

// SAFETY: elements move between threads (`T: Send`); no `&T` is shared;
// all shared state is atomic.
unsafe impl<T: Send> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// Runs `slot`'s request to its end: announce (G2), then rounds until
    /// its bit is clear.
    fn request(&self, slot: usize) -> Steal<T> {
        self.announce(slot);
        self.serve(slot)
    }

    /// G2: publishes a request pending since the current index.
    fn announce(&self, slot: usize) {
        // G1: the index every claim for this request will be at or above.
        let start = index(self.top.load(TOP_LOAD));
        // G2: our own word; published by the announce below.
        self.requests[slot].store(pending(start), OWN_WORD);
        // G2: release, so a helper that reads the bit sees the word.
        self.top.fetch_or(bit(slot), ANNOUNCE);
    }

    /// The rounds of a request announced by `slot` (G1).
    fn serve(&self, slot: usize) -> Steal<T> {
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
    fn take_result(&self, slot: usize, rounds: usize) -> Steal<T> {
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
            MOST_ROUNDS.fetch_max(rounds, std::sync::atomic::Ordering::Relaxed);
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
    fn finish(&self, current: u64) {
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
    fn len(&self) -> usize {
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

/// The owner's end of a deque whose steals never retry (see
/// [`BoundedStealer`]).
///
/// Push and pop at the bottom cost what [`Worker`](super::Worker)'s do; a
/// `pop` that finds one element left takes it through a request like a
/// thief's, so it too finishes within [`ROUND_BOUND`] rounds.
///
/// ```
/// use stealpool::deque::{BoundedWorker, Steal};
///
/// let worker = BoundedWorker::new();
/// let thief = worker.stealer();
/// worker.push("a");
/// worker.push("b");
/// assert_eq!(thief.steal(), Steal::Success("a"));
/// assert_eq!(worker.pop(), Some("b"));
/// assert_eq!(thief.steal(), Steal::Empty);
/// ```
pub struct BoundedWorker<T> {
    shared: Arc<Shared<T>>,
    /// The owner's copy of the buffer pointer.
    buffer: Cell<*mut Buffer>,
    /// The owner's view of that buffer's slots, replaced with it.
    slots: Cell<OwnerView>,
    /// `push` writes below this index without loading `top` (G8).
    push_limit: Cell<i64>,
}

// SAFETY: the unique owner handle; moving it moves the owner role. The
// `Cell`s keep it `!Sync`.
unsafe impl<T: Send> Send for BoundedWorker<T> {}

impl<T> Default for BoundedWorker<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> BoundedWorker<T> {
    /// An empty deque of 32 slots, growing as needed.
    ///
    /// ```
    /// let worker: stealpool::deque::BoundedWorker<u8> = stealpool::deque::BoundedWorker::new();
    /// assert!(worker.is_empty());
    /// ```
    pub fn new() -> Self {
        Self::with_capacity(32)
    }

    /// An empty deque with `capacity` slots (rounded up to a power of two,
    /// at least 2); one of them stays unused (G8).
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::with_capacity(2);
    /// for i in 0..10 {
    ///     worker.push(i);
    /// }
    /// assert_eq!(worker.len(), 10);
    /// ```
    ///
    /// # Panics
    ///
    /// If `capacity` is above 2^40.
    pub fn with_capacity(capacity: usize) -> Self {
        assert!(
            capacity <= MAX_CAPACITY,
            "stealpool::deque::BoundedWorker::with_capacity: capacity {capacity} is above 2^40"
        );
        let buffer = Buffer::alloc(capacity.max(2).next_power_of_two(), ptr::null_mut());
        let idle = ptr::without_provenance_mut(IDLE);
        let shared = Arc::new(Shared {
            top: CachePadded::new(AtomicU64::new(0)),
            bottom: CachePadded::new(AtomicI64::new(0)),
            buffer: CachePadded::new(AtomicPtr::new(buffer)),
            requests: (0..SLOTS)
                .map(|_| CachePadded::new(AtomicPtr::new(idle)))
                .collect(),
            free: AtomicUsize::new((1 << MAX_STEALERS) - 1),
            _owns: PhantomData,
        });
        BoundedWorker {
            shared,
            buffer: Cell::new(buffer),
            // SAFETY: the buffer lives as long as the deque (R1).
            slots: Cell::new(unsafe { (*buffer).owner_view() }),
            push_limit: Cell::new(0),
        }
    }

    /// A thief's handle, or `None` if [`MAX_STEALERS`] are alive.
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::<u8>::new();
    /// let thieves: Vec<_> = (0..15).map(|_| worker.try_stealer().unwrap()).collect();
    /// assert!(worker.try_stealer().is_none());
    /// drop(thieves);
    /// assert!(worker.try_stealer().is_some());
    /// ```
    pub fn try_stealer(&self) -> Option<BoundedStealer<T>> {
        // G2: relaxed first look; the CAS below acquires.
        let mut free = self.shared.free.load(OWN_WORD);
        loop {
            if free == 0 {
                return None;
            }
            let slot = free.trailing_zeros() as usize;
            // G2: acquire the previous holder's release of this slot.
            match self
                .shared
                .free
                .compare_exchange(free, free & !(1 << slot), Acquire, CAS_FAILURE)
            {
                Ok(_) => {
                    return Some(BoundedStealer {
                        shared: self.shared.clone(),
                        slot,
                        _not_sync: PhantomData,
                    })
                }
                Err(now) => free = now,
            }
        }
    }

    /// A thief's handle.
    ///
    /// ```
    /// use stealpool::deque::{BoundedWorker, Steal};
    ///
    /// let worker = BoundedWorker::new();
    /// worker.push(1u64);
    /// assert_eq!(worker.stealer().steal(), Steal::Success(1));
    /// ```
    ///
    /// # Panics
    ///
    /// If [`MAX_STEALERS`] handles are alive.
    pub fn stealer(&self) -> BoundedStealer<T> {
        self.try_stealer()
            .expect("stealpool::deque::BoundedWorker::stealer: 15 stealers are alive already")
    }

    /// The number of elements (a snapshot while thieves run).
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::new();
    /// worker.push(());
    /// assert_eq!(worker.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.shared.len()
    }

    /// `true` if the deque held no element at the snapshot.
    ///
    /// ```
    /// assert!(stealpool::deque::BoundedWorker::<()>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pushes `value` at the bottom, growing the buffer when full.
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::new();
    /// worker.push([0u8; 64]);
    /// assert_eq!(worker.len(), 1);
    /// ```
    #[inline]
    pub fn push(&self, value: T) {
        let shared = &*self.shared;
        let word = into_word(value);
        // G8: our own `bottom`.
        let bottom = shared.bottom.load(OWNER_LOCAL);
        let mut slots = self.slots.get();
        if bottom >= self.push_limit.get() {
            // G8: acquire, so no helper still reads a slot we overwrite.
            let top = shared.top.load(PUSH_LOAD_TOP);
            // The slot of `top - 1` may hold a claim not yet delivered (G8).
            let keep = bottom - diff(low(bottom), index(top)) - 1;
            if bottom - keep >= slots.capacity() as i64 {
                slots = self.grow(keep.max(0), bottom);
            }
            self.push_limit.set(keep + slots.capacity() as i64);
        }
        // G8: index `bottom` is not visible to rounds until the store
        // below, and its slot holds no claim.
        slots.write(bottom, word);
        // G8: release the slot to rounds that acquire `bottom` (G3).
        shared.bottom.store(bottom + 1, STORE_BOTTOM);
    }

    /// A buffer twice as large holding indices `from..bottom`, published.
    #[cold]
    fn grow(&self, from: i64, bottom: i64) -> OwnerView {
        let old = self.buffer.get();
        // SAFETY: our buffer lives as long as the deque.
        let capacity = unsafe { (*old).capacity() } * 2;
        assert!(
            capacity <= MAX_CAPACITY,
            "stealpool::deque::BoundedWorker: more than 2^40 elements"
        );
        let new = Buffer::alloc(capacity, old);
        for index in from..bottom {
            // SAFETY: both buffers live as long as the deque.
            unsafe { (*new).write(index, (*old).read(index)) };
        }
        // G8: release the copies to helpers that acquire the pointer.
        self.shared.buffer.store(new, PUBLISH_BUFFER);
        self.buffer.set(new);
        // SAFETY: the new buffer lives as long as the deque (R1).
        let slots = unsafe { (*new).owner_view() };
        self.slots.set(slots);
        slots
    }

    /// Pops the newest element, or `None` if the deque is empty (or thieves
    /// took the last element first).
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::new();
    /// worker.push(1);
    /// worker.push(2);
    /// assert_eq!(worker.pop(), Some(2));
    /// assert_eq!(worker.pop(), Some(1));
    /// assert_eq!(worker.pop(), None);
    /// ```
    #[inline]
    pub fn pop(&self) -> Option<T> {
        let shared = &*self.shared;
        // G8: our own `bottom`, and a relaxed look at `top` that can only
        // err towards "not empty".
        let bottom = shared.bottom.load(OWNER_LOCAL) - 1;
        if diff(low(bottom + 1), index(shared.top.load(OWNER_LOCAL))) <= 0 {
            return None;
        }
        // G8: take index `bottom` before looking at `top`.
        shared.bottom.store(bottom, STORE_BOTTOM);
        // G8: the owner's half of the store-buffering pair with G3.
        fence(POP_FENCE);
        // G8: relaxed; the fence makes it current enough.
        let left = diff(low(bottom), index(shared.top.load(OWNER_LOCAL)));
        if left > 0 {
            // More than one element: no claim can reach index `bottom`.
            // SAFETY: index `bottom` is ours (G8).
            return Some(unsafe { from_word(self.slots.get().read(bottom)) });
        }
        if left < 0 {
            // G8: thieves took index `bottom` too: put `bottom` back.
            shared.bottom.store(bottom + 1, STORE_BOTTOM);
            return None;
        }
        // The last element. `bottom` stays below it, so a round that reads
        // `bottom` from here on sees the deque empty and claims nothing;
        // only a claim from a round that read `bottom` before can still take
        // it. The owner's request, decided by a claim or a withdrawal like a
        // thief's (G6, G5), settles between the two within the round bound.
        let taken = match shared.request(OWNER) {
            // A claim of index `bottom` served the owner.
            Steal::Success(value) => Some(value),
            _ => {
                // Withdrawn. G8: relaxed; our rounds read `top` after the
                // withdrawal, and no claim of index `bottom` comes after it
                // (G5), so `top` is still at `bottom` unless a claim for
                // another requester took it before.
                if index(shared.top.load(OWNER_LOCAL)) == low(bottom) {
                    // SAFETY: index `bottom` is ours (G8): the deque is
                    // empty, `top` at `bottom`, as after any pop.
                    return Some(unsafe { from_word(self.slots.get().read(bottom)) });
                }
                None
            }
        };
        // G8: index `bottom` left through `top`: put `bottom` back at it.
        shared.bottom.store(bottom + 1, STORE_BOTTOM);
        taken
    }
}

impl<T> fmt::Debug for BoundedWorker<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoundedWorker").field("len", &self.len()).finish()
    }
}

/// A thief's end of a [`BoundedWorker`]'s deque: every [`steal`](Self::steal)
/// returns [`Steal::Success`] or [`Steal::Empty`], never [`Steal::Retry`],
/// within [`ROUND_BOUND`] rounds of its own, whatever other thieves do.
///
/// Each handle holds one of [`MAX_STEALERS`] request slots, so it is not
/// `Clone`; ask the worker for more. It can move between threads (`Send`)
/// but runs one steal at a time (not `Sync`).
///
/// ```
/// use stealpool::deque::{BoundedWorker, Steal};
/// use std::thread;
///
/// let worker = BoundedWorker::new();
/// for i in 0..100u64 {
///     worker.push(i);
/// }
/// let thieves: Vec<_> = (0..3)
///     .map(|_| {
///         let thief = worker.stealer();
///         thread::spawn(move || {
///             let mut sum = 0;
///             while let Steal::Success(i) = thief.steal() {
///                 sum += i;
///             }
///             sum
///         })
///     })
///     .collect();
/// let stolen: u64 = thieves.into_iter().map(|t| t.join().unwrap()).sum();
/// let mut rest = 0;
/// while let Some(i) = worker.pop() {
///     rest += i;
/// }
/// assert_eq!(stolen + rest, (0..100).sum::<u64>());
/// ```
pub struct BoundedStealer<T> {
    shared: Arc<Shared<T>>,
    slot: usize,
    _not_sync: PhantomData<Cell<()>>,
}

// SAFETY: a handle moves its slot with it; `T: Send` as for the deque.
unsafe impl<T: Send> Send for BoundedStealer<T> {}

impl<T> BoundedStealer<T> {
    /// Steals the oldest element, or returns `Empty` if the deque was
    /// empty at some instant of the call. Never `Retry`.
    ///
    /// ```
    /// use stealpool::deque::{BoundedWorker, Steal};
    ///
    /// let worker = BoundedWorker::new();
    /// worker.push(1);
    /// worker.push(2);
    /// let thief = worker.stealer();
    /// assert_eq!(thief.steal(), Steal::Success(1));
    /// assert_eq!(thief.steal(), Steal::Success(2));
    /// assert_eq!(thief.steal(), Steal::Empty);
    /// ```
    pub fn steal(&self) -> Steal<T> {
        self.shared.request(self.slot)
    }

    /// The number of elements (a snapshot).
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::new();
    /// worker.push(1);
    /// assert_eq!(worker.stealer().len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.shared.len()
    }

    /// `true` if the deque held no element at the snapshot.
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::<u8>::new();
    /// assert!(worker.stealer().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first half of [`steal`](Self::steal): the request is announced
    /// and left for other threads to serve, as if this thief stopped for
    /// good right after. Only in the model checkers' builds, for the
    /// progress models; [`finish_steal`](Self::finish_steal) ends it.
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn start_steal(&self) {
        self.shared.announce(self.slot);
    }

    /// The second half of [`steal`](Self::steal), after
    /// [`start_steal`](Self::start_steal): what the request came to.
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn finish_steal(&self) -> Steal<T> {
        self.shared.serve(self.slot)
    }

    /// Whether this handle's request, started by
    /// [`start_steal`](Self::start_steal), was already served or withdrawn
    /// by other threads (model checkers' builds only).
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn is_decided(&self) -> bool {
        // G1: a look at our bit.
        self.shared.top.load(TOP_LOAD) & bit(self.slot) == 0
    }

    /// The most rounds any finished request of this process ran (model
    /// checkers' builds only): at most [`ROUND_BOUND`].
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn most_rounds() -> usize {
        // T1: a statistic, read after the runs that counted.
        MOST_ROUNDS.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl<T> Drop for BoundedStealer<T> {
    fn drop(&mut self) {
        // G2: release our idle word to the next holder of the slot.
        self.shared.free.fetch_or(1 << self.slot, Release);
    }
}

impl<T> fmt::Debug for BoundedStealer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoundedStealer")
            .field("slot", &self.slot)
            .finish()
    }
}

#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::*;

    #[test]
    fn choose_rotates_from_the_index() {
        let word = (bit(2) | bit(9)) | (5 << INDEX_SHIFT);
        assert_eq!(choose(word, 0), 2);
        assert_eq!(choose(word, 3), 9);
        assert_eq!(choose(word, 10), 2);
        assert_eq!(choose(bit(15), 7), 15);
    }

    #[test]
    fn diff_is_exact_across_the_wrap() {
        assert_eq!(diff(low(5), low(3)), 2);
        assert_eq!(diff(low(3), low(5)), -2);
        assert_eq!(diff(low(1 << 43), low((1 << 43) - 1)), 1);
    }

    #[test]
    fn a_claim_left_undelivered_is_dropped_with_the_deque() {
        let worker = BoundedWorker::new();
        let thief = worker.stealer();
        worker.push(Box::new(1));
        worker.push(Box::new(2));
        // Announce and claim by hand, leaving the delivery undone.
        thief.shared.announce(thief.slot);
        let current = thief.shared.top.load(Relaxed);
        let next = (1 << INDEX_SHIFT) | (thief.slot as u64 + 1);
        assert!(thief
            .shared
            .top
            .compare_exchange(current, next, Relaxed, Relaxed)
            .is_ok());
        drop(thief);
        drop(worker);
    }
}
