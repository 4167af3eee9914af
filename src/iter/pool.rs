//! Where the parallel loops, sorts and iterators run: [`OnPool`], a pool to
//! fork on. A `&ThreadPool` forks on that pool; [`CurrentPool`] on the pool
//! the caller is a worker of, else the global pool (the free functions'
//! rule), which is how the parallel iterators of `crate::iter` find theirs.

use crate::ThreadPool;

/// A pool to fork on: what the sorts and the adaptive splitting need.
pub(crate) trait OnPool: Sync {
    /// Runs `a` and `b`, potentially in parallel, and returns both results.
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send;

    /// The number of workers.
    fn num_workers(&self) -> usize;

    /// Runs `f` on one of the workers (directly when the caller is one).
    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R;
}

impl OnPool for ThreadPool {
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        ThreadPool::join(self, a, b)
    }

    fn num_workers(&self) -> usize {
        ThreadPool::num_workers(self)
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        ThreadPool::install(self, f)
    }
}

/// The current pool: the pool of the worker running the caller, else the
/// global pool.
pub(crate) struct CurrentPool;

impl OnPool for CurrentPool {
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        crate::join(a, b)
    }

    fn num_workers(&self) -> usize {
        crate::current_num_threads()
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        crate::pool::api::global::in_worker(f)
    }
}
