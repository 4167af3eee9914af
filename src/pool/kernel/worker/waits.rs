//! A worker that waits: for a stolen `join` half (H6), for its scope
//! (H7), for another pool's work (U2, Y1), or for any work at all (the
//! idle loop, S1-S7).

use super::{WorkerThread, IDLE_ROUNDS, SPIN_ROUNDS, WAIT_ROUNDS};
use crate::lockfree::JobRef;
use crate::lockfree::Steal;
use crate::pool::kernel::latch::CoreLatch;
use crate::pool::kernel::latch::CrossPoolLatch;
use crate::pool::kernel::ordering::MARK_LOAD;
use crate::pool::kernel::probes;
use crate::pool::kernel::scope::scope_of;
use crate::pool::kernel::serving::Lineage;
use crate::pool::kernel::sleep::Wake;
use crate::pool::kernel::spares::Blocked;
use crate::pool::kernel::stall::{self, Awaited, Next, Released, Stall, WaitKind};
use crate::pool::kernel::stats::Event;
use crate::sync::flags::bug;
use crate::sync::{spin_loop, thread};
use std::panic::Location;

/// A wait the stall detector watches (Z1, Z6, Z7): a handle's on another
/// pool's task or an `install`'s, with the latch it parks on; or a `join`
/// half's or a scope's (`None`: it parks on the wait's own latch).
#[derive(Clone)]
pub(super) struct Watched(Awaited, Option<*const CrossPoolLatch>);

/// The result of a wait no detector watches, which cannot report a stall.
fn unwatched(result: Result<(), Stall>) {
    if result.is_err() {
        unreachable!("an unwatched wait reports no stall");
    }
}

impl WorkerThread {
    /// H6: waits for the `join` half whose latch is `latch`, which another
    /// thread took. Meanwhile it runs only halves forked beneath that one:
    /// taken from the deque of the thread that runs it, from its mark on.
    /// With none to take after a few rounds, it parks with a spare
    /// standing in (W1) until the latch is set.
    pub(crate) fn wait_for_half(&self, latch: &CoreLatch) {
        if bug!("join_wait_runs_any") {
            // Any job of the pool, on top of the `join` frame: the rule H6
            // replaces.
            return self.wait_until(latch);
        }
        let watched = self.own_pool_wait(WaitKind::Half);
        unwatched(self.wait_helping(latch, || self.take_beneath(latch), watched));
    }

    /// H7: waits for the scope at `scope` to finish (`latch`). Meanwhile
    /// it runs only that scope's tasks from its own deque, then parks as
    /// `wait_for_half` does.
    pub(crate) fn wait_for_scope(&self, latch: &CoreLatch, scope: *const ()) {
        if bug!("join_wait_runs_any") {
            return self.wait_until(latch);
        }
        let watched = self.own_pool_wait(WaitKind::Scope);
        unwatched(self.wait_helping(latch, || self.take_scope_task(scope), watched));
    }

    /// Z7: a `join` half's or a scope's wait as the stall detector reads
    /// it: for work that only this pool's threads run, one of them or
    /// queued (`ANY_THREAD`). It cannot end without that work (its frame
    /// is borrowed), so it never reports; a set it closes is handed over
    /// as one that an `install` whose job runs closes (Z6).
    /// `--cfg stealpool_bug="own_waits_unwatched"` leaves it unrecorded
    /// (before Z7): its thread counts as running.
    fn own_pool_wait(&self, kind: WaitKind) -> Option<Watched> {
        /// Z7: whoever runs it, a thread of the pool.
        unsafe fn any_thread(_: *const ()) -> usize {
            stall::ANY_THREAD
        }
        if bug!("own_waits_unwatched") {
            return None;
        }
        let here = Location::caller();
        let awaited = Awaited {
            pool: &raw const *self.registry,
            claim: std::ptr::null(),
            runner_of: any_thread,
            // Read only for a lender's sake (Y5), and no lender is handed
            // this work (Z7).
            lineage: Lineage::new(u64::MAX, None),
            pending: None,
            lent_to: std::ptr::null(),
            lender_frames: Vec::new(),
            origin: here,
            joined_at: here,
            kind,
        };
        Some(Watched(awaited, None))
    }

    /// U2, Y1: waits for `latch` (the caller holds its `Blocked`, with a
    /// spare standing in or not), running only the jobs posted to this
    /// worker alone, and parking between them, unwatched: an `install`
    /// whose withdrawal lost to a runner (its job then runs), and the bug
    /// flag `install_unwatched` (Z6).
    pub(crate) fn wait_serving_mail(&self, latch: &CoreLatch) {
        unwatched(self.wait_helping(latch, || None, None));
    }

    /// As `wait_serving_mail`, for a cross-pool `install` or handle, which
    /// the stall detector watches (Z1, Z6): `Err` if the wait can never
    /// end (Z2) and may end without its result (a handle's, or an
    /// `install`'s whose job nobody started), which it
    /// then does.
    pub(crate) fn wait_serving_mail_watched(
        &self,
        latch: &CrossPoolLatch,
        awaited: Awaited,
    ) -> Result<(), Stall> {
        self.wait_helping(&latch.core, || None, Some(Watched(awaited, Some(latch))))
    }

    /// Runs what `take` finds until `latch` is set; when it finds nothing,
    /// backs off as an idle search does, then parks (H6, H7).
    // Under the model checkers `WAIT_ROUNDS` is 0, and the test never holds.
    #[allow(clippy::absurd_extreme_comparisons)]
    pub(super) fn wait_helping(
        &self,
        latch: &CoreLatch,
        take: impl Fn() -> Option<JobRef>,
        watched: Option<Watched>,
    ) -> Result<(), Stall> {
        let mut round = 0;
        while !latch.probe() {
            // U2: a job posted to this worker alone runs here too, on top
            // of the wait: only this thread may run it, and its poster may
            // wait for it. `--cfg stealpool_bug="wait_ignores_mail"` leaves
            // it for after the wait.
            let mail = if bug!("wait_ignores_mail") {
                None
            } else {
                self.take_mail()
            };
            if let Some(job) = mail {
                // Y5: posted, not made inside the task beneath.
                self.run_posted(|| self.execute(job));
                round = 0;
            } else if let Some(job) = take() {
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
                let has_mail = || !bug!("wait_ignores_mail") && self.has_mail();
                // Z1: recorded while parked; the park that would complete
                // a stall is not made.
                let mut parked = match watched {
                    Some(Watched(ref awaited, cross)) => Some(stall::park(
                        self,
                        awaited.clone(),
                        match cross {
                            Some(cross) => Released::Mail(cross, self.index),
                            None => Released::Core(latch, self.index),
                        },
                    )?),
                    None => None,
                };
                // Z9: a wait that found itself in a blocked set it may end
                // by running queued work does not park.
                let mut next = match &parked {
                    Some(parked) if parked.escapes() => Next::Escape,
                    _ => Next::Park,
                };
                // Z5: a watched wait looks again every `RECHECK` while it
                // stays parked, its record and stand-in kept.
                let recheck = parked.as_ref().and(stall::RECHECK);
                while next == Next::Park && self.registry.sleep.park(self.index, latch, has_mail, recheck) {
                    if let Some(parked) = parked.as_mut() {
                        next = parked.recheck()?;
                    }
                }
                drop(parked);
                drop(blocked);
                if next == Next::Escape {
                    self.escape_stall();
                }
            }
        }
        Ok(())
    }

    /// Z9: every thread that could end this wait is parked in a blocked
    /// set, none of whose waits may end without its result, while this
    /// pool holds queued work: this thread runs one job of it on top of
    /// its wait, as an idle search finds it, within H4's budget of runs in
    /// place. The job may end the set; if it parks too, the set that
    /// forms then is looked at anew.
    fn escape_stall(&self) {
        let Some(_budget) = self.wait_in_place() else {
            return;
        };
        if let Some((job, level)) = self.find_work() {
            probes::STALLS_ESCAPED.hit();
            // Y5: above a mark, as a posted job: not made inside the tasks
            // beneath (and H5 tells a join of one of them from a cycle).
            self.run_posted(|| self.execute_at(job, level));
        }
    }

    /// H6: a half forked beneath the one whose latch is `latch`: from the
    /// shared deque of the thread that runs it, at or above that thread's
    /// mark. The runner is asked to promote one (F3) when there is none.
    /// A half taken after the latch was set may be anyone's: it goes to the
    /// injector instead.
    pub(super) fn take_beneath(&self, latch: &CoreLatch) -> Option<JobRef> {
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
    pub(super) fn take_scope_task(&self, scope: *const ()) -> Option<JobRef> {
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
    pub(super) fn steal_scope_task(&self, scope: *const ()) -> Option<JobRef> {
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
    /// are none: only the `join_wait_runs_any` mutant; every wait of the
    /// pool follows H4, H6, H7 or Y1.
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
    pub(super) fn idle(&self, latch: Option<&CoreLatch>) -> bool {
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
                    // F3: the sleeper this wakes to take up the search
                    // will look for what the job forks; this slot's own
                    // request has its next `join` promote a half for it
                    // to steal from `local`, with no heavy barrier (F4).
                    if searching && sleep.stop_searching() {
                        self.registry.sleep.attention.ask(self.index);
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
                || registry.has_work() || self.has_mail(),
                || registry.is_terminating(),
            ) {
                Wake::Exit => return false,
                Wake::Searching => searching = true,
            }
        }
    }
}
