//! The stall detector's reports as the models see them (Z1-Z4 in
//! `proofs/waits.md`): told apart from other panics, and kept off the
//! log when a model causes and catches them in every execution.

use std::any::Any;
use std::sync::Once;

/// Whether a caught panic is a report that a `JoinHandle::join` can never
/// return.
pub fn is_stall_report(payload: &(dyn Any + Send)) -> bool {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied());
    text.is_some_and(|text| text.contains("can never return"))
}

/// Keeps the reports off the log: one message per execution otherwise.
/// Other panics are reported as before.
pub fn quiet_stall_reports() {
    static QUIET: Once = Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !is_stall_report(info.payload()) {
                previous(info);
            }
        }));
    });
}
