//! The loom runner shared by the loom harnesses (`loom_deque.rs`,
//! `loom_pool.rs`, `loom_injector.rs`), included with `#[path]`: explores a
//! model within a preemption bound, counts its executions with a plain `std`
//! atomic (outside the facade) and fails below a floor, so a harness that
//! explores nothing cannot pass.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Explores `model` with the given preemption bound, then fails if fewer than
/// `floor` executions were explored.
pub fn explore(name: &str, preemption_bound: usize, floor: usize, model: impl Fn() + Sync + Send + 'static) {
    let executions = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = executions.clone();
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(preemption_bound);
    eprintln!("model {name}: exploring (preemption bound {preemption_bound})");
    let start = Instant::now();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        builder.check(move || {
            counter.fetch_add(1, Ordering::Relaxed);
            model();
        })
    }));
    if let Err(panic) = outcome {
        eprintln!(
            "model {name}: FAILED in execution {} after {:.2?} (preemption bound {preemption_bound})",
            executions.load(Ordering::Relaxed),
            start.elapsed()
        );
        std::panic::resume_unwind(panic);
    }
    let explored = executions.load(Ordering::Relaxed);
    eprintln!(
        "model {name}: {explored} executions in {:.2?} (preemption bound {preemption_bound}, floor {floor})",
        start.elapsed()
    );
    assert!(
        explored >= floor,
        "model {name} explored {explored} executions, below its floor of {floor}: the harness is vacuous"
    );
}
