//! The stall detector: a wait of the pool that can never return is let
//! go with an error instead of parking forever, when it can end without
//! its result (Z1-Z9 in `proofs/waits.md`).
//!
//! A worker about to park in a `JoinHandle::join` (on a task of its own
//! pool or of another), in an `install` on another pool (Z6), or in a
//! `join` or `scope` waiting for work of its own pool (Z7), first writes
//! a *record* into the table its pool shares with every other: its pool,
//! its runner id, the work it awaits (its pool, its claim; a continuation
//! whose inputs are missing, its state; for Z7, any thread of the pool)
//! and how to tell it has been let go (its latch, its mailbox).
//! Under the table's lock it then computes the *blocked* records (Z2):
//! the largest set of waits, none let go yet, each depending on a task
//! (the awaited one, or an input a continuation still waits for) that
//! runs beneath another wait of the set (its claim names that wait's
//! thread) or that nobody has claimed while every thread of its pool
//! waits in the set. Nothing can end such a wait: the threads
//! that could are all parked in the set, and no other thread runs the
//! tasks of their pools. The wait that finds itself blocked does not park
//! and returns [`Stall`]; `join` panics with its message. A blocked set
//! forms only as a wait parks, and holds that wait (Z4), but for one
//! closed by a continuation's last input arriving. On real threads a
//! parked wait also looks again every `RECHECK`: at a still table, it
//! computes the set exactly, which finds that one (Z8); and it counts
//! threads asleep for want of work as unable to hand a lender a task, so
//! a set closed by such a thread going to sleep is reported too, once
//! seen three looks in a row with its pools' records untouched (Z5).
//!
//! Only a wait that may leave reports (Z6): a join, or an `install`
//! whose job nobody started (it withdraws the job). One that may not (its
//! work borrows its frame) parks on, and asks the members that may leave
//! to look again. A set with none is ended by a member that runs work
//! queued on its pool on top of its wait (Z9), or, with none queued,
//! printed.
//!
//! Nothing on the hot path takes part: a latch's setter never looks at
//! the table. A record whose latch is set, or whose mailbox holds a job,
//! is released, and the table's lock orders that look after the setter's
//! store (Z3). Waits the detector does not see (`wait_all`, a channel, a
//! lock) leave their thread unrecorded: it reports only what it can
//! prove, and such a program may still hang.

use super::latch::{CoreLatch, CrossPoolLatch, LockLatch};
use super::registry::Registry;
use super::serving::{Lineage, ReadState, TaskRef};
use super::worker::WorkerThread;
use crate::sync::flags::bug;
use crate::sync::{Mutex, MutexGuard};
use std::collections::HashSet;
use std::fmt;
use std::panic::Location;
use std::ptr;
use std::time::{Duration, Instant};
// A `std` `Arc` in every build: the table is shared by reference count
// alone, which no checker needs to see (under loom the thread-local one
// is dropped with its thread's locals, where a modelled count would be
// one more step after the model's end).
use std::sync::Arc;

/// The table of parked waits that pools share: the process's, or under
/// the model checkers, one per thread that builds pools (like the global
/// pool's, N1).
pub(crate) struct StallDomain {
    table: Mutex<Table>,
    /// Y7: held by each search up the chains of waiters for its whole
    /// walk (`serving::waiter_in`), and taken once by a wait that leaves
    /// without its result, after it unregistered: no search still reads
    /// the frames of a wait once they go.
    searches: crate::sync::Mutex<()>,
    /// Y5: the number the next task made gets. A `std` atomic in every
    /// build: it orders the making of tasks and synchronizes nothing (a
    /// task made after another's handle reached its maker gets a larger
    /// number by the RMW's coherence alone), so no checker needs to see it.
    next_seq: std::sync::atomic::AtomicU64,
}

// SAFETY: the raw pointers of the records are read only under the table's
// lock, while their waits (which remove them before they return) are parked.
unsafe impl Send for StallDomain {}
// SAFETY: as above.
unsafe impl Sync for StallDomain {}

#[derive(Default)]
struct Table {
    records: Vec<Record>,
    next_id: u64,
    /// Counts every record added or removed (Z5): a re-check that finds
    /// the same count found the same waits.
    changes: u64,
    /// Z6: a wait that cannot unwind found a blocked set with a member
    /// that can: the members that can compute the set at their next
    /// re-check, and the first that finds itself in it reports it.
    due: bool,
    /// Z6: the records (their ids) of the blocked set with no member that
    /// can unwind that was printed last: the same set is printed once, not
    /// by each of its waits, nor again at each look of a wait outside it
    /// (Z4).
    printed: Vec<u64>,
    /// Z8: when a re-check last computed the set exactly.
    exact_at: Option<Instant>,
    /// Z9: a blocked set with no member that can unwind was found while
    /// a member's pool holds queued work: the members whose pool does
    /// compute the set at their next re-check, and the first that finds
    /// itself in it runs that work on top of its wait.
    escape_due: bool,
    /// Z5: the set the last counted look found, and at how many looks in
    /// a row it was found so: it is acted on at `COUNTED_LOOKS`.
    counted: Option<(CountedSet, u32)>,
    /// Z5: when the next counted look may be made.
    counted_next: Option<Instant>,
}

/// Z5: a set a counted look found: its records (their ids, in the
/// table's order) and, for each pool its waits are in or lend themselves
/// to, that pool's stamp (the table's count of changes when a record of
/// its threads was last written or removed).
#[derive(PartialEq)]
struct CountedSet {
    ids: Vec<u64>,
    stamps: Vec<(*const Registry, u64)>,
}

impl Table {
    /// Z1: writes a record; Z5: stamps its pool.
    fn add(&mut self, record: Record) {
        self.changes += 1;
        record.stamp_pool(self.changes);
        self.records.push(record);
    }

    /// Removes the record at `at`; Z5: stamps its pool.
    fn remove(&mut self, at: usize) {
        let record = self.records.swap_remove(at);
        self.changes += 1;
        record.stamp_pool(self.changes);
    }

    /// Z5: the set `blocked` as a counted look keeps it.
    fn counted_set(&self, blocked: &[bool]) -> CountedSet {
        let mut stamps: Vec<(*const Registry, u64)> = Vec::new();
        let members = self.records.iter().zip(blocked).filter(|&(_, &is)| is);
        for (record, _) in members.clone() {
            for pool in [record.pool, record.awaited.lent_to] {
                if !pool.is_null() && !stamps.iter().any(|&(known, _)| ptr::eq(known, pool)) {
                    // SAFETY: a record's pool is held by its waiting thread;
                    // the pool it lends itself to, by its handle.
                    stamps.push((pool, unsafe { &*pool }.stall_stamp.get()));
                }
            }
        }
        CountedSet {
            ids: members.map(|(record, _)| record.id).collect(),
            stamps,
        }
    }

    /// Z5, Z6: how a member the set was handed to computes it: counting
    /// sleepers while the set that counted looks found `COUNTED_LOOKS`
    /// times stands as it was (its records there, its pools' records
    /// untouched), as those looks did.
    fn handed_idle(&self) -> Idle {
        let Some((counted, looks)) = &self.counted else {
            return Idle::Ignored;
        };
        if *looks < COUNTED_LOOKS {
            return Idle::Ignored;
        }
        let still = counted
            .ids
            .iter()
            .all(|id| self.records.iter().any(|record| record.id == *id))
            // SAFETY: each pool is one of the set's records' (checked
            // present just above), held as in `counted_set`.
            && counted
                .stamps
                .iter()
                .all(|&(pool, stamp)| unsafe { &*pool }.stall_stamp.get() == stamp);
        if still {
            Idle::Counted
        } else {
            Idle::Ignored
        }
    }
}

/// Z5: a pool's stamp: the table's count of changes when a record of its
/// threads was last written or removed. Read and written under the
/// table's lock only: a `std` atomic for `Sync`, which orders nothing a
/// checker needs to see.
#[derive(Default)]
pub(crate) struct PoolStamp(std::sync::atomic::AtomicU64);

impl PoolStamp {
    fn get(&self) -> u64 {
        // Z5: relaxed; the table's lock orders every access.
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn set(&self, changes: u64) {
        // Z5: relaxed; the table's lock orders every access.
        self.0.store(changes, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The task a parked wait awaits, as the detector reads it (Z1).
#[derive(Clone)]
pub(crate) struct Awaited {
    /// The task's pool, whose threads alone can run it once it is ready.
    /// The waiter's handle keeps it alive.
    pub(crate) pool: *const Registry,
    /// The task's claim (H3), read by `runner_of`: 0 while nobody claimed
    /// it, 1 for a thread outside every pool, else the runner id of the
    /// thread that runs it.
    pub(crate) claim: *const (),
    pub(crate) runner_of: unsafe fn(*const ()) -> usize,
    /// Y5: the task's place in the order tasks were made.
    pub(crate) lineage: Lineage,
    /// A continuation whose inputs were missing when the wait was
    /// recorded: its job and how to read its state (H8's input
    /// references), which Z2 follows to the tasks it waits on.
    pub(crate) pending: Option<(*const (), ReadState)>,
    /// Y4: the pool the waiter lends itself to while it waits, null if
    /// none: that pool's threads may hand it work.
    pub(crate) lent_to: *const Registry,
    /// Y5: while the waiter lends itself, the numbers of the tasks on its
    /// stack beneath the wait: it is handed only tasks that wait for none.
    pub(crate) lender_frames: Vec<u64>,
    /// Where the task was made (`submit`, `then`, ...): its name in the
    /// report.
    pub(crate) origin: &'static Location<'static>,
    /// Where the waiter called `JoinHandle::join` (or `install`).
    pub(crate) joined_at: &'static Location<'static>,
    /// Which call waits: whether it can end without its result (Z6).
    pub(crate) kind: WaitKind,
}

/// The call a recorded wait is in (Z6).
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum WaitKind {
    /// `JoinHandle::join`: a wait that can never end panics with the
    /// report, its task left to whoever runs it.
    Join,
    /// `ThreadPool::install` (and the `join` or `scope` it runs) on a
    /// worker of another pool: its job borrows the waiter's frame, so the
    /// wait may leave only while nobody has started the job, which it then
    /// withdraws; once the job runs, a blocked set is reported by a member
    /// that may leave, or printed when the set has none (Z6).
    Install,
    /// A `join` on a worker waiting for its half another thread of its
    /// pool took (H6): it borrows the frame too (Z7).
    Half,
    /// A `scope` on a worker waiting for its tasks (H7): likewise (Z7).
    Scope,
}

/// Z7: the runner of a leaf that runs on, or is queued for, some thread
/// of its pool, which one not known: a stolen `join` half, a scope's
/// tasks. Not a thread's runner id (those are addresses of live objects,
/// never this).
pub(crate) const ANY_THREAD: usize = usize::MAX;

impl WaitKind {
    fn call(self) -> &'static str {
        match self {
            WaitKind::Join => "JoinHandle::join",
            WaitKind::Install => "ThreadPool::install",
            WaitKind::Half => "join (waiting for its stolen half)",
            WaitKind::Scope => "scope (waiting for its tasks)",
        }
    }

    fn awaited(self) -> &'static str {
        match self {
            WaitKind::Join => "the task made at",
            WaitKind::Install => "its job, sent at",
            WaitKind::Half | WaitKind::Scope => "",
        }
    }

    /// Whether the report can name where the wait was called: not for
    /// the waits inside `join` and `scope` (Z7).
    fn located(self) -> bool {
        matches!(self, WaitKind::Join | WaitKind::Install)
    }
}

/// A wait parked, or about to park (Z1).
struct Record {
    id: u64,
    /// The waiting thread's pool; alive while the thread waits.
    pool: *const Registry,
    /// The waiting thread's runner id (H3's claim word).
    runner: usize,
    /// Z9: whether the waiting thread may still run work on top of its
    /// waits (H4's budget is not spent).
    may_escape: bool,
    awaited: Awaited,
    released: Released,
}

/// How to tell a parked wait has been let go (Z3).
#[derive(Clone, Copy)]
pub(crate) enum Released {
    /// A wait on a `LockLatch` of the waiter's frame.
    Lock(*const LockLatch),
    /// A cross-pool wait: its latch, and the mailbox of the waiter's slot
    /// (Y1, Y4 hand it work there).
    Mail(*const CrossPoolLatch, usize),
    /// A `join` half's or a scope's wait (Z7): its latch, and the
    /// mailbox of the waiter's slot (U2: it runs what is posted to it).
    Core(*const CoreLatch, usize),
}

impl Record {
    /// Z3: whether the wait has been let go; once true, true until the
    /// record goes. Read under the table's lock.
    fn is_released(&self) -> bool {
        // SAFETY: the latch lives in the frame of the wait, which removes
        // this record (under the lock we hold) before it returns; the
        // pool's registry is held by the waiting thread.
        unsafe {
            match self.released {
                Released::Lock(latch) => (*latch).is_set(),
                Released::Mail(latch, slot) => (*latch).core.probe() || (*self.pool).mailboxes.has_mail(slot),
                Released::Core(latch, slot) => (*latch).probe() || (*self.pool).mailboxes.has_mail(slot),
            }
        }
    }

    /// Z5: marks the waiting thread's pool as changed at `changes` (the
    /// table's count): under the table's lock.
    fn stamp_pool(&self, changes: u64) {
        // SAFETY: the pool's registry is held by the waiting thread, which
        // writes and removes its record.
        unsafe { &*self.pool }.stall_stamp.set(changes);
    }

    /// Z5: the newest stamp of the wait's own pools: its thread's, its
    /// task's, and the one it lends itself to. Under the table's lock.
    fn pools_stamp(&self) -> u64 {
        [self.pool, self.awaited.pool, self.awaited.lent_to]
            .into_iter()
            .filter(|pool| !pool.is_null())
            // SAFETY: the thread's pool is held by the waiting thread; the
            // task's and the lent-to pool, by the waiter's handle (or its
            // `install`'s frame).
            .map(|pool| unsafe { &*pool }.stall_stamp.get())
            .max()
            .unwrap_or(0)
    }

    /// Z6: whether the wait may end without its result: a handle's join;
    /// an `install` whose job nobody started (it withdraws the job).
    fn may_leave(&self) -> bool {
        match self.awaited.kind {
            WaitKind::Join => true,
            WaitKind::Install => self.awaited_runner() == 0,
            WaitKind::Half | WaitKind::Scope => false,
        }
    }

    /// Z9: whether the waiting thread can end a blocked set by running
    /// queued work of its pool on top of its wait: the wait may not leave
    /// (one that may reports the set instead), the thread may run work in
    /// place (H4's budget), and its pool has some queued.
    fn can_escape(&self) -> bool {
        !self.may_leave()
            && self.may_escape
            && !bug!("stall_escape_off")
            // SAFETY: the pool's registry is held by the waiting thread.
            && unsafe { &*self.pool }.has_work()
    }

    /// The runner id of the thread that claimed the awaited task: 0 if
    /// nobody did.
    fn awaited_runner(&self) -> usize {
        // SAFETY: the waiter's handle keeps the task, and its claim.
        unsafe { (self.awaited.runner_of)(self.awaited.claim) }
    }

    /// Z2: the unfinished tasks that can run (or run) on which the wait's
    /// end depends: the awaited task itself, once it is ready; while it
    /// is a continuation whose inputs are missing, the tasks it waits on,
    /// through continuations of continuations. Each must end for the
    /// wait to; one stuck is enough to block it. The references the walk
    /// takes are moved to `walked`, to be dropped after the table's lock
    /// (the last of one may run a user's `Drop`).
    fn leaves(&self, walked: &mut Vec<TaskRef>) -> Vec<Leaf> {
        // `--cfg stealpool_bug="stall_inputs_ignored"` never follows a
        // continuation's inputs: a wait on one whose inputs are missing is
        // never blocked (the detector before Z2 followed them).
        if bug!("stall_inputs_ignored") && self.awaited.pending.is_some() {
            return Vec::new();
        }
        let Some((job, state)) = self.awaited.pending else {
            return vec![Leaf {
                pool: self.awaited.pool,
                runner: self.awaited_runner(),
                lineage: self.awaited.lineage,
                origin: self.awaited.origin,
                input: false,
            }];
        };
        let mut leaves = Vec::new();
        let mut seen = HashSet::from([job]);
        // SAFETY: the waiter's handle keeps the job; the function is its own.
        let mut to_visit = vec![(
            self.awaited.pool,
            unsafe { state(job) },
            self.awaited.lineage,
            false,
        )];
        while let Some((pool, state, lineage, input)) = to_visit.pop() {
            if state.finished {
            } else if state.ready {
                leaves.push(Leaf {
                    pool,
                    runner: state.runner,
                    lineage,
                    origin: state.origin,
                    input,
                });
            } else {
                for task in &state.inputs {
                    if seen.insert(task.job()) {
                        to_visit.push((task.registry(), task.state(), task.lineage(), true));
                    }
                }
            }
            walked.extend(state.inputs);
        }
        leaves
    }
}

/// Z2: a task a wait's end depends on: ready to run, not finished.
#[derive(Clone, Copy)]
struct Leaf {
    pool: *const Registry,
    /// Its claim's runner id; 0 while nobody claimed it.
    runner: usize,
    /// Y5: its place in the order tasks were made, which decides which
    /// lenders may be handed it.
    lineage: Lineage,
    origin: &'static Location<'static>,
    /// Reached through a continuation's inputs, not the awaited task.
    input: bool,
}

/// The error of a wait that can never end, with what the detector saw.
pub(crate) struct Stall {
    /// The reported wait's call.
    kind: WaitKind,
    /// Each pool with a blocked wait: its workers, its spare slots, and
    /// the pools its blocked threads wait on (by their number here).
    pools: Vec<PoolReport>,
    /// The number, in `pools`, of the reported wait's pool.
    own: usize,
    /// The blocked waits, the reported one first, at most
    /// `NAMED_WAITS` of them, and how many more there are.
    waits: Vec<WaitReport>,
    more_waits: usize,
}

/// How many of a blocked set's waits a report names.
const NAMED_WAITS: usize = 8;

/// One blocked wait, by the places in the program that name it.
struct WaitReport {
    kind: WaitKind,
    joined_at: &'static Location<'static>,
    pool: usize,
    origin: &'static Location<'static>,
    /// The awaited task's pool, by its number in the report, if it is one
    /// of the blocked set's.
    task_pool: Option<usize>,
    /// The input (of a continuation) that cannot end, if that is what
    /// blocks the wait: where it was made.
    through: Option<&'static Location<'static>>,
    /// Where the thread that runs the awaited task waits, beneath which it
    /// runs; `None` if nobody started it.
    beneath: Option<(WaitKind, &'static Location<'static>)>,
}

struct PoolReport {
    workers: usize,
    spare_slots: usize,
    members: usize,
    blocked: usize,
    awaits: Vec<usize>,
}

impl fmt::Display for Stall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stealpool: {} can never return (a stall): the work it waits for runs beneath, or \
             is queued behind, waits (JoinHandle::join, install, join, scope) that all wait on \
             one another, and every thread that could run it is parked in one (a cycle of \
             handles across threads, or more waits at once than \
             Builder::max_blocking_threads lets spare threads stand in for).",
            self.kind.call()
        )?;
        for (number, pool) in self.pools.iter().enumerate() {
            let this = if number == self.own { " (this wait's)" } else { "" };
            let awaits: Vec<String> = pool.awaits.iter().map(|n| format!("pool {n}")).collect();
            write!(
                f,
                " Pool {number}{this}: workers {}, spare slots {} (max_blocking_threads), \
                 threads running {}, of which {} wait here on tasks of {}.",
                pool.workers,
                pool.spare_slots,
                pool.members,
                pool.blocked,
                awaits.join(" and "),
            )?;
        }
        write!(f, " The waits:")?;
        for wait in &self.waits {
            if !wait.kind.located() {
                write!(
                    f,
                    " a {} (on a thread of pool {}) waits for work that only that pool's threads \
                     run, all parked here;",
                    wait.kind.call(),
                    wait.pool
                )?;
                continue;
            }
            write!(
                f,
                " the {} at {} (on a thread of pool {}) waits for {} {}",
                wait.kind.call(),
                wait.joined_at,
                wait.pool,
                wait.kind.awaited(),
                wait.origin
            )?;
            if let Some(input) = wait.through {
                write!(f, ", whose input made at {input}")?;
            }
            if let Some(pool) = wait.task_pool {
                write!(f, " (pool {pool})")?;
            }
            match wait.beneath {
                Some((kind, at)) if kind.located() => {
                    write!(f, ", which runs beneath the {} at {at};", kind.call())?
                }
                Some((kind, _)) => write!(f, ", which runs beneath a {};", kind.call())?,
                None => write!(f, ", which nobody has started;")?,
            }
        }
        if self.more_waits > 0 {
            write!(f, " and {} more.", self.more_waits)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Stall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl StallDomain {
    fn new() -> Self {
        StallDomain {
            table: Mutex::new(Table::default()),
            searches: crate::sync::Mutex::new(()),
            next_seq: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Y5: the number of a task being made: larger than that of every
    /// task whose making happens before this call.
    pub(crate) fn next_seq(&self) -> u64 {
        // Y5: relaxed; coherence of the one RMW location is the order.
        self.next_seq.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// Y7: held for a search's whole walk up the chains of waiters.
    pub(crate) fn searching(&self) -> crate::sync::MutexGuard<'_, ()> {
        // Nothing panics while holding this lock; recover anyway.
        self.searches.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Y7: for a wait that leaves without its result (a report), once it
    /// is unregistered from what it waited for: returns once no search
    /// that may have reached it before is still walking.
    pub(crate) fn wait_out_searches(&self) {
        drop(self.searching());
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // Nothing panics while holding this lock; recover anyway.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The table a new pool joins.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
pub(crate) fn domain() -> Arc<StallDomain> {
    static DOMAIN: std::sync::OnceLock<Arc<StallDomain>> = std::sync::OnceLock::new();
    Arc::clone(DOMAIN.get_or_init(|| Arc::new(StallDomain::new())))
}

/// The table a new pool joins: the building thread's, per execution.
#[cfg(any(feature = "loom", feature = "shuttle"))]
pub(crate) fn domain() -> Arc<StallDomain> {
    crate::sync::thread_local! {
        static DOMAIN: std::cell::OnceCell<Arc<StallDomain>> = std::cell::OnceCell::new();
    }
    DOMAIN.with(|domain| Arc::clone(domain.get_or_init(|| Arc::new(StallDomain::new()))))
}

/// A recorded wait (Z1); dropping it removes the record, after the park
/// (on every way out).
pub(crate) struct Parked<'a> {
    domain: &'a StallDomain,
    id: u64,
    /// The references the look took (Z2), dropped once the record is gone
    /// and the table's lock released: the last of one may run a user's
    /// `Drop`, which may join again (and record a wait of its own).
    _walked: Vec<TaskRef>,
    /// Z8: the table's count of changes at the last look, and since when
    /// the looks have seen that count.
    seen: (u64, Instant),
    /// Z5: the newest stamp of this wait's own pools at the last look,
    /// and since when the looks have seen it.
    own_pools_seen: (u64, Instant),
    /// Z9: the wait found a blocked set it may end by running queued
    /// work: it must not park.
    escape: bool,
}

/// What a parked wait does after a re-check (Z5, Z9).
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Next {
    /// Parks on.
    Park,
    /// Z9: stops parking, and runs queued work of its pool on top of its
    /// wait: every thread that could is parked in a blocked set.
    Escape,
}

impl Drop for Parked<'_> {
    fn drop(&mut self) {
        let mut table = self.domain.lock();
        if let Some(at) = table.records.iter().position(|record| record.id == self.id) {
            table.remove(at);
        }
        // The references go after this body, with the lock released.
    }
}

/// Z1: `worker`, waiting for `awaited` and let go through `released`
/// (not released yet, as far as it looked), is about to park. Records the
/// wait, then (Z2) computes the blocked waits: `Err` if this one is among
/// them, and it must not park. Z4: a blocked set forms as a wait parks,
/// with that wait in it, or with no wait parking (Z8); a set found
/// without this wait in it is handed over to its members (Z6, Z9).
pub(crate) fn park<'a>(
    worker: &'a WorkerThread,
    awaited: Awaited,
    released: Released,
) -> Result<Parked<'a>, Stall> {
    let domain = &*worker.registry().stalls;
    // Declared before the lock's guard, so dropped after it when the wait
    // does not park (its record is gone by then); moved into the `Parked`
    // otherwise.
    let mut walked = Vec::new();
    let mut table = domain.lock();
    let id = table.next_id;
    table.next_id += 1;
    table.add(Record {
        id,
        pool: worker.registry(),
        runner: worker.runner_id(),
        may_escape: worker.may_wait_in_place(),
        awaited,
        released,
    });
    // Made once the lock is no longer needed for a removal: its drop
    // takes the lock.
    let parked = |walked, seen: (u64, Instant), escape| Parked {
        domain,
        id,
        _walked: walked,
        seen,
        own_pools_seen: seen,
        escape,
    };
    if bug!("stall_unchecked") {
        return Ok(parked(walked, (table.changes, Instant::now()), false));
    }
    let (blocked, stuck) = blocked_set(&table.records, &mut walked, Idle::Ignored);
    let own = table.records.len() - 1;
    let mut handed = HandOver::Quiet;
    if blocked[own] {
        if table.records[own].may_leave() {
            let stall = report(&table.records, &blocked, &stuck, own);
            table.remove(own);
            return Err(stall);
        }
        handed = hand_over(&mut table, &blocked, &stuck, own, Some(own));
    } else if let Some(member) = blocked.iter().position(|&is| is) {
        // Z4: a set this wait is not in, formed with no wait parking (a
        // continuation's last input arriving, Z8): handed over to its
        // members as a re-check of a still table would, which waits
        // coming and going elsewhere in the process keep from ever
        // looking. `--cfg stealpool_bug="others_sets_ignored"` leaves it
        // to that look.
        if !bug!("others_sets_ignored") {
            handed = hand_over(&mut table, &blocked, &stuck, member, None);
        }
    }
    let parked = parked(
        walked,
        (table.changes, Instant::now()),
        handed == HandOver::Escape,
    );
    drop(table);
    if let HandOver::Print(message) = handed {
        eprintln!("{message}");
    }
    Ok(parked)
}

/// Z8: how often a still table is computed exactly by a re-check, at
/// most.
const EXACT_PERIOD: Duration = Duration::from_millis(100);

/// Z8: how long the table must not change before a re-check computes it
/// exactly.
const STILL_FOR: Duration = Duration::from_millis(200);

/// Z5: how often a counted look is made in the whole table, at most; a
/// set it finds is acted on when the next finds it again.
const COUNTED_PERIOD: Duration = Duration::from_millis(200);

/// Z5: how many counted looks in a row, a period apart, must find a set
/// with its pools' records untouched before it is acted on: they then
/// stood still for two periods at least, as long as the whole table had
/// to when the look was made only at a still table (a still period, then
/// two looks a period apart).
const COUNTED_LOOKS: u32 = 3;

/// Z5: a counted look that took `t` is followed by none for `t` times
/// this: computing the set takes at most about a tenth of one thread.
const COUNTED_COST_SHARE: u32 = 10;

/// Z5: how long a recorded wait parks before it looks at the table
/// again; none under the model checkers, whose waits park until woken
/// (they check Z4, the report as the set forms).
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
pub(crate) const RECHECK: Option<std::time::Duration> = Some(std::time::Duration::from_millis(200));
/// Z5: none under the model checkers.
#[cfg(any(feature = "loom", feature = "shuttle"))]
pub(crate) const RECHECK: Option<std::time::Duration> = None;

impl Parked<'_> {
    /// Z5: a wait that stayed parked for `RECHECK` looks again, its record
    /// kept: at a still table, exactly (Z8); and, paced for the whole
    /// table, counting a thread asleep with nothing to do as unable to
    /// hand a lender work or run a scope's: a set can be closed by such a
    /// thread going to sleep rather than by a wait parking (the last
    /// running thread of the pool the lenders serve), which Z4 does not
    /// see. Asleep is a moment's state, so such a set is acted on only
    /// once found at `COUNTED_LOOKS` looks in a row, a period apart, with
    /// no record of its pools written or removed between them: `Err` if
    /// this wait is in it and may leave, with the record removed, and the
    /// wait ends without its result; otherwise the set is handed over
    /// (Z6, Z9): `Next::Escape` if this wait runs queued work itself.
    pub(crate) fn recheck(&mut self) -> Result<Next, Stall> {
        // Declared before the guard: dropped after it (as in `park`).
        let mut walked = Vec::new();
        let mut table = self.domain.lock();
        let Some(own) = table.records.iter().position(|record| record.id == self.id) else {
            return Ok(Next::Park);
        };
        // Z6: a wait that cannot unwind found a blocked set: a member that
        // can reports it, found blocked as Z4 finds one (exact under the
        // lock, so at once).
        if table.due && table.records[own].may_leave() {
            let idle = table.handed_idle();
            let (blocked, stuck) = blocked_set(&table.records, &mut walked, idle);
            if blocked[own] {
                let stall = report(&table.records, &blocked, &stuck, own);
                table.remove(own);
                table.due = false;
                return Err(stall);
            }
            if !blocked.contains(&true) {
                table.due = false;
            }
            return Ok(Next::Park);
        }
        // Z9: likewise, a set no member of which can unwind, found while
        // a member's pool holds queued work: a member whose pool does
        // runs it, found blocked as Z4 finds one.
        if table.escape_due && table.records[own].can_escape() {
            let idle = table.handed_idle();
            let (blocked, _) = blocked_set(&table.records, &mut walked, idle);
            if blocked[own] {
                table.escape_due = false;
                return Ok(Next::Escape);
            }
            if !blocked.contains(&true) {
                table.escape_due = false;
            }
            return Ok(Next::Park);
        }
        // Z8: a table that stood still for a whole period is computed
        // exactly, as Z4 computes it, by one wait per `EXACT_PERIOD` (a
        // moving one has waits parking, whose looks find what this would,
        // Z4): a set can form with no wait parking (a continuation's last
        // input arriving turns a wait's leaves into the continuation,
        // queued), and a set that a wait which may not leave found can
        // form again after a report (Z6). Readiness is not counted in
        // `changes`, so the look is paced by time, not by the count.
        let now = Instant::now();
        if self.seen.0 != table.changes {
            self.seen = (table.changes, now);
        }
        // Looks come more often than once a period when the park is woken
        // early: stillness is timed, not counted in looks.
        let still = now.duration_since(self.seen.1) >= STILL_FOR;
        // `--cfg stealpool_bug="exact_recheck_off"` never makes this look.
        let due_by_time = table
            .exact_at
            .is_none_or(|at| now.duration_since(at) >= EXACT_PERIOD);
        if still && due_by_time && !bug!("exact_recheck_off") {
            table.exact_at = Some(now);
            let (blocked, stuck) = blocked_set(&table.records, &mut walked, Idle::Ignored);
            if blocked[own] && table.records[own].may_leave() {
                let stall = report(&table.records, &blocked, &stuck, own);
                table.remove(own);
                return Err(stall);
            }
            let member = if blocked[own] {
                Some(own)
            } else {
                blocked.iter().position(|&is| is)
            };
            if let Some(member) = member {
                let finder = blocked[own].then_some(own);
                let handed = hand_over(&mut table, &blocked, &stuck, member, finder);
                drop(table);
                return Ok(handed.next());
            }
        }
        // Z5: the look is made by every wait, not only by one that may
        // leave: a set closed by a sleeper (the last running thread of a
        // pool whose scope waits for its tasks) may have no member that
        // may leave, and is then handed over as Z6 and Z9 say. Before,
        // such a set was never found (`--cfg
        // stealpool_bug="counted_look_leavers_only"`).
        if bug!("counted_look_leavers_only") && !table.records[own].may_leave() {
            return Ok(Next::Park);
        }
        // Z5: made while the rest of the table moves, too, once this
        // wait's own pools (its thread's, its task's, the one it lends
        // itself to) stood still for a period: a set only a sleeper closes
        // has a member whose pools all do (the sleeper's pool has no
        // thread outside the set that runs), and a pool that moves holds
        // the table's lock at each change, which a look computed over
        // thousands of records would hold up. `--cfg
        // stealpool_bug="counted_look_still_only"` looks only at a table
        // that stood still for a period, which waits coming and going
        // anywhere in the process postpone for ever.
        let own_stamp = table.records[own].pools_stamp();
        if self.own_pools_seen.0 != own_stamp {
            self.own_pools_seen = (own_stamp, now);
        }
        let own_pools_still = now.duration_since(self.own_pools_seen.1) >= STILL_FOR;
        if !own_pools_still || (bug!("counted_look_still_only") && !still) {
            return Ok(Next::Park);
        }
        // Z5: one counted look per `COUNTED_PERIOD` in the whole table, or
        // more seldom if the look is slow: the fixpoint is cubic in the
        // records, and a moving table of thousands (a long pipeline's)
        // must not spend its threads computing it.
        if table.counted_next.is_some_and(|next| now < next) {
            return Ok(Next::Park);
        }
        // Z5: the pools whose sleepers a counted look may change: those
        // waits lend themselves to, and (Z7) those whose `join` halves and
        // scopes wait for work any of their threads may run.
        let mut served: Vec<*const Registry> = Vec::new();
        for record in &table.records {
            let own_pool_wait = matches!(record.awaited.kind, WaitKind::Half | WaitKind::Scope);
            for pool in [
                record.awaited.lent_to,
                if own_pool_wait { record.pool } else { ptr::null() },
            ] {
                if !pool.is_null() && !served.iter().any(|&known| ptr::eq(known, pool)) {
                    served.push(pool);
                }
            }
        }
        // SAFETY: a pool a wait lends itself to is held by its handle; a
        // waiting thread's own pool, by that thread.
        if !served
            .iter()
            .any(|&pool| unsafe { &*pool }.sleep.asleep_exact() > 0)
        {
            table.counted = None;
            return Ok(Next::Park);
        }
        let (blocked, stuck) = blocked_set(&table.records, &mut walked, Idle::Counted);
        let took = now.elapsed();
        table.counted_next = Some(now + COUNTED_PERIOD.max(took * COUNTED_COST_SHARE));
        if !blocked.contains(&true) {
            table.counted = None;
            return Ok(Next::Park);
        }
        // Asleep is a moment's state: the set is acted on only once
        // `COUNTED_LOOKS` looks in a row, each a period after the last,
        // found it with its pools' records untouched.
        let found = table.counted_set(&blocked);
        let looks = match table.counted.take() {
            Some((known, looks)) if known == found => looks + 1,
            _ => 1,
        };
        table.counted = Some((found, looks));
        if looks < COUNTED_LOOKS {
            return Ok(Next::Park);
        }
        if blocked[own] && table.records[own].may_leave() {
            let stall = report(&table.records, &blocked, &stuck, own);
            table.remove(own);
            table.counted = None;
            return Err(stall);
        }
        // Z6, Z9: handed over as Z4 hands a set over; the members asked
        // to act count sleepers too while the set's pools stand still.
        let member = if blocked[own] {
            own
        } else {
            blocked.iter().position(|&is| is).expect("the set has a member")
        };
        let handed = hand_over(&mut table, &blocked, &stuck, member, blocked[own].then_some(own));
        drop(table);
        Ok(handed.next())
    }

    /// Z9: whether the wait, as it parked, found a blocked set it may end
    /// by running queued work of its pool: it then does not park.
    pub(crate) fn escapes(&self) -> bool {
        self.escape
    }
}

/// What the finder of a blocked set that it may not report does (Z6, Z9).
#[derive(PartialEq)]
enum HandOver {
    /// Nothing now: a member reports the set, or runs queued work, at its
    /// next re-check, or the set was printed already.
    Quiet,
    /// Z9: the finder, a member, runs queued work of its pool.
    Escape,
    /// The report, to print once the table's lock is released.
    Print(String),
}

impl HandOver {
    /// What the finder does: runs queued work (Z9), or prints the report
    /// (the table's lock released) and parks on.
    fn next(self) -> Next {
        match self {
            HandOver::Escape => Next::Escape,
            HandOver::Print(message) => {
                eprintln!("{message}");
                Next::Park
            }
            HandOver::Quiet => Next::Park,
        }
    }
}

/// Z6, Z9: the blocked set `blocked` (reported as seen from its wait
/// `reporting`) was found by a wait that may not leave (`finder`, if it is
/// a member), or, Z4 and Z8, by one outside it.
///
/// - If a member may leave, the members that may are asked to compute it
///   at their next re-check (Z6).
/// - Otherwise, if a member's pool holds queued work, the set is ended by
///   running it (Z9): by the finder if its pool does, else by the first
///   member whose pool does, at its next re-check.
/// - Otherwise the report is returned, unless the same table printed it
///   already, to be printed once the table's lock is released: the waits
///   park on, but not in silence.
fn hand_over(
    table: &mut Table,
    blocked: &[bool],
    stuck: &[Option<Leaf>],
    reporting: usize,
    finder: Option<usize>,
) -> HandOver {
    let member = |at: &usize| blocked[*at];
    let reporter = (0..blocked.len())
        .filter(member)
        .any(|at| table.records[at].may_leave());
    // `--cfg stealpool_bug="stall_due_ignored"` never asks the members
    // that may leave: the set is printed, and stays.
    if reporter && !bug!("stall_due_ignored") {
        table.due = true;
        return HandOver::Quiet;
    }
    // Z9: `--cfg stealpool_bug="stall_escape_off"` makes no member able
    // to (`can_escape`): the set is printed, and stays (before Z9).
    if finder.is_some_and(|at| table.records[at].can_escape()) {
        return HandOver::Escape;
    }
    if (0..blocked.len())
        .filter(member)
        .any(|at| table.records[at].can_escape())
    {
        table.escape_due = true;
        return HandOver::Quiet;
    }
    let members: Vec<u64> = (0..blocked.len())
        .filter(member)
        .map(|at| table.records[at].id)
        .collect();
    if table.printed == members {
        return HandOver::Quiet;
    }
    table.printed = members;
    // Formatted only here: a set handed over, or printed already, costs
    // the looks of waits outside it (Z4) no report.
    let stall = report(&table.records, blocked, stuck, reporting);
    HandOver::Print(format!(
        "{stall} No wait of the set can end without its result, and none can \
         run queued work of its pool on top of itself, so none panics: the \
         program stays stopped here."
    ))
}

/// Whether a computation counts the threads asleep with nothing to do
/// (Z5): only a re-check, repeated before it reports, does.
#[derive(Clone, Copy, PartialEq)]
enum Idle {
    Ignored,
    Counted,
}

/// Each pool's number of member threads, and of those asleep for want of
/// work if counted (Z5), read once per computation (Z2: under the
/// accounts lock; Z5: each slot's flag under its lock).
struct Members(Vec<(*const Registry, usize, usize)>);

impl Members {
    /// The pools of the records' waiters and of their lenders. A leaf's
    /// pool is not read: nothing may hold it (an input's job does not),
    /// and a pool with no record has no blocked member, so none is needed.
    fn read(records: &[Record], idle: Idle) -> Members {
        let mut members = Members(Vec::new());
        for record in records {
            for pool in [record.pool, record.awaited.lent_to] {
                if !pool.is_null() && !members.0.iter().any(|&(known, _, _)| ptr::eq(known, pool)) {
                    // SAFETY: a record's pool is held by its waiting
                    // thread; the pool it lends itself to, by its handle.
                    let sleep = &unsafe { &*pool }.sleep;
                    let asleep = if idle == Idle::Counted {
                        sleep.asleep_exact()
                    } else {
                        0
                    };
                    members.0.push((pool, sleep.members_exact(), asleep));
                }
            }
        }
        members
    }

    /// Where `pool` is in the list, if a record names it.
    fn position(&self, pool: *const Registry) -> Option<usize> {
        self.0.iter().position(|&(known, _, _)| ptr::eq(known, pool))
    }
}

/// Z2: the blocked records and the leaf that blocks each, from every
/// record's leaves (the references the walk takes go to `walked`).
fn blocked_set(records: &[Record], walked: &mut Vec<TaskRef>, idle: Idle) -> (Vec<bool>, Vec<Option<Leaf>>) {
    let leaves: Vec<Vec<Leaf>> = records.iter().map(|record| record.leaves(walked)).collect();
    blocked(records, &leaves, idle)
}

/// Z2: which records are *blocked*: the largest set of unreleased waits
/// such that each depends on a task (a leaf: the awaited task, or an
/// input a continuation waits on) that is
///
/// * claimed by a thread whose own wait is in the set (the task runs
///   beneath that wait), or
/// * claimed by nobody, while every thread of its pool has a wait in the
///   set (nobody can take it), each of those lending itself (Y4) only to
///   a pool whose every thread has a wait in the set (nobody can hand it
///   the task), or, counting `idle` (Z5), is asleep with nothing to do:
///   a lender is handed a task only by a thread that runs one; or that
///   is never handed this task (Y5: it was made after the oldest task on
///   the lender's stack).
///
/// With it, for each blocked record, the leaf that blocks it.
fn blocked(records: &[Record], leaves: &[Vec<Leaf>], idle: Idle) -> (Vec<bool>, Vec<Option<Leaf>>) {
    // `--cfg stealpool_bug="stall_released_ignored"` counts a released
    // wait as blocked: its setter may go on to park too, and the wait it
    // let go would be reported with it (what Z3 rules out).
    let blocked: Vec<bool> = records
        .iter()
        .zip(leaves)
        .map(|(record, leaves)| {
            !leaves.is_empty() && (bug!("stall_released_ignored") || !record.is_released())
        })
        .collect();
    let members = Members::read(records, idle);
    let mut set = Set::new(records, leaves, &members, blocked);
    // Records leave the set one at a time, each pass over them seeing
    // the removals made so far; the pass that removes none reads the
    // fixpoint.
    loop {
        let mut changed = false;
        for (at, record_leaves) in leaves.iter().enumerate() {
            if !set.blocked[at] {
                continue;
            }
            // `--cfg stealpool_bug="stall_awaits_ignored"` looks no further
            // than the waiter's own pool: every thread of it parked makes a
            // stall, whoever runs the awaited task (what Z2 rules out).
            let awaited_stuck = if bug!("stall_awaits_ignored") {
                set.all_blocked(set.pool_of[at])
            } else {
                (0..record_leaves.len()).any(|leaf| set.leaf_stuck(at, leaf))
            };
            if !awaited_stuck {
                set.remove(at);
                changed = true;
            }
        }
        if !changed {
            let stuck = (0..records.len())
                .map(|at| {
                    let first = leaves[at].first().copied();
                    let found = (0..leaves[at].len())
                        .find(|&leaf| set.leaf_stuck(at, leaf))
                        .map(|leaf| leaves[at][leaf]);
                    set.blocked[at].then_some(found.or(first)).flatten()
                })
                .collect();
            return (set.blocked, stuck);
        }
    }
}

/// Z2's set as it is computed, with what its conditions read looked up
/// once: each record's pool and lent-to pool and each leaf's pool by
/// their place in `members`, each claimed leaf's runner by the record of
/// that runner's wait, if any (a thread parks in one wait at a time);
/// and, kept up to date, each pool's members waiting in the set.
struct Set<'a> {
    records: &'a [Record],
    leaves: &'a [Vec<Leaf>],
    members: &'a Members,
    blocked: Vec<bool>,
    pool_of: Vec<Option<usize>>,
    lent_to_of: Vec<Option<usize>>,
    /// Per record, per leaf: its pool's place, and the record whose
    /// thread runs it.
    leaf_pool: Vec<Vec<Option<usize>>>,
    leaf_owner: Vec<Vec<Option<usize>>>,
    /// Per pool of `members`, in its order: its members waiting in the set.
    parked: Vec<usize>,
}

impl<'a> Set<'a> {
    fn new(records: &'a [Record], leaves: &'a [Vec<Leaf>], members: &'a Members, blocked: Vec<bool>) -> Self {
        let mut by_runner: Vec<(usize, usize)> =
            records.iter().enumerate().map(|(at, r)| (r.runner, at)).collect();
        by_runner.sort_unstable();
        let owner = |runner: usize| {
            by_runner
                .binary_search_by_key(&runner, |&(known, _)| known)
                .ok()
                .map(|found| by_runner[found].1)
        };
        let pool_of: Vec<Option<usize>> = records.iter().map(|r| members.position(r.pool)).collect();
        let lent_to_of = records
            .iter()
            .map(|r| {
                (!r.awaited.lent_to.is_null())
                    .then(|| members.position(r.awaited.lent_to))
                    .flatten()
            })
            .collect();
        let leaf_pool = leaves
            .iter()
            .map(|leaves| leaves.iter().map(|leaf| members.position(leaf.pool)).collect())
            .collect();
        let leaf_owner = leaves
            .iter()
            .map(|leaves| {
                leaves
                    .iter()
                    .map(|leaf| {
                        if leaf.runner == 0 || leaf.runner == ANY_THREAD {
                            None
                        } else {
                            owner(leaf.runner)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut parked = vec![0; members.0.len()];
        for (at, &is) in blocked.iter().enumerate() {
            if let (true, Some(pool)) = (is, pool_of[at]) {
                parked[pool] += 1;
            }
        }
        Set {
            records,
            leaves,
            members,
            blocked,
            pool_of,
            lent_to_of,
            leaf_pool,
            leaf_owner,
            parked,
        }
    }

    fn remove(&mut self, at: usize) {
        self.blocked[at] = false;
        if let Some(pool) = self.pool_of[at] {
            self.parked[pool] -= 1;
        }
    }

    /// Every member of the pool at `pool` waits in the set.
    fn all_blocked(&self, pool: Option<usize>) -> bool {
        pool.is_some_and(|pool| {
            let members = self.members.0[pool].1;
            members > 0 && self.parked[pool] == members
        })
    }

    /// Z5: no thread of the pool at `pool` runs anything: each waits in
    /// the set or, counted, sleeps with nothing to do.
    fn none_running(&self, pool: Option<usize>) -> bool {
        pool.is_some_and(|pool| {
            let (_, all, asleep) = self.members.0[pool];
            all > 0 && self.parked[pool] + asleep >= all
        })
    }

    /// Z2: leaf `leaf` of record `at` cannot end while the set stays
    /// parked.
    fn leaf_stuck(&self, at: usize, leaf: usize) -> bool {
        let of = &self.leaves[at][leaf];
        // Z7: work of the pool that none but its own threads run (no
        // lender is handed it): stuck once they all wait in the set.
        // Z5 counts a thread asleep with nothing to do as running none of
        // it either: it is running (a stolen half) on a thread of the pool,
        // or queued where a push wakes a sleeper (S1-S7).
        if of.runner == ANY_THREAD {
            return self.none_running(self.leaf_pool[at][leaf]);
        }
        if of.runner != 0 {
            return self.leaf_owner[at][leaf].is_some_and(|owner| self.blocked[owner]);
        }
        let pool = self.leaf_pool[at][leaf];
        self.all_blocked(pool)
            && (0..self.records.len()).all(|other| {
                !self.blocked[other]
                    || self.pool_of[other] != pool
                    || self.records[other].awaited.lent_to.is_null()
                    // Y5: a lender is never handed a task that may wait
                    // for a task on its stack.
                    || !of.lineage.may_run_above(&self.records[other].awaited.lender_frames)
                    || self.none_running(self.lent_to_of[other])
            })
    }
}

/// The report of the blocked set, for the wait `at`; `stuck` holds the
/// leaf that blocks each blocked wait.
fn report(records: &[Record], blocked: &[bool], stuck: &[Option<Leaf>], at: usize) -> Stall {
    // Only the waits this one's stall is made of: from it, the wait its
    // stuck leaf runs beneath, or every blocked wait of the pool of a
    // leaf nobody runs (why nobody can); a stall elsewhere in the process
    // is another report's.
    let mut related = vec![false; records.len()];
    related[at] = true;
    let mut to_visit = vec![at];
    while let Some(index) = to_visit.pop() {
        let Some(leaf) = stuck[index] else { continue };
        for (other, record) in records.iter().enumerate() {
            let reached = if leaf.runner == 0 || leaf.runner == ANY_THREAD {
                ptr::eq(record.pool, leaf.pool)
            } else {
                record.runner == leaf.runner
            };
            if reached && blocked[other] && !related[other] {
                related[other] = true;
                to_visit.push(other);
            }
        }
    }
    let blocked = &related[..];
    let mut pools: Vec<*const Registry> = vec![records[at].pool];
    for (record, &is) in records.iter().zip(blocked) {
        if is && !pools.iter().any(|&pool| ptr::eq(pool, record.pool)) {
            pools.push(record.pool);
        }
    }
    let number = |pool: *const Registry| pools.iter().position(|&known| ptr::eq(known, pool));
    let reports = pools
        .iter()
        .map(|&pool| {
            // SAFETY: a pool a record names is held by its waiter.
            let registry = unsafe { &*pool };
            let mine = || {
                records
                    .iter()
                    .zip(blocked)
                    .enumerate()
                    .filter(move |(_, (record, &is))| is && ptr::eq(record.pool, pool))
            };
            let mut awaits: Vec<usize> = mine()
                .filter_map(|(index, _)| stuck[index].and_then(|leaf| number(leaf.pool)))
                .collect();
            awaits.sort_unstable();
            awaits.dedup();
            PoolReport {
                workers: registry.num_workers(),
                spare_slots: registry.spares.slot_count(),
                members: registry.sleep.members_exact(),
                blocked: mine().count(),
                awaits,
            }
        })
        .collect();
    let order = std::iter::once(at).chain((0..records.len()).filter(|&other| other != at && blocked[other]));
    let mut waits = Vec::new();
    let mut more_waits = 0;
    for index in order {
        if waits.len() == NAMED_WAITS {
            more_waits += 1;
            continue;
        }
        let record = &records[index];
        let leaf = stuck[index];
        let beneath = leaf
            .filter(|leaf| leaf.runner != 0 && leaf.runner != ANY_THREAD)
            .and_then(|leaf| {
                records
                    .iter()
                    .zip(blocked)
                    .find(|(other, &is)| is && other.runner == leaf.runner)
            })
            .map(|(other, _)| (other.awaited.kind, other.awaited.joined_at));
        waits.push(WaitReport {
            kind: record.awaited.kind,
            joined_at: record.awaited.joined_at,
            pool: number(record.pool).unwrap_or(0),
            origin: record.awaited.origin,
            task_pool: leaf.and_then(|leaf| number(leaf.pool)),
            through: leaf.filter(|leaf| leaf.input).map(|leaf| leaf.origin),
            beneath,
        });
    }
    Stall {
        kind: records[at].awaited.kind,
        pools: reports,
        own: 0,
        waits,
        more_waits,
    }
}
