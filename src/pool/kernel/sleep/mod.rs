//! Idle workers: searching, sleeping, and waking with no lost wake-up.
//!
//! The protocol and its proof are in `proofs/sleep.md`; the IDs below (S1...)
//! are its steps. In short:
//!
//! * `counters` packs how many workers are *searching* (out of work, looking
//!   for more) and how many are *sleeping*. Every change of a worker's state
//!   is one RMW on it (S1).
//! * A worker about to sleep, under its own lock, raises its own flag (S8)
//!   and registers (S1), then a heavy barrier (S2), then checks every queue
//!   once more; only if all are empty does it wait, still holding its lock
//!   until its condition variable releases it.
//! * A thread that makes work available pushes it, then a light barrier
//!   (S3), then reads `counters` (S4), and wakes one sleeper if nobody is
//!   searching: it finds a raised flag (S8) and takes that worker's lock
//!   alone to lower it and signal (S9).
//!
//! S2 and S3 forbid store buffering: either the sleeper's final check sees
//! the new work, or the producer sees the sleeper registered and wakes it.
//! A `join` reads the sleepers word instead of the counters (S7): every
//! sleeper counts itself there before its barrier, and only sleeps write
//! it, one write at each end of a sleep.
//! There is no lock shared by all workers on the sleep or wake path: each
//! slot has its own lock and condition variable, and the counts of
//! `block_in_place` have a lock of their own (`accounts`), taken by a
//! worker's sleep only once the pool terminates.

mod accounts;
mod slot;

use crate::sync::flags::bug;
use slot::SlotSleep;

use super::attention::Attention;
use super::latch::CoreLatch;
use super::ordering::{
    barrier, barrier_known, fence, COUNTERS_RMW, PRODUCER_FENCE, RELAXED, SEARCHER_FENCE, SLEEPER_FENCE,
};
use super::probes;
use crate::sync::{AtomicUsize, Mutex, MutexGuard};
use crossbeam_utils::CachePadded;

/// One sleeping worker in `counters`: the low half, so that S4's test is
/// one comparison (`wake_needed`).
const ONE_SLEEPING: usize = 1;
/// One searching worker in `counters`.
const ONE_SEARCHING: usize = 1 << 16;
/// The most workers a pool may have, so both halves of `counters` fit.
pub(crate) const MAX_WORKERS: usize = ONE_SEARCHING - 1;

fn searching(counters: usize) -> usize {
    counters >> 16
}

fn sleeping(counters: usize) -> usize {
    counters & (ONE_SEARCHING - 1)
}

/// `searching(counters) == 0 && sleeping(counters) > 0`, as one comparison
/// for the test every push makes (S4): nobody searches exactly when the
/// word is its low half, and somebody sleeps when that is not 0, so the
/// word is in `1..=MAX_WORKERS`.
#[inline]
fn wake_needed(counters: usize) -> bool {
    counters.wrapping_sub(ONE_SLEEPING) < MAX_WORKERS
}

/// How a call to [`Sleep::sleep`] ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// The worker is searching again (woken, or its final check found work).
    Searching,
    /// The pool is shutting down and there is no work left: the worker exits.
    Exit,
}

/// What a sleeper decided under the accounts lock (`Sleep::leave`).
enum Leave {
    /// It is still needed: it waits.
    Stay,
    /// The final check found work: it searches again.
    Work,
    /// It leaves the pool; `release`: wake the workers that stayed for
    /// the spares (W2).
    Exit { release: bool },
}

/// What [`Sleep::block`] decided.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Compensation {
    /// As many spares hold slots as threads block.
    Enough,
    /// A spare is needed and every slot is taken: the caller just blocks.
    NoSlot,
    /// A spare is to come in, counted active and a member already.
    Spare,
}

pub(crate) struct Sleep {
    /// Sleeping count in the low 16 bits, searching count above: the one
    /// word shared by all workers (S1).
    counters: CachePadded<AtomicUsize>,
    /// Whether heavy barriers were process-wide when the pool was built
    /// (M1): S3 then only stops the compiler. `Builder::build` registers
    /// before it makes the registry and starts any worker.
    expedited: bool,
    /// Each slot's lock, condition variable and flag (S8, S9).
    slots: Box<[CachePadded<SlotSleep>]>,
    /// The counts of `block_in_place` (W1), under a lock of their own, off
    /// the sleep and wake path (`accounts.rs`).
    accounts: Mutex<accounts::Accounts>,
    /// At most this many workers search at once.
    max_searching: usize,
    /// Slots `workers..` are spare threads' (W1).
    workers: usize,
    /// Threads that may still run a job: the workers that have not left
    /// for good, and the spare threads holding a slot (X2, W2). Changed
    /// and read only under the accounts lock.
    members: AtomicUsize,
    /// The sleepers word, which `join` reads in place of `counters`, and
    /// each slot's attention word (S7, F3).
    pub(crate) attention: Attention,
}

impl Sleep {
    /// The protocol for `slots` threads, of which the first `workers`
    /// are the pool's workers, members from the start; the others are
    /// spare threads' slots, members while a spare holds them (W2).
    pub(crate) fn new(slots: usize, workers: usize) -> Self {
        let expedited = crate::sync::barriers_expedited();
        Sleep {
            counters: CachePadded::new(AtomicUsize::new(0)),
            expedited,
            slots: (0..slots).map(|_| CachePadded::new(SlotSleep::new())).collect(),
            accounts: Mutex::new(accounts::Accounts {
                blocked: 0,
                active: 0,
            }),
            workers,
            max_searching: workers.div_ceil(2),
            members: AtomicUsize::new(workers),
            // S7: the sleepers word needs a light barrier that pairs with
            // the sleepers' heavy one; under the model checkers both are
            // `fence(SeqCst)` (M1), so they check its protocol.
            attention: Attention::new(
                slots,
                expedited || cfg!(any(feature = "loom", feature = "shuttle")),
            ),
        }
    }

    /// S1: one relaxed RMW on the counters. Returns the value before.
    fn change(&self, delta: usize) -> usize {
        probes::COUNTERS_WRITES.hit();
        // S1: relaxed (`COUNTERS_RMW`).
        self.counters.fetch_add(delta, COUNTERS_RMW)
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
            probes::COUNTERS_WRITES.hit();
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
    /// Returns whether it woke one.
    pub(crate) fn stop_searching(&self) -> bool {
        // S1: relaxed RMW.
        let before = self.change(ONE_SEARCHING.wrapping_neg());
        searching(before) == 1 && sleeping(before) > 0 && self.wake_one()
    }

    /// Work was just made available (pushed on a deque or the injector):
    /// wake a sleeper if nobody is searching. Returns whether it woke one.
    #[inline]
    pub(crate) fn new_work(&self) -> bool {
        // S3: the light barrier between the push and the read of `counters`:
        // the producer's half of the store-buffering pair with S2's heavy
        // barrier (M1). On every push, so it costs no instruction.
        barrier_known(PRODUCER_FENCE, self.expedited);
        // S4: relaxed; S3 makes it recent enough, and the flags `wake_one`
        // reads after it (S8).
        let counters = self.counters.load(RELAXED);
        if wake_needed(counters) {
            return self.wake_one();
        }
        false
    }

    /// `new_work` without its S3: the bug flag `local_push_unfenced` (a
    /// worker's push on its own deque), which the loom model
    /// `block_after_spawn` must catch.
    pub(crate) fn new_work_unfenced(&self) -> bool {
        // S4, with no S3 before it: the mistake.
        let counters = self.counters.load(RELAXED);
        if wake_needed(counters) {
            return self.wake_one();
        }
        false
    }

    /// Marks the thread of `slot`, asleep, awake and searching, and signals
    /// it. The caller holds that slot's lock (S9) and saw its flag raised.
    fn wake_locked(&self, slot: &SlotSleep) {
        // `--cfg stealpool_bug="wake_unlocked"` is in `wake_unlocked`.
        slot.set_asleep(false);
        // S1: sleeping -> searching, one relaxed RMW; the woken worker scans
        // the queues after taking its lock back from this waker.
        self.change(ONE_SEARCHING.wrapping_sub(ONE_SLEEPING));
        // S7: the sleep is over.
        self.attention.sleeper_out();
        probes::WOKEN.hit();
        slot.waker.notify_one();
    }

    /// Wakes the thread of slot `index` if its flag is raised, under that
    /// slot's lock alone (S9). Returns whether it did.
    fn wake_if_asleep(&self, index: usize) -> bool {
        let slot = &self.slots[index];
        // S8: the hint spares a lock per slot that does not sleep.
        if !slot.is_asleep() {
            return false;
        }
        if bug!("wake_unlocked") {
            return self.wake_unlocked(slot);
        }
        let _guard = slot.lock();
        // S9: exact under the slot's lock.
        if !slot.is_asleep() {
            return false;
        }
        self.wake_locked(slot);
        true
    }

    /// `--cfg stealpool_bug="wake_unlocked"`: the waker lowers the flag and
    /// signals without the sleeper's lock, so its signal may fall between
    /// the sleeper's look at its flag and its wait (the mistake S9 rules
    /// out). The flag is lowered by a swap, so that one waker wins.
    fn wake_unlocked(&self, slot: &SlotSleep) -> bool {
        // S8 (mutant only): relaxed swap, so that two wakers do not both
        // count the wake-up.
        if !slot.asleep.swap(false, RELAXED) {
            return false;
        }
        self.change(ONE_SEARCHING.wrapping_sub(ONE_SLEEPING));
        self.attention.sleeper_out();
        probes::WOKEN.hit();
        slot.waker.notify_one();
        true
    }

    /// Wakes one sleeping worker, if any: the first raised flag, under its
    /// slot's lock alone (S8, S9). After a push, the caller's S3 pairs with
    /// the S2 of every sleeper whose final check missed the push, so the
    /// scan sees that sleeper's flag raised, or its sleep ended (S8).
    /// Returns whether it woke one.
    #[cold]
    pub(crate) fn wake_one(&self) -> bool {
        (0..self.slots.len()).any(|index| self.wake_if_asleep(index))
    }

    /// Wakes worker `index` if it is asleep or parked (its latch was just
    /// set), under its lock alone (S6, S9).
    pub(crate) fn wake_specific(&self, index: usize) {
        let slot = &self.slots[index];
        let mut parked = slot.lock();
        if slot.is_asleep() {
            self.wake_locked(slot);
        } else if parked.0 {
            // H6: not counted anywhere; only its own condition changes.
            parked.0 = false;
            slot.waker.notify_one();
        }
    }

    /// U1, U3: under the lock of worker `index`'s slot, unless its thread
    /// left the pool, runs `put` (which puts a job in its mailbox) and
    /// wakes the thread if it sleeps or parks. Returns `false`, with `put`
    /// not run, if the thread left.
    pub(crate) fn post(&self, index: usize, put: impl FnOnce()) -> bool {
        let slot = &self.slots[index];
        let mut parked = slot.lock();
        if parked.1 {
            return false;
        }
        put();
        if slot.is_asleep() {
            probes::POSTS_WOKE.hit();
            self.wake_locked(slot);
        } else if parked.0 {
            // U2: the parked thread looks in its mailbox, then parks again.
            probes::POSTS_WOKE.hit();
            parked.0 = false;
            slot.waker.notify_one();
        }
        true
    }

    /// H6, H7: the thread of slot `index` waits for `latch` alone, with
    /// no look for work: it is not counted as sleeping, so no push wakes it
    /// for work it would not take, and only the latch's setter
    /// (`wake_specific`) ends the wait, or a job posted to its mailbox
    /// (U2), which `has_mail` looks for under the lock the poster takes.
    /// As in `sleep` (S6), the latch is told under the slot's lock, so the
    /// setter's wake-up cannot come before the wait.
    pub(crate) fn park(
        &self,
        index: usize,
        latch: &CoreLatch,
        has_mail: impl Fn() -> bool,
        recheck: Option<std::time::Duration>,
    ) -> bool {
        let slot = &self.slots[index];
        // `--cfg stealpool_bug="park_unannounced"`: the latch is checked
        // but not told, so its setter, seeing no `SLEEPING`, wakes nobody
        // (the handshake S6 and H6 rule out).
        if bug!("park_unannounced") {
            let mut parked = slot.lock();
            if latch.probe() || has_mail() {
                return false;
            }
            parked.0 = true;
            while parked.0 {
                parked = slot.wait(parked);
            }
            return false;
        }
        let mut parked = slot.lock();
        // U2: a job posted before this lock is seen here; one posted after
        // finds the thread parked and wakes it. `--cfg
        // stealpool_bug="mail_unchecked"` parks without the look.
        if !bug!("mail_unchecked") && has_mail() {
            return false;
        }
        if !latch.fall_asleep() {
            return false;
        }
        parked.0 = true;
        let (_parked, timed_out) = wait_parked(slot, parked, recheck);
        latch.wake_up();
        timed_out
    }

    /// Z5: how many of the pool's threads sleep for want of work now,
    /// each flag read under its slot's lock (S8: exact there).
    pub(crate) fn asleep_exact(&self) -> usize {
        self.slots
            .iter()
            .filter(|slot| {
                let _guard = slot.lock();
                slot.is_asleep()
            })
            .count()
    }

    /// Wakes every sleeping worker (shutdown, X1): each slot's lock in turn,
    /// after the caller stored the flag.
    pub(crate) fn wake_all(&self) {
        for slot in self.slots.iter() {
            let _guard = slot.lock();
            if slot.is_asleep() {
                self.wake_locked(slot);
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
        let slot = &self.slots[index];
        let mut guard = slot.lock();
        // S8: the flag, raised before the heavy barrier S2, so that a waker
        // whose S3 follows that barrier finds it. `--cfg
        // stealpool_bug="flag_after_check"` raises it after the final check:
        // a producer whose push that check missed may then scan before the
        // raise and wake nobody (the mistake S8 rules out).
        if !bug!("flag_after_check") {
            slot.set_asleep(true);
        }
        // S1: register as sleeping (and no longer searching) in one relaxed
        // RMW; S2 below orders the final check after it.
        let change = if searching {
            ONE_SLEEPING.wrapping_sub(ONE_SEARCHING)
        } else {
            ONE_SLEEPING
        };
        self.change(change);
        // S7: and in the sleepers word, also before S2, so that a `join`
        // that reads that word in place of the counters cannot miss this
        // sleeper.
        self.attention.sleeper_in();
        // S6: announce the sleep on the latch, under the slot's lock: a
        // setter that sees `SLEEPING` takes this lock to wake us, so it
        // cannot run before we wait.
        if let Some(latch) = latch {
            if !latch.fall_asleep() {
                self.cancel_locked(slot);
                return Wake::Searching;
            }
        }
        // S2: the heavy barrier between the registration and the final
        // check: the sleeper's half of the store-buffering pair with S3's
        // light barrier (M1); once per sleep, which is slow anyway.
        barrier(SLEEPER_FENCE);
        // W2, X2: a thread that may leave the pool (a spare, or a worker
        // once the pool terminates) makes its final check under the
        // accounts lock, where it decides; the others make it here. (S9: a
        // worker that reads `false` here is woken by `wake_all`, which
        // takes this slot's lock after the flag is stored.)
        let spare = index >= self.workers;
        let leave = if latch.is_none() && (spare || terminating()) {
            self.leave(spare, &has_work, &terminating)
        } else if has_work() {
            Leave::Work
        } else {
            Leave::Stay
        };
        match leave {
            Leave::Stay => {}
            Leave::Work => {
                self.cancel_locked(slot);
                if let Some(latch) = latch {
                    latch.wake_up();
                }
                return Wake::Searching;
            }
            Leave::Exit { release } => {
                // U3: a worker that leaves is posted nothing after this.
                if !spare {
                    guard.1 = true;
                }
                slot.set_asleep(false);
                // S1: leave the pool: no longer sleeping, not searching.
                self.change(ONE_SLEEPING.wrapping_neg());
                // S7: nor in the sleepers word.
                self.attention.sleeper_out();
                drop(guard);
                self.release_workers(release);
                return Wake::Exit;
            }
        }
        if bug!("flag_after_check") {
            slot.set_asleep(true);
        }
        probes::WAITS.hit();
        // S9: the flag is looked at under the slot's lock, and the wait
        // releases it: a waker's lowering comes before the look or after
        // the wait began.
        while slot.is_asleep() {
            guard = slot.wait(guard);
        }
        drop(guard);
        // The waker moved us to searching (S1 in `wake_locked`).
        if let Some(latch) = latch {
            latch.wake_up();
        }
        Wake::Searching
    }

    /// W2, X2: under the accounts lock, the final check of the caller (a
    /// worker at shutdown, or a spare), registered and past its barrier
    /// S2, and whether it leaves the pool. A worker leaves at shutdown once no thread blocks and no
    /// spare holds a slot; a spare leaves when more spares hold slots than
    /// threads block, shutdown or not (it parks, W4), and otherwise sleeps,
    /// even at shutdown: a blocked thread may still push work, or be about
    /// to. It is woken by that work or by the blocked thread's return
    /// (`unblock`). Either leaves only if its final check, under the
    /// accounts lock, finds no work: a job queued by `while_open` before
    /// this critical section is seen (X2). Leaving, it is no longer a
    /// member.
    /// With `Leave::Exit`, `release` says whether the workers that stayed
    /// for the spares are to be woken (W2).
    ///
    /// `--cfg stealpool_bug="spare_leaves_at_shutdown"` lets a needed
    /// spare leave with the workers: a thread still blocked is then alone
    /// with the work it waits for (the mistake W2 rules out).
    /// `--cfg stealpool_bug="workers_leave_while_blocking"` lets the
    /// workers leave while a thread blocks or a spare holds a slot: a spare
    /// may still queue work on its own deque and block on it with no slot
    /// left for another spare, and then only a worker can run that work
    /// (a first version's mistake). `--cfg stealpool_bug="exit_unchecked"`
    /// makes the final check before taking the lock (the mistake X2's
    /// check under the lock rules out).
    fn leave(&self, spare: bool, has_work: &impl Fn() -> bool, terminating: &impl Fn() -> bool) -> Leave {
        // `--cfg stealpool_bug="exit_unchecked"` makes the final check
        // before the lock.
        if bug!("exit_unchecked") && has_work() {
            return Leave::Work;
        }
        let mut accounts = self.accounts();
        // The final check (after S2), under the accounts lock: it sees
        // every job a `while_open` pushed before this critical section.
        if !bug!("exit_unchecked") && has_work() {
            return Leave::Work;
        }
        let leave = if spare {
            accounts.active > accounts.blocked || (bug!("spare_leaves_at_shutdown") && terminating())
        } else {
            terminating() && (accounts.quiet() || bug!("workers_leave_while_blocking"))
        };
        if !leave {
            return Leave::Stay;
        }
        // X2: relaxed, under the accounts lock, after this thread's final check.
        self.members.fetch_sub(1, RELAXED);
        if !spare {
            return Leave::Exit { release: false };
        }
        accounts.active -= 1;
        Leave::Exit {
            release: terminating() && accounts.quiet(),
        }
    }

    /// Undoes a registration: sleeping -> searching. Under the slot's lock.
    fn cancel_locked(&self, slot: &SlotSleep) {
        slot.set_asleep(false);
        // S1: relaxed RMW.
        self.change(ONE_SEARCHING.wrapping_sub(ONE_SLEEPING));
        // S7: the sleep is over.
        self.attention.sleeper_out();
    }
}

/// H6, U2: waits until the slot's `parked` is lowered by a waker or, with
/// `recheck` (Z5, real threads only: the model checkers' waits park until
/// woken), that long has passed, lowering it then as a waker would (a
/// later waker's notify is then a no-op); whether it timed out.
fn wait_parked<'a>(
    slot: &SlotSleep,
    mut parked: MutexGuard<'a, slot::Parked>,
    recheck: Option<std::time::Duration>,
) -> (MutexGuard<'a, slot::Parked>, bool) {
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    let _ = recheck;
    while parked.0 {
        #[cfg(not(any(feature = "loom", feature = "shuttle")))]
        if let Some(period) = recheck {
            let (guard, expired) = slot.wait_timeout(parked, period);
            parked = guard;
            if expired && parked.0 {
                parked.0 = false;
                return (parked, true);
            }
            continue;
        }
        parked = slot.wait(parked);
    }
    (parked, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wake_needed_is_nobody_searching_and_somebody_sleeping() {
        let counts = [0, 1, 2, 3, MAX_WORKERS - 1, MAX_WORKERS];
        for searchers in counts {
            for sleepers in counts {
                let counters = searchers * ONE_SEARCHING + sleepers * ONE_SLEEPING;
                assert_eq!(searching(counters), searchers);
                assert_eq!(sleeping(counters), sleepers);
                assert_eq!(
                    wake_needed(counters),
                    searchers == 0 && sleepers > 0,
                    "{searchers} searching, {sleepers} sleeping"
                );
            }
        }
    }
}
