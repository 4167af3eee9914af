//! The shuttle runner shared by the deque's shuttle harnesses
//! (`shuttle/deque.rs`, `lin/deque.rs`), included with `#[path]`: runs a
//! test under the random or the PCT scheduler, counts its schedules with a
//! plain `std` atomic (outside the facade) and fails below the number asked
//! for, so a harness that runs nothing cannot pass.
//!
//! The iterations a test states are its full bound; the quick bounds (the
//! default, `bounds.rs`) run a tenth of them, and the floor is the number
//! run. Each test prints a line when it starts and one with its schedules
//! when it ends, past libtest's capture (`progress.rs`).

#[path = "bounds.rs"]
pub mod bounds;
#[path = "progress.rs"]
pub mod progress;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Which scheduler runs a test.
#[derive(Clone, Copy)]
pub enum Schedule {
    Random { iterations: usize },
    Pct { iterations: usize, depth: usize },
}

/// Runs `test` under `schedule` (its iterations scaled to the bounds in
/// force), then fails if fewer schedules than asked for were run. `suite`
/// prefixes every line printed.
// `lin/deque.rs` seeds every test it runs.
#[allow(dead_code)]
pub fn run(suite: &str, name: &str, schedule: Schedule, test: impl Fn() + Send + Sync + 'static) {
    run_seeded(suite, name, schedule, None, test);
}

/// [`run`], with the scheduler seeded by `seed` if given: the same
/// schedules, in the same order, on every run, so that what a test counts
/// over them (`lin/deque.rs`'s overlap floors, a mutant it must catch) is
/// the same number every time. `None` seeds from the clock, as
/// `check_random` and `check_pct` do.
pub fn run_seeded(
    suite: &str,
    name: &str,
    schedule: Schedule,
    seed: Option<u64>,
    test: impl Fn() + Send + Sync + 'static,
) {
    let executions = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = executions.clone();
    let body = move || {
        counter.fetch_add(1, Ordering::Relaxed);
        test();
    };
    let schedule = match schedule {
        Schedule::Random { iterations } => Schedule::Random {
            iterations: bounds::schedules(iterations),
        },
        Schedule::Pct { iterations, depth } => Schedule::Pct {
            iterations: bounds::schedules(iterations),
            depth,
        },
    };
    let (floor, mut label) = match schedule {
        Schedule::Random { iterations } => (iterations, "random".to_string()),
        Schedule::Pct { iterations, depth } => (iterations, format!("pct depth {depth}")),
    };
    if let Some(seed) = seed {
        label = format!("{label}, seed {seed:#x}");
    }
    let bounds = bounds::label();
    progress::line(format_args!(
        "{suite} {name} ({label}): running {floor} schedules ({bounds})"
    ));
    let start = Instant::now();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match (schedule, seed) {
        (Schedule::Random { iterations }, None) => shuttle::check_random(body, iterations),
        (Schedule::Pct { iterations, depth }, None) => shuttle::check_pct(body, iterations, depth),
        (Schedule::Random { iterations }, Some(seed)) => {
            shuttle::check_random_with_seed(body, seed, iterations)
        }
        (Schedule::Pct { iterations, depth }, Some(seed)) => {
            let scheduler = shuttle::scheduler::PctScheduler::new_from_seed(seed, depth, iterations);
            shuttle::Runner::new(scheduler, Default::default()).run(body);
        }
    }));
    if let Err(panic) = outcome {
        progress::line(format_args!(
            "{suite} {name} ({label}): FAILED in schedule {} after {:.2?} ({bounds})",
            executions.load(Ordering::Relaxed),
            start.elapsed()
        ));
        std::panic::resume_unwind(panic);
    }
    let ran = executions.load(Ordering::Relaxed);
    progress::line(format_args!(
        "{suite} {name} ({label}): {ran} schedules in {:.2?} (floor {floor}, {bounds})",
        start.elapsed()
    ));
    assert!(
        ran >= floor,
        "{suite} {name} ran {ran} schedules, below its floor of {floor}: the harness is vacuous"
    );
}
