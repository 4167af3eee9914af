//! Shuttle tests of the injector: many submitters, under randomized and PCT
//! schedules.
//!
//! * The queue alone (`src/lockfree/injector/queue.rs`, compiled here from its
//!   own source on shuttle's atomics through the facade, as in
//!   `model/loom/injector.rs`): four submitters push five values each while
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
//! * The queue's histories (`queue_linearizable`): pushes and
//!   `take_all_oldest_first`s of five threads, each history checked for
//!   linearizability against a queue taken whole, with the share of
//!   histories in which a take raced a push printed and held to a floor.
//!
//! Shuttle is sequentially consistent: the orderings are loom's job. Each
//! test runs the random scheduler and PCT (depth stated beside it) for the
//! schedules stated, and fails below them (`model/support/shuttle_run.rs`); each
//! prints "N schedules in T".
//!
//! Run with `cargo test --features shuttle --test shuttle_injector` (the quick bounds;
//! `STEALPOOL_MODEL_BOUNDS=full` for the bounds stated here, `support/bounds.rs`);
//! each test prints a line as it starts and one as it ends.

#[allow(dead_code)]
#[path = "../support/injector_harness.rs"]
mod injector_harness;
#[allow(dead_code)]
#[path = "../../src/lockfree/injector/queue.rs"]
mod injector_queue;
#[allow(dead_code)]
#[path = "../../src/lockfree/injector/ordering.rs"]
mod ordering;
#[path = "../support/shuttle_run.rs"]
mod shuttle_run;
#[allow(dead_code, unused_imports, clippy::all, unused_macros)]
#[path = "../../src/sync/mod.rs"]
mod sync;

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

/// A linearizability check of the queue (a pool object: every outside
/// submission goes through it), against the sequential specification of a
/// queue taken whole: `push(v)` appends `v`; `take()` returns every value
/// in the order pushed and empties the queue. The concurrent form is
/// `push` and `take_all_oldest_first` (Q2, Q3, Q7); each call is bracketed
/// by two ticks of one shuttle counter, as `lin/deque.rs` does for the
/// deque. Where the per-submitter checks above see only each submitter's
/// own order, this also holds the order between submitters to real time:
/// a push that returned before another was invoked comes out first.
mod queue_lin {
    use std::collections::HashSet;

    /// One call: thread, invoke and return ticks, and what it did.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Call {
        pub thread: usize,
        pub invoke: u64,
        pub ret: u64,
        pub op: Op,
    }

    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Op {
        Push(u64),
        /// A take and the values it returned, oldest first.
        Take(Vec<u64>),
    }

    /// Whether some order of `history` that respects real time (`a` before
    /// `b` when `a.ret < b.invoke`) is a legal run of the specification. A
    /// depth-first search over (calls placed, queue contents), each pair
    /// visited once; histories here are at most 32 calls.
    pub fn linearizable(history: &[Call]) -> bool {
        assert!(history.len() <= 32, "at most 32 calls");
        let mut seen = HashSet::new();
        search(history, 0, &mut Vec::new(), &mut seen)
    }

    fn search(
        history: &[Call],
        placed: u32,
        queue: &mut Vec<u64>,
        seen: &mut HashSet<(u32, Vec<u64>)>,
    ) -> bool {
        let left = |i: usize| placed & (1 << i) == 0;
        if (0..history.len()).all(|i| !left(i)) {
            return true;
        }
        if !seen.insert((placed, queue.clone())) {
            return false;
        }
        // A call may come next unless a call not placed yet returned before
        // it was invoked.
        let first_return = (0..history.len())
            .filter(|&i| left(i))
            .map(|i| history[i].ret)
            .min()
            .expect("a call is left");
        for i in (0..history.len()).filter(|&i| left(i) && history[i].invoke < first_return) {
            match &history[i].op {
                Op::Push(v) => {
                    queue.push(*v);
                    if search(history, placed | 1 << i, queue, seen) {
                        return true;
                    }
                    queue.pop();
                }
                Op::Take(values) if values == queue => {
                    let before = std::mem::take(queue);
                    if search(history, placed | 1 << i, queue, seen) {
                        return true;
                    }
                    *queue = before;
                }
                Op::Take(_) => {}
            }
        }
        false
    }

    /// Whether a take that returned two or more values overlapped a push of
    /// another thread: the race between Q2 and Q3 with an order to get right.
    pub fn raced(history: &[Call]) -> bool {
        history.iter().any(|t| {
            matches!(&t.op, Op::Take(values) if values.len() >= 2)
                && history.iter().any(|p| {
                    matches!(p.op, Op::Push(_))
                        && p.thread != t.thread
                        && p.invoke < t.ret
                        && t.invoke < p.ret
                })
        })
    }
}

#[test]
fn queue_lin_checker_on_hand_made_histories() {
    use queue_lin::{linearizable, Call, Op};
    let call = |thread, invoke, ret, op| Call {
        thread,
        invoke,
        ret,
        op,
    };
    // Two pushes one after the other: only the push order comes out.
    let in_order = [
        call(1, 1, 2, Op::Push(10)),
        call(2, 3, 4, Op::Push(20)),
        call(0, 5, 6, Op::Take(vec![10, 20])),
    ];
    assert!(linearizable(&in_order));
    let reversed = [
        call(1, 1, 2, Op::Push(10)),
        call(2, 3, 4, Op::Push(20)),
        call(0, 5, 6, Op::Take(vec![20, 10])),
    ];
    assert!(!linearizable(&reversed));
    // Overlapping pushes: either order.
    let overlapping = [
        call(1, 1, 3, Op::Push(10)),
        call(2, 2, 4, Op::Push(20)),
        call(0, 5, 6, Op::Take(vec![20, 10])),
    ];
    assert!(linearizable(&overlapping));
    // A take overlapping a push may or may not see it, but a later take
    // must then get it; a value taken twice or never pushed is refused.
    let split = [
        call(1, 1, 4, Op::Push(10)),
        call(0, 2, 3, Op::Take(vec![])),
        call(0, 5, 6, Op::Take(vec![10])),
    ];
    assert!(linearizable(&split));
    let twice = [
        call(1, 1, 2, Op::Push(10)),
        call(0, 3, 4, Op::Take(vec![10])),
        call(2, 5, 6, Op::Take(vec![10])),
    ];
    assert!(!linearizable(&twice));
    let lost = [call(1, 1, 2, Op::Push(10)), call(0, 3, 4, Op::Take(vec![]))];
    assert!(!linearizable(&lost));
    assert!(queue_lin::raced(&[
        call(1, 1, 4, Op::Push(10)),
        call(0, 2, 5, Op::Take(vec![20, 10])),
        call(2, 0, 1, Op::Push(20)),
    ]));
}

/// 10 000 random schedules (fixed seed): three submitters push two values
/// each while two consumers take everything twice each, oldest first, then
/// the main thread takes what is left; every history must be linearizable.
/// The `batch_newest_first` bug flag (Q7) fails it. Floor: nine in ten of
/// the histories with a take of two or more values overlapping another
/// thread's push (measured: 1947 of 2000, 97%; the seed is fixed, so the
/// count is the same every run).
#[test]
fn queue_linearizable() {
    use queue_lin::{Call, Op};
    use shuttle::sync::atomic::AtomicU64;
    let histories = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let raced = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (h, r) = (histories.clone(), raced.clone());
    shuttle_run::run_seeded(
        "shuttle_injector",
        "queue_linearizable",
        Schedule::Random { iterations: 10_000 },
        Some(0x5EED_0101),
        move || {
            let clock = Arc::new(AtomicU64::new(1));
            let drops = Arc::new(AtomicUsize::new(0));
            let queue = Arc::new(Queue::new());
            let record = |clock: &AtomicU64, thread: usize, call: &mut dyn FnMut() -> Op| {
                let invoke = clock.fetch_add(1, Ordering::SeqCst);
                let op = call();
                let ret = clock.fetch_add(1, Ordering::SeqCst);
                Call {
                    thread,
                    invoke,
                    ret,
                    op,
                }
            };
            let take = |queue: &Queue<Box<Item>>| {
                let values = queue
                    .take_all_oldest_first()
                    .map(|item| (item.submitter * 10 + item.sequence) as u64)
                    .collect();
                Op::Take(values)
            };
            let threads: Vec<_> = (1..=5)
                .map(|thread| {
                    let (queue, drops, clock) = (queue.clone(), drops.clone(), clock.clone());
                    thread::spawn(move || {
                        let mut calls = Vec::new();
                        for sequence in 0..2 {
                            calls.push(record(&clock, thread, &mut || {
                                if thread <= 3 {
                                    queue.push(Item::boxed(thread, sequence, &drops));
                                    Op::Push((thread * 10 + sequence) as u64)
                                } else {
                                    take(&queue)
                                }
                            }));
                        }
                        calls
                    })
                })
                .collect();
            let mut history: Vec<Call> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
            history.push(record(&clock, 0, &mut || take(&queue)));
            assert!(
                queue_lin::linearizable(&history),
                "the queue's history is not linearizable: {history:#?}"
            );
            h.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            r.fetch_add(
                usize::from(queue_lin::raced(&history)),
                std::sync::atomic::Ordering::Relaxed,
            );
        },
    );
    let (histories, raced) = (
        histories.load(std::sync::atomic::Ordering::Relaxed),
        raced.load(std::sync::atomic::Ordering::Relaxed),
    );
    shuttle_run::progress::line(format_args!(
        "shuttle_injector queue_linearizable: overlap: of {histories} histories, {raced} had a take of two or more \
         values overlapping another thread's push"
    ));
    assert!(
        histories > 0 && 10 * raced >= 9 * histories,
        "only {raced} of {histories} histories raced a take against a push"
    );
}
