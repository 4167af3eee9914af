//! The stall detector: a `JoinHandle::join` that can never return is
//! let go with an error instead of parking forever (Z1-Z4 in
//! `proofs/waits.md`).
//!
//! A worker about to park in a `JoinHandle::join` (on a task of its own
//! pool or of another) first writes a *record* into the table its pool
//! shares with every other: its pool, its runner id, the task it awaits
//! (its pool when known, its claim) and how to tell it has been let go
//! (its latch, its mailbox). Under the table's lock it then computes the
//! *blocked* records (Z2): the largest set of waits, none let go yet, each
//! on a task that runs beneath another wait of the set (its claim names
//! that wait's thread) or that nobody has claimed while every thread of
//! its pool waits in the set. Nothing can end such a wait: the threads
//! that could are all parked in the set, and no other thread runs the
//! tasks of their pools. The wait that finds itself blocked does not park
//! and returns [`Stall`]; `join` panics with its message. A blocked set
//! forms only as a wait parks, and holds that wait (Z4).
//!
//! Nothing on the hot path takes part: a latch's setter never looks at
//! the table. A record whose latch is set, or whose mailbox holds a job,
//! is released, and the table's lock orders that look after the setter's
//! store (Z3). Waits the detector does not see (a `join` half, a scope,
//! an `install` from another pool, a continuation's inputs, a channel, a
//! lock) leave their thread unrecorded, and their tasks' pools unknown: it
//! reports only what it can prove, and such a program may still hang.

use super::latch::{CrossPoolLatch, LockLatch};
use super::registry::Registry;
use super::worker::WorkerThread;
use crate::sync::flags::bug;
use crate::sync::{Mutex, MutexGuard};
use std::fmt;
use std::panic::Location;
use std::ptr;
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
}

/// The task a parked wait awaits, as the detector reads it (Z1).
#[derive(Clone, Copy)]
pub(crate) struct Awaited {
    /// The task's pool once its threads alone can run it; null while that
    /// is not known (a continuation whose inputs may run anywhere). The
    /// waiter's handle keeps it alive.
    pub(crate) pool: *const Registry,
    /// The task's claim (H3), read by `runner_of`: 0 while nobody claimed
    /// it, 1 for a thread outside every pool, else the runner id of the
    /// thread that runs it.
    pub(crate) claim: *const (),
    pub(crate) runner_of: unsafe fn(*const ()) -> usize,
    /// Y4: the pool the waiter lends itself to while it waits, null if
    /// none: that pool's threads may hand it work.
    pub(crate) lent_to: *const Registry,
    /// Where the task was made (`submit`, `then`, ...): its name in the
    /// report.
    pub(crate) origin: &'static Location<'static>,
    /// Where the waiter called `JoinHandle::join`.
    pub(crate) joined_at: &'static Location<'static>,
}

/// A wait parked, or about to park (Z1).
struct Record {
    id: u64,
    /// The waiting thread's pool; alive while the thread waits.
    pool: *const Registry,
    /// The waiting thread's runner id (H3's claim word).
    runner: usize,
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
            }
        }
    }

    /// The runner id of the thread that claimed the awaited task: 0 if
    /// nobody did.
    fn awaited_runner(&self) -> usize {
        // SAFETY: the waiter's handle keeps the task, and its claim.
        unsafe { (self.awaited.runner_of)(self.awaited.claim) }
    }
}

/// The error of a wait that can never end, with what the detector saw.
pub(crate) struct Stall {
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
    joined_at: &'static Location<'static>,
    pool: usize,
    origin: &'static Location<'static>,
    /// The awaited task's pool, by its number in the report, if it is one
    /// of the blocked set's.
    task_pool: Option<usize>,
    /// Where the thread that runs the awaited task waits, beneath which it
    /// runs; `None` if nobody started it.
    beneath: Option<&'static Location<'static>>,
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
            "stealpool: JoinHandle::join can never return (a stall): the task it waits for runs \
             beneath, or is queued behind, JoinHandle::join calls that all wait on one another, \
             and every thread that could run it is parked in one (a cycle of handles across \
             threads, or more waits at once than Builder::max_blocking_threads lets spare \
             threads stand in for)."
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
            write!(
                f,
                " the JoinHandle::join at {} (pool {}) waits for the task made at {}",
                wait.joined_at, wait.pool, wait.origin
            )?;
            if let Some(pool) = wait.task_pool {
                write!(f, " (pool {pool})")?;
            }
            match wait.beneath {
                Some(at) => write!(f, ", which runs beneath the JoinHandle::join at {at};")?,
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
        }
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
}

impl Drop for Parked<'_> {
    fn drop(&mut self) {
        let mut table = self.domain.lock();
        if let Some(at) = table.records.iter().position(|record| record.id == self.id) {
            table.records.swap_remove(at);
        }
    }
}

/// Z1: `worker`, waiting for `awaited` and let go through `released`
/// (not released yet, as far as it looked), is about to park. Records the
/// wait, then (Z2) computes the blocked waits: `Err` if this one is among
/// them, and it must not park. Z4: a blocked set forms only as a wait
/// parks, with that wait in it, so no other is ever found blocked here.
pub(crate) fn park<'a>(
    worker: &'a WorkerThread,
    awaited: Awaited,
    released: Released,
) -> Result<Parked<'a>, Stall> {
    let domain = &*worker.registry().stalls;
    let mut table = domain.lock();
    let id = table.next_id;
    table.next_id += 1;
    table.records.push(Record {
        id,
        pool: worker.registry(),
        runner: worker.runner_id(),
        awaited,
        released,
    });
    if bug!("stall_unchecked") {
        return Ok(Parked { domain, id });
    }
    let blocked = blocked(&table.records);
    let own = table.records.len() - 1;
    if blocked[own] {
        let stall = report(&table.records, &blocked, own);
        table.records.swap_remove(own);
        return Err(stall);
    }
    Ok(Parked { domain, id })
}

/// Z2: which records are *blocked*: the largest set of unreleased waits,
/// each on a task whose pool is known, such that each awaits a task
///
/// * claimed by a thread whose own wait is in the set (the task runs
///   beneath that wait), or
/// * claimed by nobody, while every thread of its pool has a wait in the
///   set (nobody can take it), each of those lending itself (Y4) only to
///   a pool whose every thread has a wait in the set (nobody can hand it
///   the task).
fn blocked(records: &[Record]) -> Vec<bool> {
    // `--cfg stealpool_bug="stall_released_ignored"` counts a released
    // wait as blocked: its setter may go on to park too, and the wait it
    // let go would be reported with it (what Z3 rules out).
    let mut blocked: Vec<bool> = records
        .iter()
        .map(|record| {
            !record.awaited.pool.is_null() && (bug!("stall_released_ignored") || !record.is_released())
        })
        .collect();
    let runners: Vec<usize> = records.iter().map(Record::awaited_runner).collect();
    // Each pool's members, read once (Z2: under the accounts lock).
    let mut members: Vec<(*const Registry, usize)> = Vec::new();
    for record in records {
        for pool in [record.pool, record.awaited.pool, record.awaited.lent_to] {
            if !pool.is_null() && !members.iter().any(|&(known, _)| ptr::eq(known, pool)) {
                // SAFETY: a pool a record names is held by its waiter or
                // its handle.
                members.push((pool, unsafe { &*pool }.sleep.members_exact()));
            }
        }
    }
    let all_blocked = |blocked: &[bool], pool: *const Registry| {
        let members = members
            .iter()
            .find(|&&(known, _)| ptr::eq(known, pool))
            .map_or(0, |&(_, members)| members);
        let parked = records
            .iter()
            .zip(blocked)
            .filter(|(record, &is)| is && ptr::eq(record.pool, pool))
            .count();
        members > 0 && parked == members
    };
    loop {
        let mut changed = false;
        for at in 0..records.len() {
            if !blocked[at] {
                continue;
            }
            let record = &records[at];
            // `--cfg stealpool_bug="stall_awaits_ignored"` looks no further
            // than the waiter's own pool: every thread of it parked makes a
            // stall, whoever runs the awaited task (what Z2 rules out).
            let awaited_stuck = if bug!("stall_awaits_ignored") {
                all_blocked(&blocked, record.pool)
            } else {
                match runners[at] {
                    0 => {
                        let pool = record.awaited.pool;
                        all_blocked(&blocked, pool)
                            && records.iter().zip(&blocked).all(|(other, &is)| {
                                !is || !ptr::eq(other.pool, pool)
                                    || other.awaited.lent_to.is_null()
                                    || all_blocked(&blocked, other.awaited.lent_to)
                            })
                    }
                    runner => records
                        .iter()
                        .zip(&blocked)
                        .any(|(other, &is)| is && other.runner == runner),
                }
            };
            if !awaited_stuck {
                blocked[at] = false;
                changed = true;
            }
        }
        if !changed {
            return blocked;
        }
    }
}

/// The report of the blocked set, for the wait `at`.
fn report(records: &[Record], blocked: &[bool], at: usize) -> Stall {
    let mut pools: Vec<*const Registry> = vec![records[at].pool];
    for (record, &is) in records.iter().zip(blocked) {
        if is && !pools.iter().any(|&pool| ptr::eq(pool, record.pool)) {
            pools.push(record.pool);
        }
    }
    let reports = pools
        .iter()
        .map(|&pool| {
            // SAFETY: a pool a record names is held by its waiter.
            let registry = unsafe { &*pool };
            let mine = || {
                records
                    .iter()
                    .zip(blocked)
                    .filter(move |(record, &is)| is && ptr::eq(record.pool, pool))
            };
            let mut awaits: Vec<usize> = mine()
                .filter_map(|(record, _)| {
                    pools
                        .iter()
                        .position(|&other| ptr::eq(other, record.awaited.pool))
                })
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
    let number = |pool: *const Registry| pools.iter().position(|&known| ptr::eq(known, pool));
    let order = std::iter::once(at).chain((0..records.len()).filter(|&other| other != at && blocked[other]));
    let mut waits = Vec::new();
    let mut more_waits = 0;
    for index in order {
        if waits.len() == NAMED_WAITS {
            more_waits += 1;
            continue;
        }
        let record = &records[index];
        let runner = record.awaited_runner();
        let beneath = (runner != 0)
            .then(|| {
                records
                    .iter()
                    .zip(blocked)
                    .find(|(other, &is)| is && other.runner == runner)
                    .map(|(other, _)| other.awaited.joined_at)
            })
            .flatten();
        waits.push(WaitReport {
            joined_at: record.awaited.joined_at,
            pool: number(record.pool).unwrap_or(0),
            origin: record.awaited.origin,
            task_pool: number(record.awaited.pool),
            beneath,
        });
    }
    Stall {
        pools: reports,
        own: 0,
        waits,
        more_waits,
    }
}
