//! `block_in_place` on real threads: a blocked worker's share of the work
//! goes to a spare; the cap; nesting; panics; fork-join inside; shutdown
//! while blocked; two pools.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

mod common;

use common::{quiet_expected_panics, wait_for, EXPECTED};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::{mpsc, Arc, Barrier, Mutex};
use std::time::Duration;
use stealpool::{block_in_place, ThreadPool};

/// Long enough never to expire in a passing run: a bug fails the
/// `recv_timeout` instead of hanging the test.
const PATIENCE: Duration = Duration::from_secs(60);

fn one_worker_one_spare() -> ThreadPool {
    ThreadPool::builder()
        .num_threads(1)
        .max_blocking_threads(1)
        .build()
        .unwrap()
}

#[test]
fn outside_a_pool_it_just_calls_f() {
    assert_eq!(block_in_place(|| 7), 7);
    let pool = ThreadPool::new(1);
    assert_eq!(block_in_place(|| 8), 8);
    assert_eq!(pool.stats().spare_threads_started, 0);
}

#[test]
fn the_only_worker_blocked_on_a_task_queued_behind_it_gets_a_spare() {
    let pool = ThreadPool::new(1);
    let (sender, receiver) = mpsc::channel();
    let waiter = pool.submit(move || block_in_place(|| receiver.recv_timeout(PATIENCE)));
    pool.spawn(move || sender.send(42).unwrap());
    assert_eq!(waiter.join().unwrap(), Ok(42));
    pool.wait_all();
    let stats = pool.stats();
    assert!(stats.spare_threads_started >= 1, "{stats:?}");
    assert_eq!(stats.tasks_executed, 2);
    assert_eq!(stats.blocking_uncompensated, 0);
}

#[test]
fn every_thread_blocked_at_once_needs_workers_plus_spares() {
    // Two workers and the default cap (8 spares): ten tasks that all wait
    // for one another can only finish if ten threads run them at once.
    let pool = ThreadPool::new(2);
    let tasks = 10;
    let barrier = Arc::new(Barrier::new(tasks));
    let handles: Vec<_> = (0..tasks)
        .map(|_| {
            let barrier = barrier.clone();
            pool.submit(move || block_in_place(|| barrier.wait().is_leader()))
        })
        .collect();
    let leaders = handles.into_iter().map(|h| h.join().unwrap()).filter(|&l| l);
    assert_eq!(leaders.count(), 1);
    let stats = pool.stats();
    assert!(stats.spare_threads_started >= 8, "{stats:?}");
}

#[test]
fn beyond_the_cap_a_blocking_call_is_counted_and_just_blocks() {
    let pool = ThreadPool::builder()
        .num_threads(1)
        .max_blocking_threads(0)
        .build()
        .unwrap();
    let ran = pool.install(|| block_in_place(|| 5));
    assert_eq!(ran, 5);
    let stats = pool.stats();
    assert_eq!(stats.spare_threads_started, 0);
    assert_eq!(stats.blocking_uncompensated, 1);
}

#[test]
fn a_nested_call_takes_no_second_spare() {
    let pool = one_worker_one_spare();
    let (sender, receiver) = mpsc::channel();
    let waiter = pool.submit(move || block_in_place(|| block_in_place(|| receiver.recv_timeout(PATIENCE))));
    pool.spawn(move || sender.send(1).unwrap());
    assert_eq!(waiter.join().unwrap(), Ok(1));
    let stats = pool.stats();
    assert_eq!(stats.blocking_uncompensated, 0, "{stats:?}");
    assert_eq!(stats.spare_threads_started, 1, "{stats:?}");
}

#[test]
fn join_scope_and_handles_work_inside_f() {
    let pool = ThreadPool::new(2);
    let total = pool.install(|| {
        block_in_place(|| {
            let (a, b) = pool.join(|| 1, || 2);
            let mut c = 0;
            pool.scope(|s| s.spawn(|_| c = 3));
            let d = pool.submit(|| 4).join().unwrap();
            a + b + c + d
        })
    });
    assert_eq!(total, 10);
}

#[test]
fn a_panic_in_f_reaches_the_caller_and_the_pool_still_compensates() {
    quiet_expected_panics();
    let pool = one_worker_one_spare();
    let caught =
        pool.install(|| panic::catch_unwind(AssertUnwindSafe(|| block_in_place(|| panic!("{EXPECTED}")))));
    assert!(caught.is_err());
    // The blocked count went back down: the one spare slot serves again,
    // and a worker blocked on a task behind it is rescued.
    let (sender, receiver) = mpsc::channel();
    let waiter = pool.submit(move || block_in_place(|| receiver.recv_timeout(PATIENCE)));
    pool.spawn(move || sender.send(9).unwrap());
    assert_eq!(waiter.join().unwrap(), Ok(9));
    assert_eq!(pool.stats().blocking_uncompensated, 0);
}

#[test]
fn dropping_the_pool_while_a_task_blocks_runs_everything_first() {
    let done = Arc::new(AtomicUsize::new(0));
    let entered = Arc::new(AtomicBool::new(false));
    let gate = Arc::new(AtomicBool::new(false));
    let pool = ThreadPool::new(1);
    {
        let (done, entered, gate) = (done.clone(), entered.clone(), gate.clone());
        pool.spawn(move || {
            block_in_place(|| {
                entered.store(true, Release);
                assert!(wait_for(&gate), "the gate never opened");
            });
            done.fetch_add(1, Relaxed);
        });
    }
    assert!(wait_for(&entered));
    for _ in 0..100 {
        let done = done.clone();
        pool.spawn(move || {
            done.fetch_add(1, Relaxed);
        });
    }
    let opener = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        gate.store(true, Release);
    });
    drop(pool);
    opener.join().unwrap();
    assert_eq!(done.load(Relaxed), 101);
}

#[test]
fn a_task_of_one_pool_blocking_on_a_worker_of_another_gets_a_spare_there() {
    let outer = ThreadPool::new(1);
    let inner = Arc::new(ThreadPool::new(1));
    let (sender, receiver) = mpsc::channel();
    let on_inner = inner.clone();
    // The outer worker waits for the inner pool with a spare of the outer
    // pool standing in (H4), which runs the sender. The inner worker
    // blocks, with a spare of the inner pool standing in.
    let got = outer
        .submit(move || on_inner.install(move || block_in_place(move || receiver.recv_timeout(PATIENCE))));
    outer.spawn(move || sender.send(5).unwrap());
    assert_eq!(got.join().unwrap(), Ok(5));
    let (inner_stats, outer_stats) = (inner.stats(), outer.stats());
    assert_eq!(inner_stats.spare_threads_started, 1, "{inner_stats:?}");
    assert_eq!(outer_stats.spare_threads_started, 1, "{outer_stats:?}");
}

#[test]
fn tasks_run_by_spares_count_in_the_totals() {
    let pool = ThreadPool::new(1);
    let (sender, receiver) = mpsc::channel::<()>();
    let waiter = pool.submit(move || block_in_place(|| receiver.recv_timeout(PATIENCE)));
    let ran = Arc::new(AtomicUsize::new(0));
    for _ in 0..50 {
        let ran = ran.clone();
        pool.spawn(move || {
            ran.fetch_add(1, Relaxed);
        });
    }
    // All 50 ran while the worker blocked: by the spare.
    while ran.load(Relaxed) < 50 {
        std::thread::yield_now();
    }
    sender.send(()).unwrap();
    waiter.join().unwrap().unwrap();
    pool.wait_all();
    let stats = pool.stats();
    assert_eq!(stats.tasks_executed, 51);
    assert!(stats.spares.tasks_executed >= 50, "{stats:?}");
    let per_worker: u64 = stats.per_worker.iter().map(|w| w.tasks_executed).sum();
    assert_eq!(per_worker + stats.spares.tasks_executed, 51);
}

#[test]
fn one_spare_slot_serves_blocking_calls_one_after_another() {
    let pool = one_worker_one_spare();
    for round in 0..5 {
        let (sender, receiver) = mpsc::channel();
        let waiter = pool.submit(move || block_in_place(|| receiver.recv_timeout(PATIENCE)));
        pool.spawn(move || sender.send(round).unwrap());
        assert_eq!(waiter.join().unwrap(), Ok(round));
    }
    let stats = pool.stats();
    assert_eq!(stats.blocking_uncompensated, 0, "{stats:?}");
}

#[test]
fn a_spare_answers_an_index_below_current_num_threads() {
    let pool = one_worker_one_spare();
    let (sender, receiver) = mpsc::channel();
    let waiter = pool.submit(move || block_in_place(|| receiver.recv_timeout(PATIENCE)));
    // Runs on the spare: the only worker is blocked until it sends.
    pool.spawn(move || {
        let seen = (
            std::thread::current().name().map(str::to_owned),
            stealpool::current_thread_index(),
            stealpool::current_num_threads(),
        );
        sender.send(seen).unwrap()
    });
    let (name, index, threads) = waiter.join().unwrap().unwrap();
    assert!(name.unwrap().starts_with("stealpool-spare-"), "ran on a worker");
    // As rayon promises: Some(i) with i < current_num_threads(), so a
    // `vec![..; current_num_threads()]` indexed by it is never overrun.
    assert_eq!((index, threads), (Some(0), 1));
}

#[test]
fn a_spare_takes_the_name_of_the_worker_whose_index_it_answers() {
    // As rayon's threads all carry `thread_name`'s names, so do the spares:
    // code that tells the pool's threads by name sees every one of them.
    let pool = ThreadPool::builder()
        .num_threads(2)
        .max_blocking_threads(2)
        .thread_name(|i| format!("named-{i}"))
        .build()
        .unwrap();
    let (sender, receiver) = mpsc::channel();
    let (blocked, both_blocked) = mpsc::channel();
    // Both workers block until the spare's task sends: it can only run on
    // a spare.
    let receiver = Arc::new(Mutex::new(receiver));
    let waiters: Vec<_> = (0..2)
        .map(|_| {
            let (receiver, blocked) = (receiver.clone(), blocked.clone());
            pool.submit(move || {
                block_in_place(|| {
                    blocked.send(()).unwrap();
                    let got = receiver.lock().unwrap().recv_timeout(PATIENCE);
                    got.map(|seen| (std::thread::current().id(), seen))
                })
            })
        })
        .collect();
    for _ in 0..2 {
        both_blocked.recv_timeout(PATIENCE).unwrap();
    }
    for _ in 0..2 {
        let sender = sender.clone();
        pool.spawn(move || {
            let thread = std::thread::current();
            let seen = (thread.id(), thread.name().map(str::to_owned));
            sender.send((seen, stealpool::current_thread_index())).unwrap();
        });
    }
    for waiter in waiters {
        let (worker, ((thread, name), index)) = waiter.join().unwrap().unwrap();
        assert_ne!(worker, thread, "ran on a blocked worker");
        let index = index.expect("a spare answers an index");
        assert_eq!(
            name.as_deref(),
            Some(format!("named-{index}").as_str()),
            "{name:?}"
        );
    }
}
