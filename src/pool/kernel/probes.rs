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

/// U1: posts that woke their worker, asleep or parked.
pub static POSTS_WOKE: Probe = Probe::new();

/// H6, H7: jobs a wait took but left to the injector, not its to run.
pub static REROUTED: Probe = Probe::new();

/// Z9: jobs a wait in a blocked set ran on top of itself.
pub static STALLS_ESCAPED: Probe = Probe::new();

/// S9, W1, X2: acquisitions of a lock shared by all workers (the accounts
/// lock; the sleep and wake path takes none).
pub static POOL_LOCKS: Probe = Probe::new();

/// S9: acquisitions of one slot's own sleep lock (by its thread, or by a
/// waker of that thread alone).
pub static SLEEPER_LOCKS: Probe = Probe::new();

/// S1: writes of the sleep counters, the one word of the sleep protocol
/// every worker writes (every RMW attempt, a failed CAS included).
pub static COUNTERS_WRITES: Probe = Probe::new();

/// S7: writes of the sleepers word by a sleep's start or end, one at
/// each, whatever the number of workers (no sleep writes a slot's
/// attention word).
pub static ATTENTION_WRITES: Probe = Probe::new();

/// S9: sleeps that reached their wait (registered, final check empty,
/// not leaving).
pub static WAITS: Probe = Probe::new();

/// S9: sleeps ended by a waker, which takes the sleeper's lock, so only
/// once the sleeper waits: `WAITS` less this is how many threads wait.
pub static WOKEN: Probe = Probe::new();
