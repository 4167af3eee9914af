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
//!
//! Each test runs `shuttle::check_random` and then `shuttle::check_pct`
//! (depth 3) for the iterations stated beside it, through `shuttle_run.rs`,
//! which fails if fewer schedules ran. Shuttle is sequentially consistent:
//! the memory orderings are loom's job (`model/loom_priority.rs`).
//!
//! Run with `cargo test --features shuttle --test shuttle_priority` (the quick bounds;
//! `STEALPOOL_MODEL_BOUNDS=full` for the bounds stated here, `bounds.rs`);
//! each test prints a line as it starts and one as it ends.

#[path = "shuttle_run.rs"]
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
