//! Idle workers: searching, sleeping, and waking with no lost wake-up.
//!
//! The protocol and its proof are in `proofs/sleep.md`; the IDs below (S1...)
//! are its steps. In short:
//!
//! * `counters` packs how many workers are *searching* (out of work, looking
//!   for more) and how many are *sleeping*. Every change of a worker's state
//!   is one RMW on it (S1).
//! * A worker about to sleep registers (S1), then a SeqCst fence (S2), then
//!   checks every queue once more; only if all are empty does it block.
//! * A thread that makes work available pushes it, then a SeqCst fence (S3),
//!   then reads `counters` (S4), and wakes one sleeper if nobody is searching.
//!
//! S2 and S3 forbid store buffering: either the sleeper's final check sees
//! the new work, or the producer sees the sleeper registered and wakes it.
//! Registration, the final check and the wait happen under one mutex, which
//! wakers also take, so a wake-up cannot fall between check and wait.

use super::latch::CoreLatch;
use super::ordering::{barrier, fence, COUNTERS_RMW, PRODUCER_FENCE, RELAXED, SEARCHER_FENCE, SLEEPER_FENCE};
use crate::sync::{AtomicUsize, Condvar, Mutex, MutexGuard};

/// One searching worker in `counters`.
const ONE_SEARCHING: usize = 1;
/// One sleeping worker in `counters`.
const ONE_SLEEPING: usize = 1 << 16;
/// The most workers a pool may have, so both halves of `counters` fit.
pub(crate) const MAX_WORKERS: usize = ONE_SLEEPING - 1;

fn searching(counters: usize) -> usize {
    counters & (ONE_SLEEPING - 1)
}

fn sleeping(counters: usize) -> usize {
    counters >> 16
}

/// How a call to [`Sleep::sleep`] ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// The worker is searching again (woken, or its final check found work).
    Searching,
    /// The pool is shutting down and there is no work left: the worker exits.
    Exit,
}

pub(crate) struct Sleep {
    /// Searching count in the low 16 bits, sleeping count above.
    counters: AtomicUsize,
    /// `asleep[i]`: worker `i` is registered as sleeping and nobody has woken
    /// it yet.
    asleep: Mutex<Vec<bool>>,
    /// One per worker, so a wake-up wakes exactly the chosen worker.
    wakers: Box<[Condvar]>,
    /// At most this many workers search at once.
    max_searching: usize,
    /// Threads that may still run a job: the workers that have not left
    /// for good, and the spare threads holding a slot (X2, W2). Changed
    /// and read only under the sleep lock.
    members: AtomicUsize,
}

impl Sleep {
    /// The protocol for `slots` threads, of which the first `workers`
    /// are the pool's workers, members from the start; the others are
    /// spare threads' slots, members while a spare holds them (W2).
    pub(crate) fn new(slots: usize, workers: usize) -> Self {
        Sleep {
            counters: AtomicUsize::new(0),
            asleep: Mutex::new(vec![false; slots]),
            wakers: (0..slots).map(|_| Condvar::new()).collect(),
            max_searching: workers.div_ceil(2),
            members: AtomicUsize::new(workers),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<bool>> {
        // Nothing panics while holding this lock; recover anyway.
        self.asleep.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The worker ran out of work: become a searcher if fewer than half the
    /// workers search already. Returns whether it did.
    pub(crate) fn start_searching(&self) -> bool {
        // S4: relaxed; the CAS below checks the value.
        let mut counters = self.counters.load(RELAXED);
        loop {
            if searching(counters) >= self.max_searching {
                return false;
            }
            // S1: the state change is one relaxed RMW on `counters`; the
            // fence that follows orders the scan after it (S2).
            match self.counters.compare_exchange_weak(
                counters,
                counters + ONE_SEARCHING,
                COUNTERS_RMW,
                RELAXED,
            ) {
                Ok(_) => {
                    // S2: the searcher's scan of the queues comes after this
                    // fence.
                    fence(SEARCHER_FENCE);
                    return true;
                }
                Err(current) => counters = current,
            }
        }
    }

    /// A searcher found work. If it was the last searcher and workers sleep,
    /// wake one to take up the search: work found is often more work to
    /// come, and producers only wake sleepers when nobody searches (S5).
    pub(crate) fn stop_searching(&self) {
        // S1: relaxed RMW.
        let before = self.counters.fetch_sub(ONE_SEARCHING, COUNTERS_RMW);
        if searching(before) == 1 && sleeping(before) > 0 {
            self.wake_one();
        }
    }

    /// Work was just made available (pushed on a deque or the injector):
    /// wake a sleeper if nobody is searching.
    #[inline]
    pub(crate) fn new_work(&self) {
        // S3: the light barrier between the push and the read of `counters`:
        // the producer's half of the store-buffering pair with S2's heavy
        // barrier (M1). On every push, so it costs no instruction.
        barrier(PRODUCER_FENCE);
        // S4: relaxed; S3 makes it recent enough.
        let counters = self.counters.load(RELAXED);
        if searching(counters) == 0 && sleeping(counters) > 0 {
            self.wake_one();
        }
    }

    /// Marks worker `index` awake and searching, and signals it. Caller holds
    /// the lock and has checked that the worker is asleep.
    fn wake_locked(&self, asleep: &mut [bool], index: usize) {
        asleep[index] = false;
        // S1: sleeping -> searching, one relaxed RMW; the woken worker scans
        // the queues after taking this lock.
        self.counters
            .fetch_add(ONE_SEARCHING.wrapping_sub(ONE_SLEEPING), COUNTERS_RMW);
        self.wakers[index].notify_one();
    }

    /// Wakes one sleeping worker, if any.
    #[cold]
    pub(crate) fn wake_one(&self) {
        let mut asleep = self.lock();
        if let Some(index) = asleep.iter().position(|&a| a) {
            self.wake_locked(&mut asleep, index);
        }
    }

    /// Wakes worker `index` if it is asleep (its latch was just set).
    pub(crate) fn wake_specific(&self, index: usize) {
        let mut asleep = self.lock();
        if asleep[index] {
            self.wake_locked(&mut asleep, index);
        }
    }

    /// Wakes every sleeping worker (shutdown).
    pub(crate) fn wake_all(&self) {
        let mut asleep = self.lock();
        for index in 0..asleep.len() {
            if asleep[index] {
                self.wake_locked(&mut asleep, index);
            }
        }
    }

    /// Puts worker `index` to sleep unless `has_work` finds work after it
    /// registered, or `latch` (what the worker waits for, if anything) is set.
    /// `searching` says whether the worker is counted as a searcher now.
    ///
    /// Returns [`Wake::Searching`] when the worker should look for work again
    /// (it is then counted as a searcher), or [`Wake::Exit`] when
    /// `terminating` holds, there is no work, and the worker waits for no
    /// latch.
    pub(crate) fn sleep(
        &self,
        index: usize,
        searching: bool,
        latch: Option<&CoreLatch>,
        has_work: impl Fn() -> bool,
        terminating: impl Fn() -> bool,
    ) -> Wake {
        let mut asleep = self.lock();
        // S1: register as sleeping (and no longer searching) in one relaxed
        // RMW; S2 below orders the final check after it.
        let change = if searching {
            ONE_SLEEPING.wrapping_sub(ONE_SEARCHING)
        } else {
            ONE_SLEEPING
        };
        self.counters.fetch_add(change, COUNTERS_RMW);
        asleep[index] = true;
        // S6: announce the sleep on the latch, under the lock: a setter that
        // sees `SLEEPING` takes this lock to wake us, so it cannot run before
        // we wait.
        if let Some(latch) = latch {
            if !latch.fall_asleep() {
                self.cancel_locked(&mut asleep, index);
                return Wake::Searching;
            }
        }
        // S2: the heavy barrier between the registration and the final
        // check: the sleeper's half of the store-buffering pair with S3's
        // light barrier (M1); once per sleep, which is slow anyway.
        barrier(SLEEPER_FENCE);
        if has_work() {
            self.cancel_locked(&mut asleep, index);
            if let Some(latch) = latch {
                latch.wake_up();
            }
            return Wake::Searching;
        }
        if latch.is_none() && terminating() {
            asleep[index] = false;
            // S1: leave the pool: no longer sleeping, not searching.
            self.counters.fetch_sub(ONE_SLEEPING, COUNTERS_RMW);
            // X2: relaxed, under the lock, after this worker's last check.
            self.members.fetch_sub(1, RELAXED);
            return Wake::Exit;
        }
        while asleep[index] {
            asleep = self.wakers[index].wait(asleep).unwrap_or_else(|e| e.into_inner());
        }
        // The waker moved us to searching (S1 in `wake_locked`).
        if let Some(latch) = latch {
            latch.wake_up();
        }
        Wake::Searching
    }

    /// Runs `push` under the sleep lock unless every worker has left the
    /// pool, and says whether it ran (X2). A job pushed this way is found
    /// by a worker: one that exits later checks `has_work` under this lock
    /// first. The caller announces the job afterwards (S3).
    pub(crate) fn while_open(&self, push: impl FnOnce()) -> bool {
        // `--cfg stealpool_bug="closed_unlocked"` checks before it locks:
        // the last worker may then leave between the check and the push,
        // and the job is never run (the mistake X2 rules out).
        #[cfg(stealpool_bug = "closed_unlocked")]
        let closed = self.members.load(RELAXED) == 0;
        let _asleep = self.lock();
        // X2: relaxed; only written under this lock.
        #[cfg(not(stealpool_bug = "closed_unlocked"))]
        let closed = self.members.load(RELAXED) == 0;
        if closed {
            return false;
        }
        push();
        true
    }

    /// A spare thread is about to run with a slot (W2): it counts as a
    /// member until it leaves. `false` if every member has left already
    /// (the spare must then not start: nothing would stop it).
    pub(crate) fn join_member(&self) -> bool {
        let _asleep = self.lock();
        // W2: relaxed; only changed under this lock.
        if self.members.load(RELAXED) == 0 {
            return false;
        }
        self.members.fetch_add(1, RELAXED);
        true
    }

    /// A spare thread gives its slot back (W2), unless it is the last
    /// member: then it stays (`false`), and leaves as a worker does, after
    /// a last look for work under this lock (X2).
    pub(crate) fn leave_member(&self) -> bool {
        let _asleep = self.lock();
        // W2: relaxed; only changed under this lock.
        if self.members.load(RELAXED) == 1 {
            return false;
        }
        self.members.fetch_sub(1, RELAXED);
        true
    }

    /// Undoes a registration: sleeping -> searching.
    fn cancel_locked(&self, asleep: &mut [bool], index: usize) {
        asleep[index] = false;
        // S1: relaxed RMW.
        self.counters
            .fetch_add(ONE_SEARCHING.wrapping_sub(ONE_SLEEPING), COUNTERS_RMW);
    }
}
