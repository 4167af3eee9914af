//! A worker thread: its deques and how it runs a job. Its pending `join`
//! halves and the marks of the halves it runs are in `join/pending.rs`; where it
//! looks for work, in `search.rs` (the plain search) and `levels.rs`
//! (priority levels); how it waits, in `waits.rs`.

mod bounded;
mod levels;
mod search;
mod waits;
mod yielding;

use crate::sync::flags::bug;
pub(crate) use bounded::{BoundedDeques, BOUNDED_SLOTS};

use super::attention::Slot;
use super::job::AbortOnUnwind;
use super::latch::LatchOwner;
use super::registry::{Registry, NO_PENDING_LIMIT};
use super::serving::Lineage;
use super::stats::Event;
use crate::lockfree::JobRef;
use crate::lockfree::Worker;
use crate::pool::placement::affinity;
use crate::pool::queues::priority::{LevelDeques, Priority, Rounds};
use crate::sync::{thread_local, Arc};
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::ptr;

/// Rounds of looking for work before an idle worker goes to sleep: the
/// first few spin, the rest yield. Model checkers get one round: more only
/// multiplies the interleavings without adding behaviours. Miri gets
/// eight (two that yield): it interprets every round, each a search over
/// every queue, and a worker that sleeps sooner takes the sleep
/// protocol's paths more often, not less. Why the small values hide no
/// schedule: N3 in `proofs/model-build.md`.
#[cfg(not(any(feature = "loom", feature = "shuttle", miri)))]
const IDLE_ROUNDS: u32 = 32;
#[cfg(all(miri, not(any(feature = "loom", feature = "shuttle"))))]
const IDLE_ROUNDS: u32 = 8;
#[cfg(any(feature = "loom", feature = "shuttle"))]
const IDLE_ROUNDS: u32 = 1;
/// Rounds that spin before yielding; spin `2^round` times.
const SPIN_ROUNDS: u32 = 6;

/// Rounds a `join` or `scope` waiting for work another thread runs looks
/// for work it may help with before it parks (H6, H7): as an idle search.
/// Loom gets none: a round's spin is a yield to it, after which it runs
/// the awaited half to its end, so with one its models would hardly see a
/// wait park while its half still runs, which is the handshake (the park
/// against the latch's set) they are there to explore. Shuttle keeps its
/// one round, in which its models see a wait help beneath its half.
#[cfg(not(feature = "loom"))]
const WAIT_ROUNDS: u32 = IDLE_ROUNDS;
#[cfg(feature = "loom")]
const WAIT_ROUNDS: u32 = 0;

/// Rounds a `JoinHandle::join` on a worker looks at its task, run by
/// another thread, before it parks (H4): as an idle search. A task that
/// runs elsewhere is often about to end (in a pipeline of handles, the
/// stage right before the joining one), and a park costs a spare standing
/// in and a record of the stall detector (Z1). None under the model
/// checkers (`spin_until` does not look there), whose handle models explore
/// the park against the result's store; the look is a read of the
/// result's slot, under its lock.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
const HANDLE_WAIT_ROUNDS: u32 = IDLE_ROUNDS;

/// H4: awaited tasks run in place on one stack, each on top of the
/// `JoinHandle::join` that waits for it, before further waits park with a
/// spare standing in instead. A frame of each costs a few hundred bytes
/// in release builds and a few kilobytes in debug ones: far inside a
/// worker's stack either way.
const MAX_WAITS_IN_PLACE: u32 = 64;

/// A task run in place by `JoinHandle::join` (H4): counted while it runs.
pub(crate) struct WaitInPlace<'a>(&'a WorkerThread);

impl Drop for WaitInPlace<'_> {
    fn drop(&mut self) {
        let depth = &self.0.waits_in_place;
        depth.set(depth.get() - 1);
    }
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
thread_local! {
    /// The current thread's worker and its pool, null on threads outside
    /// every pool. `const`: read at every `join`, with no lazy-init check.
    static CURRENT: Cell<Current> = const { Cell::new(Current::NONE) };
}

#[cfg(any(feature = "loom", feature = "shuttle"))]
thread_local! {
    // Not `const`: loom's `thread_local!` takes only the plain form.
    #[allow(clippy::missing_const_for_thread_local)]
    /// The current thread's worker and its pool, null on threads outside
    /// every pool.
    static CURRENT: Cell<Current> = Cell::new(Current::NONE);
}

/// What `CURRENT` holds for this thread.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
#[inline(always)]
fn read_current() -> Current {
    CURRENT.with(Cell::get)
}

/// What `CURRENT` holds for this thread; nothing while the checker drops
/// the thread's locals (N1). Then a pool of this thread's (the free functions'
/// pool under a checker, `global.rs`) is being dropped, and the thread is
/// no worker: a checker's thread-locals, unlike std's `const` ones without
/// a destructor, refuse every access once their thread's are being dropped.
#[cfg(any(feature = "loom", feature = "shuttle"))]
fn read_current() -> Current {
    CURRENT.try_with(Cell::get).unwrap_or(Current::NONE)
}

/// What `CURRENT` holds. The pool's address sits beside the worker's so
/// that `join` learns whether it runs on a worker of *its* pool from one
/// compare with the thread-local, with no test for null first: outside
/// every pool `registry` is null, which no pool's address equals.
///
/// `publishing` is the pool's address again where that pool publishes every
/// `join` half (no `max_pending_joins`), null where it has a limit (F6):
/// `ThreadPool::join` compares with it first, so a pool without a limit
/// pays nothing for the limit's test, and one with a limit fails that
/// compare and tests its limit after the second.
#[derive(Clone, Copy)]
struct Current {
    registry: *const Registry,
    publishing: *const Registry,
    worker: *const WorkerThread,
}

impl Current {
    const NONE: Current = Current {
        registry: ptr::null(),
        publishing: ptr::null(),
        worker: ptr::null(),
    };

    fn of(worker: &WorkerThread) -> Current {
        let registry: *const Registry = &*worker.registry;
        Current {
            registry,
            publishing: if worker.max_pending_joins == NO_PENDING_LIMIT {
                registry
            } else {
                ptr::null()
            },
            worker,
        }
    }
}

/// A worker's own state, on its thread's stack.
///
/// `repr(C)` and aligned to a cache line: what every `join` reads (the
/// pending halves' deque, the attention word's address and the latch's
/// owner) fills the first line, so that a `join` touches one line of it.
#[repr(C, align(64))]
pub(crate) struct WorkerThread {
    /// Pending `join` halves, newest at the bottom: owner-biased, so the
    /// owner's push and pop run no barrier (F1).
    pub(in crate::pool::kernel) joins: Worker<JobRef>,
    /// This slot's line of attention, read at every `join` (S7, F3): its
    /// attention word and the sleepers word's address.
    attention: *const Slot,
    /// `index` as a `join` half's latch carries it (J4).
    latch_owner: LatchOwner,
    /// `Builder::max_pending_joins` (F6): past this many pending halves, a
    /// `join` may run inline.
    pub(in crate::pool::kernel) max_pending_joins: usize,
    pub(in crate::pool::kernel) index: usize,
    /// Spawned tasks, promoted `join` halves and injector batches: the
    /// deque thieves look in first.
    pub(in crate::pool::kernel) local: Worker<JobRef>,
    /// Tasks of the levels other than `Normal`, by slot (V2).
    levels: LevelDeques,
    /// `passed[p]`: the weight of the tasks this worker took above level
    /// `p` while `p` had work queued, since it last took a task at `p`
    /// (V5).
    passed: [Cell<u32>; Priority::COUNT],
    /// Per level other than `Normal`: the round between this worker's deque
    /// of the level and the jobs queued from outside (V8).
    rounds: Rounds,
    /// The level of the job this thread runs, for the statistics.
    level: Cell<Priority>,
    pub(in crate::pool::kernel) registry: Arc<Registry>,
    /// xorshift state for picking victims: per thread, never shared.
    rng: Cell<u64>,
    /// How many tasks are running on this thread's stack (nested through
    /// work-while-waiting), for `wait_all` (P2).
    tasks_on_stack: Cell<usize>,
    /// Y5: the tasks with a handle running on this thread's stack,
    /// innermost last; `None` marks a job run on top of a wait that is
    /// not one of the waiting task's own (posted to it, Y1 and U2), above
    /// which nothing was made inside the task beneath.
    frames: RefCell<Vec<Option<Lineage>>>,
    /// How many of those the `wait_all` calls on this stack exempted.
    exempted: Cell<usize>,
    /// Inside `block_in_place` (W1).
    blocking: Cell<bool>,
    /// How many awaited tasks run in place on this stack (H4), each under
    /// a `JoinHandle::join` frame.
    waits_in_place: Cell<u32>,

    /// H6: the index of `joins` from which on the `join` half this thread
    /// runs innermost, taken from another thread, pushed its halves
    /// (`i64::MIN` while it runs none). A half promoted from below it is
    /// not that half's work, and loses its kind.
    pub(in crate::pool::kernel) beneath_joins: Cell<i64>,
    /// H6: the same for `local`, as `Registry::beneath_marks` shows it to
    /// that half's owner.
    pub(in crate::pool::kernel) beneath_local: Cell<i64>,
    /// G12: plain spawned tasks and handles on the other slots' such
    /// deques, with `Builder::bounded_steals`; `None` otherwise. Last: off
    /// the lines a `join` reads.
    bounded: Option<Box<BoundedDeques>>,
}

// What every `join` reads of its worker fills the first cache line (see
// `WorkerThread`): a field added or grown in front would push the latch's
// owner onto a second line, and each `join` would touch it.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
const _: () = assert!(
    std::mem::offset_of!(WorkerThread, latch_owner) + std::mem::size_of::<LatchOwner>() <= 64,
    "a join's fields of WorkerThread no longer fit in its first cache line"
);

/// A slot's deques: shared, pending `join` halves, one per level, and the
/// bounded one of plain spawned tasks if the pool has them (G12).
pub(crate) type Deques = (
    Worker<JobRef>,
    Worker<JobRef>,
    LevelDeques,
    Option<Box<BoundedDeques>>,
);

impl WorkerThread {
    /// The current thread's worker, or null.
    #[inline]
    pub(crate) fn current() -> *const WorkerThread {
        read_current().worker
    }

    /// The current thread's worker if it is one of `registry`'s.
    ///
    /// # Safety
    ///
    /// The caller uses the reference only while its thread runs: the worker
    /// lives in its thread's body, which clears `CURRENT` before it ends.
    #[inline]
    pub(crate) unsafe fn current_of(registry: &Registry) -> Option<&WorkerThread> {
        let current = read_current();
        // SAFETY: `registry` is set only beside a live worker's address
        // (`Current::of`), and no pool is at null.
        ptr::eq(current.registry, registry).then(|| unsafe { &*current.worker })
    }

    /// `current_of`, for a pool that publishes every `join` half: `None`
    /// on a worker of a pool with a `max_pending_joins` limit (F6).
    ///
    /// # Safety
    ///
    /// As `current_of`.
    #[inline]
    pub(crate) unsafe fn current_publishing_of(registry: &Registry) -> Option<&WorkerThread> {
        let current = read_current();
        // SAFETY: as in `current_of`: `publishing` is null or set beside a
        // live worker's address.
        ptr::eq(current.publishing, registry).then(|| unsafe { &*current.worker })
    }

    #[inline]
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    #[inline]
    pub(crate) fn registry(&self) -> &Registry {
        &self.registry
    }

    pub(crate) fn registry_arc(&self) -> &Arc<Registry> {
        &self.registry
    }

    pub(crate) fn tasks_on_stack(&self) -> usize {
        self.tasks_on_stack.get()
    }

    pub(crate) fn exempted(&self) -> usize {
        self.exempted.get()
    }

    pub(crate) fn set_exempted(&self, exempted: usize) {
        self.exempted.set(exempted);
    }

    /// A worker for slot `index` with its deques, not yet the current
    /// thread's.
    pub(crate) fn new(index: usize, deques: Deques, registry: Arc<Registry>) -> WorkerThread {
        let (local, joins, levels, bounded) = deques;
        let attention: *const Slot = registry.sleep.attention.slot(index);
        WorkerThread {
            index,
            local,
            joins,
            levels,
            passed: Default::default(),
            rounds: Rounds::default(),
            level: Cell::new(Priority::Normal),
            rng: Cell::new(0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F)),
            tasks_on_stack: Cell::new(0),
            frames: RefCell::new(Vec::new()),
            exempted: Cell::new(0),
            blocking: Cell::new(false),
            waits_in_place: Cell::new(0),
            beneath_joins: Cell::new(i64::MIN),
            beneath_local: Cell::new(i64::MIN),
            bounded,
            attention,
            latch_owner: LatchOwner::of(index),
            max_pending_joins: registry.max_pending_joins,
            registry,
        }
    }

    /// This slot as a `join` half's latch names it (J4).
    #[inline]
    pub(crate) fn latch_owner(&self) -> LatchOwner {
        self.latch_owner
    }

    /// This slot's line of attention (S7).
    #[inline]
    pub(in crate::pool::kernel) fn attention(&self) -> &Slot {
        // SAFETY: it points into `self.registry`, which lives as long as
        // `self` holds it.
        unsafe { &*self.attention }
    }

    /// S7's two relaxed loads (`Slot::loads`): this slot's attention word
    /// and the sleepers word.
    #[inline(always)]
    pub(in crate::pool::kernel) fn attention_and_sleepers(&self) -> (usize, usize) {
        self.attention().loads()
    }

    /// The body of worker thread `index`: runs jobs until the pool shuts down
    /// and no work is left.
    pub(crate) fn run(index: usize, deques: Deques, registry: Arc<Registry>) {
        let worker = WorkerThread::new(index, deques, registry);
        let placement = &worker.registry.placement;
        // Pinning is a request to the system, not a condition for running:
        // a worker that cannot be pinned runs unpinned, counted in `Stats`.
        if placement.pin() && !affinity::pin_current_thread(placement.cpu(index)) {
            worker.registry.counters[index].record(Event::PinFailed);
        }
        CURRENT.with(|current| current.set(Current::of(&worker)));
        // Inside the worker's context, as rayon runs its handlers.
        worker.registry.thread_started(index);
        while worker.run_one_job() || worker.idle(None) {}
        worker.registry.thread_exiting(index);
        CURRENT.with(|current| current.set(Current::NONE));
    }

    /// The body of a spare thread holding slot `self.index` (W3): runs jobs
    /// as a worker does, and at each job boundary asks `retire`, which
    /// returns a guard when the spare is to give its slot back. Returns
    /// that guard, or `None` when the spare left the sleep protocol (W2),
    /// and the slot's deques.
    pub(crate) fn run_spare<G>(
        self,
        mut retire: impl FnMut(&WorkerThread) -> Option<G>,
    ) -> (Option<G>, Deques) {
        CURRENT.with(|current| current.set(Current::of(&self)));
        let retired = loop {
            if let Some(guard) = retire(&self) {
                break Some(guard);
            }
            if !self.run_one_job() && !self.idle(None) {
                break None;
            }
        };
        CURRENT.with(|current| current.set(Current::NONE));
        (retired, (self.local, self.joins, self.levels, self.bounded))
    }

    /// Whether none of this worker's own deques, nor its mailbox, holds a
    /// job. Exact for the owner at a job boundary: only it pushes, thieves
    /// only take, and jobs are posted to a spare's slot only while it waits
    /// (Y1) or, to a worker's, by a broadcast, which no spare serves.
    pub(crate) fn owns_no_work(&self) -> bool {
        self.local.is_empty()
            && self.joins.is_empty()
            && self.levels.iter().all(Worker::is_empty)
            && self.bounded.as_ref().is_none_or(|bounded| bounded.is_empty())
            // Y1: a spare's slot may hold a job posted while it waited.
            && !self.registry.mailboxes.has_mail(self.index)
    }

    /// This worker as a task's claim names its runner (H3, H5): its
    /// address, unique among live threads.
    pub(crate) fn runner_id(&self) -> usize {
        self as *const WorkerThread as usize
    }

    /// H4: a permit to run an awaited task in place, on top of the
    /// `JoinHandle::join` that waits for it, unless `MAX_WAITS_IN_PLACE`
    /// such tasks already run on this stack; the wait then parks with a
    /// spare standing in, so that a chain of handles, each joined by the
    /// next, never nests deeper than that on one stack.
    pub(crate) fn wait_in_place(&self) -> Option<WaitInPlace<'_>> {
        if !self.may_wait_in_place() {
            return None;
        }
        let depth = self.waits_in_place.get();
        self.waits_in_place.set(depth + 1);
        Some(WaitInPlace(self))
    }

    /// Whether `wait_in_place` would grant a permit (H4; Z9 asks it too).
    pub(crate) fn may_wait_in_place(&self) -> bool {
        self.waits_in_place.get() < MAX_WAITS_IN_PLACE
    }

    /// `HANDLE_WAIT_ROUNDS` rounds (spin, then yield) until `done()`;
    /// whether it was.
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    pub(crate) fn spin_until(&self, done: impl Fn() -> bool) -> bool {
        for round in 0..HANDLE_WAIT_ROUNDS {
            if done() {
                return true;
            }
            if round < SPIN_ROUNDS {
                for _ in 0..1u32 << round {
                    crate::sync::spin_loop();
                }
            } else {
                crate::sync::thread::yield_now();
            }
        }
        done()
    }

    /// Under the model checkers, no look: their handle models explore
    /// the park against the result's store.
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    pub(crate) fn spin_until(&self, _done: impl Fn() -> bool) -> bool {
        false
    }

    /// Marks this thread as inside `block_in_place`; returns whether it
    /// already was (a nested call, compensated by the outer one).
    pub(crate) fn start_blocking(&self) -> bool {
        self.blocking.replace(true)
    }

    pub(crate) fn stop_blocking(&self) {
        self.blocking.set(false);
    }

    /// Pushes a job on this worker's deque and tells sleepers (S3, S4).
    #[inline]
    pub(crate) fn push(&self, job: JobRef) {
        self.local.push(job);
        // S3 even on our own deque: the task that pushed may block outside
        // the pool (waiting for this very job), so the job must not depend
        // on its pusher coming back to find it.
        if !bug!("local_push_unfenced") {
            self.registry.sleep.new_work();
        } else {
            // The mistake the paragraph above rules out: S4 with no S3
            // before it, as a pusher that counts on checking its own deque
            // again.
            self.registry.sleep.new_work_unfenced();
        }
    }

    /// Pushes a task on this worker's deque of level `slot` (V2) and tells
    /// sleepers (S3, S4), as `push` does.
    pub(crate) fn push_at(&self, slot: usize, job: JobRef) {
        self.levels[slot].push(job);
        self.registry.sleep.new_work();
    }

    /// Pops the newest job of this worker's own deque.
    #[inline]
    pub(crate) fn pop_local(&self) -> Option<JobRef> {
        self.local.pop()
    }

    /// Finds one job and runs it; `false` if none was found.
    pub(crate) fn run_one_job(&self) -> bool {
        match self.find_work() {
            Some((job, level)) => {
                self.execute_at(job, level);
                true
            }
            None => false,
        }
    }

    /// Runs a job of this worker's own `Normal` queues.
    pub(crate) fn execute(&self, job: JobRef) {
        self.execute_at(job, Priority::Normal);
    }

    /// Runs a job taken at `level`.
    fn execute_at(&self, job: JobRef, level: Priority) {
        let outer = self.level.replace(level);
        let guard = AbortOnUnwind;
        // SAFETY: every `JobRef` in the pool's queues is executed once, by
        // whoever took it out; stack jobs' owners wait for their latches.
        unsafe { job.execute() };
        std::mem::forget(guard);
        self.level.set(outer);
    }

    /// Runs a task (`spawn`, `submit`): `body` catches its own panics where
    /// someone waits for them; a panic escaping it goes to the pool's panic
    /// handler, which runs as part of the task (a `wait_all` in the handler
    /// exempts the task it runs in, P2).
    pub(crate) fn run_task(&self, body: impl FnOnce()) {
        self.begin_task();
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(body)) {
            self.registry.handle_panic(self.index, payload);
        }
        self.end_task();
    }

    /// `run_task` for a task with a handle, of `lineage`, that this
    /// thread claimed: while it runs, it is a frame of this stack (Y5),
    /// which tasks made here are made inside of.
    pub(crate) fn run_claimed(&self, lineage: Lineage, body: impl FnOnce()) {
        let _frame = self.enter_frame(Some(lineage));
        self.run_task(body);
    }

    /// Y5: `f`, a job posted to this thread while it waits (U2), run
    /// above a mark: tasks it makes are not made inside the tasks beneath.
    pub(crate) fn run_posted<R>(&self, f: impl FnOnce() -> R) -> R {
        let _frame = self.enter_frame(None);
        f()
    }

    /// Pushes a frame (Y5), popped as the guard drops, on every way out.
    fn enter_frame(&self, frame: Option<Lineage>) -> impl Drop + '_ {
        struct Pop<'a>(&'a RefCell<Vec<Option<Lineage>>>);
        impl Drop for Pop<'_> {
            fn drop(&mut self) {
                self.0.borrow_mut().pop();
            }
        }
        self.frames.borrow_mut().push(frame);
        Pop(&self.frames)
    }

    /// Y5: the innermost task with a handle this thread runs, unless a
    /// posted job runs above it: the task that one made here is made
    /// inside of.
    pub(crate) fn parent(&self) -> Option<Lineage> {
        self.frames.borrow().last().copied().flatten()
    }

    /// H5: whether a posted job runs above the task numbered `seq` on
    /// this thread's stack (a job handed to a wait past the spares,
    /// Y1/Y4/Z9, or a broadcast's part, U2): a join of that task from
    /// above is then a stall the stacking made, not a cycle of the
    /// program's own waits.
    pub(crate) fn posted_above(&self, seq: u64) -> bool {
        let frames = self.frames.borrow();
        let Some(at) = frames
            .iter()
            .rposition(|frame| frame.is_some_and(|f| f.seq() == seq))
        else {
            return false;
        };
        frames[at + 1..].iter().any(Option::is_none)
    }

    /// Y5: the numbers of the tasks with a handle on this thread's stack.
    pub(crate) fn frames(&self) -> Vec<u64> {
        self.frames.borrow().iter().flatten().map(Lineage::seq).collect()
    }

    /// A task starts running on this thread's stack (P2).
    pub(crate) fn begin_task(&self) {
        self.tasks_on_stack.set(self.tasks_on_stack.get() + 1);
    }

    /// The task that `begin_task` started has ended, handler and all.
    pub(crate) fn end_task(&self) {
        self.tasks_on_stack.set(self.tasks_on_stack.get() - 1);
        self.registry.task_done(self.index, self.level.get());
    }

    /// Records a panic caught by a task that reports it elsewhere (to a
    /// `JoinHandle` or a scope).
    pub(crate) fn record_panic(&self) {
        self.registry.counters[self.index].record(Event::Panicked);
    }
}
