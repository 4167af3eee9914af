#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Waits that cross pools, on real threads: a worker of one pool that waits
//! on another (`install`, `join`, `scope`, a `JoinHandle`, `wait_all`) parks with a
//! spare of its own pool standing in if one may start, and is handed what
//! the awaited work needs of its pool (Y1-Y4; `wait_all` with no spare runs
//! its own pool's jobs), so pools that call into each other never deadlock
//! for want of a worker, even with one worker each.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;
use stealpool::ThreadPool;

/// Rounds of each program: each round is a fresh race between the pools.
const ROUNDS: usize = 200;

/// Runs `program` on another thread and fails if it has not finished in
/// 600 s (a deadlock), instead of hanging the test binary. Each round
/// starts a spare thread or two (a waiting worker parks with one standing
/// in), which a loaded machine may take tens of milliseconds to schedule:
/// the bound is far past any such run.
fn completes<R: Send + 'static>(program: impl FnOnce() -> R + Send + 'static) -> R {
    let (done, finished) = mpsc::channel();
    thread::spawn(move || {
        let _ = done.send(program());
    });
    finished
        .recv_timeout(Duration::from_secs(600))
        .expect("the program deadlocked")
}

/// The review's first program: `a`'s only worker waits in `b.install`, and
/// `b`'s job joins on `a`.
#[test]
fn install_then_join_back_one_worker_each() {
    completes(|| {
        for _ in 0..ROUNDS {
            let a = ThreadPool::new(1);
            let b = ThreadPool::new(1);
            assert_eq!(a.install(|| b.install(|| a.join(|| 1, || 2))), (1, 2));
        }
    });
}

/// The second: both of `a`'s workers wait on `b` at once, and each of `b`'s
/// jobs joins on `a`.
#[test]
fn both_workers_wait_on_another_pool() {
    completes(|| {
        for _ in 0..ROUNDS {
            let a = ThreadPool::new(2);
            let b = ThreadPool::new(1);
            let ran = AtomicUsize::new(0);
            let work = || {
                ran.fetch_add(1, SeqCst);
            };
            a.join(
                || b.install(|| a.join(work, work)),
                || b.install(|| a.join(work, work)),
            );
            assert_eq!(ran.load(SeqCst), 4);
        }
    });
}

/// The third: a task of `a` joins a handle of `b`, whose task submits to
/// `a` and joins that.
#[test]
fn handles_across_pools() {
    completes(|| {
        for _ in 0..ROUNDS {
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
        }
    });
}

/// A cycle of three one-worker pools, through `install`, `scope` and
/// `join`.
#[test]
fn a_cycle_of_three_pools() {
    completes(|| {
        for _ in 0..ROUNDS {
            let a = ThreadPool::new(1);
            let b = ThreadPool::new(1);
            let c = ThreadPool::new(1);
            let mut cells = [0u32; 2];
            let (a, c) = (&a, &c);
            a.install(|| {
                b.scope(|s| {
                    let cells = &mut cells;
                    s.spawn(move |_| {
                        c.install(|| {
                            let (x, y) = a.join(|| 1, || 2);
                            cells[0] = x;
                            cells[1] = y;
                        })
                    });
                })
            });
            assert_eq!(cells, [1, 2]);
        }
    });
}

/// A worker waiting on another pool keeps its own pool going (a spare of
/// `a` stands in for it): the task it waits for (on `b`) cannot finish
/// until a task queued on `a` has run, and `a` has one worker, the
/// waiting one.
#[test]
fn a_waiting_worker_runs_its_own_pools_tasks() {
    completes(|| {
        let a = Arc::new(ThreadPool::new(1));
        let b = ThreadPool::new(1);
        let flag = Arc::new(AtomicUsize::new(0));
        let (task_flag, inner_a) = (flag.clone(), a.clone());
        let seen = a.install(move || {
            inner_a.spawn(move || {
                task_flag.store(1, SeqCst);
            });
            // Spins on b's worker until a's queued task has run.
            b.install(|| {
                while flag.load(SeqCst) == 0 {
                    thread::yield_now();
                }
                flag.load(SeqCst)
            })
        });
        assert_eq!(seen, 1);
    });
}

/// A pool's last handle dropped on a worker of another pool, while a
/// worker of the dropped pool waits for that very thread (`install`): the
/// drop must not wait for its workers, or neither ever finishes.
#[test]
fn the_last_handle_dropped_inside_another_pools_install() {
    completes(|| {
        for _ in 0..ROUNDS / 10 {
            let a = Arc::new(ThreadPool::new(2));
            let b = Arc::new(ThreadPool::new(2));
            let (last_a, inner_b) = (a.clone(), b.clone());
            let handle = a.submit(move || {
                inner_b.install(move || {
                    drop(last_a);
                    1u64
                })
            });
            drop(a);
            assert_eq!(handle.join().unwrap(), 1);
        }
    });
}

/// A pool dropped by a task of another pool, while the dropped pool's
/// worker waits on a task queued on the caller's pool (one worker, the
/// caller's own): the drop must not wait, and every task still runs.
#[test]
fn a_pool_dropped_by_a_task_its_worker_waits_on() {
    completes(|| {
        for _ in 0..ROUNDS / 10 {
            let a = Arc::new(ThreadPool::new(1));
            let inner_a = a.clone();
            let handle = a.submit(move || {
                let b = ThreadPool::new(1);
                let back_to_a = inner_a.clone();
                let waiting = b.submit(move || back_to_a.submit(|| 7u64).join().unwrap());
                drop(b);
                waiting.join().unwrap()
            });
            assert_eq!(handle.join().unwrap(), 7);
        }
    });
}

/// `wait_all` of pool `a` on the only worker of pool `b`, with no spare
/// slot in either, while `a`'s task joins a task of `b`: the waiting
/// worker runs `b`'s jobs meanwhile (its fallback), so `b`'s
/// task runs, `a`'s finishes, and the wait ends. (It used to block `b`'s
/// worker, and nothing ever ran `b`'s task.)
#[test]
fn wait_all_on_another_pools_only_worker_runs_its_own_pools_jobs() {
    for _ in 0..ROUNDS / 10 {
        completes(|| {
            let (a, b) = (common::one_worker_no_spare(), common::one_worker_no_spare());
            let (inner_a, inner_b) = (a.clone(), b.clone());
            let joined = Arc::new(AtomicUsize::new(0));
            let task_joined = joined.clone();
            let (started, start) = mpsc::channel();
            a.spawn(move || {
                // Waits until `b`'s worker is inside `wait_all`.
                start.recv().unwrap();
                task_joined.store(inner_b.submit(|| 5).join().unwrap(), SeqCst);
            });
            b.install(move || {
                started.send(()).unwrap();
                inner_a.wait_all();
            });
            assert_eq!(
                joined.load(SeqCst),
                5,
                "wait_all returned before a's task finished"
            );
            assert_eq!(a.pending_tasks(), 0);
        });
    }
}

/// A pipeline of `stages` handles alternating between two pools, each stage
/// joining the one before it: nothing waits in a cycle, yet every stage
/// that starts before the one before it has finished parks a thread.
fn two_pool_pipeline(pools: &[Arc<ThreadPool>; 2], stages: u64) -> u64 {
    let mut previous = pools[0].submit(|| 0u64);
    for stage in 1..stages {
        let before = previous;
        previous = pools[stage as usize % 2].submit(move || before.join().unwrap() + 1);
    }
    previous.join().unwrap()
}

/// Fifty stages on pools built with default settings, from outside the
/// pools and from a task of one of them, on one and two workers per pool:
/// a pool holds at most 25 stages at once, within the default spare slots
/// (at least 64), so every parked stage has a stand-in. With the former
/// default (four slots per worker) the one-worker pipeline hung.
#[test]
fn a_fifty_stage_two_pool_pipeline_finishes_with_default_settings() {
    const STAGES: u64 = 50;
    for workers in [1, 2] {
        for round in 0..10 {
            let pools = [
                Arc::new(ThreadPool::new(workers)),
                Arc::new(ThreadPool::new(workers)),
            ];
            let inside = round % 2 == 1;
            let last = completes(move || {
                if inside {
                    let both = pools.clone();
                    pools[0]
                        .submit(move || two_pool_pipeline(&both, STAGES))
                        .join()
                        .unwrap()
                } else {
                    two_pool_pipeline(&pools, STAGES)
                }
            });
            assert_eq!(last, STAGES - 1, "workers {workers}, round {round}");
        }
    }
}
