//! Who runs a task that has a handle: the first thread to claim it (H3 in
//! `proofs/waits.md`).
//!
//! A submitted task (or a scheduled continuation) sits in a queue that
//! only its taker can remove it from, yet the thread that joins its handle
//! may want to run it in place rather than wait for it (H4). Both go
//! through the claim: whoever wins it runs the task; the queue's entry,
//! taken later by a worker that lost, is only dropped.

use crate::pool::kernel::ordering::RELAXED;
use crate::pool::kernel::registry::Registry;
use crate::pool::kernel::serving::Lineage;
use crate::pool::kernel::worker::WorkerThread;
use crate::sync::AtomicUsize;

/// Nobody has claimed the task.
const UNCLAIMED: usize = 0;

/// The runner a thread that is no pool's worker claims as: a continuation
/// run in place after its pool's workers left (K3).
pub(crate) const DETACHED: usize = 1;

/// The runner an `install` that withdrew its job claims as (Z6): the job
/// never runs. Not an address (a `WorkerThread` is aligned past it).
pub(crate) const WITHDRAWN: usize = 2;

/// The claim word of a task with a handle.
pub(crate) struct Claim {
    /// `UNCLAIMED`, `DETACHED`, or the address of the `WorkerThread` that
    /// runs the task (never 0 or 1: it is a live, aligned object).
    runner: AtomicUsize,
    /// Y5: the task's place in the order tasks were made.
    lineage: Lineage,
}

impl Claim {
    /// The claim of a task of `lineage` (Y5).
    pub(crate) fn new(lineage: Lineage) -> Self {
        Claim {
            runner: AtomicUsize::new(UNCLAIMED),
            lineage,
        }
    }

    /// The claim of a task being made by the current thread in the
    /// domain of `registry`: numbered now, inside the task with a handle
    /// the thread runs innermost, if any (Y5).
    pub(crate) fn for_new_task(registry: &Registry) -> Self {
        // SAFETY: the thread-local pointer is null or this thread's worker.
        let parent = unsafe { WorkerThread::current().as_ref() }.and_then(WorkerThread::parent);
        Claim::new(Lineage::new(registry.stalls.next_seq(), parent))
    }

    /// Y5: the task's place in the order tasks were made.
    pub(crate) fn lineage(&self) -> Lineage {
        self.lineage
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

    /// Z1: the runner id of the claim at `claim`, type-erased as the stall
    /// detector's records hold it (`stall::Awaited::runner_of`).
    ///
    /// # Safety
    ///
    /// `claim` is a live `Claim`.
    pub(crate) unsafe fn runner_of(claim: *const ()) -> usize {
        // SAFETY: the caller's promise.
        unsafe { &*claim.cast::<Claim>() }.runner()
    }
}
