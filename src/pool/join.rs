//! Fork-join: run two closures, potentially in parallel, with no allocation.
//!
//! The second closure becomes a `StackJob` in this stack frame and is pushed
//! on the worker's deque; the first runs right away. Then the worker pops
//! the second back and runs it itself, unless a thief took it, in which case
//! the worker runs other jobs until the thief sets the latch. The frame is
//! left only after that, so a stolen job never outlives what it borrows
//! (J1 in `proofs/join.md`).

use super::job::{drop_quietly, JobRef, StackJob};
use super::latch::WorkerLatch;
use super::worker::WorkerThread;
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

/// `join` on the current worker thread.
pub(crate) fn join_on_worker<A, B, RA, RB>(worker: &WorkerThread, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job_b = StackJob::new(
        |_migrated| b(),
        WorkerLatch::new(worker.registry(), worker.index()),
    );
    // SAFETY: `job_b` stays in this frame until it has run: we return only
    // after popping it back or seeing its latch set (J1).
    let job_b_ref = unsafe { job_b.as_job_ref() };
    let job_b_id = &raw const job_b;
    worker.push(job_b_ref);

    // `a`'s value lives in registers; its panic goes to a cold path.
    let result_a = match panic::catch_unwind(AssertUnwindSafe(a)) {
        Ok(value) => value,
        Err(payload) => a_panicked(worker, &job_b, payload),
    };

    // Take `b` back: the common case, inline. Anything else (a thief took
    // it, or tasks `a` spawned sit above it) goes to a cold path.
    let first = if job_b.latch.probe() {
        None
    } else {
        worker.pop_local()
    };
    let result_b = match first {
        // SAFETY: popped back.
        Some(job) if job.is(job_b_id.cast()) => unsafe { job_b.run_inline_in_place() },
        first => finish_b(worker, &job_b, first),
    };
    (result_a, result_b)
}

/// `b` was not on top of the deque: run what is above it, then run `b`
/// if it is still there, or wait for its thief (work-while-waiting).
/// `first` is what the caller popped (`None`: nothing, or the latch was set).
#[cold]
#[inline(never)]
fn finish_b<F, R>(worker: &WorkerThread, job_b: &StackJob<WorkerLatch<'_>, F, R>, first: Option<JobRef>) -> R
where
    F: FnOnce(bool) -> R + Send,
    R: Send,
{
    let job_b_id: *const StackJob<WorkerLatch<'_>, F, R> = job_b;
    let mut next = first;
    loop {
        match next {
            // SAFETY: popped back.
            Some(job) if job.is(job_b_id.cast()) => return unsafe { job_b.run_inline_in_place() },
            // Jobs pushed above `b` (tasks `a` spawned): run them meanwhile.
            Some(job) => worker.execute(job),
            None => {
                // Stolen: help with other work until the thief is done.
                worker.wait_until(&job_b.latch.core);
                break;
            }
        }
        if job_b.latch.probe() {
            break;
        }
        next = worker.pop_local();
    }
    // SAFETY: the latch is set.
    unsafe { job_b.take_job_result() }.into_return_value()
}

/// `a` panicked: take `b` back (dropping it unrun) or wait for its thief
/// (dropping what it left), then re-raise `a`'s panic. Dropped during the
/// unwinding instead, a panicking `Drop` in what `b` left would abort.
#[cold]
#[inline(never)]
fn a_panicked<F, R>(
    worker: &WorkerThread,
    job_b: &StackJob<WorkerLatch<'_>, F, R>,
    payload: Box<dyn Any + Send>,
) -> !
where
    F: FnOnce(bool) -> R + Send,
    R: Send,
{
    let job_b_id: *const StackJob<WorkerLatch<'_>, F, R> = job_b;
    while !job_b.latch.probe() {
        match worker.pop_local() {
            Some(job) if job.is(job_b_id.cast()) => {
                // SAFETY: popped back, so no thief runs it.
                drop_quietly(unsafe { job_b.take_func() });
                panic::resume_unwind(payload);
            }
            Some(job) => worker.execute(job),
            None => {
                worker.wait_until(&job_b.latch.core);
                break;
            }
        }
    }
    // SAFETY: the latch is set.
    drop_quietly(unsafe { job_b.take_job_result() });
    panic::resume_unwind(payload)
}
