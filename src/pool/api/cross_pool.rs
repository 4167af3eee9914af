//! Waits across pools: `install` and `wait_all` called on a worker of
//! another pool, or on a thread outside every pool (H4, J3 in
//! `proofs/waits.md`). A worker of another pool parks with a spare of its
//! own pool standing in, running only what is posted to it alone (U2) for
//! `install`, or blocks for `wait_all`; with no spare to be had, it runs
//! its own pool's jobs while it waits, since the work it waits for may
//! need them.

use super::thread_pool::ThreadPool;
use crate::pool::kernel::job::StackJob;
use crate::pool::kernel::latch::{CrossPoolLatch, LockLatch};
use crate::pool::kernel::spares::Blocked;
use crate::pool::kernel::worker::WorkerThread;
use crate::sync::thread;

impl ThreadPool {
    /// `install` on a worker of another pool (H4): it parks with a spare
    /// of its own pool standing in, running what a broadcast of its own
    /// pool posts to it (U2); with no spare to be had (every spare slot
    /// taken), it runs its own pool's jobs while it waits instead (J3).
    #[cold]
    #[inline(never)]
    pub(super) fn install_from_other_pool<R: Send>(
        &self,
        worker: &WorkerThread,
        f: impl FnOnce() -> R + Send,
    ) -> R {
        let blocked = Blocked::enter(worker);
        if blocked.stood_in {
            // U2: parked, not blocked outside the pool: a part of a
            // broadcast of its own pool posted to it meanwhile runs here
            // (rayon-core's `broadcast_mutual`: each pool broadcasts into
            // the other).
            let job = StackJob::new(
                |_migrated| f(),
                CrossPoolLatch::new(worker.registry_arc(), worker.index()),
            );
            // SAFETY: we wait on the latch below before `job` leaves the frame.
            self.registry.push(unsafe { job.as_job_ref() });
            worker.wait_serving_mail(&job.latch.core);
            drop(blocked);
            return job.into_result();
        }
        drop(blocked);
        let job = StackJob::new(
            |_migrated| f(),
            CrossPoolLatch::new(worker.registry_arc(), worker.index()),
        );
        // SAFETY: we wait on the latch below before `job` leaves the frame.
        self.registry.push(unsafe { job.as_job_ref() });
        worker.wait_until(&job.latch.core);
        job.into_result()
    }

    /// `install` on a thread that is no pool's worker: it blocks.
    #[cold]
    #[inline(never)]
    pub(super) fn install_from_outside<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        let job = StackJob::new(|_migrated| f(), LockLatch::new());
        // SAFETY: we block on the latch below before `job` leaves the frame.
        self.registry.push(unsafe { job.as_job_ref() });
        job.latch.wait();
        job.into_result()
    }

    /// `wait_all` on a worker of another pool (H4): it blocks with a spare
    /// of its own pool standing in; with none to be had (every spare slot
    /// taken), it runs its own pool's jobs while it waits instead, as a
    /// cross-pool `install` does (J3): the tasks waited for may need them.
    /// No latch tells it when this pool's tasks are done, so it looks
    /// again after each job, or after a yield when it found none.
    #[cold]
    #[inline(never)]
    pub(super) fn wait_all_from_other_pool(&self, worker: &WorkerThread) {
        let blocked = Blocked::enter(worker);
        if blocked.stood_in {
            self.registry.wait_all();
            drop(blocked);
            return;
        }
        drop(blocked);
        while !self.registry.all_tasks_done() {
            if !worker.run_one_job() {
                thread::yield_now();
            }
        }
    }
}
