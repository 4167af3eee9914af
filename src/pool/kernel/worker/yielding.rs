//! A task that yields to its pool (rayon's `yield_now` and `yield_local`):
//! the worker runs one job on top of the task's frame, then returns to it.

use super::WorkerThread;

impl WorkerThread {
    /// Runs one job of the pool, found as an idle worker finds one (its
    /// own deques, the injector, then other workers'); `false` if there
    /// was none. The job runs on this stack, above the caller: a job that
    /// waits for the caller's own task waits for ever, as with rayon, so
    /// this is the caller's choice, never one the pool makes for it.
    pub(crate) fn yield_to_pool(&self) -> bool {
        self.run_one_job()
    }

    /// Runs one job of this worker's own deques (its deque, its bounded
    /// deque, its pending `join` halves); `false` if they are empty.
    pub(crate) fn yield_to_own_deques(&self) -> bool {
        match self.pop_own_deques() {
            Some(job) => {
                self.execute(job);
                true
            }
            None => false,
        }
    }

    /// Whether this worker's own deques hold a job (a relaxed look: another
    /// thread may take it meanwhile).
    pub(crate) fn has_own_jobs(&self) -> bool {
        !self.local.is_empty() || !self.joins.is_empty() || self.has_bounded_jobs()
    }
}
