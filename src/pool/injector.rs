//! The global queue for jobs submitted from outside the pool.
//!
//! A mutex-protected FIFO: outside submissions are rare next to the deque
//! traffic inside the pool, and workers take them in batches, so the lock
//! is taken once per batch rather than once per job. `len` mirrors the
//! queue's length so that idle checks need no lock.

use super::job::JobRef;
use super::ordering::RELAXED;
use crate::deque::Worker;
use crate::sync::{AtomicUsize, Mutex, MutexGuard};
use std::collections::VecDeque;

/// The most jobs a worker moves from the injector to its deque at once.
const MAX_BATCH: usize = 32;

pub(crate) struct Injector {
    queue: Mutex<VecDeque<JobRef>>,
    len: AtomicUsize,
}

impl Injector {
    pub(crate) fn new() -> Self {
        Injector {
            queue: Mutex::new(VecDeque::new()),
            len: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<JobRef>> {
        // Nothing panics while holding this lock; recover anyway.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends a job. The caller then announces it (`Sleep::new_work`).
    pub(crate) fn push(&self, job: JobRef) {
        let mut queue = self.lock();
        queue.push_back(job);
        // I1: relaxed; the mutex orders it against other pushes and pops,
        // and the caller's S3 fence orders it before the sleepers' check.
        self.len.store(queue.len(), RELAXED);
    }

    /// The number of queued jobs (I1: relaxed snapshot, see `push`).
    pub(crate) fn len(&self) -> usize {
        self.len.load(RELAXED)
    }

    /// Takes the oldest job and moves a share of the rest (for `workers`
    /// workers, at most `MAX_BATCH`) into `dest`.
    pub(crate) fn pop_batch(&self, dest: &Worker<JobRef>, workers: usize) -> Option<JobRef> {
        if self.len() == 0 {
            return None;
        }
        let mut queue = self.lock();
        let first = queue.pop_front()?;
        let extra = (queue.len() / workers.max(1)).min(MAX_BATCH);
        // Keep FIFO order: the oldest moved job is popped last by the owner,
        // but it is also the first a thief would take.
        for job in queue.drain(..extra) {
            dest.push(job);
        }
        // I1: as in `push`.
        self.len.store(queue.len(), RELAXED);
        Some(first)
    }
}
