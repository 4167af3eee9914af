//! The count of a pool's outstanding tasks, for `wait_all` and
//! `pending_tasks` (P1–P4 in `proofs/join.md`): one word holding two
//! counts, and the lock and condition variable that threads outside the
//! pool wait on.

use super::ordering::{fence, COMPLETER_FENCE, PENDING_DONE, PENDING_LOAD, RELAXED, WAITER_FENCE};
use crate::sync::{AtomicU64, AtomicUsize, Condvar, Mutex};

/// One task in the high half of `TaskCount::tasks`.
const ONE_TASK: u64 = 1 << 32;
/// The exempt count, the low half of `TaskCount::tasks`.
const EXEMPT_MASK: u64 = ONE_TASK - 1;

pub(crate) struct TaskCount {
    /// Two counts in one word, so `wait_all` reads them in one snapshot
    /// (at most 2^32 - 1 tasks outstanding: each holds at least one boxed
    /// closure, so memory runs out long before)
    /// (P1, P2): tasks (`spawn`, `submit`, `Scope::spawn`) queued or running,
    /// in the high 32 bits; of those, the tasks on the stacks of worker
    /// threads inside `wait_all`, which that call cannot wait for, in the low.
    tasks: AtomicU64,
    /// Threads outside the pool blocked in `wait_all` (P3).
    idle_waiters: AtomicUsize,
    idle_lock: Mutex<()>,
    idle: Condvar,
}

impl TaskCount {
    pub(crate) fn new() -> Self {
        TaskCount {
            tasks: AtomicU64::new(0),
            idle_waiters: AtomicUsize::new(0),
            idle_lock: Mutex::new(()),
            idle: Condvar::new(),
        }
    }

    /// Counts a task about to be queued; `done` ends it.
    pub(crate) fn add(&self) {
        // P1: relaxed increment; the push that follows publishes the job,
        // and the count only needs to be above zero before the job can end.
        self.tasks.fetch_add(ONE_TASK, RELAXED);
    }

    /// Ends a task (P1), waking the waiters outside the pool if it was the
    /// last.
    pub(crate) fn done(&self) {
        // P1: release, so a `wait_all` that acquires the count (P4) sees the
        // task's effects.
        let before = self.tasks.fetch_sub(ONE_TASK, PENDING_DONE);
        // Callers outside the pool wait for no task pending: only the task
        // that ends the last one has anyone to wake.
        if before >> 32 != 1 {
            return;
        }
        // P3: SeqCst fence, the completer's half of a store-buffering pair
        // with `wait_all`'s: either it sees us waiting, or we see it done.
        fence(COMPLETER_FENCE);
        if self.idle_waiters.load(RELAXED) > 0 {
            let _guard = self.idle_lock.lock().unwrap_or_else(|e| e.into_inner());
            self.idle.notify_all();
        }
    }

    /// The tasks queued or running.
    pub(crate) fn pending(&self) -> usize {
        // P1: relaxed snapshot.
        (self.tasks.load(RELAXED) >> 32) as usize
    }

    /// P4: whether every task that `wait_all` waits for has finished: all of
    /// them from outside the pool, all but the exempt ones from a worker.
    pub(crate) fn all_done(&self, from_worker: bool) -> bool {
        // Acquire pairs with P1's release: the finished tasks' effects are
        // visible once this is true. One load: both counts at one instant.
        let tasks = self.tasks.load(PENDING_LOAD);
        let (pending, exempt) = (tasks >> 32, tasks & EXEMPT_MASK);
        if from_worker {
            pending == exempt
        } else {
            pending == 0
        }
    }

    /// Exempts `count` more tasks (on a worker's stack inside `wait_all`),
    /// or, with `exempt` false, takes them back.
    pub(crate) fn exempt(&self, count: u64, exempt: bool) {
        // P2: relaxed; this thread reads its own change, and for other
        // workers the one-word snapshot in `all_done` is what matters (P4),
        // not when they see this change.
        if exempt {
            self.tasks.fetch_add(count, RELAXED);
        } else {
            self.tasks.fetch_sub(count, RELAXED);
        }
    }

    /// Blocks a thread outside the pool until `done()` holds, rechecked
    /// each time the last task ends.
    pub(crate) fn wait_outside(&self, done: impl Fn() -> bool) {
        // P3: register, then a SeqCst fence, then check under the lock
        // that completers take to notify.
        self.idle_waiters.fetch_add(1, RELAXED);
        fence(WAITER_FENCE);
        let mut guard = self.idle_lock.lock().unwrap_or_else(|e| e.into_inner());
        while !done() {
            guard = self.idle.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        drop(guard);
        // P3: relaxed; a completer that still counts this waiter only
        // notifies a condition variable nobody waits on.
        self.idle_waiters.fetch_sub(1, RELAXED);
    }
}
