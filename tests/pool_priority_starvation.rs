#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Task priorities on real threads (`proofs/priority.md`): the
//! no-starvation bound (V5) under a flood of `Critical` tasks on one and two
//! workers, and `High` over `Low` sixteen to one, exact on one worker. Every
//! assertion counts tasks; none measures time.
//!
//! Sized down under Miri.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use stealpool::{Priority, ThreadPool};

mod common;
use common::priority::{block_worker, use_every_level};
use common::scaled;

/// How many tasks of level `high` one worker runs in a row while a task of
/// the lower level `low` waits (`Priority::run_ahead`, V5 in
/// `proofs/priority.md`): 8 for adjacent levels, 16 two apart, 32 three
/// apart.
fn run_ahead(high: Priority, low: Priority) -> usize {
    [8, 16, 32][high as usize - low as usize - 1]
}

/// One worker flooded with `Critical` tasks that respawn themselves until
/// every `Low` task has run: the `k`-th `Low` task starts after at most
/// `k * 32` `Critical` tasks (V5's bound on one worker, exact: every task
/// either is `Critical` or is the `Low` task the count makes due).
#[test]
fn low_tasks_are_served_within_the_bound_under_a_critical_flood() {
    let lows = scaled(64, 4);
    let pool = Arc::new(ThreadPool::new(1));
    let open = block_worker(&pool);
    let criticals = Arc::new(AtomicUsize::new(0));
    let low_done = Arc::new(AtomicUsize::new(0));
    // For each `Low` task in the order they started: `Critical` tasks
    // started before it.
    let seen = Arc::new(Mutex::new(Vec::new()));
    for _ in 0..lows {
        let (criticals, low_done, seen) = (criticals.clone(), low_done.clone(), seen.clone());
        pool.spawn_with_priority(Priority::Low, move || {
            seen.lock().unwrap().push(criticals.load(SeqCst));
            low_done.fetch_add(1, SeqCst);
        });
    }
    fn flood(pool: Arc<ThreadPool>, criticals: Arc<AtomicUsize>, low_done: Arc<AtomicUsize>, lows: usize) {
        criticals.fetch_add(1, SeqCst);
        if low_done.load(SeqCst) < lows {
            let inner = pool.clone();
            inner.spawn_with_priority(Priority::Critical, move || flood(pool, criticals, low_done, lows));
        }
    }
    for _ in 0..2 {
        let (inner, criticals, low_done) = (pool.clone(), criticals.clone(), low_done.clone());
        pool.spawn_with_priority(Priority::Critical, move || {
            flood(inner, criticals, low_done, lows)
        });
    }
    open.send(()).unwrap();
    pool.wait_all();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), lows, "a Low task ran twice or never");
    let limit = run_ahead(Priority::Critical, Priority::Low);
    for (k, &before) in seen.iter().enumerate() {
        assert!(
            before <= (k + 1) * limit,
            "Low task {} started after {before} Critical tasks, more than {} (all: {seen:?})",
            k + 1,
            (k + 1) * limit
        );
    }
    // The flood was real: Critical tasks ran between the Low ones.
    assert!(criticals.load(SeqCst) >= lows * limit);
    assert_eq!(pool.stats().tasks_executed_at(Priority::Low), lows as u64);
}

/// Two workers flooded with `Critical` tasks that respawn themselves until
/// every `Low` task has run, some of them queued from inside the pool on a
/// worker's own `Low` deque: the flood ends only because every `Low` task
/// runs. (The count bound is asserted on one worker above: across workers
/// it also depends on how the OS schedules them, V5.)
#[test]
fn low_tasks_finish_under_a_critical_flood_on_two_workers() {
    let lows = scaled(200, 4);
    let pool = Arc::new(ThreadPool::new(2));
    let low_done = Arc::new(AtomicUsize::new(0));
    fn flood(pool: Arc<ThreadPool>, low_done: Arc<AtomicUsize>, lows: usize) {
        if low_done.load(SeqCst) < lows {
            let inner = pool.clone();
            inner.spawn_with_priority(Priority::Critical, move || flood(pool, low_done, lows));
        }
    }
    let chains = scaled(4, 2);
    for _ in 0..chains {
        let (inner, low_done) = (pool.clone(), low_done.clone());
        pool.spawn_with_priority(Priority::Critical, move || flood(inner, low_done, lows));
    }
    for i in 0..lows {
        let low_done = low_done.clone();
        let task = move || {
            low_done.fetch_add(1, SeqCst);
        };
        if i % 2 == 0 {
            pool.spawn_with_priority(Priority::Low, task);
        } else {
            let inner = pool.clone();
            pool.spawn_with_priority(Priority::Critical, move || {
                inner.spawn_with_priority(Priority::Low, task)
            });
        }
    }
    pool.wait_all();
    assert_eq!(low_done.load(SeqCst), lows);
    let stats = pool.stats();
    assert_eq!(stats.tasks_executed_at(Priority::Low), lows as u64);
    assert!(stats.tasks_executed_at(Priority::Critical) >= (chains + lows / 2) as u64);
}

/// V5's bound on one worker, exact, for `High` over `Low` (16 in a row):
/// 100 `High` tasks queued behind 100 `Low` ones: the `k`-th `Low` task
/// starts after exactly `min(16 k, 100)` `High` tasks.
#[test]
fn high_runs_sixteen_to_one_over_low() {
    let each = scaled(100, 20);
    let limit = run_ahead(Priority::High, Priority::Low);
    let pool = ThreadPool::new(1);
    use_every_level(&pool);
    let highs = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let open = block_worker(&pool);
    for _ in 0..each {
        let (highs, seen) = (highs.clone(), seen.clone());
        pool.spawn_with_priority(Priority::Low, move || {
            seen.lock().unwrap().push(highs.load(SeqCst))
        });
    }
    for _ in 0..each {
        let highs = highs.clone();
        pool.spawn_with_priority(Priority::High, move || {
            highs.fetch_add(1, SeqCst);
        });
    }
    open.send(()).unwrap();
    pool.wait_all();
    let expected: Vec<usize> = (1..=each).map(|k| (k * limit).min(each)).collect();
    assert_eq!(*seen.lock().unwrap(), expected);
}
