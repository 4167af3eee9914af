//! Waits across pools: `install` and `wait_all` called on a worker of
//! another pool, or on a thread outside every pool (H4, Y1 in
//! `proofs/waits.md`). A worker of another pool parks with a spare of its
//! own pool standing in if one may start, running only what is posted to
//! it alone (U2, Y1) for `install`, or blocks for `wait_all`; `wait_all`
//! with no spare to be had runs its own pool's jobs while it waits, since
//! the tasks it waits for may need them.

use super::thread_pool::ThreadPool;
use crate::pool::kernel::job::StackJob;
use crate::pool::kernel::latch::{CrossPoolLatch, LockLatch};
use crate::pool::kernel::serving::{self, Awaited, SendAwaited, Waiting};
use crate::pool::kernel::spares::Blocked;
use crate::pool::kernel::worker::WorkerThread;
use crate::sync::thread;

impl ThreadPool {
    /// `install` on a worker of another pool (H4): it parks, serving its
    /// mailbox (U2), with a spare of its own pool standing in if one may
    /// start (W1). The job is posted to a worker of this pool that waits
    /// for work the calling thread runs, if there is one (Y1): pools that
    /// call back into each other then need no spare at all. Whatever the
    /// job calls back into the caller's pool is posted to the caller.
    #[cold]
    #[inline(never)]
    pub(super) fn install_from_other_pool<R: Send>(
        &self,
        worker: &WorkerThread,
        f: impl FnOnce() -> R + Send,
    ) -> R {
        let blocked = Blocked::enter(worker);
        // Y4: with no spare standing in, this thread is lent to the tasks
        // this pool's threads need of its own.
        let _lent = (!blocked.stood_in).then(|| serving::lend(worker, &self.registry));
        let waiting = Waiting::here(worker, true);
        let awaited = Awaited::By(&raw const waiting);
        // SAFETY (Y2): the job runs while this frame waits for it, so the
        // `Waiting` it names outlives the run.
        let awaited = unsafe { SendAwaited::new(awaited) };
        let job = StackJob::new(
            move |_migrated| serving::running(awaited.into_inner(), f),
            CrossPoolLatch::new(worker.registry_arc(), worker.index()),
        );
        // SAFETY: we wait on the latch below before `job` leaves the frame.
        let job_ref = unsafe { job.as_job_ref() };
        if let Err(job_ref) = serving::post_to_waiter(&self.registry, job_ref) {
            self.registry.push(job_ref);
        }
        worker.wait_serving_mail(&job.latch.core);
        drop(blocked);
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
    /// fallback the other cross-pool waits no longer have (they are served
    /// what they need, Y1): the tasks waited for may need them, and no
    /// work names this wait as its waiter.
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
