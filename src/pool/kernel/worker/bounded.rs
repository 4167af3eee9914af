//! A slot's fourth deque, in a pool built with
//! `Builder::bounded_steals(true)`: the plain tasks that its thread
//! `spawn`s, on a `BoundedWorker`, whose steals never return `Retry`
//! (`proofs/bounded.md`, G1-G11), with this slot's own handle on every
//! other slot's such deque (G12).
//!
//! Only plain spawned tasks go there: no wait of the pool ever needs to
//! take one of them back conditionally (a scope's wait steals only scope
//! tasks, a `join` only the halves above its mark, H6 and H7), which a
//! combining steal, serving requests of other threads, could not do.

use super::WorkerThread;
use crate::lockfree::JobRef;
use crate::lockfree::{BoundedLen, BoundedStealer, BoundedWorker, Steal, MAX_STEALERS};
use crate::pool::kernel::stats::Event;

/// The most slots (workers and spare slots) a pool with bounded deques
/// has: each slot holds one handle on each other slot's deque, and a
/// deque has `MAX_STEALERS` of them.
pub(crate) const BOUNDED_SLOTS: usize = MAX_STEALERS + 1;

/// A slot's bounded deque and its handles on the other slots' (G12).
pub(crate) struct BoundedDeques {
    own: BoundedWorker<JobRef>,
    /// `victims[v]`: this slot's handle on slot `v`'s deque; `None` at
    /// this slot's own index.
    victims: Box<[Option<BoundedStealer<JobRef>>]>,
}

impl BoundedDeques {
    /// One for each of `slots` slots (at most `BOUNDED_SLOTS`), each with
    /// a handle on every other one's deque, and the deques' lengths for
    /// the sleepers' final check (G12), in slot order.
    pub(crate) fn for_slots(
        slots: usize,
        capacity: usize,
    ) -> (Vec<BoundedDeques>, Box<[BoundedLen<JobRef>]>) {
        assert!(slots <= BOUNDED_SLOTS, "the builder checks the slots");
        let owns: Vec<BoundedWorker<JobRef>> = (0..slots)
            .map(|_| BoundedWorker::with_capacity(capacity))
            .collect();
        let lens = owns.iter().map(BoundedWorker::len_view).collect();
        let victims: Vec<Box<[_]>> = (0..slots)
            .map(|thief| {
                owns.iter()
                    .enumerate()
                    .map(|(victim, deque)| (victim != thief).then(|| deque.stealer()))
                    .collect()
            })
            .collect();
        let deques = owns
            .into_iter()
            .zip(victims)
            .map(|(own, victims)| BoundedDeques { own, victims })
            .collect();
        (deques, lens)
    }

    /// Whether this slot's own deque is empty (exact for its owner).
    pub(crate) fn is_empty(&self) -> bool {
        self.own.is_empty()
    }
}

impl WorkerThread {
    /// G12: queues a plain spawned task on this slot's bounded deque, then
    /// tells sleepers (S3, S4) as every push does: the task that spawned
    /// may block outside the pool until this one has run. On a slot
    /// without one (a pool without bounded deques), on the shared deque.
    pub(crate) fn push_bounded(&self, job: JobRef) {
        match &self.bounded {
            Some(bounded) => {
                bounded.own.push(job);
                self.registry.sleep.new_work();
            }
            None => self.push(job),
        }
    }

    /// G12: the newest task of this slot's bounded deque, if the pool has
    /// them.
    #[inline]
    pub(super) fn pop_bounded(&self) -> Option<JobRef> {
        self.bounded.as_ref()?.own.pop()
    }

    /// G12: whether this slot's bounded deque holds a task.
    pub(super) fn has_bounded_jobs(&self) -> bool {
        self.bounded
            .as_ref()
            .is_some_and(|bounded| !bounded.own.is_empty())
    }

    /// G12: the oldest task of another slot's bounded deque: every slot
    /// ever held (W5) once, from a random one on, a relaxed look (G8)
    /// first so that an empty victim costs no request. A steal here
    /// returns `Success` or `Empty`, never `Retry` (G1), so one pass
    /// decides; the sleepers' final check covers what a stale look missed.
    pub(super) fn steal_bounded(&self) -> Option<JobRef> {
        let bounded = self.bounded.as_ref()?;
        let registry = &*self.registry;
        let victims = registry.in_use(&bounded.victims);
        let count = victims.len();
        if count <= 1 {
            return None;
        }
        let counters = &registry.counters[self.index];
        let start = (self.next_random() % count as u64) as usize;
        for victim in (start..count).chain(0..start) {
            let Some(stealer) = &victims[victim] else { continue };
            if stealer.is_empty() {
                continue;
            }
            counters.record(Event::StealAttempt);
            if let Steal::Success(job) = stealer.steal() {
                counters.record(Event::SuccessfulSteal);
                counters.record(Event::BoundedSteal);
                counters.record(Event::StealAt(registry.distance(self.index, victim)));
                counters.record(Event::Stolen(1));
                return Some(job);
            }
        }
        None
    }
}
