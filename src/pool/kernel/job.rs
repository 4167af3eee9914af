//! The pool's jobs: the kinds of job behind a [`JobRef`] (the one-word
//! reference the queues carry, `lockfree/job.rs`):
//!
//! * [`StackJob`]: lives in the stack frame of a thread that waits on its
//!   latch (`install` from outside the pool or from another pool); the frame
//!   outlives the job's execution (proof J1 in `proofs/join.md`). `join`'s
//!   second half is the leaner `JoinJob` (`join_job.rs`).
//! * [`HeapJob`]: a boxed closure that frees itself when run (`spawn`,
//!   `Scope::spawn`).
//! * `SubmitJob` (in `handle.rs`): a closure and its result slot in one
//!   `Arc` shared with the `JoinHandle` (`submit`).

use super::latch::Latch;
pub(crate) use crate::lockfree::{JobHeader, JobRef};
use crate::sync::UnsafeCell;
use std::any::Any;
use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;

/// The outcome of a job run on another thread.
pub(crate) enum JobResult<R> {
    None,
    Ok(R),
    Panic(Box<dyn Any + Send>),
}

impl<R> JobResult<R> {
    /// The value, re-raising a caught panic in the caller.
    pub(crate) fn into_return_value(self) -> R {
        match self {
            JobResult::Ok(value) => value,
            JobResult::Panic(payload) => panic::resume_unwind(payload),
            JobResult::None => unreachable!("a job's result was read before it ran"),
        }
    }
}

/// What a `StackJob` holds: its closure until it runs, then its outcome.
/// One enum, so the closure and the result share their bytes.
enum JobState<F, R> {
    Pending(F),
    Ok(R),
    Panic(Box<dyn Any + Send>),
    /// Taken: run inline, dropped unrun, or its outcome read.
    Empty,
}

/// A job in the stack frame of the thread that waits for it.
#[repr(C)]
pub(crate) struct StackJob<L: Latch, F, R> {
    header: JobHeader,
    pub(crate) latch: L,
    state: UnsafeCell<JobState<F, R>>,
}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> StackJob<L, F, R> {
    pub(crate) fn new(func: F, latch: L) -> Self {
        StackJob {
            header: JobHeader::new(Self::execute),
            latch,
            state: UnsafeCell::new(JobState::Pending(func)),
        }
    }

    /// A reference to push on a deque.
    ///
    /// # Safety
    ///
    /// `self` stays where it is until the job has run (its latch is set).
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // From the whole job, not just its header: `execute` reaches the other
        // fields through this pointer.
        // SAFETY: the header is this `#[repr(C)]` job's first field, and the
        // caller keeps the job in place until it has run.
        unsafe { JobRef::new(NonNull::from(self).cast()) }
    }

    unsafe fn execute(header: NonNull<JobHeader>) {
        // SAFETY: `header` is the first field of a live `StackJob` (repr(C)).
        let this = unsafe { header.cast::<Self>().as_ref() };
        // SAFETY: the job runs once, so nothing else touches the state (J2).
        let func = unsafe { this.take_func() }.expect("a stack job ran twice");
        let state = match panic::catch_unwind(AssertUnwindSafe(|| func(true))) {
            Ok(value) => JobState::Ok(value),
            Err(payload) => JobState::Panic(payload),
        };
        // SAFETY: the waiter reads the state only after the latch is set
        // (J2); the slot is `Empty`, so nothing is dropped here.
        this.state
            .with_mut(|slot| unsafe { std::ptr::write(slot, state) });
        // SAFETY: after this call the waiter may return and free `this`;
        // nothing of `this` is touched afterwards (J1).
        unsafe { Latch::set(&this.latch) };
    }

    /// Takes the closure out without running it (`None` if it ran).
    ///
    /// # Safety
    ///
    /// The job is not running and will not run elsewhere: it was popped
    /// back, or its latch is set.
    pub(crate) unsafe fn take_func(&self) -> Option<F> {
        // SAFETY: as above; the closure is read out in place and its slot
        // marked `Empty` without dropping anything.
        self.state.with_mut(|state| unsafe {
            match &*state {
                JobState::Pending(func) => {
                    let func = std::ptr::read(func);
                    std::ptr::write(state, JobState::Empty);
                    Some(func)
                }
                _ => None,
            }
        })
    }

    /// Takes the result out, leaving `Empty`.
    ///
    /// # Safety
    ///
    /// The latch is set (J2).
    pub(crate) unsafe fn take_job_result(&self) -> JobResult<R> {
        // SAFETY: as above; read out in place.
        self.state.with_mut(|state| unsafe {
            let result = match &*state {
                JobState::Ok(value) => JobResult::Ok(std::ptr::read(value)),
                JobState::Panic(payload) => JobResult::Panic(std::ptr::read(payload)),
                JobState::Pending(_) | JobState::Empty => return JobResult::None,
            };
            std::ptr::write(state, JobState::Empty);
            result
        })
    }

    /// The result, once the latch is set; re-raises a panic of the job.
    pub(crate) fn into_result(self) -> R {
        // SAFETY: the latch is set, so `execute` wrote the result and will
        // not touch the job again (J2).
        unsafe { self.take_job_result() }.into_return_value()
    }
}

/// A boxed job that frees itself when it runs.
#[repr(C)]
pub(crate) struct HeapJob<F> {
    header: JobHeader,
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// Boxes `func` as a job: the one allocation of a `spawn`.
    pub(crate) fn into_job_ref(func: F) -> JobRef {
        let job = Box::new(HeapJob {
            header: JobHeader::new(Self::execute),
            func,
        });
        // SAFETY: `Box::into_raw` is never null; the header is this
        // `#[repr(C)]` job's first field, and `execute` frees the box once.
        unsafe { JobRef::new(NonNull::new_unchecked(Box::into_raw(job).cast())) }
    }

    unsafe fn execute(header: NonNull<JobHeader>) {
        // SAFETY: `header` came from `into_job_ref` and runs once.
        let job = unsafe { Box::from_raw(header.cast::<Self>().as_ptr()) };
        (job.func)();
    }
}

/// Drops a panic payload whose own `Drop` may panic, without unwinding: a
/// panic escaping a job could leave a `join` or `scope` frame while another
/// thread still uses it (J1).
///
/// The `Drop` that panicked leaves a new payload, usually a plain string; it
/// is dropped the same way, and so on, up to `NESTED_DROPS` payloads deep.
/// A payload still left after that (a chain of `Drop`s that all panic) is
/// leaked rather than dropped: leaking is safe, unwinding here is not.
pub(crate) fn drop_payload(payload: Box<dyn Any + Send>) {
    const NESTED_DROPS: usize = 4;
    let mut payload = payload;
    for _ in 0..NESTED_DROPS {
        match panic::catch_unwind(AssertUnwindSafe(|| drop(payload))) {
            Ok(()) => return,
            Err(nested) => payload = nested,
        }
    }
    std::mem::forget(payload);
}

/// Drops `value`, whose `Drop` may panic, without unwinding: for what is
/// left over while a panic is on its way out, where a second panic would
/// abort the process.
pub(crate) fn drop_quietly<T>(value: T) {
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| drop(value))) {
        drop_payload(payload);
    }
}

/// Holds a value that a panic unwinding past it drops with
/// [`drop_quietly`] rather than the unwinding's own drop, which would abort
/// the process if the value's `Drop` panicked too. The normal way out is
/// [`into_inner`](Self::into_inner). Where `T` has no drop glue, neither has
/// this.
pub(crate) struct DropQuietly<T>(ManuallyDrop<T>);

impl<T> DropQuietly<T> {
    #[inline(always)]
    pub(crate) fn new(value: T) -> Self {
        DropQuietly(ManuallyDrop::new(value))
    }

    #[inline(always)]
    pub(crate) fn into_inner(self) -> T {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped, so the value is taken once.
        unsafe { ManuallyDrop::take(&mut this.0) }
    }
}

impl<T> Drop for DropQuietly<T> {
    fn drop(&mut self) {
        if std::mem::needs_drop::<T>() {
            // SAFETY: dropped once; `into_inner` skips this.
            drop_quietly(unsafe { ManuallyDrop::take(&mut self.0) });
        }
    }
}

/// Aborts the process if a panic unwinds past it. Jobs catch their panics;
/// this is the last line of defence for J1 should one escape anyway.
pub(crate) struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        if std::thread::panicking() {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "stealpool: a panic escaped a job; aborting");
            std::process::abort();
        }
    }
}
