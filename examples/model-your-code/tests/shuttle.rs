//! The planted races under shuttle: each is found within [`ITERATIONS`]
//! random schedules, and each fixed twin passes as many.
//!
//! `cargo test --features shuttle` in this crate. The seed is fixed, so the
//! iteration that finds each race is the same on every run; the test prints
//! it. A failing run prints the schedule, which `shuttle::replay` replays
//! (`replays_the_failing_schedule` below does).
#![cfg(feature = "shuttle")]

use model_your_code as code;
use model_your_code::Variant;
use shuttle::scheduler::RandomScheduler;
use shuttle::{Config, Runner};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use stealpool::ThreadPool;

/// The budget the promise is made for: a planted race between two pieces
/// of parallel work is found within this many random schedules.
const ITERATIONS: usize = 3_000;
const SEED: u64 = 0x5eed;

/// Runs `program` under shuttle's random scheduler for up to `ITERATIONS`
/// schedules; returns the number of the schedule that failed, if one did.
fn first_failure(program: impl Fn() + Send + Sync + 'static) -> Option<usize> {
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    let result = panic::catch_unwind(AssertUnwindSafe(move || {
        let runner = Runner::new(RandomScheduler::new_from_seed(SEED, ITERATIONS), Config::new());
        runner.run(move || {
            counted.fetch_add(1, SeqCst);
            program();
        });
    }));
    result.err().map(|_| runs.load(SeqCst))
}

/// The planted variant fails within the budget; the fixed one never does.
fn check(name: &str, program: impl Fn(Variant) + Send + Sync + Copy + 'static) {
    let found = first_failure(move || program(Variant::Planted));
    println!("{name}: planted race found in schedule {found:?} of at most {ITERATIONS}");
    assert!(
        found.is_some(),
        "{name}: the planted race went unseen in {ITERATIONS} schedules"
    );
    assert_eq!(
        first_failure(move || program(Variant::Fixed)),
        None,
        "{name}: the fixed twin failed"
    );
}

#[test]
fn join_on_a_pool_of_its_own() {
    check("pool.join", |variant| {
        let pool = ThreadPool::new(2);
        assert_eq!(code::join_on_a_pool(&pool, variant), 2);
    });
}

#[test]
fn free_join() {
    check("stealpool::join", |variant| {
        assert_eq!(code::free_join(variant), 2)
    });
}

#[test]
fn scope() {
    check("stealpool::scope", |variant| {
        assert_eq!(code::scope_tasks(variant), 2)
    });
}

#[test]
fn par_iter_for_each() {
    check("into_par_iter().for_each", |variant| {
        assert_eq!(code::par_iter_for_each(variant), 2)
    });
}

#[test]
fn submit_and_then() {
    check("submit, then", |variant| {
        let pool = ThreadPool::new(2);
        assert_eq!(code::submit_then(&pool, variant), 2);
    });
}

#[test]
fn rayon_style_code_is_correct_in_every_schedule() {
    let runner = Runner::new(RandomScheduler::new_from_seed(SEED, 200), Config::new());
    runner.run(|| assert_eq!(code::rayon_style_sum(&[1, 2, 3, 4, 5, 6, 7, 8]), 36 * 3));
}

/// A failing run prints its seed; the same seed runs the same schedule
/// again. Here the first seed whose one schedule fails the planted `join`
/// race is found as a user finds it in the output, then run again: it
/// fails the same way, every time.
#[test]
fn replays_the_failing_seed() {
    let program = || {
        let pool = ThreadPool::new(2);
        assert_eq!(code::join_on_a_pool(&pool, Variant::Planted), 2);
    };
    let fails = |seed: u64| {
        let mut config = Config::new();
        config.failure_persistence = shuttle::FailurePersistence::None;
        panic::catch_unwind(AssertUnwindSafe(|| {
            Runner::new(RandomScheduler::new_from_seed(seed, 1), config).run(program);
        }))
        .is_err()
    };
    let seed = (0..ITERATIONS as u64)
        .find(|&seed| fails(seed))
        .expect("no schedule failed");
    println!("the planted join race fails with seed {seed}");
    for _ in 0..3 {
        assert!(fails(seed), "seed {seed} passed when run again");
    }
}
