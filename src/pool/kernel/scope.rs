//! Scoped tasks that borrow from the stack of the scope's caller.

use super::broadcast::BroadcastContext;
use super::fifo::FifoQueues;
use super::job::drop_payload;
use super::job::drop_quietly;
use super::latch::{Latch, LockLatch, WorkerLatch};
use super::ordering::{RELAXED, SCOPE_DONE};
use super::registry::Registry;
use super::spares::Blocked;
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
    /// Set when `pending` reaches zero; the scope's owner waits on it.
    done: Done<'s>,
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
            // SAFETY: see above; the reference to `done` is not used after
            // the set, which may free it.
            match unsafe { &(*this).done } {
                Done::Worker(latch) => unsafe { Latch::set(latch as *const WorkerLatch<'s>) },
                Done::Outside(latch) => unsafe { Latch::set(latch as *const LockLatch) },
            }
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

/// What a scope's owner waits on until its tasks have finished.
enum Done<'s> {
    /// The owner is a worker of the scope's pool: it runs the scope's own
    /// tasks meanwhile, then parks on the latch (H7).
    Worker(WorkerLatch<'s>),
    /// The owner is no worker of the pool (`in_place_scope` elsewhere): it
    /// blocks on the latch, with a spare standing in if it is a worker of
    /// another pool (E4).
    Outside(LockLatch),
}

/// A fresh scope of `registry`, its body's count taken (C1), for the
/// current thread to own: its worker `worker`, or no worker of the pool.
fn new_scope<'s>(registry: &'s Registry, worker: Option<&'s WorkerThread>) -> Scope<'s> {
    Scope {
        registry,
        pending: AtomicUsize::new(1),
        done: match worker {
            Some(worker) => Done::Worker(WorkerLatch::new(registry, worker.index())),
            None => Done::Outside(LockLatch::new()),
        },
        panic: Mutex::new(None),
        _invariant: PhantomData,
    }
}

/// Runs `op` as a scope on the current worker.
pub(crate) fn scope_on_worker<'s, R>(worker: &'s WorkerThread, op: impl FnOnce(&Scope<'s>) -> R) -> R {
    let scope = new_scope(worker.registry(), Some(worker));
    run_body(&scope, &scope, op)
}

/// Runs `op` as a FIFO scope on the current worker.
pub(crate) fn scope_fifo_on_worker<'s, R>(
    worker: &'s WorkerThread,
    op: impl FnOnce(&ScopeFifo<'s>) -> R,
) -> R {
    let scope = ScopeFifo {
        base: new_scope(worker.registry(), Some(worker)),
        fifos: FifoQueues::new(worker.registry().stealers.len()),
    };
    run_body(&scope, &scope.base, op)
}

/// E4: runs `op` right here, on a thread that is no worker of `registry`'s
/// pool, as a scope of that pool; its tasks go on the pool's injector, and
/// this thread blocks until they have finished.
pub(crate) fn scope_in_place<'s, R>(registry: &'s Registry, op: impl FnOnce(&Scope<'s>) -> R) -> R {
    let scope = new_scope(registry, None);
    run_body(&scope, &scope, op)
}

/// E4: [`scope_in_place`] for a FIFO scope: its tasks go on the pool's
/// injector, which starts each submitter's jobs oldest first.
pub(crate) fn scope_fifo_in_place<'s, R>(registry: &'s Registry, op: impl FnOnce(&ScopeFifo<'s>) -> R) -> R {
    let scope = ScopeFifo {
        base: new_scope(registry, None),
        fifos: FifoQueues::new(registry.stealers.len()),
    };
    run_body(&scope, &scope.base, op)
}

/// Runs the body `op` of the scope `base` (which `outer` is, or holds),
/// then waits for the scope's tasks; re-raises the first panic.
fn run_body<'s, S, R>(outer: &S, base: &Scope<'s>, op: impl FnOnce(&S) -> R) -> R {
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| op(outer)));
    // The body is not a task: its panic goes back to the caller, and is
    // no more counted in `Stats::panicked` than `join`'s or `install`'s.
    let (result, panic) = match outcome {
        Ok(result) => (Some(result), None),
        Err(payload) => (None, Some(payload)),
    };
    // SAFETY: the body's count, released once; `base` is the caller's
    // frame's own, which outlives this call.
    unsafe { Scope::finish(base, panic) };
    // C2: the frame (and so the scope) stays until every task has
    // finished; meanwhile this thread runs only the scope's own tasks (H7),
    // its FIFO tasks' markers included (E1).
    match &base.done {
        Done::Worker(latch) => {
            // SAFETY: a worker's scope is owned by that worker, on this
            // thread, whose thread-local is set.
            let worker = unsafe { &*WorkerThread::current() };
            worker.wait_for_scope(&latch.core, (base as *const Scope<'s>).cast());
        }
        Done::Outside(latch) => {
            // E4: a worker of another pool blocks with a spare of its own
            // pool standing in (W1), so that pool keeps its strength.
            // SAFETY: the thread-local pointer is null or this thread's
            // worker.
            let blocked = unsafe { WorkerThread::current().as_ref() }.map(Blocked::enter);
            latch.wait();
            drop(blocked);
        }
    }
    let panic = base.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(payload) = panic {
        // The body's value, if it returned one, goes quietly: dropped
        // during the unwinding, a panicking `Drop` would abort.
        drop_quietly(result);
        panic::resume_unwind(payload);
    }
    result.expect("the scope body finished without panicking")
}

/// A scope whose tasks start in FIFO order, created by
/// [`ThreadPool::scope_fifo`](crate::ThreadPool::scope_fifo): rayon's
/// `ScopeFifo`.
///
/// As [`Scope`], except that [`spawn_fifo`](ScopeFifo::spawn_fifo) queues
/// tasks so that the tasks one thread spawns start oldest first among
/// themselves, where `Scope::spawn`'s start newest first.
///
/// ```
/// use std::sync::Mutex;
///
/// let pool = stealpool::ThreadPool::new(1);
/// let order = Mutex::new(Vec::new());
/// pool.scope_fifo(|s| {
///     for i in 0..4 {
///         let order = &order;
///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
///     }
/// });
/// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
/// ```
pub struct ScopeFifo<'s> {
    base: Scope<'s>,
    /// E1: per slot, this scope's FIFO tasks, each behind a marker.
    fifos: FifoQueues,
}

/// A `*const ScopeFifo` that a task of the scope carries to the thread
/// running it (C2 keeps the scope alive while it runs).
struct FifoScopePtr<'s>(*const ScopeFifo<'s>);

// SAFETY: `ScopeFifo` is `Sync` (its fields are); the pointer is only
// dereferenced while the scope is live (C2).
unsafe impl Send for FifoScopePtr<'_> {}

impl<'s> FifoScopePtr<'s> {
    /// The scope.
    ///
    /// # Safety
    ///
    /// Called by a task of the scope, which the scope waits for (C2).
    unsafe fn get(&self) -> &ScopeFifo<'s> {
        // SAFETY: see above.
        unsafe { &*self.0 }
    }
}

impl<'s> ScopeFifo<'s> {
    /// Spawns a task that may borrow from outside the scope. On a worker
    /// of the scope's pool, the tasks this thread spawns start in the
    /// order spawned (E1); spawned from any other thread, it goes on the
    /// pool's injector, as [`Scope::spawn`] would.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let count = AtomicUsize::new(0);
    /// pool.scope_fifo(|s| {
    ///     for _ in 0..3 {
    ///         s.spawn_fifo(|s| {
    ///             count.fetch_add(1, Ordering::Relaxed);
    ///             s.spawn_fifo(|_| {
    ///                 count.fetch_add(1, Ordering::Relaxed);
    ///             });
    ///         });
    ///     }
    /// });
    /// assert_eq!(count.into_inner(), 6);
    /// ```
    pub fn spawn_fifo<F>(&self, f: F)
    where
        F: FnOnce(&ScopeFifo<'s>) + Send + 's,
    {
        let base = &self.base;
        // C1: relaxed increment, as in `Scope::spawn`.
        base.pending.fetch_add(1, RELAXED);
        base.registry.count_task();
        let this = FifoScopePtr(self);
        // SAFETY: the task runs while the scope waits for it (C2).
        let job = ScopeJob::into_job_ref(base, move |_| f(unsafe { this.get() }));
        match base.registry.current_worker() {
            Some(worker) => {
                let scope = (base as *const Scope<'s>).cast();
                self.fifos
                    .push(worker.index(), scope, job, |marker| worker.push(marker));
            }
            None => base.registry.push(job),
        }
    }

    /// [`Scope::spawn_broadcast`] for a FIFO scope: `body` runs once on
    /// every worker of the pool (U1-U3), and the scope waits for all of
    /// them.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let ran = AtomicUsize::new(0);
    /// pool.scope_fifo(|s| s.spawn_broadcast(|_, _| {
    ///     ran.fetch_add(1, Relaxed);
    /// }));
    /// assert_eq!(ran.into_inner(), 2);
    /// ```
    pub fn spawn_broadcast<F>(&self, body: F)
    where
        F: Fn(&ScopeFifo<'s>, BroadcastContext<'_>) + Send + Sync + 's,
    {
        let body = Arc::new(body);
        let workers = self.base.registry.num_workers();
        let this = FifoScopePtr(self);
        for index in 0..workers {
            let body = Arc::clone(&body);
            let this = FifoScopePtr(this.0);
            // SAFETY: the part runs while the scope waits for it (C2).
            self.base.post(index, move |_| {
                body(unsafe { this.get() }, BroadcastContext::new(index, workers))
            });
        }
    }
}

impl fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScopeFifo")
            // C1: relaxed; a snapshot for display, ordering nothing.
            .field("pending", &self.base.pending.load(RELAXED))
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope")
            // C1: relaxed; a snapshot for display, ordering nothing.
            .field("pending", &self.pending.load(RELAXED))
            .finish_non_exhaustive()
    }
}
