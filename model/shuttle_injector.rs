//! Shuttle tests of the injector: many submitters, under randomized and PCT
//! schedules.
//!
//! * The queue alone (`src/pool/injector_queue.rs`, compiled here from its
//!   own source on shuttle's atomics through the facade, as in
//!   `model/loom_injector.rs`): four submitters push five values each while
//!   two consumers run batches as workers do; every value runs at most once,
//!   each consumer's in push order per submitter (Q5); the queue is dropped
//!   with what is left, and every value is dropped exactly once.
//! * The whole pool, two workers: four threads outside the pool spawn tasks
//!   through the injector while the workers batch them onto their deques and
//!   steal them; every task runs exactly once, then the pool's drop joins
//!   every worker (a stranded task would leave the drop blocked: shuttle
//!   reports the deadlock).
//! * The whole pool, one worker: three outside submitters; each one's tasks
//!   run in the order it spawned them (Q5 through `pop_batch` and the
//!   deque), none lost at the drop.
//!
//! Shuttle is sequentially consistent: the orderings are loom's job. Each
//! test runs the random scheduler and PCT (depth stated beside it) for the
//! schedules stated, and fails below them (`model/shuttle_run.rs`); each
//! prints "N schedules in T".
//!
//! Run with `cargo test --features shuttle --test shuttle_injector` (the quick bounds;
//! `STEALPOOL_MODEL_BOUNDS=full` for the bounds stated here, `bounds.rs`);
//! each test prints a line as it starts and one as it ends.

#[allow(dead_code)]
#[path = "injector_harness.rs"]
mod injector_harness;
#[allow(dead_code)]
#[path = "../src/pool/injector_ordering.rs"]
mod injector_ordering;
#[allow(dead_code)]
#[path = "../src/pool/injector_queue.rs"]
mod injector_queue;
#[path = "shuttle_run.rs"]
mod shuttle_run;
#[allow(dead_code, unused_imports, clippy::all)]
#[path = "../src/sync.rs"]
mod sync;
#[allow(dead_code, unused_imports, unused_macros)]
#[path = "../src/weaken.rs"]
mod weaken;

use injector_harness::{pop_batch_in_run_order, FifoCheck, Item};
use injector_queue::Queue;
use shuttle::sync::atomic::{AtomicUsize, Ordering};
use shuttle::sync::{Arc, Mutex};
use shuttle::thread;
use shuttle_run::{run, Schedule};
use stealpool::ThreadPool;

const SUBMITTERS: usize = 4;
const PER_SUBMITTER: usize = 5;

/// Runs `test` under the random scheduler, then PCT at `depth`, for
/// `iterations` schedules each.
fn check(name: &str, iterations: usize, depth: usize, test: impl Fn() + Send + Sync + 'static) {
    let test = std::sync::Arc::new(test);
    let random = test.clone();
    run(
        "shuttle_injector",
        name,
        Schedule::Random { iterations },
        move || random(),
    );
    run(
        "shuttle_injector",
        name,
        Schedule::Pct { iterations, depth },
        move || test(),
    );
}

// 20 000 random + 20 000 PCT (depth 3) schedules.
#[test]
fn many_submitters_two_consumers() {
    check("many_submitters_two_consumers", 20_000, 3, || {
        let drops = Arc::new(AtomicUsize::new(0));
        let queue = Arc::new(Queue::new());
        let runs = Arc::new(Mutex::new(vec![0usize; SUBMITTERS * PER_SUBMITTER]));
        let submitters: Vec<_> = (0..SUBMITTERS)
            .map(|submitter| {
                let (queue, drops) = (queue.clone(), drops.clone());
                thread::spawn(move || {
                    for sequence in 0..PER_SUBMITTER {
                        queue.push(Item::boxed(submitter, sequence, &drops));
                    }
                })
            })
            .collect();
        let consumers: Vec<_> = (0..2)
            .map(|_| {
                let (queue, runs) = (queue.clone(), runs.clone());
                thread::spawn(move || {
                    let mut fifo = FifoCheck::new(SUBMITTERS);
                    for _ in 0..3 {
                        for item in pop_batch_in_run_order(&queue) {
                            fifo.saw(item.submitter, item.sequence);
                            runs.lock().unwrap()[item.submitter * PER_SUBMITTER + item.sequence] += 1;
                        }
                        thread::yield_now();
                    }
                })
            })
            .collect();
        for s in submitters {
            s.join().unwrap();
        }
        for c in consumers {
            c.join().unwrap();
        }
        let left = {
            let runs = runs.lock().unwrap();
            assert!(runs.iter().all(|&n| n <= 1), "a value ran twice: {runs:?}");
            runs.iter().filter(|&&n| n == 0).count()
        };
        // What nobody took is still queued, and goes with the queue.
        assert_eq!(drops.load(Ordering::Relaxed), SUBMITTERS * PER_SUBMITTER - left);
        drop(Arc::try_unwrap(queue).unwrap_or_else(|_| panic!("the last reference")));
        assert_eq!(drops.load(Ordering::Relaxed), SUBMITTERS * PER_SUBMITTER);
    });
}

/// `per` tasks from each of `SUBMITTERS` outside threads on a pool of
/// `workers`, then the pool's drop; returns the order the tasks ran in.
fn spawn_from_outside(workers: usize, per: usize) -> Vec<(usize, usize)> {
    let pool = Arc::new(ThreadPool::new(workers));
    let log = Arc::new(Mutex::new(Vec::new()));
    let submitters: Vec<_> = (0..SUBMITTERS)
        .map(|submitter| {
            let (pool, log) = (pool.clone(), log.clone());
            thread::spawn(move || {
                for sequence in 0..per {
                    let log = log.clone();
                    pool.spawn(move || log.lock().unwrap().push((submitter, sequence)));
                }
            })
        })
        .collect();
    for s in submitters {
        s.join().unwrap();
    }
    // The drop drains the queues and joins the workers.
    drop(Arc::try_unwrap(pool).unwrap_or_else(|_| panic!("the last reference")));
    let log = log.lock().unwrap().clone();
    let mut sorted = log.clone();
    sorted.sort_unstable();
    let expected: Vec<_> = (0..SUBMITTERS)
        .flat_map(|s| (0..per).map(move |i| (s, i)))
        .collect();
    assert_eq!(sorted, expected, "tasks lost or run twice: {log:?}");
    log
}

// 10 000 random + 10 000 PCT (depth 3) schedules.
#[test]
fn pool_many_submitters() {
    check("pool_many_submitters", 10_000, 3, || {
        spawn_from_outside(2, 3);
    });
}

// 10 000 random + 10 000 PCT (depth 3) schedules.
#[test]
fn pool_one_worker_fifo_per_submitter() {
    check("pool_one_worker_fifo_per_submitter", 10_000, 3, || {
        let mut fifo = FifoCheck::new(SUBMITTERS);
        for (submitter, sequence) in spawn_from_outside(1, 3) {
            fifo.saw(submitter, sequence);
        }
    });
}
