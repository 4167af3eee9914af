#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Features combined on real threads around `block_in_place`: spawns from
//! inside `block_in_place` on bounded deques, and `join`s, scopes and
//! `wait_all` on pools with no spare thread to stand in.
//!
//! Every value is dropped exactly once, every task runs exactly once, each
//! panic reaches the caller the API names, and the workers survive.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use stealpool::{block_in_place, Priority, ThreadPool};

mod common;
use common::combined::{is_expected, is_token, par_sum, pools, seeds, Ledger, Rng, Runs};
use common::{quiet_expected_panics_or, EXPECTED};

/// Tasks spawned, at every priority, from inside `block_in_place` on a
/// pool with bounded deques (the spare holds the worker's place), joined
/// and scoped there too, then more after it returns; a panic inside `f`
/// reaches the caller. Every task runs once.
fn blocking_spawn_round(seed: u64) {
    let mut rng = Rng(seed * 0x94D0_49BB + 5);
    let ledger = Arc::new(Ledger::default());
    let (a, b) = pools(&ledger, &mut rng);
    let n = 48;
    let once = Runs::new(n);
    let (o, a2, b2) = (once.clone(), a.clone(), b.clone());
    let levels = [
        Priority::Low,
        Priority::Normal,
        Priority::High,
        Priority::Critical,
    ];
    let h = a.submit(move || {
        let spawn = |i: usize| {
            let o = o.clone();
            let body = move || o.run(i);
            match i % 5 {
                4 => stealpool::spawn(body),
                k => a2.spawn_with_priority(levels[k], body),
            }
        };
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            block_in_place(|| {
                for i in 0..n / 2 {
                    spawn(i);
                }
                let (x, y) = stealpool::join(|| par_sum(30), || b2.install(|| par_sum(30)));
                assert_eq!(x, y);
                stealpool::scope(|s| {
                    s.spawn(|_| block_in_place(|| spawn(n / 2)));
                });
                panic!("{EXPECTED} inside block_in_place");
            })
        }));
        assert!(is_expected(&*r.expect_err("the panic was lost")));
        for i in n / 2 + 1..n {
            spawn(i);
        }
    });
    h.join().unwrap();
    a.wait_all();
    assert!(once.all_once(), "seed {seed}");
    drop(a);
    drop(b);
}

#[test]
fn spawns_from_inside_block_in_place_on_bounded_deques() {
    quiet_expected_panics_or(is_token);
    let seeds = seeds();
    for seed in 5 * seeds.start..5 * seeds.end {
        blocking_spawn_round(seed);
    }
}

/// Waits with no spare to be had (`max_blocking_threads(0)`, one worker
/// per pool), of the kinds that need none: a task joins handles of its own
/// pool still queued at every priority (they run in place) and waits on
/// the other pool (it runs its own pool's jobs meanwhile) while that pool's
/// task joins a task queued here; continuations and `when_all` of both
/// pools gathered meanwhile; bounded deques on one pool, a join limit on
/// the other.
fn no_spare_round(seed: u64) {
    let mut rng = Rng(seed * 0xBF58_476D + 13);
    let bounded = rng.below(2) == 0;
    let a = Arc::new(
        ThreadPool::builder()
            .num_threads(1)
            .bounded_steals(bounded)
            .max_blocking_threads(0)
            .build()
            .unwrap(),
    );
    let b = Arc::new(
        ThreadPool::builder()
            .num_threads(1)
            .max_pending_joins(1)
            .max_blocking_threads(0)
            .build()
            .unwrap(),
    );
    let (a2, b2) = (a.clone(), b.clone());
    let levels = [
        Priority::Low,
        Priority::Normal,
        Priority::High,
        Priority::Critical,
    ];
    let total = a.submit(move || {
        let mut sum = 0;
        let mut gathered = Vec::new();
        for (k, &level) in levels.iter().enumerate() {
            // Queued behind this task on the only worker: joined, it runs
            // in place.
            let own = a2.submit_with_priority(level, move || k as u64);
            sum += own.join().unwrap();
            let h = a2.submit_with_priority(level, move || k as u64);
            let c = a2
                .submit_with_priority(levels[3 - k], move || 10u64)
                .then(|x| x + 1);
            let a3 = a2.clone();
            // A wait on `a` from `b`'s worker, then one on `b` from here:
            // each pool runs its own jobs meanwhile.
            let across = b2.submit(move || a3.submit(|| 100u64).join().unwrap());
            gathered.push(a2.when_all([h, c, across]).then(|v| v.iter().sum::<u64>()));
            let (x, y) = b2.join(|| par_sum(10), || a2.install(|| par_sum(10)));
            assert_eq!(x, y);
        }
        (sum, gathered)
    });
    let (sum, gathered) = total.join().unwrap();
    assert_eq!(sum, 1 + 2 + 3, "seed {seed}");
    for (k, all) in gathered.into_iter().enumerate() {
        assert_eq!(all.join().unwrap(), k as u64 + 111, "seed {seed}");
    }
}

#[test]
fn waits_with_no_spare_thread() {
    let seeds = seeds();
    for seed in 5 * seeds.start..5 * seeds.end {
        no_spare_round(seed);
    }
}
