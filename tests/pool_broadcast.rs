#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! `broadcast` and `spawn_broadcast` (U1-U3 in `proofs/broadcast.md`): each
//! worker runs its part itself, once; from outside the pool, from a worker,
//! from another pool; while the worker waits in a `join` (U2); two at once;
//! panics; and a part posted to a worker that already left at shutdown
//! (U3).

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;
use stealpool::{BroadcastContext, ThreadPool};

mod common;
use common::{message, quiet_expected_panics, scaled, wait_for, DEADLINE, EXPECTED};

/// What a part sees of where it runs.
fn whereabouts(context: BroadcastContext<'_>) -> (usize, usize, Option<usize>, String) {
    let name = thread::current().name().unwrap_or("unnamed").to_owned();
    (
        context.index(),
        context.num_threads(),
        stealpool::current_thread_index(),
        name,
    )
}

fn assert_each_worker_ran_its_own(seen: &[(usize, usize, Option<usize>, String)], workers: usize) {
    assert_eq!(seen.len(), workers);
    for (position, (index, threads, current, name)) in seen.iter().enumerate() {
        assert_eq!(
            (*index, *threads, *current),
            (position, workers, Some(position)),
            "{seen:?}"
        );
        assert_eq!(name, &format!("stealpool-worker-{position}"), "{seen:?}");
    }
}

#[test]
fn each_worker_runs_its_part_from_outside_inside_and_another_pool() {
    let pool = ThreadPool::new(3);
    assert_each_worker_ran_its_own(&pool.broadcast(whereabouts), 3);
    let inside = pool.install(|| pool.broadcast(whereabouts));
    assert_each_worker_ran_its_own(&inside, 3);
    let other = ThreadPool::new(1);
    let across = other.install(|| pool.broadcast(whereabouts));
    assert_each_worker_ran_its_own(&across, 3);
    // And the free function on the pool the caller runs in.
    let free = pool.install(|| stealpool::broadcast(whereabouts));
    assert_each_worker_ran_its_own(&free, 3);
}

#[test]
fn a_worker_waiting_in_a_join_runs_a_broadcast_part_posted_to_it() {
    // The stolen half broadcasts while the worker that forked it waits for
    // it (H6): only that worker may run its part, so its wait runs it (U2).
    let pool = ThreadPool::new(2);
    let rounds = scaled(20, 2);
    let mut stolen_rounds = 0;
    for _ in 0..rounds {
        let b_started = AtomicBool::new(false);
        let (a_thread, (b_thread, seen)) = pool.join(
            || {
                assert!(wait_for(&b_started), "the second half was never stolen");
                thread::current().id()
            },
            || {
                b_started.store(true, SeqCst);
                (thread::current().id(), pool.broadcast(whereabouts))
            },
        );
        assert_ne!(
            a_thread, b_thread,
            "the gate lets a finish only once b runs elsewhere"
        );
        assert_each_worker_ran_its_own(&seen, 2);
        stolen_rounds += 1;
    }
    assert_eq!(stolen_rounds, rounds);
}

#[test]
fn two_workers_broadcasting_at_once_both_finish() {
    // Each broadcaster waits in its own scope for a part only the other
    // worker can run, while that worker waits for its own: each wait runs
    // the other's part (U2).
    let pool = ThreadPool::new(2);
    let rounds = scaled(20, 2);
    let mut overlapped = 0;
    for _ in 0..rounds {
        let started = AtomicUsize::new(0);
        let both_started = || {
            started.fetch_add(1, SeqCst);
            let start = Instant::now();
            while started.load(SeqCst) < 2 {
                assert!(start.elapsed() < DEADLINE, "the other half never started");
                thread::yield_now();
            }
        };
        let (left, right) = pool.join(
            || {
                both_started();
                pool.broadcast(|context| context.index() * 10)
            },
            || {
                both_started();
                pool.broadcast(|context| context.index() * 100)
            },
        );
        assert_eq!((left, right), (vec![0, 10], vec![0, 100]));
        overlapped += 1;
    }
    assert_eq!(overlapped, rounds);
}

#[test]
fn pools_broadcasting_into_each_other_finish() {
    // A worker of `first` waits in `install` on `second` while every
    // worker of `second` broadcasts back into `first`: the waiting worker
    // runs the parts posted to it (U2) with a spare standing in.
    let (first, second) = (ThreadPool::new(2), ThreadPool::new(3));
    let count = AtomicUsize::new(0);
    let parts = first.install(|| {
        second.broadcast(|_| {
            first.broadcast(|context| {
                count.fetch_add(1, SeqCst);
                context.index()
            })
        })
    });
    assert_eq!(parts, vec![vec![0, 1]; 3]);
    assert_eq!(count.load(SeqCst), 2 * 3);
}

#[test]
fn spawn_broadcast_runs_once_per_worker_and_wait_all_waits_for_it() {
    let pool = ThreadPool::new(3);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    pool.spawn_broadcast(move |context| record.lock().unwrap().push(whereabouts(context)));
    pool.wait_all();
    let mut seen = std::mem::take(&mut *seen.lock().unwrap());
    seen.sort();
    assert_each_worker_ran_its_own(&seen, 3);
    assert_eq!(pool.stats().tasks_executed, 3);
}

#[test]
fn a_panicking_part_is_reraised_after_every_part_ran() {
    quiet_expected_panics();
    let pool = ThreadPool::new(3);
    let ran = AtomicUsize::new(0);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.broadcast(|context| {
            ran.fetch_add(1, SeqCst);
            if context.index() == 1 {
                panic!("{EXPECTED} in part 1");
            }
        })
    }));
    let payload = outcome.expect_err("the panic of part 1 is re-raised");
    assert_eq!(
        message(&*payload).as_deref(),
        Some(&*format!("{EXPECTED} in part 1"))
    );
    assert_eq!(ran.load(SeqCst), 3);
    // The pool goes on, every worker with it.
    assert_eq!(pool.broadcast(|context| context.index()), [0, 1, 2]);
}

#[test]
fn spawn_broadcast_panics_go_to_the_handler() {
    quiet_expected_panics();
    let handled = Arc::new(AtomicUsize::new(0));
    let counter = handled.clone();
    let pool = ThreadPool::builder()
        .num_threads(2)
        .panic_handler(move |_| {
            counter.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    pool.spawn_broadcast(|_| panic!("{EXPECTED} in every part"));
    pool.wait_all();
    assert_eq!(handled.load(SeqCst), 2);
    assert_eq!(pool.stats().panicked, 2);
    assert_eq!(pool.broadcast(|context| context.index()), [0, 1]);
}

#[test]
fn scope_spawn_broadcast_parts_may_spawn_more() {
    let pool = ThreadPool::new(2);
    let ran = AtomicUsize::new(0);
    pool.scope(|s| {
        s.spawn_broadcast(|s, context| {
            ran.fetch_add(1, SeqCst);
            let index = context.index();
            let ran = &ran;
            s.spawn(move |_| {
                ran.fetch_add(10 * (index + 1), SeqCst);
            });
        });
    });
    assert_eq!(ran.load(SeqCst), 2 + 10 + 20);
}

#[test]
fn a_part_for_a_worker_that_left_at_shutdown_runs_on_the_poster() {
    // Worker 1 leaves during the shutdown while a task of worker 0 still
    // runs; that task then broadcasts: worker 1's part cannot wait in a
    // mailbox nobody reads, so the poster runs it (U3).
    let exited = Arc::new(Mutex::new(Vec::new()));
    let record_exit = exited.clone();
    let pool = ThreadPool::builder()
        .num_threads(2)
        .exit_handler(move |index| record_exit.lock().unwrap().push(index))
        .build()
        .unwrap();
    let parts = Arc::new(Mutex::new(Vec::new()));
    let (holding, held) = std::sync::mpsc::channel();
    let (exited_watch, record_parts) = (exited.clone(), parts.clone());
    pool.spawn(move || {
        let me = stealpool::current_thread_index().unwrap();
        holding.send(()).unwrap();
        let start = Instant::now();
        // The other worker leaves once the shutdown begins and it has
        // nothing to do.
        while !exited_watch.lock().unwrap().contains(&(1 - me)) {
            assert!(start.elapsed() < DEADLINE, "the other worker never left");
            thread::yield_now();
        }
        let record = record_parts.clone();
        stealpool::spawn_broadcast(move |context| {
            let on = stealpool::current_thread_index();
            record.lock().unwrap().push((context.index(), on));
        });
        record_parts.lock().unwrap().push((usize::MAX, Some(me)));
    });
    held.recv().unwrap();
    drop(pool);
    let mut parts = std::mem::take(&mut *parts.lock().unwrap());
    parts.sort();
    let poster = parts.pop().expect("the task ran").1;
    // Both parts ran; the departed worker's on the poster.
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert!(parts.iter().all(|&(_, on)| on == poster), "{parts:?}");
}
