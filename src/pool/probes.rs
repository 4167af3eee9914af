//! What the models observe beyond the public API: how often a path they
//! exist to check was taken (`crate::sync::Probe`, counting only in the
//! `loom` and `shuttle` builds).

use crate::sync::Probe;

/// F6: `join`s run inline under `Builder::max_pending_joins`.
pub static INLINE_JOINS: Probe = Probe::new();

/// H6: halves a waiting `join` took from beneath its stolen half and ran.
pub static HALVES_HELPED: Probe = Probe::new();

/// H6, H7: waits that parked on their latch alone.
pub static WAITS_PARKED: Probe = Probe::new();

/// H6, H7: jobs a wait took but left to the injector, not its to run.
pub static REROUTED: Probe = Probe::new();
