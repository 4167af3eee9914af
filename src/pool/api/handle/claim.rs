//! Who runs a task that has a handle: the first thread to claim it (H3 in
//! `proofs/waits.md`).
//!
//! A submitted task (or a scheduled continuation) sits in a queue that
//! only its taker can remove it from, yet the thread that joins its handle
//! may want to run it in place rather than wait for it (H4). Both go
//! through the claim: whoever wins it runs the task; the queue's entry,
//! taken later by a worker that lost, is only dropped.

use crate::pool::kernel::ordering::RELAXED;
use crate::sync::AtomicUsize;

/// Nobody has claimed the task.
const UNCLAIMED: usize = 0;

/// The runner a thread that is no pool's worker claims as: a continuation
/// run in place after its pool's workers left (K3).
pub(crate) const DETACHED: usize = 1;

/// The claim word of a task with a handle.
pub(crate) struct Claim {
    /// `UNCLAIMED`, `DETACHED`, or the address of the `WorkerThread` that
    /// runs the task (never 0 or 1: it is a live, aligned object).
    runner: AtomicUsize,
}

impl Claim {
    pub(crate) fn new() -> Self {
        Claim {
            runner: AtomicUsize::new(UNCLAIMED),
        }
    }

    /// Claims the task for `runner`: `true` for exactly one caller.
    pub(crate) fn take(&self, runner: usize) -> bool {
        // H3: relaxed CAS. Its atomicity alone makes the winner unique; the
        // task's closure reached every caller through an edge of its own
        // (the queue's publication, the handle's transfer), and the loser
        // touches nothing of it.
        self.runner
            .compare_exchange(UNCLAIMED, runner, RELAXED, RELAXED)
            .is_ok()
    }

    /// Who claimed the task, `0` if nobody has (H5).
    pub(crate) fn runner(&self) -> usize {
        // H5: relaxed; a thread compares it with its own address, which
        // only that thread writes here.
        self.runner.load(RELAXED)
    }
}
