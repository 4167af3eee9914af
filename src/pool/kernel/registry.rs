//! The state a pool's workers share: deques' stealers, the injector, the
//! sleep protocol, the task count for `wait_all` (`task_count.rs`),
//! statistics.

use super::broadcast::Mailboxes;
use super::fifo::FifoQueues;
use super::job::drop_payload;
use super::job::HeapJob;
use super::ordering::{RELAXED, SLOT_MARK_RMW, TERMINATE_STORE};
use super::serving::{Lender, NeedCell};
use super::sleep::Sleep;
use super::stall::{self, StallDomain};
use super::stats::{self, Event, Stats, WorkerCounters};
use super::task_count::TaskCount;
use super::thread_hooks::{ThreadHandler, ThreadHooks};
use super::worker::WorkerThread;
use crate::lockfree::JobRef;
use crate::lockfree::{BoundedLen, Stealer};
use crate::pool::kernel::spares::Spares;
use crate::pool::placement::affinity;
use crate::pool::placement::topology::{Distance, Placement, Topology};
use crate::pool::queues::injector::SubmitQueues;
use crate::pool::queues::priority::{Priority, PriorityQueues, Staged, SLOTS};
use crate::sync::flags::bug;
use crate::sync::{AtomicBool, AtomicI64, AtomicUsize, Mutex};
use crossbeam_utils::CachePadded;
use std::any::Any;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};

/// What the pool does with the panic of a `spawn`ed task.
pub(crate) type PanicHandler = Box<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;

/// No limit on a worker's pending `join` halves: every half is published
/// (F1), and no `join` runs inline (F6).
pub(crate) const NO_PENDING_LIMIT: usize = usize::MAX;

pub(crate) struct Registry {
    pub(crate) stealers: Box<[Stealer<JobRef>]>,
    /// Stealers of the workers' owner-biased deques of pending `join`
    /// halves: taken from only by a worker that found no other work and
    /// asked in vain (F4), each steal paying a heavy barrier (D16).
    pub(crate) join_stealers: Box<[Stealer<JobRef>]>,
    /// One injector per node holding a worker (Q10).
    pub(crate) injector: SubmitQueues,
    /// The queues of the levels other than `Normal` (V2).
    pub(crate) priority: PriorityQueues,
    /// E1: per slot, the jobs of `spawn_fifo`, each behind a marker on
    /// that slot's deque.
    pub(crate) fifo: FifoQueues,
    pub(crate) sleep: Sleep,
    /// Set once by shutdown; workers exit when it is set and no work is left.
    terminating: AtomicBool,
    /// The outstanding tasks, for `wait_all` (P1-P4).
    tasks: TaskCount,
    pub(crate) counters: Box<[CachePadded<WorkerCounters>]>,
    /// H6: per slot, the index of its shared deque (`stealers`) from which
    /// on the `join` half it runs innermost pushed its work: where that
    /// half's owner may take work forked beneath it while it waits.
    pub(crate) beneath_marks: Box<[CachePadded<AtomicI64>]>,
    panic_handler: Option<PanicHandler>,
    /// The builder's start and exit handlers (set by the builder,
    /// read-only after).
    pub(crate) thread_hooks: ThreadHooks,
    /// Each worker's CPU and victim rings (read-only after the build).
    pub(crate) placement: Placement,
    /// `Builder::max_pending_joins`, or `NO_PENDING_LIMIT` (F6; read-only
    /// after the build, copied into each worker).
    pub(crate) max_pending_joins: usize,
    /// Slots `0..workers` are the workers'; the rest, spare threads' (W1).
    workers: usize,
    /// W5: the slots `0..slots_used` are every slot ever held: the
    /// workers' and the spare slots up to the highest one ever handed out
    /// (spares take the lowest free slot). Only those can hold a job, so
    /// searches and the sleepers' final check look at no others.
    slots_used: CachePadded<AtomicUsize>,
    /// Spare threads standing in for tasks inside `block_in_place` (W1-W5).
    pub(crate) spares: Spares,
    /// G12: with `Builder::bounded_steals`, each slot's bounded deque of
    /// plain spawned tasks, as the sleepers' final check reads it; `None`
    /// otherwise (set by the builder, read-only after).
    pub(crate) bounded: Option<Box<[BoundedLen<JobRef>]>>,
    /// Each worker's mailbox of jobs for it alone (U1-U3).
    pub(crate) mailboxes: Mailboxes,
    /// Y3: per slot, the task of another pool its thread waits for.
    pub(crate) needs: Box<[NeedCell]>,
    /// Y4: the workers of other pools waiting for work of this one with
    /// no spare standing in: their pool and slot.
    pub(crate) lenders: Mutex<Vec<Lender>>,
    /// Z1: the table of parked waits this pool shares with the others.
    pub(crate) stalls: std::sync::Arc<StallDomain>,
    /// Z5: the stall table's count of changes when a record of this
    /// pool's threads was last written or removed.
    pub(crate) stall_stamp: stall::PoolStamp,
}

impl Registry {
    /// A registry with a slot for each stealer: the first `workers` are
    /// the workers', the rest are handed to spare threads by `spares`.
    pub(crate) fn new(
        workers: usize,
        spares: Spares,
        stealers: Vec<Stealer<JobRef>>,
        join_stealers: Vec<Stealer<JobRef>>,
        level_stealers: [Vec<Stealer<JobRef>>; SLOTS],
        panic_handler: Option<PanicHandler>,
    ) -> Self {
        let slots = stealers.len();
        Registry {
            stealers: stealers.into(),
            join_stealers: join_stealers.into(),
            // One node until the builder places the workers (Q10).
            injector: SubmitQueues::new(),
            priority: PriorityQueues::new(level_stealers),
            fifo: FifoQueues::new(slots),
            sleep: Sleep::new(slots, workers),
            terminating: AtomicBool::new(false),
            tasks: TaskCount::new(),
            counters: (0..slots)
                .map(|_| CachePadded::new(WorkerCounters::default()))
                .collect(),
            beneath_marks: (0..slots).map(|_| CachePadded::new(AtomicI64::new(0))).collect(),
            panic_handler,
            thread_hooks: ThreadHooks::default(),
            // One cache for all: uniform victims, until the builder places
            // the workers on its topology.
            placement: Placement::new(&Topology::single_node(1), workers, false),
            max_pending_joins: NO_PENDING_LIMIT,
            workers,
            slots_used: CachePadded::new(AtomicUsize::new(workers)),
            spares,
            bounded: None,
            mailboxes: Mailboxes::new(slots),
            needs: (0..slots).map(|_| NeedCell::default()).collect(),
            lenders: Mutex::new(Vec::new()),
            stalls: stall::domain(),
            stall_stamp: stall::PoolStamp::default(),
        }
    }

    /// W5: how many slots, from the first, were ever held (relaxed): the
    /// queues of the others are empty. Read after S2 in the final check,
    /// it counts every slot a job was pushed to before S3.
    /// A pool without spare slots reads nothing: its workers' slots are
    /// all there are (and the model checkers, whose other models have no
    /// spare slot, explore no load of a word that never changes).
    #[inline]
    pub(crate) fn slots_in_use(&self) -> usize {
        if self.stealers.len() == self.workers {
            return self.workers;
        }
        // W5: relaxed; after S2 it counts every slot pushed to before S3.
        self.slots_used.load(RELAXED)
    }

    /// The first `slots_in_use()` entries of a per-slot array (W5).
    #[inline]
    pub(crate) fn in_use<'a, T>(&self, per_slot: &'a [T]) -> &'a [T] {
        &per_slot[..self.slots_in_use().min(per_slot.len())]
    }

    /// W5: the thread about to own `slot` counts it used, before its
    /// first push there. A load first: the RMW runs only when a slot
    /// above every earlier one is first taken.
    /// `--cfg stealpool_bug="slots_unmarked"` never raises the mark: a
    /// spare's jobs are then out of every other thread's sight (the
    /// mistake W5 rules out).
    pub(crate) fn mark_slot_used(&self, slot: usize) {
        if bug!("slots_unmarked") {
            return;
        }
        // W5: both relaxed, sequenced before this thread's first push on
        // `slot`, so before its S3.
        if self.slots_used.load(RELAXED) <= slot {
            self.slots_used.fetch_max(slot + 1, SLOT_MARK_RMW);
        }
    }

    /// The workers, spare threads not counted.
    pub(crate) fn num_workers(&self) -> usize {
        self.workers
    }

    /// The worker place of slot `slot`: its own for a worker; for a spare
    /// slot, a worker's, round robin (spares are not pinned, so this only
    /// orders their victims and counts their steals' distances).
    pub(crate) fn home(&self, slot: usize) -> usize {
        if slot < self.workers {
            slot
        } else {
            (slot - self.workers) % self.workers
        }
    }

    /// How far the victim's slot is from the thief's, by their places.
    pub(crate) fn distance(&self, thief: usize, victim: usize) -> Distance {
        self.placement.distance(self.home(thief), self.home(victim))
    }

    /// The worker of *this* pool running on the current thread, if this
    /// pool publishes every `join` half (no `max_pending_joins`, F6).
    #[inline]
    pub(crate) fn current_publishing_worker(&self) -> Option<&WorkerThread> {
        // SAFETY: as in `current_worker`.
        unsafe { WorkerThread::current_publishing_of(self) }
    }

    /// The worker of *this* pool running on the current thread, if any.
    #[inline]
    pub(crate) fn current_worker(&self) -> Option<&WorkerThread> {
        // SAFETY: the reference is used on this thread, within the `&self`
        // borrow of a caller running on it.
        unsafe { WorkerThread::current_of(self) }
    }

    /// Makes a job runnable: on the current worker's deque when called from
    /// one of this pool's workers, otherwise on the injector. Then wakes a
    /// sleeper if needed (S3, S4).
    pub(crate) fn push(&self, job: JobRef) {
        match self.current_worker() {
            Some(worker) => worker.push(job),
            None => {
                self.injector.push_to(|| self.submitter_node(), job);
                self.sleep.new_work();
            }
        }
    }

    /// Q10: the node whose injector the current thread submits to: a
    /// worker's (or a spare's home worker's) own; for a thread outside the
    /// pool, the node of the CPU it first submitted from.
    fn submitter_node(&self) -> usize {
        match self.current_worker() {
            Some(worker) => self.placement.node(self.home(worker.index())),
            None => self.placement.cpu_node(affinity::submitter_cpu()),
        }
    }

    /// Q10: a batch from the injectors for the thread of slot `slot`, its
    /// node's first (see `Injector::pop_batch`): the take before V9, kept
    /// for `--cfg stealpool_bug="normal_batch_plain"` alone.
    #[inline]
    pub(crate) fn pop_injected(&self, slot: usize, dest: &crate::lockfree::Worker<JobRef>) -> Option<JobRef> {
        self.injector
            .pop_batch(|| self.placement.node(self.home(slot)), dest)
    }

    /// V9, Q10: the oldest job queued from outside at `Normal` for the
    /// thread of slot `slot`, through the stage of its node's queue
    /// first, then the other nodes'.
    #[inline]
    pub(crate) fn take_outside(&self, slot: usize) -> Option<Staged> {
        self.priority
            .take_normal_outside(&self.injector, || self.placement.node(self.home(slot)))
    }

    /// Makes a task's job runnable at `priority` (V2): `Normal` as `push`
    /// does; another level on the current worker's deque of that level, or
    /// on that level's injector from outside the pool. Then wakes a sleeper
    /// if needed (S3, S4).
    pub(crate) fn push_task(&self, priority: Priority, job: JobRef) {
        let Some(slot) = priority.slot() else {
            return self.push(job);
        };
        // V1: before the push, so whoever sees the job sees the flag.
        self.priority.mark_used(slot);
        match self.current_worker() {
            Some(worker) => worker.push_at(slot, job),
            None => {
                self.priority.level(slot).injector.push(job);
                self.sleep.new_work();
            }
        }
    }

    /// Queues a submitted task, one with a handle (H4): as `push_task`,
    /// except that at `Normal` it goes on the injector even from a worker
    /// of this pool. Tasks that others may wait for thus start in the
    /// order they were submitted, oldest first, as `spawn`ed work from
    /// outside does: a chain of handles built inside a task, each stage
    /// joining the one before, runs its first stage first, rather than its
    /// newest, which would wait for all the others.
    pub(crate) fn push_submitted(&self, priority: Priority, job: JobRef) {
        if priority.slot().is_some() {
            return self.push_task(priority, job);
        }
        self.injector.push_to(|| self.submitter_node(), job);
        self.sleep.new_work();
    }

    /// U1, U3: queues `job` for worker `slot` alone and wakes that worker.
    /// If the worker already left the pool (it shuts down), the job is
    /// given back: the caller runs it.
    pub(crate) fn post(&self, slot: usize, job: JobRef) -> Option<JobRef> {
        let mut job = Some(job);
        let posted = self.sleep.post(slot, || {
            if let Some(job) = job.take() {
                self.mailboxes.put(slot, job);
            }
        });
        debug_assert_eq!(posted, job.is_none());
        job
    }

    /// Queues a task: `body` runs on a worker, catching its own panics.
    pub(crate) fn spawn_task(&self, priority: Priority, body: impl FnOnce() + Send) {
        self.count_task();
        let job = HeapJob::into_job_ref(move || {
            // SAFETY: tasks only run on workers, whose thread-local is set.
            let worker = unsafe { &*WorkerThread::current() };
            worker.run_task(body);
        });
        // G12: with `bounded_steals`, a plain task spawned on a worker goes
        // on its bounded deque; one predictable branch without.
        if self.bounded.is_some() && priority.slot().is_none() {
            if let Some(worker) = self.current_worker() {
                return worker.push_bounded(job);
            }
        }
        self.push_task(priority, job);
    }

    /// Queues a task in FIFO order (`spawn_fifo`): from one of this pool's
    /// workers, on its slot's FIFO queue behind a marker pushed on its
    /// deque (E1); from any other thread, on the injector, as `spawn`.
    pub(crate) fn spawn_fifo_task(&self, body: impl FnOnce() + Send) {
        self.count_task();
        let job = HeapJob::into_job_ref(move || {
            // SAFETY: tasks only run on workers, whose thread-local is set.
            let worker = unsafe { &*WorkerThread::current() };
            worker.run_task(body);
        });
        match self.current_worker() {
            Some(worker) => self.fifo.push(worker.index(), std::ptr::null(), job, |marker| {
                worker.push(marker)
            }),
            None => self.push(job),
        }
    }

    /// Counts a task about to be queued; `task_done` ends it.
    pub(crate) fn count_task(&self) {
        self.tasks.add();
    }

    /// Records the end of a task that ran at `priority` (P1), waking
    /// `wait_all` callers if needed.
    pub(crate) fn task_done(&self, worker_index: usize, priority: Priority) {
        self.counters[worker_index].record(Event::Executed(priority));
        self.tasks.done();
    }

    /// Hands the panic of a `spawn`ed task to the panic handler.
    pub(crate) fn handle_panic(&self, worker_index: usize, payload: Box<dyn Any + Send>) {
        self.counters[worker_index].record(Event::Panicked);
        match &self.panic_handler {
            Some(handler) => {
                // A panicking handler must not take the worker down either.
                if let Err(nested) = panic::catch_unwind(AssertUnwindSafe(|| handler(payload))) {
                    drop_payload(nested);
                }
            }
            None => {
                let message = payload
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("<non-string panic payload>");
                // `writeln!`, not `eprintln!`: a closed stderr must not panic.
                let _ = writeln!(std::io::stderr(), "stealpool: a spawned task panicked: {message}");
                drop_payload(payload);
            }
        }
    }

    pub(crate) fn pending_tasks(&self) -> usize {
        self.tasks.pending()
    }

    /// P4: whether every task that `wait_all` waits for has finished: all of
    /// them from outside the pool, all but the exempt ones from a worker.
    fn all_done(&self, from_worker: bool) -> bool {
        // `--cfg stealpool_bug="wait_all_queues_only"`: a caller outside
        // the pool waits only until no job is queued, not until every task
        // has finished (`model/lin/pool.rs` catches it).
        if bug!("wait_all_queues_only") && !from_worker {
            return !self.has_work();
        }
        self.tasks.all_done(from_worker)
    }

    /// P4 from a thread that is not this pool's worker: whether every task
    /// spawned or submitted has finished (with acquire, as `wait_all`'s).
    pub(crate) fn all_tasks_done(&self) -> bool {
        self.all_done(false)
    }

    /// See [`ThreadPool::wait_all`](crate::ThreadPool::wait_all).
    pub(crate) fn wait_all(&self) {
        match self.current_worker() {
            Some(worker) => {
                // Exempt the tasks on this thread's stack that an outer
                // `wait_all` on this thread has not exempted already.
                let outer = worker.exempted();
                let newly = worker.tasks_on_stack() - outer;
                worker.set_exempted(outer + newly);
                self.tasks.exempt(newly as u64, true);
                while !self.all_done(true) {
                    if !worker.run_one_job() {
                        crate::sync::thread::yield_now();
                    }
                }
                self.tasks.exempt(newly as u64, false);
                worker.set_exempted(outer);
            }
            None => self.tasks.wait_outside(|| self.all_done(false)),
        }
    }

    /// Whether any queue holds a job (a snapshot; see `Sleep::sleep`),
    /// pending `join` halves (F5) and every priority level (V4) included.
    pub(crate) fn has_work(&self) -> bool {
        !self.injector.is_empty()
            || self.priority.has_normal_staged()
            || self.in_use(&self.stealers).iter().any(|s| !s.is_empty())
            || self.pending_joins()
            || self.priority.has_work(self.slots_in_use())
            || self.bounded_work()
    }

    /// G12: whether a slot's bounded deque holds a plain spawned task
    /// (relaxed snapshots, G8; after the sleeper's barrier, S2, they see
    /// every push announced before it). `--cfg
    /// stealpool_bug="bounded_unchecked"` leaves them out of the sleepers'
    /// final check, the mistake G12 rules out.
    pub(crate) fn bounded_work(&self) -> bool {
        match &self.bounded {
            Some(lens) if !bug!("bounded_unchecked") => self.in_use(lens).iter().any(|len| !len.is_empty()),
            _ => false,
        }
    }

    /// F5: whether a worker has pending `join` halves. `--cfg
    /// stealpool_bug="pending_unchecked"` leaves them out of the sleepers'
    /// final check, the mistake F5 rules out.
    fn pending_joins(&self) -> bool {
        !bug!("pending_unchecked") && self.in_use(&self.join_stealers).iter().any(|s| !s.is_empty())
    }

    /// X1: relaxed store; each sleeper reads it under its own lock, which
    /// `wake_all` takes after this store.
    pub(crate) fn terminate(&self) {
        self.terminating.store(true, TERMINATE_STORE);
        self.sleep.wake_all();
        // W4: parked spare threads exit.
        self.spares.close();
    }

    /// X1: relaxed; read under a sleeper's lock or the accounts lock (see `terminate`).
    pub(crate) fn is_terminating(&self) -> bool {
        self.terminating.load(RELAXED)
    }

    pub(crate) fn stats(&self) -> Stats {
        let (workers, spares) = self.counters.split_at(self.workers);
        stats::collect(workers, spares, self.spares.counts())
    }
}

/// The builder's start and exit handlers, run by each thread of the pool.
impl Registry {
    /// Runs the start handler, if any, on a thread of this pool that is
    /// about to take jobs. A panic in it goes to the pool's panic handler
    /// (or is reported), as a spawned task's does: the thread lives on.
    pub(crate) fn thread_started(&self, slot: usize) {
        if let Some(handler) = &self.thread_hooks.start {
            self.run_handler(slot, handler);
        }
    }

    /// Runs the exit handler, if any, on a thread of this pool that takes
    /// no more jobs.
    pub(crate) fn thread_exiting(&self, slot: usize) {
        if let Some(handler) = &self.thread_hooks.exit {
            self.run_handler(slot, handler);
        }
    }

    fn run_handler(&self, slot: usize, handler: &ThreadHandler) {
        let index = slot % self.num_workers();
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| handler(index))) {
            self.handle_panic(slot, payload);
        }
    }
}
