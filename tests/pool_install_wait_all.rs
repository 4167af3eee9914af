#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! `install` and `wait_all` on real threads: `install` runs its closure on
//! a worker (inline when already on one of the pool's, on the other pool's
//! workers otherwise); `wait_all` from outside and from inside tasks waits
//! for every task, including those spawned meanwhile, and never deadlocks
//! when several tasks wait at once.
//!
//! Counts scale down under Miri, which runs this file to check the pool for
//! undefined behaviour, data races and leaks.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::thread;
use std::time::Duration;
use stealpool::{current_thread_index, ThreadPool};

mod common;
use common::pool::{await_flag, rendezvous, unwrap_pool};
use common::{scaled, Gate};

// ---------------------------------------------------------------- install

#[test]
fn install_runs_on_a_worker_and_returns_its_value() {
    let pool = ThreadPool::new(2);
    let local = [1, 2, 3];
    let (index, sum) = pool.install(|| (current_thread_index(), local.iter().sum::<i32>()));
    assert!(matches!(index, Some(0 | 1)));
    assert_eq!(sum, 6);
}

#[test]
fn install_inside_the_pool_runs_inline() {
    let pool = ThreadPool::new(2);
    let (outer, inner, thread_ids) = pool.install(|| {
        let outer = current_thread_index();
        let outer_thread = thread::current().id();
        let (inner, inner_thread) = pool.install(|| (current_thread_index(), thread::current().id()));
        (outer, inner, (outer_thread, inner_thread))
    });
    assert_eq!(outer, inner);
    assert_eq!(
        thread_ids.0, thread_ids.1,
        "a nested install moved to another thread"
    );
}

#[test]
fn install_on_another_pool_runs_there() {
    let small = ThreadPool::new(1);
    let other = ThreadPool::new(2);
    // A worker of `small` asks `other` for work: it blocks (it is not one of
    // `other`'s workers) and the closure sees `other`'s index.
    let seen = small
        .install(|| other.install(|| (current_thread_index(), thread::current().name().map(String::from))));
    assert!(matches!(seen.0, Some(0 | 1)));
    assert!(seen.1.unwrap().starts_with("stealpool-worker-"));
}

// ---------------------------------------------------------------- wait_all

#[test]
fn wait_all_from_outside_waits_for_tasks_spawned_by_tasks() {
    fn tree(pool: &Arc<ThreadPool>, depth: u32, done: &Arc<AtomicUsize>) {
        done.fetch_add(1, Relaxed);
        if depth == 0 {
            return;
        }
        for _ in 0..2 {
            let (spawner, done) = (pool.clone(), done.clone());
            pool.spawn(move || tree(&spawner, depth - 1, &done));
        }
    }
    let depth = scaled(10, 3) as u32;
    let pool = Arc::new(ThreadPool::new(2));
    let done = Arc::new(AtomicUsize::new(0));
    let (spawner, counter) = (pool.clone(), done.clone());
    pool.spawn(move || tree(&spawner, depth, &counter));
    pool.wait_all();
    assert_eq!(done.load(Relaxed), (1 << (depth + 1)) - 1);
    assert_eq!(pool.pending_tasks(), 0);
    unwrap_pool(pool).shutdown();
}

#[test]
fn wait_all_on_an_idle_pool_returns() {
    let pool = ThreadPool::new(2);
    pool.wait_all();
    pool.install(|| ());
    pool.wait_all();
    assert_eq!(pool.pending_tasks(), 0);
}

/// Observed semantics of `wait_all` inside a task: it runs other work while
/// it waits, and returns once every task except the caller has finished,
/// including tasks spawned before it from outside and tasks it spawned.
#[test]
fn wait_all_inside_a_task_waits_for_every_other_task() {
    let (outside, inside) = (scaled(50, 4), scaled(50, 4));
    let pool = Arc::new(ThreadPool::new(2));
    let done = Arc::new(AtomicUsize::new(0));
    for _ in 0..outside {
        let done = done.clone();
        pool.spawn(move || {
            thread::yield_now();
            done.fetch_add(1, Relaxed);
        });
    }
    let (inner, counter) = (pool.clone(), done.clone());
    let seen_after_wait = pool.submit(move || {
        for _ in 0..inside {
            let counter = counter.clone();
            inner.spawn(move || {
                counter.fetch_add(1, Relaxed);
            });
        }
        inner.wait_all();
        // Only the caller itself is unfinished now.
        (counter.load(Relaxed), inner.pending_tasks())
    });
    assert_eq!(seen_after_wait.join().unwrap(), (outside + inside, 1));
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}

#[test]
fn wait_all_inside_a_task_on_one_thread_runs_the_queued_tasks() {
    // The only worker is the one waiting: the queued tasks can only finish
    // if `wait_all` runs them itself.
    let pool = Arc::new(ThreadPool::new(1));
    let done = Arc::new(AtomicUsize::new(0));
    let (inner, counter) = (pool.clone(), done.clone());
    let handle = pool.submit(move || {
        for _ in 0..10 {
            let counter = counter.clone();
            inner.spawn(move || {
                counter.fetch_add(1, Relaxed);
            });
        }
        inner.wait_all();
        counter.load(Relaxed)
    });
    assert_eq!(handle.join().unwrap(), 10);
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}

/// Two tasks in `wait_all` at once, on different workers, must not wait for
/// each other: each returns once everything else has finished.
#[test]
fn two_tasks_in_wait_all_at_once_do_not_deadlock() {
    let children = scaled(20, 3);
    let pool = Arc::new(ThreadPool::new(2));
    let arrived = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let waiters: Vec<_> = (0..2)
        .map(|_| {
            let (inner, arrived, done) = (pool.clone(), arrived.clone(), done.clone());
            pool.submit(move || {
                // Both waiters run at the same time, one per worker.
                let met = rendezvous(&arrived, 2);
                for _ in 0..children {
                    let done = done.clone();
                    inner.spawn(move || {
                        done.fetch_add(1, Relaxed);
                    });
                }
                inner.wait_all();
                (met, done.load(Relaxed))
            })
        })
        .collect();
    for waiter in waiters {
        let (met, seen) = waiter.join().unwrap();
        assert!(met, "the two waiters never ran at the same time");
        // Each waiter spawned `children`; the other's may not all be spawned
        // when it returns, but its own have all finished.
        assert!(seen >= children, "wait_all returned before its own children ran");
    }
    pool.wait_all();
    assert_eq!(done.load(Relaxed), 2 * children);
    unwrap_pool(pool).shutdown();
}

/// A task in `wait_all` runs other tasks on its stack; when one of those
/// calls `wait_all` too, the inner call must still wait for every task that
/// is not on this thread's stack.
///
/// On one worker the order is fixed: A spawns D and C, then waits; its
/// `wait_all` pops C (newest first) and runs it; C's `wait_all` must run D
/// before returning, since D is neither A nor C.
#[test]
fn nested_wait_all_on_one_worker_still_waits_for_queued_tasks() {
    let pool = Arc::new(ThreadPool::new(1));
    let d_done = Arc::new(AtomicBool::new(false));
    // 0: C has not returned from wait_all; 1: D was done then; 2: it was not.
    let observed = Arc::new(AtomicU8::new(0));
    let (inner, d_flag, seen) = (pool.clone(), d_done.clone(), observed.clone());
    let a = pool.submit(move || {
        let flag = d_flag.clone();
        inner.spawn(move || flag.store(true, Release));
        let (c_pool, c_flag, c_seen) = (inner.clone(), d_flag, seen);
        inner.spawn(move || {
            c_pool.wait_all();
            c_seen.store(if c_flag.load(Acquire) { 1 } else { 2 }, Release);
        });
        inner.wait_all();
    });
    a.join().unwrap();
    pool.wait_all();
    assert_eq!(
        observed.load(Acquire),
        1,
        "wait_all in C (run on the stack of A, itself in wait_all) returned while D was still queued"
    );
    assert!(d_done.load(Acquire));
    unwrap_pool(pool).shutdown();
}

/// `wait_all` from outside the pool waits for every task, including one that
/// is itself blocked in `wait_all` inside the pool.
#[test]
fn wait_all_from_outside_waits_for_a_task_inside_wait_all() {
    let pool = Arc::new(ThreadPool::new(2));
    let gate = Arc::new(Gate::default());
    let (b_started, a_waiting, a_done) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    // B holds one worker until the gate opens.
    {
        let (gate, started) = (gate.clone(), b_started.clone());
        pool.spawn(move || {
            started.store(true, Release);
            gate.wait();
        });
    }
    await_flag(&b_started, "task B to start");
    // A, on the other worker, waits in `wait_all` for B, then works a little
    // longer before it finishes.
    {
        let (inner, waiting, done) = (pool.clone(), a_waiting.clone(), a_done.clone());
        pool.spawn(move || {
            waiting.store(true, Release);
            inner.wait_all();
            thread::sleep(Duration::from_millis(50));
            done.store(true, Release);
        });
    }
    await_flag(&a_waiting, "task A to call wait_all");
    // Let A get inside `wait_all` before B is released.
    thread::sleep(Duration::from_millis(20));
    gate.open();
    pool.wait_all();
    let pending = pool.pending_tasks();
    let a_finished = a_done.load(Acquire);
    // Let A finish either way before the asserts, so a failure does not
    // leave the pool held by a running task.
    await_flag(&a_done, "task A to finish");
    assert_eq!(
        pending, 0,
        "wait_all from outside returned with a task still running"
    );
    assert!(
        a_finished,
        "wait_all from outside returned before task A (inside wait_all) finished"
    );
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}
