#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! What drop and `shutdown` run, on real threads: every task still queued
//! (on the injector or on the workers' deques) runs, every worker thread is
//! joined, and dropping the last handle from inside a task still runs the
//! queued tasks.
//!
//! Counts scale down under Miri, which runs this file to check the pool for
//! undefined behaviour, data races and leaks.

use std::sync::atomic::{AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::thread;
use std::time::Instant;
use stealpool::ThreadPool;

mod common;
use common::pool::{rendezvous, unwrap_pool, Seen};
use common::{scaled, Gate, DEADLINE};

// ---------------------------------------------------------------- drop and shutdown

#[test]
fn drop_runs_every_task_queued_on_the_injector() {
    let tasks = scaled(5_000, 20);
    let pool = ThreadPool::new(2);
    let gate = Arc::new(Gate::default());
    // Hold both workers so that everything below is still queued.
    for _ in 0..2 {
        let gate = gate.clone();
        pool.spawn(move || gate.wait());
    }
    let seen = Arc::new(Seen::new(tasks));
    for task in 0..tasks {
        let seen = seen.clone();
        pool.spawn(move || seen.record(task));
    }
    gate.open();
    drop(pool);
    seen.assert_each_once();
}

#[test]
fn shutdown_runs_tasks_queued_on_the_workers_deques() {
    // One parent spawns every child from inside the pool, so the children
    // sit on workers' deques (not the injector) when the pool shuts down.
    let children = scaled(2_000, 20);
    let pool = Arc::new(ThreadPool::new(2));
    let gate = Arc::new(Gate::default());
    let seen = Arc::new(Seen::new(children));
    {
        let (spawner, gate, seen) = (pool.clone(), gate.clone(), seen.clone());
        pool.spawn(move || {
            for child in 0..children {
                let (gate, seen) = (gate.clone(), seen.clone());
                spawner.spawn(move || {
                    gate.wait();
                    seen.record(child);
                });
            }
        });
    }
    // The parent has returned (and dropped its clone of the pool) once this
    // is the last reference; the children are blocked behind the gate.
    let start = Instant::now();
    while Arc::strong_count(&pool) > 1 {
        assert!(start.elapsed() < DEADLINE, "the parent task never finished");
        thread::yield_now();
    }
    let pool = unwrap_pool(pool);
    assert!(pool.pending_tasks() > 0);
    gate.open();
    pool.shutdown();
    seen.assert_each_once();
}

/// Counts a worker thread's exit: a thread-local whose destructor runs when
/// the thread ends.
struct ExitSignal(Arc<AtomicUsize>);

impl Drop for ExitSignal {
    fn drop(&mut self) {
        self.0.fetch_add(1, Release);
    }
}

thread_local! {
    static ON_EXIT: std::cell::RefCell<Option<ExitSignal>> = const { std::cell::RefCell::new(None) };
}

/// Arms an [`ExitSignal`] on every worker of `pool` (one task per worker,
/// held together); the returned counter reaches `num_workers` once all of
/// them have exited.
fn watch_worker_exits(pool: &ThreadPool) -> Arc<AtomicUsize> {
    let exited = Arc::new(AtomicUsize::new(0));
    let arrived = Arc::new(AtomicUsize::new(0));
    let workers = pool.num_workers();
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (exited, arrived) = (exited.clone(), arrived.clone());
            pool.submit(move || {
                let met = rendezvous(&arrived, workers);
                ON_EXIT.with(|slot| *slot.borrow_mut() = Some(ExitSignal(exited)));
                met
            })
        })
        .collect();
    for handle in handles {
        assert!(handle.join().unwrap(), "the workers never ran at the same time");
    }
    exited
}

#[test]
fn drop_joins_every_worker_thread() {
    let pool = ThreadPool::new(2);
    let exited = watch_worker_exits(&pool);
    assert_eq!(exited.load(Acquire), 0);
    drop(pool);
    assert_eq!(
        exited.load(Acquire),
        2,
        "drop returned before every worker thread ended"
    );
}

#[test]
fn dropping_the_last_handle_inside_a_task_still_runs_queued_tasks() {
    // The last reference to the pool goes away on a worker, which cannot
    // join itself: the workers must still drain the queues and exit.
    let tasks = scaled(100, 5);
    let pool = Arc::new(ThreadPool::new(2));
    let exited = watch_worker_exits(&pool);
    let gate = Arc::new(Gate::default());
    let done = Arc::new(AtomicUsize::new(0));
    {
        let (owner, gate) = (pool.clone(), gate.clone());
        pool.spawn(move || {
            gate.wait();
            drop(owner);
        });
    }
    for _ in 0..tasks {
        let done = done.clone();
        pool.spawn(move || {
            done.fetch_add(1, Release);
        });
    }
    drop(pool);
    gate.open();
    // Both workers end on their own, after running every queued task (a
    // thread's exit happens after everything it did).
    let start = Instant::now();
    while exited.load(Acquire) < 2 {
        assert!(start.elapsed() < DEADLINE, "the workers never exited");
        thread::yield_now();
    }
    assert_eq!(done.load(Acquire), tasks);
}
