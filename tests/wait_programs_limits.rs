#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Random acyclic programs of handles alone (`submit`, handle joins in
//! `main` and in tasks, two-pool pipelines; 1 to 3 workers per pool),
//! made by `examples/wait_programs/gen.rs`, on pools with no spare slot
//! and with one (`max_blocking_threads(0)` and `(1)`): each finishes with
//! its sequential value, or ends with a report that its join can never
//! return (the stall detector's, or H5's when a thread lent past the limit
//! was handed a task that joins one beneath it, Y4). None may hang.
//! Measured: of 600 runs (300 seeds, both limits), 376 right and 224
//! ended with a report, in 0.3 s (release build).
//!
//! Why: every wait such a program makes on a pool's thread is a
//! `JoinHandle::join`, which the detector sees (Z1). If all the threads
//! that could finish a join's task are parked, they are parked in joins,
//! and the last one to park finds the blocked set (Z2, Z4) and panics with
//! the report; its task then ends, and the waits on it with it. Programs
//! with continuations, `join`, `scope`, `install` or `block_in_place` can
//! park where the detector does not look, and are left out (the example
//! measures them). A hang fails the test after 120 s instead of hanging
//! it.

#[path = "../examples/wait_programs/gen.rs"]
mod gen;
#[path = "../examples/wait_programs/on_pool.rs"]
mod on_pool;

use gen::{Block, Kind, Part, Program};

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Once};
use std::thread;
use std::time::Duration;
use stealpool::ThreadPool;

const SEEDS: u64 = 300;

/// Reports seen by the panic hook, in this test binary.
static REPORTS: AtomicUsize = AtomicUsize::new(0);

/// Counts the detector's reports and keeps them, and the panics they
/// cause in the stages and joins above them (an `unwrap` of the `Err`
/// they leave), off the log.
fn count_reports() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let text = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("");
            // The detector's report, or H5's (a task run beneath its own
            // join, which a thread lent past the limit can be handed, Y4).
            if text.contains("JoinHandle::join can never return") {
                REPORTS.fetch_add(1, Ordering::SeqCst);
            } else if !text.contains("called `Result::unwrap()` on an `Err` value") {
                // Not a report, nor a stage or join passing one on.
                previous(info);
            }
        }));
    });
}

/// Whether `block` waits only through handles: every node a constant, a
/// submitted task (whose inputs are handles it joins, and whose body is
/// such a block), a join of a handle, or a pipeline of handles.
fn handles_only(block: &Block) -> bool {
    block.nodes.iter().all(|node| match &node.kind {
        Kind::Const | Kind::Await { .. } | Kind::Pipeline { .. } => true,
        Kind::Submit { part, .. } => part_handles_only(part),
        _ => false,
    })
}

fn part_handles_only(part: &Part) -> bool {
    handles_only(&part.body)
}

/// How `program` ended on pools with `spares` spare slots: `Some(value)`,
/// or `None` if it panicked; fails naming `what` after 120 s (a hang).
fn run(what: &str, program: &Program, spares: usize) -> Option<u32> {
    let program = program.clone();
    let (done, finished) = mpsc::channel();
    thread::spawn(move || {
        let pools: Arc<[ThreadPool]> = (0..program.pools)
            .map(|_| {
                ThreadPool::builder()
                    .num_threads(program.workers)
                    .max_blocking_threads(spares)
                    .build()
                    .expect("a pool builds")
            })
            .collect();
        let ended = panic::catch_unwind(AssertUnwindSafe(|| on_pool::run_block(&program.main, &pools)));
        let _ = done.send(ended.ok());
    });
    finished
        .recv_timeout(Duration::from_secs(120))
        .unwrap_or_else(|_| panic!("{what} hung"))
}

#[test]
fn handle_programs_finish_or_report_with_no_spare_and_one() {
    count_reports();
    let (mut kept, mut right, mut reported) = (0, 0, 0);
    for seed in 1..=SEEDS {
        let program = gen::generate_handles_only(seed);
        assert!(handles_only(&program.main), "seed {seed} draws another kind");
        kept += 1;
        for spares in [0, 1] {
            let before = REPORTS.load(Ordering::SeqCst);
            match run(
                &format!("seed {seed}, max_blocking_threads({spares})"),
                &program,
                spares,
            ) {
                Some(value) => {
                    assert_eq!(value, gen::eval_sequential(&program), "seed {seed}: wrong value");
                    right += 1;
                }
                None => {
                    assert!(
                        REPORTS.load(Ordering::SeqCst) > before,
                        "seed {seed}, max_blocking_threads({spares}): panicked with no stall report"
                    );
                    reported += 1;
                }
            }
        }
    }
    println!("{kept} seeds: {right} runs right, {reported} ended with the report");
    // The limits are reached: some runs end with the report.
    assert!(
        reported > 0,
        "no run ended with the report: the seeds miss the limits"
    );
}
