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
//! run. Each task records how long it waited before it started, and how
//! many tasks of its own level submitted after it had started before it
//! ("overtaken": 0 everywhere on one worker, where each level is FIFO per
//! submitter, V7 in `proofs/priority.md`; with more workers, tens to
//! about a thousand from run to run, as a thief runs the oldest tasks it
//! took side by side with the next ones of the worker it took them from:
//! that file's Measurements). Then the same with the outside thread also keeping a
//! flood of `Critical` tasks that respawn themselves, to show that `Low`
//! still moves (V5's share). The numbers are reported, never asserted:
//! they depend on the machine and its load.

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

/// Per level, in the order the tasks started: (submission number within
/// the level, wait in microseconds).
type Waits = Arc<[Mutex<Vec<(usize, u64)>>; 4]>;

/// Spins for about `duration`.
fn busy(duration: Duration) {
    let start = Instant::now();
    while start.elapsed() < duration {
        black_box(0u64);
    }
}

/// A task that records how long it waited, then works.
fn task(
    number: usize,
    submitted: Instant,
    priority: Priority,
    waits: &Waits,
    work: Duration,
) -> impl FnOnce() + Send + 'static {
    let waits = waits.clone();
    move || {
        let waited = submitted.elapsed().as_micros() as u64;
        waits[priority as usize].lock().unwrap().push((number, waited));
        busy(work);
    }
}

/// For tasks numbered `0..n` in the order they started: the most tasks
/// submitted after one of them that started before it (a Fenwick tree
/// over the numbers started so far).
fn most_overtaken(started: &[usize]) -> usize {
    let n = started.len();
    let mut tree = vec![0usize; n + 1];
    let mut most = 0;
    for (seen, &number) in started.iter().enumerate() {
        // How many of the `seen` started so far have a number <= `number`.
        let mut below = 0;
        let mut i = number + 1;
        while i > 0 {
            below += tree[i];
            i &= i - 1;
        }
        most = most.max(seen - below);
        let mut i = number + 1;
        while i <= n {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }
    most
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
    let mut numbers = [0usize; 4];
    let start = Instant::now();
    for _ in 0..tasks {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let priority = LEVELS[(rng % 4) as usize];
        let number = numbers[priority as usize];
        numbers[priority as usize] += 1;
        pool.spawn_with_priority(priority, task(number, Instant::now(), priority, &waits, work));
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
    println!(
        "  level     tasks   wait p50      wait p99      overtaken  (tasks run at the level, flood included)"
    );
    for priority in LEVELS {
        let started = waits[priority as usize].lock().unwrap().clone();
        let order: Vec<usize> = started.iter().map(|&(number, _)| number).collect();
        let mut level: Vec<u64> = started.iter().map(|&(_, waited)| waited).collect();
        level.sort_unstable();
        println!(
            "  {:<8} {:>6}   {:>9} µs  {:>9} µs  {:>9}  ({})",
            format!("{priority:?}"),
            level.len(),
            percentile(&level, 0.5),
            percentile(&level, 0.99),
            most_overtaken(&order),
            stats.tasks_executed_at(priority)
        );
    }
}

fn main() {
    let args = cli::Args::parse(
        "Task priorities under saturation: latency from submission to start, per level.",
        &[
            cli::opt("threads", "N", "workers (default 2); 0 is one per available core"),
            cli::opt("tasks", "N", "tasks submitted (default 40000)"),
            cli::opt("work-us", "US", "busy time of a task (default 20)"),
        ],
    );
    let threads = args.threads_or(2);
    let tasks = args.get("tasks", 40_000usize);
    let work = Duration::from_micros(args.get("work-us", 20u64));
    run("mixed levels, saturated", threads, tasks, work, 0);
    run(
        "mixed levels under a Critical flood",
        threads,
        tasks / 4,
        work,
        2 * threads,
    );
}
