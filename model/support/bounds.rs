//! Which bounds the model harnesses run with, included with `#[path]`.
//!
//! * quick (the default): what `cargo test --features loom` and
//!   `cargo test --features shuttle` run as typed, a few minutes each on 2
//!   cores; loom's costliest models explore a smaller preemption bound,
//!   each with its own floor, and shuttle's tests run a tenth of their
//!   schedules, with the floor scaled alike, so a short run is still checked
//!   not to be vacuous;
//! * full (`STEALPOOL_MODEL_BOUNDS=full`): the bounds stated beside each
//!   model, which `model/scripts/verify.sh` (and so CI) and `model/scripts/mutants.sh` run.
//!
//! Any other value is refused, so a misspelt `full` cannot quietly run the
//! quick bounds.

#![allow(dead_code)]

/// The environment variable that selects the bounds.
pub const VARIABLE: &str = "STEALPOOL_MODEL_BOUNDS";

/// Quick runs of a shuttle test run one schedule in `QUICK_SHARE` of those
/// its full bound asks for.
pub const QUICK_SHARE: usize = 10;

/// Whether the full bounds are in force.
pub fn full() -> bool {
    match std::env::var(VARIABLE).as_deref() {
        Ok("full") => true,
        Ok("quick") | Ok("") | Err(_) => false,
        Ok(other) => panic!("{VARIABLE}={other}: expected `full` or `quick`"),
    }
}

/// `full` under the full bounds, `quick` otherwise.
pub fn pick<T>(full: T, quick: T) -> T {
    if self::full() {
        full
    } else {
        quick
    }
}

/// The name of the bounds in force, for progress lines.
pub fn label() -> &'static str {
    pick("full bounds", "quick bounds")
}

/// A shuttle test's schedules: as asked under the full bounds, a
/// `QUICK_SHARE`th of them (at least one) otherwise.
pub fn schedules(full: usize) -> usize {
    pick(full, (full / QUICK_SHARE).max(1))
}
