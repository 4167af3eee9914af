#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Random acyclic programs of the pool's own waits (submit, `then`, `zip`,
//! `when_all`, handle joins in tasks, nested `join`/`scope`, `install`
//! across two pools, `block_in_place`, two-pool pipelines; 1 to 3
//! workers), made by `examples/wait_programs/gen.rs`, each run on pools
//! built with default settings and checked against its sequential value.
//!
//! Why each must finish: a thread of the pool parked in one of the pool's
//! waits has a spare standing in while a spare slot is free (W1), and a
//! pool's threads can only park in jobs of the program. So a program with
//! no more jobs that can park (tasks, pipeline stages, `join` halves,
//! scope tasks, `install` bodies, `block_in_place` calls) than the
//! default spare slots (at least 64) runs as if every wait had a thread of
//! its own, which `tests/wait_programs_generator.rs` checks against the
//! sequential value with std threads. `jobs_that_may_park` counts them and
//! every program here is asserted within the bound, so a larger generator
//! fails here by name instead of hanging by chance. Before the default
//! had at least 64 slots (four per worker), 47 of these 200 seeds hung
//! (`examples/wait_programs.rs` has the table).

mod common;

#[path = "../examples/wait_programs/gen.rs"]
mod gen;
#[path = "../examples/wait_programs/on_pool.rs"]
mod on_pool;

use gen::{Block, Kind, Part, Program};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;
use stealpool::ThreadPool;

const SEEDS: u64 = 400;

/// Seeds run under each limit (`random_acyclic_wait_programs_end_under_limits`).
const LIMITED_SEEDS: u64 = 200;

/// Seeds past `LIMITED_SEEDS` that once hung under a limit, each run
/// `REPLAYS` times more under both: 560 hung about half its runs under
/// `max_blocking_threads(0)` until Z5's counted look was made by waits
/// that may not leave too (`proofs/waits.md`, Z5).
const REPLAYED_SEEDS: [u64; 1] = [560];
const REPLAYS: usize = 6;

/// The fewest spare slots a pool has by default (`Builder::max_blocking_threads`).
const DEFAULT_SPARE_SLOTS_AT_LEAST: usize = 64;

/// Whether running `block` may wait: a node that waits where the block
/// runs, or a handle left over, which the block joins at its end.
fn block_may_wait(block: &Block) -> bool {
    let waits_here = block.nodes.iter().any(|node| {
        matches!(
            node.kind,
            Kind::Await { .. }
                | Kind::Join { .. }
                | Kind::Scope { .. }
                | Kind::Install { .. }
                | Kind::BlockInPlace { .. }
        )
    });
    waits_here || block.leftovers().iter().any(|&i| block.nodes[i].kind.is_handle())
}

/// Whether running `part` may wait: it joins its inputs first, then runs
/// its block.
fn part_may_wait(part: &Part) -> bool {
    !part.inputs.is_empty() || block_may_wait(&part.body)
}

/// How many jobs of each of `pools` pools may park a thread of it, at
/// most: every job run on that pool whose code may wait, every `join` and
/// `scope` frame, nested ones included. A `block_in_place` counts for
/// every pool (it takes a spare slot of whichever pool it runs on).
fn jobs_that_may_park(block: &Block, pools: usize, counts: &mut [usize]) {
    let on = |pool: usize, part: &Part, counts: &mut [usize]| {
        counts[pool % pools] += usize::from(part_may_wait(part));
        jobs_that_may_park(&part.body, pools, counts);
    };
    for node in &block.nodes {
        match &node.kind {
            Kind::Const
            | Kind::Then { .. }
            | Kind::Zip { .. }
            | Kind::WhenAll { .. }
            | Kind::Await { .. } => {}
            Kind::Submit { pool, part } | Kind::Install { pool, part } => on(*pool, part, counts),
            // The frame that waits for the halves or the tasks parks too;
            // from outside the pools it runs on a worker.
            Kind::Join { pool, left, right } => {
                counts[pool % pools] += 1;
                on(*pool, left, counts);
                on(*pool, right, counts);
            }
            Kind::Scope { pool, children, .. } => {
                counts[pool % pools] += 1;
                children.iter().for_each(|child| on(*pool, child, counts));
            }
            // A `block_in_place` on a worker takes a spare slot whether or
            // not its body waits.
            Kind::BlockInPlace { part } => {
                counts.iter_mut().for_each(|count| *count += 1);
                jobs_that_may_park(&part.body, pools, counts);
            }
            Kind::Pipeline { first, stages, input } => {
                for stage in 0..*stages {
                    counts[(first + stage) % pools] += usize::from(stage > 0 || input.is_some());
                }
            }
        }
    }
}

/// The most jobs of one pool of `program` that may park at once.
fn most_parked(program: &Program) -> usize {
    let mut counts = vec![0; program.pools];
    jobs_that_may_park(&program.main, program.pools, &mut counts);
    counts.into_iter().max().unwrap_or(0)
}

/// Runs `program` on fresh pools with default settings on another thread;
/// fails naming `what` if it has not finished in 600 s (a hang), far past
/// any run of these programs (milliseconds) on a loaded machine.
fn run(what: &str, program: &Program) -> u32 {
    let program = program.clone();
    let (done, finished) = mpsc::channel();
    thread::spawn(move || {
        let pools: Arc<[ThreadPool]> = (0..program.pools)
            .map(|_| ThreadPool::new(program.workers))
            .collect();
        let _ = done.send(on_pool::run_block(&program.main, &pools));
    });
    finished
        .recv_timeout(Duration::from_secs(600))
        .unwrap_or_else(|_| panic!("{what} did not finish (hung, or panicked on its thread)"))
}

#[test]
fn random_acyclic_wait_programs_finish_with_default_settings() {
    let mut two_pools = 0;
    let mut long_pipelines = 0;
    let mut beyond_the_bound = 0;
    for seed in 1..=SEEDS {
        let program = gen::generate(seed);
        let jobs = most_parked(&program);
        if jobs > DEFAULT_SPARE_SLOTS_AT_LEAST {
            beyond_the_bound += 1;
            continue;
        }
        let got = run(&format!("seed {seed}"), &program);
        assert_eq!(got, gen::eval_sequential(&program), "seed {seed}: wrong value");
        two_pools += usize::from(program.pools == 2);
        long_pipelines +=
            usize::from(program.to_string().contains("pipeline") && jobs >= 15 && program.pools == 2);
    }
    let kept = SEEDS as usize - beyond_the_bound;
    println!("{kept} of {SEEDS} seeds run, {two_pools} on two pools, {long_pipelines} of them with a pipeline and 15 or more jobs that may park");
    assert!(kept >= SEEDS as usize / 3, "only {kept} seeds within the bound");
    // The seeds reach what first failed: two pools, long pipelines.
    assert!(two_pools >= kept / 4, "only {two_pools} two-pool programs");
    assert!(
        long_pipelines >= 10,
        "only {long_pipelines} two-pool programs with 15 or more jobs and a pipeline"
    );
}

/// The pipeline of handles that first hung, 50 stages alternating between two
/// pools, from outside the pools and from a task, on 1 and 2 workers.
#[test]
fn fifty_stage_pipelines_finish_with_default_settings() {
    for name in gen::SHAPES.iter().filter(|name| name.contains("-50-")) {
        let program = gen::shape(name).expect("a named shape");
        assert!(most_parked(&program) <= DEFAULT_SPARE_SLOTS_AT_LEAST, "{name}");
        for round in 0..3 {
            let got = run(&format!("{name}, round {round}"), &program);
            assert_eq!(got, gen::eval_sequential(&program), "{name}");
        }
    }
}

/// What a program under a limit may end with: the stall report
/// (`JoinHandle::join`'s, an `install`'s or H5's), never another panic.
const STALL_MESSAGE: &str = "can never return (a stall)";

/// Runs `program` on fresh pools with `max_blocking_threads(limit)` on
/// another thread: its value, or the message of the panic it ended with.
/// Fails naming `what` if it has not ended in 600 s (a hang).
fn run_limited(what: &str, program: &Program, limit: usize) -> Result<u32, String> {
    let program = program.clone();
    let (done, finished) = mpsc::channel();
    thread::spawn(move || {
        let pools: Arc<[ThreadPool]> = (0..program.pools)
            .map(|_| {
                ThreadPool::builder()
                    .num_threads(program.workers)
                    .max_blocking_threads(limit)
                    .build()
                    .expect("a pool builds")
            })
            .collect();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            on_pool::run_block(&program.main, &pools)
        }));
        let _ = done.send(outcome.map_err(|payload| {
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        }));
    });
    finished
        .recv_timeout(Duration::from_secs(600))
        .unwrap_or_else(|_| panic!("{what} did not end (hung)"))
}

/// Z1-Z9, H5: the same random programs on pools allowed no spare, or one:
/// each ends, with its right value or with the stall report (a panic that
/// names the limit), never a wrong value, another panic, a report of a
/// cycle the program does not have, or a hang. Reports are expected
/// here (a third of the programs under `max_blocking_threads(0)`); the
/// test asserts both endings occur, so it exercises the limit.
#[test]
fn random_acyclic_wait_programs_end_under_limits() {
    common::quiet_expected_panics_or(|payload| {
        common::message(payload).is_some_and(|text| text.contains(STALL_MESSAGE))
    });
    let mut right = [0usize; 2];
    let mut reported = [0usize; 2];
    let replayed = REPLAYED_SEEDS
        .iter()
        .flat_map(|&seed| std::iter::repeat_n(seed, REPLAYS));
    for seed in (1..=LIMITED_SEEDS).chain(replayed) {
        let program = gen::generate(seed);
        let expected = gen::eval_sequential(&program);
        for limit in [0, 1] {
            match run_limited(
                &format!("seed {seed}, max_blocking_threads({limit})"),
                &program,
                limit,
            ) {
                Ok(value) => {
                    assert_eq!(value, expected, "seed {seed}, limit {limit}: wrong value");
                    right[limit] += 1;
                }
                Err(message) => {
                    assert!(
                        message.contains(STALL_MESSAGE),
                        "seed {seed}, limit {limit}: ended with another panic: {message}"
                    );
                    reported[limit] += 1;
                }
            }
        }
    }
    println!(
        "max_blocking_threads(0): {} right, {} reported; (1): {} right, {} reported",
        right[0], reported[0], right[1], reported[1]
    );
    assert!(
        right.iter().all(|&n| n > 0) && reported.iter().all(|&n| n > 0),
        "both endings occur under each limit"
    );
}
