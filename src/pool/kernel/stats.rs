//! Statistics: per-worker counters, summed when read.
//!
//! Each worker only ever increments its own counters, and nobody decides
//! anything from them, so they are relaxed (T1) and cache-padded apart.

use super::ordering::RELAXED;
use crate::pool::kernel::spares::SpareCounts;
use crate::pool::placement::topology::Distance;
use crate::pool::queues::priority::Priority;
use crate::sync::StatCounter;
use crossbeam_utils::CachePadded;

/// One worker's counters, written only by that worker.
#[derive(Default)]
pub(crate) struct WorkerCounters {
    /// Tasks run, by `Priority as usize`; their sum is `tasks_executed`, so
    /// a task still costs one counter.
    executed: [StatCounter; Priority::COUNT],
    stolen: StatCounter,
    steal_attempts: StatCounter,
    successful_steals: StatCounter,
    panicked: StatCounter,
    promoted: StatCounter,
    steals_same_cache: StatCounter,
    steals_same_node: StatCounter,
    steals_remote: StatCounter,
    pin_failed: StatCounter,
    bounded_steals: StatCounter,
}

/// Which counter to bump.
#[derive(Clone, Copy)]
pub(crate) enum Event {
    /// A task ran, at this priority.
    Executed(Priority),
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
    /// A successful steal from a bounded deque (G12).
    BoundedSteal,
}

impl WorkerCounters {
    pub(crate) fn record(&self, event: Event) {
        let (counter, amount) = match event {
            Event::Executed(priority) => (&self.executed[priority as usize], 1),
            Event::Stolen(n) => (&self.stolen, n),
            Event::StealAttempt => (&self.steal_attempts, 1),
            Event::SuccessfulSteal => (&self.successful_steals, 1),
            Event::Panicked => (&self.panicked, 1),
            Event::Promoted => (&self.promoted, 1),
            Event::StealAt(Distance::SameCache) => (&self.steals_same_cache, 1),
            Event::StealAt(Distance::SameNode) => (&self.steals_same_node, 1),
            Event::StealAt(Distance::Remote) => (&self.steals_remote, 1),
            Event::PinFailed => (&self.pin_failed, 1),
            Event::BoundedSteal => (&self.bounded_steals, 1),
        };
        // T1: relaxed; a statistic orders nothing. Only this worker writes
        // its counters, so a load and a store do what a (locked) RMW would.
        counter.store(counter.load(RELAXED) + amount, RELAXED);
    }

    fn snapshot(&self) -> WorkerStats {
        // T1: relaxed reads; the sum is a snapshot, exact once the pool is idle.
        let read = |counter: &StatCounter| counter.load(RELAXED);
        let tasks_by_priority = self.executed.each_ref().map(read);
        WorkerStats {
            tasks_executed: tasks_by_priority.iter().sum(),
            tasks_by_priority,
            tasks_stolen: read(&self.stolen),
            steal_attempts: read(&self.steal_attempts),
            successful_steals: read(&self.successful_steals),
            panicked: read(&self.panicked),
            joins_promoted: read(&self.promoted),
            steals_same_cache: read(&self.steals_same_cache),
            steals_same_node: read(&self.steals_same_node),
            steals_remote: read(&self.steals_remote),
            pin_failures: read(&self.pin_failed),
            bounded_steals: read(&self.bounded_steals),
        }
    }
}

/// One worker's share of [`Stats`].
///
/// ```
/// let pool = stealpool::ThreadPool::new(2);
/// pool.scope(|s| (0..100).for_each(|_| s.spawn(|_| {})));
/// let stats = pool.stats();
/// let per_worker: u64 = stats.per_worker.iter().map(|w| w.tasks_executed).sum();
/// assert_eq!(per_worker + stats.spares.tasks_executed, 100);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkerStats {
    /// Tasks (`spawn`, `submit`, `Scope::spawn`) this worker ran.
    pub tasks_executed: u64,
    /// The same tasks by the [`Priority`] they ran at, indexed by
    /// `Priority as usize` (see [`Stats::tasks_by_priority`]).
    pub tasks_by_priority: [u64; Priority::COUNT],
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
    /// Of the successful steals, those from a bounded deque (see
    /// [`Stats::bounded_steals`]).
    pub bounded_steals: u64,
}

/// A snapshot of a pool's statistics, from [`ThreadPool::stats`](crate::ThreadPool::stats).
///
/// The totals are the sums of the per-worker counts and the spare
/// threads' ([`Stats::spares`]). Counters are read one
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
#[non_exhaustive]
pub struct Stats {
    /// Tasks (`spawn`, `submit`, `Scope::spawn`) run, over all workers.
    pub tasks_executed: u64,
    /// The same tasks by the [`Priority`] they ran at, indexed by
    /// `Priority as usize` (`Low` first); they sum to `tasks_executed`.
    /// [`tasks_executed_at`](Stats::tasks_executed_at) reads one entry.
    ///
    /// ```
    /// use stealpool::{Priority, ThreadPool};
    ///
    /// let pool = ThreadPool::new(2);
    /// pool.spawn_with_priority(Priority::High, || {});
    /// pool.spawn_with_priority(Priority::Low, || {});
    /// pool.spawn(|| {});
    /// pool.wait_all();
    /// let stats = pool.stats();
    /// assert_eq!(stats.tasks_by_priority, [1, 1, 1, 0]);
    /// assert_eq!(stats.tasks_by_priority.iter().sum::<u64>(), stats.tasks_executed);
    /// let by_workers: u64 = stats.per_worker.iter().map(|w| w.tasks_by_priority[Priority::High as usize]).sum();
    /// assert_eq!(by_workers, 1);
    /// ```
    pub tasks_by_priority: [u64; Priority::COUNT],
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
    /// Of the successful steals, those of plain spawned tasks from the
    /// workers' bounded deques, whose steals never retry
    /// ([`Builder::bounded_steals`](crate::Builder::bounded_steals)); 0
    /// without them.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// pool.install(|| {
    ///     for _ in 0..100 {
    ///         stealpool::spawn(|| {});
    ///     }
    /// });
    /// pool.wait_all();
    /// assert_eq!(pool.stats().bounded_steals, 0);
    /// ```
    pub bounded_steals: u64,
    /// The same counts, one entry per worker, in worker-index order.
    pub per_worker: Vec<WorkerStats>,
    /// The same counts for the spare threads of
    /// [`block_in_place`](crate::block_in_place), all together: the work
    /// they did while workers blocked.
    pub spares: WorkerStats,
    /// How many times a spare thread took up a slot for a worker inside
    /// [`block_in_place`](crate::block_in_place), or for one whose wait
    /// parked (a `join`, a `scope`, a handle, a wait on another pool: see
    /// "Waiting on a worker" at [`ThreadPool`](crate::ThreadPool)): a new
    /// thread, or a parked one reused.
    pub spare_threads_started: u64,
    /// How many times a worker blocked with every spare slot taken
    /// ([`Builder::max_blocking_threads`](crate::Builder::max_blocking_threads))
    /// and no spare to stand in: a [`block_in_place`](crate::block_in_place)
    /// call, or a wait of the pool that parked.
    pub blocking_uncompensated: u64,
}

impl Stats {
    /// Tasks run at `priority`, over all workers.
    ///
    /// ```
    /// use stealpool::{Priority, ThreadPool};
    ///
    /// let pool = ThreadPool::new(2);
    /// for _ in 0..3 {
    ///     pool.spawn_with_priority(Priority::Critical, || {});
    /// }
    /// pool.wait_all();
    /// assert_eq!(pool.stats().tasks_executed_at(Priority::Critical), 3);
    /// assert_eq!(pool.stats().tasks_executed_at(Priority::Low), 0);
    /// ```
    pub fn tasks_executed_at(&self, priority: Priority) -> u64 {
        self.tasks_by_priority[priority as usize]
    }
}

pub(crate) fn collect(
    workers: &[CachePadded<WorkerCounters>],
    spare_slots: &[CachePadded<WorkerCounters>],
    spare_counts: SpareCounts,
) -> Stats {
    let per_worker: Vec<WorkerStats> = workers.iter().map(|c| c.snapshot()).collect();
    let spares = spare_slots
        .iter()
        .map(|c| c.snapshot())
        .fold(WorkerStats::default(), add);
    // The totals: every worker's share and the spares', added up by the
    // one field-by-field sum below.
    let total = per_worker.iter().copied().fold(spares, add);
    let WorkerStats {
        tasks_executed,
        tasks_by_priority,
        tasks_stolen,
        steal_attempts,
        successful_steals,
        panicked,
        joins_promoted,
        steals_same_cache,
        steals_same_node,
        steals_remote,
        pin_failures,
        bounded_steals,
    } = total;
    Stats {
        tasks_executed,
        tasks_by_priority,
        tasks_stolen,
        steal_attempts,
        successful_steals,
        panicked,
        joins_promoted,
        steals_same_cache,
        steals_same_node,
        steals_remote,
        pin_failures,
        bounded_steals,
        per_worker,
        spares,
        spare_threads_started: spare_counts.activations,
        blocking_uncompensated: spare_counts.uncompensated,
    }
}

/// Two shares added up, field by field.
fn add(a: WorkerStats, b: WorkerStats) -> WorkerStats {
    WorkerStats {
        tasks_executed: a.tasks_executed + b.tasks_executed,
        tasks_by_priority: std::array::from_fn(|level| {
            a.tasks_by_priority[level] + b.tasks_by_priority[level]
        }),
        tasks_stolen: a.tasks_stolen + b.tasks_stolen,
        steal_attempts: a.steal_attempts + b.steal_attempts,
        successful_steals: a.successful_steals + b.successful_steals,
        panicked: a.panicked + b.panicked,
        joins_promoted: a.joins_promoted + b.joins_promoted,
        steals_same_cache: a.steals_same_cache + b.steals_same_cache,
        steals_same_node: a.steals_same_node + b.steals_same_node,
        steals_remote: a.steals_remote + b.steals_remote,
        pin_failures: a.pin_failures + b.pin_failures,
        bounded_steals: a.bounded_steals + b.bounded_steals,
    }
}
