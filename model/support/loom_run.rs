//! The loom runner shared by the loom harnesses (`loom/deque.rs`,
//! `loom/pool.rs`, `loom/injector.rs`, `loom/priority.rs`,
//! `loom/blocking.rs`), included with `#[path]`: explores a model within a
//! preemption bound, counts its executions with a plain `std` atomic (outside
//! the facade) and fails below a floor, so a harness that explores nothing
//! cannot pass.
//!
//! A model has one preemption bound and floor for both bounds
//! (`bounds.rs`), or, when the full bound takes long, a smaller quick bound
//! with its own floor (`explore_bounds`: the full pair first, then the
//! quick one), about half the executions observed at that bound, as the
//! full floors are. A model that also asserts it reached some path (a
//! promotion, an inline `join`) keeps a quick bound at which it does. Each model prints a line when it
//! starts and one with its executions when it ends, past libtest's capture
//! (`progress.rs`).

#[path = "bounds.rs"]
mod bounds;
#[path = "progress.rs"]
pub mod progress;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Explores `model` with the given preemption bound under either bounds,
/// then fails if fewer than `floor` executions were explored.
pub fn explore(name: &str, preemption_bound: usize, floor: usize, model: impl Fn() + Sync + Send + 'static) {
    run(name, preemption_bound, floor, model);
}

/// Explores `model` with `full` = (preemption bound, floor) under the full
/// bounds, `quick` = (preemption bound, floor) otherwise, then fails if
/// fewer executions than that floor were explored.
#[allow(dead_code)]
pub fn explore_bounds(
    name: &str,
    full: (usize, usize),
    quick: (usize, usize),
    model: impl Fn() + Sync + Send + 'static,
) {
    let (preemption_bound, floor) = bounds::pick(full, quick);
    run(name, preemption_bound, floor, model);
}

fn run(name: &str, preemption_bound: usize, floor: usize, model: impl Fn() + Sync + Send + 'static) {
    let executions = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = executions.clone();
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(preemption_bound);
    // A shutdown with a blocked thread and its spare runs past loom's
    // default of 1 000 branches in its longest executions (a wake-up takes
    // the woken slot's lock, and `wake_all` every slot's, in turn, S9);
    // bounded all the same: no model spins.
    builder.max_branches = 2_000;
    let bounds = bounds::label();
    progress::line(format_args!(
        "model {name}: exploring (preemption bound {preemption_bound}, {bounds})"
    ));
    let start = Instant::now();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        builder.check(move || {
            counter.fetch_add(1, Ordering::Relaxed);
            model();
        })
    }));
    if let Err(panic) = outcome {
        progress::line(format_args!(
            "model {name}: FAILED in execution {} after {:.2?} (preemption bound {preemption_bound}, {bounds})",
            executions.load(Ordering::Relaxed),
            start.elapsed()
        ));
        std::panic::resume_unwind(panic);
    }
    let explored = executions.load(Ordering::Relaxed);
    progress::line(format_args!(
        "model {name}: {explored} executions in {:.2?} (preemption bound {preemption_bound}, floor {floor}, {bounds})",
        start.elapsed()
    ));
    assert!(
        explored >= floor,
        "model {name} explored {explored} executions, below its floor of {floor}: the harness is vacuous"
    );
}
