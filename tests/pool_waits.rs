#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Waits that compose (H4 in `proofs/waits.md`): programs built only from
//! the pool's own waits (handles joined inside tasks, pipelines of
//! handles, `join` and `wait_all` across pools, continuations whose pool
//! is gone) finish on 1, 2 and 3 workers, every run, without nesting
//! their waits on one stack.

mod common;

use common::{finishes, quiet_expected_panics, Gate, EXPECTED};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use stealpool::{JoinHandle, ThreadPool};

/// Task A submits S and joins it; task B, submitted after A, joins A's
/// handle. S holds on until B has started (or a second has passed), so
/// that B is there to be taken while A waits: a worker that ran B on top
/// of A's wait would wait for A beneath itself forever.
#[test]
fn a_task_joins_the_handle_of_a_task_that_joins_a_subtask() {
    for workers in 1..=3 {
        let overlapped = finishes("dependent tasks", move || {
            let pool = Arc::new(ThreadPool::new(workers));
            let mut overlapped = 0;
            for _ in 0..200 {
                let b_started = Arc::new(AtomicBool::new(false));
                let (inner, started) = (pool.clone(), b_started.clone());
                let a = pool.submit(move || {
                    let s = inner.submit(move || {
                        // One worker runs S in place, B queued behind it.
                        let start = Instant::now();
                        while workers > 1 && !started.load(SeqCst) && start.elapsed() < Duration::from_secs(1)
                        {
                            thread::yield_now();
                        }
                        1
                    });
                    s.join().unwrap() + 1
                });
                let started = b_started.clone();
                let a_running = Arc::new(AtomicBool::new(false));
                let seen = a_running.clone();
                let b = pool.submit(move || {
                    seen.store(!a.is_finished(), SeqCst);
                    started.store(true, SeqCst);
                    a.join().unwrap() + 1
                });
                assert_eq!(b.join().unwrap(), 3);
                overlapped += usize::from(a_running.load(SeqCst));
            }
            overlapped
        });
        if workers > 1 {
            // The shape the test is about: B ran while A was unfinished.
            assert!(overlapped > 0, "{workers} workers: B never ran while A waited");
        }
    }
}

const STAGES: u64 = 20_000;

/// Submits `STAGES` stages on `pool`, stage i joining stage i-1's handle
/// and adding one; returns the last handle.
fn pipeline(pool: &ThreadPool) -> JoinHandle<u64> {
    let mut last: Option<JoinHandle<u64>> = None;
    for _ in 0..STAGES {
        let before = last.take();
        // A failed stage's payload goes on unchanged, so that the end's
        // error says what failed first.
        last = Some(pool.submit(move || {
            before.map_or(0, |h| {
                h.join().unwrap_or_else(|payload| panic::resume_unwind(payload))
            }) + 1
        }));
    }
    last.unwrap()
}

#[test]
fn a_pipeline_of_handles_submitted_from_outside_finishes() {
    for workers in 1..=3 {
        let end = finishes("pipeline from outside", move || {
            let pool = ThreadPool::new(workers);
            pipeline(&pool)
                .join()
                .unwrap_or_else(|payload| panic!("a stage failed: {:?}", common::message(&*payload)))
        });
        assert_eq!(end, STAGES, "{workers} workers");
    }
}

#[test]
fn a_pipeline_of_handles_built_inside_a_task_finishes() {
    for workers in 1..=3 {
        let end = finishes("pipeline built inside", move || {
            let pool = Arc::new(ThreadPool::new(workers));
            let inner = pool.clone();
            let last = pool.submit(move || pipeline(&inner)).join().unwrap();
            last.join().unwrap()
        });
        assert_eq!(end, STAGES, "{workers} workers");
    }
}

#[test]
fn a_task_that_builds_a_pipeline_and_joins_its_end_finishes() {
    for workers in 1..=3 {
        let end = finishes("pipeline joined inside", move || {
            let pool = Arc::new(ThreadPool::new(workers));
            let inner = pool.clone();
            pool.submit(move || pipeline(&inner).join().unwrap())
                .join()
                .unwrap()
        });
        assert_eq!(end, STAGES, "{workers} workers");
    }
}

/// rayon-core: "No matter what happens, both closures will always be
/// executed." On every path: published and taken back, stolen, and run
/// inline under `max_pending_joins`.
#[test]
fn join_runs_its_second_closure_when_the_first_panics() {
    quiet_expected_panics();
    let pools = [
        ThreadPool::new(1),
        ThreadPool::new(2),
        ThreadPool::builder()
            .num_threads(1)
            .max_pending_joins(0)
            .build()
            .unwrap(),
        ThreadPool::builder()
            .num_threads(2)
            .max_pending_joins(0)
            .build()
            .unwrap(),
    ];
    for pool in &pools {
        for _ in 0..200 {
            let ran = AtomicBool::new(false);
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| pool.join(|| panic!("{EXPECTED}"), || ran.store(true, SeqCst)))
            }));
            let payload = outcome.expect_err("the first closure's panic was lost");
            assert_eq!(common::message(&*payload).as_deref(), Some(EXPECTED));
            assert!(ran.load(SeqCst), "{pool:?}: the second closure never ran");
        }
    }
}

/// Both closures panic: the first's panic is the one re-raised, and the
/// second still ran to its panic.
#[test]
fn join_reraises_the_first_panic_when_both_panic() {
    quiet_expected_panics();
    let pool = ThreadPool::new(1);
    let ran = AtomicBool::new(false);
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| {
            pool.join(
                || panic!("{EXPECTED}: a"),
                || {
                    ran.store(true, SeqCst);
                    panic!("{EXPECTED}: b")
                },
            )
        })
    }))
    .expect_err("no panic");
    assert!(ran.load(SeqCst));
    assert_eq!(common::message(&*payload).unwrap(), format!("{EXPECTED}: a"));
}

/// A chain of continuations attached through `zip` to a task of another
/// pool, whose own pool is dropped before the chain can run: the other
/// pool's worker then runs every link, one after another, not one inside
/// the previous one (K4).
#[test]
fn a_long_chain_whose_pool_is_gone_runs_without_nesting() {
    let links: u64 = if cfg!(debug_assertions) {
        200_000
    } else {
        1_000_000
    };
    let end = finishes("chain after its pool was dropped", move || {
        let chain_pool = ThreadPool::new(1);
        let other = ThreadPool::new(1);
        let gate = Arc::new(Gate::default());
        let held = gate.clone();
        let late = other.submit(move || {
            held.wait();
            1u64
        });
        let mut last = chain_pool.submit(|| 0u64).zip(late).then(|(a, b)| a + b);
        for _ in 0..links {
            last = last.then(|x| x + 1);
        }
        drop(chain_pool);
        gate.open();
        let end = last.join().unwrap();
        drop(other);
        end
    });
    assert_eq!(end, links + 1);
}

/// `wait_all` on a worker of another pool: a spare of the caller's pool
/// stands in, so the caller's pool still runs what the awaited pool's
/// task needs from it.
#[test]
fn wait_all_on_a_worker_of_another_pool_keeps_that_pool_going() {
    let value = finishes("wait_all across pools", || {
        let a = Arc::new(ThreadPool::new(1));
        let b = Arc::new(ThreadPool::new(1));
        let (a_inner, b_inner) = (a.clone(), b.clone());
        let needs_a = b.submit(move || a_inner.submit(|| 5).join().unwrap());
        a.submit(move || b_inner.wait_all()).join().unwrap();
        needs_a.join().unwrap()
    });
    assert_eq!(value, 5);
}

/// `max_pending_joins`, inside its contract: `a` joins the handle of a
/// task that does not depend on `b`. Every limit, one and two workers.
#[test]
fn a_limited_join_whose_first_closure_joins_an_independent_task_finishes() {
    for limit in [0, 1, 3] {
        for workers in 1..=2 {
            let done = finishes("limited join", move || {
                let pool = Arc::new(
                    ThreadPool::builder()
                        .num_threads(workers)
                        .max_pending_joins(limit)
                        .build()
                        .unwrap(),
                );
                let counted = Arc::new(AtomicUsize::new(0));
                let (inner, count) = (pool.clone(), counted.clone());
                pool.install(move || {
                    for _ in 0..100 {
                        let count_b = count.clone();
                        let x = inner.submit(|| 7);
                        let (a, ()) = inner.join(
                            || x.join().unwrap(),
                            || {
                                count_b.fetch_add(1, SeqCst);
                            },
                        );
                        assert_eq!(a, 7);
                    }
                });
                counted.load(SeqCst)
            });
            assert_eq!(done, 100, "limit {limit}, {workers} workers");
        }
    }
}

/// A handle joined on a worker runs its unstarted task in place: no spare
/// is needed, even with none allowed, and the stack of waits stays as
/// deep as the program's own.
#[test]
fn a_queued_task_joined_on_a_worker_runs_in_place() {
    let pool = common::one_worker_no_spare();
    let inner = pool.clone();
    let sum = pool
        .submit(move || {
            let handles: Vec<_> = (0..100u64).map(|i| inner.submit(move || i)).collect();
            handles.into_iter().rev().map(|h| h.join().unwrap()).sum::<u64>()
        })
        .join()
        .unwrap();
    assert_eq!(sum, 4950);
    assert_eq!(pool.stats().spare_threads_started, 0);
}

/// H8: a continuation joined on a worker of its pool runs the inputs
/// nobody started in place first, through `then`, `zip`, `when_all` and
/// chains of them: with one worker and no spare allowed there is no other
/// thread to run them, and the join still returns (before H8 it parked
/// forever).
#[test]
fn a_continuation_joined_on_a_worker_runs_its_unstarted_inputs_in_place() {
    let pool = common::one_worker_no_spare();
    let inner = pool.clone();
    let (sum, ran_in_place) = finishes("continuations of unstarted inputs", move || {
        pool.install(|| {
            let then = inner.submit(|| 1u64).then(|x| x + 1);
            let chain = (0..50).fold(inner.submit(|| 0u64), |h, _| h.then(|x| x + 1));
            let zipped = inner
                .submit(|| 3u64)
                .zip(inner.submit(|| 4u64))
                .then(|(a, b)| a * b);
            let all = inner.when_all((0..10u64).map(|i| inner.submit(move || i).then(|x| x * 2)));
            let sum = then.join().unwrap()
                + chain.join().unwrap()
                + zipped.join().unwrap()
                + all.join().unwrap().into_iter().sum::<u64>();
            (sum, inner.stats().spare_threads_started)
        })
    });
    assert_eq!(sum, 2 + 50 + 12 + 90);
    assert_eq!(ran_in_place, 0, "no spare may start here");
}

/// How a task `x` waits for work it handed to another worker, in
/// `transitive_dependency_finishes`.
#[derive(Clone, Copy, Debug)]
enum Fork {
    /// `join`, its second half stolen.
    Join,
    /// `scope`, its one task stolen.
    Scope,
}

/// H6, H7: the program `proofs/waits.md` calls non-cyclic. Task X forks
/// (`join` or `scope`), and the other worker takes what it forked, which
/// holds on until task T has started. T was queued after X's fork: T
/// joins the handle of Y, and Y joins X's. Nothing waits for T, so the
/// program has no cycle; but a worker that ran T on top of X's wait
/// (the rule before H6) would hold X beneath a wait for X. Checks that
/// T ran on a thread other than X's while X waited, and that all finish.
fn transitive_dependency_finishes(workers: usize, fork: Fork) {
    finishes("transitive dependency", move || {
        let pool = Arc::new(ThreadPool::new(workers));
        let forked_started = Arc::new(AtomicBool::new(false));
        let t_started = Arc::new(AtomicBool::new(false));
        let (pool_x, started, t_seen) = (pool.clone(), forked_started.clone(), t_started.clone());
        let half_started = forked_started.clone();
        let x = pool.submit(move || {
            let held = move || {
                started.store(true, SeqCst);
                // Until T runs, which nothing but this worker's stand-in
                // can do while X's worker waits.
                assert!(common::wait_for(&t_seen), "T never started while X waited");
            };
            match fork {
                Fork::Join => {
                    pool_x.join(
                        || assert!(common::wait_for(&half_started), "the half was never stolen"),
                        held,
                    );
                }
                Fork::Scope => pool_x.scope(|s| {
                    s.spawn(|_| held());
                    assert!(common::wait_for(&half_started), "the task was never stolen");
                }),
            }
            thread::current().id()
        });
        assert!(common::wait_for(&forked_started), "X's forked work never started");
        let y = pool.submit(move || x.join().unwrap());
        let t = pool.submit(move || {
            t_started.store(true, SeqCst);
            (thread::current().id(), y.join().unwrap())
        });
        let (t_thread, x_thread) = t.join().unwrap();
        assert_ne!(t_thread, x_thread, "T ran on X's thread while X waited");
        pool.wait_all();
    });
}

#[test]
fn a_join_waiting_for_its_stolen_half_runs_no_unrelated_task() {
    for workers in 2..=3 {
        transitive_dependency_finishes(workers, Fork::Join);
    }
}

#[test]
fn a_scope_waiting_for_its_stolen_task_runs_no_unrelated_task() {
    for workers in 2..=3 {
        transitive_dependency_finishes(workers, Fork::Scope);
    }
}

/// Spins until another thread puts a value in `slot`, and takes it.
fn take_when_put<T>(slot: &std::sync::Mutex<Option<T>>) -> T {
    loop {
        if let Some(value) = slot.lock().unwrap().take() {
            break value;
        }
        thread::yield_now();
    }
}

/// Runs `join`, which must panic, and sends its panic's message.
fn send_panic_message<R>(report: &mpsc::Sender<String>, join: impl FnOnce() -> R) {
    let Err(payload) = panic::catch_unwind(AssertUnwindSafe(join)) else {
        panic!("the join returned");
    };
    report
        .send(common::message(&*payload).unwrap_or_default())
        .unwrap();
}

/// Y6 (formerly H5 through Y1): a task of a one-worker pool with no spare
/// installs into another pool, whose job submits a task back to the first
/// pool and joins it; that task joins the handle of the first one. A real
/// cycle. Before Y6 the task was posted to the only worker, beneath which
/// the task it joins runs, and H5 panicked there. Y6 posts it only where
/// it cannot wait for the stack beneath (it was made after the first task,
/// so it may wait for it): it stays queued, and the stall detector reports
/// the cycle, naming the join and the task it waits for.
#[test]
fn a_cycle_through_an_install_is_reported_not_posted_beneath() {
    quiet_expected_panics();
    let message = finishes("cycle through an install", || {
        let pool = common::one_worker_no_spare();
        let other = Arc::new(ThreadPool::new(1));
        let slot: Arc<std::sync::Mutex<Option<JoinHandle<()>>>> = Arc::default();
        let (own_pool, other_pool, own_slot) = (pool.clone(), other.clone(), slot.clone());
        let (report, reported) = mpsc::channel();
        let beneath = pool.submit(move || {
            other_pool.install(|| {
                let handle = take_when_put(&own_slot);
                let task = own_pool.submit(move || handle.join().is_ok());
                // The stall report is this join's own panic.
                send_panic_message(&report, || task.join());
            })
        });
        *slot.lock().unwrap() = Some(beneath);
        let message = reported.recv().unwrap();
        pool.wait_all();
        message
    });
    assert!(message.contains("can never return (a stall)"), "{message}");
    assert!(!message.contains("beneath it on the same thread"), "{message}");
    assert!(
        message.contains("tests/pool_waits.rs"),
        "the report names the waits: {message}"
    );
}

/// H5: a task that joins its own handle (it reaches it through a slot)
/// runs beneath that join on the same thread: the join panics naming the
/// cycle instead of waiting forever.
#[test]
fn a_task_joining_its_own_handle_beneath_it_panics() {
    quiet_expected_panics();
    let message = finishes("a task joining itself", || {
        let pool = common::one_worker_no_spare();
        let slot: Arc<std::sync::Mutex<Option<JoinHandle<()>>>> = Arc::default();
        let own_slot = slot.clone();
        let (report, reported) = mpsc::channel();
        let task = pool.submit(move || {
            let handle = take_when_put(&own_slot);
            send_panic_message(&report, || handle.join());
        });
        *slot.lock().unwrap() = Some(task);
        let message = reported.recv().unwrap();
        pool.wait_all();
        message
    });
    assert!(message.contains("beneath it on the same thread"), "{message}");
}

/// rayon-core's `panic_b_still_executes` (join/test.rs), ported: a pool
/// of one worker per available CPU, so `model/scripts/verify.sh` runs it pinned
/// to one CPU too, where nobody can steal `b`.
#[test]
fn rayon_core_panic_b_still_executes() {
    quiet_expected_panics();
    let pool = ThreadPool::new(0);
    let mut x = false;
    match panic::catch_unwind(AssertUnwindSafe(|| {
        pool.join(|| panic!("{EXPECTED}: Hello, world!"), || x = true)
    })) {
        Ok(_) => panic!("failed to propagate panic from closure A,"),
        Err(_) => assert!(x, "closure b failed to execute"),
    }
}
