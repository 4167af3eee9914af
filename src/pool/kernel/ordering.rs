//! Every memory ordering of the pool's protocols, in one table.
//!
//! Each constant cites the step of `proofs/sleep.md` or `proofs/join.md` that
//! argues for it; the ones a proof needs can be weakened one step with
//! `--cfg stealpool_weaken="NAME"` (see `crate::sync::flags`). Relaxed accesses
//! have nothing weaker and are plain constants.

use crate::sync::flags::orderings;
pub(crate) use crate::sync::flags::{barrier, barrier_known, fence, Barrier};
use crate::sync::Ordering;
#[allow(unused_imports)] // some appear only in weakened builds
use crate::sync::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};

orderings! {
    /// S2: the fence between a searcher's registration and its scan.
    SEARCHER_FENCE: Option<Ordering> = Some(SeqCst), weakened "searcher_fence" => None;
    /// S2: the barrier between a sleeper's registration and its final check:
    /// the heavy side of the pair with S3 (M1), paid once per sleep.
    SLEEPER_FENCE: Option<Barrier> = Some(Barrier::Heavy), weakened "sleeper_fence" => None;
    /// S3: the barrier between making work available and reading the
    /// counters: the light side of the pair with S2 (M1), paid on every push
    /// (every `join`).
    PRODUCER_FENCE: Option<Barrier> = Some(Barrier::Light), weakened "producer_fence" => None;
    /// L1: setting a latch. Release publishes the job's result to L2. The
    /// setter needs nothing from the waiter: seeing `SLEEPING`, it takes the
    /// waiter's sleep lock (S9), which orders the rest.
    LATCH_SET: Ordering = Release, weakened "latch_set" => Relaxed;
    /// L2: probing a latch. Acquire pairs with L1.
    LATCH_PROBE: Ordering = Acquire, weakened "latch_probe" => Relaxed;
    /// H6: the thread that starts a stolen `join` half records its slot in
    /// the half's latch. Release: its mark, stored before, is seen by the
    /// waiter that reads the slot.
    LATCH_RUNNER: Ordering = Release, weakened "latch_runner" => Relaxed;
    /// H6: the waiter's read of the runner's slot. Acquire pairs with
    /// `LATCH_RUNNER`.
    RUNNER_LOAD: Ordering = Acquire, weakened "runner_load" => Relaxed;
    /// H6: a stolen half's mark, stored when it starts and put back after
    /// its latch is set. Release: a waiter that reads a mark put back sees
    /// the latch set, and so does not run what it took on top of its frame.
    MARK_STORE: Ordering = Release, weakened "mark_store" => Relaxed;
    /// H6: the waiter's read of its runner's mark. Acquire pairs with
    /// `MARK_STORE`.
    MARK_LOAD: Ordering = Acquire, weakened "mark_load" => Relaxed;
    /// P1: a task's end. Release: its effects before `wait_all` returns (P4).
    PENDING_DONE: Ordering = Release, weakened "pending_done" => Relaxed;
    /// P3: the completer's fence between `pending` and `idle_waiters`.
    COMPLETER_FENCE: Option<Ordering> = Some(SeqCst), weakened "completer_fence" => None;
    /// P3: the outside waiter's fence between `idle_waiters` and `pending`.
    WAITER_FENCE: Option<Ordering> = Some(SeqCst), weakened "waiter_fence" => None;
    /// P4: `wait_all`'s read of `pending`. Acquire pairs with P1.
    PENDING_LOAD: Ordering = Acquire, weakened "pending_load" => Relaxed;
    /// C1: a scope task's end. AcqRel: every task's writes before the scope
    /// returns.
    SCOPE_DONE: Ordering = AcqRel, weakened "scope_done" => Release;
    /// K2: an input of a continuation arrives. AcqRel: each arrival
    /// releases its input; the last one acquires every other's before it
    /// schedules the job that reads them all.
    ARRIVE: Ordering = AcqRel, weakened "arrive" => Release;
    /// K4: a joiner's look at the arrivals count before it runs a
    /// continuation in place. Acquire pairs with every arrival's release.
    READY_LOAD: Ordering = Acquire, weakened "ready_load" => Relaxed;
}

/// S1: every change of a worker's state is one RMW on the sleep counters.
/// Relaxed: the no-lost-wake-up argument rests on the counters' coherence
/// order and the fences S2/S3, and the wake-ups on the sleeper's own lock
/// (S9).
pub(crate) const COUNTERS_RMW: Ordering = Relaxed;

/// W5: raising the mark of spare slots ever held. Relaxed: the owner
/// raises it before its first push, so before S3, and the final check
/// reads it after S2, as V1's bit (`proofs/blocking.md`).
pub(crate) const SLOT_MARK_RMW: Ordering = Relaxed;

/// X1: the shutdown flag. Relaxed: each sleeper reads it under its own
/// lock, which `terminate` takes (to wake them all) after storing it.
pub(crate) const TERMINATE_STORE: Ordering = Relaxed;

/// S4, S7, S8 (the flags), L3, P1 (increment), P2, C1 (increment), X1 (load), X2, T1: relaxed
/// accesses, each argued at its step.
pub(crate) const RELAXED: Ordering = Relaxed;
