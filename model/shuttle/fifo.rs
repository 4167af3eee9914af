//! Shuttle tests of FIFO spawns and scopes (`proofs/fifo.md`, E1-E3),
//! under random and PCT schedules.
//!
//! * `scope_fifo_two_workers`: 2 workers (and it asserts that some
//!   schedule had a FIFO task run on the other worker than the body's); a FIFO scope's body spawns FIFO
//!   tasks, some of which spawn more, all borrowing the scope's counts from
//!   the caller's stack; the other worker takes markers as a thief (and
//!   shuttle's coin lets thieves in, N2). Every task runs exactly once, and
//!   `scope_fifo` returns only after all of them ran (E2: a marker always
//!   finds a job; E3: the scope's queues outlive every marker).
//! * `spawn_fifo_two_workers`: 2 workers; a task interleaves `spawn_fifo`
//!   and `spawn` on its worker's deque, one FIFO task spawning another;
//!   `wait_all` returns only after every task ran, each exactly once.
//! * `scope_fifo_one_worker_order`: 1 worker: FIFO tasks start in the order
//!   spawned, whatever the schedule (E1).
//! * `fifo_scope_inside_waiting_scope`: 1 worker, no spare thread: a FIFO
//!   scope nested in a task of a waiting scope, with the pool's FIFO spawns
//!   rerouted beside it; no schedule deadlocks (H7 runs the FIFO scope's
//!   own markers).
//!
//! The bug flag `fifo_marker_first` pushes the marker before its job
//! (against E1): a thief that runs the marker in between finds the queue
//! empty, and `scope_fifo_two_workers` fails.
//!
//! Each test runs `shuttle::check_random` and then `shuttle::check_pct`
//! (depth 3) for the iterations stated beside it (the full bounds; the
//! quick bounds run a tenth), through `support/shuttle_run.rs`, which fails
//! if fewer schedules ran. Shuttle is sequentially consistent: E1's
//! visibility rests on the deque's and the injector's orderings, which
//! their loom models check.
//!
//! Run with `cargo test --features shuttle --test shuttle_fifo`.

#[path = "../support/shuttle_run.rs"]
mod shuttle_run;
use shuttle::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shuttle::sync::Mutex;
use shuttle_run::{run, Schedule};
use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};
use std::sync::Arc;
use stealpool::ThreadPool;

/// Schedules of `scope_fifo_two_workers` in which a FIFO task ran on
/// another worker than the body's: a thief took a marker. Counted outside
/// the facade, asserted once the schedules are done.
static STOLEN: StdAtomicUsize = StdAtomicUsize::new(0);

/// Runs `test` under the random scheduler, then under PCT (depth 3), for
/// `iterations` schedules each.
fn check(name: &str, iterations: usize, test: impl Fn() + Send + Sync + 'static) {
    let test = Arc::new(test);
    let random = test.clone();
    run("shuttle_fifo", name, Schedule::Random { iterations }, move || {
        random()
    });
    run(
        "shuttle_fifo",
        name,
        Schedule::Pct { iterations, depth: 3 },
        move || test(),
    );
}

/// How often each task ran, by its number.
struct Runs(Vec<AtomicUsize>);

impl Runs {
    fn new(tasks: usize) -> Runs {
        Runs((0..tasks).map(|_| AtomicUsize::new(0)).collect())
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

// 10000 random + 10000 PCT schedules; at least one schedule must have a
// thief run a marker.
#[test]
fn scope_fifo_two_workers() {
    check("scope_fifo_two_workers", 10_000, || {
        let pool = ThreadPool::new(2);
        let runs = Runs::new(5);
        let runs = &runs;
        let elsewhere = AtomicUsize::new(0);
        let elsewhere = &elsewhere;
        pool.scope_fifo(|s| {
            let body = stealpool::current_thread_index();
            let run = move |task: usize| {
                runs.run(task);
                if stealpool::current_thread_index() != body {
                    elsewhere.fetch_add(1, SeqCst);
                }
            };
            s.spawn_fifo(move |s| {
                run(0);
                s.spawn_fifo(move |_| run(3));
                s.spawn_fifo(move |_| run(4));
            });
            s.spawn_fifo(move |_| run(1));
            s.spawn_fifo(move |_| run(2));
        });
        // The scope returned: every task has run, once.
        runs.assert_each_ran_once();
        if elsewhere.load(SeqCst) > 0 {
            STOLEN.fetch_add(1, StdOrdering::Relaxed);
        }
    });
    assert!(
        STOLEN.load(StdOrdering::Relaxed) > 0,
        "no schedule had a thief run a FIFO task: the model explored no steal"
    );
}

// 10000 random + 10000 PCT schedules.
#[test]
fn spawn_fifo_two_workers() {
    check("spawn_fifo_two_workers", 10_000, || {
        let pool = ThreadPool::new(2);
        let runs = Arc::new(Runs::new(4));
        let inner = runs.clone();
        pool.spawn(move || {
            let (a, b, c) = (inner.clone(), inner.clone(), inner);
            stealpool::spawn_fifo(move || {
                a.run(0);
                stealpool::spawn_fifo(move || a.run(3));
            });
            stealpool::spawn(move || b.run(1));
            stealpool::spawn_fifo(move || c.run(2));
        });
        pool.wait_all();
        runs.assert_each_ran_once();
    });
}

// 2000 random + 2000 PCT schedules.
#[test]
fn scope_fifo_one_worker_order() {
    check("scope_fifo_one_worker_order", 2_000, || {
        let pool = ThreadPool::new(1);
        let order = Mutex::new(Vec::new());
        let order_ref = &order;
        pool.scope_fifo(|s| {
            for i in 0..3 {
                s.spawn_fifo(move |s| {
                    order_ref.lock().unwrap().push(i);
                    s.spawn_fifo(move |_| order_ref.lock().unwrap().push(10 + i));
                });
            }
        });
        assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 10, 11, 12]);
    });
}

// 2000 random + 2000 PCT schedules.
#[test]
fn fifo_scope_inside_waiting_scope() {
    check("fifo_scope_inside_waiting_scope", 2_000, || {
        let pool = ThreadPool::builder()
            .num_threads(1)
            .max_blocking_threads(0)
            .build()
            .unwrap();
        let runs = Arc::new(Runs::new(4));
        let runs_ref = &runs;
        pool.scope(|outer| {
            outer.spawn(move |_| {
                let pooled = runs_ref.clone();
                // The pool's marker: rerouted by the waits below it.
                stealpool::spawn_fifo(move || pooled.run(3));
                stealpool::scope_fifo(|s| {
                    for i in 0..3 {
                        s.spawn_fifo(move |_| runs_ref.run(i));
                    }
                });
            });
        });
        pool.wait_all();
        runs.assert_each_ran_once();
    });
}
