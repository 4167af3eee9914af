//! Compute throughput while half the tasks block: `block_in_place` against
//! plain blocking, rayon, and blocking work moved to threads of its own.
//!
//! ```sh
//! cargo run --release --example blocking
//! cargo run --release --example blocking -- --threads 2 --tasks 40 --sleep-ms 20 --work-ms 10 --rounds 5
//! cargo run --release --example blocking -- --max-blocking 16   # the cap on spares (default: the pool's)
//! ```
//!
//! A mix of `--tasks` compute tasks (about `--work-ms` of CPU each) and as
//! many blocking tasks (a sleep of `--sleep-ms`, standing for I/O), queued
//! alternately from outside on a pool of `--threads` workers. What is
//! measured is the compute makespan: from the first submission to the end
//! of the last compute task, best of `--rounds`; its inverse is the compute
//! throughput. The rows:
//!
//! * **compute only**: the compute tasks alone, the reference;
//! * **`block_in_place`**: each blocking task sleeps inside
//!   `stealpool::block_in_place`, so a spare thread takes up the compute
//!   while it sleeps;
//! * **plain blocking**: the same sleep without it: the sleeping task holds
//!   its worker;
//! * **rayon, plain blocking**: the same mix on a rayon pool (rayon has no
//!   `block_in_place`);
//! * **blocking threads**: the pool runs only the compute; each blocking
//!   task runs on a thread of its own, started for it (tokio's
//!   `spawn_blocking` style, with `std` threads: tokio is not a dependency).
//!
//! Each row's throughput is given relative to the compute-only run of the
//! same pool kind, measured in the same process.

#[path = "common/cli.rs"]
mod cli;

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use stealpool::{block_in_place, ThreadPool};

/// Iterations of `spin` per millisecond, measured once.
fn calibrate() -> u64 {
    let start = Instant::now();
    let mut iterations = 0u64;
    while start.elapsed() < Duration::from_millis(50) {
        spin(10_000);
        iterations += 10_000;
    }
    iterations / 50
}

/// CPU work that the optimizer cannot remove.
fn spin(iterations: u64) -> u64 {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..iterations {
        x = black_box(x ^ (x << 13) ^ (x >> 7) ^ (x << 17));
    }
    x
}

#[derive(Clone, Copy)]
struct Mix {
    tasks: usize,
    work: u64,
    sleep: Duration,
}

#[derive(Clone, Copy, PartialEq)]
enum Blocking {
    None,
    InPlace,
    Plain,
    OwnThread,
}

/// How the tasks are queued: on a stealpool or a rayon pool.
trait Pool {
    fn spawn(&self, task: Box<dyn FnOnce() + Send>);
}

impl Pool for ThreadPool {
    fn spawn(&self, task: Box<dyn FnOnce() + Send>) {
        ThreadPool::spawn(self, task);
    }
}

impl Pool for rayon::ThreadPool {
    fn spawn(&self, task: Box<dyn FnOnce() + Send>) {
        rayon::ThreadPool::spawn(self, task);
    }
}

/// One round: the compute makespan, after every task (blocking ones too)
/// has finished.
fn round(pool: &dyn Pool, mix: Mix, blocking: Blocking) -> Duration {
    let start = Instant::now();
    let last_compute = Arc::new(AtomicU64::new(0));
    let left = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for _ in 0..mix.tasks {
        let (last_compute, left_compute) = (last_compute.clone(), left.clone());
        left.fetch_add(1, Ordering::SeqCst);
        pool.spawn(Box::new(move || {
            black_box(spin(mix.work));
            last_compute.fetch_max(start.elapsed().as_nanos() as u64, Ordering::SeqCst);
            left_compute.fetch_sub(1, Ordering::SeqCst);
        }));
        let sleep = mix.sleep;
        match blocking {
            Blocking::None => {}
            Blocking::InPlace | Blocking::Plain => {
                let left_blocking = left.clone();
                left.fetch_add(1, Ordering::SeqCst);
                pool.spawn(Box::new(move || {
                    if blocking == Blocking::InPlace {
                        block_in_place(|| thread::sleep(sleep));
                    } else {
                        thread::sleep(sleep);
                    }
                    left_blocking.fetch_sub(1, Ordering::SeqCst);
                }));
            }
            Blocking::OwnThread => threads.push(thread::spawn(move || thread::sleep(sleep))),
        }
    }
    while left.load(Ordering::SeqCst) > 0 {
        thread::sleep(Duration::from_micros(200));
    }
    for thread in threads {
        thread.join().unwrap();
    }
    Duration::from_nanos(last_compute.load(Ordering::SeqCst))
}

fn main() {
    let args = cli::Args::parse(
        "Compute throughput while half the tasks block: block_in_place against plain blocking, \
         rayon, and threads of their own.",
        &[
            cli::THREADS,
            cli::opt(
                "tasks",
                "N",
                "compute tasks, and as many blocking ones (default 40)",
            ),
            cli::opt("work-ms", "MS", "CPU time of a compute task (default 10)"),
            cli::opt("sleep-ms", "MS", "sleep of a blocking task (default 20)"),
            cli::opt("rounds", "N", "runs per contestant, the best kept (default 5)"),
            cli::opt(
                "max-blocking",
                "N",
                "cap on spare threads; 0 (the default) is the pool's own",
            ),
        ],
    );
    let threads = args.threads();
    let tasks = args.get("tasks", 40usize);
    let work_ms = args.get("work-ms", 10u64);
    let sleep_ms = args.get("sleep-ms", 20u64);
    let rounds = args.get("rounds", 5usize);
    // 0: the pool's default.
    let max_blocking = args.get("max-blocking", 0usize);
    let mix = Mix {
        tasks,
        work: calibrate() * work_ms,
        sleep: Duration::from_millis(sleep_ms),
    };
    println!(
        "{threads} workers; {tasks} compute tasks of ~{work_ms} ms and {tasks} blocking tasks of {sleep_ms} ms, \
         best of {rounds} rounds; compute makespan and compute throughput vs the same pool's compute-only run"
    );
    let mut builder = ThreadPool::builder().num_threads(threads);
    if max_blocking > 0 {
        builder = builder.max_blocking_threads(max_blocking);
    }
    let pool = builder.build().unwrap();
    let rayon = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    // Rounds alternate between the rows, so that load on the machine falls
    // on all of them alike.
    let rows: [(&str, &dyn Pool, Blocking); 6] = [
        ("stealpool, compute only", &pool, Blocking::None),
        ("stealpool, block_in_place", &pool, Blocking::InPlace),
        ("stealpool, plain blocking", &pool, Blocking::Plain),
        ("stealpool, blocking threads", &pool, Blocking::OwnThread),
        ("rayon, compute only", &rayon, Blocking::None),
        ("rayon, plain blocking", &rayon, Blocking::Plain),
    ];
    let mut times = [Duration::MAX; 6];
    for _ in 0..rounds {
        for (time, &(_, pool, blocking)) in times.iter_mut().zip(&rows) {
            *time = (*time).min(round(pool, mix, blocking));
        }
    }
    println!("| run | compute makespan | compute throughput vs compute only |");
    println!("| --- | ---: | ---: |");
    for (i, ((name, ..), time)) in rows.iter().zip(times).enumerate() {
        let reference = if i < 4 { times[0] } else { times[4] };
        println!(
            "| {name} | {:.1} ms | {} |",
            time.as_secs_f64() * 1e3,
            cli::fixed(cli::ratio(reference.as_secs_f64(), time.as_secs_f64()), 2)
        );
    }
    let stats = pool.stats();
    println!(
        "stealpool: {} spare threads started, {} blocking calls uncompensated, {} tasks run by spares",
        stats.spare_threads_started, stats.blocking_uncompensated, stats.spares.tasks_executed
    );
}
