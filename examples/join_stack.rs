//! How much worker stack one level of fork-join recursion costs, for
//! stealpool and for rayon, and how deep each recursion gets on the default
//! worker stack (std's default for spawned threads: 2 MiB), on 2 workers.
//!
//! ```sh
//! cargo run --release --example join_stack
//! ```
//!
//! The recursion is `deep(n) = join(|| deep(n - 1), || 1)`. The first closure
//! always runs on the calling worker (only the second is pushed where a thief
//! may take it), so the whole chain of `a` halves is on one worker's stack;
//! the example checks that the two addresses it compares come from the same
//! thread. Bytes per level = (address of a local at depth `LEVELS` - the
//! same at depth 0) / `LEVELS`.
//!
//! The deepest recursion that fits is found by running this executable again
//! as a child (`--probe POOL --depth DEPTH`): a stack overflow aborts the
//! process, so the parent only looks at the child's exit status.

#[path = "common/cli.rs"]
mod cli;

use std::hint::black_box;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Levels between the two measured addresses.
const LEVELS: usize = 1000;
/// Measurements per pool.
const RUNS: usize = 9;
const WORKERS: usize = 2;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pool {
    Stealpool,
    Rayon,
}

impl Pool {
    const ALL: [Pool; 2] = [Pool::Stealpool, Pool::Rayon];

    fn name(self) -> &'static str {
        match self {
            Pool::Stealpool => "stealpool",
            Pool::Rayon => "rayon",
        }
    }

    fn parse(name: &str) -> Option<Pool> {
        Pool::ALL.into_iter().find(|pool| pool.name() == name)
    }
}

/// Where the recursion was at depth `top` and at depth 0.
struct Record {
    top: usize,
    top_address: AtomicUsize,
    top_thread: AtomicUsize,
    bottom_address: AtomicUsize,
    bottom_thread: AtomicUsize,
}

impl Record {
    fn new(top: usize) -> Self {
        Record {
            top,
            top_address: AtomicUsize::new(0),
            top_thread: AtomicUsize::new(0),
            bottom_address: AtomicUsize::new(0),
            bottom_thread: AtomicUsize::new(0),
        }
    }

    /// Called at every level, before forking.
    #[inline(always)]
    fn visit(&self, n: usize) {
        if n == self.top {
            self.top_address.store(stack_address(), Relaxed);
            self.top_thread.store(thread_mark(), Relaxed);
        }
        if n == 0 {
            self.bottom_address.store(stack_address(), Relaxed);
            self.bottom_thread.store(thread_mark(), Relaxed);
        }
    }

    /// Bytes per level, or `None` if the two ends ran on different threads.
    fn bytes_per_level(&self) -> Option<f64> {
        let (top, bottom) = (self.top_address.load(Relaxed), self.bottom_address.load(Relaxed));
        let same_thread = self.top_thread.load(Relaxed) == self.bottom_thread.load(Relaxed);
        (same_thread && top > bottom && self.top > 0).then(|| (top - bottom) as f64 / self.top as f64)
    }
}

/// The address of a local in a frame of its own, called from `deep`'s frame:
/// a fixed offset from that frame at every level.
#[inline(never)]
fn stack_address() -> usize {
    let x = 0u8;
    black_box(&x) as *const u8 as usize
}

/// An address unique to the current thread.
fn thread_mark() -> usize {
    thread_local!(static MARK: u8 = const { 0 });
    MARK.with(|mark| mark as *const u8 as usize)
}

fn deep_stealpool(pool: &stealpool::ThreadPool, n: usize, record: &Record) -> usize {
    record.visit(n);
    if n == 0 {
        return 0;
    }
    let (a, b) = pool.join(|| deep_stealpool(pool, n - 1, record), || 1);
    a + b
}

fn deep_rayon(n: usize, record: &Record) -> usize {
    record.visit(n);
    if n == 0 {
        return 0;
    }
    let (a, b) = rayon::join(|| deep_rayon(n - 1, record), || 1);
    a + b
}

/// Either pool, built once.
enum Built {
    Stealpool(stealpool::ThreadPool),
    Rayon(rayon::ThreadPool),
}

impl Built {
    fn new(pool: Pool) -> Built {
        // No stack size set: both use std's default for spawned threads.
        match pool {
            Pool::Stealpool => Built::Stealpool(stealpool::ThreadPool::new(WORKERS)),
            Pool::Rayon => Built::Rayon(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(WORKERS)
                    .build()
                    .expect("rayon pool"),
            ),
        }
    }

    /// Runs `deep(depth)` on a worker.
    fn run(&self, depth: usize, record: &Record) -> usize {
        match self {
            Built::Stealpool(pool) => pool.install(|| deep_stealpool(pool, depth, record)),
            Built::Rayon(pool) => pool.install(|| deep_rayon(depth, record)),
        }
    }
}

/// Child mode: run `deep(depth)` once and exit 0 if it returned.
fn probe(pool: Pool, depth: usize) -> ! {
    let built = Built::new(pool);
    let record = Record::new(depth);
    let sum = built.run(depth, &record);
    assert_eq!(sum, depth);
    println!("ok {} {depth}", pool.name());
    std::process::exit(0)
}

enum Outcome {
    Completed,
    Overflowed,
    /// Died some other way: reported, and counted as a failure.
    Failed(String),
}

fn run_probe(pool: Pool, depth: usize) -> Outcome {
    let output = Command::new(std::env::current_exe().expect("current_exe"))
        .args(["--probe", pool.name(), "--depth", &depth.to_string()])
        // The default worker stack, whatever this shell says.
        .env_remove("RUST_MIN_STACK")
        .stdin(Stdio::null())
        .output()
        .expect("cannot run the probe child");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        Outcome::Completed
    } else if stderr.contains("overflowed its stack") {
        Outcome::Overflowed
    } else {
        Outcome::Failed(format!("{}: {}", output.status, stderr.trim()))
    }
}

/// `(deepest depth that completed, first depth that failed)`: doubling from
/// 256, then bisecting to a single level.
fn find_limit(pool: Pool) -> (usize, usize) {
    let fails = |depth| match run_probe(pool, depth) {
        Outcome::Completed => false,
        Outcome::Overflowed => true,
        Outcome::Failed(why) => {
            eprintln!(
                "  {} at depth {depth} failed without a stack overflow: {why}",
                pool.name()
            );
            true
        }
    };
    let mut ok = 0;
    let mut bad = 256;
    while !fails(bad) {
        ok = bad;
        bad *= 2;
        assert!(bad <= 1 << 24, "{} never overflows?", pool.name());
    }
    while bad - ok > 1 {
        let mid = ok + (bad - ok) / 2;
        if fails(mid) {
            bad = mid;
        } else {
            ok = mid;
        }
    }
    (ok, bad)
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

fn main() {
    let args = cli::Args::parse(
        "Worker stack per level of fork-join recursion, and the deepest recursion that fits, for \
         stealpool and rayon.",
        &[
            // `--check DEPTH`: the CI gate. Fails unless stealpool costs no
            // more stack per level than rayon and a recursion DEPTH deep
            // completes on the default worker stack.
            cli::opt(
                "check",
                "DEPTH",
                "exit 1 unless stealpool uses no more stack per level than rayon and DEPTH levels fit",
            ),
            cli::switch("no-limits", "skip the search for the deepest recursion that fits"),
            cli::opt(
                "probe",
                "POOL",
                "(internal) recurse --depth levels on POOL (stealpool or rayon)",
            ),
            cli::opt("depth", "DEPTH", "(internal) with --probe"),
        ],
    );
    if let Some(name) = args.get_opt::<String>("probe") {
        let Some(pool) = Pool::parse(&name) else {
            eprintln!("--probe: stealpool or rayon, not {name:?}");
            std::process::exit(2)
        };
        let Some(depth) = args.get_opt("depth") else {
            eprintln!("--probe needs --depth");
            std::process::exit(2)
        };
        probe(pool, depth);
    }
    let check: Option<usize> = args.get_opt("check");
    let skip_limits = check.is_some() || args.has("no-limits");

    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "join_stack: {profile} build, {WORKERS} workers, default worker stack, {LEVELS} levels x {RUNS} runs"
    );
    if let Ok(value) = std::env::var("RUST_MIN_STACK") {
        println!("(RUST_MIN_STACK={value} here; removed for the depth probes)");
    }

    let mut rows = Vec::new();
    for pool in Pool::ALL {
        let built = Built::new(pool);
        let mut samples = Vec::new();
        let mut migrated = 0;
        for _ in 0..RUNS {
            let record = Record::new(LEVELS);
            assert_eq!(built.run(LEVELS, &record), LEVELS);
            match record.bytes_per_level() {
                Some(bytes) => samples.push(bytes),
                None => migrated += 1,
            }
        }
        drop(built);
        samples.sort_by(f64::total_cmp);
        println!(
            "{:<9}  bytes/level samples: {:?}{}",
            pool.name(),
            samples,
            if migrated > 0 {
                format!(" ({migrated} runs crossed threads, dropped)")
            } else {
                String::new()
            }
        );
        rows.push((pool, samples));
    }

    println!();
    println!("| pool | bytes per level (min / median) | deepest depth completed | first depth overflowed |");
    println!("|---|---|---|---|");
    for (pool, samples) in &rows {
        let bytes = match samples.as_slice() {
            [] => "n/a".to_string(),
            s => format!("{:.1} / {:.1}", s[0], median(s)),
        };
        let (ok, bad) = if skip_limits { (0, 0) } else { find_limit(*pool) };
        let show = |d: usize| {
            if skip_limits {
                "-".to_string()
            } else {
                d.to_string()
            }
        };
        println!("| {} | {} | {} | {} |", pool.name(), bytes, show(ok), show(bad));
    }
    if let Some(depth) = check {
        let median_of = |which: Pool| {
            rows.iter()
                .find(|(pool, _)| *pool == which)
                .map(|(_, samples)| median(samples))
                .expect("both pools were measured")
        };
        let (ours, theirs) = (median_of(Pool::Stealpool), median_of(Pool::Rayon));
        let reached = matches!(run_probe(Pool::Stealpool, depth), Outcome::Completed);
        println!(
            "check: stealpool {ours:.1} bytes per level (rayon {theirs:.1}); depth {depth} {}",
            if reached { "completed" } else { "did not complete" }
        );
        if ours > theirs || !reached {
            println!("check FAILED");
            std::process::exit(1);
        }
        println!("check passed");
    }
}
