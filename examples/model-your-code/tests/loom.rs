//! The planted races under loom, at preemption bound 2: loom explores every
//! schedule within the bound, in the same order on every run, so a planted
//! race is found by the same schedule each time.
//!
//! `cargo test --features loom --release` in this crate (loom explores
//! faster in release). Loom cannot unwind a failed execution while the
//! model's threads still run (the pool's workers): the process aborts after
//! printing the failure. So each planted program runs in a child process
//! (this test binary again, with `MODEL_PLANTED` set) and the test reads
//! the child's output for the lost update. The fixed twins are checked by
//! shuttle (`tests/shuttle.rs`): a two-worker pool's whole state space at
//! bound 2 is far larger than the prefix loom needs to find a race.
#![cfg(feature = "loom")]

use model_your_code as code;
use model_your_code::Variant;
use std::process::Command;
use stealpool::ThreadPool;

/// In the child: runs `program` under loom at preemption bound 2. In the
/// parent: runs the child for `test` and asserts that loom found the lost
/// update (the count 1 where 2 was expected).
fn found_by_loom(test: &str, program: impl Fn() + Send + Sync + 'static) {
    if std::env::var_os("MODEL_PLANTED").is_some() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(2);
        builder.check(program);
        return;
    }
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads", "1"])
        .env("MODEL_PLANTED", "1")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{test}: loom found no failing schedule");
    assert!(
        printed.contains("left: 1") && printed.contains("right: 2"),
        "{test}: the child failed, but not with the lost update:\n{printed}"
    );
}

#[test]
fn join_on_a_pool_of_its_own() {
    found_by_loom("join_on_a_pool_of_its_own", || {
        let pool = ThreadPool::new(2);
        assert_eq!(code::join_on_a_pool(&pool, Variant::Planted), 2);
    });
}

#[test]
fn free_join() {
    found_by_loom("free_join", || assert_eq!(code::free_join(Variant::Planted), 2));
}

#[test]
fn scope() {
    found_by_loom("scope", || assert_eq!(code::scope_tasks(Variant::Planted), 2));
}

#[test]
fn par_iter_for_each() {
    found_by_loom("par_iter_for_each", || {
        assert_eq!(code::par_iter_for_each(Variant::Planted), 2)
    });
}

#[test]
fn submit_and_then() {
    found_by_loom("submit_and_then", || {
        let pool = ThreadPool::new(2);
        assert_eq!(code::submit_then(&pool, Variant::Planted), 2);
    });
}
