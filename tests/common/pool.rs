//! Helpers of the pool's API tests (`pool_spawn_submit`, `pool_join_scope`,
//! `pool_install_wait_all`, `pool_config_stats`, `pool_shutdown`).

use super::DEADLINE;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::thread;
use std::time::Instant;
use stealpool::ThreadPool;

/// Spins (yielding) until `flag` is set; fails the test after [`DEADLINE`].
pub fn await_flag(flag: &AtomicBool, what: &str) {
    let start = Instant::now();
    while !flag.load(Acquire) {
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        thread::yield_now();
    }
}

/// Every one of `n` callers arrives, then all leave; `false` if the others
/// did not all arrive before [`DEADLINE`] (so a test fails instead of
/// hanging a worker forever).
pub fn rendezvous(arrived: &AtomicUsize, n: usize) -> bool {
    arrived.fetch_add(1, AcqRel);
    let start = Instant::now();
    while arrived.load(Acquire) < n {
        if start.elapsed() > DEADLINE {
            return false;
        }
        thread::yield_now();
    }
    true
}

/// How many times each task ran, indexed by task.
pub struct Seen(pub Vec<AtomicU8>);

impl Seen {
    pub fn new(tasks: usize) -> Self {
        Seen((0..tasks).map(|_| AtomicU8::new(0)).collect())
    }

    pub fn record(&self, task: usize) {
        self.0[task].fetch_add(1, Relaxed);
    }

    pub fn assert_each_once(&self) {
        for (task, count) in self.0.iter().enumerate() {
            assert_eq!(count.load(Relaxed), 1, "task {task} ran {count:?} times");
        }
    }
}

/// Takes the pool back from an `Arc` once every task has released its clone
/// (a task's captures are dropped when it finishes), so that the drop at
/// the end of a test happens here and joins the workers.
pub fn unwrap_pool(pool: Arc<ThreadPool>) -> ThreadPool {
    Arc::try_unwrap(pool).expect("finished tasks still hold the pool")
}
