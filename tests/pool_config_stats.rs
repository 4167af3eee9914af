#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The pool's size and statistics queries and the builder's options on real
//! threads: `num_workers`, `pending_tasks`, `stats`, `current_thread_index`,
//! thread names, the workers' stack size, and the error a builder returns
//! for too many threads.
//!
//! Counts scale down under Miri, which runs this file to check the pool for
//! undefined behaviour, data races and leaks.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::thread;
use stealpool::{current_thread_index, ThreadPool};

mod common;
use common::pool::{await_flag, rendezvous, unwrap_pool};
use common::{scaled, Gate};

// ---------------------------------------------------------------- sizes and counts

#[test]
fn num_workers_is_the_requested_size() {
    for n in [1, 2, 3, scaled(8, 3)] {
        assert_eq!(ThreadPool::new(n).num_workers(), n);
    }
}

#[test]
fn zero_threads_means_available_parallelism() {
    let expected = thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(ThreadPool::new(0).num_workers(), expected);
    let built = ThreadPool::builder().num_threads(0).build().unwrap();
    assert_eq!(built.num_workers(), expected);
}

#[test]
fn pending_tasks_counts_queued_and_running_tasks() {
    let pool = ThreadPool::new(1);
    let gate = Arc::new(Gate::default());
    let started = Arc::new(AtomicBool::new(false));
    {
        let (gate, started) = (gate.clone(), started.clone());
        pool.spawn(move || {
            started.store(true, Release);
            gate.wait();
        });
    }
    await_flag(&started, "the blocking task to start");
    // The only worker is held: nothing below can finish yet.
    let queued = 5;
    for _ in 0..queued {
        pool.spawn(|| {});
    }
    let handle = pool.submit(|| 1);
    assert_eq!(pool.pending_tasks(), 1 + queued + 1);
    gate.open();
    pool.wait_all();
    assert_eq!(pool.pending_tasks(), 0);
    assert_eq!(handle.join().unwrap(), 1);
}

#[test]
fn stats_after_wait_all_count_every_task_exactly() {
    let pool = Arc::new(ThreadPool::new(2));
    let (spawned, submitted, scoped) = (scaled(300, 10), scaled(200, 10), scaled(100, 5));
    for _ in 0..spawned {
        pool.spawn(|| {});
    }
    let handles: Vec<_> = (0..submitted).map(|i| pool.submit(move || i)).collect();
    pool.scope(|s| {
        for _ in 0..scoped {
            // Each scope task spawns one more: both count.
            s.spawn(|s| s.spawn(|_| {}));
        }
    });
    // Neither `join` halves nor `install` closures are tasks.
    pool.join(|| (), || ());
    pool.install(|| pool.join(|| (), || ()));
    // A task that spawns from inside: the inner one counts as well.
    let inner = pool.clone();
    pool.spawn(move || inner.spawn(|| {}));
    for handle in handles {
        handle.join().unwrap();
    }
    pool.wait_all();
    let stats = pool.stats();
    let tasks = (spawned + submitted + 2 * scoped + 2) as u64;
    assert_eq!(stats.tasks_executed, tasks, "{stats:?}");
    assert_eq!(stats.panicked, 0);
    assert_eq!(stats.per_worker.len(), 2);
    assert_eq!(
        stats.per_worker.iter().map(|w| w.tasks_executed).sum::<u64>(),
        tasks
    );
    assert_eq!(
        stats.per_worker.iter().map(|w| w.steal_attempts).sum::<u64>(),
        stats.steal_attempts
    );
    assert_eq!(
        stats.per_worker.iter().map(|w| w.tasks_stolen).sum::<u64>(),
        stats.tasks_stolen
    );
    assert_eq!(
        stats.per_worker.iter().map(|w| w.successful_steals).sum::<u64>(),
        stats.successful_steals
    );
    assert!(stats.successful_steals <= stats.steal_attempts, "{stats:?}");
    // A successful steal brings back at least one job.
    assert!(stats.tasks_stolen >= stats.successful_steals, "{stats:?}");
    unwrap_pool(pool).shutdown();
}

#[test]
fn a_fresh_pool_has_zeroed_stats() {
    let pool = ThreadPool::new(3);
    let stats = pool.stats();
    assert_eq!(stats.tasks_executed, 0);
    assert_eq!(stats.panicked, 0);
    assert_eq!(stats.per_worker.len(), 3);
    assert!(stats
        .per_worker
        .iter()
        .all(|w| w.tasks_executed == 0 && w.panicked == 0));
}

// ---------------------------------------------------------------- current_thread_index

#[test]
fn current_thread_index_is_none_outside_and_each_worker_inside() {
    assert_eq!(current_thread_index(), None);
    let workers = 2;
    let pool = ThreadPool::new(workers);
    let arrived = Arc::new(AtomicUsize::new(0));
    // One task per worker, held together so that every worker runs one.
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let arrived = arrived.clone();
            pool.submit(move || (rendezvous(&arrived, workers), current_thread_index()))
        })
        .collect();
    let mut indices = HashSet::new();
    for handle in handles {
        let (met, index) = handle.join().unwrap();
        assert!(met, "the workers never ran at the same time");
        indices.insert(index.expect("a task ran outside the pool"));
    }
    assert_eq!(indices, (0..workers).collect::<HashSet<_>>());
    // A plain thread is in no pool, even while a pool runs.
    assert_eq!(thread::spawn(current_thread_index).join().unwrap(), None);
}

#[test]
fn current_thread_index_in_every_kind_of_work() {
    let pool = ThreadPool::new(2);
    let in_range = |i: Option<usize>| matches!(i, Some(0 | 1));
    assert!(in_range(pool.submit(current_thread_index).join().unwrap()));
    let (a, b) = pool.join(current_thread_index, current_thread_index);
    assert!(in_range(a) && in_range(b));
    let mut in_scope = None;
    pool.scope(|s| s.spawn(|_| in_scope = current_thread_index()));
    assert!(in_range(in_scope));
    assert!(in_range(pool.install(current_thread_index)));
}

// ---------------------------------------------------------------- builder

#[test]
fn thread_names_are_visible_inside_tasks() {
    let workers = 2;
    let named = ThreadPool::builder()
        .num_threads(workers)
        .thread_name(|i| format!("api-test-{i}"))
        .build()
        .unwrap();
    let default = ThreadPool::new(workers);
    for (pool, prefix) in [(&named, "api-test-"), (&default, "stealpool-worker-")] {
        let arrived = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let arrived = arrived.clone();
                pool.submit(move || {
                    let met = rendezvous(&arrived, workers);
                    (
                        met,
                        thread::current().name().map(String::from),
                        current_thread_index(),
                    )
                })
            })
            .collect();
        for handle in handles {
            let (met, name, index) = handle.join().unwrap();
            assert!(met, "the workers never ran at the same time");
            assert_eq!(
                name.as_deref(),
                Some(format!("{prefix}{}", index.unwrap()).as_str())
            );
        }
    }
}

/// Touches `bytes` of stack in one frame; with the platform's default
/// thread stack (2 MiB on Linux), 8 MiB would overflow.
#[inline(never)]
fn use_stack(bytes_hint: usize) -> u8 {
    const BIG: usize = if cfg!(miri) { 64 << 10 } else { 8 << 20 };
    let mut buffer = [0u8; BIG];
    buffer[bytes_hint % BIG] = 1;
    std::hint::black_box(&mut buffer);
    buffer.iter().fold(0u8, |acc, b| acc.wrapping_add(*b))
}

#[test]
fn stack_size_applies_to_the_workers() {
    let pool = ThreadPool::builder()
        .num_threads(2)
        .stack_size(if cfg!(miri) { 1 << 20 } else { 32 << 20 })
        .build()
        .unwrap();
    let handles: Vec<_> = (0..2).map(|i| pool.submit(move || use_stack(i * 1000))).collect();
    for handle in handles {
        assert_eq!(handle.join().unwrap(), 1);
    }
}

#[test]
fn too_many_threads_is_a_build_error() {
    let error = ThreadPool::builder().num_threads(65_536).build().unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("65535") && message.contains("65536"),
        "{message}"
    );
    assert!(std::error::Error::source(&error).is_none());
    assert!(!format!("{error:?}").is_empty());
}
