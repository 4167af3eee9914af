//! Steal latency and throughput of `deque::BoundedStealer` (steals that
//! never retry) against today's `deque::Stealer` and crossbeam-deque's, in
//! one process, and the owner's push/pop cost of `BoundedWorker` against
//! `Worker`'s.
//!
//! ```text
//! cargo run --release --example bounded_steal [steals|owner]
//! ```
//!
//! Steal runs: the owner pushes `ELEMENTS` elements, then, with `t`
//! thieves stealing, pops one every 20 microseconds until the deque is
//! empty; the thieves steal until it is. A steal's latency is the time until a definite answer
//! (`Success` or `Empty`): for the two lock-free deques a call that
//! returns `Retry` is called again, and the retries count in its time, as
//! they would for a caller that needs an answer. Latencies are sampled with
//! `Instant` around every steal (about 20 ns of its own). On an
//! oversubscribed machine the maximum is a preemption's length whatever the
//! deque does, so the last column gives the latency in steps: the most
//! rounds one bounded steal ran (`steal_counting_rounds`, never above
//! `ROUND_BOUND`), and the most calls one lock-free steal needed before a
//! definite answer (unbounded).
//!
//! Owner runs: push `n` then pop `n` on one thread, `Worker` and
//! `BoundedWorker` in the same run, for `u64` (a word in both) and
//! `[u64; 2]` (boxed in both).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};
use stealpool::deque::{BoundedWorker, Steal, Worker};

const ELEMENTS: u64 = 200_000;

/// One thief's side of a run.
#[derive(Default)]
struct Thief {
    latencies: Vec<u64>,
    stolen: u64,
    retries: u64,
    /// The most iterations of its loop one steal ran: rounds for the
    /// bounded deque (at most `ROUND_BOUND`), calls (1 + retries) for the
    /// lock-free ones. A latency in steps, which preemption does not
    /// inflate.
    most_steps: u64,
}

trait Deque: Send + 'static {
    type Stealer: Send + 'static;
    fn stealer(&self) -> Self::Stealer;
    fn push(&self, value: u64);
    fn pop(&self) -> Option<u64>;
    /// A definite steal: `(Some(value) or None, retries it took, loop
    /// iterations it ran)`.
    fn steal(stealer: &Self::Stealer) -> (Option<u64>, u64, u64);
}

impl Deque for BoundedWorker<u64> {
    type Stealer = stealpool::deque::BoundedStealer<u64>;
    fn stealer(&self) -> Self::Stealer {
        BoundedWorker::stealer(self)
    }
    fn push(&self, value: u64) {
        BoundedWorker::push(self, value)
    }
    fn pop(&self) -> Option<u64> {
        BoundedWorker::pop(self)
    }
    fn steal(stealer: &Self::Stealer) -> (Option<u64>, u64, u64) {
        let (stolen, rounds) = stealer.steal_counting_rounds();
        match stolen {
            Steal::Success(v) => (Some(v), 0, rounds as u64),
            Steal::Empty => (None, 0, rounds as u64),
            Steal::Retry => unreachable!("bounded steals never retry"),
        }
    }
}

impl Deque for Worker<u64> {
    type Stealer = stealpool::deque::Stealer<u64>;
    fn stealer(&self) -> Self::Stealer {
        Worker::stealer(self)
    }
    fn push(&self, value: u64) {
        Worker::push(self, value)
    }
    fn pop(&self) -> Option<u64> {
        Worker::pop(self)
    }
    fn steal(stealer: &Self::Stealer) -> (Option<u64>, u64, u64) {
        let mut retries = 0;
        loop {
            match stealer.steal() {
                Steal::Success(v) => return (Some(v), retries, retries + 1),
                Steal::Empty => return (None, retries, retries + 1),
                Steal::Retry => retries += 1,
            }
        }
    }
}

struct Crossbeam(crossbeam_deque::Worker<u64>);

impl Deque for Crossbeam {
    type Stealer = crossbeam_deque::Stealer<u64>;
    fn stealer(&self) -> Self::Stealer {
        self.0.stealer()
    }
    fn push(&self, value: u64) {
        self.0.push(value)
    }
    fn pop(&self) -> Option<u64> {
        self.0.pop()
    }
    fn steal(stealer: &Self::Stealer) -> (Option<u64>, u64, u64) {
        let mut retries = 0;
        loop {
            match stealer.steal() {
                crossbeam_deque::Steal::Success(v) => return (Some(v), retries, retries + 1),
                crossbeam_deque::Steal::Empty => return (None, retries, retries + 1),
                crossbeam_deque::Steal::Retry => retries += 1,
            }
        }
    }
}

struct Run {
    seconds: f64,
    stolen: u64,
    p50: u64,
    p99: u64,
    max: u64,
    retries: u64,
    most_steps: u64,
}

fn steal_run<D: Deque>(deque: D, thieves: usize) -> Run {
    let done = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(thieves + 1));
    let checksum = Arc::new(AtomicU64::new(0));
    let handles: Vec<_> = (0..thieves)
        .map(|_| {
            let stealer = deque.stealer();
            let done = done.clone();
            let start = start.clone();
            let checksum = checksum.clone();
            thread::spawn(move || {
                let mut me = Thief::default();
                me.latencies.reserve(1 << 16);
                start.wait();
                let mut sum = 0;
                loop {
                    let finished = done.load(Ordering::Acquire);
                    let begin = Instant::now();
                    let (value, retries, steps) = D::steal(&stealer);
                    me.latencies.push(begin.elapsed().as_nanos() as u64);
                    me.retries += retries;
                    me.most_steps = me.most_steps.max(steps);
                    match value {
                        Some(v) => {
                            sum += v;
                            me.stolen += 1;
                        }
                        None if finished => break,
                        None => thread::yield_now(),
                    }
                }
                checksum.fetch_add(sum, Ordering::Relaxed);
                me
            })
        })
        .collect();
    for i in 1..=ELEMENTS {
        deque.push(i);
    }
    start.wait();
    let began = Instant::now();
    let mut popped = 0;
    // The owner pops one element now and then, racing the thieves.
    while let Some(v) = deque.pop() {
        popped += v;
        let pause = Instant::now();
        while pause.elapsed() < Duration::from_micros(20) {
            std::hint::spin_loop();
        }
    }
    done.store(true, Ordering::Release);
    let mut all = Thief::default();
    for handle in handles {
        let thief = handle.join().unwrap();
        all.latencies.extend(thief.latencies);
        all.stolen += thief.stolen;
        all.retries += thief.retries;
        all.most_steps = all.most_steps.max(thief.most_steps);
    }
    let seconds = began.elapsed().as_secs_f64();
    assert_eq!(
        popped + checksum.load(Ordering::Relaxed),
        ELEMENTS * (ELEMENTS + 1) / 2,
        "an element was lost or duplicated"
    );
    all.latencies.sort_unstable();
    let at = |q: f64| all.latencies[((all.latencies.len() - 1) as f64 * q) as usize];
    Run {
        seconds,
        stolen: all.stolen,
        p50: at(0.5),
        p99: at(0.99),
        max: *all.latencies.last().unwrap(),
        retries: all.retries,
        most_steps: all.most_steps,
    }
}

/// Nanoseconds per operation of (push `n`, pop `n`) on one thread: the
/// median of 9 samples, each of as many repetitions as make about 1024
/// pushes and pops.
fn owner_cost(mut round: impl FnMut() -> u64, n: u64) -> f64 {
    let repeat = (1024 / n).max(1);
    let mut samples: Vec<f64> = (0..9)
        .map(|_| {
            let begin = Instant::now();
            let mut sink = 0;
            for _ in 0..repeat {
                sink += round();
            }
            std::hint::black_box(sink);
            begin.elapsed().as_nanos() as f64 / (repeat * 2 * n) as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    // `steals` or `owner` runs only that part.
    let only = std::env::args().nth(1);
    if only.as_deref() != Some("owner") {
        steals();
    }
    if only.as_deref() != Some("steals") {
        owner();
    }
}

fn steals() {
    println!("steals: {ELEMENTS} elements pushed first; thieves steal, the owner pops one every 20 us, until empty");
    println!(
        "| thieves | deque | stolen | steals/ms | p50 ns | p99 ns | max us | retries | most rounds (bounded) / calls in one steal |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for thieves in [1, 3, 7, 15] {
        for kind in ["bounded", "stealpool", "crossbeam"] {
            let run = match kind {
                "bounded" => steal_run(BoundedWorker::<u64>::new(), thieves),
                "stealpool" => steal_run(Worker::<u64>::new(), thieves),
                _ => steal_run(Crossbeam(crossbeam_deque::Worker::new_lifo()), thieves),
            };
            println!(
                "| {thieves} | {kind} | {} | {:.0} | {} | {} | {:.0} | {} | {} |",
                run.stolen,
                run.stolen as f64 / run.seconds / 1000.0,
                run.p50,
                run.p99,
                Duration::from_nanos(run.max).as_secs_f64() * 1e6,
                run.retries,
                run.most_steps
            );
        }
    }
}

fn owner() {
    println!();
    println!("owner only: push n then pop n, ns per operation (median of 9 samples of about 1024 each)");
    println!("| n | element | Worker | BoundedWorker | ratio |");
    println!("| --- | --- | --- | --- | --- |");
    for n in [1u64, 16, 1024] {
        for repeat in 0..2 {
            let worker = Worker::<[u64; 2]>::new();
            let bounded = BoundedWorker::<[u64; 2]>::new();
            let today = owner_cost(
                || {
                    for i in 0..n {
                        worker.push([i, i]);
                    }
                    let mut s = 0;
                    while let Some(v) = worker.pop() {
                        s += v[0];
                    }
                    s
                },
                n,
            );
            let new = owner_cost(
                || {
                    for i in 0..n {
                        bounded.push([i, i]);
                    }
                    let mut s = 0;
                    while let Some(v) = bounded.pop() {
                        s += v[0];
                    }
                    s
                },
                n,
            );
            println!(
                "| {n} | [u64; 2] (boxed by both), run {repeat} | {today:.2} | {new:.2} | {:.2} |",
                new / today
            );
        }
        let worker = Worker::<u64>::new();
        let bounded = BoundedWorker::<u64>::new();
        let today = owner_cost(
            || {
                for i in 0..n {
                    worker.push(i);
                }
                let mut s = 0;
                while let Some(v) = worker.pop() {
                    s += v;
                }
                s
            },
            n,
        );
        let new = owner_cost(
            || {
                for i in 0..n {
                    bounded.push(i);
                }
                let mut s = 0;
                while let Some(v) = bounded.pop() {
                    s += v;
                }
                s
            },
            n,
        );
        println!(
            "| {n} | u64 (a word for both) | {today:.2} | {new:.2} | {:.2} |",
            new / today
        );
    }
}
