//! Sums over a randomly shaped tree in parallel with `ThreadPool::join`,
//! and checks the sum against a sequential traversal.
//!
//! ```sh
//! cargo run --release --example tree_sum -- --threads 2 --size 2000000
//! ```
//!
//! Each node has 0 to 4 children and its descendants are split between
//! them at random, so subtrees range from single leaves to most of the tree:
//! there is no static way to divide the work evenly, and stealing does it.
//! Each node costs a few dozen nanoseconds of arithmetic, so the traversal
//! is bound by the CPU rather than by memory.

#[path = "common/cli.rs"]
mod cli;

use stealpool::ThreadPool;

/// Subtrees smaller than this are summed without forking: a `join` costs
/// about as much as one node's work.
const SEQUENTIAL_BELOW: usize = 1000;

struct Node {
    value: u64,
    /// Nodes in this subtree, itself included.
    size: usize,
    children: Vec<Node>,
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// A tree of exactly `size` nodes with a random shape.
fn build(rng: &mut Rng, size: usize) -> Node {
    let value = rng.next();
    let below = size - 1;
    let arity = ((rng.next() % 5) as usize).min(below);
    // `arity - 1` random cut points split the descendants between children.
    let mut cuts: Vec<usize> = (1..arity).map(|_| (rng.next() % below as u64) as usize).collect();
    cuts.extend([0, below]);
    cuts.sort_unstable();
    let children = cuts
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|&n| n > 0)
        .map(|n| build(rng, n))
        .collect::<Vec<_>>();
    // Cuts may coincide; the subtree keeps whatever they add up to.
    let size = 1 + children.iter().map(|c| c.size).sum::<usize>();
    Node {
        value,
        size,
        children,
    }
}

/// The per-node work: a few rounds of mixing.
fn weight(mut x: u64) -> u64 {
    for _ in 0..16 {
        x ^= x >> 33;
        x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    }
    x
}

fn sum_sequential(node: &Node) -> u64 {
    node.children.iter().fold(weight(node.value), |acc, child| {
        acc.wrapping_add(sum_sequential(child))
    })
}

fn sum_parallel(pool: &ThreadPool, node: &Node) -> u64 {
    if node.size < SEQUENTIAL_BELOW {
        return sum_sequential(node);
    }
    weight(node.value).wrapping_add(sum_forest(pool, &node.children))
}

/// Forks over a list of subtrees by halves.
fn sum_forest(pool: &ThreadPool, nodes: &[Node]) -> u64 {
    match nodes {
        [] => 0,
        [node] => sum_parallel(pool, node),
        _ => {
            let (left, right) = nodes.split_at(nodes.len() / 2);
            let (a, b) = pool.join(|| sum_forest(pool, left), || sum_forest(pool, right));
            a.wrapping_add(b)
        }
    }
}

fn depth(node: &Node) -> usize {
    1 + node.children.iter().map(depth).max().unwrap_or(0)
}

fn main() {
    let args = cli::Args::parse(
        "Sums over a randomly shaped tree with ThreadPool::join and checks the sum against a \
         sequential traversal.",
        &[
            cli::THREADS,
            cli::opt("size", "NODES", "nodes in the tree (default 2000000)"),
        ],
    );
    let threads = args.threads();
    let size: usize = args.get("size", 2_000_000);
    let pool = ThreadPool::new(threads);
    let tree = build(&mut Rng(0x7EE5_u64 | 1), size);

    let (expected, sequential) = cli::timed(|| sum_sequential(&tree));
    let (sum, parallel) = cli::timed(|| pool.install(|| sum_parallel(&pool, &tree)));
    assert_eq!(sum, expected, "the parallel sum differs from the sequential one");

    cli::report(
        &format!(
            "sum over a random tree of {} nodes (depth {}, root has {} children): same sum as sequential",
            tree.size,
            depth(&tree),
            tree.children.len()
        ),
        sequential,
        parallel,
        threads,
    );
    let stats = pool.stats();
    println!(
        "  pool            {} jobs stolen in {} of {} steal attempts",
        stats.tasks_stolen, stats.successful_steals, stats.steal_attempts
    );
}
