//! Scoped tasks that borrow from the stack of the scope's caller.

use super::broadcast::BroadcastContext;
use super::job::drop_payload;
use super::job::drop_quietly;
use super::latch::{Latch, WorkerLatch};
use super::ordering::{RELAXED, SCOPE_DONE};
use super::registry::Registry;
use super::worker::WorkerThread;
use crate::lockfree::JobHeader;
use crate::lockfree::JobRef;
use crate::sync::{Arc, AtomicUsize, Mutex};
use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;

/// A scope in which tasks may borrow anything that outlives it, created by
/// [`ThreadPool::scope`](crate::ThreadPool::scope).
///
/// The scope returns only once every task spawned in it (and every task
/// those spawned) has finished. A panic in any of them is re-raised by
/// `scope` after all have finished.
///
/// ```
/// let pool = stealpool::ThreadPool::new(2);
/// let mut halves = [0u64; 2];
/// let (left, right) = halves.split_at_mut(1);
/// pool.scope(|s| {
///     s.spawn(|_| left[0] = (0..500u64).sum());
///     s.spawn(|_| right[0] = (500..1000u64).sum());
/// });
/// assert_eq!(halves[0] + halves[1], (0..1000u64).sum::<u64>());
/// ```
pub struct Scope<'s> {
    registry: &'s Registry,
    /// Unfinished tasks, plus one for the scope's own body (C1).
    pending: AtomicUsize,
    /// Set when `pending` reaches zero; the scope's worker waits on it.
    done: WorkerLatch<'s>,
    /// The first panic of the body or a task.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Invariant in `'s`, like `std::thread::Scope`: a spawned closure must
    /// outlive exactly this scope.
    _invariant: PhantomData<&'s mut &'s ()>,
}

impl<'s> Scope<'s> {
    /// Spawns a task that may borrow from outside the scope. It receives the
    /// scope again, to spawn more.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let counter = std::sync::atomic::AtomicUsize::new(0);
    /// pool.scope(|s| {
    ///     for _ in 0..4 {
    ///         s.spawn(|s| {
    ///             counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ///             s.spawn(|_| {
    ///                 counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ///             });
    ///         });
    ///     }
    /// });
    /// assert_eq!(counter.into_inner(), 8);
    /// ```
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce(&Scope<'s>) + Send + 's,
    {
        // C1: relaxed increment; this task is counted before the job that
        // ends it exists, and our caller (body or a task of the scope)
        // holds a count until it ends, so `pending` cannot reach 0 meanwhile.
        self.pending.fetch_add(1, RELAXED);
        self.registry.count_task();
        self.registry.push(ScopeJob::into_job_ref(self, f));
    }

    /// Spawns a task on every worker of the pool at once: `body` runs once
    /// on each, with a [`BroadcastContext`] that tells which. Like
    /// [`spawn`](Scope::spawn), the scope waits for all of them.
    ///
    /// A worker runs its part when it next looks for work, or while it
    /// waits in a `join` or `scope` of its own; a worker blocked outside
    /// the pool's waits (in [`block_in_place`](crate::block_in_place), a
    /// [`JoinHandle::join`](crate::JoinHandle::join), a lock) runs it when
    /// it returns.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    ///
    /// let pool = stealpool::ThreadPool::new(3);
    /// let ran = AtomicUsize::new(0);
    /// pool.scope(|s| {
    ///     s.spawn_broadcast(|_, context| {
    ///         assert_eq!(Some(context.index()), stealpool::current_thread_index());
    ///         ran.fetch_add(1, Relaxed);
    ///     });
    /// });
    /// assert_eq!(ran.into_inner(), 3);
    /// ```
    pub fn spawn_broadcast<F>(&self, body: F)
    where
        F: Fn(&Scope<'s>, BroadcastContext<'_>) + Send + Sync + 's,
    {
        let body = Arc::new(body);
        let workers = self.registry.num_workers();
        for index in 0..workers {
            let body = Arc::clone(&body);
            self.post(index, move |scope| {
                body(scope, BroadcastContext::new(index, workers))
            });
        }
    }

    /// U3: a task of this scope for worker `slot` alone: counted as
    /// `spawn` counts it (C1), then posted to that worker's mailbox. If the
    /// worker already left (the pool shuts down), the caller, a task or the
    /// body of this scope on a thread of the pool, runs it now.
    pub(crate) fn post<F>(&self, slot: usize, f: F)
    where
        F: FnOnce(&Scope<'s>) + Send + 's,
    {
        // C1: relaxed increment, as in `spawn`.
        self.pending.fetch_add(1, RELAXED);
        self.registry.count_task();
        if let Some(job) = self.registry.post(slot, ScopeJob::into_job_ref(self, f)) {
            // U3: only a worker leaves, only at shutdown, and only once no
            // job is left; this caller runs on a thread of the pool.
            // SAFETY: tasks and scope bodies run on a thread of the pool.
            let worker = unsafe { &*WorkerThread::current() };
            worker.execute(job);
        }
    }

    /// Ends the body or a task of the scope at `this`: keeps its panic, if
    /// any, and counts it finished; the last one releases the scope's owner.
    ///
    /// # Safety
    ///
    /// `this` is live on entry and the caller holds one of its `pending`
    /// counts. The owner may free the scope as soon as the count is gone, so
    /// the caller holds no reference into the scope, nor anything the
    /// scope's tasks borrow, in any live frame (C2): it passes a raw pointer.
    unsafe fn finish(this: *const Self, panic: Option<Box<dyn Any + Send>>) {
        if let Some(payload) = panic {
            // SAFETY: live until our count is released below.
            let mut first = unsafe { &(*this).panic }
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            match *first {
                None => *first = Some(payload),
                // Only the first panic is re-raised; the others are dropped
                // without unwinding, so the count below always runs.
                Some(_) => drop_payload(payload),
            }
        }
        // C1: AcqRel. Release: this task's writes happen before the scope
        // returns; acquire (on the last decrement): the others' too.
        // SAFETY: live until this decrement is done; nothing of the scope is
        // read after it unless it was the last count, and then only `done`,
        // which the owner does not free before it sees it set (C2).
        if unsafe { &(*this).pending }.fetch_sub(1, SCOPE_DONE) == 1 {
            // SAFETY: see above.
            unsafe { Latch::set(&raw const (*this).done) };
        }
    }
}

/// A task of a scope: its closure and the scope, in the one allocation of
/// [`Scope::spawn`].
#[repr(C)]
struct ScopeJob<'s, F> {
    header: JobHeader,
    scope: *const Scope<'s>,
    func: F,
}

impl<'s, F: FnOnce(&Scope<'s>) + Send + 's> ScopeJob<'s, F> {
    fn into_job_ref(scope: &Scope<'s>, func: F) -> JobRef {
        let job = Box::new(ScopeJob {
            header: JobHeader::new(Self::execute),
            scope,
            func,
        });
        // SAFETY: the header is the first field of this `#[repr(C)]` job, and
        // `execute` takes back exactly this box, once.
        unsafe { JobRef::new(NonNull::new_unchecked(Box::into_raw(job)).cast()) }.into_scope_task()
    }

    /// Runs the task. Everything that holds the closure (or the borrows it
    /// captured) is a frame of `catch_unwind`'s call, which has returned
    /// before `finish` releases the scope; from then on this frame holds
    /// only the raw pointer (C2).
    unsafe fn execute(header: NonNull<JobHeader>) {
        // SAFETY: `header` came from `into_job_ref` and runs once.
        let job = unsafe { Box::from_raw(header.cast::<Self>().as_ptr()) };
        let ScopeJob { scope, func, .. } = *job;
        // SAFETY: tasks only run on workers, whose thread-local is set.
        let worker = unsafe { &*WorkerThread::current() };
        worker.begin_task();
        // SAFETY: the scope waits for this task (C2), so it is live for the
        // whole call.
        let outcome = panic::catch_unwind(AssertUnwindSafe(move || func(unsafe { &*scope })));
        let panic = outcome.err();
        if panic.is_some() {
            worker.record_panic();
        }
        // SAFETY: we hold the count `spawn` took for this task, and no frame
        // of ours holds a reference into the scope or its borrows any more.
        unsafe { Scope::finish(scope, panic) };
        worker.end_task();
    }
}

/// The fields every `ScopeJob` starts with, whatever its closure: what
/// `scope_of` reads.
#[repr(C)]
struct ScopeJobStart {
    header: JobHeader,
    scope: *const (),
}

/// H7: the scope a scope task's job belongs to, as an address.
///
/// # Safety
///
/// `job` is a scope task's (`is_scope_task`), and live: it has not run.
pub(crate) unsafe fn scope_of(job: &JobRef) -> *const () {
    // SAFETY: a scope task's job is a `#[repr(C)]` `ScopeJob`, whose first
    // two fields are those of `ScopeJobStart`; the caller keeps it live.
    unsafe { job.job_ptr().cast::<ScopeJobStart>().as_ref().scope }
}

/// Runs `op` as a scope on the current worker.
pub(crate) fn scope_on_worker<'s, R>(worker: &'s WorkerThread, op: impl FnOnce(&Scope<'s>) -> R) -> R {
    let scope = Scope {
        registry: worker.registry(),
        pending: AtomicUsize::new(1),
        done: WorkerLatch::new(worker.registry(), worker.index()),
        panic: Mutex::new(None),
        _invariant: PhantomData,
    };
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| op(&scope)));
    // The body is not a task: its panic goes back to the caller, and is
    // no more counted in `Stats::panicked` than `join`'s or `install`'s.
    let (result, panic) = match outcome {
        Ok(result) => (Some(result), None),
        Err(payload) => (None, Some(payload)),
    };
    // SAFETY: the body's count, released once; `scope` is this frame's own.
    unsafe { Scope::finish(&raw const scope, panic) };
    // C2: the frame (and so `scope`) stays until every task has finished;
    // meanwhile this thread runs only the scope's own tasks (H7).
    worker.wait_for_scope(&scope.done.core, (&raw const scope).cast());
    let panic = scope.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(payload) = panic {
        // The body's value, if it returned one, goes quietly: dropped
        // during the unwinding, a panicking `Drop` would abort.
        drop_quietly(result);
        panic::resume_unwind(payload);
    }
    result.expect("the scope body finished without panicking")
}

impl fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope")
            // C1: relaxed; a snapshot for display, ordering nothing.
            .field("pending", &self.pending.load(RELAXED))
            .finish_non_exhaustive()
    }
}
