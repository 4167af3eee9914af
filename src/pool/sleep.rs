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
//! A `join` reads its slot's attention word instead of the counters (S7):
//! every sleeper raises every word before its barrier, so the word is zero
//! only while nobody sleeps.
//! Registration, the final check and the wait happen under one mutex, which
//! wakers also take, so a wake-up cannot fall between check and wait.

use super::attention::Attention;
use super::latch::CoreLatch;
use super::ordering::{
    barrier, barrier_known, fence, COUNTERS_RMW, PRODUCER_FENCE, RELAXED, SEARCHER_FENCE, SLEEPER_FENCE,
};
use crate::sync::{AtomicUsize, Condvar, Mutex, MutexGuard};

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

/// What the sleep lock guards.
struct Locked {
    /// `asleep[i]`: slot `i`'s thread is registered as sleeping and nobody
    /// has woken it yet.
    asleep: Vec<bool>,
    /// `parked[i]`: slot `i`'s thread waits for one latch alone (H6, H7),
    /// not counted as sleeping: the work that `new_work` wakes sleepers for
    /// is not work it would take.
    parked: Vec<bool>,
    /// Threads inside `block_in_place` (W1).
    blocked: usize,
    /// Spare threads holding a slot (W1).
    active: usize,
}

impl Locked {
    /// W1: a thread blocks and fewer spares stand in than threads block.
    fn spare_needed(&self) -> bool {
        self.active < self.blocked
    }

    /// W2: no thread blocks and no spare holds a slot, so nothing
    /// `block_in_place` started can still need a worker: at shutdown,
    /// workers may leave.
    fn quiet(&self) -> bool {
        self.active == 0 && self.blocked == 0
    }
}

impl std::ops::Deref for Locked {
    type Target = Vec<bool>;
    fn deref(&self) -> &Vec<bool> {
        &self.asleep
    }
}

impl std::ops::DerefMut for Locked {
    fn deref_mut(&mut self) -> &mut Vec<bool> {
        &mut self.asleep
    }
}

pub(crate) struct Sleep {
    /// Searching count in the low 16 bits, sleeping count above.
    counters: AtomicUsize,
    /// Whether heavy barriers were process-wide when the pool was built
    /// (M1): S3 then only stops the compiler. `Builder::build` registers
    /// before it makes the registry and starts any worker.
    expedited: bool,
    /// `asleep[i]`: worker `i` is registered as sleeping and nobody has woken
    /// it yet; and the counts of `block_in_place` (W1).
    asleep: Mutex<Locked>,
    /// One per worker, so a wake-up wakes exactly the chosen worker.
    wakers: Box<[Condvar]>,
    /// At most this many workers search at once.
    max_searching: usize,
    /// Slots `workers..` are spare threads' (W1).
    workers: usize,
    /// Threads that may still run a job: the workers that have not left
    /// for good, and the spare threads holding a slot (X2, W2). Changed
    /// and read only under the sleep lock.
    members: AtomicUsize,
    /// Each slot's attention word, which `join` reads in place of
    /// `counters` (S7): every sleeper is counted in every worker's word.
    pub(crate) attention: Attention,
}

impl Sleep {
    /// The protocol for `slots` threads, of which the first `workers`
    /// are the pool's workers, members from the start; the others are
    /// spare threads' slots, members while a spare holds them (W2).
    pub(crate) fn new(slots: usize, workers: usize) -> Self {
        let expedited = crate::sync::barriers_expedited();
        Sleep {
            counters: AtomicUsize::new(0),
            expedited,
            asleep: Mutex::new(Locked {
                asleep: vec![false; slots],
                parked: vec![false; slots],
                blocked: 0,
                active: 0,
            }),
            workers,
            wakers: (0..slots).map(|_| Condvar::new()).collect(),
            max_searching: workers.div_ceil(2),
            members: AtomicUsize::new(workers),
            // S7: the words need a light barrier that pairs with the
            // sleepers' heavy one; under the model checkers both are
            // `fence(SeqCst)` (M1), so they check the words' protocol.
            attention: Attention::new(
                slots,
                workers,
                expedited || cfg!(any(feature = "loom", feature = "shuttle")),
            ),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Locked> {
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
        barrier_known(PRODUCER_FENCE, self.expedited);
        // S4: relaxed; S3 makes it recent enough.
        let counters = self.counters.load(RELAXED);
        if wake_needed(counters) {
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
        // S7: the sleep is over.
        self.attention.sleeper_out();
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

    /// Wakes worker `index` if it is asleep or parked (its latch was just
    /// set).
    pub(crate) fn wake_specific(&self, index: usize) {
        let mut locked = self.lock();
        if locked[index] {
            self.wake_locked(&mut locked, index);
        } else if locked.parked[index] {
            // H6: not counted anywhere; only its own condition changes.
            locked.parked[index] = false;
            self.wakers[index].notify_one();
        }
    }

    /// H6, H7: the thread of slot `index` waits for `latch` alone, with
    /// no look for work: it is not counted as sleeping, so no push wakes it
    /// for work it would not take, and only the latch's setter
    /// (`wake_specific`) ends the wait. As in `sleep` (S6), the latch is
    /// told under the lock, so the setter's wake-up cannot come before the
    /// wait.
    pub(crate) fn park(&self, index: usize, latch: &CoreLatch) {
        // `--cfg stealpool_bug="park_unannounced"`: the latch is checked
        // but not told, so its setter, seeing no `SLEEPING`, wakes nobody
        // (the handshake S6 and H6 rule out).
        if cfg!(stealpool_bug = "park_unannounced") {
            let mut locked = self.lock();
            if latch.probe() {
                return;
            }
            locked.parked[index] = true;
            while locked.parked[index] {
                locked = self.wakers[index].wait(locked).unwrap_or_else(|e| e.into_inner());
            }
            return;
        }
        let mut locked = self.lock();
        if !latch.fall_asleep() {
            return;
        }
        locked.parked[index] = true;
        while locked.parked[index] {
            locked = self.wakers[index].wait(locked).unwrap_or_else(|e| e.into_inner());
        }
        latch.wake_up();
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
        // S7: and in every slot's attention word, also before S2, so that
        // a `join` that reads only its word cannot miss this sleeper.
        self.attention.sleeper_in();
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
        // W2: a worker leaves at shutdown; a spare leaves when more spares
        // hold slots than threads block, shutdown or not (it parks, W4),
        // and otherwise sleeps, even at shutdown: a blocked thread may
        // still push work, or be about to. It is woken by that work or by
        // the blocked thread's return (`unblock`).
        // `--cfg stealpool_bug="spare_leaves_at_shutdown"` lets a needed
        // spare leave with the workers: a thread still blocked is then
        // alone with the work it waits for (the mistake W2 rules out).
        // A worker stays, too, while a thread blocks or a spare holds a
        // slot: a spare may still queue work on its own deque and block on
        // it with no slot left for another spare, and then only a worker
        // can run that work. The last of those to go wakes the workers
        // (`release_workers`). `--cfg stealpool_bug="workers_leave_while_blocking"`
        // lets the workers leave anyway (a first version's mistake).
        let leave = if index < self.workers {
            terminating() && (asleep.quiet() || cfg!(stealpool_bug = "workers_leave_while_blocking"))
        } else {
            asleep.active > asleep.blocked
                || (cfg!(stealpool_bug = "spare_leaves_at_shutdown") && terminating())
        };
        if latch.is_none() && leave {
            asleep[index] = false;
            // S1: leave the pool: no longer sleeping, not searching.
            self.counters.fetch_sub(ONE_SLEEPING, COUNTERS_RMW);
            // S7: nor in the attention words.
            self.attention.sleeper_out();
            // X2: relaxed, under the lock, after this worker's last check.
            self.members.fetch_sub(1, RELAXED);
            if index >= self.workers {
                asleep.active -= 1;
                self.release_workers(&mut asleep, terminating());
            }
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

    /// W1, W2: a thread of the pool enters `block_in_place`. Returns
    /// whether a spare is to come in: fewer spares hold a slot than threads
    /// block, fewer than `slots`, and a member remains (the caller is
    /// one). The spare is then counted active and a member before it
    /// runs, so the last member to leave cannot miss what it pushes.
    pub(crate) fn block(&self, slots: usize) -> Compensation {
        let mut locked = self.lock();
        locked.blocked += 1;
        // `--cfg stealpool_bug="no_spare"`: no spare ever comes in (the
        // compensation W1 provides).
        if cfg!(stealpool_bug = "no_spare") || !locked.spare_needed() {
            return Compensation::Enough;
        }
        // W2: relaxed; only changed under this lock.
        if locked.active == slots || self.members.load(RELAXED) == 0 {
            return Compensation::NoSlot;
        }
        self.members.fetch_add(1, RELAXED);
        locked.active += 1;
        Compensation::Spare
    }

    /// W1: the spare `block` brought in could not start (no thread to
    /// start): undoes its counts.
    pub(crate) fn spare_failed(&self, terminating: impl Fn() -> bool) {
        let mut locked = self.lock();
        locked.active -= 1;
        // W2: relaxed; only changed under this lock.
        self.members.fetch_sub(1, RELAXED);
        self.release_workers(&mut locked, terminating());
    }

    /// W2: at shutdown, once no thread blocks and no spare holds a slot,
    /// wakes the workers that stayed asleep for them, so that they leave.
    /// `terminating` is read under the lock that `terminate`'s `wake_all`
    /// takes after setting it (X1): if it reads false here, that wake-up
    /// comes later and finds the counts as they are now.
    fn release_workers(&self, locked: &mut Locked, terminating: bool) {
        if terminating && locked.quiet() {
            for index in 0..self.workers {
                if locked[index] {
                    self.wake_locked(locked, index);
                }
            }
        }
    }

    /// W1: a thread leaves `block_in_place`. A spare asleep that is no
    /// longer needed is woken, so that at shutdown it can leave (W2).
    pub(crate) fn unblock(&self, terminating: impl Fn() -> bool) {
        let mut locked = self.lock();
        locked.blocked -= 1;
        self.release_workers(&mut locked, terminating());
        if locked.active > locked.blocked {
            let spare = (self.workers..locked.len()).find(|&index| locked[index]);
            if let Some(index) = spare {
                self.wake_locked(&mut locked, index);
            }
        }
    }

    /// W3: a spare at a job boundary, with its deques empty, gives its slot
    /// back if more spares hold slots than threads block, unless it is the
    /// last member (then it stays, and leaves as a worker does, after a
    /// last look for work under this lock, X2). Returns whether it did.
    pub(crate) fn retire_spare(&self, terminating: impl Fn() -> bool) -> bool {
        let mut locked = self.lock();
        // W2: relaxed; only changed under this lock.
        if locked.active <= locked.blocked || self.members.load(RELAXED) == 1 {
            return false;
        }
        self.members.fetch_sub(1, RELAXED);
        locked.active -= 1;
        self.release_workers(&mut locked, terminating());
        true
    }

    /// Undoes a registration: sleeping -> searching.
    fn cancel_locked(&self, asleep: &mut [bool], index: usize) {
        asleep[index] = false;
        // S1: relaxed RMW.
        self.counters
            .fetch_add(ONE_SEARCHING.wrapping_sub(ONE_SLEEPING), COUNTERS_RMW);
        // S7: the sleep is over.
        self.attention.sleeper_out();
    }
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
