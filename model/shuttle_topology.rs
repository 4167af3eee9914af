//! Topology-aware stealing under shuttle: a pool of 16 workers on an
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
//! libtest's capture (`progress.rs`). The schedules are the same under the
//! quick and the full bounds: the seeded counts are what the README quotes.

#[path = "progress.rs"]
mod progress;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use stealpool::{current_worker_index, Stats, ThreadPool, Topology};

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
    let here = current_worker_index().expect("a task runs on a worker");
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
                let root = current_worker_index().unwrap();
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
