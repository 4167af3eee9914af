#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The free functions (`stealpool::join`, `scope`, `spawn`,
//! `current_num_threads`, `current_thread_index`) and the global pool.
//!
//! On a worker they use that worker's pool, which the tests tell apart from
//! the global pool by thread names and by the pool's statistics. What sizes
//! the global pool (`STEALPOOL_NUM_THREADS`, `Builder::build_global`) is
//! process-wide, so those tests run this binary again as a child process
//! with one role each; the tests in this process never call `build_global`.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use stealpool::ThreadPool;

/// A pool whose threads are named `mine-i`.
fn named_pool(threads: usize) -> ThreadPool {
    ThreadPool::builder()
        .num_threads(threads)
        .thread_name(|i| format!("mine-{i}"))
        .build()
        .unwrap()
}

fn thread_name() -> String {
    std::thread::current().name().unwrap_or("").to_owned()
}

#[test]
fn free_join_in_install_runs_on_that_pool() {
    let pool = named_pool(3);
    let (a, b) = pool.install(|| {
        stealpool::join(
            || {
                (
                    thread_name(),
                    stealpool::current_thread_index(),
                    stealpool::current_num_threads(),
                )
            },
            || {
                (
                    thread_name(),
                    stealpool::current_thread_index(),
                    stealpool::current_num_threads(),
                )
            },
        )
    });
    for (name, index, threads) in [a, b] {
        assert!(name.starts_with("mine-"), "ran on {name:?}");
        assert!(index.unwrap() < 3);
        assert_eq!(threads, 3);
    }
}

#[test]
fn free_spawn_and_scope_in_install_are_that_pools_tasks() {
    let pool = named_pool(2);
    let ran_here = AtomicUsize::new(0);
    pool.install(|| {
        stealpool::scope(|s| {
            for _ in 0..8 {
                s.spawn(|_| {
                    if thread_name().starts_with("mine-") {
                        ran_here.fetch_add(1, SeqCst);
                    }
                });
            }
        });
        for _ in 0..5 {
            stealpool::spawn(|| assert!(thread_name().starts_with("mine-")));
        }
    });
    pool.wait_all();
    assert_eq!(ran_here.load(SeqCst), 8);
    // The 8 scope tasks and the 5 spawned ones, counted by this pool.
    let stats = pool.stats();
    assert_eq!(stats.tasks_executed, 13);
    assert_eq!(stats.panicked, 0);
}

#[test]
fn pool_spawn_then_free_join_needs_no_handle() {
    // `pool.spawn(|| pool.join(..))` cannot borrow `pool` in a `'static`
    // task; the free `join` runs on the task's own pool.
    let pool = named_pool(2);
    let (tx, rx) = mpsc::channel();
    for i in 0..16u64 {
        let tx = tx.clone();
        pool.spawn(move || {
            let (a, b) = stealpool::join(|| (i, thread_name()), || (i * i, thread_name()));
            tx.send((a.0 + b.0, a.1, b.1)).unwrap();
        });
    }
    drop(tx);
    let mut sums = Vec::new();
    for (sum, name_a, name_b) in rx {
        assert!(name_a.starts_with("mine-") && name_b.starts_with("mine-"));
        sums.push(sum);
    }
    sums.sort_unstable();
    let mut expected: Vec<u64> = (0..16).map(|i| i + i * i).collect();
    expected.sort_unstable();
    assert_eq!(sums, expected);
}

#[test]
fn rayon_style_code_runs_on_the_global_pool() {
    fn sum(v: &[u64]) -> u64 {
        if v.len() <= 64 {
            return v.iter().sum();
        }
        let (left, right) = v.split_at(v.len() / 2);
        let (a, b) = stealpool::join(|| sum(left), || sum(right));
        a + b
    }
    let (tx, rx) = mpsc::channel();
    for round in 0..8u64 {
        let tx = tx.clone();
        stealpool::spawn(move || {
            let data: Vec<u64> = (0..10_000).map(|i| i + round).collect();
            let mut partial = [0u64; 2];
            let (left, right) = partial.split_at_mut(1);
            stealpool::scope(|s| {
                s.spawn(|_| left[0] = sum(&data[..5_000]));
                s.spawn(|_| right[0] = sum(&data[5_000..]));
            });
            let name = thread_name();
            tx.send((round, partial[0] + partial[1], name)).unwrap();
        });
    }
    drop(tx);
    let mut seen = 0;
    for (round, total, name) in rx {
        assert_eq!(total, (0..10_000u64).sum::<u64>() + 10_000 * round);
        // A global worker, or one of the global pool's spares: a scope whose
        // stolen task still runs parks its worker and lends the slot to a
        // spare (W1), which then takes the next queued round.
        assert!(
            name.starts_with("stealpool-worker-") || name.starts_with("stealpool-spare-"),
            "ran on {name:?}, not a thread of the global pool"
        );
        seen += 1;
    }
    assert_eq!(seen, 8);
}

#[test]
fn free_join_outside_every_pool_runs_on_global_workers() {
    assert_eq!(stealpool::current_thread_index(), None);
    let (a, b) = stealpool::join(stealpool::current_thread_index, stealpool::current_thread_index);
    // Both halves ran on threads of the global pool (a worker, or a spare
    // of it that another test's parked wait let in, W1), never on this one;
    // a spare answers as a worker, so both indices are below the count.
    let threads = stealpool::current_num_threads();
    assert!(a.unwrap() < threads && b.unwrap() < threads);
}

#[test]
fn free_join_on_a_pool_with_a_join_limit() {
    fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = stealpool::join(|| fib(n - 1), || fib(n - 2));
        a + b
    }
    let pool = ThreadPool::builder()
        .num_threads(2)
        .max_pending_joins(2)
        .build()
        .unwrap();
    assert_eq!(pool.install(|| fib(22)), 17_711);
}

#[test]
fn free_join_reraises_a_panic() {
    let pool = named_pool(2);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| stealpool::join(|| 1, || panic!("b failed")))
    }));
    let payload = outcome.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"b failed"));
    // The pool goes on.
    assert_eq!(pool.install(|| stealpool::join(|| 1, || 2)), (1, 2));
}

// Child processes: each role below runs in a fresh process, started by
// `in_child`, and does nothing in this one.

/// The variable that gives a child process its role.
const ROLE: &str = "STEALPOOL_TEST_GLOBAL_ROLE";

/// Runs the test `global_pool_role` alone in a fresh copy of this binary
/// with `role` and the extra environment `env`; returns its stderr, and
/// fails if it failed or did not run.
fn in_child(role: &str, env: &[(&str, &str)]) -> String {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["global_pool_role", "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env_remove("STEALPOOL_NUM_THREADS");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "role {role}: {stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "role {role} did not run: {stdout}");
    stderr
}

fn machine() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
fn global_pool_role() {
    let Ok(role) = std::env::var(ROLE) else { return };
    let expected = |n: &str| -> usize { n.parse().unwrap() };
    match role.split_once(':') {
        // The lazily built pool has this many workers.
        Some(("threads", n)) => {
            assert_eq!(stealpool::current_num_threads(), expected(n));
            let indices = stealpool::join(stealpool::current_thread_index, stealpool::current_thread_index);
            assert!(indices.0.unwrap() < expected(n) && indices.1.unwrap() < expected(n));
        }
        // `build_global` decides, whatever the variable says, once.
        Some(("build", n)) => {
            let named = |i| format!("configured-{i}");
            ThreadPool::builder()
                .num_threads(expected(n))
                .thread_name(named)
                .build_global()
                .unwrap();
            let error = ThreadPool::builder().num_threads(1).build_global().unwrap_err();
            assert!(error.to_string().contains("already"), "{error}");
            assert_eq!(stealpool::current_num_threads(), expected(n));
            let (a, _) = stealpool::join(thread_name, thread_name);
            assert!(a.starts_with("configured-"), "{a}");
        }
        // A first use builds the global pool: `build_global` is too late.
        Some(("late", _)) => {
            let threads = stealpool::current_num_threads();
            assert!(ThreadPool::builder()
                .num_threads(threads + 1)
                .build_global()
                .is_err());
            assert_eq!(stealpool::current_num_threads(), threads);
        }
        _ => panic!("unknown role {role}"),
    }
}

#[test]
fn num_threads_variable_sizes_the_global_pool() {
    let stderr = in_child("threads:3", &[("STEALPOOL_NUM_THREADS", "3")]);
    assert!(!stderr.contains("ignoring"), "{stderr}");
    in_child("threads:1", &[("STEALPOOL_NUM_THREADS", " 1 ")]);
}

#[test]
fn num_threads_variable_zero_or_unset_means_the_machine() {
    let machine = format!("threads:{}", machine());
    in_child(&machine, &[("STEALPOOL_NUM_THREADS", "0")]);
    in_child(&machine, &[("STEALPOOL_NUM_THREADS", "")]);
    in_child(&machine, &[]);
}

#[test]
fn bad_num_threads_variable_is_ignored_with_a_warning() {
    let machine = format!("threads:{}", machine());
    for bad in ["abc", "-1", "1e3", "70000"] {
        let stderr = in_child(&machine, &[("STEALPOOL_NUM_THREADS", bad)]);
        assert!(
            stderr.contains("ignoring STEALPOOL_NUM_THREADS"),
            "no warning for {bad:?}: {stderr}"
        );
    }
}

#[test]
fn build_global_configures_the_global_pool_once() {
    in_child("build:3", &[("STEALPOOL_NUM_THREADS", "5")]);
}

#[test]
fn build_global_after_first_use_is_an_error() {
    in_child("late:", &[("STEALPOOL_NUM_THREADS", "2")]);
}
