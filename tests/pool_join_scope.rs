#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! `join` and `scope` on real threads: both halves of a `join` and every
//! task of a scope borrow from the caller's stack, nest inside tasks, and
//! are waited for, including tasks spawned by a scope's tasks.
//!
//! Counts scale down under Miri, which runs this file to check the pool for
//! undefined behaviour, data races and leaks.

use std::sync::atomic::{AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::thread;
use stealpool::{current_thread_index, ThreadPool};

mod common;
use common::pool::unwrap_pool;
use common::scaled;

// ---------------------------------------------------------------- join

#[test]
fn join_from_outside_borrows_from_the_stack() {
    let pool = ThreadPool::new(2);
    let data: Vec<u64> = (0..scaled(10_000, 100) as u64).collect();
    let mut left_out = 0;
    let mut right_out = 0;
    let (half_a, half_b) = data.split_at(data.len() / 2);
    let (ra, rb) = pool.join(
        || {
            left_out = half_a.iter().sum::<u64>();
            current_thread_index()
        },
        || {
            right_out = half_b.iter().sum::<u64>();
            current_thread_index()
        },
    );
    assert_eq!(left_out + right_out, data.iter().sum::<u64>());
    assert!(
        ra.is_some() && rb.is_some(),
        "join's closures ran outside the pool"
    );
}

#[test]
fn join_inside_a_task_nests() {
    fn sum(pool: &ThreadPool, slice: &[u64]) -> u64 {
        if slice.len() <= 8 {
            return slice.iter().sum();
        }
        let (a, b) = slice.split_at(slice.len() / 2);
        let (x, y) = pool.join(|| sum(pool, a), || sum(pool, b));
        x + y
    }
    let pool = Arc::new(ThreadPool::new(2));
    let data: Arc<Vec<u64>> = Arc::new((0..scaled(5_000, 64) as u64).collect());
    let (inner, shared) = (pool.clone(), data.clone());
    let total = pool.submit(move || sum(&inner, &shared)).join().unwrap();
    assert_eq!(total, data.iter().sum::<u64>());
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}

// ---------------------------------------------------------------- scope

#[test]
fn scope_tasks_borrow_and_write_the_stack() {
    let pool = ThreadPool::new(2);
    let input: Vec<u32> = (0..scaled(1000, 40) as u32).collect();
    let mut output = vec![0u32; input.len()];
    let chunk = 7;
    let returned = pool.scope(|s| {
        for (inputs, outputs) in input.chunks(chunk).zip(output.chunks_mut(chunk)) {
            s.spawn(move |_| {
                for (i, o) in inputs.iter().zip(outputs) {
                    *o = i * 3;
                }
            });
        }
        "body value"
    });
    assert_eq!(returned, "body value");
    assert!(input.iter().zip(&output).all(|(i, o)| *o == i * 3));
}

#[test]
fn scope_waits_for_tasks_spawned_by_its_tasks() {
    let pool = ThreadPool::new(2);
    let done = AtomicUsize::new(0);
    let fanout = scaled(10, 3);
    pool.scope(|s| {
        for _ in 0..fanout {
            s.spawn(|s| {
                for _ in 0..fanout {
                    s.spawn(|s| {
                        // The deepest level finishes last: give the scope a
                        // chance to return early if it could.
                        thread::yield_now();
                        s.spawn(|_| {
                            done.fetch_add(1, Relaxed);
                        });
                    });
                }
            });
        }
    });
    assert_eq!(done.load(Relaxed), fanout * fanout);
}

#[test]
fn nested_scopes_borrow_from_each_enclosing_frame() {
    let pool = ThreadPool::new(2);
    let outer_data: Vec<usize> = (0..scaled(16, 4)).collect();
    let total = AtomicUsize::new(0);
    pool.scope(|s| {
        for &x in &outer_data {
            let (pool, total) = (&pool, &total);
            s.spawn(move |_| {
                // A second scope inside a task, borrowing this task's frame.
                let inner_data: Vec<usize> = (0..x).collect();
                let inner_total = AtomicUsize::new(0);
                pool.scope(|inner| {
                    for y in &inner_data {
                        let inner_total = &inner_total;
                        inner.spawn(move |_| {
                            inner_total.fetch_add(*y, Relaxed);
                        });
                    }
                });
                // Every inner task has finished once the inner scope returns.
                let expected: usize = inner_data.iter().sum();
                assert_eq!(inner_total.load(Relaxed), expected);
                total.fetch_add(expected, Relaxed);
            });
        }
    });
    let expected: usize = outer_data.iter().map(|x| x * x.saturating_sub(1) / 2).sum();
    assert_eq!(total.load(Relaxed), expected);
}

#[test]
fn scope_from_inside_a_task_on_one_thread() {
    let pool = Arc::new(ThreadPool::new(1));
    let inner = pool.clone();
    let handle = pool.submit(move || {
        let mut parts = [0usize; 4];
        inner.scope(|s| {
            for (i, part) in parts.iter_mut().enumerate() {
                s.spawn(move |_| *part = i + 1);
            }
        });
        parts
    });
    assert_eq!(handle.join().unwrap(), [1, 2, 3, 4]);
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}
