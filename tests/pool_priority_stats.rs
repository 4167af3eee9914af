#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Task priorities on real threads (`proofs/priority.md`): statistics per
//! level (tasks queued inside a priority task count at their own level),
//! shutdown draining every level, and panics in priority tasks counted and
//! handled. Every assertion counts tasks; none measures time.
//!
//! Sized down under Miri.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use stealpool::{Priority, ThreadPool};

mod common;
use common::priority::LEVELS;
use common::{scaled, EXPECTED};

#[test]
fn statistics_count_tasks_per_level() {
    let pool = ThreadPool::new(2);
    let per_level = scaled(25, 2);
    for (i, &priority) in LEVELS.iter().enumerate() {
        for _ in 0..per_level * (i + 1) {
            pool.spawn_with_priority(priority, || {});
        }
    }
    let handle = pool.submit_with_priority(Priority::High, || 1);
    assert_eq!(handle.join().unwrap(), 1);
    // Plain `spawn` and scope tasks count as `Normal`, even inside a
    // priority task.
    pool.spawn_with_priority(Priority::Critical, || {});
    pool.wait_all();
    pool.install(|| pool.scope(|s| s.spawn(|_| {})));
    let stats = pool.stats();
    let expected = [
        per_level as u64,
        2 * per_level as u64 + 1,
        3 * per_level as u64 + 1,
        4 * per_level as u64 + 1,
    ];
    assert_eq!(stats.tasks_by_priority, expected);
    assert_eq!(stats.tasks_executed, expected.iter().sum::<u64>());
    for priority in LEVELS {
        let by_workers: u64 = stats
            .per_worker
            .iter()
            .map(|w| w.tasks_by_priority[priority as usize])
            .sum();
        assert_eq!(by_workers, stats.tasks_executed_at(priority));
    }
    for worker in &stats.per_worker {
        assert_eq!(
            worker.tasks_by_priority.iter().sum::<u64>(),
            worker.tasks_executed
        );
    }
}

#[test]
fn tasks_inside_a_priority_task_count_at_their_own_level() {
    let pool = Arc::new(ThreadPool::new(2));
    let inner = pool.clone();
    let sum = pool
        .submit_with_priority(Priority::Critical, move || {
            // join, scope and plain spawn inside a Critical task stay Normal.
            let (a, b) = inner.join(|| 1, || 2);
            inner.scope(|s| s.spawn(|_| {}));
            inner.spawn(|| {});
            inner.spawn_with_priority(Priority::Low, || {});
            a + b
        })
        .join()
        .unwrap();
    assert_eq!(sum, 3);
    pool.wait_all();
    let stats = pool.stats();
    assert_eq!(stats.tasks_by_priority, [1, 2, 0, 1]);
}

/// Both workers queue tasks at every level on their own deques and block;
/// more are queued from outside; then the pool is shut down at once:
/// every one of them runs before `shutdown` returns.
#[test]
fn shutdown_drains_every_level() {
    let ran = Arc::new(AtomicUsize::new(0));
    let per_level = scaled(100, 2);
    let pool = Arc::new(ThreadPool::new(2));
    let (started_tx, started) = mpsc::channel();
    let (open, gate) = mpsc::channel::<()>();
    let gate = Arc::new(Mutex::new(gate));
    let queue_all = move |pool: &ThreadPool, ran: &Arc<AtomicUsize>| {
        for priority in LEVELS {
            for _ in 0..per_level {
                let ran = ran.clone();
                pool.spawn_with_priority(priority, move || {
                    ran.fetch_add(1, SeqCst);
                });
            }
        }
    };
    for _ in 0..2 {
        let (started_tx, gate, weak, ran) = (
            started_tx.clone(),
            gate.clone(),
            Arc::downgrade(&pool),
            ran.clone(),
        );
        pool.spawn(move || {
            let pool = weak.upgrade().unwrap();
            queue_all(&pool, &ran);
            // The test thread must hold the last reference to shut down.
            drop(pool);
            started_tx.send(()).unwrap();
            gate.lock().unwrap().recv().unwrap();
        });
    }
    for _ in 0..2 {
        started.recv().unwrap();
    }
    queue_all(&pool, &ran);
    for _ in 0..2 {
        open.send(()).unwrap();
    }
    Arc::try_unwrap(pool).expect("tasks hold no pool").shutdown();
    assert_eq!(ran.load(SeqCst), 3 * 4 * per_level);
}

#[test]
fn panics_in_priority_tasks_are_counted_and_handled() {
    common::quiet_expected_panics();
    let handled = Arc::new(AtomicUsize::new(0));
    let counter = handled.clone();
    let pool = ThreadPool::builder()
        .num_threads(2)
        .panic_handler(move |payload| {
            assert!(common::message(&*payload).is_some_and(|m| m.contains(EXPECTED)));
            counter.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    for priority in LEVELS {
        pool.spawn_with_priority(priority, || panic!("{EXPECTED}"));
        let handle = pool.submit_with_priority(priority, || -> u8 { panic!("{EXPECTED}") });
        let payload = handle.join().unwrap_err();
        assert!(common::message(&*payload).is_some_and(|m| m.contains(EXPECTED)));
    }
    pool.wait_all();
    assert_eq!(handled.load(SeqCst), 4, "spawned panics go to the handler");
    let stats = pool.stats();
    assert_eq!(stats.panicked, 8);
    assert_eq!(stats.tasks_by_priority, [2, 2, 2, 2]);
    // The workers survived: every level still runs.
    for priority in LEVELS {
        assert_eq!(
            pool.submit_with_priority(priority, move || priority)
                .join()
                .unwrap(),
            priority
        );
    }
    // A panic escaping `join` inside a priority task reaches its handle.
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.submit_with_priority(Priority::High, || {
            stealpool::current_thread_index().unwrap();
            panic!("{EXPECTED}")
        })
        .join()
        .unwrap()
    }));
    assert!(outcome.is_err());
}
