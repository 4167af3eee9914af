//! Schedule-fuzz bodies under proptest, and the committed crash corpus replayed.
//!
//! The bodies are `model/support/schedule.rs`'s, the same functions the nightly fuzz
//! targets `deque_schedule` and `pool_schedule` run; here proptest drives
//! them on stable, with random operations and random schedule bytes for the
//! byte-fed scheduler, so a CI without nightly still runs them. A failing
//! case is shrunk, then printed with its operations, shuttle's replay
//! string (printed by shuttle's panic hook) and the raw input that
//! reproduces it, ready to be saved into `fuzz/crashes/`.
//!
//! The replay test runs every file of `fuzz/crashes/deque_schedule/` and
//! `fuzz/crashes/pool_schedule/` through the decoders and bodies, as the fuzz
//! targets do: inputs that once failed stay fixed (see
//! `fuzz/crashes/README.md`).
//!
//! Each proptest case is one shuttle execution per body run (two for the
//! deque: words, then boxes, under the same schedule). Every test counts the
//! executions it ran, prints `model NAME: N executions`, and fails below the
//! floor stated beside it, so a harness that runs nothing cannot pass.
//!
//! Run with `cargo test --features shuttle --test shuttle_schedule`: each
//! test prints a line as it starts and its count as it ends, past libtest's
//! capture (`support/progress.rs`). The default quick bounds run a tenth of the
//! cases stated; `STEALPOOL_MODEL_BOUNDS=full` runs them all (`support/bounds.rs`).

#[path = "../support/bounds.rs"]
mod bounds;
#[path = "../support/progress.rs"]
mod progress;
#[path = "../support/schedule.rs"]
mod schedule;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestError, TestRunner};
use schedule::{run_deque, run_pool, DequeOps, OwnerOp, PoolOp, PoolOps, ThiefOp};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Runs `cases` proptest cases of `strategy` through `check`, which returns
/// the executions it ran; prints the count and time, asserts it is at least
/// `floor`, and on failure panics with the shrunk case and its raw input.
fn drive<S>(name: &str, cases: u32, floor: usize, strategy: S, check: fn(&S::Value) -> usize)
where
    S: Strategy,
    S::Value: Case + std::panic::RefUnwindSafe,
{
    let mut runner = TestRunner::new(Config {
        cases,
        // The raw input printed below is the regression to keep; proptest's
        // own file would record only its seed.
        failure_persistence: None,
        ..Config::default()
    });
    let executions = AtomicUsize::new(0);
    let (decisions_before, by_bytes_before) = schedule::decisions();
    progress::line(format_args!(
        "model {name}: running {cases} cases ({})",
        bounds::label()
    ));
    let start = Instant::now();
    let outcome = runner.run(&strategy, |case| {
        executions.fetch_add(check(&case), Ordering::Relaxed);
        Ok(())
    });
    let executions = executions.load(Ordering::Relaxed);
    match outcome {
        Ok(()) => {}
        Err(TestError::Fail(reason, case)) => {
            // Shrinking ran many executions since the first failure; run the
            // minimal one last, so that the last replay string shuttle
            // printed is its own (shuttle skips one that is as long as the
            // one it printed last, which it then is).
            eprintln!("{name}: replaying the minimal case");
            let _ = std::panic::catch_unwind(|| check(&case));
            panic!(
                "{name} failed: {reason}\nminimal case: {}\nschedule bytes (hex): {}\n\
                 as a raw input for fuzz/crashes/{}/ (hex): {}",
                case.ops(),
                hex(case.schedule()),
                case.target(),
                case.encoded()
                    .map_or("(not encodable)".to_string(), |bytes| hex(&bytes)),
            )
        }
        Err(error) => panic!("{name}: {error}"),
    }
    let (decisions, by_bytes) = schedule::decisions();
    let (decisions, by_bytes) = (decisions - decisions_before, by_bytes - by_bytes_before);
    progress::line(format_args!(
        "model {name}: {executions} executions in {:.2?} ({cases} cases, floor {floor}, {}); \
         {} scheduling decisions per execution, {}% of them from schedule bytes",
        start.elapsed(),
        bounds::label(),
        decisions / executions.max(1),
        100 * by_bytes / decisions.max(1),
    ));
    assert!(
        executions >= floor,
        "{name} ran {executions} executions, below its floor of {floor}: the harness is vacuous"
    );
}

/// A proptest case: operations and schedule bytes, which can be written as
/// the fuzz target's raw input.
trait Case {
    /// The fuzz target (and crash-corpus directory) it belongs to.
    fn target(&self) -> &'static str;
    fn ops(&self) -> String;
    fn schedule(&self) -> &[u8];
    fn encoded(&self) -> Option<Vec<u8>>;
}

impl Case for (DequeOps, Vec<u8>) {
    fn target(&self) -> &'static str {
        "deque_schedule"
    }
    fn ops(&self) -> String {
        format!("{:?}", self.0)
    }
    fn schedule(&self) -> &[u8] {
        &self.1
    }
    fn encoded(&self) -> Option<Vec<u8>> {
        self.0.encode(&self.1)
    }
}

impl Case for (PoolOps, Vec<u8>) {
    fn target(&self) -> &'static str {
        "pool_schedule"
    }
    fn ops(&self) -> String {
        format!("{:?}", self.0)
    }
    fn schedule(&self) -> &[u8] {
        &self.1
    }
    fn encoded(&self) -> Option<Vec<u8>> {
        self.0.encode(&self.1)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Owner operations: mostly pushes, so the deque grows and batches are
/// large; dropping the worker is rare, since it ends the owner's part.
fn owner_op() -> impl Strategy<Value = OwnerOp> {
    prop_oneof![
        60 => Just(OwnerOp::Push),
        35 => Just(OwnerOp::Pop),
        2 => Just(OwnerOp::DropWorker),
    ]
}

fn thief_op() -> impl Strategy<Value = ThiefOp> {
    prop_oneof![
        Just(ThiefOp::Steal),
        Just(ThiefOp::StealBatchAndPop),
        Just(ThiefOp::PopOwn),
    ]
}

/// Deque inputs within what the fuzz input can encode (at most
/// `MAX_DEQUE_OPS` operations in all), with schedule bytes for most of a
/// run's scheduling decisions and sometimes none (the round-robin fallback).
fn deque_case() -> impl Strategy<Value = (DequeOps, Vec<u8>)> {
    let ops = (
        prop_oneof![Just(1usize), Just(2), Just(8)],
        vec(owner_op(), 0..=32),
        vec(thief_op(), 0..=16),
        vec(thief_op(), 0..=16),
    )
        .prop_map(|(capacity, owner, first, second)| DequeOps {
            capacity,
            owner,
            thieves: [first, second],
        });
    (ops, vec(any::<u8>(), 0..=600))
}

fn pool_case() -> impl Strategy<Value = (PoolOps, Vec<u8>)> {
    let op = prop_oneof![
        Just(PoolOp::SpawnOutside),
        Just(PoolOp::SpawnInside),
        Just(PoolOp::SpawnWithChild),
        Just(PoolOp::Join),
        Just(PoolOp::Submit),
        Just(PoolOp::SubmitJoinInside),
        Just(PoolOp::Scope),
        Just(PoolOp::WaitAll),
        Just(PoolOp::WaitAllInside),
    ];
    let ops = (vec(op, 0..=schedule::MAX_POOL_OPS), any::<bool>(), any::<bool>()).prop_map(
        |(ops, join_after_shutdown, limit_pending_joins)| PoolOps {
            ops,
            join_after_shutdown,
            limit_pending_joins,
        },
    );
    (ops, vec(any::<u8>(), 0..=1500))
}

/// One deque case; also checks that the raw input decodes back to it, so
/// what the fuzzer explores is what proptest explores.
fn check_deque((ops, bytes): &(DequeOps, Vec<u8>)) -> usize {
    let input = ops.encode(bytes).expect("the strategy stays encodable");
    assert_eq!(DequeOps::decode(&input), (ops.clone(), &bytes[..]));
    run_deque(ops.clone(), bytes)
}

fn check_pool((ops, bytes): &(PoolOps, Vec<u8>)) -> usize {
    let input = ops.encode(bytes).expect("the strategy stays encodable");
    assert_eq!(PoolOps::decode(&input), (ops.clone(), &bytes[..]));
    run_pool(ops.clone(), bytes)
}

/// The proptest cases of each body: `full`, about 15 s of one core each in
/// a release build, under the full bounds, a tenth of that under the quick
/// ones, or `STEALPOOL_SCHEDULE_CASES` for a longer soak.
fn cases(full: u32) -> u32 {
    match std::env::var("STEALPOOL_SCHEDULE_CASES") {
        Ok(cases) => cases.parse().expect("STEALPOOL_SCHEDULE_CASES is a number"),
        Err(_) => bounds::schedules(full as usize) as u32,
    }
}

// 100000 cases (10000 under the quick bounds, or STEALPOOL_SCHEDULE_CASES)
// of two executions each, words
// then boxes. Floor: twice the cases, every case must run both.
#[test]
fn deque_schedule_proptest() {
    let cases = cases(100_000);
    drive(
        "deque_schedule_proptest",
        cases,
        2 * cases as usize,
        deque_case(),
        check_deque,
    );
    // The histories it checked had races in them. Measured over the 20000
    // of the quick bounds: 98% with calls of two threads overlapping, 71%
    // with an owner's pop overlapping a successful steal, 11% with two
    // successful steals overlapping. The cases are random, but over ten
    // thousand and more of them the shares move by a fraction of a point:
    // floors this far below cannot fail by chance.
    let tally = &schedule::DEQUE_OVERLAP;
    progress::line(format_args!("model deque_schedule_proptest: {}", tally.summary()));
    tally.assert_floors("deque_schedule_proptest", 90, 50, 5);
}

// 100000 cases (10000 under the quick bounds, or STEALPOOL_SCHEDULE_CASES)
// of one execution each. Floor:
// the cases, every one must run.
#[test]
fn pool_schedule_proptest() {
    let cases = cases(100_000);
    drive(
        "pool_schedule_proptest",
        cases,
        cases as usize,
        pool_case(),
        check_pool,
    );
}

/// The files of `fuzz/crashes/TARGET/`, sorted, each with its contents.
fn crash_corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/crashes")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.is_file())
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            (path.display().to_string(), bytes)
        })
        .collect();
    files.sort();
    files
}

// Two executions per deque file (words, boxes) and one per pool file. Floor:
// that many, with at least one file per target, so an emptied corpus fails
// instead of passing vacuously.
#[test]
fn crash_corpus_replays() {
    let start = Instant::now();
    let deque = crash_corpus("deque_schedule");
    let pool = crash_corpus("pool_schedule");
    assert!(
        !deque.is_empty() && !pool.is_empty(),
        "fuzz/crashes/deque_schedule/ and fuzz/crashes/pool_schedule/ must hold at least one input each"
    );
    let mut executions = 0;
    for (path, input) in &deque {
        progress::line(format_args!("replaying {path}"));
        let (ops, bytes) = DequeOps::decode(input);
        executions += run_deque(ops, bytes);
    }
    for (path, input) in &pool {
        progress::line(format_args!("replaying {path}"));
        let (ops, bytes) = PoolOps::decode(input);
        executions += run_pool(ops, bytes);
    }
    let floor = 2 * deque.len() + pool.len();
    progress::line(format_args!(
        "model schedule_crash_corpus: {executions} executions in {:.2?} ({} files, floor {floor})",
        start.elapsed(),
        deque.len() + pool.len(),
    ));
    assert!(
        executions >= floor,
        "{executions} executions, below the floor of {floor}"
    );
}
