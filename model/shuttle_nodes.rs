//! Per-node injectors under shuttle (Q10 in `proofs/injector.md`): a pool
//! of 2 nodes × 2 workers on a hand-made layout, whose submissions go to
//! both nodes' injectors, checked to run every task once and to strand
//! none while the workers sleep (a task left in an injector that no
//! sleeper's final check reads is a lost wake-up: `wait_all` from outside
//! then blocks with every worker asleep, and shuttle fails the execution as
//! a deadlock). `--cfg stealpool_bug="nodes_unchecked"` (the final check
//! reads node 0's injector only) fails it.
//!
//! The workload, per execution: two outside threads each `spawn` tasks (an
//! outside thread's node is fixed by its id under the checkers), and every
//! task `submit`s a child from its worker, so both nodes' workers submit to
//! their own node's injector. Shuttle is sequentially consistent: the
//! orderings of the per-node checks are Q4's, argued per injector and
//! checked by loom on one (`loom_injector`).
//!
//! Run with `cargo test --features shuttle --test shuttle_nodes`.

#[path = "bounds.rs"]
mod bounds;
#[path = "progress.rs"]
mod progress;

use shuttle::sync::atomic::{AtomicUsize, Ordering};
use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};
use std::sync::Arc;
use std::time::Instant;
use stealpool::{current_worker_index, ThreadPool, Topology};

/// Outside submitters, and the tasks each spawns (each submits a child).
const SUBMITTERS: usize = 2;
const TASKS: usize = 3;
/// Workers per node, nodes.
const PER_NODE: usize = 2;
const NODES: usize = 2;

/// One execution; returns whether a task ran on a node-1 worker and
/// submitted its child there.
fn model() -> bool {
    let layout = Topology::uniform(NODES, 1, PER_NODE).unwrap();
    let pool = Arc::new(
        ThreadPool::builder()
            .topology(layout)
            .num_threads(NODES * PER_NODE)
            .build()
            .unwrap(),
    );
    let ran = Arc::new(AtomicUsize::new(0));
    let from_node_1 = Arc::new(AtomicUsize::new(0));
    let submitters: Vec<_> = (0..SUBMITTERS)
        .map(|_| {
            let (pool, ran, from_node_1) = (pool.clone(), ran.clone(), from_node_1.clone());
            shuttle::thread::spawn(move || {
                for _ in 0..TASKS {
                    let (inner, ran, from_node_1) = (pool.clone(), ran.clone(), from_node_1.clone());
                    pool.spawn(move || {
                        ran.fetch_add(1, Ordering::SeqCst);
                        if current_worker_index().unwrap() / PER_NODE == 1 {
                            from_node_1.fetch_add(1, Ordering::SeqCst);
                        }
                        let ran = ran.clone();
                        // From a worker, `submit` goes to its node's injector.
                        drop(inner.submit(move || {
                            ran.fetch_add(1, Ordering::SeqCst);
                        }));
                    });
                }
            })
        })
        .collect();
    for submitter in submitters {
        submitter.join().unwrap();
    }
    // Blocks for ever, and so fails as a deadlock, if a task is stranded
    // while every worker sleeps.
    pool.wait_all();
    assert_eq!(
        ran.load(Ordering::SeqCst),
        2 * SUBMITTERS * TASKS,
        "a task did not run"
    );
    let used_node_1 = from_node_1.load(Ordering::SeqCst) > 0;
    // The tasks hold clones of the pool; every one has ended.
    let pool = Arc::try_unwrap(pool)
        .ok()
        .expect("no task holds the pool after wait_all");
    drop(pool);
    used_node_1
}

/// Random and PCT schedules; each must run at least half its iterations,
/// and node 1's injector must have been submitted to in at least a quarter
/// of them (the model is not vacuous about the second node).
#[test]
fn two_nodes_run_every_task_and_strand_none() {
    let iterations = bounds::schedules(3000);
    let floor = iterations / 2;
    for pct in [false, true] {
        let executions = Arc::new(StdAtomicUsize::new(0));
        let node_1 = Arc::new(StdAtomicUsize::new(0));
        let (counter, node_1_counter) = (executions.clone(), node_1.clone());
        let counted = move || {
            counter.fetch_add(1, StdOrdering::Relaxed);
            if model() {
                node_1_counter.fetch_add(1, StdOrdering::Relaxed);
            }
        };
        let scheduler = if pct { "pct" } else { "random" };
        progress::line(format_args!(
            "test two_nodes_run_every_task_and_strand_none ({scheduler}): running {iterations} iterations ({})",
            bounds::label()
        ));
        let start = Instant::now();
        if pct {
            shuttle::check_pct(counted, iterations, 3);
        } else {
            shuttle::check_random(counted, iterations);
        }
        let (executions, node_1) = (
            executions.load(StdOrdering::Relaxed),
            node_1.load(StdOrdering::Relaxed),
        );
        progress::line(format_args!(
            "test two_nodes_run_every_task_and_strand_none ({scheduler}): {executions} executions in {:.2?} \
             ({iterations} iterations, PCT depth 3, floor {floor}, {node_1} with a node-1 submission, {})",
            start.elapsed(),
            bounds::label()
        ));
        assert!(
            executions >= floor,
            "{executions} executions, below the floor of {floor}"
        );
        assert!(
            node_1 * 4 >= executions,
            "node 1's workers submitted in only {node_1} of {executions} executions"
        );
    }
}
