//! The oversubscribed section (`--many`): pools of 8, 16 and 64 workers on
//! whatever cores the machine has, against rayon with the same thread
//! count, in the same process, peers taking turns round by round.
//!
//! What it can show: what more workers than cores cost each pool's own
//! paths — the search of more victims, the sleep and wake-up of more
//! sleepers, a submission reaching one of many sleeping workers, the idle
//! threads' CPU. What it cannot show: parallel speed-up, or contention
//! between workers that really run at the same time (two cores run at most
//! two of them at once), nor the cache-line traffic of many sockets.

use super::{cpu_time, ns_per_op, rayon_pool, run_external, summary, warm, workloads};
use std::time::Duration;
use stealpool::ThreadPool;
use summary::{Kind, Summary};
use workloads::{quantile, wake_latency_once, Rayon};

/// Worker counts measured.
const THREADS: [usize; 3] = [8, 16, 64];

/// Submit-to-start samples per peer and worker count.
const SAMPLES: usize = 60;

/// What one peer measured at one worker count, each the best (or, for the
/// latency, the quantile) over the rounds.
struct Figures {
    one_submitter: f64,
    eight_submitters: f64,
    fib: f64,
    /// CPU of the whole process per join: searching and waking workers
    /// included.
    fib_cpu: f64,
    wake: Vec<Duration>,
    idle_cpu: f64,
}

impl Figures {
    fn new() -> Figures {
        Figures {
            one_submitter: f64::INFINITY,
            eight_submitters: f64::INFINITY,
            fib: f64::INFINITY,
            fib_cpu: f64::INFINITY,
            wake: Vec::with_capacity(SAMPLES),
            idle_cpu: f64::INFINITY,
        }
    }
}

/// Spawn throughput, fib join, wake-up latency and idle CPU of this pool
/// and rayon's at each of [`THREADS`] workers.
pub(super) fn oversubscribed(rounds: usize, summary: &mut Summary) {
    const ONE: usize = 100_000;
    const EIGHT: usize = 400_000;
    const FIB: u64 = 30;
    let cores = super::workers();
    super::begin(
        summary,
        "[8]",
        format!(
            "oversubscribed: {THREADS:?} workers on {cores} core(s), stealpool against rayon with as many threads; \
             {ONE} spawns from one outside thread, {EIGHT} from 8, fib({FIB}) by join (wall ns per task or join, and the process's CPU per \
             join, the best of {rounds}); submit -> start of a task on the idle pool ({SAMPLES} samples, 5 ms idle before \
             each); process CPU over 200 ms of idling"
        ),
    );
    say!(
        "  {:<10} {:>7} {:>13} {:>13} {:>11} {:>11} {:>9} {:>9} {:>12}",
        "pool",
        "workers",
        "1 subm ns/t",
        "8 subm ns/t",
        "fib ns/join",
        "fib CPU ns",
        "wake p50",
        "wake p99",
        "idle %core"
    );
    let fib_joins = (workloads::fib_calls(FIB) - 1) / 2;
    let fib_expected = workloads::fib_seq(FIB);
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    for threads in THREADS {
        let ours = ThreadPool::new(threads);
        let rayon = rayon_pool(threads);
        let mut figures = [Figures::new(), Figures::new()];
        for _ in 0..rounds {
            let wall = |f: &dyn Fn()| {
                let start = std::time::Instant::now();
                f();
                start.elapsed().as_secs_f64() * 1e9
            };
            let one = [
                wall(&|| {
                    run_external(1, ONE, &|task| ours.spawn(task));
                }) / ONE as f64,
                wall(&|| run_external(1, ONE, &|task| rayon.spawn(task))) / ONE as f64,
            ];
            let eight = [
                wall(&|| run_external(8, EIGHT / 8, &|task| ours.spawn(task))) / EIGHT as f64,
                wall(&|| run_external(8, EIGHT / 8, &|task| rayon.spawn(task))) / EIGHT as f64,
            ];
            let fib = [
                ns_per_op(fib_joins, cpu_time, || {
                    assert_eq!(ours.install(|| workloads::fib(&ours, FIB)), fib_expected)
                }),
                ns_per_op(fib_joins, cpu_time, || {
                    assert_eq!(rayon.install(|| workloads::fib(&Rayon, FIB)), fib_expected)
                }),
            ];
            for (i, f) in figures.iter_mut().enumerate() {
                f.one_submitter = f.one_submitter.min(one[i]);
                f.eight_submitters = f.eight_submitters.min(eight[i]);
                f.fib = f.fib.min(fib[i].0);
                f.fib_cpu = f.fib_cpu.min(fib[i].1);
            }
        }
        ours.wait_all();
        // Taking turns sample by sample: a burst of other load hits both.
        for _ in 0..SAMPLES {
            figures[0]
                .wake
                .push(wake_latency_once(Duration::from_millis(5), &|task| {
                    ours.spawn(task)
                }));
            figures[1]
                .wake
                .push(wake_latency_once(Duration::from_millis(5), &|task| {
                    rayon.spawn(task)
                }));
        }
        // Idle CPU: the other pool is idle too, and long asleep; the best of
        // two windows each, taking turns.
        for _ in 0..2 {
            warm(&|task| ours.spawn(task));
            figures[0].idle_cpu = figures[0].idle_cpu.min(super::idle_cpu(
                Duration::from_millis(50),
                Duration::from_millis(200),
            ));
            warm(&|task| rayon.spawn(task));
            figures[1].idle_cpu = figures[1].idle_cpu.min(super::idle_cpu(
                Duration::from_millis(50),
                Duration::from_millis(200),
            ));
        }
        let scenario = |what: &str| format!("[8] {what}, {threads} workers on {cores} core(s)");
        for (name, f) in ["stealpool", "rayon"].iter().zip(&mut figures) {
            f.wake.sort();
            let (p50, p99) = (us(quantile(&f.wake, 0.5)), us(quantile(&f.wake, 0.99)));
            say!(
                "  {name:<10} {threads:>7} {:>13.1} {:>13.1} {:>11.2} {:>11.2} {p50:>9.1} {p99:>9.1} {:>12.2}",
                f.one_submitter,
                f.eight_submitters,
                f.fib,
                f.fib_cpu,
                f.idle_cpu
            );
            summary.row(
                &scenario("spawn, 1 submitter"),
                name,
                threads,
                "wall per task",
                f.one_submitter,
                "ns",
            );
            summary.row(
                &scenario("spawn, 8 submitters"),
                name,
                threads,
                "wall per task",
                f.eight_submitters,
                "ns",
            );
            summary.row(&scenario("fib join"), name, threads, "wall per join", f.fib, "ns");
            summary.row(
                &scenario("fib join"),
                name,
                threads,
                "CPU per join",
                f.fib_cpu,
                "ns",
            );
            summary.row(&scenario("wake-up latency"), name, threads, "p50", p50, "us");
            summary.row(&scenario("wake-up latency"), name, threads, "p99", p99, "us");
            summary.row(
                &scenario("idle CPU"),
                name,
                threads,
                "idle CPU",
                f.idle_cpu,
                "% of a core",
            );
        }
        let [o, r] = &figures;
        summary.compare(
            &scenario("spawn, 1 submitter"),
            "rayon",
            o.one_submitter,
            r.one_submitter,
            "ns",
            Kind::Time,
        );
        summary.compare(
            &scenario("spawn, 8 submitters"),
            "rayon",
            o.eight_submitters,
            r.eight_submitters,
            "ns",
            Kind::Time,
        );
        summary.compare(&scenario("fib join"), "rayon", o.fib, r.fib, "ns", Kind::Time);
        summary.compare(
            &scenario("fib join, CPU"),
            "rayon",
            o.fib_cpu,
            r.fib_cpu,
            "ns",
            Kind::Time,
        );
        let p = |f: &Figures, q| us(quantile(&f.wake, q));
        summary.compare(
            &scenario("wake-up latency p50"),
            "rayon",
            p(o, 0.5),
            p(r, 0.5),
            "us",
            Kind::Time,
        );
        summary.compare(
            &scenario("wake-up latency p99"),
            "rayon",
            p(o, 0.99),
            p(r, 0.99),
            "us",
            Kind::Time,
        );
        summary.compare(
            &scenario("idle CPU"),
            "rayon",
            o.idle_cpu,
            r.idle_cpu,
            "% core",
            super::IDLE,
        );
    }
}
