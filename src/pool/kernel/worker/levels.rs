//! The search of a pool that queued tasks at levels of their own (V3-V8):
//! each level's queues in turn, an overdue level first, and the passes
//! that decide when a level is overdue.

use super::WorkerThread;
use crate::lockfree::JobRef;
use crate::lockfree::{Steal, Stealer};
use crate::pool::kernel::stats::Event;
use crate::pool::queues::priority::{pass_weight, Levels, Priority, Source, Staged, SHARE};
use crate::sync::flags::bug;

impl WorkerThread {
    /// V3 and V5: the level a search looks at first is the lowest one
    /// passed over by tasks weighing `SHARE`, if any; then every level,
    /// higher first. Afterwards the passes are counted.
    pub(super) fn find_work_by_level(&self, used: Levels) -> Option<(JobRef, Priority)> {
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

    /// V3: own queues at `Critical` and `High`, own `Normal` work and the
    /// `Normal` jobs from outside, then steals from the highest level
    /// down, then `Low`.
    pub(super) fn search_levels(&self, used: Levels) -> Option<(JobRef, Priority)> {
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
    /// is served, never which of its jobs goes first. `Normal`: this
    /// worker's own work, then the jobs from outside, then steals, as in
    /// the search (V8).
    pub(super) fn take_overdue(&self, used: Levels, level: Priority) -> Option<JobRef> {
        if bug!("overdue_newest") {
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
    pub(super) fn take_own_oldest(&self, slot: usize) -> Option<JobRef> {
        if bug!("level_newest_first") {
            // The owner takes its newest job of the level, as `Normal`'s
            // deque is taken: the order V7 rules out.
            return self.levels[slot].pop();
        }
        self.levels[slot].pop_oldest()
    }

    /// Any job at `level`: own queues first, then other workers'.
    pub(super) fn take_at(&self, used: Levels, level: Priority) -> Option<JobRef> {
        match level.slot() {
            None => self.take_own_normal().or_else(|| self.steal_normal()),
            Some(_) => self
                .take_own_level(used, level)
                .or_else(|| self.steal_level(used, level)),
        }
    }

    /// V7, V8: a job of `level` (not `Normal`) queued on this worker's
    /// deque of the level (by tasks on this worker), oldest first, or
    /// queued from outside the pool (the level's stage, then its
    /// injector: `LevelQueues::take_outside`), oldest first. The two
    /// sources are served in rounds (`Rounds`): a round takes from one
    /// source as many jobs as it held when the round began, then the
    /// other's round begins, or at once if the source is empty; so
    /// neither holds the other back (a task that keeps queueing its
    /// successor at its level, or a stream from outside), and each
    /// source's jobs queued together run together. Jobs queued from
    /// outside never enter a worker's deque: every worker takes them from
    /// the one queue, so each submitter's jobs wait in one queue, whoever
    /// queued them. Nothing if the level was never used (V1).
    pub(super) fn take_own_level(&self, used: Levels, level: Priority) -> Option<JobRef> {
        let slot = level.slot().filter(|&slot| used.has(slot))?;
        let (source, left) = self.rounds.get(slot);
        if left > 0 {
            if let Some((job, _)) = self.take_from(slot, source) {
                self.rounds.set(slot, source, left as usize - 1);
                return Some(job);
            }
            // Emptied early (thieves, other workers): the other's round.
            return self.start_round(slot, source.other());
        }
        self.start_round(slot, source.other())
            .or_else(|| self.start_round(slot, source))
    }

    /// V8: a round of `source` at `slot` begins with a take: as many more
    /// takes as the source held jobs after it.
    fn start_round(&self, slot: usize, source: Source) -> Option<JobRef> {
        let (job, rest) = self.take_from(slot, source)?;
        // `sources_alternate`: every round one take long, the two sources
        // alternating job by job (the rule V8's rounds replace).
        let rest = if bug!("sources_alternate") { 0 } else { rest };
        self.rounds.set(slot, source, rest);
        Some(job)
    }

    /// The oldest job of `source` at `slot`, and how many jobs the source
    /// held after the take (a relaxed snapshot of this worker's deque,
    /// D12, or the stage's length under its lock).
    fn take_from(&self, slot: usize, source: Source) -> Option<(JobRef, usize)> {
        match source {
            Source::Own => {
                let job = self.take_own_oldest(slot)?;
                Some((job, self.levels[slot].len()))
            }
            Source::Outside => {
                let staged = self.registry.priority.level(slot).take_outside()?;
                let left = staged.left;
                Some((self.announce_staged(staged)?, left))
            }
        }
    }

    /// V8: the job taken from a stage; the jobs moved into the stage with
    /// it are announced (S3).
    pub(super) fn announce_staged(&self, staged: Staged) -> Option<JobRef> {
        if staged.moved {
            self.registry.sleep.new_work();
        }
        Some(staged.job)
    }

    /// Steals at `level` (not `Normal`): the oldest job of another
    /// worker's deque of the level, one job, run by this worker at once
    /// (V8); first a relaxed look (D12) at every victim, so that an idle
    /// search over empty levels runs no fence. A job of a level never
    /// moves from one worker's deque to another's: each submitter's jobs
    /// wait in one queue, and every take from it is of its oldest (V7),
    /// so none starts before an older one of its submitter was taken.
    /// Victims from a random place, retried while a steal lost a race.
    pub(super) fn steal_level(&self, used: Levels, level: Priority) -> Option<JobRef> {
        let slot = level.slot().filter(|&slot| used.has(slot))?;
        let stealers = self.registry.in_use(&self.registry.priority.level(slot).stealers);
        if stealers.iter().all(Stealer::is_empty) {
            return None;
        }
        if bug!("level_steal_half") {
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
    pub(super) fn count_passes(&self, used: Levels, found: Priority) {
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
    pub(super) fn has_work_at(&self, used: Levels, level: Priority) -> bool {
        let registry = &*self.registry;
        match level.slot() {
            None => {
                !registry.injector.is_empty()
                    || registry.priority.has_normal_staged()
                    || registry.in_use(&registry.stealers).iter().any(|s| !s.is_empty())
                    || registry.bounded_work()
            }
            Some(slot) => used.has(slot) && registry.priority.level(slot).has_work(registry.slots_in_use()),
        }
    }
}
