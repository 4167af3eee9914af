//! Helpers of the priority tests (`pool_priority_order`,
//! `pool_priority_starvation`, `pool_priority_fifo`, `pool_priority_stats`).

use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use stealpool::{Priority, ThreadPool};

pub const LEVELS: [Priority; 4] = [
    Priority::Low,
    Priority::Normal,
    Priority::High,
    Priority::Critical,
];

/// Occupies `pool`'s only worker until the returned sender is used: the
/// task has started when this returns, so whatever is queued next waits
/// for one search that sees all of it.
pub fn block_worker(pool: &ThreadPool) -> Sender<()> {
    let (started_tx, started) = mpsc::channel();
    let (open, gate) = mpsc::channel::<()>();
    pool.spawn(move || {
        started_tx.send(()).unwrap();
        gate.recv().unwrap();
    });
    started.recv().unwrap();
    open
}

/// Runs one task at every level, so that the searches that follow are the
/// per-level ones (V1): the order below must hold after other levels were
/// used, not only in a fresh pool.
pub fn use_every_level(pool: &ThreadPool) {
    for priority in LEVELS {
        pool.spawn_with_priority(priority, || {});
    }
    pool.wait_all();
}

/// Where each task of a test ran, in the order they started: (its number,
/// the worker).
pub type Starts = Arc<Mutex<Vec<(usize, usize)>>>;

pub fn record(starts: &Starts, number: usize) {
    let worker = stealpool::current_thread_index().unwrap();
    starts.lock().unwrap().push((number, worker));
}

pub fn numbers(starts: &Starts) -> Vec<usize> {
    starts.lock().unwrap().iter().map(|&(number, _)| number).collect()
}
