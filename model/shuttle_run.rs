//! The shuttle runner shared by the deque's shuttle harnesses
//! (`shuttle_deque.rs`, `lin_deque.rs`), included with `#[path]`: runs a
//! test under the random or the PCT scheduler, counts its schedules with a
//! plain `std` atomic (outside the facade) and fails below the number asked
//! for, so a harness that runs nothing cannot pass.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Which scheduler runs a test.
#[derive(Clone, Copy)]
pub enum Schedule {
    Random { iterations: usize },
    Pct { iterations: usize, depth: usize },
}

/// Runs `test` under `schedule`, then fails if fewer schedules than asked
/// for were run. `suite` prefixes every line printed.
pub fn run(suite: &str, name: &str, schedule: Schedule, test: impl Fn() + Send + Sync + 'static) {
    let executions = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = executions.clone();
    let body = move || {
        counter.fetch_add(1, Ordering::Relaxed);
        test();
    };
    let start = Instant::now();
    let (floor, label) = match schedule {
        Schedule::Random { iterations } => (iterations, "random".to_string()),
        Schedule::Pct { iterations, depth } => (iterations, format!("pct depth {depth}")),
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match schedule {
        Schedule::Random { iterations } => shuttle::check_random(body, iterations),
        Schedule::Pct { iterations, depth } => shuttle::check_pct(body, iterations, depth),
    }));
    if let Err(panic) = outcome {
        eprintln!(
            "{suite} {name} ({label}): FAILED in schedule {} after {:.2?}",
            executions.load(Ordering::Relaxed),
            start.elapsed()
        );
        std::panic::resume_unwind(panic);
    }
    let ran = executions.load(Ordering::Relaxed);
    eprintln!(
        "{suite} {name} ({label}): {ran} schedules in {:.2?} (floor {floor})",
        start.elapsed()
    );
    assert!(
        ran >= floor,
        "{suite} {name} ran {ran} schedules, below its floor of {floor}: the harness is vacuous"
    );
}
