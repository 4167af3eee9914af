//! The global queue for jobs submitted from outside the pool.
//!
//! A lock-free, allocation-free FIFO per submitter (`injector_queue.rs`,
//! proof in `proofs/injector.md`): a job is its own node, linked through its
//! `JobHeader`. A submitter's push is one CAS and never waits for a worker;
//! a worker takes every queued job in one swap, runs the oldest, and moves
//! the rest to its own deque, where it pops them oldest first and the other
//! workers steal them in halves. No submitter and no worker ever blocks on
//! another here, so no hand-off goes through the kernel.

use super::injector_queue::Queue;
use super::job::JobRef;
use crate::deque::Worker;

pub(crate) struct Injector {
    queue: Queue<JobRef>,
}

impl Injector {
    pub(crate) fn new() -> Self {
        Injector { queue: Queue::new() }
    }

    /// Appends a job. The caller then announces it (`Sleep::new_work`, S3):
    /// the push's CAS (Q2) is the store the sleepers' final check reads (Q4).
    pub(crate) fn push(&self, job: JobRef) {
        self.queue.push(job);
    }

    /// Whether no job is queued (Q4: a relaxed snapshot, the sleep
    /// protocol's `has_work`).
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Takes every queued job: returns the oldest, and pushes the rest on
    /// `dest` newest first, so that its owner pops them oldest first (Q5)
    /// and thieves take the newest. The owner then announces them (S3).
    ///
    /// The whole list, not a share per worker: taking it is one swap, and
    /// the other workers steal half of it at a time, so it spreads as fast
    /// as a share would, with no job left in a queue that only this worker
    /// knows it emptied.
    pub(crate) fn pop_batch(&self, dest: &Worker<JobRef>) -> Option<JobRef> {
        self.queue.pop_batch(|job| dest.push(job))
    }

    /// Takes every queued job: returns the oldest, and pushes the rest on
    /// `dest` oldest first (Q7), for a queue taken from its oldest end (a
    /// level's shared stage, V8 in `proofs/priority.md`): they come out in
    /// the order they were pushed here, after the jobs `dest` already
    /// held. The caller then announces them (S3).
    pub(crate) fn pop_batch_in_order(&self, dest: &Worker<JobRef>) -> Option<JobRef> {
        self.queue.pop_batch_in_order(|job| dest.push(job))
    }

    /// Takes every queued job and pushes them all on `dest` oldest first
    /// (Q7), behind the jobs it holds; whether there was any. For a level's
    /// stage that is not empty (V8): the caller then takes its oldest job,
    /// and announces the rest (S3).
    pub(crate) fn append_in_order(&self, dest: &Worker<JobRef>) -> bool {
        let mut moved = false;
        for job in self.queue.take_all_oldest_first() {
            dest.push(job);
            moved = true;
        }
        moved
    }
}
