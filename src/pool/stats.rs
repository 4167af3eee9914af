//! Statistics: per-worker counters, summed when read.
//!
//! Each worker only ever increments its own counters, and nobody decides
//! anything from them, so they are relaxed (T1) and cache-padded apart.

use super::ordering::RELAXED;
use super::topology::Distance;
use crate::sync::StatCounter;
use crossbeam_utils::CachePadded;

/// One worker's counters, written only by that worker.
#[derive(Default)]
pub(crate) struct WorkerCounters {
    executed: StatCounter,
    stolen: StatCounter,
    steal_attempts: StatCounter,
    successful_steals: StatCounter,
    panicked: StatCounter,
    promoted: StatCounter,
    steals_same_cache: StatCounter,
    steals_same_node: StatCounter,
    steals_remote: StatCounter,
    pin_failed: StatCounter,
}

/// Which counter to bump.
#[derive(Clone, Copy)]
pub(crate) enum Event {
    Executed,
    /// Jobs that arrived by a steal (a batch counts each job).
    Stolen(u64),
    StealAttempt,
    SuccessfulSteal,
    Panicked,
    /// A pending `join` half moved where thieves look (F3).
    Promoted,
    /// A successful steal from a victim at this distance.
    StealAt(Distance),
    /// The worker could not be pinned to its CPU.
    PinFailed,
}

impl WorkerCounters {
    pub(crate) fn record(&self, event: Event) {
        let (counter, amount) = match event {
            Event::Executed => (&self.executed, 1),
            Event::Stolen(n) => (&self.stolen, n),
            Event::StealAttempt => (&self.steal_attempts, 1),
            Event::SuccessfulSteal => (&self.successful_steals, 1),
            Event::Panicked => (&self.panicked, 1),
            Event::Promoted => (&self.promoted, 1),
            Event::StealAt(Distance::SameCache) => (&self.steals_same_cache, 1),
            Event::StealAt(Distance::SameNode) => (&self.steals_same_node, 1),
            Event::StealAt(Distance::Remote) => (&self.steals_remote, 1),
            Event::PinFailed => (&self.pin_failed, 1),
        };
        // T1: relaxed; a statistic orders nothing. Only this worker writes
        // its counters, so a load and a store do what a (locked) RMW would.
        counter.store(counter.load(RELAXED) + amount, RELAXED);
    }

    fn snapshot(&self) -> WorkerStats {
        // T1: relaxed reads; the sum is a snapshot, exact once the pool is idle.
        WorkerStats {
            tasks_executed: self.executed.load(RELAXED),
            tasks_stolen: self.stolen.load(RELAXED),
            steal_attempts: self.steal_attempts.load(RELAXED),
            successful_steals: self.successful_steals.load(RELAXED),
            panicked: self.panicked.load(RELAXED),
            joins_promoted: self.promoted.load(RELAXED),
            steals_same_cache: self.steals_same_cache.load(RELAXED),
            steals_same_node: self.steals_same_node.load(RELAXED),
            steals_remote: self.steals_remote.load(RELAXED),
            pin_failures: self.pin_failed.load(RELAXED),
        }
    }
}

/// One worker's share of [`Stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Tasks (`spawn`, `submit`, `Scope::spawn`) this worker ran.
    pub tasks_executed: u64,
    /// Jobs (tasks, stolen `join` halves) this worker took from another
    /// worker's deque.
    pub tasks_stolen: u64,
    /// Steal operations this worker tried on other workers' deques.
    pub steal_attempts: u64,
    /// Steal operations that brought back at least one job.
    pub successful_steals: u64,
    /// Tasks run by this worker that panicked.
    pub panicked: u64,
    /// Pending `join` halves this worker moved to its shared deque because
    /// an idle worker asked for work.
    pub joins_promoted: u64,
    /// Of the successful steals from other workers' deques, those from a
    /// worker sharing this one's last-level cache (see [`Stats::steals_same_cache`]).
    pub steals_same_cache: u64,
    /// Those from a worker on this one's node, not sharing its cache.
    pub steals_same_node: u64,
    /// Those from a worker on another node.
    pub steals_remote: u64,
    /// 1 if this worker was to be pinned to its CPU and could not be.
    pub pin_failures: u64,
}

/// A snapshot of a pool's statistics, from [`ThreadPool::stats`](crate::ThreadPool::stats).
///
/// The totals are the sums of the per-worker counts. Counters are read one
/// by one while the pool runs, so a snapshot of a busy pool is approximate;
/// after [`ThreadPool::wait_all`](crate::ThreadPool::wait_all) it is exact.
///
/// ```
/// let pool = stealpool::ThreadPool::new(2);
/// for _ in 0..10 {
///     pool.spawn(|| {});
/// }
/// pool.wait_all();
/// let stats = pool.stats();
/// assert_eq!(stats.tasks_executed, 10);
/// assert_eq!(stats.per_worker.len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tasks (`spawn`, `submit`, `Scope::spawn`) run, over all workers.
    pub tasks_executed: u64,
    /// Jobs that moved to another worker by a steal.
    pub tasks_stolen: u64,
    /// Steal operations tried.
    pub steal_attempts: u64,
    /// Steal operations that found work.
    pub successful_steals: u64,
    /// Tasks that panicked.
    pub panicked: u64,
    /// `join` halves made stealable on request. A `join` records its second
    /// half where only an idle worker that asked in vain takes it from; the
    /// owner moves its oldest half to its shared deque when asked.
    pub joins_promoted: u64,
    /// Successful steals from a worker sharing the thief's last-level
    /// cache, by the pool's [`Topology`](crate::Topology). Thieves try
    /// their cache's workers first, then their node's, then the rest, so on
    /// a machine with several caches or nodes most steals should be near.
    /// With one cache for the whole pool (the default on a machine with one
    /// shared cache) every steal counts here.
    ///
    /// `steals_same_cache + steals_same_node + steals_remote` is
    /// `successful_steals`: the steals from the deques thieves look in and
    /// the rare direct takes of another worker's pending `join` halves
    /// alike.
    ///
    /// ```
    /// use stealpool::{ThreadPool, Topology};
    ///
    /// let pool = ThreadPool::builder()
    ///     .topology(Topology::uniform(2, 1, 2).unwrap())
    ///     .build()
    ///     .unwrap();
    /// pool.scope(|s| {
    ///     for _ in 0..100 {
    ///         s.spawn(|_| {});
    ///     }
    /// });
    /// let stats = pool.stats();
    /// let near = stats.steals_same_cache + stats.steals_same_node;
    /// assert_eq!(near + stats.steals_remote, stats.successful_steals);
    /// ```
    pub steals_same_cache: u64,
    /// Successful steals from a worker on the thief's node, not sharing its
    /// cache (see [`steals_same_cache`](Stats::steals_same_cache)).
    pub steals_same_node: u64,
    /// Successful steals from a worker on another node (see
    /// [`steals_same_cache`](Stats::steals_same_cache)).
    pub steals_remote: u64,
    /// Workers that were to be pinned to their CPU
    /// ([`Builder::pin_workers`](crate::Builder::pin_workers)) and could
    /// not be: the CPU does not exist or is outside the process's affinity
    /// mask or cgroup, or the system does not pin (only Linux does). Such a
    /// worker runs unpinned. Each worker counts its own failure as it
    /// starts, so the count is complete once every worker has run a task.
    pub pin_failures: u64,
    /// The same counts, one entry per worker, in worker-index order.
    pub per_worker: Vec<WorkerStats>,
}

pub(crate) fn collect(counters: &[CachePadded<WorkerCounters>]) -> Stats {
    let per_worker: Vec<WorkerStats> = counters.iter().map(|c| c.snapshot()).collect();
    let sum = |f: fn(&WorkerStats) -> u64| per_worker.iter().map(f).sum();
    Stats {
        tasks_executed: sum(|w| w.tasks_executed),
        tasks_stolen: sum(|w| w.tasks_stolen),
        steal_attempts: sum(|w| w.steal_attempts),
        successful_steals: sum(|w| w.successful_steals),
        panicked: sum(|w| w.panicked),
        joins_promoted: sum(|w| w.joins_promoted),
        steals_same_cache: sum(|w| w.steals_same_cache),
        steals_same_node: sum(|w| w.steals_same_node),
        steals_remote: sum(|w| w.steals_remote),
        pin_failures: sum(|w| w.pin_failures),
        per_worker,
    }
}
