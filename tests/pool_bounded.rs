//! A pool built with `Builder::bounded_steals(true)` (`proofs/bounded.md`,
//! G12): plain tasks spawned inside tasks go on the spawning worker's
//! bounded deque, others steal them from it. They run exactly once, some
//! are stolen (counted in `Stats::bounded_steals`), a shutdown drains them,
//! their panics leave the workers alive, the slots are limited, and the
//! deque lives beside `join`, `scope`, priorities and `block_in_place`.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

mod common;

use common::{fib, quiet_expected_panics, scaled, wait_for, DEADLINE, EXPECTED};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::*};
use std::sync::{mpsc, Arc};
use std::time::Instant;
use stealpool::{block_in_place, current_thread_index, Priority, ThreadPool};

fn bounded_pool(workers: usize) -> ThreadPool {
    ThreadPool::builder()
        .num_threads(workers)
        .bounded_steals(true)
        .build()
        .unwrap()
}

/// Each task's run count, by its number.
struct Runs(Vec<AtomicU8>);

impl Runs {
    fn new(tasks: usize) -> Arc<Runs> {
        Arc::new(Runs((0..tasks).map(|_| AtomicU8::new(0)).collect()))
    }

    fn ran(&self, task: usize) {
        self.0[task].fetch_add(1, Relaxed);
    }

    fn assert_each_once(&self) {
        for (task, runs) in self.0.iter().enumerate() {
            assert_eq!(
                runs.load(Relaxed),
                1,
                "task {task} ran {} times",
                runs.load(Relaxed)
            );
        }
    }
}

const ROOTS: usize = 4;
const CHILDREN: usize = scaled(50, 4);
const GRANDCHILDREN: usize = 4;
const TREE: usize = ROOTS * (1 + CHILDREN * (1 + GRANDCHILDREN));

/// `ROOTS` tasks from outside, each spawning `CHILDREN` from inside, each
/// spawning `GRANDCHILDREN`: every task numbered, counted in `runs`.
fn spawn_tree(pool: &ThreadPool, runs: &Arc<Runs>) {
    for root in 0..ROOTS {
        let runs = runs.clone();
        pool.spawn(move || {
            let base = root * (1 + CHILDREN * (1 + GRANDCHILDREN));
            runs.ran(base);
            for child in 0..CHILDREN {
                let runs = runs.clone();
                let first = base + 1 + child * (1 + GRANDCHILDREN);
                stealpool::spawn(move || {
                    runs.ran(first);
                    for grandchild in 1..=GRANDCHILDREN {
                        let runs = runs.clone();
                        stealpool::spawn(move || runs.ran(first + grandchild));
                    }
                });
            }
        });
    }
}

#[test]
fn tasks_spawned_inside_tasks_run_exactly_once_on_1_2_and_4_workers() {
    // Miri: two workers, where tasks are stolen (a thread costs it most).
    let workers: &[usize] = if cfg!(miri) { &[2] } else { &[1, 2, 4] };
    for &workers in workers {
        let pool = bounded_pool(workers);
        let runs = Runs::new(TREE);
        spawn_tree(&pool, &runs);
        pool.wait_all();
        runs.assert_each_once();
        let stats = pool.stats();
        assert_eq!(stats.tasks_executed, TREE as u64, "{workers} workers");
        assert_eq!(stats.panicked, 0);
        if workers == 1 {
            assert_eq!(stats.bounded_steals, 0, "one worker has no one to steal from");
        }
    }
}

/// A task spawns children on its worker's bounded deque, then waits until
/// one of them ran on another thread: that thread stole it. Returns the
/// pool's statistics once every child ran, and whether the wait ended by
/// the theft.
fn a_child_runs_elsewhere(bounded: bool) -> (stealpool::Stats, bool) {
    let pool = ThreadPool::builder()
        .num_threads(2)
        .bounded_steals(bounded)
        .build()
        .unwrap();
    let elsewhere = Arc::new(AtomicBool::new(false));
    let ran = Arc::new(AtomicUsize::new(0));
    let (sender, receiver) = mpsc::channel();
    let (flag, counted) = (elsewhere.clone(), ran.clone());
    pool.spawn(move || {
        let parent = current_thread_index();
        for _ in 0..8 {
            let (flag, counted) = (flag.clone(), counted.clone());
            stealpool::spawn(move || {
                counted.fetch_add(1, Relaxed);
                if current_thread_index() != parent {
                    flag.store(true, Release);
                }
            });
        }
        // This worker blocks: only a steal can run a child meanwhile.
        sender.send(wait_for(&flag)).unwrap();
    });
    let stolen = receiver.recv().unwrap();
    pool.wait_all();
    assert_eq!(ran.load(Relaxed), 8, "a child ran twice or never");
    (pool.stats(), stolen)
}

#[test]
fn a_blocked_workers_bounded_deque_is_stolen_from() {
    let (stats, stolen) = a_child_runs_elsewhere(true);
    assert!(stolen, "no child ran on the other worker within {DEADLINE:?}");
    assert!(stats.bounded_steals >= 1, "{stats:?}");
    assert!(stats.successful_steals >= stats.bounded_steals);
    let per_worker: u64 = stats.per_worker.iter().map(|w| w.bounded_steals).sum();
    assert_eq!(per_worker + stats.spares.bounded_steals, stats.bounded_steals);
    // The count is of bounded steals alone: without the option the same
    // children are stolen from the shared deque, and it stays 0.
    let (stats, stolen) = a_child_runs_elsewhere(false);
    assert!(stolen, "no child ran on the other worker within {DEADLINE:?}");
    assert!(stats.successful_steals >= 1, "{stats:?}");
    assert_eq!(stats.bounded_steals, 0, "{stats:?}");
}

#[test]
fn shutdown_runs_every_task_on_the_bounded_deques() {
    let workers: &[usize] = if cfg!(miri) { &[2] } else { &[1, 2] };
    for &workers in workers {
        let pool = bounded_pool(workers);
        let runs = Runs::new(TREE);
        spawn_tree(&pool, &runs);
        // No wait: the drop runs what is queued, and what that spawns.
        drop(pool);
        runs.assert_each_once();
    }
}

#[test]
fn panics_in_bounded_tasks_leave_every_worker_alive() {
    quiet_expected_panics();
    const PANICS: usize = scaled(20, 3);
    let pool = ThreadPool::builder()
        .num_threads(2)
        .bounded_steals(true)
        .panic_handler(|_| {})
        .build()
        .unwrap();
    let ran = Arc::new(AtomicUsize::new(0));
    let counted = ran.clone();
    pool.spawn(move || {
        for i in 0..2 * PANICS {
            let counted = counted.clone();
            stealpool::spawn(move || {
                if i % 2 == 0 {
                    panic!("{EXPECTED}: a bounded task");
                }
                counted.fetch_add(1, Relaxed);
            });
        }
    });
    pool.wait_all();
    assert_eq!(ran.load(Relaxed), PANICS);
    assert_eq!(pool.stats().panicked, PANICS as u64);
    // Both workers still run tasks: two spawned on one worker's bounded
    // deque meet, so each is on its own thread at once.
    let arrived = Arc::new(AtomicUsize::new(0));
    let met = Arc::new(AtomicUsize::new(0));
    let (a, m) = (arrived.clone(), met.clone());
    pool.spawn(move || {
        for _ in 0..2 {
            let (arrived, met) = (a.clone(), m.clone());
            stealpool::spawn(move || {
                arrived.fetch_add(1, AcqRel);
                let start = Instant::now();
                while arrived.load(Acquire) < 2 && start.elapsed() < DEADLINE {
                    std::thread::yield_now();
                }
                if arrived.load(Acquire) == 2 {
                    met.fetch_add(1, Relaxed);
                }
            });
        }
    });
    pool.wait_all();
    assert_eq!(
        met.load(Relaxed),
        2,
        "the two tasks never ran at once: a worker is gone"
    );
}

#[test]
fn more_than_16_slots_is_an_error() {
    let error = ThreadPool::builder()
        .num_threads(17)
        .bounded_steals(true)
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("at most 16"), "{error}");
    let error = ThreadPool::builder()
        .num_threads(8)
        .max_blocking_threads(9)
        .bounded_steals(true)
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("17 were asked"), "{error}");
    // At the limit it builds; without the option the same pools build
    // (25 workers started: not under Miri, where each costs seconds).
    if cfg!(miri) {
        return;
    }
    // Without a count, one worker per CPU up to the slots: it builds on
    // any machine.
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = ThreadPool::builder().bounded_steals(true).build().unwrap();
    assert_eq!(pool.num_workers(), cpus.min(16));
    drop(pool);
    ThreadPool::builder()
        .num_threads(8)
        .max_blocking_threads(8)
        .bounded_steals(true)
        .build()
        .unwrap();
    ThreadPool::builder()
        .num_threads(17)
        .max_blocking_threads(0)
        .build()
        .unwrap();
}

// 16 threads: not under Miri, where each costs seconds; it checks the
// builder's count, which has no unsafe code.
#[cfg(not(miri))]
#[test]
fn default_spare_threads_are_cut_to_the_slots() {
    // 4 workers would have 16 spare slots by default; 12 fit. 15 tasks
    // block at once, on the 4 workers and 11 spares: each block asks for
    // a spare, the first 12 get one, the last 3 find every slot taken.
    let pool = bounded_pool(4);
    let (sender, receiver) = mpsc::channel::<()>();
    let receiver = Arc::new(std::sync::Mutex::new(receiver));
    let blocked = Arc::new(AtomicUsize::new(0));
    let (b, r) = (blocked.clone(), receiver.clone());
    pool.spawn(move || {
        for _ in 0..15 {
            let (blocked, receiver) = (b.clone(), r.clone());
            stealpool::spawn(move || {
                block_in_place(|| {
                    blocked.fetch_add(1, Relaxed);
                    let _ = receiver.lock().unwrap().recv_timeout(DEADLINE);
                });
            });
        }
    });
    let start = Instant::now();
    while blocked.load(Relaxed) < 15 && start.elapsed() < DEADLINE {
        std::thread::yield_now();
    }
    assert_eq!(blocked.load(Relaxed), 15, "not every task got a thread");
    for _ in 0..15 {
        sender.send(()).unwrap();
    }
    pool.wait_all();
    let stats = pool.stats();
    assert_eq!(stats.spare_threads_started, 12, "{stats:?}");
    assert_eq!(stats.blocking_uncompensated, 3, "{stats:?}");
}

/// fib's argument in the program that mixes everything, and fib(FIB) +
/// fib(FIB - 1).
const FIB: u64 = if cfg!(miri) { 8 } else { 15 };
const FIB_SUM: u64 = if cfg!(miri) { 21 + 13 } else { 610 + 377 };

#[test]
fn bounded_tasks_beside_join_scope_priorities_and_block_in_place() {
    let pool = Arc::new(
        ThreadPool::builder()
            .num_threads(2)
            .max_blocking_threads(2)
            .bounded_steals(true)
            .build()
            .unwrap(),
    );
    let ran = Arc::new(AtomicUsize::new(0));
    let inner = pool.clone();
    let counted = ran.clone();
    let handle = pool.submit(move || {
        let pool = &*inner;
        // join: a fork-join tree on the shared deques.
        let sum = pool.join(|| fib(pool, FIB), || fib(pool, FIB - 1));
        // scope: its tasks spawn plain tasks, which go bounded.
        pool.scope(|s| {
            for _ in 0..8 {
                let counted = counted.clone();
                s.spawn(move |_| {
                    stealpool::spawn(move || {
                        counted.fetch_add(1, Relaxed);
                    });
                });
            }
        });
        // Priorities: levels other than Normal keep their own deques.
        for priority in [Priority::High, Priority::Low, Priority::Normal] {
            let counted = counted.clone();
            pool.spawn_with_priority(priority, move || {
                counted.fetch_add(1, Relaxed);
            });
        }
        // block_in_place: a child on this worker's bounded deque, awaited
        // while blocked; the spare (or the other worker) steals it.
        let (sender, receiver) = mpsc::channel();
        let counted = counted.clone();
        stealpool::spawn(move || {
            counted.fetch_add(1, Relaxed);
            sender.send(()).unwrap();
        });
        block_in_place(|| receiver.recv_timeout(DEADLINE)).expect("the bounded child never ran");
        sum.0 + sum.1
    });
    assert_eq!(handle.join().unwrap(), FIB_SUM);
    pool.wait_all();
    assert_eq!(ran.load(Relaxed), 8 + 3 + 1);
    let stats = pool.stats();
    assert_eq!(stats.tasks_by_priority[Priority::High as usize], 1);
    assert_eq!(stats.tasks_by_priority[Priority::Low as usize], 1);
}

#[test]
fn a_spare_steals_from_its_blocked_workers_bounded_deque() {
    // One worker: the child it spawns before blocking can only run on the
    // spare standing in for it, which steals it from the worker's deque.
    let pool = ThreadPool::builder()
        .num_threads(1)
        .max_blocking_threads(1)
        .bounded_steals(true)
        .build()
        .unwrap();
    let handle = pool.submit(|| {
        let (sender, receiver) = mpsc::channel();
        stealpool::spawn(move || {
            let name = std::thread::current().name().map(str::to_owned);
            sender.send((name, current_thread_index())).unwrap()
        });
        block_in_place(|| receiver.recv_timeout(DEADLINE))
    });
    let (name, index) = handle.join().unwrap().unwrap();
    assert!(
        name.unwrap().starts_with("stealpool-spare-"),
        "the child ran on the worker"
    );
    // The spare answers as the pool's one worker (`current_thread_index`).
    assert_eq!(index, Some(0));
    let stats = pool.stats();
    assert_eq!(stats.spares.bounded_steals, 1, "{stats:?}");
}
