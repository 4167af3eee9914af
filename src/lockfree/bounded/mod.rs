//! A work-stealing deque whose steals never retry: [`BoundedWorker`] and
//! [`BoundedStealer`] (proofs in `proofs/bounded.md`, steps G1-G11).
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
//!   reads it delivers the index `t` into `s`'s request word (one CAS from
//!   `s`'s pending word, G4) and clears the tag (G9); the CAS lets one
//!   delivery through. A request returns only once its claim's tag is
//!   gone, and a helper for another slot delivers only if `top` is
//!   unchanged when it looks again after loading the word, so however long
//!   a helper sleeps, and however often the 43-bit index wraps meanwhile,
//!   it delivers into no request but the one the claim serves (G4). The
//!   requester then reads the element from its slot.
//! * **Eviction.** The owner never rewrites the slot of a delivered index
//!   whose element was not taken: when its pushes would reach one, it moves
//!   that element into a box and swaps the box into the request word (one
//!   CAS, G10); the requester takes the element from whichever it finds, with
//!   one CAS of its own word. A requester that stops between delivery and
//!   taking costs one box, never a larger buffer.
//! * **Combining.** A thread that sees the deque empty withdraws every
//!   pending request at once (one CAS clears the mask, G5): each of them
//!   returns `Empty`, linearized at that observation.
//!
//! Elements sit in the slots as in today's deque (`element.rs`: the
//! primitive integers and job references as themselves, larger types
//! boxed), since a request word carries an index, not the element: the
//! owner's push and pop are `Worker`'s.
//!
//! The deque needs 64-bit pointers (its request words carry a 43-bit
//! index or a 62-bit request number): the crate does not build elsewhere
//! (`proofs/bounded.md`, "Limits").
//!
//! The bound counts this deque's atomic steps. For elements that travel
//! as one word it is the whole cost of a steal; a boxed element adds the
//! box's `free` (and an evicted delivery the eviction box's), whose
//! progress is the allocator's, which may take a lock
//! (`proofs/bounded.md`).

use super::element::{from_word, into_word, is_boxed};
use super::Steal;
use crate::lockfree::deque::buffer::{Buffer, OwnerView};
use crate::sync::flags::{fence, orderings};
use crate::sync::{Arc, AtomicI64, AtomicPtr, AtomicU64, AtomicUsize, Ordering, UnsafeCell};
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
    /// G7: a helper's load of the served requester's word. Acquire: if it
    /// reads a later request's pending word, the end of the claimed
    /// request, and so the clear of its tag, happens before the helper's
    /// second look at `top` (G4's check), which then sees `top` changed and
    /// delivers nothing.
    REQUEST_LOAD: Ordering = Acquire, weakened "bounded_request_load" => Relaxed;
    /// G4: the delivery, a CAS of the requester's word from its pending
    /// value to the claimed index. Release: the requester acquires it (G4's
    /// result load), through the clear if a helper other than the deliverer
    /// cleared the tag (G7, G9); kept, not needed (G7).
    DELIVER: Ordering = Release, weakened "bounded_deliver" => Relaxed;
    /// G10: the requester's load of its own word once its bit is clear.
    /// Acquire: the word may already be the owner's box, whose contents the
    /// eviction released (the delivery of an index needs none, G7).
    RESULT_LOAD: Ordering = Acquire, weakened "bounded_result_load" => Relaxed;
    /// G9: the tag clear. Release: the delivery the clearer made or read
    /// (G7) happens before any round that reads `top` without the tag,
    /// and before the owner's reuse of the slot (G8).
    CLEAR: Ordering = Release, weakened "bounded_clear" => Relaxed;
    /// G5: the withdrawal that clears every pending bit. Release: the
    /// `bottom` the withdrawer read (the owner's, when it is taking its
    /// last element) happens before every later round, which acquires
    /// `top` (G1) and so reads that `bottom` or a later one, and claims
    /// nothing the owner is taking (the owner's own announce carries that
    /// already: kept, not needed, `proofs/bounded.md` G5).
    WITHDRAW: Ordering = Release, weakened "bounded_withdraw" => Relaxed;
    /// G8: the owner's load of `top` when its push reaches its limit.
    /// Acquire: every delivery of an index below `top - 1` happened before
    /// the clear it acquires, so its scan (G10) sees the delivery or what
    /// came after it.
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
    /// G8: a requester's load of the buffer pointer (G10). Acquire, the
    /// other side.
    LOAD_BUFFER: Ordering = Acquire, weakened "bounded_load_buffer" => Relaxed;
    /// G10: a requester's store of its own word (pending, then idle).
    /// Release: the owner's scan (acquire) that reads it then knows that
    /// every slot read of the requester's earlier requests is done (a
    /// relaxed store would start no release sequence). The pending store is
    /// published to helpers by the announce (G2), not by this.
    OWN_WORD: Ordering = Release, weakened "bounded_own_word" => Relaxed;
    /// G10: the requester's CAS of its word from the delivered index to
    /// idle once it read the slot. Release: the owner's scan that reads
    /// idle (or anything later) overwrites the slot only after the read.
    CONSUME: Ordering = Release, weakened "bounded_consume" => Relaxed;
    /// G10: the consume's failure: the owner's box is in the word.
    /// Acquire: pairs with the eviction's release, so the box's contents
    /// are the requester's.
    CONSUME_FAILURE: Ordering = Acquire, weakened "bounded_consume_failure" => Relaxed;
    /// G10: the owner's scan of the request words at its push limit.
    /// Acquire: a word past a delivery (idle, pending again) was stored
    /// with release after the requester read its slot.
    SCAN_LOAD: Ordering = Acquire, weakened "bounded_scan_load" => Relaxed;
    /// G10: the eviction, a CAS of a request word from a delivered index to
    /// a box holding its element. Release: the box's contents reach the
    /// requester, whose consume fails and acquires.
    EVICT: Ordering = Release, weakened "bounded_evict" => Relaxed;
    /// G10: the eviction's failure: the requester took the element.
    /// Acquire: pairs with its consume's release, so its slot read comes
    /// before our overwrite.
    EVICT_FAILURE: Ordering = Acquire, weakened "bounded_evict_failure" => Relaxed;
}

/// G2: the first, relaxed look at `free`; the CAS that takes a slot
/// acquires.
const FREE_LOOK: Ordering = Relaxed;

/// G8: the owner's reads of its own `bottom` and the relaxed snapshots of
/// `top` (the pop fast path, `len`, the drop). Relaxed, as D12.
const OWNER_LOCAL: Ordering = Relaxed;

/// G11: the owner's CAS of `top` past its last element when no request is
/// pending and no claim tagged. Relaxed, as D4's: the owner reads only its
/// own slot, and publishes nothing by it (a round that reads the new `top`
/// sees the deque empty whatever `bottom` it reads).
const OWNER_CLAIM: Ordering = Relaxed;

/// G4: a helper's second look at `top`, after its load of the request
/// word, before it delivers a claim for another slot. Relaxed: the word's
/// acquire load (G7) orders it after anything a later request's pending
/// word carries.
const RECHECK: Ordering = Relaxed;

/// G2: the failure ordering of every CAS: a failed CAS here decides
/// nothing from what it read (the next round loads `top` again, G1).
const CAS_FAILURE: Ordering = Relaxed;
/// G2: taking a free thief slot. Acquire: pairs with the release of the
/// slot's previous holder (`SLOT_RELEASE`), so its last steal happened
/// before the new holder's first.
const SLOT_ACQUIRE: Ordering = Acquire;
/// G2: giving a thief slot back when its handle drops. Release: the other
/// side of `SLOT_ACQUIRE`.
const SLOT_RELEASE: Ordering = Release;

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
/// `4 * SLOTS` (the round bound in the repository's `proofs/bounded.md`:
/// at most `SLOTS` claims and withdrawals, `SLOTS + 1` tag clears and
/// `2 * (SLOTS - 1)` announces can change `top` before a pending request is
/// decided and the tag of its claim cleared, and each round that does not
/// return is matched to one of those changes). Every round does at most
/// one CAS of `top` and five atomic steps in all.
/// Those steps are the whole steal for elements that travel as one word
/// (integers, `bool`, `char`, floats); a boxed element adds the `free` of
/// its box, whose progress is the allocator's.
///
/// ```
/// // 64 rounds of at most 5 atomic steps, the announce's 2, and the 5 of
/// // taking the element (G10).
/// assert_eq!(stealpool::deque::ROUND_BOUND * 5 + 2 + 5, 327);
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

// A request word holds a 43-bit index or a request's 62-bit number beside
// its two kind bits, and `MAX_CAPACITY` is 2^40: the deque is for targets
// with 64-bit pointers (`proofs/bounded.md`, "Limits").
#[cfg(not(target_pointer_width = "64"))]
compile_error!(
    "stealpool's bounded deque (and so stealpool) needs 64-bit pointers: its request words hold \
     a 43-bit index or a 62-bit request number, and its buffers reach 2^40 slots"
);

/// Request words: idle after the slot's request `g` (`4g + 3`), pending as
/// request `g` (`4g + 1`), a delivered index (`4d + 2`), or the owner's box
/// holding the delivered element (a pointer, a multiple of 4, G10). A
/// slot's requests are numbered from 1 on (wrapping only after 2^62), so
/// no pending word is repeated (G4).
fn idle(generation: usize) -> *mut () {
    ptr::without_provenance_mut((generation << 2) | 3)
}
fn is_idle(word: *mut ()) -> bool {
    word.addr() & 3 == 3
}
/// The number of the request an idle or pending word belongs to.
fn generation(word: *mut ()) -> usize {
    word.addr() >> 2
}

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
/// `diff(low(index), top's index)` times `2^INDEX_SHIFT`: the same sign,
/// in fewer steps, for the owner's `pop`.
#[inline(always)]
fn ahead(index: i64, top: u64) -> i64 {
    ((index as u64) << INDEX_SHIFT).wrapping_sub(top & !((1 << INDEX_SHIFT) - 1)) as i64
}
/// The requester at or after position `t mod 16` among `mask`'s bits.
fn choose(word: u64, t: u64) -> usize {
    let mask = ((word & PENDING_MASK) >> TAG_BITS) as u16;
    let start = (t % SLOTS as u64) as u32;
    ((mask.rotate_right(start).trailing_zeros() + start) % SLOTS as u32) as usize
}
/// The slot's request number `generation`, pending (odd, so never a box).
fn pending(generation: usize) -> *mut () {
    ptr::without_provenance_mut((generation << 2) | 1)
}
fn is_pending(word: *mut ()) -> bool {
    word.addr() & 3 == 1
}
/// Index `index` (43 bits) delivered to a request (G4).
fn delivered(index: u64) -> *mut () {
    ptr::without_provenance_mut(((index as usize) << 2) | 2)
}
fn is_delivered(word: *mut ()) -> bool {
    word.addr() & 3 == 2
}
fn delivered_index(word: *mut ()) -> u64 {
    (word.addr() >> 2) as u64
}
/// The owner's box holding a delivered element's word (G10): a cell, so
/// that loom checks the requester's read of it against the owner's write.
type Evicted = UnsafeCell<*mut ()>;
const _: () = assert!(std::mem::align_of::<Evicted>() >= 4);

/// Whether a request word is the owner's box holding a delivered element (G10).
fn is_evicted(word: *mut ()) -> bool {
    word.addr() & 3 == 0 && !word.is_null()
}

mod shared;
mod stealer;
#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests;
mod worker;

pub use stealer::BoundedStealer;
pub(crate) use worker::BoundedLen;
pub use worker::BoundedWorker;
