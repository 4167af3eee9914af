//! Task priorities under saturation: latency from submission to start, per
//! level, on a pool kept busier than it can keep up with.
//!
//! ```sh
//! cargo run --release --example priority -- --threads 2 --tasks 40000 --work-us 20
//! ```
//!
//! One thread outside the pool submits `--tasks` tasks as fast as it can,
//! each a busy loop of about `--work-us` microseconds, at a level drawn at
//! random (a quarter each), so the queues grow far beyond what the workers
//! run. Each task records how long it waited before it started. Then the
//! same with the outside thread also keeping a flood of `Critical` tasks
//! that respawn themselves, to show that `Low` still moves (at least one
//! task in 9 per worker, `proofs/priority.md`, V5). The numbers are
//! reported, never asserted: they depend on the machine and its load.

#[path = "common/cli.rs"]
mod cli;

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use stealpool::{Priority, ThreadPool};

const LEVELS: [Priority; 4] = [
    Priority::Low,
    Priority::Normal,
    Priority::High,
    Priority::Critical,
];

/// Waits per level, in microseconds.
type Waits = Arc<[Mutex<Vec<u64>>; 4]>;

/// Spins for about `duration`.
fn busy(duration: Duration) {
    let start = Instant::now();
    while start.elapsed() < duration {
        black_box(0u64);
    }
}

/// A task that records how long it waited, then works.
fn task(
    submitted: Instant,
    priority: Priority,
    waits: &Waits,
    work: Duration,
) -> impl FnOnce() + Send + 'static {
    let waits = waits.clone();
    move || {
        let waited = submitted.elapsed().as_micros() as u64;
        waits[priority as usize].lock().unwrap().push(waited);
        busy(work);
    }
}

/// `Critical` tasks that respawn themselves while `flooding` holds.
fn flood(pool: Arc<ThreadPool>, flooding: Arc<AtomicBool>, work: Duration) {
    busy(work);
    if flooding.load(Ordering::Relaxed) {
        let inner = pool.clone();
        inner.spawn_with_priority(Priority::Critical, move || flood(pool, flooding, work));
    }
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn run(name: &str, threads: usize, tasks: usize, work: Duration, flood_tasks: usize) {
    let pool = Arc::new(ThreadPool::new(threads));
    let waits: Waits = Arc::new(Default::default());
    let flooding = Arc::new(AtomicBool::new(true));
    for _ in 0..flood_tasks {
        let (inner, flooding) = (pool.clone(), flooding.clone());
        pool.spawn_with_priority(Priority::Critical, move || flood(inner, flooding, work));
    }
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let start = Instant::now();
    for _ in 0..tasks {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let priority = LEVELS[(rng % 4) as usize];
        pool.spawn_with_priority(priority, task(Instant::now(), priority, &waits, work));
    }
    // The flood stops once every submitted task has run.
    while waits.iter().map(|w| w.lock().unwrap().len()).sum::<usize>() < tasks {
        std::thread::sleep(Duration::from_millis(1));
    }
    flooding.store(false, Ordering::Relaxed);
    pool.wait_all();
    let elapsed = start.elapsed();
    let stats = pool.stats();
    println!("{name}: {tasks} tasks of {work:?} on {threads} workers, {elapsed:.2?}");
    println!("  level     tasks   wait p50      wait p99      (tasks run at the level, flood included)");
    for priority in LEVELS {
        let mut level = waits[priority as usize].lock().unwrap().clone();
        level.sort_unstable();
        println!(
            "  {:<8} {:>6}   {:>9} µs  {:>9} µs  ({})",
            format!("{priority:?}"),
            level.len(),
            percentile(&level, 0.5),
            percentile(&level, 0.99),
            stats.tasks_executed_at(priority)
        );
    }
}

fn main() {
    let threads = match cli::option("threads", 2usize) {
        0 => cli::threads(),
        n => n,
    };
    let tasks = cli::option("tasks", 40_000usize);
    let work = Duration::from_micros(cli::option("work-us", 20u64));
    run("mixed levels, saturated", threads, tasks, work, 0);
    run(
        "mixed levels under a Critical flood",
        threads,
        tasks / 4,
        work,
        2 * threads,
    );
}
