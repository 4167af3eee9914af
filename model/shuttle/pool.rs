//! Shuttle tests of the pool: larger scenarios than loom can afford, under
//! randomized and PCT schedules.
//!
//! Pools of 2 to 4 workers run whole workloads through the public API, with
//! the pool's threads as shuttle threads: spawn storms from outside and from
//! inside, nested `join`, scopes with nested spawns borrowing from the stack,
//! `wait_all` from outside and from inside tasks, tasks that submit and join
//! subtasks, `JoinHandle` polled as a `Future`, shutdown with tasks still
//! queued, panics on every path, and random graphs of continuations
//! (`then`, `zip`, `when_all`). Each test checks that:
//!
//! * every piece of work ran exactly once (a `Ledger` of run counts, checked
//!   as each piece runs and again at the end);
//! * nothing leaked and nothing was dropped unrun: every closure captures a
//!   `Token`, and the tokens made equal the tokens dropped once the pool is
//!   gone;
//! * a wait returned only once what it waits for had finished;
//! * no schedule deadlocks (shuttle fails an execution whose threads all
//!   block) and the pool's drop joins every worker.
//!
//! Every test runs `shuttle::check_random` and then `shuttle::check_pct`
//! (depth stated beside it) for the iterations stated in the test, counts
//! the executions with a plain `std` atomic and fails below its floor, half
//! the iterations asked for, so a harness that runs next to nothing cannot
//! pass. Shuttle runs one execution per iteration. The iterations stated are
//! the full bounds (`STEALPOOL_MODEL_BOUNDS=full`, what `model/scripts/verify.sh`
//! runs); the default quick bounds run a tenth of them, floor halved alike
//! (`support/bounds.rs`). Each test prints a line as it starts and one with its
//! executions as it ends, past libtest's capture (`support/progress.rs`).
//!
//! Shuttle is sequentially consistent: weak-memory behaviours are loom's job
//! (`model/loom/pool.rs`). Under shuttle a worker looks for work once before
//! it sleeps (`IDLE_ROUNDS`), so the sleep protocol is exercised at every
//! turn.
//!
//! Run with `cargo test --features shuttle --test shuttle_pool`.

#[path = "../support/bounds.rs"]
mod bounds;
#[path = "../support/progress.rs"]
mod progress;

use shuttle::sync::atomic::{AtomicUsize, Ordering};
use std::any::Any;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{
    AtomicBool as StdAtomicBool, AtomicUsize as StdAtomicUsize, Ordering as StdOrdering,
};
use std::sync::{Arc, Once};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Instant;
use stealpool::ThreadPool;
#[path = "../support/signal.rs"]
mod signal;
use signal::Signal;

/// Runs `model` under the random scheduler for `iterations` (scaled to the
/// bounds in force), then under PCT with `depth` for as many, and fails if
/// either ran fewer than half the iterations asked for.
fn check(name: &str, iterations: usize, depth: usize, model: impl Fn() + Send + Sync + 'static) {
    let model = Arc::new(model);
    let iterations = bounds::schedules(iterations);
    let floor = iterations / 2;
    let bounds = bounds::label();
    for pct in [false, true] {
        let executions = Arc::new(StdAtomicUsize::new(0));
        let (counter, model) = (executions.clone(), model.clone());
        let counted = move || {
            counter.fetch_add(1, StdOrdering::Relaxed);
            model();
        };
        progress::line(format_args!(
            "test {name} ({}): running {iterations} iterations ({bounds})",
            if pct { "pct" } else { "random" }
        ));
        let start = Instant::now();
        let scheduler = if pct {
            shuttle::check_pct(counted, iterations, depth);
            "pct"
        } else {
            shuttle::check_random(counted, iterations);
            "random"
        };
        let executions = executions.load(StdOrdering::Relaxed);
        progress::line(format_args!(
            "test {name} ({scheduler}): {executions} executions in {:.2?} \
             ({iterations} iterations, PCT depth {depth}, floor {floor}, {bounds})",
            start.elapsed()
        ));
        assert!(
            executions >= floor,
            "test {name} ({scheduler}) ran {executions} executions, below its floor of {floor}"
        );
    }
}

/// The record of one execution's work: how often each piece ran, how many
/// tokens were made and dropped, and how many checks inside tasks failed
/// (a failed check in a `spawn`ed task would only reach the panic handler).
struct Ledger {
    runs: Vec<AtomicUsize>,
    made: StdAtomicUsize,
    dropped: StdAtomicUsize,
    violations: AtomicUsize,
}

impl Ledger {
    fn new(pieces: usize) -> Arc<Ledger> {
        Arc::new(Ledger {
            runs: (0..pieces).map(|_| AtomicUsize::new(0)).collect(),
            made: StdAtomicUsize::new(0),
            dropped: StdAtomicUsize::new(0),
            violations: AtomicUsize::new(0),
        })
    }

    /// Piece `i` runs; it must not have run before.
    fn run(&self, i: usize) {
        let before = self.runs[i].fetch_add(1, Ordering::SeqCst);
        assert_eq!(before, 0, "piece {i} ran twice");
    }

    fn ran(&self, i: usize) -> bool {
        self.runs[i].load(Ordering::SeqCst) > 0
    }

    /// A check made inside a task, reported at the end.
    fn expect(&self, ok: bool) {
        if !ok {
            self.violations.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn token(self: &Arc<Self>) -> Token {
        self.made.fetch_add(1, StdOrdering::SeqCst);
        Token(self.clone())
    }

    /// Pieces `range` each ran exactly once.
    fn assert_ran_once(&self, range: std::ops::Range<usize>) {
        for i in range {
            assert_eq!(
                self.runs[i].load(Ordering::SeqCst),
                1,
                "piece {i} ran {} times",
                { self.runs[i].load(Ordering::SeqCst) }
            );
        }
    }

    /// Every piece ran once, every check inside a task held, and every
    /// token made has been dropped.
    fn assert_complete(&self) {
        self.assert_ran_once(0..self.runs.len());
        assert_eq!(
            self.violations.load(Ordering::SeqCst),
            0,
            "a check inside a task failed"
        );
        self.assert_no_leak();
    }

    fn assert_no_leak(&self) {
        assert_eq!(
            self.dropped.load(StdOrdering::SeqCst),
            self.made.load(StdOrdering::SeqCst),
            "tokens dropped (left) differ from tokens made (right): a closure leaked or was dropped twice"
        );
    }
}

/// Captured by every closure handed to the pool: its drop is counted, so a
/// closure the pool leaks (or drops twice) shows up at the end.
struct Token(Arc<Ledger>);

impl Drop for Token {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, StdOrdering::SeqCst);
    }
}

/// Takes the pool back from the tasks that shared it: they drop their
/// clones when their closures end, before they count as finished, so this
/// succeeds once they have all run.
fn unshare(pool: Arc<ThreadPool>) -> ThreadPool {
    Arc::try_unwrap(pool).unwrap_or_else(|_| panic!("a finished task still holds the pool"))
}

// 25000 random + 25000 PCT (depth 3) iterations, floor 12500 each.
//
// Spawn storm from outside: the main thread and a second outside thread
// spawn at once onto the injector of a 3-worker pool, each then waiting with
// `wait_all`, which must see at least its own tasks finished.
#[test]
fn spawn_storm_outside() {
    check("spawn_storm_outside", 25_000, 3, || {
        const EACH: usize = 5;
        let pool = Arc::new(ThreadPool::new(3));
        let ledger = Ledger::new(2 * EACH);
        let other = {
            let (pool, ledger) = (pool.clone(), ledger.clone());
            shuttle::thread::spawn(move || {
                for i in EACH..2 * EACH {
                    let (ledger, token) = (ledger.clone(), ledger.token());
                    pool.spawn(move || {
                        let _token = token;
                        ledger.run(i);
                    });
                }
                pool.wait_all();
                ledger.assert_ran_once(EACH..2 * EACH);
            })
        };
        for i in 0..EACH {
            let (ledger, token) = (ledger.clone(), ledger.token());
            pool.spawn(move || {
                let _token = token;
                ledger.run(i);
            });
        }
        pool.wait_all();
        ledger.assert_ran_once(0..EACH);
        other.join().unwrap();
        pool.wait_all();
        ledger.assert_complete();
        unshare(pool).shutdown();
        ledger.assert_complete();
    });
}

// 25000 random + 25000 PCT (depth 3) iterations, floor 12500 each.
//
// Spawn storm from inside: on a 4-worker pool, tasks spawn tasks from their
// workers (onto those workers' deques, which start with room for 2 under
// shuttle and grow), so the spawns race steals and the sleep protocol's
// wake-ups from inside; `install` adds a burst spawned from one worker.
#[test]
fn spawn_storm_inside() {
    check("spawn_storm_inside", 25_000, 3, || {
        const OUTER: usize = 3;
        const INNER: usize = 3;
        const BURST: usize = 3;
        let pool = Arc::new(ThreadPool::new(4));
        let ledger = Ledger::new(OUTER * (1 + INNER) + BURST);
        for o in 0..OUTER {
            let (spawner, ledger, token) = (pool.clone(), ledger.clone(), ledger.token());
            pool.spawn(move || {
                let _token = token;
                ledger.run(o);
                for i in 0..INNER {
                    let (ledger, token) = (ledger.clone(), ledger.token());
                    spawner.spawn(move || {
                        let _token = token;
                        ledger.run(OUTER + o * INNER + i);
                    });
                }
            });
        }
        pool.install(|| {
            for b in 0..BURST {
                let (ledger, token) = (ledger.clone(), ledger.token());
                pool.spawn(move || {
                    let _token = token;
                    ledger.run(OUTER * (1 + INNER) + b);
                });
            }
        });
        pool.wait_all();
        ledger.assert_complete();
        unshare(pool).shutdown();
        ledger.assert_complete();
    });
}

/// `fib(n)` by fork-join, counting every call in `calls`.
fn fib(pool: &ThreadPool, n: u64, calls: &AtomicUsize) -> u64 {
    calls.fetch_add(1, Ordering::SeqCst);
    if n < 2 {
        return n;
    }
    let (a, b) = pool.join(|| fib(pool, n - 1, calls), || fib(pool, n - 2, calls));
    a + b
}

// 2 and 3 workers: 25000 random + 25000 PCT (depth 3) iterations each,
// floor 12500 each.
//
// Nested `join`: recursive fib, called from outside (so through `install`),
// on 2 and 3 workers. Second halves are stolen or popped back at every
// level, joiners wait on their latches and sleep on them; the result and
// the number of calls (each half runs exactly once) must match the
// sequential ones: fib(8) = 21 in 67 calls.
//
// Idle workers ask for pending halves and take unanswered ones (F3, F4 in
// `proofs/fork.md`); over all iterations some half must have been promoted,
// or the test does not cover promotion.
#[test]
fn nested_join() {
    for workers in [2, 3] {
        let promoted = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let total = promoted.clone();
        check(&format!("nested_join_{workers}_workers"), 25_000, 3, move || {
            let pool = ThreadPool::new(workers);
            let calls = AtomicUsize::new(0);
            assert_eq!(fib(&pool, 8, &calls), 21);
            let calls = calls.load(Ordering::SeqCst);
            assert_eq!(calls, 67, "a half of some join ran twice or never");
            promoted.fetch_add(pool.stats().joins_promoted, std::sync::atomic::Ordering::Relaxed);
            pool.shutdown();
        });
        let total = total.load(std::sync::atomic::Ordering::Relaxed);
        progress::line(format_args!(
            "nested_join_{workers}_workers: {total} join halves promoted in all"
        ));
        assert!(total > 0, "no iteration promoted a pending join half");
    }
}

// 2 and 3 workers: 20000 random + 20000 PCT (depth 3) iterations each,
// floor 10000 each.
//
// A larger `join_then_block` (the loom model is bound 2): from a task, `join`
// two halves; the first blocks outside the pool (a condition variable)
// until the second has run, and the second is itself a fib(4) by `join`
// (9 calls) before it signals. The second half must be taken by another
// worker, never stranded on the blocked worker's deque while that worker
// sleeps, and its nested halves each run once.
#[test]
fn join_then_block() {
    for workers in [2, 3] {
        check(
            &format!("join_then_block_{workers}_workers"),
            20_000,
            3,
            move || {
                let pool = Arc::new(ThreadPool::new(workers));
                let joiner = pool.clone();
                let calls = Arc::new(AtomicUsize::new(0));
                let task_calls = calls.clone();
                let handle = pool.submit(move || {
                    let signal = Signal::new();
                    joiner.join(
                        || signal.wait(),
                        || {
                            let value = fib(&joiner, 4, &task_calls);
                            signal.raise();
                            value
                        },
                    )
                });
                let ((), value) = handle.join().unwrap();
                assert_eq!(value, 3);
                assert_eq!(
                    calls.load(Ordering::SeqCst),
                    9,
                    "a half of some join ran twice or never"
                );
                unshare(pool).shutdown();
            },
        );
    }
}

// 2 and 3 workers: 30000 random + 30000 PCT (depth 3) iterations each,
// floor 15000 each.
//
// `join_then_block` on pools with `max_pending_joins` (F6 in
// `proofs/fork.md`), larger than the loom model: a task `join`s two
// halves, the first a fib(4) by `join` and then a wait outside the pool
// (a condition variable) for the second, itself a fib(4) that signals.
// The outer half is the first pending one, so it is published and must be
// taken while its owner blocks; the nested `join`s run inline or publish
// depending on how many halves are pending and whether a worker sleeps or
// asks. Every call runs once, and over all iterations some `join` ran
// inline.
#[test]
fn limited_joins_then_block() {
    for (workers, limit) in [(2, 1), (3, 2)] {
        let inline_before = stealpool::model_probes::INLINE_JOINS.count();
        check(
            &format!("limited_joins_then_block_{workers}_workers"),
            30_000,
            3,
            move || {
                let pool = Arc::new(
                    ThreadPool::builder()
                        .num_threads(workers)
                        .max_pending_joins(limit)
                        .build()
                        .unwrap(),
                );
                let joiner = pool.clone();
                let calls = Arc::new(AtomicUsize::new(0));
                let task_calls = calls.clone();
                let handle = pool.submit(move || {
                    let signal = Signal::new();
                    joiner.join(
                        || {
                            let value = fib(&joiner, 4, &task_calls);
                            signal.wait();
                            value
                        },
                        || {
                            let value = fib(&joiner, 4, &task_calls);
                            signal.raise();
                            value
                        },
                    )
                });
                assert_eq!(handle.join().unwrap(), (3, 3));
                assert_eq!(
                    calls.load(Ordering::SeqCst),
                    18,
                    "a half of some join ran twice or never"
                );
                unshare(pool).shutdown();
            },
        );
        let inline = stealpool::model_probes::INLINE_JOINS.count() - inline_before;
        progress::line(format_args!(
            "limited_joins_then_block_{workers}_workers: {inline} joins ran inline in all"
        ));
        assert!(inline > 0, "no iteration ran a join inline: the test misses F6");
    }
}

// 10000 random + 10000 PCT (depth 3) iterations, floor 5000 each.
//
// H6, H7: a `join` tree on two workers, whose waits for stolen halves run
// only halves forked beneath them, then a scope whose body also queues a
// detached task among its own, which the scope's wait must leave to the
// injector rather than run on top of itself. Results are exact and every
// task runs once; across the iterations some wait took a half from
// beneath its stolen half, and some wait handed a job to the injector:
// the two paths the rules add were taken.
#[test]
fn waits_help_only_beneath() {
    fn tree(pool: &ThreadPool, depth: u32) -> u32 {
        if depth == 0 {
            return 1;
        }
        let (a, b) = pool.join(|| tree(pool, depth - 1), || tree(pool, depth - 1));
        a + b
    }
    let helped_before = stealpool::model_probes::HALVES_HELPED.count();
    let rerouted_before = stealpool::model_probes::REROUTED.count();
    check("waits_help_only_beneath", 10_000, 3, || {
        let pool = Arc::new(ThreadPool::new(2));
        assert_eq!(pool.install(|| tree(&pool, 3)), 8, "a join tree lost a leaf");
        let ledger = Ledger::new(0);
        let ran = AtomicUsize::new(0);
        let detached = Arc::new(AtomicUsize::new(0));
        let (inner, ran_ref, ledger_ref) = (pool.clone(), &ran, &ledger);
        pool.scope(|s| {
            let token = ledger_ref.token();
            s.spawn(move |_| {
                let _token = token;
                ran_ref.fetch_add(1, Ordering::Relaxed);
            });
            let (token, detached) = (ledger_ref.token(), detached.clone());
            inner.spawn(move || {
                let _token = token;
                detached.fetch_add(1, Ordering::Relaxed);
            });
            let token = ledger_ref.token();
            s.spawn(move |_| {
                let _token = token;
                ran_ref.fetch_add(1, Ordering::Relaxed);
            });
        });
        assert_eq!(ran.load(Ordering::Relaxed), 2, "a scope task ran twice or never");
        pool.wait_all();
        assert_eq!(
            detached.load(Ordering::Relaxed),
            1,
            "the detached task ran twice or never"
        );
        drop(inner);
        unshare(pool).shutdown();
        ledger.assert_no_leak();
    });
    let helped = stealpool::model_probes::HALVES_HELPED.count() - helped_before;
    let rerouted = stealpool::model_probes::REROUTED.count() - rerouted_before;
    progress::line(format_args!(
        "waits_help_only_beneath: {helped} halves helped beneath a stolen half, {rerouted} jobs rerouted"
    ));
    assert!(
        helped > 0,
        "no wait took a half from beneath its stolen half: the test misses H6"
    );
    assert!(rerouted > 0, "no wait rerouted a job: the test misses H7's rule");
}

// 25000 random + 25000 PCT (depth 3) iterations, floor 12500 each.
//
// A scope with nested spawns borrowing from the stack: the scope's tasks
// each write their own slot of a vector on the caller's stack and spawn
// tasks that write the rest, through the scope they receive; the scope
// returns only once all have finished. Then the same from inside a task
// (a scope on a worker that is itself running a task).
#[test]
fn scope_nested_spawns() {
    check("scope_nested_spawns", 25_000, 3, || {
        const CHUNKS: usize = 3;
        const CHUNK: usize = 3;
        let pool = Arc::new(ThreadPool::new(3));
        let ledger = Ledger::new(0);
        let mut slots = vec![0usize; CHUNKS * CHUNK];
        let ledger_ref = &ledger;
        pool.scope(|s| {
            for (c, chunk) in slots.chunks_mut(CHUNK).enumerate() {
                let token = ledger_ref.token();
                s.spawn(move |s| {
                    let _token = token;
                    let (first, rest) = chunk.split_first_mut().unwrap();
                    *first += 1 + c;
                    for slot in rest {
                        let token = ledger_ref.token();
                        s.spawn(move |_| {
                            let _token = token;
                            *slot += 100 + c;
                        });
                    }
                });
            }
        });
        let expected: Vec<usize> = (0..CHUNKS)
            .flat_map(|c| [1 + c].into_iter().chain([100 + c; CHUNK - 1]))
            .collect();
        assert_eq!(
            slots, expected,
            "a scoped task ran twice or never before the scope returned"
        );
        ledger.assert_no_leak();

        let inner = pool.clone();
        let token = ledger.token();
        let sum = pool.submit(move || {
            let _token = token;
            let mut parts = [0usize; 4];
            inner.scope(|s| {
                for (i, part) in parts.iter_mut().enumerate() {
                    s.spawn(move |_| *part = i + 1);
                }
            });
            parts.iter().sum::<usize>()
        });
        assert_eq!(sum.join().unwrap(), 10);
        pool.wait_all();
        unshare(pool).shutdown();
        ledger.assert_no_leak();
    });
}

// 25000 random + 25000 PCT (depth 3) iterations, floor 12500 each.
//
// `wait_all` from outside: tasks spawned from outside spawn children from
// inside; `wait_all` must wait for the children too. A second outside
// thread waits at the same time (two idle waiters, P3), its `wait_all`
// racing the spawns.
#[test]
fn wait_all_outside() {
    check("wait_all_outside", 25_000, 3, || {
        const TASKS: usize = 3;
        let pool = Arc::new(ThreadPool::new(2));
        let ledger = Ledger::new(2 * TASKS);
        let other = {
            let pool = pool.clone();
            shuttle::thread::spawn(move || pool.wait_all())
        };
        for t in 0..TASKS {
            let (spawner, ledger, token) = (pool.clone(), ledger.clone(), ledger.token());
            pool.spawn(move || {
                let _token = token;
                ledger.run(t);
                let (ledger, token) = (ledger.clone(), ledger.token());
                spawner.spawn(move || {
                    let _token = token;
                    ledger.run(TASKS + t);
                });
            });
        }
        pool.wait_all();
        ledger.assert_complete();
        assert_eq!(pool.pending_tasks(), 0);
        other.join().unwrap();
        unshare(pool).shutdown();
        ledger.assert_complete();
    });
}

// 25000 random + 25000 PCT (depth 3) iterations, floor 12500 each.
//
// `wait_all` from inside tasks. Two submitted tasks each spawn a leaf and a
// nested waiter, then call `wait_all`; the nested waiter spawns its own leaf
// and calls `wait_all` too. From inside, `wait_all` waits for every task but
// those on the stacks of threads inside `wait_all`, which leaves are never
// on, so each waiter must find the leaves it spawned (and, for the outer
// ones, their nested waiter's leaf) finished. The nested waiter often runs
// on its parent's stack, inside the parent's `wait_all` on the same worker,
// so the tasks of the outer call are not counted twice. Two tasks waiting
// at once must not wait for each other.
#[test]
fn wait_all_inside() {
    check("wait_all_inside", 25_000, 3, || {
        // Pieces per outer task: itself, its leaf, its nested waiter, that
        // waiter's leaf.
        const PER: usize = 4;
        let pool = Arc::new(ThreadPool::new(2));
        let ledger = Ledger::new(2 * PER);
        let handles: Vec<_> = (0..2)
            .map(|t| {
                let (spawner, ledger, token) = (pool.clone(), ledger.clone(), ledger.token());
                pool.submit(move || {
                    let _token = token;
                    let base = t * PER;
                    ledger.run(base);
                    let (leaf_ledger, leaf_token) = (ledger.clone(), ledger.token());
                    spawner.spawn(move || {
                        let _token = leaf_token;
                        leaf_ledger.run(base + 1);
                    });
                    let (nested_pool, nested_ledger, nested_token) =
                        (spawner.clone(), ledger.clone(), ledger.token());
                    spawner.spawn(move || {
                        let _token = nested_token;
                        let ledger = nested_ledger;
                        ledger.run(base + 2);
                        let (leaf_ledger, leaf_token) = (ledger.clone(), ledger.token());
                        nested_pool.spawn(move || {
                            let _token = leaf_token;
                            leaf_ledger.run(base + 3);
                        });
                        nested_pool.wait_all();
                        ledger.expect(ledger.ran(base + 3));
                    });
                    spawner.wait_all();
                    ledger.ran(base + 1) && ledger.ran(base + 3)
                })
            })
            .collect();
        for handle in handles {
            assert!(
                handle.join().unwrap(),
                "wait_all inside a task returned before a leaf it waits for ran"
            );
        }
        pool.wait_all();
        ledger.assert_complete();
        unshare(pool).shutdown();
        ledger.assert_complete();
    });
}

/// A task that submits two subtasks and joins both handles, `depth` levels
/// down; returns the number of tasks in its tree.
fn submit_tree(pool: &Arc<ThreadPool>, ledger: &Arc<Ledger>, depth: u32) -> usize {
    ledger.runs[0].fetch_add(1, Ordering::SeqCst);
    if depth == 0 {
        return 1;
    }
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let (pool, ledger, token) = (pool.clone(), ledger.clone(), ledger.token());
            let inner = pool.clone();
            inner.submit(move || {
                let _token = token;
                submit_tree(&pool, &ledger, depth - 1)
            })
        })
        .collect();
    1 + handles.into_iter().map(|h| h.join().unwrap()).sum::<usize>()
}

// 25000 random + 25000 PCT (depth 3) iterations, floor 12500 each.
//
// Submit + join from inside tasks: each task submits two subtasks and joins
// both handles, three levels deep, on a 2-worker pool. Joining on a worker
// runs other work while it waits (or sleeps on the handle's `WorkerLatch`),
// so this completes even though every worker may be blocked in a join.
#[test]
fn submit_join_inside() {
    check("submit_join_inside", 25_000, 3, || {
        let pool = Arc::new(ThreadPool::new(2));
        // `runs[0]` counts the tasks of the tree here, not one piece.
        let ledger = Ledger::new(1);
        let (inner, task_ledger, token) = (pool.clone(), ledger.clone(), ledger.token());
        let root = pool.submit(move || {
            let _token = token;
            submit_tree(&inner, &task_ledger, 3)
        });
        assert_eq!(root.join().unwrap(), 15);
        assert_eq!(
            ledger.runs[0].load(Ordering::SeqCst),
            15,
            "a task of the tree ran twice or never"
        );
        pool.wait_all();
        unshare(pool).shutdown();
        ledger.assert_no_leak();
    });
}

/// Wakes the thread that polls, through shuttle's park/unpark.
struct Unparker(shuttle::thread::Thread);

impl Wake for Unparker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// A minimal executor: polls `future` on this thread, parking between
/// polls until its waker unparks it.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unparker(shuttle::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match Future::poll(Pin::as_mut(&mut future), &mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => shuttle::thread::park(),
        }
    }
}

// 25000 random + 25000 PCT (depth 3) iterations, floor 12500 each.
//
// `JoinHandle` as a `Future`: an outside thread awaits two handles with a
// minimal executor while the tasks run; a task's end must wake the waker the
// last poll left (or the poll must find the result), else the executor parks
// forever. One of the tasks panics: the future yields `Err`.
#[test]
fn join_handle_future() {
    quiet_expected_panics();
    check("join_handle_future", 25_000, 3, || {
        let pool = ThreadPool::new(2);
        let ledger = Ledger::new(2);
        let (task_ledger, token) = (ledger.clone(), ledger.token());
        let value = pool.submit(move || {
            let _token = token;
            task_ledger.run(0);
            42
        });
        let (task_ledger, token) = (ledger.clone(), ledger.token());
        let failing = pool.submit(move || -> u32 {
            let _token = token;
            task_ledger.run(1);
            panic::panic_any(Expected)
        });
        assert_eq!(block_on(value).unwrap(), 42);
        assert!(block_on(failing).unwrap_err().is::<Expected>());
        pool.shutdown();
        ledger.assert_complete();
    });
}

// 25000 random + 25000 PCT (depth 3) iterations, floor 12500 each.
//
// Shutdown with pending tasks: tasks queued on the injector, tasks queued
// on a worker's deque (spawned inside `install`), and tasks that spawn
// children from inside and end, so that the pool is dropped while those
// children are still queued. The drop runs every one of them exactly once,
// joins the workers, and drops every closure.
#[test]
fn shutdown_with_pending_tasks() {
    check("shutdown_with_pending_tasks", 25_000, 3, || {
        const OUTSIDE: usize = 3;
        const INSIDE: usize = 2;
        const PARENTS: usize = 2;
        const CHILDREN: usize = 2;
        let pool = Arc::new(ThreadPool::new(3));
        let ledger = Ledger::new(OUTSIDE + INSIDE + PARENTS * (1 + CHILDREN));
        for i in 0..OUTSIDE {
            let (ledger, token) = (ledger.clone(), ledger.token());
            pool.spawn(move || {
                let _token = token;
                ledger.run(i);
            });
        }
        pool.install(|| {
            for i in OUTSIDE..OUTSIDE + INSIDE {
                let (ledger, token) = (ledger.clone(), ledger.token());
                pool.spawn(move || {
                    let _token = token;
                    ledger.run(i);
                });
            }
        });
        let first_parent = OUTSIDE + INSIDE;
        for p in 0..PARENTS {
            let (spawner, ledger, token) = (pool.clone(), ledger.clone(), ledger.token());
            pool.spawn(move || {
                let _token = token;
                let piece = first_parent + p * (1 + CHILDREN);
                ledger.run(piece);
                for c in 1..=CHILDREN {
                    let (ledger, token) = (ledger.clone(), ledger.token());
                    spawner.spawn(move || {
                        let _token = token;
                        ledger.run(piece + c);
                    });
                }
            });
        }
        // The parents give the pool back as they end; take it as soon as
        // they have, children possibly still queued, and drop it.
        let mut pool = pool;
        let pool = loop {
            match Arc::try_unwrap(pool) {
                Ok(pool) => break pool,
                Err(shared) => {
                    pool = shared;
                    shuttle::thread::yield_now();
                }
            }
        };
        drop(pool);
        ledger.assert_complete();
    });
}

/// The payload of the panics these tests raise on purpose.
struct Expected;

/// Keeps the panics raised on purpose (payload [`Expected`]) off stderr:
/// shuttle's panic hook reports every panic, caught or not, as a failing
/// schedule. Other panics still go to shuttle's hook.
fn quiet_expected_panics() {
    static QUIET: Once = Once::new();
    QUIET.call_once(|| {
        // Shuttle installs its hook on its first run; wrap that one.
        shuttle::check_random(|| {}, 1);
        let report = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Expected>() {
                report(info);
            }
        }));
    });
}

fn is_expected(payload: &(dyn Any + Send)) -> bool {
    payload.is::<Expected>()
}

// 25000 random + 25000 PCT (depth 3) iterations, floor 12500 each.
//
// Panics on every path, on a 2-worker pool with a panic handler:
// * `spawn`: the handler gets each panic, before the task counts as done;
// * `submit`: `join` returns `Err` with the payload;
// * `join`, `a` panics: re-raised once nothing borrowing from the caller
//   runs any more (`b` ran once, here or on another worker, J5);
//   `b` panics: re-raised after `a` ran;
// * `scope`: re-raised after every other task of the scope has finished.
// The workers survive all of it: the pool still runs work afterwards, every
// piece of work ran at most once, and every closure is dropped.
#[test]
fn panics() {
    quiet_expected_panics();
    check("panics", 25_000, 3, || {
        let handled = Arc::new(StdAtomicUsize::new(0));
        let counted = handled.clone();
        let pool = ThreadPool::builder()
            .num_threads(2)
            .panic_handler(move |payload| {
                assert!(is_expected(&*payload), "the handler got a foreign panic");
                counted.fetch_add(1, StdOrdering::SeqCst);
            })
            .build()
            .unwrap();
        // Pieces: 0-1 spawned panics, 2 submitted panic, 3-4 join halves
        // with `a` panicking, 5-6 join halves with `b` panicking, 7-8 the
        // scope's tasks, 9 the last task.
        let ledger = Ledger::new(10);

        for i in 0..2 {
            let (ledger, token) = (ledger.clone(), ledger.token());
            pool.spawn(move || {
                let _token = token;
                ledger.run(i);
                panic::panic_any(Expected);
            });
        }
        let (task_ledger, token) = (ledger.clone(), ledger.token());
        let failed = pool.submit(move || {
            let _token = token;
            task_ledger.run(2);
            panic::panic_any(Expected)
        });
        assert!(is_expected(&*failed.join().unwrap_err()));

        let returned = StdAtomicBool::new(false);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.join(
                || {
                    ledger.run(3);
                    panic::panic_any(Expected)
                },
                || {
                    ledger.run(4);
                    ledger.expect(!returned.load(StdOrdering::SeqCst));
                },
            )
        }));
        returned.store(true, StdOrdering::SeqCst);
        assert!(is_expected(&*outcome.unwrap_err()));
        assert!(ledger.ran(3));

        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.join(
                || ledger.run(5),
                || {
                    ledger.run(6);
                    panic::panic_any(Expected)
                },
            )
        }));
        assert!(is_expected(&*outcome.unwrap_err()));
        ledger.assert_ran_once(5..7);

        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                s.spawn(|_| {
                    ledger.run(7);
                    panic::panic_any(Expected);
                });
                s.spawn(|_| ledger.run(8));
            })
        }));
        assert!(is_expected(&*outcome.unwrap_err()));
        ledger.assert_ran_once(7..9);

        let (task_ledger, token) = (ledger.clone(), ledger.token());
        let after = pool.submit(move || {
            let _token = token;
            task_ledger.run(9);
            7
        });
        assert_eq!(
            after.join().unwrap(),
            7,
            "the pool stopped working after the panics"
        );
        pool.wait_all();
        assert_eq!(
            handled.load(StdOrdering::SeqCst),
            2,
            "the handler missed a spawned task's panic"
        );
        // Two spawned, one submitted, one scoped task.
        assert_eq!(pool.stats().panicked, 4);
        pool.shutdown();
        // Piece 4 (`b` after `a` panicked) runs too (J5); this check asks
        // only that it ran at most once.
        ledger.assert_ran_once(0..4);
        ledger.assert_ran_once(5..10);
        assert!(ledger.runs[4].load(Ordering::SeqCst) <= 1);
        assert_eq!(
            ledger.violations.load(Ordering::SeqCst),
            0,
            "b ran after join returned"
        );
        ledger.assert_no_leak();
    });
}

// 1-worker pool, 20 random iterations (the outcome does not depend on the
// schedule: one worker runs everything in one order).
//
// A task that runs nested inside another task's `wait_all`, on the same
// worker, spawns a child and calls `wait_all`: the outer call's tasks must
// not be exempted twice, or the inner call returns with the child queued.
#[test]
fn nested_wait_all_waits_for_its_child() {
    let executions = Arc::new(StdAtomicUsize::new(0));
    let counter = executions.clone();
    shuttle::check_random(
        move || {
            counter.fetch_add(1, StdOrdering::Relaxed);
            let pool = Arc::new(ThreadPool::new(1));
            let ledger = Ledger::new(1);
            let (outer_pool, outer_ledger) = (pool.clone(), ledger.clone());
            let outer = pool.submit(move || {
                let (inner_pool, ledger) = (outer_pool.clone(), outer_ledger);
                // Queued on this worker's deque, so it runs inside the
                // `wait_all` below, on this stack.
                outer_pool.spawn(move || {
                    let child_ledger = ledger.clone();
                    inner_pool.spawn(move || child_ledger.run(0));
                    inner_pool.wait_all();
                    ledger.expect(ledger.ran(0));
                });
                outer_pool.wait_all();
            });
            outer.join().unwrap();
            pool.wait_all();
            unshare(pool).shutdown();
            assert_eq!(
                ledger.violations.load(Ordering::SeqCst),
                0,
                "a nested wait_all returned before the child it spawned ran"
            );
            ledger.assert_complete();
        },
        20,
    );
    let executions = executions.load(StdOrdering::Relaxed);
    progress::line(format_args!(
        "test nested_wait_all_waits_for_its_child (random): {executions} executions (floor 10)"
    ));
    assert!(executions >= 10);
}

// 20000 random + 20000 PCT (depth 3) iterations each, floor 10000.
//
// Waits that cross pools, the review's programs: a worker waiting on another
// pool parks with a spare of its own pool standing in, or, with no spare
// (none here, under shuttle), runs its own pool's jobs in that pool's sleep
// protocol (J3, H4), so none of these deadlock, whatever the schedule:
//
// 1. `a` (1 worker) installs on `b` (1 worker), whose job joins on `a`;
// 2. the same with both of `a`'s 2 workers waiting on `b`;
// 3. a task of `a` joins a handle of `b`, whose task submits to `a` and
//    joins that;
// 4. a cycle of three one-worker pools: `a` waits on `b`, `b` on `c`, and
//    `c`'s job joins on `a`;
// 5. `a`'s last handle dropped inside `b.install`, called by a task of
//    `a` whose worker waits there: the drop, on a worker of `b`, must not
//    wait for `a`'s worker.
#[test]
fn cross_pool_waits() {
    check("cross_pool_install_round_trip", 20_000, 3, || {
        let a = ThreadPool::new(1);
        let b = ThreadPool::new(1);
        let value = a.install(|| b.install(|| a.join(|| 1, || 2)));
        assert_eq!(value, (1, 2));
    });
    check("cross_pool_two_waiters", 20_000, 3, || {
        let a = ThreadPool::new(2);
        let b = ThreadPool::new(1);
        let ledger = Ledger::new(4);
        a.join(
            || b.install(|| a.join(|| ledger.run(0), || ledger.run(1))),
            || b.install(|| a.join(|| ledger.run(2), || ledger.run(3))),
        );
        for piece in 0..4 {
            assert_eq!(
                ledger.runs[piece].load(Ordering::SeqCst),
                1,
                "piece {piece} ran twice or never"
            );
        }
    });
    check("cross_pool_handles", 20_000, 3, || {
        let a = Arc::new(ThreadPool::new(1));
        let b = Arc::new(ThreadPool::new(1));
        let (inner_a, inner_b) = (a.clone(), b.clone());
        let value = a
            .submit(move || {
                let innermost_a = inner_a.clone();
                inner_b
                    .submit(move || innermost_a.submit(|| 5).join().unwrap())
                    .join()
                    .unwrap()
            })
            .join()
            .unwrap();
        assert_eq!(value, 5);
        unshare(b).shutdown();
        unshare(a).shutdown();
    });
    check("cross_pool_cycle_of_three", 20_000, 3, || {
        let a = ThreadPool::new(1);
        let b = ThreadPool::new(1);
        let c = ThreadPool::new(1);
        let value = a.install(|| b.install(|| c.install(|| a.join(|| 1, || 2))));
        assert_eq!(value, (1, 2));
    });
    check("cross_pool_last_handle_dropped_inside_install", 20_000, 3, || {
        let a = Arc::new(ThreadPool::new(1));
        let b = Arc::new(ThreadPool::new(1));
        let (last_a, inner_b) = (a.clone(), b.clone());
        let handle = a.submit(move || {
            inner_b.install(move || {
                // Whichever of this drop and the caller's is the last one
                // shuts `a` down: here, on a worker of `b`.
                drop(last_a);
                1
            })
        });
        drop(a);
        assert_eq!(handle.join().unwrap(), 1);
        unshare(b).shutdown();
    });
}

/// One node of a task graph built by [`build_graph`]: its id in the ledger
/// and how many nodes its value counts.
type Node = stealpool::JoinHandle<(usize, usize)>;

/// Builds a random in-tree of continuations (`then` chains, `zip` pairs,
/// `when_all` fans of up to three) over `submit`ted leaves, numbering the
/// nodes from `next`. Each node checks, when it runs, that every node it
/// depends on ran before it, records its own run, and passes on how many
/// nodes its value counts. Shapes are drawn from shuttle's deterministic
/// generator, so a failing schedule replays with its graph.
fn build_graph(pool: &ThreadPool, ledger: &Arc<Ledger>, next: &mut usize, depth: u32) -> Node {
    use shuttle::rand::{thread_rng, Rng};
    let id = *next;
    *next += 1;
    let kind = if depth == 0 {
        0
    } else {
        thread_rng().gen_range(0..4)
    };
    let (ledger, token) = (ledger.clone(), ledger.token());
    match kind {
        0 => pool.submit(move || {
            let _token = token;
            ledger.run(id);
            (id, 1)
        }),
        1 => {
            let child = build_graph(pool, &ledger, next, depth - 1);
            child.then(move |(child, count)| {
                let _token = token;
                ledger.expect(ledger.ran(child));
                ledger.run(id);
                (id, count + 1)
            })
        }
        2 => {
            let left = build_graph(pool, &ledger, next, depth - 1);
            let right = build_graph(pool, &ledger, next, depth - 1);
            left.zip(right).then(move |((l, lc), (r, rc))| {
                let _token = token;
                ledger.expect(ledger.ran(l) && ledger.ran(r));
                ledger.run(id);
                (id, lc + rc + 1)
            })
        }
        _ => {
            let fan = thread_rng().gen_range(0..=3);
            let children: Vec<Node> = (0..fan)
                .map(|_| build_graph(pool, &ledger, next, depth - 1))
                .collect();
            pool.when_all(children).then(move |results| {
                let _token = token;
                ledger.expect(results.iter().all(|&(child, _)| ledger.ran(child)));
                ledger.run(id);
                (id, results.iter().map(|&(_, count)| count).sum::<usize>() + 1)
            })
        }
    }
}

// 20000 random + 20000 PCT (depth 3) iterations, floor 10000 each.
//
// Task graphs (K1-K3): a random in-tree of continuations, attached from
// outside while a 2-worker pool runs the leaves, so attaches race
// completions at every node. Every node runs once, after every node it
// depends on; the root's value counts every node; nothing leaks, and
// nothing is left for `wait_all` or the drop to find unrun.
#[test]
fn continuation_graphs() {
    check("continuation_graphs", 20_000, 3, || {
        let pool = ThreadPool::new(2);
        // At most 1 + 3 + 9 + 27 nodes at depth 3.
        let ledger = Ledger::new(40);
        let mut nodes = 0;
        let root = build_graph(&pool, &ledger, &mut nodes, 3);
        let (_, count) = root.join().unwrap();
        assert_eq!(count, nodes, "the root's value does not count every node");
        pool.wait_all();
        drop(pool);
        ledger.assert_ran_once(0..nodes);
        assert_eq!(
            ledger.violations.load(Ordering::SeqCst),
            0,
            "a node ran before a node it depends on"
        );
        ledger.assert_no_leak();
    });
}

/// Builds `nodes` tasks over pools `pools`, each consuming up to two
/// handles of earlier nodes that nothing consumed yet: a submitted task of
/// either pool that joins them (inside the task); a `then` or `zip` on
/// them; or a `when_all` of them. A node may instead join its inputs
/// inside a `scope` task or as the first half of a `join` of its own pool,
/// and later nodes consume it like any other: a `join` or `scope` waiting
/// for a stolen child runs only work it awaits (H6, H7 of
/// `proofs/waits.md`), so none waits beneath a node that waits for it.
/// Returns the handles nothing consumed.
/// Each node records its run; its value counts the nodes it depends on,
/// itself included.
fn build_handle_graph(
    pools: &[Arc<ThreadPool>; 2],
    ledger: &Arc<Ledger>,
    nodes: usize,
) -> Vec<stealpool::JoinHandle<usize>> {
    use shuttle::rand::{thread_rng, Rng};
    let mut open: Vec<stealpool::JoinHandle<usize>> = Vec::new();
    for id in 0..nodes {
        let rng = &mut thread_rng();
        let take = rng.gen_range(0..=2.min(open.len()));
        let inputs: Vec<_> = (0..take)
            .map(|_| open.swap_remove(rng.gen_range(0..open.len())))
            .collect();
        let pool = pools[rng.gen_range(0..2)].clone();
        let (ledger, token) = (ledger.clone(), ledger.token());
        let handle = match (rng.gen_range(0..6), inputs.len()) {
            // A task that joins its inputs' handles itself, or inside a
            // scope task or the first half of a `join`.
            (0..=2, _) => {
                let inner = pool.clone();
                let nested = rng.gen_range(0..4);
                pool.submit(move || {
                    let _token = token;
                    let join_all = move |inputs: Vec<stealpool::JoinHandle<usize>>| {
                        inputs.into_iter().map(|h| h.join().unwrap()).sum::<usize>()
                    };
                    let count = match nested {
                        0 => {
                            let mut count = 0;
                            inner.scope(|s| s.spawn(|_| count = join_all(inputs)));
                            count
                        }
                        1 => inner.join(|| join_all(inputs), || 0).0,
                        _ => join_all(inputs),
                    };
                    ledger.run(id);
                    count + 1
                })
            }
            (3, 1) => inputs.into_iter().next().unwrap().then(move |count| {
                let _token = token;
                ledger.run(id);
                count + 1
            }),
            (4, 2) => {
                let mut inputs = inputs.into_iter();
                let (a, b) = (inputs.next().unwrap(), inputs.next().unwrap());
                a.zip(b).then(move |(a, b)| {
                    let _token = token;
                    ledger.run(id);
                    a + b + 1
                })
            }
            _ => pool.when_all(inputs).then(move |counts| {
                let _token = token;
                ledger.run(id);
                counts.iter().sum::<usize>() + 1
            }),
        };
        open.push(handle);
    }
    open
}

// 20000 random + 20000 PCT (depth 3) iterations, floor 10000 each.
//
// H4, H6, H7: random graphs of submit, join, then, zip, when_all and scope
// over two pools (two workers and one, with spares to stand in), where
// tasks join the handles of earlier tasks of either pool inside
// themselves, inside a scope task or as the first half of a `join`, and
// later nodes consume any of them: no cycle, so every graph must
// complete, whatever the schedule. Every node runs once; the counts of the
// unconsumed handles add up to every node; nothing leaks. A worker that
// ran unrelated tasks on top of its waits (`--cfg
// stealpool_bug="wait_runs_any"` for handles, `join_wait_runs_any` for
// `join` and `scope`) could wait beneath one of them forever.
#[test]
fn handle_graphs_across_two_pools() {
    check("handle_graphs_across_two_pools", 20_000, 3, || {
        let build = |workers| {
            Arc::new(
                ThreadPool::builder()
                    .num_threads(workers)
                    .max_blocking_threads(16)
                    .build()
                    .unwrap(),
            )
        };
        let pools = [build(2), build(1)];
        const NODES: usize = 10;
        let ledger = Ledger::new(NODES);
        let open = build_handle_graph(&pools, &ledger, NODES);
        let total: usize = open.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(total, NODES, "the roots' values do not count every node");
        let [first, second] = pools;
        drop(unshare(first));
        drop(unshare(second));
        ledger.assert_complete();
    });
}

// 2000 random + 2000 PCT (depth 3) iterations, floor 1000 each.
//
// The free functions in a model (N1 in `proofs/model-build.md`): each
// thread outside every pool that calls them gets a pool of two workers,
// built on its first call and dropped with the thread's locals. A task
// `spawn`ed and never awaited still runs exactly once before the
// execution ends (the drop drains it); `join`, `scope` and a parallel
// iterator compute their results on the main thread's pool and on a
// second thread's own; no worker outlives the execution (shuttle fails
// one that does, as a deadlock or a leaked thread).
#[test]
fn free_functions_use_a_pool_per_thread_of_the_execution() {
    use stealpool::prelude::*;
    static EXECUTIONS: StdAtomicUsize = StdAtomicUsize::new(0);
    static SPAWNED_RUNS: StdAtomicUsize = StdAtomicUsize::new(0);
    EXECUTIONS.store(0, StdOrdering::SeqCst);
    SPAWNED_RUNS.store(0, StdOrdering::SeqCst);
    check(
        "free_functions_use_a_pool_per_thread_of_the_execution",
        2_000,
        3,
        || {
            EXECUTIONS.fetch_add(1, StdOrdering::SeqCst);
            assert_eq!(stealpool::current_num_threads(), 2);
            stealpool::spawn(|| {
                SPAWNED_RUNS.fetch_add(1, StdOrdering::SeqCst);
            });
            let other = shuttle::thread::spawn(|| {
                let (a, b) = stealpool::join(|| 20, || 22);
                // Its own pool's workers, not this thread.
                let index = stealpool::join(stealpool::current_thread_index, || ()).0;
                (a + b, index)
            });
            let mut halves = [0u64; 2];
            let (left, right) = halves.split_at_mut(1);
            stealpool::scope(|s| {
                s.spawn(|_| left[0] = (1..=4u64).sum());
                s.spawn(|_| right[0] = (5..=8u64).sum());
            });
            let by_iter: u64 = (1..=8u64).into_par_iter().sum();
            assert_eq!((halves[0] + halves[1], by_iter), (36, 36));
            let (sum, index) = other.join().unwrap();
            assert_eq!(sum, 42);
            assert!(matches!(index, Some(0 | 1)), "{index:?}");
        },
    );
    // Every execution's spawned task ran, once, before its pool was gone.
    assert_eq!(
        SPAWNED_RUNS.load(StdOrdering::SeqCst),
        EXECUTIONS.load(StdOrdering::SeqCst)
    );
}

#[path = "../support/stall_reports.rs"]
mod stall_reports;
use stall_reports::{is_stall_report, quiet_stall_reports};

/// A pool of one worker and no spare slot.
fn one_worker_no_spare() -> ThreadPool {
    ThreadPool::builder()
        .num_threads(1)
        .max_blocking_threads(0)
        .build()
        .expect("a pool builds")
}

// 3000 random + 3000 PCT (depth 3) iterations each, floor 1500.
//
// The stall detector (Z1-Z4) at the sizes loom cannot reach:
//
// 1. a cycle of handles across two one-worker pools with no spare (`y`
//    waits for `x`'s handle, then joins it; `x` joins `y`, or, every
//    other iteration, `y.then(..)`, through its input): reported exactly
//    once, whatever the schedule;
// 2. a pipeline of 12 stages alternating between two pools of one worker
//    and one spare slot, each stage joining the one before and passing
//    its panic on: it finishes with the right value on every schedule.
//    Stages start oldest first (V9), and a thread waiting on the other
//    pool is lent only tasks that cannot wait for its stack (Y5), so the
//    oldest unfinished stage always has a thread. Before both (at the
//    commit before V9), about 1 schedule in 6 ended with the report.
//    Neither mutant alone brings one back at this size (0 of 600
//    schedules each with `STEALPOOL_BUG=normal_batch_plain` and
//    `lend_any`, quick bounds): they are caught by real-thread tests
//    (`tests/pool_priority_fifo.rs`, `tests/pool_stall.rs`) and, for
//    V9, by `shuttle_priority`'s `fifo_two_workers`.
#[test]
fn stall_detector() {
    quiet_stall_reports();
    check("stall_cycle_of_two_pools", 3000, 3, || {
        let a = one_worker_no_spare();
        let b = one_worker_no_spare();
        let reports = Arc::new(AtomicUsize::new(0));
        let slot = Arc::new(shuttle::sync::Mutex::new(None::<stealpool::JoinHandle<u32>>));
        let join_counting =
            |handle: stealpool::JoinHandle<u32>, reports: &AtomicUsize| match panic::catch_unwind(
                AssertUnwindSafe(|| handle.join()),
            ) {
                Ok(Ok(value)) => value + 1,
                Ok(Err(_)) => panic!("the joined task panicked with something else than a report"),
                Err(payload) => {
                    assert!(is_stall_report(&*payload), "join panicked, and not with a report");
                    reports.fetch_add(1, Ordering::SeqCst);
                    0
                }
            };
        let (slot_y, reports_y) = (slot.clone(), reports.clone());
        let y = b.submit(move || {
            let x = loop {
                if let Some(x) = slot_y.lock().unwrap().take() {
                    break x;
                }
                shuttle::thread::yield_now();
            };
            join_counting(x, &reports_y)
        });
        static CYCLES: StdAtomicUsize = StdAtomicUsize::new(0);
        let awaited = if CYCLES.fetch_add(1, Ordering::Relaxed) % 2 == 1 {
            y.then(|value| value + 10)
        } else {
            y
        };
        let reports_x = reports.clone();
        let x = a.submit(move || join_counting(awaited, &reports_x));
        *slot.lock().unwrap() = Some(x);
        drop(a);
        drop(b);
        assert_eq!(
            reports.load(Ordering::SeqCst),
            1,
            "a cycle reported other than once"
        );
    });
    const SPARES: usize = 1;
    const STAGES: usize = 12;
    static PIPELINE_REPORTS: StdAtomicUsize = StdAtomicUsize::new(0);
    check("stall_pipeline_finishes", 3000, 3, || {
        let pool = || {
            ThreadPool::builder()
                .num_threads(1)
                .max_blocking_threads(SPARES)
                .build()
                .expect("a pool builds")
        };
        let pools = Arc::new([pool(), pool()]);
        let mut previous = pools[0].submit(|| 0u32);
        for stage in 1..STAGES {
            let before = previous;
            previous = pools[stage % 2].submit(move || match before.join() {
                Ok(value) => value + 1,
                Err(payload) => panic::resume_unwind(payload),
            });
        }
        match previous.join() {
            Ok(value) => assert_eq!(value, STAGES as u32 - 1),
            Err(payload) => {
                assert!(
                    is_stall_report(&*payload),
                    "the pipeline ended with another panic"
                );
                PIPELINE_REPORTS.fetch_add(1, StdOrdering::Relaxed);
            }
        }
    });
    let reports = PIPELINE_REPORTS.load(StdOrdering::Relaxed);
    progress::line(format_args!(
        "stall_pipeline_finishes: {reports} iterations ended with the report"
    ));
    assert_eq!(
        reports, 0,
        "an acyclic pipeline ended with a stall report the pool made (V9, Y5)"
    );
}
