#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Fork-join on real threads: algorithms checked against sequential results
//! (`fib` by `join`, quicksort, a scope tree), deep recursive submit-and-join
//! on small pools, and many outside threads joining and installing at once.
//!
//! Counts scale down under Miri.

use std::sync::atomic::{AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::thread;
use stealpool::ThreadPool;

mod common;
use common::stress::Rng;
use common::{fib, scaled};

// ---------------------------------------------------------------- fork-join

fn fib_sequential(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_sequential(n - 1) + fib_sequential(n - 2)
    }
}

#[test]
fn fork_join_fib_matches_the_sequential_result() {
    let n = scaled(22, 7) as u64;
    for workers in [1, 2, 4] {
        let pool = ThreadPool::new(workers);
        assert_eq!(fib(&pool, n), fib_sequential(n), "fib({n}) on {workers} workers");
        // And from a worker, where `join` pushes on its own deque directly.
        assert_eq!(pool.install(|| fib(&pool, n)), fib_sequential(n));
    }
}

/// Three-way partition around the middle element: `<`, `==`, `>`; returns
/// the bounds of the `==` run. Equal keys never recurse, so inputs full of
/// duplicates stay shallow.
fn partition<T: Ord + Copy>(v: &mut [T]) -> (usize, usize) {
    let pivot = v[v.len() / 2];
    let (mut lt, mut i, mut gt) = (0, 0, v.len());
    while i < gt {
        if v[i] < pivot {
            v.swap(lt, i);
            lt += 1;
            i += 1;
        } else if v[i] > pivot {
            gt -= 1;
            v.swap(i, gt);
        } else {
            i += 1;
        }
    }
    (lt, gt)
}

fn quicksort<T: Ord + Copy + Send>(pool: &ThreadPool, v: &mut [T]) {
    if v.len() <= 32 {
        v.sort_unstable();
        return;
    }
    let (lt, gt) = partition(v);
    let (low, rest) = v.split_at_mut(lt);
    let high = &mut rest[gt - lt..];
    pool.join(|| quicksort(pool, low), || quicksort(pool, high));
}

#[test]
fn parallel_quicksort_matches_the_sequential_sort() {
    let len = scaled(200_000, 300);
    let mut rng = Rng::new(42);
    let inputs: Vec<(&str, Vec<u64>)> = vec![
        ("random", (0..len).map(|_| rng.next()).collect()),
        ("few distinct keys", (0..len).map(|_| rng.below(16)).collect()),
        ("sorted", (0..len as u64).collect()),
        ("reversed", (0..len as u64).rev().collect()),
    ];
    let pool = ThreadPool::new(2);
    for (name, input) in inputs {
        let mut expected = input.clone();
        expected.sort_unstable();
        let mut sorted = input;
        quicksort(&pool, &mut sorted);
        assert!(
            sorted == expected,
            "quicksort of {name} input differs from sort_unstable"
        );
    }
}

// ---------------------------------------------------------------- recursive submit + join

/// A task that submits two subtasks and joins both handles, `depth` levels
/// deep; returns the number of leaves.
fn submit_tree(pool: &Arc<ThreadPool>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (left, right) = (pool.clone(), pool.clone());
    let a = pool.submit(move || submit_tree(&left, depth - 1));
    let b = pool.submit(move || submit_tree(&right, depth - 1));
    a.join().unwrap() + b.join().unwrap()
}

fn run_submit_tree(workers: usize, depth: u32) {
    let pool = Arc::new(ThreadPool::new(workers));
    let inner = pool.clone();
    let root = pool.submit(move || submit_tree(&inner, depth));
    assert_eq!(root.join().unwrap(), 1 << depth, "on {workers} workers");
    pool.wait_all();
    // The root and every subtask are tasks.
    assert_eq!(pool.stats().tasks_executed, (1 << (depth + 1)) - 1);
    Arc::try_unwrap(pool)
        .expect("finished tasks still hold the pool")
        .shutdown();
}

#[test]
fn nested_submit_and_join_completes_on_two_threads() {
    run_submit_tree(2, scaled(12, 3) as u32);
}

#[test]
fn nested_submit_and_join_completes_on_one_thread() {
    // Only work-while-waiting lets the one worker finish: every level waits
    // on handles whose tasks sit on its own deque.
    run_submit_tree(1, scaled(12, 3) as u32);
}

#[test]
fn many_outside_threads_join_and_install_at_once() {
    let threads = scaled(6, 2);
    let pool = Arc::new(ThreadPool::new(2));
    let callers: Vec<_> = (0..threads as u64)
        .map(|t| {
            let pool = pool.clone();
            thread::spawn(move || {
                for round in 0..scaled(20, 2) as u64 {
                    let n = 10 + (t + round) % 6;
                    assert_eq!(fib(&pool, n), fib_sequential(n));
                    let mut data: Vec<u64> = (0..500).map(|i| (i * 7919 + t) % 1000).collect();
                    let mut expected = data.clone();
                    expected.sort_unstable();
                    pool.install(|| quicksort(&pool, &mut data));
                    assert_eq!(data, expected);
                }
            })
        })
        .collect();
    for caller in callers {
        caller.join().unwrap();
    }
}

#[test]
fn scope_tree_sums_exactly() {
    fn tree<'s>(s: &stealpool::Scope<'s>, depth: u32, total: &'s AtomicUsize) {
        total.fetch_add(1, Relaxed);
        if depth > 0 {
            s.spawn(move |s| tree(s, depth - 1, total));
            s.spawn(move |s| tree(s, depth - 1, total));
        }
    }
    let depth = scaled(14, 3) as u32;
    let pool = ThreadPool::new(2);
    let total = AtomicUsize::new(0);
    pool.scope(|s| tree(s, depth, &total));
    assert_eq!(total.load(Relaxed), (1 << (depth + 1)) - 1);
}
