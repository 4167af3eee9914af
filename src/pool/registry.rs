//! The state a pool's workers share: deques' stealers, the injector, the
//! sleep protocol, task accounting for `wait_all`, statistics.

use super::injector::Injector;
use super::job::{HeapJob, JobRef};
use super::ordering::{
    fence, COMPLETER_FENCE, PENDING_DONE, PENDING_LOAD, RELAXED, TERMINATE_STORE, WAITER_FENCE,
};
use super::sleep::Sleep;
use super::stats::{self, Event, Stats, WorkerCounters};
use super::worker::WorkerThread;
use crate::deque::Stealer;
use crate::sync::{AtomicBool, AtomicUsize, Condvar, Mutex};
use crossbeam_utils::CachePadded;
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

/// What the pool does with the panic of a `spawn`ed task.
pub(crate) type PanicHandler = Box<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;

pub(crate) struct Registry {
    pub(crate) stealers: Box<[Stealer<JobRef>]>,
    pub(crate) injector: Injector,
    pub(crate) sleep: Sleep,
    /// Set once by shutdown; workers exit when it is set and no work is left.
    terminating: AtomicBool,
    /// Tasks (`spawn`, `submit`, `Scope::spawn`) queued or running (P1).
    pending: AtomicUsize,
    /// Tasks that `wait_all` does not wait for: those on the stacks of the
    /// worker threads currently inside `wait_all` (P2).
    exempt: AtomicUsize,
    /// Threads outside the pool blocked in `wait_all` (P3).
    idle_waiters: AtomicUsize,
    idle_lock: Mutex<()>,
    idle: Condvar,
    pub(crate) counters: Box<[CachePadded<WorkerCounters>]>,
    panic_handler: Option<PanicHandler>,
}

impl Registry {
    pub(crate) fn new(stealers: Vec<Stealer<JobRef>>, panic_handler: Option<PanicHandler>) -> Self {
        let workers = stealers.len();
        Registry {
            stealers: stealers.into(),
            injector: Injector::new(),
            sleep: Sleep::new(workers),
            terminating: AtomicBool::new(false),
            pending: AtomicUsize::new(0),
            exempt: AtomicUsize::new(0),
            idle_waiters: AtomicUsize::new(0),
            idle_lock: Mutex::new(()),
            idle: Condvar::new(),
            counters: (0..workers)
                .map(|_| CachePadded::new(WorkerCounters::default()))
                .collect(),
            panic_handler,
        }
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.stealers.len()
    }

    /// The worker of *this* pool running on the current thread, if any.
    pub(crate) fn current_worker(&self) -> Option<&WorkerThread> {
        // SAFETY: the thread-local pointer, when set, points to the worker
        // thread's own `WorkerThread`, live for the whole thread body.
        let worker = unsafe { WorkerThread::current().as_ref()? };
        std::ptr::eq(worker.registry(), self).then_some(worker)
    }

    /// Makes a job runnable: on the current worker's deque when called from
    /// one of this pool's workers, otherwise on the injector. Then wakes a
    /// sleeper if needed (S3, S4).
    pub(crate) fn push(&self, job: JobRef) {
        match self.current_worker() {
            Some(worker) => worker.push(job),
            None => {
                self.injector.push(job);
                self.sleep.new_work();
            }
        }
    }

    /// Queues a task: `body` runs on a worker, catching its own panics.
    pub(crate) fn spawn_task(&self, body: impl FnOnce() + Send) {
        // P1: relaxed increment; the push that follows publishes the job,
        // and `pending` only needs to be above zero before the job can end.
        self.pending.fetch_add(1, RELAXED);
        self.push(HeapJob::into_job_ref(move || {
            // SAFETY: tasks only run on workers, whose thread-local is set.
            let worker = unsafe { &*WorkerThread::current() };
            worker.run_task(body);
        }));
    }

    /// Records a task's end (P1), waking `wait_all` callers if needed.
    pub(crate) fn task_done(&self, worker_index: usize) {
        self.counters[worker_index].record(Event::Executed);
        // P1: release, so a `wait_all` that acquires `pending` (P4) sees the
        // task's effects.
        self.pending.fetch_sub(1, PENDING_DONE);
        // P3: SeqCst fence, the completer's half of a store-buffering pair
        // with `wait_all`'s: either it sees us waiting, or we see it done.
        fence(COMPLETER_FENCE);
        if self.idle_waiters.load(RELAXED) > 0 {
            let _guard = self.idle_lock.lock().unwrap_or_else(|e| e.into_inner());
            self.idle.notify_all();
        }
    }

    /// Hands the panic of a `spawn`ed task to the panic handler.
    pub(crate) fn handle_panic(&self, worker_index: usize, payload: Box<dyn Any + Send>) {
        self.counters[worker_index].record(Event::Panicked);
        match &self.panic_handler {
            Some(handler) => {
                // A panicking handler must not take the worker down either.
                let _ = panic::catch_unwind(AssertUnwindSafe(|| handler(payload)));
            }
            None => {
                let message = payload
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("<non-string panic payload>");
                eprintln!("stealpool: a spawned task panicked: {message}");
            }
        }
    }

    pub(crate) fn pending_tasks(&self) -> usize {
        // P1: relaxed snapshot.
        self.pending.load(RELAXED)
    }

    /// P4: whether every task that `wait_all` waits for has finished.
    fn all_done(&self) -> bool {
        // Acquire pairs with P1's release: the finished tasks' effects are
        // visible once this is true.
        self.pending.load(PENDING_LOAD) <= self.exempt.load(RELAXED)
    }

    /// See [`ThreadPool::wait_all`](crate::ThreadPool::wait_all).
    pub(crate) fn wait_all(&self) {
        match self.current_worker() {
            Some(worker) => {
                let exempt = worker.tasks_on_stack();
                // P2: relaxed; read by this thread and, for the others, only
                // ever makes `all_done` true sooner (see proofs/sleep.md).
                self.exempt.fetch_add(exempt, RELAXED);
                while !self.all_done() {
                    if !worker.run_one_job() {
                        crate::sync::thread::yield_now();
                    }
                }
                self.exempt.fetch_sub(exempt, RELAXED);
            }
            None => {
                // P3: register, then a SeqCst fence, then check under the
                // lock that completers take to notify.
                self.idle_waiters.fetch_add(1, RELAXED);
                fence(WAITER_FENCE);
                let mut guard = self.idle_lock.lock().unwrap_or_else(|e| e.into_inner());
                while !self.all_done() {
                    guard = self.idle.wait(guard).unwrap_or_else(|e| e.into_inner());
                }
                drop(guard);
                self.idle_waiters.fetch_sub(1, RELAXED);
            }
        }
    }

    /// Whether any queue holds a job (a snapshot; see `Sleep::sleep`).
    pub(crate) fn has_work(&self) -> bool {
        self.injector.len() > 0 || self.stealers.iter().any(|s| !s.is_empty())
    }

    /// X1: SeqCst store; sleepers read it under the sleep lock, which
    /// `wake_all` takes after this store.
    pub(crate) fn terminate(&self) {
        self.terminating.store(true, TERMINATE_STORE);
        self.sleep.wake_all();
    }

    /// X1: relaxed; read under the sleep lock (see `terminate`).
    pub(crate) fn is_terminating(&self) -> bool {
        self.terminating.load(RELAXED)
    }

    pub(crate) fn stats(&self) -> Stats {
        stats::collect(&self.counters)
    }
}
