//! A worker thread: its deque, its search for work, and its idle loop.

use super::affinity;
use super::job::{AbortOnUnwind, JobRef};
use super::latch::CoreLatch;
use super::ordering::RELAXED;
use super::registry::Registry;
use super::sleep::Wake;
use super::stats::Event;
use crate::deque::{Steal, Worker};
use crate::sync::{spin_loop, thread, thread_local, Arc};
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;

/// Rounds of looking for work before an idle worker goes to sleep: the
/// first few spin, the rest yield. Model checkers get one round: more only
/// multiplies the interleavings without adding behaviours.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
const IDLE_ROUNDS: u32 = 32;
#[cfg(any(feature = "loom", feature = "shuttle"))]
const IDLE_ROUNDS: u32 = 1;
/// Rounds that spin before yielding; spin `2^round` times.
const SPIN_ROUNDS: u32 = 6;

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
thread_local! {
    /// The `WorkerThread` of the current thread, null on threads outside
    /// every pool. `const`: read at every `join`, with no lazy-init check.
    static CURRENT: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
}

#[cfg(any(feature = "loom", feature = "shuttle"))]
thread_local! {
    // Not `const`: loom's `thread_local!` takes only the plain form.
    #[allow(clippy::missing_const_for_thread_local)]
    /// The `WorkerThread` of the current thread, null on threads outside
    /// every pool.
    static CURRENT: Cell<*const WorkerThread> = Cell::new(ptr::null());
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
    registry: Arc<Registry>,
    /// xorshift state for picking victims: per thread, never shared.
    rng: Cell<u64>,
    /// How many tasks are running on this thread's stack (nested through
    /// work-while-waiting), for `wait_all` (P2).
    tasks_on_stack: Cell<usize>,
    /// How many of those the `wait_all` calls on this stack exempted.
    exempted: Cell<usize>,
}

impl WorkerThread {
    /// The current thread's worker, or null.
    #[inline]
    pub(crate) fn current() -> *const WorkerThread {
        CURRENT.with(Cell::get)
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

    /// The body of worker thread `index`: runs jobs until the pool shuts down
    /// and no work is left.
    pub(crate) fn run(index: usize, local: Worker<JobRef>, joins: Worker<JobRef>, registry: Arc<Registry>) {
        let worker = WorkerThread {
            index,
            local,
            joins,
            registry,
            rng: Cell::new(0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F)),
            tasks_on_stack: Cell::new(0),
            exempted: Cell::new(0),
        };
        let placement = &worker.registry.placement;
        // Pinning is a request to the system, not a condition for running:
        // a worker that cannot be pinned runs unpinned, counted in `Stats`.
        if placement.pin() && !affinity::pin_current_thread(placement.cpu(index)) {
            worker.registry.counters[index].record(Event::PinFailed);
        }
        CURRENT.with(|current| current.set(&worker));
        loop {
            if worker.run_one_job() {
                continue;
            }
            if !worker.idle(None) {
                break;
            }
        }
        CURRENT.with(|current| current.set(ptr::null()));
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

    /// Pops the newest job of this worker's own deque.
    #[inline]
    pub(crate) fn pop_local(&self) -> Option<JobRef> {
        self.local.pop()
    }

    /// Records a `join`'s second half (F1): on the owner-biased deque, with
    /// no barrier and no RMW, then tells sleepers (S3, S4) as any push does,
    /// and serves a pending request for work (F3).
    #[inline]
    pub(crate) fn push_join(&self, job: JobRef) {
        self.joins.push(job);
        // S3 here too: the task that forked may block outside the pool
        // until this half runs; a sleeper must then take it (F5).
        self.registry.sleep.new_work();
        // F3: relaxed, a hint; a missed request is covered by F4.
        if self.registry.wanted[self.index].load(RELAXED) {
            self.promote();
        }
    }

    /// Takes back the newest pending `join` half, or `None` if it (and so
    /// every older one) was promoted or taken (F2).
    #[inline]
    pub(crate) fn pop_join(&self) -> Option<JobRef> {
        self.joins.pop()
    }

    /// Pops one of this thread's own jobs: the shared deque's newest, else
    /// the newest pending `join` half.
    pub(crate) fn pop_own(&self) -> Option<JobRef> {
        self.local.pop().or_else(|| self.joins.pop())
    }

    /// Moves the oldest pending `join` half to the deque thieves look in
    /// first, and clears the request (F3).
    #[cold]
    #[inline(never)]
    fn promote(&self) {
        // F3: relaxed; a request set after this store is served at a
        // later `join` or by F4.
        self.registry.wanted[self.index].store(false, RELAXED);
        if let Some(job) = self.joins.pop_oldest() {
            self.registry.counters[self.index].record(Event::Promoted);
            self.push(job);
        }
    }

    /// Finds one job and runs it; `false` if none was found.
    pub(crate) fn run_one_job(&self) -> bool {
        match self.find_work() {
            Some(job) => {
                self.execute(job);
                true
            }
            None => false,
        }
    }

    /// Runs a job.
    pub(crate) fn execute(&self, job: JobRef) {
        let guard = AbortOnUnwind;
        // SAFETY: every `JobRef` in the pool's queues is executed once, by
        // whoever took it out; stack jobs' owners wait for their latches.
        unsafe { job.execute() };
        std::mem::forget(guard);
    }

    /// Own deques, then the injector, then the other workers' deques, then
    /// their pending `join` halves.
    fn find_work(&self) -> Option<JobRef> {
        if let Some(job) = self.local.pop() {
            return Some(job);
        }
        // Our own pending halves, when we help while waiting (F2).
        if let Some(job) = self.joins.pop() {
            return Some(job);
        }
        let registry = &*self.registry;
        if let Some(job) = registry.injector.pop_batch(&self.local) {
            self.announce_local_work();
            return Some(job);
        }
        self.steal().or_else(|| self.take_pending_join())
    }

    /// No deque thieves look in has work: ask every worker with pending
    /// `join` halves to promote one (F3), and take halves directly from a
    /// worker that was already asked and has not answered (F4): it may be
    /// blocked, or running a long stretch without a `join`.
    fn take_pending_join(&self) -> Option<JobRef> {
        let registry = &*self.registry;
        let count = registry.join_stealers.len();
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
            let wanted = &registry.wanted[victim];
            // F3: relaxed, a hint.
            if !wanted.load(RELAXED) {
                wanted.store(true, RELAXED);
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
                wanted.store(false, RELAXED);
                counters.record(Event::SuccessfulSteal);
                counters.record(Event::StealAt(registry.placement.distance(self.index, victim)));
                counters.record(Event::Stolen(1));
                return Some(job);
            }
        }
        None
    }

    /// Jobs moved into our deque in a batch are work others may take.
    fn announce_local_work(&self) {
        if !self.local.is_empty() {
            self.registry.sleep.new_work();
        }
    }

    /// Tries every other worker once, nearest first (the workers sharing
    /// our cache, then our node, then the rest), from a random place in
    /// each ring, taking half of a victim's jobs; tries again while some
    /// steal lost a race (`proofs/topology.md`). With one cache for the
    /// whole pool, the first ring is every worker in index order and the
    /// others are empty: one random start over all workers.
    fn steal(&self) -> Option<JobRef> {
        let registry = &*self.registry;
        let stealers = &registry.stealers;
        if stealers.len() <= 1 {
            return None;
        }
        let counters = &registry.counters[self.index];
        let rings = registry.placement.rings(self.index);
        loop {
            let mut retry = false;
            for &(distance, ring) in &rings {
                let len = ring.len();
                if len == 0 {
                    continue;
                }
                let start = (self.next_random() % len as u64) as usize;
                for victim in ring.starting_at(start) {
                    if victim == self.index {
                        continue;
                    }
                    counters.record(Event::StealAttempt);
                    let before = self.local.len();
                    match stealers[victim].steal_batch_and_pop(&self.local) {
                        Steal::Success(job) => {
                            counters.record(Event::SuccessfulSteal);
                            counters.record(Event::StealAt(distance));
                            counters
                                .record(Event::Stolen(1 + self.local.len().saturating_sub(before) as u64));
                            self.announce_local_work();
                            return Some(job);
                        }
                        Steal::Retry => retry = true,
                        Steal::Empty => {}
                    }
                }
            }
            if !retry {
                return None;
            }
        }
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
        self.registry.task_done(self.index);
    }

    /// Records a panic caught by a task that reports it elsewhere (to a
    /// `JoinHandle` or a scope).
    pub(crate) fn record_panic(&self) {
        self.registry.counters[self.index].record(Event::Panicked);
    }

    /// Runs other jobs until `latch` is set, sleeping when there are none
    /// (work-while-waiting).
    pub(crate) fn wait_until(&self, latch: &CoreLatch) {
        while !latch.probe() {
            if !self.run_one_job() {
                self.idle(Some(latch));
            }
        }
    }

    /// Out of work: search with backoff, then sleep (S1-S6). Returns `false`
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
                if let Some(job) = self.find_work() {
                    if searching {
                        sleep.stop_searching();
                    }
                    self.execute(job);
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
