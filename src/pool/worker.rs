//! A worker thread: its deque, its search for work, and its idle loop.

use super::affinity;
use super::attention::Attention;
use super::blocking::Blocked;
use super::job::{AbortOnUnwind, JobRef};
use super::latch::{CoreLatch, LatchOwner};
use super::ordering::{barrier_known, MARK_LOAD, MARK_STORE, PRODUCER_FENCE, RELAXED};
use super::priority::{pass_weight, LevelDeques, Levels, Priority, SHARE};
use super::probes;
use super::registry::{Registry, NO_PENDING_LIMIT};
use super::scope::scope_of;
use super::sleep::Wake;
use super::stats::Event;
use super::topology::Distance;
use crate::deque::{Steal, Stealer, Worker};
use crate::sync::{spin_loop, thread, thread_local, Arc, AtomicUsize};
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;

/// Rounds of looking for work before an idle worker goes to sleep: the
/// first few spin, the rest yield. Model checkers get one round: more only
/// multiplies the interleavings without adding behaviours. Miri gets
/// eight (two that yield): it interprets every round, each a search over
/// every queue, and a worker that sleeps sooner takes the sleep
/// protocol's paths more often, not less.
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
pub(crate) struct WorkerThread {
    index: usize,
    /// Spawned tasks, promoted `join` halves and injector batches: the
    /// deque thieves look in first.
    local: Worker<JobRef>,
    /// Pending `join` halves, newest at the bottom: owner-biased, so the
    /// owner's push and pop run no barrier (F1).
    joins: Worker<JobRef>,
    /// Tasks of the levels other than `Normal`, by slot (V2).
    levels: LevelDeques,
    /// `passed[p]`: the weight of the tasks this worker took above level
    /// `p` while `p` had work queued, since it last took a task at `p`
    /// (V5).
    passed: [Cell<u32>; Priority::COUNT],
    /// Bit `slot`: at the next take at that level, the jobs queued from
    /// outside go before this worker's deque (V8: the two alternate).
    outside_first: Cell<u8>,
    /// The level of the job this thread runs, for the statistics.
    level: Cell<Priority>,
    registry: Arc<Registry>,
    /// xorshift state for picking victims: per thread, never shared.
    rng: Cell<u64>,
    /// How many tasks are running on this thread's stack (nested through
    /// work-while-waiting), for `wait_all` (P2).
    tasks_on_stack: Cell<usize>,
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
    beneath_joins: Cell<i64>,
    /// H6: the same for `local`, as `Registry::beneath_marks` shows it to
    /// that half's owner.
    beneath_local: Cell<i64>,
    /// This slot's attention word, read at every `join` (S7, F3): its
    /// address, so that the read is one load.
    attention: *const AtomicUsize,
    /// `index` as a `join` half's latch carries it (J4).
    latch_owner: LatchOwner,
    /// `Builder::max_pending_joins` (F6): past this many pending halves, a
    /// `join` may run inline.
    max_pending_joins: usize,
}

/// A slot's deques: shared, pending `join` halves, one per level.
pub(crate) type Deques = (Worker<JobRef>, Worker<JobRef>, LevelDeques);

impl WorkerThread {
    /// The current thread's worker, or null.
    #[inline]
    pub(crate) fn current() -> *const WorkerThread {
        CURRENT.with(|current| current.get().worker)
    }

    /// The current thread's worker if it is one of `registry`'s.
    ///
    /// # Safety
    ///
    /// The caller uses the reference only while its thread runs: the worker
    /// lives in its thread's body, which clears `CURRENT` before it ends.
    #[inline]
    pub(crate) unsafe fn current_of(registry: &Registry) -> Option<&WorkerThread> {
        let current = CURRENT.with(Cell::get);
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
        let current = CURRENT.with(Cell::get);
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
        let (local, joins, levels) = deques;
        let attention: *const AtomicUsize = registry.sleep.attention.word(index);
        WorkerThread {
            index,
            local,
            joins,
            levels,
            passed: Default::default(),
            outside_first: Cell::new(0),
            level: Cell::new(Priority::Normal),
            rng: Cell::new(0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F)),
            tasks_on_stack: Cell::new(0),
            exempted: Cell::new(0),
            blocking: Cell::new(false),
            waits_in_place: Cell::new(0),
            beneath_joins: Cell::new(i64::MIN),
            beneath_local: Cell::new(i64::MIN),
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

    /// This slot's attention word (S7).
    #[inline]
    fn attention(&self) -> &AtomicUsize {
        // SAFETY: it points into `self.registry`, which lives as long as
        // `self` holds it.
        unsafe { &*self.attention }
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
        while worker.run_one_job() || worker.idle(None) {}
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
        (retired, (self.local, self.joins, self.levels))
    }

    /// Whether none of this worker's own deques holds a job. Exact for the
    /// owner: only it pushes, and thieves only take.
    pub(crate) fn owns_no_work(&self) -> bool {
        self.local.is_empty() && self.joins.is_empty() && self.levels.iter().all(Worker::is_empty)
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
        let depth = self.waits_in_place.get();
        if depth >= MAX_WAITS_IN_PLACE {
            return None;
        }
        self.waits_in_place.set(depth + 1);
        Some(WaitInPlace(self))
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
        self.registry.sleep.new_work();
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

    /// Whether a `join` may run its two closures inline, publishing nothing
    /// (F6): this worker has at least as many halves pending as the pool's
    /// limit, and nobody sleeps or asks for work. Only `join`s on pools
    /// with a limit ask (`ThreadPool::join`).
    #[inline(always)]
    pub(crate) fn runs_join_inline(&self) -> bool {
        if cfg!(stealpool_bug = "pending_limit_ignored") {
            // Runs every `join` inline, even the first with no half
            // pending: the mistake F6's count rules out.
            return true;
        }
        // F6: `len` is two relaxed loads (D12); a stale `top` only
        // overstates the count. The attention word is S7's relaxed load:
        // zero when nobody sleeps, nobody asks (F3) and light barriers pair.
        self.joins.len() >= self.max_pending_joins && self.attention().load(RELAXED) == 0
    }

    /// Records a `join`'s second half (F1): on the owner-biased deque, with
    /// no barrier and no RMW, then tells sleepers (S3, S4) as any push does,
    /// and serves a pending request for work (F3). Returns what to give
    /// `take_back_join`: the half's index, or `Worker::NO_INDEX` where
    /// light barriers may not pair with heavy ones (S7).
    #[inline]
    pub(crate) fn push_join(&self, job: JobRef) -> i64 {
        let index = self.joins.push_indexed(job);
        // S3 here too: the task that forked may block outside the pool
        // until this half runs; a sleeper must then take it (F5). Known
        // light: a word without `FALLBACK` means light barriers pair (S7).
        barrier_known(PRODUCER_FENCE, true);
        // S7: relaxed; S3 makes it recent enough. Zero: nobody sleeps,
        // nobody asks (F3), and light barriers pair.
        let word = self.attention().load(RELAXED);
        if word != 0 {
            return self.attend(word, index);
        }
        index
    }

    /// The attention word after a push was not zero (S7): announce the
    /// half to the counters as every push does (S3, S4), and promote one
    /// if asked (F3). Returns `index`, or `Worker::NO_INDEX` if the word
    /// says light barriers may not pair, so that the take-back does not
    /// take it as known that they do (D15 through `pop_biased`).
    #[cold]
    #[inline(never)]
    fn attend(&self, word: usize, index: i64) -> i64 {
        let needs = Attention::needs(word);
        if needs.announce {
            self.registry.sleep.new_work();
        }
        if needs.promote {
            self.promote();
        }
        // `--cfg stealpool_bug="fallback_index_kept"`: the take-back trusts
        // light barriers where they are full fences only by luck (the
        // mistake S7's `FALLBACK` rules out; `take_back_join` asserts it).
        if needs.fallback && !cfg!(stealpool_bug = "fallback_index_kept") {
            Worker::<JobRef>::NO_INDEX
        } else {
            index
        }
    }

    /// Takes back the newest pending `join` half, or `None` if it (and so
    /// every older one) was promoted or taken (F2).
    #[inline]
    pub(crate) fn pop_join(&self) -> Option<JobRef> {
        self.joins.pop_biased()
    }

    /// Takes back the half `push_join` put at `index` (F1): `Ok(())` if it
    /// was still there, else `Err` of what `pop_join` finds (F2).
    ///
    /// # Safety
    ///
    /// As `Worker::take_back`: `index` is what `push_join` returned, for a
    /// half this thread has not popped since.
    #[inline]
    pub(crate) unsafe fn take_back_join(&self, index: i64) -> Result<(), Option<JobRef>> {
        debug_assert!(
            index == Worker::<JobRef>::NO_INDEX
                // S7: relaxed; `FALLBACK` never changes after the pool's build.
                || !Attention::needs(self.attention().load(RELAXED)).fallback,
            "a take-back trusts light barriers in a slot whose word has FALLBACK"
        );
        // SAFETY: a `JobRef` needs no drop; the rest is the caller's. An
        // index other than `NO_INDEX` comes from a push that read its word
        // without `FALLBACK`, which a pool's build leaves only where light
        // barriers pair with heavy ones (S7).
        unsafe { self.joins.take_back(index, true) }
    }

    /// Puts back a job `pop_local` took: at the bottom, where it was.
    pub(crate) fn unpop_local(&self, job: JobRef) {
        self.local.push(job);
    }

    /// Puts back a half `pop_join` took: at the bottom, where it was.
    pub(crate) fn unpop_join(&self, job: JobRef) {
        self.joins.push(job);
    }

    /// Moves the oldest pending `join` half to the deque thieves look in
    /// first, and clears the request (F3). A half from below the mark of
    /// the stolen half this thread runs (H6) is not forked beneath that
    /// half: it goes without its kind, so that the half's owner, helping
    /// from this deque while it waits, leaves it to other thieves.
    fn promote(&self) {
        self.registry.sleep.attention.answered(self.index);
        if let Some((job, index)) = self.joins.pop_oldest_indexed() {
            self.registry.counters[self.index].record(Event::Promoted);
            let job = if index >= self.beneath_joins.get() {
                job
            } else {
                job.without_kind()
            };
            self.push(job);
        }
    }

    /// H6: this thread starts a `join` half another thread's `join` waits
    /// for. From here until `leave_stolen_half`, what it pushes on its
    /// deques is work forked beneath that half, and the owner may take the
    /// halves among it. Returns the marks to put back.
    pub(crate) fn enter_stolen_half(&self) -> (i64, i64) {
        let outer = (self.beneath_joins.get(), self.beneath_local.get());
        self.beneath_joins.set(self.joins.next_index());
        let mark = self.local.next_index();
        self.beneath_local.set(mark);
        // H6: release; the latch's `mark_running` that follows publishes
        // it too, and a later store (a nested half, or the mark put back)
        // carries what came before it.
        self.registry.beneath_marks[self.index].store(mark, MARK_STORE);
        outer
    }

    /// H6: the half `enter_stolen_half` started has ended, and its latch
    /// is set: the marks of the half it ran inside come back.
    pub(crate) fn leave_stolen_half(&self, (joins, local): (i64, i64)) {
        self.beneath_joins.set(joins);
        self.beneath_local.set(local);
        // H6: release, after the latch's set: an owner whose acquire reads
        // this sees its latch set, and runs nothing it took here.
        self.registry.beneath_marks[self.index].store(local, MARK_STORE);
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

    /// Finds a job and the level it was queued at. In a pool that never
    /// queued a task at a level of its own, the plain search (V1);
    /// otherwise level by level (V3), an overdue level first (V5), over the
    /// levels ever used.
    fn find_work(&self) -> Option<(JobRef, Priority)> {
        let used = self.registry.priority.in_use();
        if used.any() {
            return self.find_work_by_level(used);
        }
        self.find_normal().map(|job| (job, Priority::Normal))
    }

    /// Own deques, then the injector, then the other workers' deques, then
    /// their pending `join` halves.
    fn find_normal(&self) -> Option<JobRef> {
        self.take_own_normal().or_else(|| self.steal_normal())
    }

    /// This worker's deque, its pending halves, then the injector.
    fn take_own_normal(&self) -> Option<JobRef> {
        if let Some(job) = self.local.pop() {
            return Some(job);
        }
        // Our own pending halves, when we help while waiting (F2).
        if let Some(job) = self.joins.pop() {
            return Some(job);
        }
        self.take_injected()
    }

    /// A batch from the injector, moved to this worker's deque.
    fn take_injected(&self) -> Option<JobRef> {
        let job = self.registry.injector.pop_batch(&self.local)?;
        self.announce_local_work(&self.local);
        Some(job)
    }

    /// Other workers' deques, then their pending `join` halves.
    fn steal_normal(&self) -> Option<JobRef> {
        self.steal(&self.registry.stealers, &self.local)
            .or_else(|| self.take_pending_join())
    }

    /// V3 and V5: the level a search looks at first is the lowest one
    /// passed over by tasks weighing `SHARE`, if any; then every level,
    /// higher first. Afterwards the passes are counted.
    fn find_work_by_level(&self, used: Levels) -> Option<(JobRef, Priority)> {
        let overdue = Priority::ALL
            .into_iter()
            .find(|&level| self.passed[level as usize].get() >= SHARE);
        let found = overdue
            .and_then(|level| {
                self.passed[level as usize].set(0);
                self.take_overdue(used, level).map(|job| (job, level))
            })
            .or_else(|| self.search_levels(used));
        if let Some((_, level)) = found {
            self.count_passes(used, level);
        }
        found
    }

    /// V3: own queues at `Critical` and `High`, own `Normal` work, then
    /// steals from the highest level down, then `Low`.
    fn search_levels(&self, used: Levels) -> Option<(JobRef, Priority)> {
        for level in [Priority::Critical, Priority::High] {
            if let Some(job) = self.take_own_level(used, level) {
                return Some((job, level));
            }
        }
        if let Some(job) = self.take_own_normal() {
            return Some((job, Priority::Normal));
        }
        for level in [Priority::Critical, Priority::High] {
            if let Some(job) = self.steal_level(used, level) {
                return Some((job, level));
            }
        }
        if let Some(job) = self.steal_normal() {
            return Some((job, Priority::Normal));
        }
        self.take_at(used, Priority::Low).map(|job| (job, Priority::Low))
    }

    /// V5: a job at an overdue `level`, taken where and in the order a
    /// search takes that level's jobs (V7): the turn changes when a level
    /// is served, never which of its jobs goes first. `Normal`: the plain
    /// search's order, so a fresh injector batch never lands on top of
    /// older jobs still in this worker's deque.
    fn take_overdue(&self, used: Levels, level: Priority) -> Option<JobRef> {
        if cfg!(stealpool_bug = "overdue_newest") {
            // The overdue turn takes the newest job of its level on this
            // worker: the mistake V7 rules out.
            if let Some(job) = level
                .slot()
                .filter(|&slot| used.has(slot))
                .and_then(|slot| self.levels[slot].pop())
            {
                return Some(job);
            }
        }
        self.take_at(used, level)
    }

    /// V7: the oldest job of this worker's own deque of the level in
    /// `slot`, taken from the end thieves take from (D17: a CAS on `top`,
    /// no fence: the owner knows `bottom`). `None` if it is empty, or
    /// thieves took the last jobs first.
    fn take_own_oldest(&self, slot: usize) -> Option<JobRef> {
        if cfg!(stealpool_bug = "level_newest_first") {
            // The owner takes its newest job of the level, as `Normal`'s
            // deque is taken: the order V7 rules out.
            return self.levels[slot].pop();
        }
        self.levels[slot].pop_oldest()
    }

    /// Any job at `level`: own queues first, then other workers'.
    fn take_at(&self, used: Levels, level: Priority) -> Option<JobRef> {
        match level.slot() {
            None => self.find_normal(),
            Some(_) => self
                .take_own_level(used, level)
                .or_else(|| self.steal_level(used, level)),
        }
    }

    /// V7, V8: a job of `level` (not `Normal`) queued on this worker's
    /// deque of the level (by tasks on this worker), oldest first, or
    /// queued from outside the pool (the level's stage, then its
    /// injector: `LevelQueues::take_outside`), oldest first. When both
    /// hold jobs, the two alternate, so that neither holds the other back
    /// (a task that keeps queueing its successor at its level, or a
    /// stream from outside). Jobs queued from outside never enter a
    /// worker's deque: every worker takes them from the one queue, so each
    /// submitter's jobs wait in one queue, whoever queued them. Nothing if
    /// the level was never used (V1).
    fn take_own_level(&self, used: Levels, level: Priority) -> Option<JobRef> {
        let slot = level.slot().filter(|&slot| used.has(slot))?;
        let bit = 1 << slot;
        let turns = self.outside_first.get();
        self.outside_first.set(turns ^ bit);
        if turns & bit != 0 {
            self.take_outside(slot).or_else(|| self.take_own_oldest(slot))
        } else {
            self.take_own_oldest(slot).or_else(|| self.take_outside(slot))
        }
    }

    /// V8: the oldest job queued from outside at the level in `slot`; the
    /// jobs moved into the level's stage with it are announced (S3).
    fn take_outside(&self, slot: usize) -> Option<JobRef> {
        let (job, moved) = self.registry.priority.level(slot).take_outside()?;
        if moved {
            self.registry.sleep.new_work();
        }
        Some(job)
    }

    /// Steals at `level` (not `Normal`): the oldest job of another
    /// worker's deque of the level, one job, run by this worker at once
    /// (V8); first a relaxed look (D12) at every victim, so that an idle
    /// search over empty levels runs no fence. A job of a level never
    /// moves from one worker's deque to another's: each submitter's jobs
    /// wait in one queue, and every take from it is of its oldest (V7),
    /// so none starts before an older one of its submitter was taken.
    /// Victims from a random place, retried while a steal lost a race.
    fn steal_level(&self, used: Levels, level: Priority) -> Option<JobRef> {
        let slot = level.slot().filter(|&slot| used.has(slot))?;
        let stealers = self.registry.in_use(&self.registry.priority.level(slot).stealers);
        if stealers.iter().all(Stealer::is_empty) {
            return None;
        }
        if cfg!(stealpool_bug = "level_steal_half") {
            // Half of the victim's jobs into this worker's deque, run here
            // beside the victim's next ones: the rule V8 replaces.
            return self.steal(stealers, &self.levels[slot]);
        }
        let registry = &*self.registry;
        let counters = &registry.counters[self.index];
        let start = (self.next_random() % stealers.len() as u64) as usize;
        loop {
            let mut retry = false;
            for victim in (start..stealers.len()).chain(0..start) {
                let stealer = &stealers[victim];
                // D12: a relaxed look spares an empty victim the fence.
                if victim == self.index || stealer.is_empty() {
                    continue;
                }
                counters.record(Event::StealAttempt);
                // D5-D9: the victim's oldest job, claimed at `top`.
                match stealer.steal() {
                    Steal::Success(job) => {
                        counters.record(Event::SuccessfulSteal);
                        counters.record(Event::StealAt(registry.distance(self.index, victim)));
                        counters.record(Event::Stolen(1));
                        return Some(job);
                    }
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }

    /// V5: a job at `found` was taken, so `found` was served; each lower
    /// level that has work queued now was passed over once more, by
    /// `pass_weight(found, level)`.
    fn count_passes(&self, used: Levels, found: Priority) {
        for level in Priority::ALL {
            if level >= found {
                break;
            }
            if self.has_work_at(used, level) {
                let passed = &self.passed[level as usize];
                passed.set(passed.get() + pass_weight(found, level));
            }
        }
        self.passed[found as usize].set(0);
    }

    /// Whether a task of `level` is queued anywhere (relaxed snapshots,
    /// Q4 and D12; a stale answer only delays or advances a turn).
    fn has_work_at(&self, used: Levels, level: Priority) -> bool {
        let registry = &*self.registry;
        match level.slot() {
            None => {
                !registry.injector.is_empty()
                    || registry.in_use(&registry.stealers).iter().any(|s| !s.is_empty())
            }
            Some(slot) => used.has(slot) && registry.priority.level(slot).has_work(registry.slots_in_use()),
        }
    }

    /// No deque thieves look in has work: ask every worker with pending
    /// `join` halves to promote one (F3), and take halves directly from a
    /// worker that was already asked and has not answered (F4): it may be
    /// blocked, or running a long stretch without a `join`.
    fn take_pending_join(&self) -> Option<JobRef> {
        let registry = &*self.registry;
        // W5: only slots ever held can have pending halves.
        let count = registry.in_use(&registry.join_stealers).len();
        if count <= 1 {
            return None;
        }
        let counters = &registry.counters[self.index];
        let start = (self.next_random() % count as u64) as usize;
        for victim in (start..count).chain(0..start) {
            let stealer = &registry.join_stealers[victim];
            // D16's relaxed pre-check: no barrier for an empty deque.
            if victim == self.index || stealer.is_empty() {
                continue;
            }
            // F3: ask; steal only if asked before and not answered.
            if !registry.sleep.attention.ask(victim) {
                continue;
            }
            // `--cfg stealpool_bug="no_rescue"`: wait for the owner to
            // promote, however long it takes (the mistake F4 rules out).
            #[cfg(stealpool_bug = "no_rescue")]
            continue;
            // F4: asked before and not answered. One steal of an
            // owner-biased deque, so one heavy barrier (D16), for the
            // oldest half: the largest piece of work there.
            #[cfg_attr(stealpool_bug = "no_rescue", allow(unreachable_code))]
            counters.record(Event::StealAttempt);
            if let Steal::Success(job) = stealer.steal() {
                // F3: the request is answered.
                registry.sleep.attention.answered(victim);
                counters.record(Event::SuccessfulSteal);
                counters.record(Event::StealAt(registry.distance(self.index, victim)));
                counters.record(Event::Stolen(1));
                return Some(job);
            }
        }
        None
    }

    /// Jobs moved into one of our deques in a batch are work others may
    /// take.
    fn announce_local_work(&self, deque: &Worker<JobRef>) {
        if !deque.is_empty() {
            self.registry.sleep.new_work();
        }
    }

    /// Tries every other worker's deque in `stealers` once, nearest first
    /// (the workers sharing our cache, then our node, then the rest), from
    /// a random place in each ring, taking half of a victim's jobs into
    /// `dest`; then the spare threads' slots (W3); tries again while some
    /// steal lost a race (`proofs/topology.md`). With one cache for the
    /// whole pool, the first ring is every worker in index order and the
    /// others are empty: one random start over all workers.
    fn steal(&self, stealers: &[Stealer<JobRef>], dest: &Worker<JobRef>) -> Option<JobRef> {
        let registry = &*self.registry;
        if stealers.len() <= 1 {
            return None;
        }
        // A spare steals as the worker of its home place would.
        let rings = registry.placement.rings(registry.home(self.index));
        loop {
            let mut retry = false;
            for &(distance, ring) in &rings {
                let len = ring.len();
                if len == 0 {
                    continue;
                }
                let start = (self.next_random() % len as u64) as usize;
                for victim in ring.starting_at(start) {
                    match self.steal_from(&stealers[victim], victim, distance, dest) {
                        Steal::Success(job) => return Some(job),
                        Steal::Retry => retry = true,
                        Steal::Empty => {}
                    }
                }
            }
            // W3: the spare slots ever held (W5), after the workers: most
            // are idle, so a relaxed look first (D12) spares them the
            // steal's barrier.
            let spares = registry
                .in_use(stealers)
                .iter()
                .enumerate()
                .skip(registry.num_workers());
            for (victim, stealer) in spares {
                if stealer.is_empty() {
                    continue;
                }
                let distance = registry.distance(self.index, victim);
                match self.steal_from(stealer, victim, distance, dest) {
                    Steal::Success(job) => return Some(job),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }

    /// One batch steal from `victim`, at `distance`, counted.
    fn steal_from(
        &self,
        stealer: &Stealer<JobRef>,
        victim: usize,
        distance: Distance,
        dest: &Worker<JobRef>,
    ) -> Steal<JobRef> {
        if victim == self.index {
            return Steal::Empty;
        }
        let counters = &self.registry.counters[self.index];
        counters.record(Event::StealAttempt);
        let before = dest.len();
        let stolen = stealer.steal_batch_and_pop_oldest(dest);
        if let Steal::Success(_) = stolen {
            counters.record(Event::SuccessfulSteal);
            counters.record(Event::StealAt(distance));
            counters.record(Event::Stolen(1 + dest.len().saturating_sub(before) as u64));
            self.announce_local_work(dest);
        }
        stolen
    }

    fn next_random(&self) -> u64 {
        // xorshift64*: cheap, per thread, good enough to spread victims.
        let mut x = self.rng.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
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

    /// H6: waits for the `join` half whose latch is `latch`, which another
    /// thread took. Meanwhile it runs only halves forked beneath that one:
    /// taken from the deque of the thread that runs it, from its mark on.
    /// With none to take after a few rounds, it parks with a spare
    /// standing in (W1) until the latch is set.
    pub(crate) fn wait_for_half(&self, latch: &CoreLatch) {
        if cfg!(stealpool_bug = "join_wait_runs_any") {
            // Any job of the pool, on top of the `join` frame: the rule H6
            // replaces.
            return self.wait_until(latch);
        }
        self.wait_helping(latch, || self.take_beneath(latch));
    }

    /// H7: waits for the scope at `scope` to finish (`latch`). Meanwhile
    /// it runs only that scope's tasks from its own deque, then parks as
    /// `wait_for_half` does.
    pub(crate) fn wait_for_scope(&self, latch: &CoreLatch, scope: *const ()) {
        if cfg!(stealpool_bug = "join_wait_runs_any") {
            return self.wait_until(latch);
        }
        self.wait_helping(latch, || self.take_scope_task(scope));
    }

    /// Runs what `take` finds until `latch` is set; when it finds nothing,
    /// backs off as an idle search does, then parks (H6, H7).
    // Under the model checkers `WAIT_ROUNDS` is 0, and the test never holds.
    #[allow(clippy::absurd_extreme_comparisons)]
    fn wait_helping(&self, latch: &CoreLatch, take: impl Fn() -> Option<JobRef>) {
        let mut round = 0;
        while !latch.probe() {
            if let Some(job) = take() {
                self.execute(job);
                round = 0;
            } else if round < WAIT_ROUNDS {
                if round < SPIN_ROUNDS {
                    for _ in 0..1u32 << round {
                        spin_loop();
                    }
                } else {
                    thread::yield_now();
                }
                round += 1;
            } else {
                // W1: the pool keeps its strength while this thread waits.
                probes::WAITS_PARKED.hit();
                let blocked = Blocked::enter(self);
                self.registry.sleep.park(self.index, latch);
                drop(blocked);
            }
        }
    }

    /// H6: a half forked beneath the one whose latch is `latch`: from the
    /// shared deque of the thread that runs it, at or above that thread's
    /// mark. The runner is asked to promote one (F3) when there is none.
    /// A half taken after the latch was set may be anyone's: it goes to the
    /// injector instead.
    fn take_beneath(&self, latch: &CoreLatch) -> Option<JobRef> {
        let runner = latch.runner().filter(|&runner| runner != self.index)?;
        let registry = &*self.registry;
        // H6: acquire, pairing with the runner's stores of its mark.
        let mark = registry.beneath_marks[runner].load(MARK_LOAD);
        let counters = &registry.counters[self.index];
        counters.record(Event::StealAttempt);
        match registry.stealers[runner].steal_if(mark, JobRef::word_is_half) {
            Steal::Success(job) => {
                // H6: set since: the mark read may be one put back, and the
                // half taken one pushed after the awaited half ended.
                if latch.probe() {
                    self.reroute(job);
                    return None;
                }
                counters.record(Event::SuccessfulSteal);
                counters.record(Event::StealAt(registry.distance(self.index, runner)));
                counters.record(Event::Stolen(1));
                probes::HALVES_HELPED.hit();
                Some(job)
            }
            Steal::Retry => None,
            Steal::Empty => {
                registry.sleep.attention.ask(runner);
                None
            }
        }
    }

    /// H7: a task of the scope at `scope` from this thread's own deque,
    /// newest first. A task of another scope, or any other job that is
    /// not a `join` half, goes to the injector: not this wait's to run on
    /// top of its frame, but not to be left behind it either. A `join`
    /// half is an older frame's: it goes back, and the search stops.
    /// With nothing of the scope's left here, the oldest scope task of
    /// another thread's deque, if it turns out to be this scope's.
    fn take_scope_task(&self, scope: *const ()) -> Option<JobRef> {
        while let Some(job) = self.local.pop() {
            // SAFETY: popped, so ours until it runs; a scope task's job.
            if job.is_scope_task() && unsafe { scope_of(&job) } == scope {
                return Some(job);
            }
            if job.is_half() {
                self.local.push(job);
                break;
            }
            self.reroute(job);
        }
        self.steal_scope_task(scope)
    }

    /// H7: the oldest job of another thread's shared deque, if it is a
    /// scope task (told by its kind bits alone, before the steal), from a
    /// random victim on; run if it belongs to the scope at `scope`, handed
    /// to the injector otherwise (at most one such per call).
    fn steal_scope_task(&self, scope: *const ()) -> Option<JobRef> {
        let registry = &*self.registry;
        let stealers = registry.in_use(&registry.stealers);
        let count = stealers.len();
        let start = (self.next_random() % count as u64) as usize;
        for victim in (start..count).chain(0..start) {
            if victim == self.index || stealers[victim].is_empty() {
                continue;
            }
            if let Steal::Success(job) = stealers[victim].steal_if(i64::MIN, JobRef::word_is_scope_task) {
                // SAFETY: stolen, so ours until it runs; its kind bits say
                // it is a scope task's job.
                if unsafe { scope_of(&job) } == scope {
                    let counters = &registry.counters[self.index];
                    counters.record(Event::SuccessfulSteal);
                    counters.record(Event::StealAt(registry.distance(self.index, victim)));
                    counters.record(Event::Stolen(1));
                    return Some(job);
                }
                self.reroute(job);
                return None;
            }
        }
        None
    }

    /// H6, H7: a job a wait took but may not run on top of its frame goes
    /// to the injector, where any thread finds it.
    pub(crate) fn reroute(&self, job: JobRef) {
        probes::REROUTED.hit();
        self.registry.injector.push(job);
        self.registry.sleep.new_work();
    }

    /// Runs any job of the pool until `latch` is set, sleeping when there
    /// are none: only the fallback of a cross-pool wait with no spare to
    /// stand in (J3), and the `join_wait_runs_any` mutant; every other
    /// wait follows H4, H6 or H7.
    pub(crate) fn wait_until(&self, latch: &CoreLatch) {
        while !latch.probe() {
            if !self.run_one_job() {
                self.idle(Some(latch));
            }
        }
    }

    /// Out of work: search with backoff, then sleep (S1-S7). Returns `false`
    /// when the pool is shutting down and the worker should exit; `true`
    /// after running a job, when woken, or when `latch` is set.
    fn idle(&self, latch: Option<&CoreLatch>) -> bool {
        let sleep = &self.registry.sleep;
        let mut searching = sleep.start_searching();
        loop {
            for round in 0..IDLE_ROUNDS {
                if latch.is_some_and(CoreLatch::probe) {
                    if searching {
                        sleep.stop_searching();
                    }
                    return true;
                }
                if let Some((job, level)) = self.find_work() {
                    if searching {
                        sleep.stop_searching();
                    }
                    self.execute_at(job, level);
                    return true;
                }
                if round < SPIN_ROUNDS {
                    for _ in 0..1u32 << round {
                        spin_loop();
                    }
                } else {
                    thread::yield_now();
                }
            }
            let registry = &*self.registry;
            match sleep.sleep(
                self.index,
                searching,
                latch,
                || registry.has_work(),
                || registry.is_terminating(),
            ) {
                Wake::Exit => return false,
                Wake::Searching => searching = true,
            }
        }
    }
}
