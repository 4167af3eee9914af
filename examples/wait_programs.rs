//! Random acyclic programs of the pool's own waits, each run in a child
//! process under a watchdog and checked against a sequential evaluation:
//! a map of what still fails to finish, not a test.
//!
//! Measured on 2026-11-29, commit 75efc6b, on a 2-core machine shared with
//! other work (load 4 to 7), with
//! `cargo run --release --example wait_programs -- --runs 200 --jobs 2 --timeout 5`
//! (seeds 1 to 200 under each configuration, one run each; the named
//! shapes three runs each). Not one wrong value; every failure is a hang,
//! an abort or H5's cycle panic. Failures depend on timing: seed 55 hung
//! once with default settings and finished in three replays.
//!
//! Since then the default spare slots are at least 64 (four per worker
//! before): seeds 1 to 400 with default settings, run twice each with
//! `--one SEED default` (5 s watchdog, two at once), finished right 800
//! times of 800; the named pipelines finished at 20 and 50 stages (1 and
//! 2 workers, from `main` and from a task, 3 runs each), hung at 2 000
//! and aborted at 20 000 (stack overflow), as before. The configurations
//! `mbt0` and `mbt1` are unchanged by it.
//!
//! Since then a cross-pool wait with no stand-in no longer runs any job of
//! its pool; it is handed what the awaited work needs (Y1-Y4 in
//! `proofs/waits.md`). Measured on 2026-11-29 with
//! `target/release/examples/wait_programs --runs 100 --shape-runs 2 --timeout 4`
//! (seeds 1 to 100; 348 runs in 261 s): default 100 of 100 right; `mbt0`
//! 40 right and 60 hung, `mbt1` 49 right and 51 hung, **no H5 cycle
//! report** in either (before: 25 and 6 in 200 runs each, against 74 and
//! 98 right); every named shape as before except that the 20 000-stage
//! pipelines now hang (4 s watchdog; 20 s in a separate run) instead of
//! overflowing a stack, and the 2 000-stage ones still hang.
//!
//! Since then a `JoinHandle::join` that can never return panics with the
//! stall detector's report (Z1-Z4 in `proofs/waits.md`; the column "stall
//! report" counts runs that ended after one). Measured on 2026-11-29 with
//! `target/release/examples/wait_programs --runs 100 --shape-runs 1 --timeout 4`
//! (seeds 1 to 100; 324 runs in 64 s, `RUST_BACKTRACE=0`):
//!
//! | configuration | right | stall report | hung | H5 cycle |
//! |---|---|---|---|---|
//! | default | 100 | 0 | 0 | 0 |
//! | `mbt0` | 39 | 37 | 24 | 0 |
//! | `mbt1` | 49 | 46 | 5 | 0 |
//!
//! Every 2 000- and 20 000-stage pipeline (1 and 2 workers, from `main`
//! and from a task) now ends with the report, in 0.2 s (2 000 stages) to
//! 3 s (20 000, after about 1 500 reports, one per stall), where it hung;
//! the 15-, 20- and 50-stage ones still finish right. The programs still
//! hung under `mbt0`/`mbt1` all use waits the detector does not see (a
//! `join` half, a scope, an `install` from another pool, a continuation's
//! inputs; `install-then-w1 mbt0` is one), though not each hang was traced
//! to such a wait. No run with default settings
//! got a report, and the right counts are those measured before it (40
//! and 49), within the runs' timing.
//!
//! Since then a worker joining a continuation whose inputs are missing
//! runs the inputs of its pool that nobody started in place first (H8 in
//! `proofs/waits.md`). Measured on 2026-11-29 with
//! `target/release/examples/wait_programs --runs 300 --no-shapes --timeout 4`
//! (seeds 1 to 300; 900 runs in 41 s, `RUST_BACKTRACE=0`):
//!
//! | configuration | right | stall report | hung | H5 (names the limit) |
//! |---|---|---|---|---|
//! | default | 300 | 0 | 0 | 0 |
//! | `mbt0` | 168 | 112 | 15 | 5 |
//! | `mbt1` | 164 | 132 | 3 | 1 |
//!
//! On seeds 1 to 100 alone, `mbt0` went from 37 right, 39 reports and 24
//! hung (the run before H8, same binary otherwise) to 55, 40 and 4, and
//! `mbt1` from 49, 46 and 5 to 51, 48 and 1. The H5 panics (seed 19
//! under `mbt0`, five times in six replays) come from the path its message
//! names beside a cycle: a worker with no stand-in, waiting on the other
//! pool, is handed (Y1) a task that joins one beneath it. Every program
//! still hung has a cross-pool `install`, a `scope`, a `join` or a
//! `when_all` across pools: waits the stall detector does not record.
//!
//! Since then the stall detector follows a continuation's inputs (Z2),
//! and its report names each wait by where it was joined and where its
//! task was made. Same command, same day (900 runs in 31 s):
//!
//! | configuration | right | stall report | hung | H5 (names the limit) |
//! |---|---|---|---|---|
//! | default | 300 | 0 | 0 | 0 |
//! | `mbt0` | 170 | 115 | 10 | 5 |
//! | `mbt1` | 168 | 128 | 2 | 2 |
//!
//! The programs still hung (seeds 124 and 216 under `mbt1`; 11, 30, 82
//! and others under `mbt0`) all wait in a cross-pool `join`, a `scope` or
//! an `install` besides their handle joins.
//!
//! Since then submitted tasks start oldest first on every thread (V9 in
//! `proofs/priority.md`) and a thread waiting on another pool is lent
//! only tasks that cannot wait for its stack (Y5 in `proofs/waits.md`).
//! Measured on 2026-11-30 with
//! `target/release/examples/wait_programs --runs 100 --shape-runs 2 --timeout 4`
//! (seeds 1 to 100; 348 runs in 31 s, `RUST_BACKTRACE=0`):
//!
//! | configuration | right | stall report | hung | H5 cycle |
//! |---|---|---|---|---|
//! | default | 100 | 0 | 0 | 0 |
//! | `mbt0` | 75 | 16 | 9 | 0 |
//! | `mbt1` | 77 | 19 | 4 | 0 |
//!
//! Every named shape finished right, twice each: the 2 000- and
//! 20 000-stage two-pool pipelines (1 and 2 workers per pool, from `main`
//! and from a task), which ended with reports before, and
//! `install-then-w1 mbt0`, which hung. Seeds 1 to 100 under `mbt0` went
//! from 55 right, 40 reports and 4 hung to 75, 16 and 9, and under `mbt1`
//! from 51, 48 and 1 to 77, 19 and 4 (the hangs vary with timing from run
//! to run; the ones seen here are seeds 11, 12, 22, 27, 32, 34, 54, 82,
//! 99 under `mbt0` and 12, 30, 47, 74 under `mbt1`, not yet traced).
//!
//! Since then the stall detector also records a cross-pool `install` (Z6
//! in `proofs/waits.md`; one whose closure nobody started withdraws it and
//! panics with the report), a `join` waiting for its stolen half and a
//! `scope` waiting for its tasks (Z7), and a re-check computes a still
//! table exactly (Z8: a stall closed by a continuation's last input).
//! gdb on the hung runs above showed threads parked in
//! `install_from_other_pool` and `scope::run_body`, which had no record.
//! Measured on 2026-11-30 with
//! `target/release/examples/wait_programs --runs 200 --no-shapes --timeout 6`
//! (seeds 1 to 200; 600 runs in 16 s, `RUST_BACKTRACE=0`):
//!
//! | configuration | right | stall report | hung | H5 cycle |
//! |---|---|---|---|---|
//! | default | 200 | 0 | 0 | 0 |
//! | `mbt0` | 153 | 47 | 0 | 0 |
//! | `mbt1` | 159 | 39 | 2 | 0 |
//!
//! The seeds that hung before (11, 12, 22, 27, 32, 34, 54, 82, 99 under
//! `mbt0`) end with a report. Still hung under `mbt1`: seed 118, two
//! scopes on a one-worker pool with its one spare, each waiting for a
//! task of the other's that the other's wait sent to the injector (H7:
//! a scope's wait runs only its own tasks); no wait of that stall may
//! leave, so it is printed and stays. Seed 102 hung 1 run in 3 with two
//! of its threads asleep, not traced.
//!
//! Since then a stall of waits that may not leave runs work queued on
//! their pool on top of one of them (Z9), a look that counts sleepers
//! covers the pools of `join` halves and scopes (Z5 since Z7: seed 102's
//! hang, a worker asleep while the half its pool's other worker awaited
//! ran on a parked spare), a task posted to a waiter obeys Y5 (Y6), and
//! H5 words a join of a task beneath a posted job as a stall. Measured on
//! 2026-11-30 with
//! `target/release/examples/wait_programs --runs 700 --no-shapes --timeout 8`
//! (seeds 1 to 700; 2 100 runs in 103 s, `RUST_BACKTRACE=0`):
//!
//! | configuration | right | stall report | hung | H5 cycle |
//! |---|---|---|---|---|
//! | default | 700 | 0 | 0 | 0 |
//! | `mbt0` | 501 | 199 | 0 | 0 |
//! | `mbt1` | 535 | 165 | 0 | 0 |
//!
//! Before Y6 and H5's wording (same seeds, same day) 3 runs ended with
//! H5's cycle report (seeds 183 and 287 under `mbt0`, 611 under `mbt1`).
//! `tests/wait_programs.rs` runs seeds 1 to 200 under both limits.
//!
//! ```text
//! random programs, default
//! |                                  |  run |       right |       wrong |        hung |     aborted |    H5 cycle | panic other |
//! |----------------------------------|------|-------------|-------------|-------------|-------------|-------------|-------------|
//! | 1 pool, 1w                       |   27 |          27 |           0 |           0 |           0 |           0 |           0 |
//! | 1 pool, 2w                       |   34 |          34 |           0 |           0 |           0 |           0 |           0 |
//! | 1 pool, 3w                       |   32 |          32 |           0 |           0 |           0 |           0 |           0 |
//! | 2 pools, pipeline >= 15, 1w      |   18 |           3 |           0 |          15 |           0 |           0 |           0 |
//! | 2 pools, pipeline >= 15, 2w      |   20 |           4 |           0 |          16 |           0 |           0 |           0 |
//! | 2 pools, pipeline >= 15, 3w      |   16 |           7 |           0 |           9 |           0 |           0 |           0 |
//! | 2 pools, pipelines < 15, 1w      |   15 |          10 |           0 |           4 |           0 |           1 |           0 |
//! | 2 pools, pipelines < 15, 2w      |   20 |          18 |           0 |           2 |           0 |           0 |           0 |
//! | 2 pools, pipelines < 15, 3w      |   18 |          17 |           0 |           1 |           0 |           0 |           0 |
//! | all                              |  200 |         152 |           0 |          47 |           0 |           1 |           0 |
//!
//! random programs, mbt0
//! |                                  |  run |       right |       wrong |        hung |     aborted |    H5 cycle | panic other |
//! |----------------------------------|------|-------------|-------------|-------------|-------------|-------------|-------------|
//! | 1 pool, 1w                       |   27 |          11 |           0 |          16 |           0 |           0 |           0 |
//! | 1 pool, 2w                       |   34 |          29 |           0 |           5 |           0 |           0 |           0 |
//! | 1 pool, 3w                       |   32 |          32 |           0 |           0 |           0 |           0 |           0 |
//! | 2 pools, pipeline >= 15, 1w      |   18 |           0 |           0 |          13 |           0 |           5 |           0 |
//! | 2 pools, pipeline >= 15, 2w      |   20 |           0 |           0 |          15 |           0 |           5 |           0 |
//! | 2 pools, pipeline >= 15, 3w      |   16 |           0 |           0 |          13 |           0 |           3 |           0 |
//! | 2 pools, pipelines < 15, 1w      |   15 |           0 |           0 |          14 |           0 |           1 |           0 |
//! | 2 pools, pipelines < 15, 2w      |   20 |           1 |           0 |          11 |           0 |           8 |           0 |
//! | 2 pools, pipelines < 15, 3w      |   18 |           1 |           0 |          14 |           0 |           3 |           0 |
//! | all                              |  200 |          74 |           0 |         101 |           0 |          25 |           0 |
//!
//! random programs, mbt1
//! |                                  |  run |       right |       wrong |        hung |     aborted |    H5 cycle | panic other |
//! |----------------------------------|------|-------------|-------------|-------------|-------------|-------------|-------------|
//! | 1 pool, 1w                       |   27 |          24 |           0 |           3 |           0 |           0 |           0 |
//! | 1 pool, 2w                       |   34 |          33 |           0 |           1 |           0 |           0 |           0 |
//! | 1 pool, 3w                       |   32 |          32 |           0 |           0 |           0 |           0 |           0 |
//! | 2 pools, pipeline >= 15, 1w      |   18 |           2 |           0 |          15 |           0 |           1 |           0 |
//! | 2 pools, pipeline >= 15, 2w      |   20 |           0 |           0 |          18 |           0 |           2 |           0 |
//! | 2 pools, pipeline >= 15, 3w      |   16 |           0 |           0 |          16 |           0 |           0 |           0 |
//! | 2 pools, pipelines < 15, 1w      |   15 |           2 |           0 |          12 |           0 |           1 |           0 |
//! | 2 pools, pipelines < 15, 2w      |   20 |           3 |           0 |          16 |           0 |           1 |           0 |
//! | 2 pools, pipelines < 15, 3w      |   18 |           2 |           0 |          15 |           0 |           1 |           0 |
//! | all                              |  200 |          98 |           0 |          96 |           0 |           6 |           0 |
//!
//! named shapes
//! |                                  |  run |       right |       wrong |        hung |     aborted |    H5 cycle | panic other |
//! |----------------------------------|------|-------------|-------------|-------------|-------------|-------------|-------------|
//! | pipeline-main-15-w1 default      |    3 |           3 |           0 |           0 |           0 |           0 |           0 |
//! | pipeline-main-20-w1 default      |    3 |           1 |           0 |           2 |           0 |           0 |           0 |
//! | pipeline-main-50-w1 default      |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | pipeline-main-2000-w1 default    |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | pipeline-main-20000-w1 default   |    3 |           0 |           0 |           0 |           3 |           0 |           0 |
//! | pipeline-task-15-w1 default      |    3 |           3 |           0 |           0 |           0 |           0 |           0 |
//! | pipeline-task-20-w1 default      |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | pipeline-task-50-w1 default      |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | pipeline-task-2000-w1 default    |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | pipeline-task-20000-w1 default   |    3 |           0 |           0 |           0 |           3 |           0 |           0 |
//! | pipeline-main-15-w2 default      |    3 |           3 |           0 |           0 |           0 |           0 |           0 |
//! | pipeline-main-20-w2 default      |    3 |           3 |           0 |           0 |           0 |           0 |           0 |
//! | pipeline-main-50-w2 default      |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | pipeline-main-2000-w2 default    |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | pipeline-main-20000-w2 default   |    3 |           0 |           0 |           0 |           3 |           0 |           0 |
//! | pipeline-task-15-w2 default      |    3 |           3 |           0 |           0 |           0 |           0 |           0 |
//! | pipeline-task-20-w2 default      |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | pipeline-task-50-w2 default      |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | pipeline-task-2000-w2 default    |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | pipeline-task-20000-w2 default   |    3 |           0 |           0 |           0 |           3 |           0 |           0 |
//! | joins-earlier-40-w1 default      |    3 |           3 |           0 |           0 |           0 |           0 |           0 |
//! | joins-task-40-w1 default         |    3 |           3 |           0 |           0 |           0 |           0 |           0 |
//! | install-then-w1 mbt0             |    3 |           0 |           0 |           3 |           0 |           0 |           0 |
//! | install-then-w1 default          |    3 |           3 |           0 |           0 |           0 |           0 |           0 |
//!
//! 672 runs in 759 s, watchdog 5 s, 2 children at once
//! ```
//!
//! Read with default settings: every one-pool program finished; two-pool
//! programs whose pipelines stay under 15 stages hung 7 of 53 times and
//! drew H5's cycle panic once (seed 139, `stealpool-spare-3`), those with
//! a longer alternating pipeline hung 40 of 54; the named pipelines fail
//! from 20 stages (hang) to 20 000 (abort: `has overflowed its stack`),
//! built in `main` or in a task, on 1 or 2 workers per pool, as the issue
//! says. With `max_blocking_threads(0)` or `(1)`, about half the programs
//! hang (on one pool only with one or two workers: 21 of 61 with `mbt0`,
//! 4 of 61 with `mbt1`) and 25 (`mbt0`) and 6 (`mbt1`) get H5's cycle
//! panic, all on two pools; the smallest, seed 33 under `mbt0`, is two
//! alternating pipelines of 17 and 18 stages on two one-worker pools, the
//! second fed by the first, and got H5's panic in 5 of 5 replays. The issue's "dozens of tasks
//! joining earlier handles" did not hang here in either form
//! (`joins-earlier`, `joins-task`); `install-then` hangs with
//! `max_blocking_threads(0)` and finishes with default settings.
//!
//! A program (`examples/wait_programs/gen.rs`) is 1 or 2 pools of 1 to 3
//! workers and a nest of nodes built with `submit`, `then`, `zip`,
//! `when_all`, handle joins (in `main` and inside tasks), `join`, `scope`
//! and `scope_fifo` with `spawn`, `install` (across the two pools),
//! `block_in_place` and pipelines of handles; every node waits only for
//! nodes created before it, so no program has a cycle, and a thread per
//! task finishes every one (`tests/wait_programs_generator.rs`). Each
//! program runs under three configurations of the builder: `default`,
//! `mbt0` (`max_blocking_threads(0)`) and `mbt1`; then the named shapes of
//! the issue run as fixed programs. A run is counted as
//! right, wrong (a value other than the sequential one), hung (killed by
//! the watchdog), aborted (killed by a signal: a stack overflow), or
//! panicked, with H5's cycle message, the stall detector's report, or
//! another. "H5 cycle" counts every
//! run that printed H5's message, which an acyclic program must never
//! get, whether it then exited or hung. Random programs are counted by
//! class: one pool, or two pools with or without a pipeline of 15 or more
//! stages alternating between them, and by workers per pool.
//!
//! ```sh
//! cargo run --release --example wait_programs                 # the table below
//! cargo run --release --example wait_programs -- --show 17    # print program 17
//! cargo run --release --example wait_programs -- --one 17 mbt0
//! cargo run --release --example wait_programs -- --shape pipeline-main-50-w1 default
//! ```
//!
//! Options: `--runs N` random programs per configuration (200), `--seed S`
//! the first seed (1), `--jobs J` children at once (2), `--timeout SECS`
//! the watchdog (5; a program that finishes takes well under a second), `--shape-runs R` runs of each named shape (3),
//! `--no-random`, `--no-shapes`.
//!
//! Each failing run's first panic or overflow line goes to stderr as it
//! happens; the tables end with the first failing seeds of each kind, to
//! replay with `--show SEED` and `--one SEED CONFIG`.

#[path = "wait_programs/gen.rs"]
mod gen;
#[path = "wait_programs/on_pool.rs"]
mod on_pool;

use gen::Program;
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use stealpool::ThreadPool;

const CONFIGS: &[&str] = &["default", "mbt0", "mbt1"];

/// H5's panic message, as `JoinHandle::join` words it (before the stall
/// detector: "... a cycle that can never end"; since, it names the pool's
/// limit as the other cause).
const CYCLE_MESSAGE: &str = "beneath it on the same thread";

/// The stall detector's panic message (Z1-Z4), as `JoinHandle::join`
/// words it.
const STALL_MESSAGE: &str = "can never return (a stall)";

/// Exit code of a child whose value was wrong.
const WRONG: i32 = 3;

fn usage() -> ! {
    eprintln!(
        "usage: wait_programs [--runs N] [--seed S] [--jobs J] [--timeout SECS] [--shape-runs R] \
         [--no-random] [--no-shapes]\n       wait_programs --show SEED|SHAPE\n       \
         wait_programs --one SEED CONFIG\n       wait_programs --shape NAME CONFIG\n\
         configs: {CONFIGS:?}\nshapes: {:?}",
        gen::SHAPES
    );
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["--show", what] => {
            let program = what
                .parse()
                .map(gen::generate)
                .ok()
                .or_else(|| gen::shape(what))
                .unwrap_or_else(|| usage());
            print!("{program}");
            println!("sequential value: {:#x}", gen::eval_sequential(&program));
        }
        ["--one", seed, config] => {
            let seed = seed.parse().unwrap_or_else(|_| usage());
            child(&gen::generate(seed), config)
        }
        ["--shape", name, config] => child(&gen::shape(name).unwrap_or_else(|| usage()), config),
        _ => measure(&words),
    }
}

// ----------------------------------------------------------------- the child

/// Runs `program` on pools built for `config` and exits: 0 if its value is
/// the sequential one, [`WRONG`] if not; a panic exits with 101 as usual.
fn child(program: &Program, config: &str) -> ! {
    let limit = match config {
        "default" => None,
        "mbt0" => Some(0),
        "mbt1" => Some(1),
        _ => usage(),
    };
    let pools: Arc<[ThreadPool]> = (0..program.pools)
        .map(|_| {
            let builder = ThreadPool::builder().num_threads(program.workers);
            let builder = match limit {
                Some(n) => builder.max_blocking_threads(n),
                None => builder,
            };
            builder.build().expect("a pool builds")
        })
        .collect();
    let expected = gen::eval_sequential(program);
    let got = on_pool::run_block(&program.main, &pools);
    if got == expected {
        println!("right {got:#x}");
        std::process::exit(0)
    }
    println!("wrong: {got:#x}, sequentially {expected:#x}");
    std::process::exit(WRONG)
}

// ---------------------------------------------------------------- the parent

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    Right,
    Wrong,
    Hung,
    Aborted,
    PanickedCycle,
    Stalled,
    PanickedOther,
}

const OUTCOMES: &[(Outcome, &str)] = &[
    (Outcome::Right, "right"),
    (Outcome::Wrong, "wrong"),
    (Outcome::Hung, "hung"),
    (Outcome::Aborted, "aborted"),
    (Outcome::PanickedCycle, "H5 cycle"),
    (Outcome::Stalled, "stall report"),
    (Outcome::PanickedOther, "panic other"),
];

/// One child to run: its arguments after the executable, and the row of
/// the table it counts in.
struct Job {
    args: Vec<String>,
    table: String,
    row: String,
}

fn classify(status: Option<ExitStatus>, stderr: &str) -> Outcome {
    use std::os::unix::process::ExitStatusExt;
    // H5's report on an acyclic program is the first thing that went
    // wrong, whether the run then exited or hung.
    if stderr.contains(CYCLE_MESSAGE) {
        return Outcome::PanickedCycle;
    }
    let Some(status) = status else {
        return Outcome::Hung;
    };
    if status.success() {
        return Outcome::Right;
    }
    if status.signal().is_some() {
        return Outcome::Aborted;
    }
    if status.code() == Some(WRONG) {
        return Outcome::Wrong;
    }
    // A run that ended after the stall detector's report (a hang after
    // one counts as hung, above).
    if stderr.contains(STALL_MESSAGE) {
        return Outcome::Stalled;
    }
    Outcome::PanickedOther
}

/// Runs the child of `job` under the watchdog; its stderr goes to a file
/// (a pipe could fill and stall it).
fn run_child(job: &Job, index: usize, timeout: Duration, dir: &std::path::Path) -> (Outcome, String) {
    let log = dir.join(format!("child-{index}.stderr"));
    let err = fs::File::create(&log).expect("a log file");
    let mut child = Command::new(std::env::current_exe().expect("own path"))
        .args(&job.args)
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .expect("the child starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait on the child") {
            break Some(status);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stderr = fs::read_to_string(&log).unwrap_or_default();
    let _ = fs::remove_file(&log);
    // What went wrong first: a panic's location and message (the line
    // after "panicked at"), or the overflow report.
    let lines: Vec<&str> = stderr.lines().collect();
    let first_line = match lines
        .iter()
        .position(|l| l.contains("panicked at") || l.contains("overflow"))
    {
        Some(at) if lines[at].contains("panicked at") => {
            format!("{} {}", lines[at], lines.get(at + 1).unwrap_or(&""))
        }
        Some(at) => lines[at].to_owned(),
        None => String::new(),
    };
    (classify(status, &stderr), first_line)
}

fn option<T: std::str::FromStr>(words: &[&str], name: &str, default: T) -> T {
    match words.iter().position(|w| *w == name) {
        Some(at) => words
            .get(at + 1)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| usage()),
        None => default,
    }
}

/// A table's rows: a label and its count per outcome.
type Rows = Vec<(String, BTreeMap<Outcome, usize>)>;

fn measure(words: &[&str]) {
    let known = [
        "--runs",
        "--seed",
        "--jobs",
        "--timeout",
        "--shape-runs",
        "--no-random",
        "--no-shapes",
    ];
    for (i, w) in words.iter().enumerate() {
        let is_value = i > 0 && known[..5].contains(&words[i - 1]);
        if !is_value && !known.contains(w) {
            usage();
        }
    }
    let runs: u64 = option(words, "--runs", 200);
    let seed: u64 = option(words, "--seed", 1);
    let jobs: usize = option(words, "--jobs", 2);
    let timeout = Duration::from_secs(option(words, "--timeout", 5));
    let shape_runs: usize = option(words, "--shape-runs", 3);

    let mut queue = Vec::new();
    if !words.contains(&"--no-random") {
        for config in CONFIGS {
            for s in seed..seed + runs {
                let program = gen::generate(s);
                queue.push(Job {
                    args: vec!["--one".into(), s.to_string(), config.to_string()],
                    table: format!("random programs, {config}"),
                    row: program.class(),
                });
            }
        }
    }
    if !words.contains(&"--no-shapes") {
        for name in gen::SHAPES {
            // The pipelines and the joins are the issue's shapes with
            // default settings; `install-then` its shape with no spares.
            let configs: &[&str] = if name.starts_with("install") {
                &["mbt0", "default"]
            } else {
                &["default"]
            };
            for config in configs {
                for _ in 0..shape_runs {
                    queue.push(Job {
                        args: vec!["--shape".into(), name.to_string(), config.to_string()],
                        table: "named shapes".into(),
                        row: format!("{name} {config}"),
                    });
                }
            }
        }
    }

    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/wait_programs");
    fs::create_dir_all(&dir).expect("target/wait_programs");
    let total = queue.len();
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, Outcome, String)>> = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let index = {
                    let mut next = next.lock().unwrap();
                    let index = *next;
                    *next += 1;
                    index
                };
                let Some(job) = queue.get(index) else { break };
                let (outcome, line) = run_child(job, index, timeout, &dir);
                if outcome != Outcome::Right {
                    eprintln!("{:?}: {} {}", outcome, job.args.join(" "), line);
                }
                let mut results = results.lock().unwrap();
                results.push((index, outcome, line));
                if results.len() % 50 == 0 {
                    eprintln!(
                        "{}/{} runs, {:.0} s",
                        results.len(),
                        total,
                        started.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });

    // table -> row -> outcome -> count, in the order first seen.
    let mut tables: Vec<(String, Rows)> = Vec::new();
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    for (index, outcome, _) in &results {
        let job = &queue[*index];
        let at = match tables.iter().position(|t| t.0 == job.table) {
            Some(at) => at,
            None => {
                tables.push((job.table.clone(), Vec::new()));
                tables.len() - 1
            }
        };
        let rows = &mut tables[at].1;
        let row = match rows.iter().position(|r| r.0 == job.row) {
            Some(row) => row,
            None => {
                rows.push((job.row.clone(), BTreeMap::new()));
                rows.len() - 1
            }
        };
        *rows[row].1.entry(*outcome).or_default() += 1;
    }
    for (table, rows) in &mut tables {
        if table.starts_with("random") {
            rows.sort_by(|a, b| a.0.cmp(&b.0));
            let mut all = BTreeMap::new();
            for (_, counts) in rows.iter() {
                for (o, n) in counts {
                    *all.entry(*o).or_default() += n;
                }
            }
            rows.push(("all".into(), all));
        }
        println!("\n{table}");
        print!("| {:<32} | {:>4} |", "", "run");
        for (_, name) in OUTCOMES {
            print!(" {name:>11} |");
        }
        println!();
        print!("|{:-<34}|{:->6}|", "", "");
        for _ in OUTCOMES {
            print!("{:->13}|", "");
        }
        println!();
        for (row, counts) in rows.iter() {
            print!("| {:<32} | {:>4} |", row, counts.values().sum::<usize>());
            for (o, _) in OUTCOMES {
                print!(" {:>11} |", counts.get(o).copied().unwrap_or(0));
            }
            println!();
        }
    }
    // Where to start: the first failing seeds of each kind, to replay
    // with `--show SEED` and `--one SEED CONFIG`.
    let mut failing: BTreeMap<(String, Outcome), Vec<String>> = BTreeMap::new();
    for (index, outcome, _) in &results {
        let job = &queue[*index];
        if *outcome != Outcome::Right && job.args[0] == "--one" {
            failing
                .entry((job.table.clone(), *outcome))
                .or_default()
                .push(job.args[1].clone());
        }
    }
    if !failing.is_empty() {
        println!("\nfirst failing seeds");
    }
    for ((table, outcome), seeds) in &failing {
        let shown: Vec<&str> = seeds.iter().take(12).map(String::as_str).collect();
        println!("{table}, {outcome:?}: {}", shown.join(" "));
    }
    println!(
        "\n{} runs in {:.0} s, watchdog {} s, {} children at once",
        total,
        started.elapsed().as_secs_f64(),
        timeout.as_secs(),
        jobs
    );
}
