//! Waits across pools: `install` and `wait_all` called on a worker of
//! another pool, or on a thread outside every pool (H4, Y1 in
//! `proofs/waits.md`). A worker of another pool parks with a spare of its
//! own pool standing in if one may start, running only what is posted to
//! it alone (U2, Y1) for `install`, or blocks for `wait_all`; `wait_all`
//! with no spare to be had runs its own pool's jobs while it waits, since
//! the tasks it waits for may need them.

use super::handle::claim::{Claim, DETACHED, WITHDRAWN};
use super::thread_pool::ThreadPool;
use crate::pool::kernel::job::{HeapJob, StackJob};
use crate::pool::kernel::latch::{CrossPoolLatch, LockLatch};
use crate::pool::kernel::serving::{self, Awaited, SendAwaited, Waiting};
use crate::pool::kernel::spares::Blocked;
use crate::pool::kernel::stall::{self, WaitKind};
use crate::pool::kernel::worker::WorkerThread;
use crate::sync::flags::bug;
use crate::sync::thread;
use crate::sync::Arc;
use std::panic::Location;

impl ThreadPool {
    /// `install` on a worker of another pool (H4): it parks, serving its
    /// mailbox (U2), with a spare of its own pool standing in if one may
    /// start (W1). The job is posted to a worker of this pool that waits
    /// for work the calling thread runs, if there is one (Y1): pools that
    /// call back into each other then need no spare at all. Whatever the
    /// job calls back into the caller's pool is posted to the caller.
    /// The stall detector records the wait (Z6); in a stall, with the job
    /// not started, the call withdraws it and panics with the report.
    #[cold]
    #[inline(never)]
    #[track_caller]
    pub(super) fn install_from_other_pool<R: Send>(
        &self,
        worker: &WorkerThread,
        f: impl FnOnce() -> R + Send,
    ) -> R {
        let called_at = Location::caller();
        let blocked = Blocked::enter(worker);
        // Y4: with no spare standing in, this thread is lent to the tasks
        // this pool's threads need of its own.
        let lent = (!blocked.stood_in).then(|| serving::lend(worker, &self.registry));
        let waiting = Waiting::here(worker, true);
        let awaited = Awaited::By(&raw const waiting);
        // SAFETY (Y2): the job runs while this frame waits for it, so the
        // `Waiting` it names outlives the run.
        let awaited = unsafe { SendAwaited::new(awaited) };
        let job = StackJob::new(
            move |_migrated| serving::running(awaited.into_inner(), f),
            CrossPoolLatch::new(worker.registry_arc(), worker.index()),
        );
        // Z6: the job goes out as a ticket with a claim (H3's): the worker
        // of this pool that takes the claim runs the job (and is its
        // runner, for the stall detector); this wait, finding itself in a
        // stall with the job not started, takes it instead, and leaves.
        let claim = Arc::new(Claim::for_new_task(&self.registry));
        // SAFETY: the job runs only through the ticket, and only if its
        // claim is won by a runner; this frame then waits on the latch
        // before `job` leaves it (a wait that won the claim instead leaves
        // with the job never run).
        let job_ref = unsafe { job.as_job_ref() };
        let ticket = {
            let claim = Arc::clone(&claim);
            HeapJob::into_job_ref(move || {
                // SAFETY: the thread-local pointer is null or this
                // thread's worker (one of this pool's).
                let runner =
                    unsafe { WorkerThread::current().as_ref() }.map_or(DETACHED, WorkerThread::runner_id);
                if claim.take(runner) {
                    // SAFETY: claimed here, so run once, while the waiter
                    // waits for the latch (it can no longer withdraw).
                    unsafe { job_ref.execute() }
                }
            })
        };
        // Y6 does not apply: an install's job is no task with a number;
        // it is posted to the nearest waiter, as Y1 first had it.
        if let Err(ticket) = serving::post_to_waiter(&self.registry, ticket, |_| true) {
            self.registry.push(ticket);
        }
        // `--cfg stealpool_bug="install_unwatched"` leaves the wait
        // unrecorded (before Z6): its thread counts as running, so a stall
        // it closes goes unreported.
        if bug!("install_unwatched") {
            worker.wait_serving_mail(&job.latch.core);
        } else {
            let watched = self.install_awaited(&claim, lent.is_some().then(|| worker.frames()), called_at);
            if let Err(stall) = worker.wait_serving_mail_watched(&job.latch, watched) {
                // Z6: reported only with the job unclaimed; claimed here, it
                // never runs, and the frame may go.
                if claim.take(WITHDRAWN) {
                    panic!("{stall}");
                }
                // Claimed by a runner after all: the job runs; wait for it.
                worker.wait_serving_mail(&job.latch.core);
            }
        }
        drop(lent);
        drop(blocked);
        job.into_result()
    }

    /// Z6: an `install`'s job as the stall detector reads it: a job of
    /// this pool whose runner `claim` records, waited for by a worker
    /// lending itself to this pool (with the numbers of the tasks on its
    /// stack, Y5) or not, called at `called_at`.
    fn install_awaited(
        &self,
        claim: &Claim,
        lender_frames: Option<Vec<u64>>,
        called_at: &'static Location<'static>,
    ) -> stall::Awaited {
        stall::Awaited {
            pool: &raw const *self.registry,
            claim: (&raw const *claim).cast(),
            runner_of: Claim::runner_of,
            lineage: claim.lineage(),
            pending: None,
            lent_to: if lender_frames.is_some() {
                &raw const *self.registry
            } else {
                std::ptr::null()
            },
            lender_frames: lender_frames.unwrap_or_default(),
            origin: called_at,
            joined_at: called_at,
            kind: WaitKind::Install,
        }
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
