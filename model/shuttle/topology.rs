//! Topology-aware stealing under shuttle (and, in `per_node_injectors`, the
//! per-node injectors of a 2-node pool): a pool of 16 workers on an
//! explicit layout of 4 nodes × 2 caches × 2 CPUs, against the same pool on
//! one node and one cache (uniformly random victims), on the same workload
//! and the same seeded schedules. Deterministic, and no real cores needed.
//!
//! The workload: from outside, a scope whose tasks spawn a binary tree of
//! tasks (each task spawns its two children from its worker), each leaf
//! computing a small `fib` by nested `join`. Every task and every `join`
//! half runs exactly once, in both pools, in every schedule.
//!
//! Locality is measured the same way for both pools, from outside the
//! pool: a task that runs on another worker than the one that spawned it
//! has *migrated*, and its distance is the distance between the two
//! workers in the 4-node layout. Under uniform victims a migration stays in
//! the thief's node about 3 times in 15 (3 of the 15 other workers share
//! it); the topology-aware pool must do at least twice that. The same
//! assertion is checked to *fail* on the uniform pool, so it is a test that
//! can fail. The topology pool's own per-distance counts in `Stats` are
//! checked to sum to its successful steals and to lean local too.
//!
//! 16 workers make each schedule long: 300 seeded random schedules per
//! layout keep the file under a minute in release.
//!
//! Run with `cargo test --features shuttle --test shuttle_topology`: each
//! layout prints a line as it starts and its counts as it ends, past
//! libtest's capture (`support/progress.rs`). The schedules are the same under the
//! quick and the full bounds: the seeded counts are what the README quotes.

#[path = "../support/bounds.rs"]
mod bounds;
#[path = "../support/progress.rs"]
mod progress;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use stealpool::{current_thread_index, Stats, ThreadPool, Topology};

/// Nodes, caches per node, CPUs per cache of the layout under test.
const NODES: usize = 4;
const CACHES: usize = 2;
const CPUS: usize = 2;
const WORKERS: usize = NODES * CACHES * CPUS;
/// Tree depth: 2^(DEPTH+1) - 1 spawned tasks.
const DEPTH: u32 = 7;
const TASKS: usize = (1 << (DEPTH + 1)) - 1;
/// Each leaf computes fib(LEAF_FIB) by `join`: FIB_CALLS calls.
const LEAF_FIB: u64 = 3;
const FIB_CALLS: usize = 5;
const LEAVES: usize = 1 << DEPTH;
/// Schedules per layout, and the seed of the first.
const SCHEDULES: usize = 1000;
const SEED: u64 = 0x5EED_70B0;

/// How far apart two workers are in the 4-node layout: 0 same cache, 1
/// same node, 2 remote.
fn distance(a: usize, b: usize) -> usize {
    let (cache, node) = (CPUS, CACHES * CPUS);
    if a / cache == b / cache {
        0
    } else if a / node == b / node {
        1
    } else {
        2
    }
}

/// What all schedules of one layout saw.
#[derive(Default, Debug)]
struct Tally {
    /// Migrated tasks by distance (same cache, same node, remote).
    migrations: [u64; 3],
    /// The pools' own counts, summed over schedules.
    steals: [u64; 3],
    successful_steals: u64,
    schedules: usize,
}

impl Tally {
    fn add(&mut self, migrations: [u64; 3], stats: &Stats) {
        for (total, n) in self.migrations.iter_mut().zip(migrations) {
            *total += n;
        }
        self.steals[0] += stats.steals_same_cache;
        self.steals[1] += stats.steals_same_node;
        self.steals[2] += stats.steals_remote;
        self.successful_steals += stats.successful_steals;
        self.schedules += 1;
    }

    /// The fraction of migrations that stayed in the thief's node.
    fn local_fraction(&self) -> f64 {
        let local = (self.migrations[0] + self.migrations[1]) as f64;
        local / self.migrations.iter().sum::<u64>().max(1) as f64
    }
}

/// One execution's record: how often each task ran, and where.
struct Record {
    runs: Vec<AtomicUsize>,
    fib_calls: AtomicUsize,
    migrations: [AtomicUsize; 3],
}

fn fib(pool: &ThreadPool, n: u64, record: &Record) -> u64 {
    record.fib_calls.fetch_add(1, Ordering::Relaxed);
    if n < 2 {
        return n;
    }
    let (a, b) = pool.join(|| fib(pool, n - 1, record), || fib(pool, n - 2, record));
    a + b
}

/// Task `id` of the tree (children `2id+1`, `2id+2`), spawned by worker
/// `spawner`.
fn node<'s>(s: &stealpool::Scope<'s>, pool: &'s ThreadPool, record: &'s Record, id: usize, spawner: usize) {
    let here = current_thread_index().expect("a task runs on a worker");
    let before = record.runs[id].fetch_add(1, Ordering::Relaxed);
    assert_eq!(before, 0, "task {id} ran twice");
    if here != spawner {
        record.migrations[distance(here, spawner)].fetch_add(1, Ordering::Relaxed);
    }
    if 2 * id + 2 < TASKS {
        for child in [2 * id + 1, 2 * id + 2] {
            s.spawn(move |s| node(s, pool, record, child, here));
        }
    } else {
        assert_eq!(fib(pool, LEAF_FIB, record), 2);
    }
}

/// Runs the workload on `layout` for `SCHEDULES` seeded random schedules.
fn run(name: &str, layout: Topology) -> Tally {
    let tally = Arc::new(Mutex::new(Tally::default()));
    let sink = tally.clone();
    progress::line(format_args!("{name}: running {SCHEDULES} schedules"));
    let start = Instant::now();
    shuttle::check_random_with_seed(
        move || {
            let pool = ThreadPool::builder().topology(layout.clone()).build().unwrap();
            assert_eq!(pool.num_workers(), WORKERS);
            let record = Record {
                runs: (0..TASKS).map(|_| AtomicUsize::new(0)).collect(),
                fib_calls: AtomicUsize::new(0),
                migrations: Default::default(),
            };
            let (pool_ref, record_ref) = (&pool, &record);
            pool.scope(|s| {
                let root = current_thread_index().unwrap();
                s.spawn(move |s| node(s, pool_ref, record_ref, 0, root));
            });
            for (id, runs) in record.runs.iter().enumerate() {
                assert_eq!(runs.load(Ordering::Relaxed), 1, "task {id} did not run once");
            }
            assert_eq!(
                record.fib_calls.load(Ordering::Relaxed),
                LEAVES * FIB_CALLS,
                "a join half ran twice or never"
            );
            pool.wait_all();
            let stats = pool.stats();
            let near = stats.steals_same_cache + stats.steals_same_node;
            assert!(
                near + stats.steals_remote <= stats.successful_steals,
                "steals by distance exceed successful steals: {stats:?}"
            );
            let migrations = record.migrations.map(|m| m.load(Ordering::Relaxed) as u64);
            sink.lock().unwrap().add(migrations, &stats);
            pool.shutdown();
        },
        SEED,
        SCHEDULES,
    );
    let tally = Arc::try_unwrap(tally).unwrap().into_inner().unwrap();
    progress::line(format_args!(
        "{name}: {} schedules in {:.2?}; migrated tasks by distance (same cache, same node, remote) {:?}, \
         {:.1}% within the node; steals counted by the pool (same cache, same node, remote) {:?} of {} successful",
        tally.schedules,
        start.elapsed(),
        tally.migrations,
        100.0 * tally.local_fraction(),
        tally.steals,
        tally.successful_steals,
    ));
    assert_eq!(
        tally.schedules, SCHEDULES,
        "{name}: fewer schedules ran than asked for"
    );
    tally
}

/// Migrations in the thief's node, under uniform victims: 3 of the 15
/// other workers share it.
const CHANCE: f64 = (CACHES * CPUS - 1) as f64 / (WORKERS - 1) as f64;

/// Local first: at least twice the share of local migrations that chance
/// gives.
fn local_first(tally: &Tally) -> bool {
    tally.local_fraction() >= 2.0 * CHANCE
}

#[test]
fn local_steals_first_on_four_nodes() {
    let layout = Topology::uniform(NODES, CACHES, CPUS).unwrap();
    let topology = run("4 nodes x 2 caches x 2 CPUs", layout);
    let uniform = run(
        "1 node, 1 cache (uniform victims)",
        Topology::single_node(WORKERS),
    );

    // The uniform pool counts every steal as same-cache: its one cache.
    assert_eq!(uniform.steals[1] + uniform.steals[2], 0, "{uniform:?}");
    assert!(
        uniform.migrations.iter().sum::<u64>() > 0,
        "no task migrated: {uniform:?}"
    );

    // The assertion that matters fails on uniform victims...
    assert!(
        !local_first(&uniform),
        "uniform victims kept {:.1}% of migrations in the node, not below {:.1}%: the check cannot tell",
        100.0 * uniform.local_fraction(),
        200.0 * CHANCE
    );
    // ...and holds on the topology-aware pool.
    assert!(
        local_first(&topology),
        "topology-aware stealing kept only {:.1}% of migrations in the node (chance {:.1}%): {topology:?}",
        100.0 * topology.local_fraction(),
        100.0 * CHANCE
    );
    // The pool's own counts agree: more steals within the node than chance.
    let near = (topology.steals[0] + topology.steals[1]) as f64;
    let all = topology.steals.iter().sum::<u64>() as f64;
    assert!(near / all >= 2.0 * CHANCE, "{topology:?}");
}

mod per_node_injectors {
    //! Per-node injectors under shuttle (Q10 in `proofs/injector.md`): a pool
    //! of 2 nodes × 2 workers on a hand-made layout, whose submissions go to
    //! both nodes' injectors, checked to run every task once and to strand
    //! none while the workers sleep (a task left in an injector that no
    //! sleeper's final check reads is a lost wake-up: `wait_all` from outside
    //! then blocks with every worker asleep, and shuttle fails the execution as
    //! a deadlock). `--cfg stealpool_bug="nodes_unchecked"` (the final check
    //! reads node 0's injector only) fails it.
    //!
    //! The workload, per execution: four outside threads each `spawn` tasks (an
    //! outside thread's node is fixed by its id under the checkers), and every
    //! task `submit`s a child from its worker, so both nodes' workers submit to
    //! their own node's injector. Shuttle is sequentially consistent: the
    //! orderings of the per-node checks are Q4's, argued per injector and
    //! checked by loom on one (`loom_injector`).
    //!
    //! Run with `cargo test --features shuttle --test shuttle_topology
    //! per_node_injectors`.

    use super::{bounds, progress};
    use shuttle::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};
    use std::sync::Arc;
    use std::time::Instant;
    use stealpool::{current_thread_index, ThreadPool, Topology};

    /// Outside submitters, and the tasks each spawns (each submits a child).
    const SUBMITTERS: usize = 4;
    const TASKS: usize = 2;
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
                            if current_thread_index().unwrap() / PER_NODE == 1 {
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
        let pool = Arc::into_inner(pool).expect("no task holds the pool after wait_all");
        drop(pool);
        used_node_1
    }

    /// Random and PCT schedules; each must run at least half its iterations,
    /// and node 1's injector must have been submitted to in at least a quarter
    /// of them (the model is not vacuous about the second node).
    #[test]
    fn two_nodes_run_every_task_and_strand_none() {
        let iterations = bounds::schedules(10_000);
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
                "test per_node_injectors::two_nodes_run_every_task_and_strand_none ({scheduler}): running {iterations} iterations ({})",
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
                "test per_node_injectors::two_nodes_run_every_task_and_strand_none ({scheduler}): {executions} executions in {:.2?} \
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
}
