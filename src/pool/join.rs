//! Fork-join: run two closures, potentially in parallel, with no allocation.
//!
//! The second closure becomes a `StackJob` in this stack frame and is pushed
//! on the worker's deque; the first runs right away. Then the worker pops
//! the second back and runs it itself, unless a thief took it, in which case
//! the worker runs other jobs until the thief sets the latch. The frame is
//! left only after that, so a stolen job never outlives what it borrows
//! (J1 in `proofs/join.md`).

use super::job::{drop_quietly, JobResult, StackJob};
use super::latch::WorkerLatch;
use super::worker::WorkerThread;
use std::any::Any;
use std::panic;

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

    let result_a = JobResult::call(a);

    // Take `b` back, or wait for its thief.
    while !job_b.latch.probe() {
        match worker.pop_local() {
            Some(job) if job.is(job_b_id.cast()) => {
                // Not stolen: run it here, unless `a` panicked, in which case
                // `b` is dropped unrun and `a`'s panic propagates.
                if let JobResult::Panic(payload) = result_a {
                    drop_then_resume(job_b, payload);
                }
                let result_b = job_b.run_inline();
                return (result_a.into_return_value(), result_b);
            }
            // Jobs pushed above `b` (tasks `a` spawned): run them meanwhile.
            Some(job) => worker.execute(job),
            None => {
                // Stolen: help with other work until the thief is done.
                worker.wait_until(&job_b.latch.core);
                break;
            }
        }
    }
    // `b` ran elsewhere. `a`'s panic goes first, and whatever `b` left (its
    // value or its panic) is dropped before that panic unwinds.
    if let JobResult::Panic(payload) = result_a {
        drop_then_resume(job_b.into_job_result(), payload);
    }
    (result_a.into_return_value(), job_b.into_result())
}

/// Drops what is left of `b` without unwinding, then re-raises `a`'s panic.
/// Dropped during the unwinding instead, a panicking `Drop` in it (a second
/// panic payload's, say) would abort the process.
#[cold]
#[inline(never)]
fn drop_then_resume<T>(leftover: T, payload: Box<dyn Any + Send>) -> ! {
    drop_quietly(leftover);
    panic::resume_unwind(payload)
}
