//! The counts of `block_in_place` (W1, W2) and the membership of the pool
//! (X2), under a lock of their own: the *accounts lock*.
//!
//! It is the one lock every thread of the pool may take, and it is off the
//! sleep and wake path: a worker's sleep takes it only once the pool
//! terminates (to decide whether it may leave), a spare's sleep whenever it
//! finds no work (to decide whether it is still needed), and otherwise only
//! `block_in_place` (`block`, `unblock`), a spare's job boundary
//! (`retire_spare`) and a continuation queued from outside (`while_open`)
//! take it. Lock order: a sleeper's own lock before the accounts lock; the
//! accounts lock is never held while a sleeper's lock is taken (a wake-up
//! it decides on is made after it is released). Proof: `proofs/sleep.md`
//! (S9) and `proofs/blocking.md` (W1, W2).

use super::{Compensation, Sleep};
use crate::pool::kernel::ordering::RELAXED;
use crate::pool::kernel::probes;
use crate::sync::flags::bug;
use crate::sync::MutexGuard;

/// What the accounts lock guards.
pub(super) struct Accounts {
    /// Threads inside `block_in_place` (W1).
    pub(super) blocked: usize,
    /// Spare threads holding a slot (W1).
    pub(super) active: usize,
}

impl Accounts {
    /// W1: a thread blocks and fewer spares stand in than threads block.
    fn spare_needed(&self) -> bool {
        self.active < self.blocked
    }

    /// W2: no thread blocks and no spare holds a slot, so nothing
    /// `block_in_place` started can still need a worker: at shutdown,
    /// workers may leave.
    pub(super) fn quiet(&self) -> bool {
        self.active == 0 && self.blocked == 0
    }
}

impl Sleep {
    pub(super) fn accounts(&self) -> MutexGuard<'_, Accounts> {
        probes::POOL_LOCKS.hit();
        // Nothing panics while holding this lock; recover anyway.
        self.accounts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `push` under the accounts lock unless every worker has left the
    /// pool, and says whether it ran (X2). A job pushed this way is found
    /// by a worker: one that leaves later looks for work under this lock
    /// first (`Sleep::sleep`). The caller announces the job afterwards (S3).
    pub(crate) fn while_open(&self, push: impl FnOnce()) -> bool {
        // `--cfg stealpool_bug="closed_unlocked"` checks before it locks:
        // the last worker may then leave between the check and the push,
        // and the job is never run (the mistake X2 rules out).
        let early = bug!("closed_unlocked").then(|| self.members.load(RELAXED) == 0);
        let _accounts = self.accounts();
        // X2: relaxed; only written under this lock.
        let closed = early.unwrap_or_else(|| self.members.load(RELAXED) == 0);
        if closed {
            return false;
        }
        push();
        true
    }

    /// Z2: the threads that may still run a job (X2), read under the
    /// accounts lock, where every change to it is made.
    pub(crate) fn members_exact(&self) -> usize {
        let _accounts = self.accounts();
        // X2: relaxed, under the accounts lock.
        self.members.load(RELAXED)
    }

    /// W1, W2: a thread of the pool enters `block_in_place`. Returns
    /// whether a spare is to come in: fewer spares hold a slot than threads
    /// block, fewer than `slots`, and a member remains (the caller is
    /// one). The spare is then counted active and a member before it
    /// runs, so the last member to leave cannot miss what it pushes.
    pub(crate) fn block(&self, slots: usize) -> Compensation {
        let mut accounts = self.accounts();
        accounts.blocked += 1;
        // `--cfg stealpool_bug="no_spare"`: no spare ever comes in (the
        // compensation W1 provides).
        if bug!("no_spare") || !accounts.spare_needed() {
            return Compensation::Enough;
        }
        // W2: relaxed; only changed under this lock.
        if accounts.active == slots || self.members.load(RELAXED) == 0 {
            return Compensation::NoSlot;
        }
        // X2: relaxed, under the accounts lock.
        self.members.fetch_add(1, RELAXED);
        accounts.active += 1;
        Compensation::Spare
    }

    /// W1: the spare `block` brought in could not start (no thread to
    /// start): undoes its counts.
    pub(crate) fn spare_failed(&self, terminating: impl Fn() -> bool) {
        let mut accounts = self.accounts();
        accounts.active -= 1;
        // W2: relaxed; only changed under this lock.
        self.members.fetch_sub(1, RELAXED);
        let release = terminating() && accounts.quiet();
        drop(accounts);
        self.release_workers(release);
    }

    /// W2: at shutdown, once no thread blocks and no spare holds a slot,
    /// wakes the workers that stayed asleep for them, so that they leave.
    /// `release` is `terminating() && quiet()`, read under the accounts
    /// lock, where a worker that stays reads both too (S9): if that worker
    /// read the counts not quiet, this read comes later and sees the flag
    /// it saw. The wake-ups are made after the accounts lock is released.
    pub(super) fn release_workers(&self, release: bool) {
        if release {
            for index in 0..self.workers {
                self.wake_if_asleep(index);
            }
        }
    }

    /// W1: a thread leaves `block_in_place`. A spare asleep that is no
    /// longer needed is woken, so that at shutdown it can leave (W2).
    pub(crate) fn unblock(&self, terminating: impl Fn() -> bool) {
        let mut accounts = self.accounts();
        accounts.blocked -= 1;
        let release = terminating() && accounts.quiet();
        let spare_unneeded = accounts.active > accounts.blocked;
        drop(accounts);
        self.release_workers(release);
        if spare_unneeded {
            // S9: a spare that decided to stay did so under the accounts
            // lock after raising its flag, so this scan, later under that
            // lock, sees the flag (or the end of that sleep).
            for index in self.workers..self.slots.len() {
                if self.wake_if_asleep(index) {
                    break;
                }
            }
        }
    }

    /// W3: a spare at a job boundary, with its deques empty, gives its slot
    /// back if more spares hold slots than threads block, unless it is the
    /// last member (then it stays, and leaves as a worker does, after a
    /// final check for work under the accounts lock, X2). Returns whether it
    /// did.
    pub(crate) fn retire_spare(&self, terminating: impl Fn() -> bool) -> bool {
        let mut accounts = self.accounts();
        // W2: relaxed; only changed under this lock.
        if accounts.active <= accounts.blocked || self.members.load(RELAXED) == 1 {
            return false;
        }
        self.members.fetch_sub(1, RELAXED);
        accounts.active -= 1;
        let release = terminating() && accounts.quiet();
        drop(accounts);
        self.release_workers(release);
        true
    }
}
