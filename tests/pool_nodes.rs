//! Per-node injectors on real threads (Q10 in `proofs/injector.md`): a
//! task submitted on a node is taken by that node's worker when it is free,
//! on a hand-made layout of two nodes on whatever this machine is.

#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use stealpool::{current_thread_index, ThreadPool, Topology};

/// Rounds of the experiment: with one injector for both nodes, a round
/// gives a worker the other node's task first about every other time.
const ROUNDS: usize = 24;
/// Tasks each node's worker submits per round.
const PER_NODE: usize = 4;

/// Two nodes of one CPU each, one worker per node: worker `w` is on node
/// `w` (the `w`-th CPU in node-major order). Each round puts a gate task on
/// each worker; once both are held, each submits `PER_NODE` tasks (from a
/// worker, `submit` goes to an injector: its node's), then both return
/// together. Each worker's first search afterwards finds its own node's
/// injector full: the other worker reaches a remote injector only when its
/// own is empty, and its own is full until it takes it, after which it is
/// held in that batch's first task. Every task waits until two have
/// started, so neither worker drains its batch and moves on before the
/// other has taken its first: the first task each worker runs after the
/// gates must be its own node's. Counted over every round, no timing.
#[test]
fn a_task_submitted_on_a_node_is_taken_there_first() {
    let layout = Topology::uniform(2, 1, 1).unwrap();
    let pool = Arc::new(
        ThreadPool::builder()
            .topology(layout)
            .num_threads(2)
            .build()
            .unwrap(),
    );
    let mut own_first = 0;
    for _ in 0..ROUNDS {
        let held = Arc::new(Barrier::new(2));
        let submitted = Arc::new(Barrier::new(2));
        let started = Arc::new(AtomicUsize::new(0));
        // (worker, node of the submitter) of each worker's first task.
        let firsts: Arc<Mutex<Vec<(usize, usize)>>> = Arc::new(Mutex::new(Vec::new()));
        for _ in 0..2 {
            let (pool2, held, submitted) = (pool.clone(), held.clone(), submitted.clone());
            let (started, firsts) = (started.clone(), firsts.clone());
            pool.spawn(move || {
                let node = current_thread_index().unwrap();
                held.wait();
                for _ in 0..PER_NODE {
                    let (started, firsts) = (started.clone(), firsts.clone());
                    drop(pool2.submit(move || {
                        let worker = current_thread_index().unwrap();
                        if started.fetch_add(1, Ordering::SeqCst) < 2 {
                            firsts.lock().unwrap().push((worker, node));
                        }
                        while started.load(Ordering::SeqCst) < 2 {
                            std::thread::yield_now();
                        }
                    }));
                }
                drop(pool2);
                submitted.wait();
            });
        }
        pool.wait_all();
        let firsts = firsts.lock().unwrap().clone();
        assert_eq!(firsts.len(), 2);
        assert_ne!(
            firsts[0].0, firsts[1].0,
            "both first tasks ran on one worker: {firsts:?}"
        );
        assert!(
            firsts.iter().all(|&(worker, node)| worker == node),
            "a worker took the other node's task first: {firsts:?}"
        );
        own_first += 1;
    }
    assert_eq!(own_first, ROUNDS);
    let pool = Arc::into_inner(pool).expect("no task holds the pool after wait_all");
    assert_eq!(pool.stats().tasks_executed, (ROUNDS * (2 + 2 * PER_NODE)) as u64);
}

/// A task submitted from outside on a two-node pool runs, from any node,
/// and a pool of one node on a layout of two (one worker) takes everything
/// from its one injector: every submission of many outside threads runs.
#[test]
fn every_outside_submission_runs_on_two_nodes() {
    for workers in [1, 2, 4] {
        let layout = Topology::uniform(2, 1, 2).unwrap();
        let pool = ThreadPool::builder()
            .topology(layout)
            .num_threads(workers)
            .build()
            .unwrap();
        let ran = Arc::new(AtomicUsize::new(0));
        std::thread::scope(|s| {
            for _ in 0..4 {
                let (pool, ran) = (&pool, ran.clone());
                s.spawn(move || {
                    for _ in 0..250 {
                        let ran = ran.clone();
                        pool.spawn(move || {
                            ran.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                });
            }
        });
        pool.wait_all();
        assert_eq!(ran.load(Ordering::Relaxed), 1000, "{workers} workers");
    }
}

/// A two-node pool that has used a priority level takes its `Normal`
/// jobs from outside through `Normal`'s stage (V8), which takes every
/// node's queue: every submission, from outside and from workers of both
/// nodes, runs.
#[test]
fn a_pool_with_levels_takes_every_nodes_queue() {
    let layout = Topology::uniform(2, 1, 2).unwrap();
    let pool = Arc::new(
        ThreadPool::builder()
            .topology(layout)
            .num_threads(4)
            .build()
            .unwrap(),
    );
    pool.spawn_with_priority(stealpool::Priority::High, || {});
    pool.wait_all();
    let ran = Arc::new(AtomicUsize::new(0));
    std::thread::scope(|s| {
        for _ in 0..4 {
            let (pool, ran) = (&pool, ran.clone());
            s.spawn(move || {
                for _ in 0..200 {
                    let (inner, ran) = (pool.clone(), ran.clone());
                    pool.spawn(move || {
                        ran.fetch_add(1, Ordering::Relaxed);
                        let ran = ran.clone();
                        drop(inner.submit(move || {
                            ran.fetch_add(1, Ordering::Relaxed);
                        }));
                    });
                }
            });
        }
    });
    pool.wait_all();
    assert_eq!(ran.load(Ordering::Relaxed), 1600);
    assert!(
        Arc::into_inner(pool).is_some(),
        "no task holds the pool after wait_all"
    );
}
