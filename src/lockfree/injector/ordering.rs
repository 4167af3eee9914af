//! Every memory ordering of the injectors, in one table, each citing its
//! step in `proofs/injector.md`: the lock-free queue (`queue.rs`, Q1–Q4)
//! and the public `Injector`'s deque in front of it (`mod.rs`, Q8, Q9). The ones a proof
//! needs can be weakened one step with `--cfg stealpool_weaken="NAME"` (see
//! `crate::sync::flags`); relaxed accesses are plain constants.

use crate::sync::flags::orderings;
use crate::sync::Ordering;
#[allow(unused_imports)] // some appear only in weakened builds
use crate::sync::Ordering::{Acquire, Relaxed, Release};

orderings! {
    /// Q2: the push's CAS of `head`. Release publishes the node (its value
    /// and its link) to the taker's swap (Q3).
    PUSH_CAS: Ordering = Release, weakened "injector_push" => Relaxed;
    /// Q3: the taker's swap of `head` to null. Acquire pairs with every
    /// push's Q2 through the release sequence of RMWs on `head`.
    TAKE_SWAP: Ordering = Acquire, weakened "injector_take" => Relaxed;
}

/// Q1 (the push's load and failed CAS), Q4 (emptiness checks): relaxed
/// accesses, each argued at its step.
pub(crate) const RELAXED: Ordering = Relaxed;

orderings! {
    /// Q8: the public injector's claim of the owner end of its deque (a CAS
    /// of `refilling` from false). Acquire pairs with the release (Q8) of
    /// the thread that held it last, so that this thread sees that
    /// owner's writes (`bottom`, the `Worker`'s cells) before it pushes.
    REFILL_CLAIM: Ordering = Acquire, weakened "injector_refill_claim" => Relaxed;
    /// Q8: the release of that owner end (a store of false): everything
    /// the holder did as the owner happens before the next claim.
    REFILL_RELEASE: Ordering = Release, weakened "injector_refill_release" => Relaxed;
    /// Q9: the decrement of `pending` by a refill, after it moved the
    /// elements it counts onto the deque: release, so a steal that reads
    /// the smaller count (acquire, Q9) sees their pushes.
    PENDING_MOVED: Ordering = Release, weakened "injector_pending_moved" => Relaxed;
    /// Q9: a steal's read of `pending` before it reports `Empty`.
    PENDING_LOAD: Ordering = Acquire, weakened "injector_pending_load" => Relaxed;
}

/// Q9: a push counts its element in `pending` before its CAS (Q2) and
/// orders nothing through it; the count is only read for `len` and for
/// `steal`'s `Empty`, and is never smaller than the number of elements in
/// the intake: the increment is sequenced before the push's CAS (Q2,
/// release), which the swap that takes the element (Q3, acquire) reads, and
/// the decrement that uncounts it is sequenced after that swap; so the
/// increment happens before the decrement, and precedes it in the
/// modification order of `pending`, which never goes below zero.
pub(crate) const PENDING_PUSH: Ordering = Relaxed;
