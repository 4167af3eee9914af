//! Scoped tasks that borrow from the stack of the scope's caller.

use super::job::drop_payload;
use super::latch::{Latch, WorkerLatch};
use super::ordering::{RELAXED, SCOPE_DONE};
use super::registry::Registry;
use super::worker::WorkerThread;
use crate::sync::{AtomicUsize, Mutex};
use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};

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

/// A pointer to a scope that a task carries to the worker that runs it.
struct ScopePtr<'s>(*const Scope<'s>);
// SAFETY: `Scope` is `Sync` (its shared state is atomics and a mutex), and
// the scope outlives its tasks (C2), so sending a pointer to it is sound.
unsafe impl Send for ScopePtr<'_> {}

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
        let scope = ScopePtr(self);
        self.registry.spawn_task(move || {
            let scope = scope;
            // SAFETY: the scope waits for this task (C2).
            let scope = unsafe { &*scope.0 };
            scope.run(|| f(scope));
        });
    }

    /// Runs the body or a task, keeping its panic, and counts it finished.
    fn run(&self, f: impl FnOnce()) {
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(f)) {
            // SAFETY: tasks and scope bodies run on workers.
            unsafe { &*WorkerThread::current() }.record_panic();
            let mut first = self.panic.lock().unwrap_or_else(|e| e.into_inner());
            match *first {
                None => *first = Some(payload),
                // Only the first panic is re-raised; the others are dropped
                // without unwinding, so the count below always runs.
                Some(_) => drop_payload(payload),
            }
        }
        // C1: AcqRel. Release: this task's writes happen before the scope
        // returns; acquire (on the last decrement): the others' too.
        if self.pending.fetch_sub(1, SCOPE_DONE) == 1 {
            // SAFETY: `done` lives until the scope's worker sees it set (C2).
            unsafe { Latch::set(&raw const self.done) };
        }
    }
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
    let mut result = None;
    scope.run(|| result = Some(op(&scope)));
    // C2: the frame (and so `scope`) stays until every task has finished.
    worker.wait_until(&scope.done);
    let panic = scope.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(payload) = panic {
        panic::resume_unwind(payload);
    }
    result.expect("the scope body finished without panicking")
}

impl fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope")
            .field("pending", &self.pending.load(RELAXED))
            .finish_non_exhaustive()
    }
}
