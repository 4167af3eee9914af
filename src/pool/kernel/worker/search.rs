//! Where a worker looks for work: its own deques, the injector, other
//! workers' deques nearest first, and their pending `join` halves (the
//! plain search, V1), with the victim choice and the steal counting.

use super::WorkerThread;
use crate::lockfree::JobRef;
use crate::lockfree::{Steal, Stealer, Worker};
use crate::pool::kernel::stats::Event;
use crate::pool::placement::topology::Distance;
use crate::pool::queues::priority::Priority;
use crate::sync::flags::bug;

impl WorkerThread {
    /// Finds a job and the level it was queued at. In a pool that never
    /// queued a task at a level of its own, the plain search (V1);
    /// otherwise level by level (V3), an overdue level first (V5), over the
    /// levels ever used.
    pub(super) fn find_work(&self) -> Option<(JobRef, Priority)> {
        // U2: a job posted to this worker alone comes first: nobody else
        // may run it, and its poster may be waiting for it.
        if let Some(job) = self.take_mail() {
            return Some((job, Priority::Normal));
        }
        let used = self.registry.priority.in_use();
        if used.any() {
            return self.find_work_by_level(used);
        }
        self.find_normal().map(|job| (job, Priority::Normal))
    }

    /// U2: the oldest job posted to this worker's mailbox, if any (a
    /// spare's slot has none).
    #[inline]
    pub(super) fn take_mail(&self) -> Option<JobRef> {
        self.registry.mailboxes.take(self.index)
    }

    /// Whether this worker's mailbox holds a job (U2).
    pub(super) fn has_mail(&self) -> bool {
        !bug!("mail_unchecked") && self.registry.mailboxes.has_mail(self.index)
    }

    /// Own deques, then the injector, then the other workers' deques, then
    /// their pending `join` halves.
    pub(super) fn find_normal(&self) -> Option<JobRef> {
        self.take_own_normal().or_else(|| self.steal_normal())
    }

    /// This worker's deque, its bounded deque (G12), its pending halves,
    /// then the injector.
    pub(super) fn take_own_normal(&self) -> Option<JobRef> {
        self.pop_own_deques().or_else(|| self.take_injected())
    }

    /// This worker's own deques at `Normal`, in the one order both
    /// searches use: its deque, its bounded deque of plain spawned tasks
    /// (G12, with `bounded_steals`), then its pending `join` halves, when
    /// it helps while waiting (F2).
    #[inline]
    pub(super) fn pop_own_deques(&self) -> Option<JobRef> {
        self.local
            .pop()
            .or_else(|| self.pop_bounded())
            .or_else(|| self.joins.pop())
    }

    /// V9: the oldest job queued from outside the pool, its node's first
    /// (Q10), taken one at a time through the stage (V8), by this worker
    /// as by a thief: submitted tasks start oldest first on every thread,
    /// so a chain of handles, each joining the one before, never starts a
    /// stage whose predecessor nobody has taken.
    /// `--cfg stealpool_bug="normal_batch_plain"` moves a whole batch into
    /// this worker's deque instead, from whose other end thieves take the
    /// newest (the take before V9).
    pub(super) fn take_injected(&self) -> Option<JobRef> {
        if bug!("normal_batch_plain") {
            let job = self.registry.pop_injected(self.index, &self.local)?;
            self.announce_local_work(&self.local);
            return Some(job);
        }
        self.announce_staged(self.registry.take_outside(self.index)?)
    }

    /// Other workers' deques, their bounded deques (G12), then their
    /// pending `join` halves.
    pub(super) fn steal_normal(&self) -> Option<JobRef> {
        self.steal(&self.registry.stealers, &self.local)
            .or_else(|| self.steal_bounded())
            .or_else(|| self.take_pending_join())
    }

    /// No deque thieves look in has work: ask every worker with pending
    /// `join` halves to promote one (F3), and take halves directly from a
    /// worker that was already asked and has not answered (F4): it may be
    /// blocked, or running a long stretch without a `join`.
    pub(super) fn take_pending_join(&self) -> Option<JobRef> {
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
            if bug!("no_rescue") {
                continue;
            }
            // F4: asked before and not answered. One steal of an
            // owner-biased deque, so one heavy barrier (D16), for the
            // oldest half: the largest piece of work there.
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
    pub(super) fn announce_local_work(&self, deque: &Worker<JobRef>) {
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
    pub(super) fn steal(&self, stealers: &[Stealer<JobRef>], dest: &Worker<JobRef>) -> Option<JobRef> {
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
    pub(super) fn steal_from(
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

    pub(super) fn next_random(&self) -> u64 {
        // xorshift64*: cheap, per thread, good enough to spread victims.
        let mut x = self.rng.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}
