//! Shuttle tests of task priorities (`proofs/priority.md`): larger
//! scenarios than loom can afford, under random and PCT schedules.
//!
//! * `mixed_levels_nested`: 3 workers; tasks at every level from outside,
//!   each queueing children at other levels from inside (on the worker's
//!   own deques of those levels), so every queue is pushed, taken in
//!   batches and stolen from; every task runs exactly once, `wait_all`
//!   returns only after all of them, and the statistics count each level.
//! * `shutdown_drains_every_level`: 2 workers; the pool is dropped right
//!   after tasks at every level were queued, some of which queue more: all
//!   run exactly once before the drop returns (V6).
//! * `order_one_worker`: 1 worker held at a gate while tasks at every level
//!   are queued from outside: they run most urgent first (V3).
//! * `fifo_one_worker`: 1 worker; the caller queues tasks at every level
//!   while a task on the worker queues more at the levels with queues of
//!   their own: each submitter's tasks of a level run in the order it
//!   queued them (V7), whatever the interleaving and the share's turns.
//! * `fifo_thief`: 2 workers; the worker holding a level's tasks (an
//!   injector batch, or its own) is held, and the other runs them all,
//!   stealing the oldest first: in the order queued (V7).
//! * `fifo_two_workers`: 2 workers; worker Y comes to hold a level's
//!   tasks (from outside, or queued by a task on Y) and holds task 0,
//!   worker X then takes and holds task 1, and Y goes on with the rest:
//!   every task starts in the order queued (V8: a thief takes one task,
//!   the oldest; jobs from outside wait in one stage every worker takes
//!   from). The old rule, a thief taking half of Y's tasks, fails it.
//!   Also `Normal` from outside after a level was used: its stage (V8);
//!   `normal_batch_plain`, the plain search's batch, fails it.
//!
//! Each test runs `shuttle::check_random` and then `shuttle::check_pct`
//! (depth 3) for the iterations stated beside it, through `support/shuttle_run.rs`,
//! which fails if fewer schedules ran. Shuttle is sequentially consistent:
//! the memory orderings are loom's job (`model/loom/priority.rs`).
//!
//! Run with `cargo test --features shuttle --test shuttle_priority` (the quick bounds;
//! `STEALPOOL_MODEL_BOUNDS=full` for the bounds stated here, `support/bounds.rs`);
//! each test prints a line as it starts and one as it ends.

#[path = "../support/shuttle_run.rs"]
mod shuttle_run;
use shuttle::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shuttle::sync::{Condvar, Mutex};
use shuttle_run::{run, Schedule};
use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};
use std::sync::Arc;
use stealpool::{Priority, ThreadPool};

const LEVELS: [Priority; 4] = [
    Priority::Low,
    Priority::Normal,
    Priority::High,
    Priority::Critical,
];

/// Runs `test` under the random scheduler, then under PCT (depth 3), for
/// `iterations` schedules each.
fn check(name: &str, iterations: usize, test: impl Fn() + Send + Sync + 'static) {
    let test = Arc::new(test);
    let random = test.clone();
    run(
        "shuttle_priority",
        name,
        Schedule::Random { iterations },
        move || random(),
    );
    run(
        "shuttle_priority",
        name,
        Schedule::Pct { iterations, depth: 3 },
        move || test(),
    );
}

/// How often each task ran, by its number.
struct Runs(Vec<AtomicUsize>);

/// `Runs` dropped with every task run exactly once, and otherwise: the
/// last reference may go on any thread, a worker included, after the test
/// body has returned, so the check is counted here (outside the facade)
/// and asserted once the schedules are done.
static COMPLETE: StdAtomicUsize = StdAtomicUsize::new(0);
static INCOMPLETE: StdAtomicUsize = StdAtomicUsize::new(0);

impl Drop for Runs {
    fn drop(&mut self) {
        let complete = self.0.iter().all(|runs| runs.load(SeqCst) == 1);
        let counter = if complete { &COMPLETE } else { &INCOMPLETE };
        counter.fetch_add(1, StdOrdering::Relaxed);
    }
}

impl Runs {
    fn new(tasks: usize) -> Arc<Runs> {
        Arc::new(Runs((0..tasks).map(|_| AtomicUsize::new(0)).collect()))
    }

    fn run(&self, task: usize) {
        let before = self.0[task].fetch_add(1, SeqCst);
        assert_eq!(before, 0, "task {task} ran twice");
    }

    fn assert_each_ran_once(&self) {
        for (task, runs) in self.0.iter().enumerate() {
            assert_eq!(
                runs.load(SeqCst),
                1,
                "task {task} ran {} times",
                runs.load(SeqCst)
            );
        }
    }
}

/// Queues, at every level, one task that queues a child one level up
/// (`Critical`: down to `Low`) from inside the pool, on the worker's own
/// deque of that level. Tasks `0..4` are the parents, `4..8` their
/// children. Each parent holds a reference to the pool until it has queued
/// its child.
fn queue_parents_and_children(pool: &Arc<ThreadPool>, runs: &Arc<Runs>) {
    for (i, &priority) in LEVELS.iter().enumerate() {
        let (runs, inner) = (runs.clone(), pool.clone());
        pool.spawn_with_priority(priority, move || {
            runs.run(i);
            let child_runs = runs.clone();
            inner.spawn_with_priority(LEVELS[(i + 1) % 4], move || child_runs.run(4 + i));
        });
    }
}

// 3000 random + 3000 PCT schedules.
#[test]
fn mixed_levels_nested() {
    check("mixed_levels_nested", 3000, || {
        let pool = Arc::new(ThreadPool::new(3));
        let runs = Runs::new(8);
        queue_parents_and_children(&pool, &runs);
        pool.wait_all();
        runs.assert_each_ran_once();
        // Each level ran its parent and one child.
        assert_eq!(pool.stats().tasks_by_priority, [2, 2, 2, 2]);
        Arc::try_unwrap(pool).ok().unwrap().shutdown();
    });
}

// 3000 random + 3000 PCT schedules for each of the two.
//
// The pool is dropped as soon as its tasks are queued. In the first, the
// parents hold it, so the last reference goes on the caller or on a worker
// (whose drop does not join: the workers drain and exit on their own);
// the children are queued during the drain. Every task must still run
// once: counted when the last reference to the record goes, wherever that
// is, and asserted after the schedules.
#[test]
fn shutdown_drains_every_level() {
    let before = COMPLETE.load(StdOrdering::Relaxed);
    check("shutdown_drains_every_level_nested", 3000, || {
        let pool = Arc::new(ThreadPool::new(2));
        let runs = Runs::new(8);
        queue_parents_and_children(&pool, &runs);
    });
    check("shutdown_drains_every_level_queued", 3000, || {
        let pool = ThreadPool::new(2);
        let runs = Runs::new(4);
        for (i, &priority) in LEVELS.iter().enumerate() {
            let runs = runs.clone();
            pool.spawn_with_priority(priority, move || runs.run(i));
        }
        drop(pool);
        runs.assert_each_ran_once();
    });
    assert_eq!(
        INCOMPLETE.load(StdOrdering::Relaxed),
        0,
        "a task was dropped unrun"
    );
    // One record per schedule: two tests, each random and PCT.
    assert!(COMPLETE.load(StdOrdering::Relaxed) - before >= 4 * shuttle_run::bounds::schedules(3000));
}

// 2000 random + 2000 PCT schedules.
#[test]
fn order_one_worker() {
    check("order_one_worker", 2000, || {
        let pool = ThreadPool::new(1);
        // (the gate task started, the gate is open)
        let gate = Arc::new((Mutex::new((false, false)), Condvar::new()));
        let held = gate.clone();
        pool.spawn(move || {
            let mut state = held.0.lock().unwrap();
            state.0 = true;
            held.1.notify_all();
            while !state.1 {
                state = held.1.wait(state).unwrap();
            }
        });
        {
            let mut state = gate.0.lock().unwrap();
            while !state.0 {
                state = gate.1.wait(state).unwrap();
            }
        }
        let order = Arc::new(Mutex::new(Vec::new()));
        for priority in LEVELS {
            let order = order.clone();
            pool.spawn_with_priority(priority, move || order.lock().unwrap().push(priority));
        }
        gate.0.lock().unwrap().1 = true;
        gate.1.notify_all();
        drop(pool);
        let expected = [
            Priority::Critical,
            Priority::High,
            Priority::Normal,
            Priority::Low,
        ];
        assert_eq!(*order.lock().unwrap(), expected);
    });
}

/// A gate a task waits at: `started` once the task is in, `open` to let
/// it go on.
struct Gate {
    state: Mutex<(bool, bool)>,
    changed: Condvar,
}

impl Gate {
    fn new() -> Arc<Gate> {
        Arc::new(Gate {
            state: Mutex::new((false, false)),
            changed: Condvar::new(),
        })
    }

    /// In the task: say it started, wait until the gate opens.
    fn hold(&self) {
        let mut state = self.state.lock().unwrap();
        state.0 = true;
        self.changed.notify_all();
        while !state.1 {
            state = self.changed.wait(state).unwrap();
        }
    }

    fn wait_started(&self) {
        let mut state = self.state.lock().unwrap();
        while !state.0 {
            state = self.changed.wait(state).unwrap();
        }
    }

    fn open(&self) {
        self.state.lock().unwrap().1 = true;
        self.changed.notify_all();
    }
}

/// The start order of tasks: (submitter, level, number).
type Log = Arc<Mutex<Vec<(usize, Priority, usize)>>>;

/// Asserts that each submitter's tasks of each level started in the order
/// it queued them.
fn assert_fifo(log: &Log, submitters: usize) {
    let log = log.lock().unwrap();
    for submitter in 0..submitters {
        for priority in LEVELS {
            let numbers: Vec<usize> = log
                .iter()
                .filter(|&&(s, p, _)| s == submitter && p == priority)
                .map(|&(_, _, n)| n)
                .collect();
            let mut sorted = numbers.clone();
            sorted.sort_unstable();
            assert_eq!(
                numbers, sorted,
                "submitter {submitter}, {priority:?}: out of order ({log:?})"
            );
        }
    }
}

// 3000 random + 3000 PCT schedules (0.6 s each).
#[test]
fn fifo_one_worker() {
    check("fifo_one_worker", 3000, || {
        let pool = Arc::new(ThreadPool::new(1));
        let log: Log = Arc::new(Mutex::new(Vec::new()));
        // Submitter 1: a task on the worker, at the levels with queues of
        // their own (`Normal`'s own tasks run newest first, the pool's order).
        let (inner, inner_log) = (pool.clone(), log.clone());
        pool.spawn(move || {
            for n in 0..3 {
                for priority in [Priority::Low, Priority::High, Priority::Critical] {
                    let log = inner_log.clone();
                    inner.spawn_with_priority(priority, move || log.lock().unwrap().push((1, priority, n)));
                }
            }
        });
        // Submitter 0: the caller, at every level, while the worker runs.
        for n in 0..3 {
            for priority in LEVELS {
                let log = log.clone();
                pool.spawn_with_priority(priority, move || log.lock().unwrap().push((0, priority, n)));
            }
        }
        pool.wait_all();
        assert_eq!(log.lock().unwrap().len(), 21, "a task ran twice or never");
        assert_fifo(&log, 2);
        Arc::try_unwrap(pool).ok().unwrap().shutdown();
    });
}

// 1000 random + 1000 PCT schedules for each level and each source (0.2 s
// each).
#[test]
fn fifo_thief() {
    for priority in [Priority::Low, Priority::High, Priority::Critical] {
        for from_inside in [false, true] {
            let name = format!(
                "fifo_thief_{priority:?}_{}",
                if from_inside { "inside" } else { "outside" }
            );
            check(&name, 1000, move || {
                let pool = Arc::new(ThreadPool::new(2));
                let log: Log = Arc::new(Mutex::new(Vec::new()));
                let done = Arc::new(AtomicUsize::new(0));
                let rest = Gate::new();
                // Worker X, the thief, held until the tasks are queued.
                let thief = Gate::new();
                let held = thief.clone();
                pool.spawn(move || held.hold());
                thief.wait_started();
                let task = {
                    let (log, done, rest) = (log.clone(), done.clone(), rest.clone());
                    move |n: usize| {
                        let (log, done, rest) = (log.clone(), done.clone(), rest.clone());
                        move || {
                            log.lock().unwrap().push((0, priority, n));
                            if n == 0 {
                                // The holder waits here until the thief ran
                                // the others.
                                rest.hold();
                            } else if done.fetch_add(1, SeqCst) + 1 == 3 {
                                rest.open();
                            }
                        }
                    }
                };
                // Worker Y holds the tasks: it queues them on its own deque,
                // or takes them from the injector as a batch, and runs task 0.
                if from_inside {
                    let inner = pool.clone();
                    pool.spawn_with_priority(priority, move || {
                        for n in 0..4 {
                            inner.spawn_with_priority(priority, task(n));
                        }
                    });
                    // The spawner ends; Y runs task 0 next (its oldest), or
                    // X is still held: either way task 0 runs first on Y.
                } else {
                    let holder = Gate::new();
                    let held = holder.clone();
                    pool.spawn(move || held.hold());
                    holder.wait_started();
                    for n in 0..4 {
                        pool.spawn_with_priority(priority, task(n));
                    }
                    holder.open();
                }
                rest.wait_started();
                thief.open();
                pool.wait_all();
                let numbers: Vec<usize> = log.lock().unwrap().iter().map(|&(_, _, n)| n).collect();
                assert_eq!(numbers, [0, 1, 2, 3], "the thief did not take the oldest first");
                Arc::try_unwrap(pool).ok().unwrap().shutdown();
            });
        }
    }
}

// 1000 random + 1000 PCT schedules for each level and each source, and
// for `Normal` from outside in a pool that used a level (its stage, V8)
// and in a plain pool (the same take, V9).
// `STEALPOOL_BUG=normal_batch_plain` fails it (model/scripts/lin_mutants.sh).
#[test]
fn fifo_two_workers() {
    for (priority, plain) in [
        (Priority::Low, false),
        (Priority::High, false),
        (Priority::Critical, false),
        (Priority::Normal, false),
        (Priority::Normal, true),
    ] {
        for from_inside in [false, true] {
            if priority == Priority::Normal && from_inside {
                // A worker's own `Normal` tasks run newest first.
                continue;
            }
            let name = format!(
                "fifo_two_workers_{priority:?}_{}{}",
                if from_inside { "inside" } else { "outside" },
                if plain { "_plain" } else { "" }
            );
            check(&name, 1000, move || {
                const COUNT: usize = 5;
                let pool = Arc::new(ThreadPool::new(2));
                if priority == Priority::Normal && !plain {
                    // A level in use: every search is the per-level one (V1).
                    pool.spawn_with_priority(Priority::Low, || {});
                    pool.wait_all();
                }
                let log: Log = Arc::new(Mutex::new(Vec::new()));
                let done = Arc::new(AtomicUsize::new(0));
                // Task 0 holds Y at `first`, task 1 holds X at `second`
                // until Y ran tasks 2.. .
                let (first, second) = (Gate::new(), Gate::new());
                // Worker X, held until Y holds task 0.
                let x = Gate::new();
                let held = x.clone();
                pool.spawn(move || held.hold());
                x.wait_started();
                let task = {
                    let (log, done, first, second) =
                        (log.clone(), done.clone(), first.clone(), second.clone());
                    move |n: usize| {
                        let (log, done, first, second) =
                            (log.clone(), done.clone(), first.clone(), second.clone());
                        move || {
                            log.lock().unwrap().push((0, priority, n));
                            match n {
                                0 => first.hold(),
                                1 => second.hold(),
                                _ => {
                                    if done.fetch_add(1, SeqCst) + 1 == COUNT - 2 {
                                        second.open();
                                    }
                                }
                            }
                        }
                    }
                };
                if from_inside {
                    // On Y: queued on Y's deque of the level; Y then takes
                    // its oldest, task 0.
                    let inner = pool.clone();
                    pool.spawn(move || {
                        for n in 0..COUNT {
                            inner.spawn_with_priority(priority, task(n));
                        }
                    });
                } else {
                    let y = Gate::new();
                    let held = y.clone();
                    pool.spawn(move || held.hold());
                    y.wait_started();
                    for n in 0..COUNT {
                        pool.spawn_with_priority(priority, task(n));
                    }
                    y.open();
                }
                first.wait_started();
                x.open();
                second.wait_started();
                first.open();
                pool.wait_all();
                let numbers: Vec<usize> = log.lock().unwrap().iter().map(|&(_, _, n)| n).collect();
                assert_eq!(
                    numbers,
                    [0, 1, 2, 3, 4],
                    "a task started before an older one of its submitter"
                );
                Arc::try_unwrap(pool).ok().unwrap().shutdown();
            });
        }
    }
}
