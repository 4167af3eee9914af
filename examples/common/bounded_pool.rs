//! The pool on bounded deques (`--bounded-pool`): the same workloads on a
//! pool without and with `Builder::bounded_steals` and on rayon, in one
//! process, the three taking turns round by round.
//!
//! * spawn, flat: one task spawns `FLAT` tiny tasks from inside the pool
//!   (on its worker's deque: the bounded one with the option), which the
//!   other workers steal;
//! * spawn, tree: every task spawns two until `DEPTH` levels down
//!   (`2^(DEPTH+1) - 1` tasks), so every worker spawns and steals;
//! * fib: `join` at every call, which the option leaves alone (its halves
//!   stay on the shared deques): the same figures with and without it show
//!   what the option costs the path it does not touch.
//!
//! Each task ends by counting down a shared latch, the same for all three
//! peers; the time is from the first spawn to the latch, per task.

use super::{cpu_time, rayon_pool, workloads};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use stealpool::{Stats, ThreadPool};
use workloads::{Countdown, Rayon};

/// Tasks of the flat spawn.
const FLAT: usize = 200_000;
/// Levels of the spawn tree: 2^18 - 1 tasks.
const DEPTH: u32 = 17;
/// fib's argument.
const FIB: u64 = 28;

/// A peer's fastest run: wall and process CPU per task (or per join).
#[derive(Clone, Copy)]
struct Best {
    wall_ns: f64,
    cpu_ns: f64,
}

impl Best {
    fn new() -> Best {
        Best {
            wall_ns: f64::INFINITY,
            cpu_ns: f64::INFINITY,
        }
    }

    /// Times `f`, which does `ops` operations, and keeps the faster run.
    fn time(&mut self, ops: usize, f: impl FnOnce()) {
        let (cpu0, t0) = (cpu_time(), Instant::now());
        f();
        let wall = t0.elapsed();
        let cpu = cpu_time().saturating_sub(cpu0);
        let per = |d: Duration| d.as_nanos() as f64 / ops as f64;
        if per(wall) < self.wall_ns {
            self.wall_ns = per(wall);
            self.cpu_ns = per(cpu);
        }
    }
}

/// The pools this section compares.
enum Peer {
    Stealpool(ThreadPool),
    Rayon(rayon::ThreadPool),
}

impl Peer {
    /// Runs `f` on one of the pool's workers, without waiting for it.
    fn spawn(&self, f: impl FnOnce() + Send + 'static) {
        match self {
            Peer::Stealpool(pool) => pool.spawn(f),
            Peer::Rayon(pool) => pool.spawn(f),
        }
    }

    /// Spawns `f` from inside the pool (only called on its workers: for
    /// stealpool, on the calling worker's deque, the bounded one with the
    /// option).
    fn spawn_inside(&self, f: impl FnOnce() + Send + 'static) {
        match self {
            Peer::Stealpool(pool) => pool.spawn(f),
            Peer::Rayon(_) => rayon::spawn(f),
        }
    }
}

/// The flat spawn: one task spawns `FLAT` tiny ones.
fn flat(peer: &Arc<Peer>) {
    let done = Arc::new(Countdown::new(FLAT));
    let (spawner, latch) = (peer.clone(), done.clone());
    peer.spawn(move || {
        for i in 0..FLAT {
            let latch = latch.clone();
            spawner.spawn_inside(move || {
                black_box(i);
                latch.count_down();
            });
        }
    });
    done.wait();
}

/// One node of the spawn tree: spawns its two children, then counts down.
fn node(peer: Arc<Peer>, done: Arc<Countdown>, depth: u32) {
    if depth > 0 {
        for _ in 0..2 {
            let (child, latch) = (peer.clone(), done.clone());
            peer.spawn_inside(move || node(child, latch, depth - 1));
        }
    }
    done.count_down();
}

/// The spawn tree, `DEPTH` levels below its root.
fn tree(peer: &Arc<Peer>) {
    let tasks = (1usize << (DEPTH + 1)) - 1;
    let done = Arc::new(Countdown::new(tasks));
    let (root, latch) = (peer.clone(), done.clone());
    peer.spawn(move || node(root, latch, DEPTH));
    done.wait();
}

/// fib(`FIB`) with a `join` at every call, on the peer's workers.
fn fib(peer: &Peer) {
    let expected = workloads::fib_seq(FIB);
    let got = match peer {
        Peer::Stealpool(pool) => pool.install(|| workloads::fib(pool, black_box(FIB))),
        Peer::Rayon(pool) => pool.install(|| workloads::fib(&Rayon, black_box(FIB))),
    };
    assert_eq!(got, expected);
}

/// The section: three workloads, three peers, `rounds` rounds each.
pub fn run(rounds: usize) {
    let workers = super::workers().min(16);
    let plain = ThreadPool::builder().num_threads(workers).build().unwrap();
    let bounded = ThreadPool::builder()
        .num_threads(workers)
        .bounded_steals(true)
        .build()
        .unwrap();
    let peers = [
        ("stealpool", Arc::new(Peer::Stealpool(plain))),
        ("stealpool, bounded_steals", Arc::new(Peer::Stealpool(bounded))),
        ("rayon", Arc::new(Peer::Rayon(rayon_pool(workers)))),
    ];
    let tree_tasks = (1usize << (DEPTH + 1)) - 1;
    let joins = (workloads::fib_calls(FIB) as usize - 1) / 2;
    let mut best = [[Best::new(); 3]; 3];
    for _ in 0..rounds {
        for (p, (_, peer)) in peers.iter().enumerate() {
            best[0][p].time(FLAT, || flat(peer));
            best[1][p].time(tree_tasks, || tree(peer));
            best[2][p].time(joins, || fib(peer));
        }
    }
    println!();
    println!(
        "the pool on bounded deques: {workers} workers, the fastest of {rounds} rounds, peers taking turns; \
         wall and process CPU ns per task (per join for fib)"
    );
    println!(
        "{:<34} {:>26} {:>26} {:>26}",
        "workload", peers[0].0, peers[1].0, peers[2].0
    );
    let workloads = [
        format!("spawn, flat ({FLAT} from one task)"),
        format!("spawn, tree ({tree_tasks} tasks)"),
        format!("fib({FIB}), join per call"),
    ];
    for (name, row) in workloads.iter().zip(&best) {
        let cell = |b: &Best| format!("{:.1} wall, {:.1} CPU", b.wall_ns, b.cpu_ns);
        println!(
            "{name:<34} {:>26} {:>26} {:>26}",
            cell(&row[0]),
            cell(&row[1]),
            cell(&row[2])
        );
    }
    for (name, row) in workloads.iter().zip(&best) {
        println!(
            "  {name}: bounded/plain {:.2}x wall, {:.2}x CPU; bounded/rayon {:.2}x wall; plain/rayon {:.2}x wall",
            row[1].wall_ns / row[0].wall_ns,
            row[1].cpu_ns / row[0].cpu_ns,
            row[1].wall_ns / row[2].wall_ns,
            row[0].wall_ns / row[2].wall_ns,
        );
    }
    for (name, peer) in &peers[..2] {
        if let Peer::Stealpool(pool) = &**peer {
            pool.wait_all();
            let stats: Stats = pool.stats();
            println!(
                "  {name}: {} steals ({} from bounded deques) of {} tasks, over all rounds",
                stats.successful_steals, stats.bounded_steals, stats.tasks_executed
            );
        }
    }
}
