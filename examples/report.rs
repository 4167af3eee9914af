//! The benchmark report: four scenarios, and the costs under them, each run
//! on this pool and, in the same process and interleaved round by round, on
//! rayon, plain `std::thread`s and a `Mutex<VecDeque>` + `Condvar` pool.
//!
//! ```sh
//! cargo run --release --example report            # about a minute
//! cargo run --release --example report -- --rounds 5
//! cargo run --release --example report -- --fork-join   # section [6] only
//! cargo run --release --example report -- --par-iter    # parallel iterators vs rayon's
//! cargo run --release --example report -- --bounded-pool  # spawn and fib, bounded_steals off/on vs rayon
//! cargo run --release --example report -- --many        # section [8]: 8, 16, 64 workers vs rayon
//! cargo run --release --example report -- --csv report.csv
//! cargo run --release --example report -- --help
//! ```
//!
//! The output opens with a summary: each comparison of this pool against a
//! peer, with a verdict ("faster than rayon (0.41x)", "within noise of
//! rayon (1.01x)", "slower than rayon (1.30x)"; the noise band is
//! `--noise`, 3% by default), then the targets, then every section in
//! full. The same comparisons are drawn as an SVG chart under cargo's
//! `target/` (its path is printed); `--csv PATH` writes every measured
//! figure and every comparison. Figures that could not be measured print
//! as `n/a`. A section adds a line to the summary with
//! [`Summary::compare`].
//!
//! 1. 100 000 micro-tasks spawned inside a scope;
//! 2. fork-join quicksort of 10 000 000 random `u64`s;
//! 3. the heterogeneous mix: 1000 tasks, 80% 1 µs, 15% 100 µs, 5% 10 ms;
//! 4. 1 000 000 micro-tasks spawned by 8 threads outside the pool;
//!
//! then the primitives (deque push+pop, `join`), `join` against the
//! fork-join peers chili and rayon (fib and chili's tree sum), the idle pool
//! (wake-up latency, CPU use) and the targets, each checked against this
//! run.
//!
//! Every time is the best of `--rounds` runs (default 3), the peers taking
//! turns, so a burst of load from other processes hits them alike; "CPU" is
//! the process's user+system time over the same run (it shows spinning).
//! Every result is checked against a sequential run.

#[path = "common/bounded_pool.rs"]
mod bounded_pool;
#[path = "common/cli.rs"]
mod cli;
#[path = "../benches/common/mutex_pool.rs"]
mod mutex_pool;
#[path = "common/par_iter_bench.rs"]
mod par_iter_bench;
#[path = "common/summary.rs"]
mod summary;
#[path = "../benches/common/workloads.rs"]
mod workloads;

use mutex_pool::MutexPool;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};
use stealpool::{Stats, ThreadPool};
use summary::{Kind, Summary};
use workloads::{mix, quantile, random_u64s, spin_for, wake_latency_once, Countdown, Node, Rayon, Threads};

/// The report's sections, as they are written: printed after the summary,
/// which needs all of them measured first.
static DETAILS: Mutex<String> = Mutex::new(String::new());

/// `println!` into [`DETAILS`].
macro_rules! say {
    () => {
        say!("")
    };
    ($($arg:tt)*) => {{
        let mut details = crate::DETAILS.lock().unwrap_or_else(|e| e.into_inner());
        details.push_str(&format!($($arg)*));
        details.push('\n');
    }};
}

#[path = "common/many.rs"]
mod many;

/// Prints what [`DETAILS`] holds so far, and empties it.
fn flush_details() {
    let details = std::mem::take(&mut *DETAILS.lock().unwrap_or_else(|e| e.into_inner()));
    print!("{details}");
}

/// Starts section `id` (`[1]`, ...): its heading in the details, a line on
/// stderr to show progress, and its rows in `summary` filed under `id`.
fn begin(summary: &mut Summary, id: &str, heading: impl std::fmt::Display) {
    let heading = heading.to_string();
    eprintln!("{id} {}", heading.lines().next().unwrap_or(""));
    say!("\n{id} {heading}");
    summary.section(id);
}

/// `a / b`, printed `n/a` when it cannot be computed.
fn per(a: f64, b: f64) -> String {
    cli::fixed(cli::ratio(a, b), 2)
}

/// The pools under test have this many workers (the machine's cores).
fn workers() -> usize {
    thread::available_parallelism().map_or(2, |n| n.get())
}

/// User + system CPU time of the whole process so far.
fn cpu_time() -> Duration {
    // SAFETY: `getrusage` only writes the struct we pass.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// What one run of one peer measured.
#[derive(Clone, Default)]
struct Run {
    wall: Duration,
    cpu: Duration,
    /// The pool's statistics, for this crate's pool.
    stats: Option<Stats>,
    /// Anything else the peer wants to show (a distribution).
    detail: Option<String>,
}

/// Times `f`: wall clock and process CPU.
fn measure(f: impl FnOnce()) -> Run {
    let (cpu0, t0) = (cpu_time(), Instant::now());
    f();
    let wall = t0.elapsed();
    Run {
        wall,
        cpu: cpu_time().saturating_sub(cpu0),
        ..Run::default()
    }
}

/// A contestant in a scenario: a label, its worker count, and a run.
struct Peer<'a> {
    name: &'static str,
    workers: usize,
    run: Box<dyn FnMut() -> Run + 'a>,
}

fn peer<'a>(name: &'static str, workers: usize, run: impl FnMut() -> Run + 'a) -> Peer<'a> {
    Peer {
        name,
        workers,
        run: Box::new(run),
    }
}

/// Runs every peer `rounds` times, taking turns, and keeps each one's
/// fastest run.
fn compete(peers: &mut [Peer<'_>], rounds: usize) -> Vec<Run> {
    let mut best: Vec<Option<Run>> = vec![None; peers.len()];
    for _ in 0..rounds {
        for (peer, best) in peers.iter_mut().zip(&mut best) {
            let run = (peer.run)();
            if best.as_ref().is_none_or(|b| run.wall < b.wall) {
                *best = Some(run);
            }
        }
    }
    best.into_iter().map(Option::unwrap).collect()
}

use cli::ms;

/// A peer's short name, for the summary: its label up to the first comma
/// ("rayon", "mutex pool").
fn short(name: &str) -> &str {
    name.split(',').next().unwrap_or(name)
}

/// Prints the table of a scenario and records its rows; ratios are
/// against `reference` (the index of this pool with all workers): above 1,
/// the peer is slower. The summary compares `reference` with each peer in
/// `against`.
fn table(
    summary: &mut Summary,
    scenario: &str,
    (peers, runs): (&[Peer<'_>], &[Run]),
    (reference, against): (usize, &[usize]),
    unit: Option<(&str, f64)>,
) {
    let base = runs[reference].wall.as_secs_f64();
    let unit_header = unit.map_or(String::new(), |(name, _)| format!("{name:>12}"));
    say!(
        "  {:<46} {:>7} {:>10} {:>10} {}{:>12}",
        "peer",
        "workers",
        "wall ms",
        "CPU ms",
        unit_header,
        "time/ours"
    );
    for (peer, run) in peers.iter().zip(runs) {
        summary.row(scenario, peer.name, peer.workers, "wall", ms(run.wall), "ms");
        summary.row(scenario, peer.name, peer.workers, "CPU", ms(run.cpu), "ms");
        let per_unit = unit.map_or(String::new(), |(name, count)| {
            let per = run.wall.as_secs_f64() * 1e9 / count;
            summary.row(scenario, peer.name, peer.workers, "wall per unit", per, name);
            format!("{per:>12.1}")
        });
        say!(
            "  {:<46} {:>7} {:>10.1} {:>10.1} {}{:>11}x",
            peer.name,
            peer.workers,
            ms(run.wall),
            ms(run.cpu),
            per_unit,
            per(run.wall.as_secs_f64(), base)
        );
    }
    versus(summary, scenario, (peers, runs), reference, against);
}

/// The lines under a scenario whose peers 0 and 1 are this pool on one
/// worker and on `w`: the speedup and the pool's statistics.
fn scaling(runs: &[Run], w: usize) {
    say!(
        "  speedup of stealpool over 1 worker: {}x",
        speedup(&runs[0], &runs[1])
    );
    print_stats(
        &format!("stealpool, {w} workers"),
        runs[1].stats.as_ref().unwrap(),
    );
}

/// Adds to the summary this pool's wall time (peer `ours`) against each
/// peer in `against`, in `scenario`.
fn versus(
    summary: &mut Summary,
    scenario: &str,
    (peers, runs): (&[Peer<'_>], &[Run]),
    ours: usize,
    against: &[usize],
) {
    for &i in against {
        summary.compare(
            scenario,
            short(peers[i].name),
            ms(runs[ours].wall),
            ms(runs[i].wall),
            "ms",
            Kind::Time,
        );
    }
}

/// Per-worker share of the jobs of a run of this pool. Tasks are what
/// `spawn` and `Scope::spawn` submit; the halves of a `join` are jobs but
/// not tasks, so work done by `join` alone (the sorts) runs no task.
fn print_stats(label: &str, stats: &Stats) {
    let tasks = |n: u64| {
        if stats.tasks_executed == 0 {
            String::new()
        } else {
            format!("{n:>8} tasks run, ")
        }
    };
    say!(
        "  {label}: {}{} jobs stolen, {} of {} steal attempts succeeded{}",
        tasks(stats.tasks_executed).trim_start(),
        stats.tasks_stolen,
        stats.successful_steals,
        stats.steal_attempts,
        if stats.tasks_executed == 0 {
            " (no spawned tasks: the work ran as join halves)"
        } else {
            ""
        }
    );
    for (i, w) in stats.per_worker.iter().enumerate() {
        say!(
            "    worker {i}: {}{:>6} jobs stolen, {:>6} of {:>7} steal attempts succeeded",
            tasks(w.tasks_executed),
            w.tasks_stolen,
            w.successful_steals,
            w.steal_attempts
        );
    }
}

/// Speedup of `fast` over `slow`, printed `n/a` when it cannot be computed.
fn speedup(slow: &Run, fast: &Run) -> String {
    per(slow.wall.as_secs_f64(), fast.wall.as_secs_f64())
}

/// Ours over theirs from the wall times of two runs.
fn wall_ratio(ours: &Run, theirs: &Run) -> f64 {
    cli::ratio(ours.wall.as_secs_f64(), theirs.wall.as_secs_f64())
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// A micro-task: about 20 ns of arithmetic, so that scheduling dominates.
fn micro(i: u64) {
    let mut x = i | 1;
    for _ in 0..4 {
        x ^= x >> 33;
        x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    }
    black_box(x);
}

fn machine() {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split(':').nth(1)))
        .map_or("unknown".to_string(), |m| m.trim().to_string());
    let logical = cpuinfo.lines().filter(|l| l.starts_with("processor")).count();
    println!(
        "machine: {model}; {logical} logical CPUs, available_parallelism = {}",
        workers()
    );
    println!("load average at start: {}", load_average());
    let load: f64 = load_average()
        .split(' ')
        .next()
        .and_then(|l| l.parse().ok())
        .unwrap_or(0.0);
    if load > workers() as f64 * 0.5 {
        println!(
            "note: other processes keep this machine busy (load {load} on {} cores): wall-clock speedups \
             understate what the pools can do; compare peers by their ratios, and see the CPU ms column",
            workers()
        );
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn status(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "NOT met"
    }
}

fn scenario_micro(rounds: usize, summary: &mut Summary) {
    const TASKS: u64 = 100_000;
    let w = workers();
    begin(
        summary,
        "[1]",
        format!(
            "{TASKS} micro-tasks (~20 ns each) spawned inside a scope (best of {} rounds)",
            rounds * 5
        ),
    );
    let ours = |threads: usize| {
        move || {
            let pool = ThreadPool::new(threads);
            let mut run = measure(|| {
                pool.scope(|s| {
                    for i in 0..TASKS {
                        s.spawn(move |_| micro(i));
                    }
                })
            });
            // A task is counted just after its body returns, so after the
            // scope has; `wait_all` waits for the count.
            pool.wait_all();
            run.stats = Some(pool.stats());
            assert_eq!(
                run.stats.as_ref().unwrap().tasks_executed,
                TASKS,
                "every task ran once"
            );
            run
        }
    };
    let mut peers = vec![
        peer("stealpool, Scope::spawn", 1, ours(1)),
        peer("stealpool, Scope::spawn", w, ours(w)),
        peer("rayon, Scope::spawn", w, || {
            let pool = rayon_pool(w);
            measure(|| {
                pool.scope(|s| {
                    for i in 0..TASKS {
                        s.spawn(move |_| micro(i));
                    }
                })
            })
        }),
        peer("mutex pool, spawn from outside + wait_all", w, || {
            let pool = MutexPool::new(w);
            measure(|| {
                for i in 0..TASKS {
                    pool.spawn(move || micro(i));
                }
                pool.wait_all();
            })
        }),
        peer("std::thread, one thread per 1/w of the tasks", w, || {
            measure(|| {
                thread::scope(|s| {
                    for t in 0..w as u64 {
                        s.spawn(move || (t..TASKS).step_by(w).for_each(micro));
                    }
                })
            })
        }),
    ];
    let runs = compete(&mut peers, rounds);
    let scenario = format!("[1] {TASKS} micro-tasks in a scope, {w} workers");
    table(
        summary,
        &scenario,
        (&peers, &runs),
        (1, &[2, 3]),
        Some(("ns/task", TASKS as f64)),
    );
    scaling(&runs, w);
    let ratio = wall_ratio(&runs[1], &runs[2]);
    summary.target(
        "spawn inside a scope: time per task <= rayon's",
        format!("{}x rayon's", cli::fixed(ratio, 2)),
        summary.at_most(ratio),
    );
}

fn scenario_quicksort(rounds: usize, summary: &mut Summary) {
    const LEN: usize = 10_000_000;
    let w = workers();
    begin(summary, "[2]", format!("fork-join quicksort of {LEN} random u64"));
    let input = random_u64s(LEN, 42);
    let mut expected = input.clone();
    expected.sort_unstable();
    let expected = &expected;
    let input = &input;
    // Sorts a fresh copy (not timed), checks it (not timed).
    let sorting = |sort: &dyn Fn(&mut Vec<u64>)| {
        let mut v = input.clone();
        let run = measure(|| sort(&mut v));
        assert!(v == *expected, "a sort gave a wrong result");
        run
    };
    let ours = |threads: usize| {
        move || {
            let pool = ThreadPool::new(threads);
            let mut run = sorting(&|v| pool.sort_unstable(v));
            run.stats = Some(pool.stats());
            run
        }
    };
    let mut peers = vec![
        peer("slice::sort_unstable (sequential)", 1, || {
            sorting(&|v| v.sort_unstable())
        }),
        peer("stealpool sort_unstable", 1, ours(1)),
        peer("stealpool sort_unstable", w, ours(w)),
        peer("rayon par_sort_unstable", w, || {
            use rayon::slice::ParallelSliceMut;
            let pool = rayon_pool(w);
            sorting(&|v| pool.install(|| v.par_sort_unstable()))
        }),
        peer("stealpool, simple quicksort (join)", w, || {
            let pool = ThreadPool::new(w);
            // One count per worker, and one for the spare threads that
            // stand in while a worker waits (their indices follow the
            // workers').
            let per_worker: Vec<AtomicU64> = (0..=w).map(|_| AtomicU64::new(0)).collect();
            let mut run = sorting(&|v| {
                pool.install(|| {
                    workloads::quicksort_traced(&pool, v, &|len| {
                        let worker = stealpool::current_thread_index().unwrap().min(w);
                        per_worker[worker].fetch_add(len as u64, Ordering::Relaxed);
                    })
                })
            });
            let shares: Vec<String> = per_worker
                .iter()
                .map(|n| format!("{:.1}%", n.load(Ordering::Relaxed) as f64 * 100.0 / LEN as f64))
                .collect();
            run.detail = Some(format!(
                "elements sorted in leaves, per worker: {} (spares: {})",
                shares[..w].join(", "),
                shares[w]
            ));
            run.stats = Some(pool.stats());
            run
        }),
        peer("rayon, simple quicksort (rayon::join)", w, || {
            let pool = rayon_pool(w);
            sorting(&|v| pool.install(|| workloads::quicksort(&Rayon, v)))
        }),
        peer("std::thread, simple quicksort, thread per fork", w, || {
            sorting(&|v| workloads::quicksort(&Threads::for_threads(w), v))
        }),
        peer("mutex pool, simple quicksort as tasks", w, || {
            let pool = MutexPool::new(w);
            sorting(&|v| {
                // SAFETY: `v` is not touched until `wait_all` returns.
                unsafe { workloads::quicksort_tasks(&pool.spawner(), v) };
                pool.wait_all();
            })
        }),
    ];
    let runs = compete(&mut peers, rounds);
    let scenario = format!("[2] sort_unstable of {LEN} u64, {w} workers");
    table(
        summary,
        &scenario,
        (&peers, &runs),
        (2, &[3]),
        Some(("ns/elem", LEN as f64)),
    );
    versus(
        summary,
        &format!("[2] simple quicksort (join) of {LEN} u64, {w} workers"),
        (&peers, &runs),
        4,
        &[5, 7],
    );
    let over_sequential = cli::ratio(runs[0].wall.as_secs_f64(), runs[2].wall.as_secs_f64());
    say!(
        "  speedup of stealpool sort_unstable: {}x over 1 worker, {}x over slice::sort_unstable",
        speedup(&runs[1], &runs[2]),
        cli::fixed(over_sequential, 2),
    );
    say!(
        "  simple quicksort: {}x over slice::sort_unstable (its first partition runs on one core)",
        speedup(&runs[0], &runs[4])
    );
    print_stats(
        &format!("stealpool sort_unstable, {w} workers"),
        runs[2].stats.as_ref().unwrap(),
    );
    say!(
        "  stealpool simple quicksort: {}",
        runs[4].detail.as_deref().unwrap_or("")
    );
    // 1.8x on two workers; from eight on, the 6x on 8 cores asked of a
    // work-stealing pool (3/4 of each core).
    let bar = if w >= 8 { 0.75 * w as f64 } else { 0.9 * w as f64 };
    summary.target(
        format!("quicksort of 10M: speedup >= {bar:.1}x on {w} workers over the sequential sort"),
        format!("{}x", cli::fixed(over_sequential, 2)),
        status(over_sequential >= bar),
    );
}

/// Spawns `tasks` from this thread with `spawn`, each spinning for its
/// length, and waits for them all.
fn run_mix(tasks: &[Duration], spawn: &dyn Fn(Box<dyn FnOnce() + Send>)) {
    let done = Arc::new(Countdown::new(tasks.len()));
    for &length in tasks {
        let done = done.clone();
        spawn(Box::new(move || {
            spin_for(length);
            done.count_down();
        }));
    }
    done.wait();
}

fn scenario_mix(rounds: usize, summary: &mut Summary) {
    let tasks = mix(1000, 7);
    let w = workers();
    let work: Duration = tasks.iter().sum();
    begin(
        summary,
        "[3]",
        format!(
            "heterogeneous mix: {} tasks (80% 1 us, 15% 100 us, 5% 10 ms; {:.1} ms of work) spawned from outside",
            tasks.len(),
            ms(work)
        ),
    );
    let tasks = &tasks;
    let ours = |threads: usize| {
        move || {
            let pool = ThreadPool::new(threads);
            let mut run = measure(|| run_mix(tasks, &|task| pool.spawn(task)));
            pool.wait_all();
            run.stats = Some(pool.stats());
            run
        }
    };
    let mut peers = vec![
        peer("stealpool, spawn", 1, ours(1)),
        peer("stealpool, spawn", w, ours(w)),
        peer("rayon, spawn", w, || {
            let pool = rayon_pool(w);
            measure(|| run_mix(tasks, &|task| pool.spawn(task)))
        }),
        peer("mutex pool, spawn", w, || {
            let pool = MutexPool::new(w);
            measure(|| run_mix(tasks, &|task| pool.spawn(task)))
        }),
        peer("std::thread, one thread per 1/w of the tasks", w, || {
            measure(|| {
                thread::scope(|s| {
                    for chunk in tasks.chunks(tasks.len().div_ceil(w)) {
                        s.spawn(move || chunk.iter().for_each(|&d| spin_for(d)));
                    }
                })
            })
        }),
        peer("std::thread::spawn per task", w, || {
            measure(|| {
                run_mix(tasks, &|task| {
                    thread::spawn(task);
                })
            })
        }),
    ];
    let runs = compete(&mut peers, rounds);
    let scenario = format!("[3] uneven mix of {} tasks, {w} workers", tasks.len());
    table(summary, &scenario, (&peers, &runs), (1, &[2, 3]), None);
    let ideal = work / w as u32;
    say!(
        "  ideal on {w} workers: {:.1} ms; stealpool reaches {}% of it",
        ms(ideal),
        cli::fixed(
            cli::ratio(ideal.as_secs_f64() * 100.0, runs[1].wall.as_secs_f64()),
            0
        ),
    );
    scaling(&runs, w);
    if w >= 8 {
        // The 7x on 8 cores asked of the mix (7/8 of each core): only
        // where there are that many cores to measure it on.
        let speedup = cli::ratio(work.as_secs_f64(), runs[1].wall.as_secs_f64());
        let bar = 0.875 * w as f64;
        summary.target(
            format!("uneven mix: speedup >= {bar:.1}x on {w} workers (work / wall)"),
            format!("{}x", cli::fixed(speedup, 2)),
            status(speedup >= bar),
        );
    }
}

/// `submitters` threads each spawn `per_submitter` micro-tasks with
/// `spawn`; returns once all have run.
fn run_external(submitters: usize, per_submitter: usize, spawn: &(dyn Fn(Box<dyn FnOnce() + Send>) + Sync)) {
    let done = Arc::new(Countdown::new(submitters * per_submitter));
    thread::scope(|s| {
        for t in 0..submitters {
            let done = done.clone();
            s.spawn(move || {
                for i in 0..per_submitter {
                    let done = done.clone();
                    let n = (t * per_submitter + i) as u64;
                    spawn(Box::new(move || {
                        micro(n);
                        done.count_down();
                    }));
                }
            });
        }
    });
    done.wait();
}

fn scenario_external(rounds: usize, summary: &mut Summary) {
    const SUBMITTERS: usize = 8;
    const TASKS: usize = 1_000_000;
    const PER: usize = TASKS / SUBMITTERS;
    const BATCH: usize = 1000;
    let w = workers();
    begin(
        summary,
        "[4]",
        format!("{TASKS} micro-tasks spawned by {SUBMITTERS} threads outside the pool"),
    );
    let ours = |threads: usize| {
        move || {
            let pool = ThreadPool::new(threads);
            let mut run = measure(|| run_external(SUBMITTERS, PER, &|task| pool.spawn(task)));
            pool.wait_all();
            run.stats = Some(pool.stats());
            assert_eq!(run.stats.as_ref().unwrap().tasks_executed, TASKS as u64);
            run
        }
    };
    let mut peers = vec![
        peer("stealpool, spawn", 1, ours(1)),
        peer("stealpool, spawn", w, ours(w)),
        peer("rayon, spawn", w, || {
            let pool = rayon_pool(w);
            measure(|| run_external(SUBMITTERS, PER, &|task| pool.spawn(task)))
        }),
        peer("mutex pool, spawn", w, || {
            let pool = MutexPool::new(w);
            measure(|| run_external(SUBMITTERS, PER, &|task| pool.spawn(task)))
        }),
        peer("std::thread, one thread per 1000-task batch", w, || {
            measure(|| {
                let done = Arc::new(Countdown::new(TASKS / BATCH));
                thread::scope(|s| {
                    for t in 0..SUBMITTERS {
                        let done = done.clone();
                        s.spawn(move || {
                            for b in 0..PER / BATCH {
                                let done = done.clone();
                                let first = (t * PER + b * BATCH) as u64;
                                thread::spawn(move || {
                                    (first..first + BATCH as u64).for_each(micro);
                                    done.count_down();
                                });
                            }
                        });
                    }
                });
                done.wait();
            })
        }),
    ];
    let runs = compete(&mut peers, rounds);
    let scenario = format!("[4] {TASKS} spawns from {SUBMITTERS} outside threads, {w} workers");
    table(
        summary,
        &scenario,
        (&peers, &runs),
        (1, &[2, 3]),
        Some(("ns/task", TASKS as f64)),
    );
    scaling(&runs, w);
    let ratio = wall_ratio(&runs[1], &runs[2]);
    summary.target(
        "spawn from outside: throughput >= rayon's (aim 1.5x)",
        format!("{}x rayon's", cli::fixed(1.0 / ratio, 2)),
        summary.at_most(ratio),
    );

    // One submitter: every task crosses the injector, with no other
    // submitter to batch behind.
    const ONE: usize = 200_000;
    say!("  {ONE} micro-tasks spawned by one thread outside the pool");
    let mut peers = vec![
        peer("stealpool, spawn, one submitter", w, || {
            let pool = ThreadPool::new(w);
            measure(|| run_external(1, ONE, &|task| pool.spawn(task)))
        }),
        peer("rayon, spawn, one submitter", w, || {
            let pool = rayon_pool(w);
            measure(|| run_external(1, ONE, &|task| pool.spawn(task)))
        }),
    ];
    let runs = compete(&mut peers, rounds);
    let scenario = format!("[4] {ONE} spawns from one outside thread, {w} workers");
    table(
        summary,
        &scenario,
        (&peers, &runs),
        (0, &[1]),
        Some(("ns/task", ONE as f64)),
    );
    let ratio = wall_ratio(&runs[0], &runs[1]);
    summary.target(
        "spawn from one outside thread: throughput >= rayon's",
        format!("{}x rayon's", cli::fixed(1.0 / ratio, 2)),
        summary.at_most(ratio),
    );
}

/// CPU time of the calling thread so far.
fn thread_cpu_time() -> Duration {
    // SAFETY: `clock_gettime` only writes the struct we pass.
    let ts = unsafe {
        let mut ts = std::mem::zeroed::<libc::timespec>();
        libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts);
        ts
    };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Nanoseconds per op of one run of `f` (`ops` ops): wall clock, and the
/// CPU time `cpu` measures (the caller's thread, or the process).
fn ns_per_op(ops: u64, cpu: fn() -> Duration, f: impl FnOnce()) -> (f64, f64) {
    let (cpu0, t0) = (cpu(), Instant::now());
    f();
    let per = |d: Duration| d.as_secs_f64() * 1e9 / ops as f64;
    (per(t0.elapsed()), per(cpu().saturating_sub(cpu0)))
}

/// Component-wise minimum of (wall, CPU) pairs.
fn min2(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0.min(b.0), a.1.min(b.1))
}

fn primitives(summary: &mut Summary) {
    const RUNS: usize = 15;
    begin(
        summary,
        "[5]",
        format!(
            "primitives: the fastest of {RUNS} runs, peers alternating; CPU time as well as wall time, \
             because a single thread's CPU time is what other load disturbs least"
        ),
    );
    // The floors, measured in this run rather than quoted: a store, a
    // StoreLoad barrier (`fence(SeqCst)`) and a load, the least a Chase-Lev
    // pop can cost; and a CAS, which a pop of the last element adds.
    const OPS: u64 = 2_000_000;
    let (store, load) = (AtomicU64::new(0), AtomicU64::new(0));
    let (mut barrier, mut cas) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..RUNS {
        barrier = barrier.min(
            ns_per_op(OPS, thread_cpu_time, || {
                for i in 0..OPS {
                    store.store(black_box(i), Ordering::Relaxed);
                    std::sync::atomic::fence(Ordering::SeqCst);
                    black_box(load.load(Ordering::Relaxed));
                }
            })
            .1,
        );
        cas = cas.min(
            ns_per_op(OPS, thread_cpu_time, || {
                for i in 0..OPS {
                    black_box(
                        store
                            .compare_exchange(i, i + 1, Ordering::SeqCst, Ordering::Relaxed)
                            .ok(),
                    );
                }
            })
            .1,
        );
    }
    say!(
        "  floors measured in this run (ns, CPU): a store, fence(SeqCst) and a load {barrier:.2}; a CAS {cas:.2}"
    );
    summary.row(
        "floor: store, fence(SeqCst), load",
        "",
        1,
        "CPU per op",
        barrier,
        "ns",
    );
    summary.row("floor: CAS", "", 1, "CPU per op", cas, "ns");
    let pair_floor = barrier + cas;

    const PAIRS: u64 = 2_000_000;
    let ours = stealpool::deque::Worker::<usize>::new();
    let theirs = crossbeam_deque::Worker::<usize>::new_lifo();
    let inf = (f64::INFINITY, f64::INFINITY);
    let (mut a, mut b) = (inf, inf);
    for _ in 0..RUNS {
        a = min2(
            a,
            ns_per_op(PAIRS, thread_cpu_time, || {
                for i in 0..PAIRS as usize {
                    ours.push(black_box(i));
                    black_box(ours.pop());
                }
            }),
        );
        b = min2(
            b,
            ns_per_op(PAIRS, thread_cpu_time, || {
                for i in 0..PAIRS as usize {
                    theirs.push(black_box(i));
                    black_box(theirs.pop());
                }
            }),
        );
    }
    // Each pop here takes the deque's last element: the D3 fence and the
    // D4 CAS, two barriers.
    let scenario = "[5] deque push+pop, one element";
    for (peer, (wall, cpu)) in [("stealpool", a), ("crossbeam-deque", b)] {
        summary.row(scenario, peer, 1, "wall per pair", wall, "ns");
        summary.row(scenario, peer, 1, "CPU per pair", cpu, "ns");
    }
    summary.compare(scenario, "crossbeam-deque", a.1, b.1, "ns CPU", Kind::Time);
    say!(
        "  deque push+pop pair, one element (ns, CPU / wall): stealpool {:.2} / {:.2}, crossbeam-deque {:.2} / {:.2}; \
         ratio {:.2}x (CPU); {:.2}x the floor of {pair_floor:.2} ns (a barrier and a CAS)",
        a.1,
        a.0,
        b.1,
        b.0,
        a.1 / b.1,
        a.1 / pair_floor
    );
    // 64 pushes then 64 pops: only the last pop takes the last element,
    // so the others pay the fence but not the CAS.
    const BURST: usize = 64;
    let (mut c, mut d) = (inf, inf);
    for _ in 0..RUNS {
        c = min2(
            c,
            ns_per_op(PAIRS, thread_cpu_time, || {
                for _ in 0..PAIRS as usize / BURST {
                    for i in 0..BURST {
                        ours.push(black_box(i));
                    }
                    for _ in 0..BURST {
                        black_box(ours.pop());
                    }
                }
            }),
        );
        d = min2(
            d,
            ns_per_op(PAIRS, thread_cpu_time, || {
                for _ in 0..PAIRS as usize / BURST {
                    for i in 0..BURST {
                        theirs.push(black_box(i));
                    }
                    for _ in 0..BURST {
                        black_box(theirs.pop());
                    }
                }
            }),
        );
    }
    let scenario = "[5] deque 64 pushes, 64 pops";
    for (peer, (wall, cpu)) in [("stealpool", c), ("crossbeam-deque", d)] {
        summary.row(scenario, peer, 1, "wall per pair", wall, "ns");
        summary.row(scenario, peer, 1, "CPU per pair", cpu, "ns");
    }
    summary.compare(scenario, "crossbeam-deque", c.1, d.1, "ns CPU", Kind::Time);
    say!(
        "  deque 64 pushes then 64 pops, per pair (ns, CPU / wall): stealpool {:.2} / {:.2}, \
         crossbeam-deque {:.2} / {:.2}; ratio {:.2}x (CPU); {:.2}x the floor of {barrier:.2} ns (one barrier)",
        c.1,
        c.0,
        d.1,
        d.0,
        c.1 / d.1,
        c.1 / barrier
    );
    summary.target(
        "deque push+pop pair <= crossbeam-deque's (aim 0.5x)",
        format!(
            "{:.2}x crossbeam's ({:.1} ns vs {:.1} ns CPU)",
            a.1 / b.1,
            a.1,
            b.1
        ),
        summary.at_most(a.1 / b.1),
    );

    const N: u64 = 25;
    let joins = (workloads::fib_calls(N) - 1) / 2;
    let expected = workloads::fib_seq(N);
    let mut sequential = inf;
    for _ in 0..RUNS {
        sequential = min2(
            sequential,
            ns_per_op(joins, thread_cpu_time, || {
                assert_eq!(workloads::fib_seq(black_box(N)), expected)
            }),
        );
    }
    summary.row(
        &format!("[5] fib({N}) join overhead"),
        "sequential, no join",
        1,
        "CPU per join's worth of calls",
        sequential.1,
        "ns",
    );
    say!(
        "  fib({N}) with a join at every call ({joins} joins); without joins: {:.2} ns CPU per join's worth of calls",
        sequential.1
    );
    for threads in [1, 2] {
        let pool = ThreadPool::new(threads);
        let rayon = rayon_pool(threads);
        let (mut ours, mut theirs) = (inf, inf);
        // The joins run on the pools' threads: count the whole process's
        // CPU (the caller sleeps in `install`).
        for _ in 0..RUNS {
            ours = min2(
                ours,
                ns_per_op(joins, cpu_time, || {
                    assert_eq!(pool.install(|| workloads::fib(&pool, N)), expected)
                }),
            );
            theirs = min2(
                theirs,
                ns_per_op(joins, cpu_time, || {
                    assert_eq!(rayon.install(|| workloads::fib(&Rayon, N)), expected)
                }),
            );
        }
        // One thread: CPU time is the cost of a join. Two: wall time, since
        // CPU time counts the second worker's searching too.
        let (o, t, what) = if threads == 1 {
            (ours.1, theirs.1, "CPU")
        } else {
            (ours.0, theirs.0, "wall")
        };
        let scenario = format!("[5] fib({N}) join overhead, {threads} thread(s)");
        for (peer, (wall, cpu)) in [("stealpool", ours), ("rayon", theirs)] {
            summary.row(&scenario, peer, threads, "wall per join", wall, "ns");
            summary.row(&scenario, peer, threads, "CPU per join", cpu, "ns");
        }
        summary.compare(&scenario, "rayon", o, t, &format!("ns {what}"), Kind::Time);
        say!(
            "  join, {threads} thread(s) (ns per join, CPU / wall): stealpool {:.2} / {:.2}, rayon {:.2} / {:.2}; \
             ratio {:.2}x ({what}); {:.2}x the floor of {barrier:.2} ns (one barrier, which join's fast path no longer runs)",
            ours.1,
            ours.0,
            theirs.1,
            theirs.0,
            o / t,
            o / barrier
        );
        summary.target(
            format!("fib join overhead, {threads} thread(s): <= rayon's (aim 0.7x)"),
            format!("{:.2}x rayon's ({o:.1} ns vs {t:.1} ns, {what})", o / t),
            summary.at_most(o / t),
        );
    }
}

/// `join` against the fork-join peers, chili (heartbeat scheduling: a
/// `join` records the second half privately and only a heartbeat every
/// 100 µs makes it stealable) and rayon: fib(30) and the sum of a tree of
/// 2^22 - 1 nodes in both visiting orders (see [`Node`]), a `join` per call
/// or node, wall time, the fastest of `RUNS`, peers alternating. chili's `thread_count` counts the calling
/// thread, which works in its scope; the pools' callers wait in `install`.
fn fork_join_peers(summary: &mut Summary) {
    const RUNS: usize = 7;
    const N: u64 = 30;
    const LAYERS: u32 = 22;
    const PENDING_LIMIT: usize = 3;
    begin(
        summary,
        "[6]",
        format!(
            "fork-join against chili and rayon: fib({N}) and a tree of 2^{LAYERS} - 1 nodes, a join per call \
             or node, wall ns per join, the fastest of {RUNS}, peers alternating"
        ),
    );
    let fib_joins = (workloads::fib_calls(N) - 1) / 2;
    let fib_expected = workloads::fib_seq(N);
    let tree = Node::tree(LAYERS);
    let nodes = (1u64 << LAYERS) - 1;
    let tree_joins = nodes / 2;
    let inf = f64::INFINITY;
    let (mut seq_fib, mut seq_left, mut seq_right) = (inf, inf, inf);
    for _ in 0..RUNS {
        seq_fib = seq_fib.min(
            ns_per_op(fib_joins, cpu_time, || {
                assert_eq!(workloads::fib_seq(black_box(N)), fib_expected)
            })
            .0,
        );
        seq_left = seq_left.min(
            ns_per_op(tree_joins, cpu_time, || {
                assert_eq!(black_box(&tree).sum_seq::<false>(), nodes)
            })
            .0,
        );
        seq_right = seq_right.min(
            ns_per_op(tree_joins, cpu_time, || {
                assert_eq!(black_box(&tree).sum_seq::<true>(), nodes)
            })
            .0,
        );
    }
    for (workload, ns) in [
        ("[6] fib", seq_fib),
        ("[6] tree, left child first", seq_left),
        ("[6] tree, right child first", seq_right),
    ] {
        summary.row(
            workload,
            "sequential, no join",
            1,
            "wall per join's worth of work",
            ns,
            "ns",
        );
    }
    say!(
        "  sequential, no join: fib {seq_fib:.2} ns, tree {seq_left:.2} ns left child first, {seq_right:.2} ns \
         right child first, per join's worth of work"
    );
    for threads in [1, 2] {
        let pool = ThreadPool::new(threads);
        // F6: `join` runs inline past 3 pending halves while every worker
        // is busy, as chili's does past 3 recorded ones.
        let limited = ThreadPool::builder()
            .num_threads(threads)
            .max_pending_joins(PENDING_LIMIT)
            .build()
            .expect("the pool starts");
        let rayon = rayon_pool(threads);
        let chili = chili::ThreadPool::with_config(chili::Config {
            thread_count: std::num::NonZero::new(threads),
            ..chili::Config::default()
        });
        let mut best = [[inf; 4]; 3];
        // CPU per join too: on a loaded machine the wall time of a long,
        // memory-bound run (the left-first tree) mostly measures preemption.
        let mut best_cpu = [[inf; 4]; 3];
        for _ in 0..RUNS {
            let fib = [
                ns_per_op(fib_joins, cpu_time, || {
                    assert_eq!(pool.install(|| workloads::fib(&pool, N)), fib_expected)
                }),
                ns_per_op(fib_joins, cpu_time, || {
                    assert_eq!(limited.install(|| workloads::fib(&limited, N)), fib_expected)
                }),
                ns_per_op(fib_joins, cpu_time, || {
                    assert_eq!(rayon.install(|| workloads::fib(&Rayon, N)), fib_expected)
                }),
                ns_per_op(fib_joins, cpu_time, || {
                    assert_eq!(workloads::fib_chili(&mut chili.scope(), N), fib_expected)
                }),
            ];
            let left = tree_runs::<false>(&tree, nodes, [&pool, &limited], &rayon, &chili);
            let right = tree_runs::<true>(&tree, nodes, [&pool, &limited], &rayon, &chili);
            for peer in 0..4 {
                best[0][peer] = best[0][peer].min(fib[peer].0);
                best[1][peer] = best[1][peer].min(left[peer].0);
                best[2][peer] = best[2][peer].min(right[peer].0);
                best_cpu[0][peer] = best_cpu[0][peer].min(fib[peer].1);
                best_cpu[1][peer] = best_cpu[1][peer].min(left[peer].1);
                best_cpu[2][peer] = best_cpu[2][peer].min(right[peer].1);
            }
        }
        let workloads = [
            "fib",
            "tree, left child first",
            "tree, right child first (chili's own order)",
        ];
        for ((workload, [ours, limited, rayon, chili]), cpu) in workloads.iter().zip(best).zip(best_cpu) {
            let scenario = format!("[6] {workload}, {threads} thread(s)");
            for (peer, wall) in [
                ("stealpool", ours),
                ("stealpool, max_pending_joins(3)", limited),
                ("rayon", rayon),
                ("chili", chili),
            ] {
                summary.row(&scenario, peer, threads, "wall per join", wall, "ns");
            }
            summary.compare(&scenario, "rayon", ours, rayon, "ns", Kind::Time);
            summary.compare(&scenario, "chili", ours, chili, "ns", Kind::Time);
            // CPU per join: what other load disturbs least (on two
            // workers, the work of both).
            let cpu_scenario = format!("{scenario}, CPU");
            summary.compare(&cpu_scenario, "rayon", cpu[0], cpu[2], "ns", Kind::Time);
            summary.compare(&cpu_scenario, "chili", cpu[0], cpu[3], "ns", Kind::Time);
            say!(
                "  {workload}, {threads} thread(s): stealpool {ours:.2}, rayon {rayon:.2}, chili {chili:.2} ns per \
                 join; stealpool {:.2}x rayon's, {:.2}x chili's; with max_pending_joins({PENDING_LIMIT}) {limited:.2} \
                 ns, {:.2}x chili's",
                ours / rayon,
                ours / chili,
                limited / chili
            );
            say!(
                "    CPU per join: stealpool {:.2}, max_pending_joins({PENDING_LIMIT}) {:.2}, rayon {:.2}, chili {:.2} \
                 ns; stealpool {:.2}x rayon's, {:.2}x chili's, max_pending_joins({PENDING_LIMIT}) {:.2}x chili's",
                cpu[0],
                cpu[1],
                cpu[2],
                cpu[3],
                cpu[0] / cpu[2],
                cpu[0] / cpu[3],
                cpu[1] / cpu[3]
            );
        }
    }
    short_regions(summary);
    region_speedups(summary);
}

/// One run of the tree sum on each fork-join peer, all visiting the
/// children in the same order: (wall, CPU) ns per join. The sum is the
/// number of `nodes`.
fn tree_runs<const RIGHT_FIRST: bool>(
    tree: &Node,
    nodes: u64,
    pools: [&ThreadPool; 2],
    rayon: &rayon::ThreadPool,
    chili: &chili::ThreadPool,
) -> [(f64, f64); 4] {
    let joins = nodes / 2;
    let on = |pool: &ThreadPool| {
        ns_per_op(joins, cpu_time, || {
            assert_eq!(pool.install(|| tree.sum::<RIGHT_FIRST, _>(pool)), nodes)
        })
    };
    [
        on(pools[0]),
        on(pools[1]),
        ns_per_op(joins, cpu_time, || {
            assert_eq!(rayon.install(|| tree.sum::<RIGHT_FIRST, _>(&Rayon)), nodes)
        }),
        ns_per_op(joins, cpu_time, || {
            assert_eq!(tree.sum_chili::<RIGHT_FIRST>(&mut chili.scope()), nodes)
        }),
    ]
}

/// How long `f` took.
fn wall_of(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// A balanced `join` tree of `2^depth` leaves, each spinning for `leaf`.
fn region<F: workloads::Fork>(fork: &F, depth: u32, leaf: Duration) {
    if depth == 0 {
        spin_for(leaf);
    } else {
        fork.fork(|f| region(f, depth - 1, leaf), |f| region(f, depth - 1, leaf));
    }
}

/// `region` on chili, whose `join` hands each half the scope.
fn region_chili(scope: &mut chili::Scope<'_>, depth: u32, leaf: Duration) {
    if depth == 0 {
        spin_for(leaf);
    } else {
        scope.join(
            |s| region_chili(s, depth - 1, leaf),
            |s| region_chili(s, depth - 1, leaf),
        );
    }
}

/// A short parallel region from an idle pool: a `join` tree of 64 leaves
/// whose spinning adds up to `total`, 2 threads, 2 ms idle before each
/// sample; the speedup is `total` over the region's wall time (2.0 is
/// perfect), median and worst of the samples, peers taking turns.
fn region_speedups(summary: &mut Summary) {
    const SAMPLES: usize = 60;
    const DEPTH: u32 = 6;
    say!(
        "  short regions from an idle pool: a join tree of {} leaves, 2 threads, {SAMPLES} samples per peer, \
         2 ms idle before each; speedup = work / wall (2.0 is perfect), median (worst)",
        1u32 << DEPTH
    );
    let pool = ThreadPool::new(2);
    let rayon = rayon_pool(2);
    let chili = chili::ThreadPool::with_config(chili::Config {
        thread_count: std::num::NonZero::new(2),
        ..chili::Config::default()
    });
    for total in [Duration::from_micros(100), Duration::from_millis(1)] {
        let leaf = total / (1u32 << DEPTH);
        let mut walls: [Vec<Duration>; 3] = Default::default();
        for _ in 0..SAMPLES {
            thread::sleep(Duration::from_millis(2));
            walls[0].push(wall_of(|| pool.install(|| region(&pool, DEPTH, leaf))));
            thread::sleep(Duration::from_millis(2));
            walls[1].push(wall_of(|| rayon.install(|| region(&Rayon, DEPTH, leaf))));
            thread::sleep(Duration::from_millis(2));
            walls[2].push(wall_of(|| region_chili(&mut chili.scope(), DEPTH, leaf)));
        }
        let scenario = format!(
            "[6] short region, {:.0} us of work, 2 threads (median wall)",
            total.as_secs_f64() * 1e6
        );
        let mut medians = [0.0; 3];
        let speedups: Vec<String> = ["stealpool", "rayon", "chili"]
            .iter()
            .zip(&mut walls)
            .zip(&mut medians)
            .map(|((name, walls), median)| {
                walls.sort();
                *median = quantile(walls, 0.5).as_secs_f64() * 1e6;
                summary.row(&scenario, name, 2, "median wall", *median, "us");
                summary.row(
                    &scenario,
                    name,
                    2,
                    "worst wall",
                    walls[walls.len() - 1].as_secs_f64() * 1e6,
                    "us",
                );
                let speedup =
                    |wall: Duration| cli::fixed(cli::ratio(total.as_secs_f64(), wall.as_secs_f64()), 2);
                format!(
                    "{name} {} ({})",
                    speedup(quantile(walls, 0.5)),
                    speedup(walls[walls.len() - 1])
                )
            })
            .collect();
        summary.compare(&scenario, "rayon", medians[0], medians[1], "us", Kind::Time);
        summary.compare(&scenario, "chili", medians[0], medians[2], "us", Kind::Time);
        say!(
            "    {:>6.0} us of work: {}",
            total.as_secs_f64() * 1e6,
            speedups.join(", ")
        );
    }
}

/// A peer's `join` of two borrowed halves.
type JoinHalves<'a> = dyn FnMut(&(dyn Fn() + Sync), &(dyn Fn() + Sync)) + 'a;

/// How long after a `join` the half its caller does not run starts on
/// another, idle worker, when the caller's half does not return until it has
/// (a short parallel region: that half spins, up to `GIVE_UP`, and never
/// joins again). rayon and this pool run the first half on the caller,
/// chili the second; each half looks at the thread it runs on. One sample:
/// the time from the call to the other half's first instruction, or `None`
/// if no other thread took it.
fn other_half_latency(join: &mut JoinHalves<'_>) -> Option<Duration> {
    const GIVE_UP: Duration = Duration::from_millis(10);
    let caller = thread::current().id();
    let started = AtomicU64::new(0);
    let start = Instant::now();
    let half = || {
        if thread::current().id() == caller {
            while started.load(Ordering::Acquire) == 0 && start.elapsed() < GIVE_UP {
                std::hint::spin_loop();
            }
        } else {
            started.store(start.elapsed().as_nanos() as u64 + 1, Ordering::Release);
        }
    };
    join(&half, &half);
    match started.load(Ordering::Acquire) {
        0 => None,
        ns => Some(Duration::from_nanos(ns - 1)),
    }
}

/// `other_half_latency` on each peer, 2 threads, workers idle for 5 ms
/// before each sample, peers taking turns.
fn short_regions(summary: &mut Summary) {
    const SAMPLES: usize = 100;
    say!(
        "  a short region: join -> the half its caller does not run starting on an idle worker, 2 threads, the \
         caller's half spinning until then (up to 10 ms, no join of its own); {SAMPLES} samples per peer, \
         5 ms idle before each"
    );
    let pool = ThreadPool::new(2);
    let rayon = rayon_pool(2);
    let chili = chili::ThreadPool::with_config(chili::Config {
        thread_count: std::num::NonZero::new(2),
        ..chili::Config::default()
    });
    let mut samples: [Vec<Option<Duration>>; 3] = Default::default();
    for _ in 0..SAMPLES {
        thread::sleep(Duration::from_millis(5));
        samples[0].push(pool.install(|| {
            other_half_latency(&mut |a, b| {
                pool.join(a, b);
            })
        }));
        thread::sleep(Duration::from_millis(5));
        samples[1].push(rayon.install(|| {
            other_half_latency(&mut |a, b| {
                rayon::join(a, b);
            })
        }));
        thread::sleep(Duration::from_millis(5));
        let mut scope = chili.scope();
        samples[2].push(other_half_latency(&mut |a, b| {
            scope.join(|_| a(), |_| b());
        }));
    }
    let scenario = "[6] join -> other half starts on an idle worker, p50";
    let mut p50 = [f64::NAN; 3];
    for ((name, samples), p50) in ["stealpool", "rayon", "chili"].iter().zip(samples).zip(&mut p50) {
        let mut taken: Vec<Duration> = samples.iter().flatten().copied().collect();
        taken.sort();
        let missed = SAMPLES - taken.len();
        summary.row(
            scenario,
            name,
            2,
            "not taken within 10 ms",
            missed as f64,
            "samples",
        );
        if !taken.is_empty() {
            *p50 = quantile(&taken, 0.5).as_secs_f64() * 1e6;
            summary.row(scenario, name, 2, "p50", *p50, "us");
            summary.row(
                scenario,
                name,
                2,
                "p99",
                quantile(&taken, 0.99).as_secs_f64() * 1e6,
                "us",
            );
        }
        if taken.is_empty() {
            say!("    {name:<10} never taken by another thread within 10 ms ({missed} of {SAMPLES})");
        } else {
            say!(
                "    {name:<10} p50 {:>7.1} us, p99 {:>7.1} us; not taken within 10 ms: {missed} of {SAMPLES}",
                quantile(&taken, 0.5).as_secs_f64() * 1e6,
                quantile(&taken, 0.99).as_secs_f64() * 1e6
            );
        }
    }
    summary.compare(scenario, "rayon", p50[0], p50[1], "us", Kind::Time);
    summary.compare(scenario, "chili", p50[0], p50[2], "us", Kind::Time);
}

/// CPU use of the process while nothing is submitted, as % of one core.
fn idle_cpu(settle: Duration, window: Duration) -> f64 {
    thread::sleep(settle);
    let cpu0 = cpu_time();
    thread::sleep(window);
    cpu_time().saturating_sub(cpu0).as_secs_f64() * 100.0 / window.as_secs_f64()
}

/// Spawns a few tasks and waits, so the pool's threads have run and gone
/// idle again, as in a real program between bursts.
fn warm(spawn: &dyn Fn(Box<dyn FnOnce() + Send>)) {
    let done = Arc::new(Countdown::new(100));
    for i in 0..100 {
        let done = done.clone();
        spawn(Box::new(move || {
            micro(i);
            done.count_down();
        }));
    }
    done.wait();
}

/// Idle CPU this low (% of a core) is level with anything as low: a
/// second's window catches a few ticks at most.
const IDLE: Kind = Kind::Cpu { floor: 0.05 };

fn idle(summary: &mut Summary) {
    const SAMPLES: usize = 150;
    let gap = Duration::from_millis(5);
    let w = workers();
    begin(
        summary,
        "[7]",
        format!(
            "idle pool, {w} workers: submit -> first instruction of the task ({SAMPLES} samples per peer, \
             peers taking turns, {gap:?} idle before each); CPU of the process while only that pool idles"
        ),
    );
    say!(
        "  {:<28} {:>10} {:>10} {:>10} {:>14}",
        "peer",
        "p50 us",
        "p99 us",
        "max us",
        "idle CPU %core"
    );
    let us = |d: Duration| d.as_secs_f64() * 1e6;

    let ours = ThreadPool::new(w);
    let rayon = rayon_pool(w);
    let baseline = MutexPool::new(w);
    type Submit<'a> = Box<dyn Fn(Box<dyn FnOnce() + Send>) + 'a>;
    let peers: [(&str, Submit<'_>); 4] = [
        ("stealpool, spawn", Box::new(|task| ours.spawn(task))),
        ("rayon, spawn", Box::new(|task| rayon.spawn(task))),
        ("mutex pool, spawn", Box::new(|task| baseline.spawn(task))),
        (
            "std::thread::spawn",
            Box::new(|task| {
                thread::spawn(task);
            }),
        ),
    ];
    let mut latencies: Vec<Vec<Duration>> = vec![Vec::with_capacity(SAMPLES); peers.len()];
    // Taking turns sample by sample: a burst of other load hits every peer.
    for _ in 0..SAMPLES {
        for ((_, submit), samples) in peers.iter().zip(&mut latencies) {
            samples.push(wake_latency_once(gap, submit));
        }
    }
    drop(peers);
    drop((ours, rayon, baseline));

    // Idle CPU, one pool alive at a time.
    let settle = Duration::from_millis(300);
    let window = Duration::from_secs(1);
    let ours_cpu = {
        let pool = ThreadPool::new(w);
        warm(&|task| pool.spawn(task));
        idle_cpu(settle, window)
    };
    let rayon_cpu = {
        let pool = rayon_pool(w);
        warm(&|task| pool.spawn(task));
        idle_cpu(settle, window)
    };
    let baseline_cpu = {
        let pool = MutexPool::new(w);
        warm(&|task| pool.spawn(task));
        idle_cpu(settle, window)
    };
    let names = [
        "stealpool, spawn",
        "rayon, spawn",
        "mutex pool, spawn",
        "std::thread::spawn",
    ];
    // A thread per task leaves nothing idle behind: no figure.
    let cpus = [ours_cpu, rayon_cpu, baseline_cpu, f64::NAN];
    let latency = format!("[7] wake-up latency p50, {w} workers");
    let idle_cpu = format!("[7] idle pool CPU, {w} workers");
    for ((name, samples), cpu) in names.iter().zip(&mut latencies).zip(cpus) {
        samples.sort();
        let (p50, p99, max) = (
            us(quantile(samples, 0.5)),
            us(quantile(samples, 0.99)),
            us(*samples.last().unwrap()),
        );
        summary.row(&latency, name, w, "p50", p50, "us");
        summary.row(&latency, name, w, "p99", p99, "us");
        summary.row(&latency, name, w, "max", max, "us");
        summary.row(&idle_cpu, name, w, "idle CPU", cpu, "% of a core");
        say!(
            "  {name:<28} {p50:>10.1} {p99:>10.1} {max:>10.1} {:>14}",
            cli::fixed(cpu, 2)
        );
    }
    let p50 = |i: usize| us(quantile(&latencies[i], 0.5));
    summary.compare(&latency, "rayon", p50(0), p50(1), "us", Kind::Time);
    summary.compare(&latency, "mutex pool", p50(0), p50(2), "us", Kind::Time);
    summary.compare(&idle_cpu, "rayon", ours_cpu, rayon_cpu, "% core", IDLE);
    summary.compare(&idle_cpu, "mutex pool", ours_cpu, baseline_cpu, "% core", IDLE);

    let (p50, rayon_p50) = (quantile(&latencies[0], 0.5), quantile(&latencies[1], 0.5));
    summary.target(
        "wake-up latency p50 <= rayon's",
        format!("{:.1} us vs {:.1} us", us(p50), us(rayon_p50)),
        summary.at_most(cli::ratio(p50.as_secs_f64(), rayon_p50.as_secs_f64())),
    );
    summary.target(
        "idle pool CPU < 0.5% of a core",
        format!("{ours_cpu:.2}% (rayon {rayon_cpu:.2}%)"),
        status(ours_cpu < 0.5),
    );
}

/// The report's command line.
const OPTIONS: &[cli::Opt] = &[
    cli::opt(
        "rounds",
        "N",
        "runs per peer in sections [1]-[4], the best kept (default 3)",
    ),
    cli::switch(
        "fork-join",
        "run section [6] (fork-join against chili and rayon) alone",
    ),
    cli::switch(
        "external",
        "run section [4] (spawns from 8 threads outside the pool) alone",
    ),
    cli::switch(
        "many",
        "run section [8] alone: 8, 16 and 64 workers against rayon with as many threads",
    ),
    cli::switch(
        "bounded-pool",
        "run spawn (inside tasks) and fib on a pool without and with bounded_steals against rayon, alone",
    ),
    cli::switch(
        "par-iter",
        "run the parallel iterators against rayon's alone (its own table)",
    ),
    cli::opt(
        "csv",
        "PATH",
        "also write every measured figure and every comparison to PATH as CSV",
    ),
    cli::opt(
        "noise",
        "PERCENT",
        "ratios within 1 +- PERCENT% are \"within noise\" (default 3)",
    ),
];

const ABOUT: &str =
    "The benchmark report: stealpool against rayon, chili, crossbeam-deque, std::thread and a \
mutex pool,\nsummary and verdicts first; an SVG chart of the ratios is written under target/.";

fn main() {
    let args = cli::Args::parse(ABOUT, OPTIONS);
    let rounds: usize = args.get("rounds", 3);
    let noise: f64 = args.get("noise", 3.0);
    if rounds == 0 || !(0.0..100.0).contains(&noise) {
        eprintln!("report: --rounds must be at least 1 and --noise a percentage below 100");
        std::process::exit(2);
    }
    let mut summary = Summary::new(noise / 100.0);
    // A failed check panics: show what was measured up to it.
    struct FlushOnPanic;
    impl Drop for FlushOnPanic {
        fn drop(&mut self) {
            if thread::panicking() {
                flush_details();
            }
        }
    }
    let _flush = FlushOnPanic;
    let start = Instant::now();
    println!("stealpool benchmark report (best of {rounds} rounds, peers interleaved)");
    machine();
    if args.has("bounded-pool") {
        // The pool on bounded deques, off and on, against rayon, alone.
        bounded_pool::run(rounds);
        return;
    }
    if args.has("par-iter") {
        // The parallel iterators against rayon's, alone.
        par_iter_bench::run(rounds);
        return;
    }
    if args.has("many") {
        // More workers than cores, alone: not part of the default report.
        many::oversubscribed(rounds, &mut summary);
    } else if args.has("external") {
        // Section [4] alone: the injectors' path from outside.
        scenario_external(rounds, &mut summary);
    } else if args.has("fork-join") {
        // Section [6] alone, for iterating on `join`.
        fork_join_peers(&mut summary);
    } else {
        scenario_micro(rounds, &mut summary);
        scenario_quicksort(rounds, &mut summary);
        scenario_mix(rounds, &mut summary);
        scenario_external(rounds, &mut summary);
        primitives(&mut summary);
        fork_join_peers(&mut summary);
        idle(&mut summary);
    }

    println!();
    print!("{}", summary.table());
    let chart = cli::output_path("report-ratios.svg");
    match summary.chart(&chart) {
        Ok(()) => println!("chart of these ratios: {}", chart.display()),
        Err(error) => println!("no chart: {error}"),
    }
    if let Some(path) = args.get_opt::<String>("csv") {
        match std::fs::write(&path, summary.csv()) {
            Ok(()) => println!(
                "every measured figure ({} rows) and comparison: {path}",
                summary.rows().len()
            ),
            Err(error) => {
                eprintln!("report: cannot write {path}: {error}");
                std::process::exit(1);
            }
        }
    }
    if !summary.targets().is_empty() {
        println!("\ntargets, as measured in this run:");
        for (target, measured, status) in summary.targets() {
            println!("  [{status}] {target}: {measured}");
        }
        println!(
            "  [not measured here] allocations: 0 per join, <= 1 per spawn/submit: \
             cargo test --release --test allocations -- --nocapture"
        );
    }
    println!("\nthe sections in full (time/ours > 1: slower than stealpool):");
    flush_details();
    println!(
        "\nload average at end: {}; report took {:.1} s",
        load_average(),
        start.elapsed().as_secs_f64()
    );
    if cfg!(debug_assertions) {
        println!("(a debug build: run with --release for meaningful numbers)");
    }
}
