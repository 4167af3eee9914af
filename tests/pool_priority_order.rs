#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Task priorities on real threads (`proofs/priority.md`): the order in
//! which one worker runs queued tasks of different levels, most urgent first
//! (from outside, from inside, through `submit`), a `Normal` stream after a
//! `Low` task, and a burst of `Critical` tasks run together. Every assertion
//! counts tasks; none measures time.
//!
//! Sized down under Miri.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use stealpool::{Priority, ThreadPool};

mod common;
use common::priority::{block_worker, numbers, record, use_every_level, Starts, LEVELS};
use common::scaled;

/// The order one worker runs one queued task of each level in.
const MOST_URGENT_FIRST: [Priority; 4] = [
    Priority::Critical,
    Priority::High,
    Priority::Normal,
    Priority::Low,
];

#[test]
fn one_worker_runs_queued_tasks_most_urgent_first_from_outside() {
    let pool = ThreadPool::new(1);
    let open = block_worker(&pool);
    let order = Arc::new(Mutex::new(Vec::new()));
    for priority in LEVELS {
        let order = order.clone();
        pool.spawn_with_priority(priority, move || order.lock().unwrap().push(priority));
    }
    open.send(()).unwrap();
    pool.wait_all();
    assert_eq!(*order.lock().unwrap(), MOST_URGENT_FIRST);
}

#[test]
fn one_worker_runs_queued_tasks_most_urgent_first_from_inside() {
    let pool = Arc::new(ThreadPool::new(1));
    let order = Arc::new(Mutex::new(Vec::new()));
    let (inner_pool, inner_order) = (pool.clone(), order.clone());
    // Queued by a task on the worker: on its own deques, one per level.
    pool.spawn(move || {
        for priority in LEVELS {
            let order = inner_order.clone();
            inner_pool.spawn_with_priority(priority, move || order.lock().unwrap().push(priority));
        }
    });
    pool.wait_all();
    assert_eq!(*order.lock().unwrap(), MOST_URGENT_FIRST);
}

#[test]
fn submitted_tasks_follow_the_same_order() {
    let pool = ThreadPool::new(1);
    let open = block_worker(&pool);
    let ran = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = LEVELS
        .iter()
        .map(|&priority| {
            let ran = ran.clone();
            (
                priority,
                pool.submit_with_priority(priority, move || ran.fetch_add(1, SeqCst)),
            )
        })
        .collect();
    open.send(()).unwrap();
    for (priority, handle) in handles {
        // The position each task ran at: Critical first, Low last.
        let expected = 3 - priority as usize;
        assert_eq!(handle.join().unwrap(), expected, "{priority:?} ran out of turn");
    }
}

/// A stream of `Normal` tasks from one outside thread on one worker, after
/// a `Low` task has run (so every search is the per-level one, V1): they
/// start in the order queued, however the stream and the worker
/// interleave (the two-batch case above forces the interleaving that the
/// old count turned into starvation).
#[test]
fn a_normal_stream_keeps_order_after_a_low_task() {
    let count = scaled(20_000, 20);
    let pool = ThreadPool::new(1);
    pool.spawn_with_priority(Priority::Low, || {});
    pool.wait_all();
    let starts: Starts = Default::default();
    for number in 0..count {
        let starts = starts.clone();
        pool.spawn(move || record(&starts, number));
    }
    pool.wait_all();
    assert_eq!(numbers(&starts), (0..count).collect::<Vec<_>>());
}

/// V5's share by distance: ten `Critical` tasks queued together by a task
/// run together, ahead of a `Normal` and a `Low` task queued before them
/// (`Critical` may run 16 in a row over `Normal`, 32 over `Low`).
#[test]
fn a_burst_of_critical_tasks_runs_together() {
    let pool = Arc::new(ThreadPool::new(1));
    use_every_level(&pool);
    let order = Arc::new(Mutex::new(Vec::new()));
    let open = block_worker(&pool);
    let (inner, inner_order) = (pool.clone(), order.clone());
    pool.spawn(move || {
        for i in 0..10 {
            let order = inner_order.clone();
            inner.spawn_with_priority(Priority::Critical, move || {
                order.lock().unwrap().push((Priority::Critical, i))
            });
        }
    });
    for priority in [Priority::Normal, Priority::Low] {
        let order = order.clone();
        pool.spawn_with_priority(priority, move || order.lock().unwrap().push((priority, 0)));
    }
    open.send(()).unwrap();
    pool.wait_all();
    let mut expected: Vec<_> = (0..10).map(|i| (Priority::Critical, i)).collect();
    expected.extend([(Priority::Normal, 0), (Priority::Low, 0)]);
    assert_eq!(*order.lock().unwrap(), expected);
}
