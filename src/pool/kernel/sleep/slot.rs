//! One slot's sleep state (S8, S9 in `proofs/sleep.md`): the lock, the
//! condition variable and the flag that only the slot's thread and the
//! threads waking it touch.

use crate::pool::kernel::ordering::RELAXED;
use crate::pool::kernel::probes;
use crate::sync::{AtomicBool, Condvar, Mutex, MutexGuard};

/// One slot's sleep state: its lock and condition variable, and its flag.
/// Only this slot's thread and the threads that wake it touch it.
pub(super) struct SlotSleep {
    /// Guards `parked` and the writes of `asleep`: the slot's thread holds
    /// it from raising its flag until its condition variable releases it
    /// (S9); a waker takes it to lower the flag and signal.
    lock: Mutex<Parked>,
    /// Signalled by the waker that lowers `asleep` or `parked`.
    pub(super) waker: Condvar,
    /// S8: the slot's thread is registered as sleeping and nobody has woken
    /// it yet. Written only under `lock`; read there exactly, and by
    /// wakers looking for a sleeper without it, as a hint (S8).
    pub(super) asleep: AtomicBool,
}

/// What a slot's lock guards besides the writes of its flag: whether the
/// slot's thread waits for one latch alone (H6, H7), not counted as
/// sleeping: the work that `new_work` wakes sleepers for is not work it
/// would take; and (`.1`) whether a worker's thread left the pool for
/// good, after which nothing is posted to its mailbox (U3).
pub(super) struct Parked(pub(super) bool, pub(super) bool);

impl SlotSleep {
    pub(super) fn new() -> Self {
        SlotSleep {
            lock: Mutex::new(Parked(false, false)),
            waker: Condvar::new(),
            asleep: AtomicBool::new(false),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Parked> {
        probes::SLEEPER_LOCKS.hit();
        // Nothing panics while holding this lock; recover anyway.
        self.lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn wait<'a>(&self, guard: MutexGuard<'a, Parked>) -> MutexGuard<'a, Parked> {
        self.waker.wait(guard).unwrap_or_else(|e| e.into_inner())
    }

    /// As `wait`, for at most `period` (Z5); whether it timed out.
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    pub(super) fn wait_timeout<'a>(
        &self,
        guard: MutexGuard<'a, Parked>,
        period: std::time::Duration,
    ) -> (MutexGuard<'a, Parked>, bool) {
        let (guard, result) = self
            .waker
            .wait_timeout(guard, period)
            .unwrap_or_else(|e| e.into_inner());
        (guard, result.timed_out())
    }

    /// S8: the flag, read under the slot's lock (exact) or, by a waker
    /// looking for a sleeper, without it (after the waker's S3, which
    /// pairs with the sleeper's S2 after the raise).
    pub(super) fn is_asleep(&self) -> bool {
        // S8: relaxed; S2/S3 (or the lock) order what it reads.
        self.asleep.load(RELAXED)
    }

    /// S8: raises or lowers the flag, under the slot's lock.
    pub(super) fn set_asleep(&self, asleep: bool) {
        // S8: relaxed store under the slot's lock; a raise comes before the
        // sleeper's heavy barrier (S2).
        self.asleep.store(asleep, RELAXED);
    }
}
