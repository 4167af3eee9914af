//! Latches: one-shot signals that a job has finished.
//!
//! * [`WorkerLatch`] is waited on by a pool worker in `scope`, which runs
//!   only the scope's own tasks meanwhile and may park on it (H7); setting
//!   it wakes that worker if (and only if) it is asleep or parked on it.
//! * A bare [`CoreLatch`] naming its owner is `join`'s, set by
//!   `JoinJob::execute` (J4 in `proofs/join.md`).
//! * [`LockLatch`] is waited on by a thread outside the pool, or by a worker
//!   with a spare standing in for it (`JoinHandle::join`, waits on another
//!   pool; H4), which blocks on a condition variable without spinning.
//!
//! Setting a latch may free it: the waiter can return the moment it sees the
//! latch set, taking the stack frame that holds the latch with it. `set`
//! therefore takes a raw pointer and touches nothing after the store that
//! makes the latch visible (J1 in `proofs/join.md`).

use super::ordering::{LATCH_PROBE, LATCH_RUNNER, LATCH_SET, RELAXED, RUNNER_LOAD};
use super::registry::Registry;
use crate::sync::{Arc, AtomicUsize, Condvar, Mutex};

/// A latch that a job sets when it has finished.
pub(crate) trait Latch {
    /// Sets the latch.
    ///
    /// # Safety
    ///
    /// `this` is live on entry; it may be freed by the waiter during the call,
    /// so implementations read what they need from it before the store that
    /// releases the waiter.
    unsafe fn set(this: *const Self);
}

const UNSET: usize = 0;
const SLEEPING: usize = 1;
const SET: usize = 2;
/// The low bits hold the state; the lower half of the rest, the owner a
/// `join` half's latch names (`with_owner`), so that its setter learns
/// whom to wake from the value its swap replaces, and `join` writes one
/// word for its latch; the upper half, one more than the slot of the
/// thread that runs the half, once it has started (H6).
const STATE_BITS: u32 = 2;
const STATE_MASK: usize = (1 << STATE_BITS) - 1;
/// Where the runner's slot starts in the word.
const RUNNER_SHIFT: u32 = usize::BITS / 2;
/// The owner's bits, once shifted down past the state.
const OWNER_MASK: usize = (1 << (RUNNER_SHIFT - STATE_BITS)) - 1;

/// A slot index as an unset latch's state word carries it: computed once
/// per worker, so that a `join` writes its latch with no arithmetic.
#[derive(Clone, Copy)]
pub(crate) struct LatchOwner(usize);

impl LatchOwner {
    pub(crate) fn of(index: usize) -> Self {
        assert!(
            index <= OWNER_MASK,
            "stealpool: slot {index} does not fit a latch"
        );
        LatchOwner(index << STATE_BITS)
    }
}

/// The state word of a latch that a worker may sleep on.
///
/// `UNSET -> SLEEPING -> UNSET` is the waiter's (under the sleep lock, S6);
/// `-> SET` is the setter's, final.
pub(crate) struct CoreLatch {
    state: AtomicUsize,
}

impl CoreLatch {
    pub(crate) fn new() -> Self {
        Self::with_owner(LatchOwner::of(0))
    }

    /// An unset latch that carries `owner` until it is set (J4): one
    /// store, and its setter learns whom to wake from its swap.
    #[inline]
    pub(crate) fn with_owner(owner: LatchOwner) -> Self {
        CoreLatch {
            state: AtomicUsize::new(owner.0 | UNSET),
        }
    }

    /// L2: acquire, pairing with L1, so the job's result is visible once
    /// this returns `true`.
    #[inline]
    pub(crate) fn probe(&self) -> bool {
        self.state.load(LATCH_PROBE) & SET != 0
    }

    /// H6: the half this latch belongs to started on the thread of slot
    /// `runner`. Release: that thread's mark (`enter_stolen_half`), stored
    /// before, is seen by a waiter whose `runner` reads this. A slot too
    /// large for the word's upper half is not recorded: its waiter then
    /// helps no runner, and parks.
    pub(crate) fn mark_running(&self, runner: usize) {
        if runner < OWNER_MASK {
            // H6: release RMW, beside the owner's L3 RMWs on the word.
            self.state.fetch_or((runner + 1) << RUNNER_SHIFT, LATCH_RUNNER);
        }
    }

    /// H6: the slot of the thread running the half, if it has started and
    /// the latch is not set yet. Acquire, pairing with `mark_running`.
    pub(crate) fn runner(&self) -> Option<usize> {
        // H6: acquire, pairing with `mark_running`'s release.
        let word = self.state.load(RUNNER_LOAD);
        if word & SET != 0 {
            return None;
        }
        (word >> RUNNER_SHIFT).checked_sub(1)
    }

    /// The waiter announces it is about to sleep; `false` if already set.
    /// L3: relaxed; the RMW's atomicity against L1's swap is all it needs,
    /// and the sleep lock orders the rest (S6). A set latch stays set: the
    /// `SLEEPING` bit beside `SET` is ignored by `probe`.
    pub(crate) fn fall_asleep(&self) -> bool {
        self.state.fetch_or(SLEEPING, RELAXED) & SET == 0
    }

    /// The waiter is awake again. L3: relaxed, as above; if the latch was
    /// set meanwhile, it stays set.
    pub(crate) fn wake_up(&self) {
        self.state.fetch_and(!SLEEPING, RELAXED);
    }

    /// Sets the latch; returns the owner it carried if the waiter was
    /// asleep on it.
    ///
    /// # Safety
    ///
    /// `this` may be freed as soon as the swap is done.
    pub(crate) unsafe fn set(this: *const Self) -> Option<usize> {
        // L1: release swap, publishing the job's result to the waiter's L2.
        // Seeing `SLEEPING`, the wake-up that follows takes the sleep lock,
        // which orders everything else (S6).
        // SAFETY: `this` is live until this swap completes.
        let old = unsafe { (*this).state.swap(SET, LATCH_SET) };
        (old & STATE_MASK == SLEEPING).then_some((old >> STATE_BITS) & OWNER_MASK)
    }
}

/// A latch a pool worker waits on (the second half of `join`, a scope).
pub(crate) struct WorkerLatch<'r> {
    pub(crate) core: CoreLatch,
    registry: &'r Registry,
    worker_index: usize,
}

impl<'r> WorkerLatch<'r> {
    pub(crate) fn new(registry: &'r Registry, worker_index: usize) -> Self {
        WorkerLatch {
            core: CoreLatch::new(),
            registry,
            worker_index,
        }
    }
}

impl Latch for WorkerLatch<'_> {
    unsafe fn set(this: *const Self) {
        // Copy out what the wake-up needs: after the swap `this` may be gone.
        // The registry outlives every job, since a worker runs this.
        // SAFETY: `this` is live on entry.
        let (registry, worker_index) = unsafe { ((*this).registry, (*this).worker_index) };
        // SAFETY: as above; `set` touches `this` only in the swap.
        if unsafe { CoreLatch::set(&raw const (*this).core) }.is_some() {
            registry.sleep.wake_specific(worker_index);
        }
    }
}

/// A latch a worker of one pool waits on while a job of *another* pool runs
/// (`install`, and so `join` and `scope`, or a handle of another pool)
/// (H4). The waiting worker parks in its own pool's protocol, serving the
/// jobs posted to it (U2, Y1).
///
/// The setter is a worker of the other pool, which holds nothing of the
/// waiter's pool: once the swap is done the waiter may return, its pool shut
/// down and the registry be freed, all before the setter's wake-up. So the
/// latch holds the registry by `Arc`, and the setter takes its own reference
/// before the swap (J3).
pub(crate) struct CrossPoolLatch {
    pub(crate) core: CoreLatch,
    registry: Arc<Registry>,
    worker_index: usize,
}

impl CrossPoolLatch {
    /// A latch for `worker_index` of the pool of `registry` to wait on.
    pub(crate) fn new(registry: &Arc<Registry>, worker_index: usize) -> Self {
        CrossPoolLatch {
            core: CoreLatch::new(),
            registry: Arc::clone(registry),
            worker_index,
        }
    }
}

impl Latch for CrossPoolLatch {
    unsafe fn set(this: *const Self) {
        // J3: our own reference to the waiter's registry, taken while `this`
        // is live; the wake-up below may outlive both the latch and the
        // waiter's pool.
        // SAFETY: `this` is live on entry.
        let (registry, worker_index) = unsafe { (Arc::clone(&(*this).registry), (*this).worker_index) };
        // SAFETY: as above; `set` touches `this` only in the swap.
        if unsafe { CoreLatch::set(&raw const (*this).core) }.is_some() {
            registry.sleep.wake_specific(worker_index);
        }
    }
}

/// A latch a thread outside the pool blocks on.
pub(crate) struct LockLatch {
    is_set: Mutex<bool>,
    changed: Condvar,
}

impl LockLatch {
    pub(crate) fn new() -> Self {
        LockLatch {
            is_set: Mutex::new(false),
            changed: Condvar::new(),
        }
    }

    /// Whether the latch is set (Z3: the stall detector's look, under its
    /// table's lock).
    pub(crate) fn is_set(&self) -> bool {
        *self.is_set.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Blocks until the latch is set.
    pub(crate) fn wait(&self) {
        let mut is_set = self.is_set.lock().unwrap_or_else(|e| e.into_inner());
        while !*is_set {
            is_set = self.changed.wait(is_set).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Blocks until the latch is set or, with `period`, at most that long
    /// (Z5); whether it is set.
    pub(crate) fn wait_for(&self, period: Option<std::time::Duration>) -> bool {
        match period {
            #[cfg(not(any(feature = "loom", feature = "shuttle")))]
            Some(period) => {
                let is_set = self.is_set.lock().unwrap_or_else(|e| e.into_inner());
                let (is_set, _) = self
                    .changed
                    .wait_timeout_while(is_set, period, |is_set| !*is_set)
                    .unwrap_or_else(|e| e.into_inner());
                *is_set
            }
            _ => {
                self.wait();
                true
            }
        }
    }
}

impl Latch for LockLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: the waiter cannot return before it re-acquires the mutex,
        // which it can only do after this guard is dropped, and the notify
        // happens while we hold it, so `this` is live throughout.
        let this = unsafe { &*this };
        let mut is_set = this.is_set.lock().unwrap_or_else(|e| e.into_inner());
        *is_set = true;
        this.changed.notify_all();
    }
}
