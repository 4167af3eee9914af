//! The machine's layout as the pool sees it, and where stolen work comes
//! from: a spawn tree run on a pool placed on a layout (the discovered one,
//! or one described on the command line), then on a pool of as many workers
//! with uniformly random victims (one node, one cache).
//!
//! ```sh
//! cargo run --release --example topology                       # this machine's layout
//! cargo run --release --example topology -- --pin              # pinned to its CPUs
//! cargo run --release --example topology -- --nodes 4 --caches 2 --cpus 8   # a described 4 x 2 x 8 machine
//! cargo run --release --example topology -- --depth 18 --rounds 5
//! ```
//!
//! For each pool: the pool's steals by distance (`Stats`), and the tasks
//! that ran on another worker than the one that spawned them, by the
//! distance between the two in the layout under test, so the uniform pool
//! is measured with the same ruler. On a layout with several nodes, the
//! topology-aware pool should keep a larger share of migrations within the
//! node than the uniform one (chance: the node's other workers over all
//! other workers).

#[path = "common/cli.rs"]
mod cli;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use stealpool::{current_thread_index, Scope, ThreadPool, Topology};

/// Tasks that ran away from their spawner, by distance.
#[derive(Default)]
struct Migrations([AtomicU64; 3]);

/// Where each worker sits: (node, global cache) of its CPU.
fn places(layout: &Topology, workers: usize) -> Vec<(usize, usize)> {
    let mut cpu_place = std::collections::HashMap::new();
    let mut cache_index = 0;
    for (n, node) in layout.nodes().iter().enumerate() {
        for cache in node {
            for &cpu in cache {
                cpu_place.insert(cpu, (n, cache_index));
            }
            cache_index += 1;
        }
    }
    (0..workers).map(|w| cpu_place[&layout.worker_cpu(w)]).collect()
}

fn distance(places: &[(usize, usize)], a: usize, b: usize) -> usize {
    if places[a].1 == places[b].1 {
        0
    } else if places[a].0 == places[b].0 {
        1
    } else {
        2
    }
}

/// A binary spawn tree of `depth` levels, each task spinning `work` times.
fn tree<'s>(s: &Scope<'s>, depth: u32, spawner: usize, places: &'s [(usize, usize)], moved: &'s Migrations) {
    let here = current_thread_index().unwrap();
    // A spare standing in for a waiting worker has an index past the
    // workers', and no place of its own: its moves are not counted.
    if here != spawner && here < places.len() && spawner < places.len() {
        moved.0[distance(places, here, spawner)].fetch_add(1, Ordering::Relaxed);
    }
    let mut x = depth as u64;
    for _ in 0..200 {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
    }
    if depth > 0 {
        s.spawn(move |s| tree(s, depth - 1, here, places, moved));
        s.spawn(move |s| tree(s, depth - 1, here, places, moved));
    }
}

fn run(label: &str, pool: &ThreadPool, depth: u32, rounds: usize, places: &[(usize, usize)]) {
    let moved = Migrations::default();
    let start = Instant::now();
    for _ in 0..rounds {
        pool.scope(|s| {
            let root = current_thread_index().unwrap();
            let (places, moved) = (places, &moved);
            s.spawn(move |s| tree(s, depth, root, places, moved));
        });
    }
    let elapsed = start.elapsed();
    let stats = pool.stats();
    let m: Vec<u64> = moved.0.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    let total = m.iter().sum::<u64>().max(1) as f64;
    println!(
        "{label}: {} workers, {:.1} ms",
        pool.num_workers(),
        cli::ms(elapsed)
    );
    println!(
        "  steals by the pool's layout   same cache {:>8}  same node {:>8}  remote {:>8}  (of {} successful, {} attempts, {} pin failures)",
        stats.steals_same_cache,
        stats.steals_same_node,
        stats.steals_remote,
        stats.successful_steals,
        stats.steal_attempts,
        stats.pin_failures
    );
    println!(
        "  migrated tasks, layout ruler  same cache {:>8}  same node {:>8}  remote {:>8}  ({}% within the node)",
        m[0],
        m[1],
        m[2],
        cli::fixed(cli::ratio(100.0 * (m[0] + m[1]) as f64, total), 1)
    );
}

fn main() {
    let args = cli::Args::parse(
        "The machine's layout as the pool sees it, and where stolen work comes from.",
        &[
            cli::opt(
                "nodes",
                "N",
                "describe a machine of N nodes; 0 (the default) discovers this one",
            ),
            cli::opt(
                "caches",
                "N",
                "with --nodes: last-level caches per node (default 1)",
            ),
            cli::opt("cpus", "N", "with --nodes: CPUs per cache (default 4)"),
            cli::switch("pin", "pin the workers to their CPUs"),
            cli::opt("depth", "N", "depth of the spawn tree (default 16)"),
            cli::opt("rounds", "N", "runs per pool (default 3)"),
            cli::opt("threads", "N", "workers (default: the layout's CPUs)"),
        ],
    );
    let nodes = args.get("nodes", 0usize);
    let layout = if nodes == 0 {
        Topology::discover()
    } else {
        Topology::uniform(nodes, args.get("caches", 1usize), args.get("cpus", 4usize)).unwrap_or_else(
            |error| {
                eprintln!("--nodes/--caches/--cpus: {error}");
                std::process::exit(2)
            },
        )
    };
    let pin = args.has("pin");
    let depth = args.get("depth", 16u32);
    let rounds = args.get("rounds", 3usize);
    let workers = args.get("threads", layout.num_cpus());
    println!(
        "{} layout: nodes {}, caches {}, CPUs {}",
        if nodes == 0 { "discovered" } else { "described" },
        layout.num_nodes(),
        layout.num_caches(),
        layout.num_cpus()
    );
    println!("{layout}");
    let places = places(&layout, workers);
    let same_node = places.iter().filter(|p| p.0 == places[0].0).count() - 1;
    println!(
        "spawn tree of depth {depth} ({} tasks), {rounds} rounds; uniform victims keep about {:.1}% of migrations in the node",
        (1u64 << (depth + 1)) - 1,
        100.0 * same_node as f64 / (workers.max(2) - 1) as f64
    );
    let aware = ThreadPool::builder()
        .topology(layout.clone())
        .num_threads(workers)
        .pin_workers(pin)
        .build()
        .unwrap();
    run("topology-aware", &aware, depth, rounds, &places);
    drop(aware);
    let uniform = ThreadPool::builder()
        .topology(Topology::single_node(workers))
        .num_threads(workers)
        .build()
        .unwrap();
    run("uniform victims", &uniform, depth, rounds, &places);
}
