//! Fork-join: run two closures, potentially in parallel, with no allocation.
//!
//! The second closure becomes a `JoinJob` in this stack frame and is pushed
//! on the worker's deque of pending `join` halves, with no barrier (F1 in
//! `proofs/fork.md`); the first runs right away. Then the worker pops the
//! second back and runs it itself, unless it was promoted to the shared deque
//! or taken (F2), in which case the worker looks for it there, or runs only
//! halves forked beneath it, then parks, until its thief sets the latch
//! (H6 in `proofs/waits.md`). The frame is left only after that, so
//! a stolen job never outlives what it borrows (J1 in `proofs/join.md`).
//!
//! On a pool with `Builder::max_pending_joins`, a `join` past the limit,
//! with every worker busy, runs both closures inline instead (F6).

// One file per job: the stack job of a `join`'s second half; a worker's
// pending halves (push, take-back, the limit, promotion, the marks of the
// halves it runs).
pub(crate) mod job;
mod pending;

use super::job::drop_payload;
use super::job::drop_quietly;
use super::job::DropQuietly;
use super::probes;
use super::worker::WorkerThread;
use crate::lockfree::JobRef;
use job::JoinJob;
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

/// `join` on a worker of a pool with a `max_pending_joins` limit (F6):
/// inline when the limit is reached and nobody sleeps or asks, otherwise
/// as on any pool, out of line: a second copy of `join_on_worker` beside
/// the first in `ThreadPool::join` would make every `join` of every pool
/// save more registers.
#[inline(always)]
pub(crate) fn join_on_worker_limited<A, B, RA, RB>(worker: &WorkerThread, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if worker.runs_join_inline() {
        return join_inline(a, b);
    }
    join_published(worker, a, b)
}

/// `join_on_worker`, out of line, for `join_on_worker_limited`.
#[inline(never)]
fn join_published<A, B, RA, RB>(worker: &WorkerThread, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_on_worker(worker, a, b)
}

/// `join` on the current worker thread. Always inlined into
/// `ThreadPool::join` (directly, or through `join_on_worker_limited`), so
/// the whole fast path is one frame whatever the inliner decides about the
/// user's recursion.
#[inline(always)]
pub(crate) fn join_on_worker<A, B, RA, RB>(worker: &WorkerThread, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // No drop glue: every way out of this frame takes what the job's cell
    // holds (its closure run inline or dropped, or its outcome read) (J2).
    let job_b = &JoinJob::new(b, worker.latch_owner());
    // SAFETY: `job_b` stays in this frame until it has run: we return only
    // after popping it back or seeing its latch set (J1).
    let job_b_ref = unsafe { job_b.as_job_ref() };
    let index = worker.push_join(job_b_ref);
    #[cfg(feature = "shuttle")]
    worker.let_a_thief_in();

    // `a`'s value lives in registers; its panic goes to a cold path.
    let result_a = match panic::catch_unwind(AssertUnwindSafe(a)) {
        Ok(value) => value,
        Err(payload) => a_panicked(worker, job_b, payload),
    };

    // If `b` panics (here or on its thief), `a`'s value is dropped quietly:
    // dropped by the unwinding itself, a panicking `Drop` would abort. For
    // a value with no drop glue the guard is no code at all.
    let result_a = DropQuietly::new(result_a);

    // Take `b` back: the common case, inline, without reading its slot
    // (F1). If it is not the newest pending half, it is no longer pending
    // (F2): promoted, taken, or run while this thread helped during `a`.
    // The rest is on a cold path.
    // SAFETY: `index` is where `b` went; nothing pops it while `a` runs
    // (F2), and a panicking `a` never gets here.
    let result_b = match unsafe { worker.take_back_join(index) } {
        // SAFETY: taken back; the job is never dropped nor read again.
        Ok(()) => (unsafe { job_b.take_func() })(),
        Err(first) => finish_b(worker, job_b, first),
    };
    (result_a.into_inner(), result_b)
}

/// A `join` past the pool's limit of pending halves, with every worker
/// busy (F6): `a`, then `b`, on this thread, as a plain call would run
/// them. Nothing is published, so nothing can be stolen. A panic in `a`
/// still runs `b` (J5) before it is re-raised, as `a_panicked` does; one
/// in `b` drops `a`'s value quietly, as on the published path.
#[inline(always)]
fn join_inline<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB,
{
    probes::INLINE_JOINS.hit();
    let result_a = match panic::catch_unwind(AssertUnwindSafe(a)) {
        Ok(value) => value,
        Err(payload) => {
            run_quietly(b);
            panic::resume_unwind(payload)
        }
    };
    let result_a = DropQuietly::new(result_a);
    let result_b = b();
    (result_a.into_inner(), result_b)
}

/// `b` was not the newest pending half (F2): promoted to this thread's
/// shared deque, or taken. Takes it back from there, or waits for the
/// thread that took it (H6). `first` is what the caller popped.
#[cold]
#[inline(never)]
fn finish_b<F, R>(worker: &WorkerThread, job_b: &JoinJob<F, R>, first: Option<JobRef>) -> R
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    if take_back_or_wait(worker, job_b, first) {
        // SAFETY: popped back; the job is never dropped nor read again.
        return (unsafe { job_b.take_func() })();
    }
    // SAFETY: the latch is set.
    unsafe { job_b.take_outcome() }.into_return_value()
}

/// Finds `b` among this thread's own jobs (`first`, popped from the
/// pending halves, then the shared deque, newest first), and returns
/// `true` if it was there: the caller runs it. Otherwise waits for the
/// thread that took it, and returns `false` once its latch is set.
///
/// H6: nothing found on the way is run on top of this frame. Above `b`
/// there can be only tasks `a` spawned, which `join` does not wait for:
/// they go to the injector. A `join` half is an older frame's, below `b`
/// or in `b`'s place: it goes back, and the search ends.
fn take_back_or_wait<F, R>(worker: &WorkerThread, job_b: &JoinJob<F, R>, first: Option<JobRef>) -> bool
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    let job_b_id: *const JoinJob<F, R> = job_b;
    let is_b = |job: &JobRef| job.is(job_b_id.cast());
    if let Some(job) = first {
        if is_b(&job) {
            return true;
        }
        // F2: when `b` is not pending, no older half is either; kept
        // anyway, as a pending half.
        worker.unpop_join(job);
    }
    while !job_b.latch.probe() {
        match worker.pop_local() {
            Some(job) if is_b(&job) => return true,
            Some(job) if job.is_half() => {
                worker.unpop_local(job);
                break;
            }
            Some(job) => worker.reroute(job),
            None => break,
        }
    }
    worker.wait_for_half(&job_b.latch);
    false
}

/// J5: `b` runs whatever `a` did, as rayon-core's `join` promises; its
/// value, or its own panic, is dropped quietly, since `a`'s panic is the
/// one re-raised and a second one during the unwinding would abort.
fn run_quietly<F: FnOnce() -> R, R>(b: F) {
    match panic::catch_unwind(AssertUnwindSafe(b)) {
        Ok(value) => drop_quietly(value),
        Err(payload) => drop_payload(payload),
    }
}

/// `a` panicked: take `b` back and run it (J5), or wait for its thief
/// (dropping what it left), then re-raise `a`'s panic. Dropped during the
/// unwinding instead, a panicking `Drop` in what `b` left would abort.
#[cold]
#[inline(never)]
fn a_panicked<F, R>(worker: &WorkerThread, job_b: &JoinJob<F, R>, payload: Box<dyn Any + Send>) -> !
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    // F2: `b` is the newest pending half, or on the shared deque, or
    // taken.
    let first = worker.pop_join();
    if take_back_or_wait(worker, job_b, first) {
        // SAFETY: popped back, so no thief runs it.
        run_quietly(unsafe { job_b.take_func() });
    } else {
        // SAFETY: the latch is set.
        drop_quietly(unsafe { job_b.take_outcome() });
    }
    panic::resume_unwind(payload)
}
