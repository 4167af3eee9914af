//! `Builder::max_pending_joins` (F6 in `proofs/fork.md`): `join`s past the
//! limit may run inline, and everything a `join` promises besides a half
//! for others to take still holds: results, panics, drops, shared work, and
//! no stranded half among the first ones pending.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use stealpool::ThreadPool;

mod common;
use common::fib;

fn limited(threads: usize, limit: usize) -> ThreadPool {
    ThreadPool::builder()
        .num_threads(threads)
        .max_pending_joins(limit)
        .build()
        .unwrap()
}

#[test]
fn results_are_those_of_sequential_code() {
    for threads in [1, 2] {
        for limit in [0, 1, 3, 64] {
            let pool = limited(threads, limit);
            assert_eq!(
                pool.install(|| fib(&pool, 22)),
                17_711,
                "{threads} workers, limit {limit}"
            );
            // From outside the pool too (through `install`).
            assert_eq!(fib(&pool, 15), 610, "{threads} workers, limit {limit}");
        }
    }
}

#[test]
fn work_is_still_shared() {
    // The second worker starts asleep, so the first `join`s publish and
    // wake it (F6, condition 3); it then steals or is handed a half. A run
    // where it never gets one is possible on a loaded machine, so the test
    // runs fib(25) until one half reached the second worker: the count
    // below only stops a pool that never shares (each run publishes its
    // first halves and wakes the second worker, so a loaded machine only
    // takes more runs).
    let pool = limited(2, 3);
    let runs = (1..=RUNS).find(|_| {
        let before = pool.stats();
        assert_eq!(pool.install(|| fib(&pool, 25)), 75_025);
        let after = pool.stats();
        after.tasks_stolen + after.joins_promoted > before.tasks_stolen + before.joins_promoted
    });
    assert!(
        runs.is_some(),
        "no half of {RUNS} runs of fib(25) reached the second worker"
    );
}

/// The most runs `work_is_still_shared` tries.
const RUNS: usize = 2000;

#[test]
fn the_first_pending_half_is_not_stranded_by_a_blocked_owner() {
    // With a limit of 1 the outer `join` is the first pending half, so it
    // is published: its first closure blocks until the second has run,
    // which only the other worker can do (F4, F5). A `join` nested in the
    // first closure is past the limit and may run inline.
    let pool = std::sync::Arc::new(limited(2, 1));
    let (done_sender, done) = mpsc::channel();
    for _ in 0..50 {
        let pool = pool.clone();
        let done_sender = done_sender.clone();
        pool.clone().spawn(move || {
            let (sender, receiver) = mpsc::channel();
            let inner = pool.clone();
            let ((), ()) = pool.join(
                move || {
                    let (x, y) = inner.join(|| 1, || 2);
                    assert_eq!(x + y, 3);
                    receiver.recv().unwrap();
                },
                move || sender.send(()).unwrap(),
            );
            done_sender.send(()).unwrap();
        });
        done.recv_timeout(Duration::from_secs(30))
            .expect("a published half was stranded behind its blocked owner");
    }
}

/// Counts its drops; panics in `drop` if asked to.
#[derive(Debug)]
struct Tracked<'a> {
    drops: &'a AtomicUsize,
    panic_on_drop: bool,
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
        if self.panic_on_drop {
            panic!("Tracked::drop");
        }
    }
}

#[test]
fn a_panic_in_the_first_closure_still_runs_the_second() {
    // Limit 0: with nobody asleep and nobody asking, every `join` of a
    // one-worker pool may run inline; where it publishes instead (no
    // membarrier), the outcome must be the same.
    for panic_on_drop in [false, true] {
        let pool = limited(1, 0);
        let drops = AtomicUsize::new(0);
        let ran_b = AtomicUsize::new(0);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                let captured = Tracked {
                    drops: &drops,
                    panic_on_drop,
                };
                let ran_b = &ran_b;
                pool.join(
                    || panic!("first closure"),
                    move || {
                        let _keep = &captured;
                        ran_b.fetch_add(1, Ordering::SeqCst);
                    },
                )
            })
        }));
        let payload = outcome.expect_err("the first closure's panic reaches the caller");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"first closure"));
        assert_eq!(
            ran_b.load(Ordering::SeqCst),
            1,
            "the second closure did not run once after the first panicked"
        );
        assert_eq!(
            drops.load(Ordering::SeqCst),
            1,
            "the second closure's capture was not dropped once"
        );
        // The worker survived: the pool still runs work.
        assert_eq!(pool.install(|| fib(&pool, 10)), 55);
    }
}

#[test]
fn a_panic_in_the_second_closure_reaches_the_caller() {
    let pool = limited(1, 0);
    let drops = AtomicUsize::new(0);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| {
            pool.join(
                || Tracked {
                    drops: &drops,
                    panic_on_drop: false,
                },
                || panic!("second closure"),
            )
        })
    }));
    let payload = outcome.expect_err("the second closure's panic reaches the caller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"second closure"));
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "the first closure's result was not dropped once"
    );
}
