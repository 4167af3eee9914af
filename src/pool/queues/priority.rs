//! Task priorities: the levels, their queues, and the no-starvation rule.
//!
//! `Normal` keeps the pool's own queues (each worker's deque, the
//! injector), so `spawn` and `submit` cost what they always did; once a
//! level was used, the searches take `Normal`'s jobs from outside through
//! a stage of its own, as the other levels' (V8). Each other
//! level has queues of its own, the same verified structures: a lock-free
//! injector for submissions from outside the pool, drained into one stage
//! under a lock that every worker takes the oldest job from, and, per
//! worker, a Chase-Lev deque for the tasks queued by tasks on it, which
//! its owner and thieves take one at a time from the old end. The
//! argument is `proofs/priority.md` (V1–V8).

use super::injector::SubmitQueues;
use super::RELAXED;
use crate::lockfree::JobRef;
use crate::lockfree::{Steal, Stealer, Worker};
use crate::sync::flags::bug;
use crate::sync::{AtomicUsize, Mutex};
use crossbeam_utils::CachePadded;
use std::cell::Cell;

/// How urgently a task started with
/// [`ThreadPool::spawn_with_priority`](crate::ThreadPool::spawn_with_priority)
/// or [`ThreadPool::submit_with_priority`](crate::ThreadPool::submit_with_priority)
/// should run. [`spawn`](crate::ThreadPool::spawn) and
/// [`submit`](crate::ThreadPool::submit) use [`Priority::Normal`].
///
/// # Scheduling policy
///
/// * **Higher first.** A worker looking for work takes, in this order: its
///   own `Critical` and `High` tasks and those queued from outside the pool
///   at these levels, then its own `Normal` work (its deque, then the
///   outside queue), then it steals, `Critical` before `High` before
///   `Normal`, and only then looks at `Low`. So on one worker, and in the
///   queues fed from outside, a ready task never waits for a ready task of
///   a lower level, and thieves take the most urgent work first. Across
///   workers the order is per worker: a worker busy with its own `Normal`
///   tasks does not first steal another worker's `High` ones.
/// * **Urgent bursts run together; nobody starves.** Each worker keeps,
///   for each level, a count of the more urgent tasks it ran while tasks
///   of that level waited. One worker runs at most 8 tasks of a level in a
///   row ahead of a waiting task one level below, 16 two levels below
///   (`High` over `Low`, `Critical` over `Normal`) and 32 three below
///   (`Critical` over `Low`); mixed runs are weighed by the same measure
///   (a `Critical` task counts 1/32 of `Low`'s share, a `Normal` one 1/8).
///   Then that worker runs a task of the waiting level (the lowest such
///   level first) and the count starts again. So a burst of up to 8
///   urgent tasks queued together runs ahead of every queued task of a
///   lower level, and however many more urgent tasks keep arriving, a
///   waiting level gets one task in 9, 17 or 33 of a busy worker's, by
///   distance. The argument and the exact bound are in the repository's
///   `proofs/priority.md`.
/// * **First in, first out per submitter, at every level.** At `Low`,
///   `High` and `Critical`, on any number of workers, and at `Normal` for
///   tasks queued from outside the pool once the pool has queued a task
///   at another level: of two tasks of one level queued by one thread
///   (from outside the pool, or by a task on a worker), the earlier one
///   is taken to run no later than the later one. Each submitter's tasks
///   of a level wait in one queue (the level's shared queue for tasks
///   from outside; the worker's own queue of the level for tasks queued
///   by a task on it), and every take from it, by its owner, by another
///   worker, or by a level's turn under the rule above, takes its oldest
///   task; another worker takes one task at a time and runs it. So on
///   one worker the tasks start in the order they were queued, and on
///   several, when a task starts, every task queued before it by its
///   submitter at its level has started or is in the hands of another
///   worker between its take and its start: at most one such task per
///   other worker. (How long it stays there is up to the OS: a worker
///   descheduled at that moment lets later tasks start first.) This is
///   start order, not completion order: tasks taken by different workers
///   run side by side. A worker serves its own tasks of a level and those
///   queued from outside in rounds: a round takes from one of the two as
///   many tasks as it held when the round began, then the other's round
///   begins, so neither waits for more than one round of the other, and
///   tasks queued together from one source run together. `Normal` tasks
///   queued by a task on a worker keep the pool's order: a worker's own
///   `spawn`s newest first (as rayon's `spawn`), thieves taking the
///   oldest in halves. In a pool that never queued a task at another
///   level, `Normal` keeps the plain pool's order throughout: FIFO for one
///   outside submitter on one worker, and on several a thief takes the
///   newest of a batch another worker took from outside, so a later task
///   may start well before an earlier one (as may the one batch a worker
///   takes just before it sees the pool's first task at another level).
///   The argument is in the repository's `proofs/priority.md`.
///
///   ```
///   use std::sync::{Arc, Mutex};
///   use stealpool::{Priority, ThreadPool};
///
///   // One worker: a submitter's tasks of a level start in the order queued.
///   let pool = ThreadPool::new(1);
///   let started = Arc::new(Mutex::new(Vec::new()));
///   for n in 0..100 {
///       let started = started.clone();
///       pool.spawn_with_priority(Priority::Low, move || started.lock().unwrap().push(n));
///   }
///   pool.wait_all();
///   assert_eq!(*started.lock().unwrap(), (0..100).collect::<Vec<_>>());
///   ```
/// * **Fork-join is not affected.** `join`, `scope` and the tasks spawned
///   with plain `spawn` and `submit` stay `Normal`; queueing them costs
///   what it costs in a pool that never saw a priority, and in such a pool
///   nothing of their paths changes. (Once a level was used, a worker
///   takes `Normal` tasks queued from outside one at a time from a shared
///   queue, under a short lock, as at the other levels.)
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use stealpool::{Priority, ThreadPool};
///
/// assert!(Priority::Critical > Priority::High);
/// assert!(Priority::High > Priority::Normal);
/// assert!(Priority::Normal > Priority::Low);
/// assert_eq!(Priority::default(), Priority::Normal);
///
/// // One worker, busy while the tasks are queued: the most urgent runs first.
/// let pool = ThreadPool::new(1);
/// let (open, gate) = std::sync::mpsc::channel::<()>();
/// pool.spawn(move || gate.recv().unwrap());
/// let order = Arc::new(Mutex::new(Vec::new()));
/// for priority in [Priority::Low, Priority::Normal, Priority::High, Priority::Critical] {
///     let order = order.clone();
///     pool.spawn_with_priority(priority, move || order.lock().unwrap().push(priority));
/// }
/// open.send(()).unwrap();
/// pool.wait_all();
/// assert_eq!(
///     *order.lock().unwrap(),
///     [Priority::Critical, Priority::High, Priority::Normal, Priority::Low]
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Priority {
    /// Background work: runs when nothing more urgent is ready, and at
    /// least once in every 9 tasks of a busy worker while some is queued
    /// (33 under a flood of `Critical` tasks alone).
    Low,
    /// The priority of `spawn`, `submit` and continuations.
    #[default]
    Normal,
    /// Runs before ready `Normal` and `Low` tasks.
    High,
    /// Runs before every other ready task.
    Critical,
}

/// V5: a level is due, and a worker looks at it first, once the tasks
/// that worker took above it while it had work queued weigh this much
/// (`pass_weight`).
pub(crate) const SHARE: u32 = 64;

/// V5: what one task taken at `found` weighs against a lower level with
/// work queued: `SHARE` over the run of `found` tasks that may go ahead
/// of it, [`Priority::run_ahead`].
#[inline]
pub(crate) fn pass_weight(found: Priority, lower: Priority) -> u32 {
    SHARE / found.run_ahead(lower)
}

/// The levels with queues of their own, one slot each.
pub(crate) const SLOTS: usize = 3;

impl Priority {
    /// The number of levels: `Priority as usize` indexes arrays of this size.
    pub(crate) const COUNT: usize = 4;

    /// Every level, lowest first.
    pub(crate) const ALL: [Priority; 4] = [
        Priority::Low,
        Priority::Normal,
        Priority::High,
        Priority::Critical,
    ];

    /// How many tasks of this level one worker runs in a row while a task
    /// of the lower level `lower` waits, before it runs that one (V5): 8
    /// for adjacent levels, 16 two levels apart (`High` over `Low`,
    /// `Critical` over `Normal`), 32 three apart (`Critical` over `Low`):
    /// doubling with each level between them (`proofs/priority.md`, V5,
    /// for the measurements behind the numbers).
    /// A power of two dividing `SHARE`.
    #[inline]
    pub(crate) fn run_ahead(self, lower: Priority) -> u32 {
        match self as usize - lower as usize {
            1 => 8,
            2 => 16,
            _ => 32,
        }
    }

    /// Where this level's queues are (`None`: `Normal`, the pool's own).
    #[inline]
    pub(crate) fn slot(self) -> Option<usize> {
        match self {
            Priority::Low => Some(0),
            Priority::Normal => None,
            Priority::High => Some(1),
            Priority::Critical => Some(2),
        }
    }
}

/// A worker's deques for the levels other than `Normal`, by slot.
pub(crate) type LevelDeques = [Worker<JobRef>; SLOTS];

/// The shared queues of one level other than `Normal`.
pub(crate) struct LevelQueues {
    /// Tasks of this level submitted from outside the pool.
    pub(crate) injector: SubmitQueues,
    /// V8: the jobs taken out of the injector and not yet taken to run.
    /// Boxed, so that the registry keeps the layout it had before the
    /// stage (the plain pool's hot fields stay where they were).
    stage: Box<Stage>,
    /// Each worker's deque of this level.
    pub(crate) stealers: Box<[Stealer<JobRef>]>,
}

/// V8: a level's stage.
pub(crate) struct Stage {
    /// The injector's jobs taken out of it and not yet taken to run,
    /// oldest first: one queue that every worker takes from, under the
    /// lock, so that no two workers hold runs of one outside submitter's
    /// jobs side by side. A deque used only by whoever holds the lock, as
    /// its owner: pushes at `bottom`, takes the oldest at `top`.
    jobs: Mutex<Worker<JobRef>>,
    /// Its stealer: for relaxed looks (D12) without the lock, by searches
    /// and the sleepers' final check (V4); at `Normal`, also for the take
    /// of the oldest job without the lock (V9, `take_node`).
    staged: Stealer<JobRef>,
}

/// V8: a job taken from a stage and its injector.
pub(crate) struct Staged {
    pub(crate) job: JobRef,
    /// Whether jobs moved from the injector wait in the stage: the caller
    /// announces them (S3), as for any batch moved between queues (V2).
    pub(crate) moved: bool,
    /// How many jobs the stage held after the take: the size of a round
    /// that starts with it (`Rounds`).
    pub(crate) left: usize,
}

impl Stage {
    fn new() -> Box<Stage> {
        let jobs = Worker::new();
        Box::new(Stage {
            staged: jobs.stealer(),
            jobs: Mutex::new(jobs),
        })
    }

    /// Whether the stage may hold a job: a relaxed look (D12).
    #[inline]
    fn is_empty(&self) -> bool {
        self.staged.is_empty()
    }

    /// V8: the oldest job queued from outside the pool through `injector`
    /// and this stage. Under the stage's lock: the stage's oldest job if
    /// it holds one, after the injector's jobs were moved behind its own
    /// (Q7, oldest first); if it is empty, the injector's oldest, the rest
    /// of its jobs left in the stage in the order queued. The stage holds
    /// jobs taken from the injector earlier, so older than every job
    /// still in it (Q5): stage and injector are one queue per submitter,
    /// and every take takes its oldest job.
    fn take(&self, injector: &SubmitQueues) -> Option<Staged> {
        self.take_with(
            injector.is_empty(),
            |stage| injector.pop_batch_in_order(stage),
            |stage| injector.append_in_order(stage),
        )
    }

    /// V8 at `Normal`: as `take`, with node `node`'s queue of `injector`
    /// alone behind this stage (Q10: each submitter's jobs are all in one
    /// node's queue, so the stage and that queue are its one queue).
    fn take_node(&self, injector: &SubmitQueues, node: usize) -> Option<Staged> {
        // V9: the stage's oldest job needs no lock: a steal at `top` (D9)
        // claims it as the lock holder's `pop_oldest` would (D17: both
        // claim `top` by a CAS), and every job in the stage is older than
        // its submitter's jobs still in the queue (Q5). The lock is taken
        // only to refill a stage found empty. (`Normal` has no rounds, so
        // nothing needs the queue moved behind the stage first.)
        if !self.is_empty() {
            loop {
                match self.staged.steal() {
                    Steal::Success(job) => {
                        return Some(Staged {
                            job,
                            moved: false,
                            left: self.staged.len(),
                        })
                    }
                    Steal::Retry => continue,
                    Steal::Empty => break,
                }
            }
        }
        self.take_with(
            injector.node_is_empty(node),
            |stage| injector.pop_batch_in_order_at(node, stage),
            |stage| injector.append_in_order_at(node, stage),
        )
    }

    /// `take` over a source of jobs from outside: whether it looked empty
    /// (a relaxed look, D12), how to take its oldest job and stage the
    /// rest, and how to stage all of them behind the stage's jobs.
    fn take_with(
        &self,
        source_empty: bool,
        pop_in_order: impl FnOnce(&Worker<JobRef>) -> Option<JobRef>,
        append_in_order: impl FnOnce(&Worker<JobRef>) -> bool,
    ) -> Option<Staged> {
        if self.is_empty() && source_empty {
            return None;
        }
        let stage = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        let (job, moved) = if stage.is_empty() {
            let job = pop_in_order(&stage)?;
            (job, !stage.is_empty())
        } else {
            let moved = append_in_order(&stage);
            let job = if bug!("stage_newest_first") {
                // The stage's newest job: the mistake V8 rules out.
                stage.pop()
            } else {
                // D17: the oldest; no thief takes from the stage.
                stage.pop_oldest()
            };
            (job?, moved)
        };
        Some(Staged {
            job,
            moved,
            left: stage.len(),
        })
    }
}

impl LevelQueues {
    fn new(stealers: Vec<Stealer<JobRef>>) -> Self {
        LevelQueues {
            injector: SubmitQueues::new(),
            stage: Stage::new(),
            stealers: stealers.into(),
        }
    }

    /// Whether a job of this level is queued anywhere: relaxed snapshots
    /// (Q4, D12), as in `Registry::has_work`, of the injector, the stage
    /// (V8) and the first `slots` deques (the slots ever held, W5).
    pub(crate) fn has_work(&self, slots: usize) -> bool {
        self.has_outside_work()
            || self.stealers[..slots.min(self.stealers.len())]
                .iter()
                .any(|s| !s.is_empty())
    }

    /// Whether the jobs queued from outside (the stage, then the injector)
    /// may hold one: relaxed looks (D12, Q4), so that a search of an idle
    /// level takes no lock.
    pub(crate) fn has_outside_work(&self) -> bool {
        !self.stage.is_empty() || !self.injector.is_empty()
    }

    /// V8: the oldest job queued from outside the pool at this level
    /// (`Stage::take`).
    pub(crate) fn take_outside(&self) -> Option<Staged> {
        self.stage.take(&self.injector)
    }
}

/// V8: which of its two sources of jobs at a level a worker serves, its
/// own deque of the level or the jobs queued from outside.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Source {
    Own,
    Outside,
}

impl Source {
    #[inline]
    pub(crate) fn other(self) -> Source {
        match self {
            Source::Own => Source::Outside,
            Source::Outside => Source::Own,
        }
    }
}

/// V8: a worker's rounds at each level other than `Normal`. A round
/// serves one source (its own deque of the level, or the jobs queued from
/// outside) for as many takes as that source held jobs when the round
/// began; then, or as soon as the source is empty, the other source's
/// round begins. So each source's jobs queued before its round began are
/// taken in that round, and a job waits for at most one round of the
/// other source: neither source holds the other back, and a burst from
/// one source runs together. Private to the worker: plain `Cell`s.
#[derive(Default)]
pub(crate) struct Rounds([Cell<u32>; SLOTS]);

/// `Rounds`' bit for a round of the jobs from outside; the bits below it
/// count the takes left in the round.
const OUTSIDE: u32 = 1 << 31;

impl Rounds {
    /// The source of the current round at `slot`, and how many more takes
    /// it has.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> (Source, u32) {
        let word = self.0[slot].get();
        let source = if word & OUTSIDE != 0 {
            Source::Outside
        } else {
            Source::Own
        };
        (source, word & !OUTSIDE)
    }

    /// Sets the round at `slot`: `source`, with `left` more takes.
    #[inline]
    pub(crate) fn set(&self, slot: usize, source: Source, left: usize) {
        let left = (left as u32).min(OUTSIDE - 1);
        let bit = if source == Source::Outside { OUTSIDE } else { 0 };
        self.0[slot].set(bit | left);
    }
}

/// The queues of every level other than `Normal`, and which levels were
/// ever used.
pub(crate) struct PriorityQueues {
    /// V1: the used-levels word, and `Normal`'s stage (V8). Padded: every
    /// search reads the word, and it would sit beside counters written
    /// per task; the stage's pointer, read-only too, shares its line, so
    /// that the registry keeps the layout of a pool without the stage.
    used: CachePadded<Used>,
    levels: [LevelQueues; SLOTS],
}

struct Used {
    /// V1: bit `slot` is set before the first task of that level is
    /// queued, and never cleared. Until a bit is set, searches and the
    /// sleepers' check skip the level's queues; with no bit set every
    /// search is the plain one.
    bits: AtomicUsize,
    /// V8: `Normal`'s jobs from outside taken out of the pool's injector
    /// and not yet taken to run: one stage per node's queue (Q10), every
    /// search's way to the jobs queued from outside (V9).
    normal: Box<[Box<Stage>]>,
}

impl PriorityQueues {
    pub(crate) fn new(stealers: [Vec<Stealer<JobRef>>; SLOTS]) -> Self {
        PriorityQueues {
            used: CachePadded::new(Used {
                bits: AtomicUsize::new(0),
                normal: Box::new([Stage::new()]),
            }),
            levels: stealers.map(LevelQueues::new),
        }
    }

    /// The queues of `slot`.
    #[inline]
    pub(crate) fn level(&self, slot: usize) -> &LevelQueues {
        &self.levels[slot]
    }

    /// V1: relaxed; the levels ever used, bit `slot` for each (zero: no
    /// task was ever queued at a level of its own).
    #[inline]
    pub(crate) fn in_use(&self) -> Levels {
        Levels(self.used.bits.load(RELAXED))
    }

    /// V1: relaxed, before the push that it announces. A load first: the
    /// RMW runs once per level (and per racing first push), never on a
    /// pool's steady path.
    #[inline]
    pub(crate) fn mark_used(&self, slot: usize) {
        let bit = 1 << slot;
        if self.used.bits.load(RELAXED) & bit == 0 {
            self.used.bits.fetch_or(bit, RELAXED);
        }
    }

    /// V4: whether any used level's queue holds a job, for the sleepers'
    /// final check, which is also what lets a worker exit at shutdown only
    /// once every level is drained (V6). The used-levels word first: read
    /// after S2, it is recent enough (V1), and a pool that never used a
    /// level pays one load here. `--cfg stealpool_bug="levels_unchecked"`
    /// leaves the levels out, the mistake V4 rules out.
    /// `slots`: how many slots were ever held (W5).
    pub(crate) fn has_work(&self, slots: usize) -> bool {
        let used = self.in_use();
        !bug!("levels_unchecked")
            && used.any()
            && (0..SLOTS).any(|slot| used.has(slot) && self.levels[slot].has_work(slots))
    }

    /// V8: whether `Normal`'s stage may hold a job (a relaxed look, D12).
    #[inline]
    pub(crate) fn has_normal_staged(&self) -> bool {
        self.used.normal.iter().any(|stage| !stage.is_empty())
    }

    /// Q10: one `Normal` stage per node's queue of the pool's injector,
    /// once the builder has placed the workers (before any job is queued).
    pub(crate) fn place_nodes(&mut self, nodes: usize) {
        self.used.normal = (0..nodes.max(1)).map(|_| Stage::new()).collect();
    }

    /// V8, V9: the oldest `Normal` job queued through the pool's
    /// `injector`, through the stage of node `own()`'s queue first, then
    /// the other nodes' in ring order (Q10; `own` is called only with
    /// several nodes): every search's take of jobs from outside.
    pub(crate) fn take_normal_outside(
        &self,
        injector: &SubmitQueues,
        own: impl FnOnce() -> usize,
    ) -> Option<Staged> {
        let stages = &self.used.normal;
        if stages.len() == 1 {
            return stages[0].take_node(injector, 0);
        }
        let (own, nodes) = (own(), stages.len());
        (own..nodes)
            .chain(0..own)
            .find_map(|node| stages[node].take_node(injector, node))
    }
}

/// A snapshot of the levels ever used (V1).
#[derive(Clone, Copy)]
pub(crate) struct Levels(usize);

impl Levels {
    /// Whether any level other than `Normal` was ever used.
    #[inline]
    pub(crate) fn any(self) -> bool {
        self.0 != 0
    }

    /// Whether `level` has queues of its own and was ever used.
    #[inline]
    pub(crate) fn has(self, slot: usize) -> bool {
        self.0 & (1 << slot) != 0
    }
}
