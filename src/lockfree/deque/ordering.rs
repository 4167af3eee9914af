//! Every memory ordering of the deque, in one table.
//!
//! Each constant carries the proof ID (see `proofs/deque.md`) that argues why
//! it is as strong as it is and no stronger. Each can be weakened one step by
//! building with `RUSTFLAGS='--cfg stealpool_weaken="NAME"'`, where `NAME` is
//! the string beside it (see `crate::sync::flags`).
//!
//! Fences are `Option<Ordering>`: their weakened form is no fence at all.

use crate::sync::flags::bug;
use crate::sync::Ordering;
use crate::sync::Ordering::{Acquire, Relaxed, Release, SeqCst};

use crate::sync::flags::orderings;
pub(crate) use crate::sync::flags::{barrier, barrier_known, fence, Barrier};

orderings! {
    /// D1: the owner's load of `top` in `push`. Acquire: a thief's read of a
    /// slot happens before the owner reuses that slot after wrapping.
    PUSH_LOAD_TOP: Ordering = Acquire, weakened "push_load_top" => Relaxed;
    /// D2: the owner's store of `bottom` in `push`. Release: publishes the
    /// element written into the slot to the thief that acquires `bottom` (D7).
    PUSH_STORE_BOTTOM: Ordering = Release, weakened "push_store_bottom" => Relaxed;
    /// D14: the owner's stores of `bottom` in `pop` (taking an index, and
    /// putting it back). Release: since C++20 a release sequence is made of
    /// RMWs only, so a thief that reads a `bottom` written by a plain store
    /// of `pop` synchronizes with nothing unless that store releases too.
    POP_STORE_BOTTOM: Ordering = Release, weakened "pop_store_bottom" => Relaxed;
    /// D3: the fence in `pop` between taking the slot (storing `bottom`) and
    /// reading `top`. SeqCst: forbids store buffering against the thief's D6.
    POP_FENCE: Option<Ordering> = Some(SeqCst), weakened "pop_fence" => None;
    /// D6: the fence in `steal` between loading `top` and loading `bottom`.
    /// SeqCst: the other half of D3's store-buffering pair.
    STEAL_FENCE: Option<Ordering> = Some(SeqCst), weakened "steal_fence" => None;
    /// D15: an owner-biased deque's `pop` replaces D3's fence by the light
    /// side of an asymmetric pair (M1 in `proofs/sleep.md`): it pairs only
    /// with D16's heavy barrier, which every steal of that deque runs.
    POP_LIGHT_BARRIER: Option<Barrier> = Some(Barrier::Light), weakened "pop_light_barrier" => None;
    /// D16: an owner-biased deque's `steal` replaces D6's fence by the heavy
    /// side of the pair with D15, run only once the pre-check saw an element.
    STEAL_HEAVY_BARRIER: Option<Barrier> = Some(Barrier::Heavy), weakened "steal_heavy_barrier" => None;
    /// D7: the thief's load of `bottom`. Acquire: pairs with D2 (message
    /// passing), so the slot's element is visible.
    STEAL_LOAD_BOTTOM: Ordering = Acquire, weakened "steal_load_bottom" => Relaxed;
    /// D8: the thief's load of the buffer pointer. Acquire: pairs with D10, so
    /// the copied slots of a freshly grown buffer are visible.
    STEAL_LOAD_BUFFER: Ordering = Acquire, weakened "steal_load_buffer" => Relaxed;
    /// D9: the thief's CAS on `top` that claims an element. Release: the
    /// thief's read of the slot happens before an owner that acquires the
    /// new `top` (D1) reuses the slot. Atomicity alone decides the winner.
    STEAL_CAS: Ordering = Release, weakened "steal_cas" => Relaxed;
    /// D10: the owner's store of the grown buffer's pointer. Release: the
    /// copied slots happen before any thief that acquires the pointer (D8).
    GROW_STORE_BUFFER: Ordering = Release, weakened "grow_store_buffer" => Relaxed;
}

/// D4: the owner's CAS on `top` when popping the last element. Relaxed:
/// the CAS's atomicity alone decides between the owner and the thieves
/// (D9), and the owner reads nothing through it; the element is its own.
pub(crate) const POP_CAS: Ordering = Relaxed;

/// D17: the owner's CAS on `top` in `pop_oldest`. Relaxed, as D4: the
/// CAS's atomicity alone decides between the owner and the thieves (D9);
/// the owner reads its own slot and publishes nothing through `top`.
pub(crate) const OLDEST_CAS: Ordering = Relaxed;

/// D5: the thief's load of `top`. Relaxed: the SeqCst fence D6 that follows
/// would act as an acquire fence for it anyway, and nothing read after it
/// depends on what the CAS that wrote `top` saw.
pub(crate) const STEAL_LOAD_TOP: Ordering = Relaxed;

/// D11: every slot access (owner writes, owner and thief reads, the copy when
/// growing) is a relaxed atomic access: slots race by design (a thief may read
/// a slot the owner is rewriting; its CAS then fails), and their visibility is
/// carried by D2/D7 and D10/D8, not by the slot itself.
pub(crate) const SLOT: Ordering = Relaxed;

/// D12: the owner reading its own `bottom`, the relaxed `top` reads in `pop`
/// and `len` snapshots. Relaxed: `bottom` is
/// written only by the owner, so it always reads its latest value; the pop
/// fast path only ever errs towards "not empty", which the slow path rechecks.
pub(crate) const OWNER_LOCAL: Ordering = Relaxed;

/// D13: the failure ordering of both CASes (D4, D9): a failed CAS reads
/// nothing that the caller then uses.
pub(crate) const CAS_FAILURE: Ordering = Relaxed;

/// The buffer pointer's publication (D10) and load (D8). Historical bug 2
/// (found by CDSChecker in the C/C++11-atomics Chase-Lev deque) published and loaded it
/// with relaxed accesses; `--cfg stealpool_bug="relaxed_buffer_publish"`
/// reintroduces that mistake so the models can show they catch it.
pub(crate) const PUBLISH_BUFFER: Ordering = if bug!("relaxed_buffer_publish") {
    Relaxed
} else {
    GROW_STORE_BUFFER
};
pub(crate) const LOAD_BUFFER: Ordering = if bug!("relaxed_buffer_publish") {
    Relaxed
} else {
    STEAL_LOAD_BUFFER
};
