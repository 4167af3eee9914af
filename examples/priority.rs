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
//! run. Each task takes a number from one global start sequence as its
//! first step, and records how long it waited before it started. Per level,
//! "most overtaken" is the most tasks of the level submitted after one
//! task that started before it; "flood ahead", how many tasks of the flood
//! (below) started while a task waited, a count that a loaded host does not
//! stretch as it does waits in time. The verdict is `in order` when no task was
//! overtaken; `N side by side` when N were, but whenever a task started,
//! fewer tasks submitted before it than there are workers had not (each
//! may be in another worker's hands between its take and its first step,
//! which is what `Priority` promises, V8 in `proofs/priority.md`); else
//! `N overtaken`. At every level a submitter's tasks from outside are
//! taken in the order it queued them, on any number of workers (at
//! `Normal` because the pool uses other levels: a pool that never did
//! keeps the plain order, where a thief runs the newest of the batch it
//! steals), so the verdict is `in order` or `side by side`; "most
//! overtaken" is 0 or 1 on two workers, more only if a worker is
//! descheduled between a take and the task's first step. Then the same
//! with the outside thread also keeping a flood of `Critical` tasks that
//! respawn themselves from inside, to show that `Low` still moves (V5's
//! share) and that the `Critical` tasks from outside are not held back by
//! the flood (V8's rounds). The numbers are reported, never asserted: they
//! depend on the machine and its load.

#[path = "common/cli.rs"]
mod cli;

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use stealpool::{Priority, ThreadPool};

const LEVELS: [Priority; 4] = [
    Priority::Low,
    Priority::Normal,
    Priority::High,
    Priority::Critical,
];

/// Per level: (global start sequence number, submission number within the
/// level, wait in microseconds, flood tasks started while it waited).
type Waits = Arc<[Mutex<Vec<(usize, usize, u64, usize)>>; 4]>;

/// The global start sequence: each task takes a number as its first step.
static STARTS: AtomicUsize = AtomicUsize::new(0);

/// How many flood tasks have started: a count of the work that went ahead
/// of a task while it waited which, unlike time, a loaded host does not
/// stretch.
static FLOOD_STARTS: AtomicUsize = AtomicUsize::new(0);

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
    let floods = FLOOD_STARTS.load(Ordering::Relaxed);
    move || {
        let sequence = STARTS.fetch_add(1, Ordering::Relaxed);
        let waited = submitted.elapsed().as_micros() as u64;
        let floods = FLOOD_STARTS.load(Ordering::Relaxed).saturating_sub(floods);
        waits[priority as usize]
            .lock()
            .unwrap()
            .push((sequence, number, waited, floods));
        busy(work);
    }
}

/// For tasks numbered `0..n` in the order they started: the most tasks
/// submitted after one of them that started before it; how many tasks
/// had at least one such (a task is overtaken if a larger number started
/// before it); and the most tasks submitted before one that had not
/// started when it started (a Fenwick tree over the numbers started so
/// far).
fn overtaken(started: &[usize]) -> (usize, usize, usize) {
    let n = started.len();
    let mut tree = vec![0usize; n + 1];
    let mut most = 0;
    let mut largest = None;
    let mut count = 0;
    let mut unstarted = 0;
    for (seen, &number) in started.iter().enumerate() {
        // How many of the `seen` started so far have a number <= `number`.
        let mut below = 0;
        let mut i = number + 1;
        while i > 0 {
            below += tree[i];
            i &= i - 1;
        }
        most = most.max(seen - below);
        unstarted = unstarted.max(number - below);
        if largest.is_some_and(|largest| largest > number) {
            count += 1;
        }
        largest = largest.max(Some(number));
        let mut i = number + 1;
        while i <= n {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }
    (most, count, unstarted)
}

/// `Critical` tasks that respawn themselves while `flooding` holds.
fn flood(pool: Arc<ThreadPool>, flooding: Arc<AtomicBool>, work: Duration) {
    FLOOD_STARTS.fetch_add(1, Ordering::Relaxed);
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
        "  level     tasks   wait p50      wait p99   most overtaken  verdict           flood ahead p50/p99  (tasks run at the level, flood included)"
    );
    for priority in LEVELS {
        let mut started = waits[priority as usize].lock().unwrap().clone();
        started.sort_unstable();
        let order: Vec<usize> = started.iter().map(|&(_, number, _, _)| number).collect();
        let mut level: Vec<u64> = started.iter().map(|&(_, _, waited, _)| waited).collect();
        level.sort_unstable();
        let mut ahead: Vec<u64> = started.iter().map(|&(_, _, _, floods)| floods as u64).collect();
        ahead.sort_unstable();
        let (most, count, unstarted) = overtaken(&order);
        let verdict = match count {
            0 => "in order".to_string(),
            // Every task submitted before one that started had started or
            // could be in another worker's hands (V8): started together.
            n if unstarted < threads => format!("{n} side by side"),
            n => format!("{n} overtaken"),
        };
        println!(
            "  {:<8} {:>6}   {:>9} µs  {:>9} µs  {:>14}  {:<16}  {:>8} / {:<8}  ({})",
            format!("{priority:?}"),
            level.len(),
            percentile(&level, 0.5),
            percentile(&level, 0.99),
            most,
            verdict,
            percentile(&ahead, 0.5),
            percentile(&ahead, 0.99),
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
