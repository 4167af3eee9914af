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
//! `[u64; 2]` (boxed in both), with a second `Worker` as an A/A control:
//! the three take turns, sample by sample, in a rotating order, and each
//! sample is long enough (2^15 operations, a fraction of a millisecond)
//! that the clock's own cost and a single interrupt weigh little. Each
//! case runs on `PLACEMENTS` sets of deques allocated at other addresses,
//! since a loop of a few nanoseconds per operation can pay for where its
//! loads and stores fall. The control's ratio to `Worker` is what the same
//! code gives twice; a bounded ratio is a difference only where it stands
//! clear of it. Every case runs twice: with `push` and `pop` inlined into
//! the timing loop, and called out of line (`Called`), since an inlined
//! call's cost is partly the caller's (its registers and spills), and
//! the out-of-line one is the deque's code alone. One process's numbers are
//! one draw: run it several times.

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

/// An owner's end under test: `push` and `pop` only.
trait Owner<E> {
    fn push(&self, value: E);
    fn pop(&self) -> Option<E>;
}

impl<E> Owner<E> for Worker<E> {
    #[inline]
    fn push(&self, value: E) {
        Worker::push(self, value)
    }
    #[inline]
    fn pop(&self) -> Option<E> {
        Worker::pop(self)
    }
}

impl<E> Owner<E> for BoundedWorker<E> {
    #[inline]
    fn push(&self, value: E) {
        BoundedWorker::push(self, value)
    }
    #[inline]
    fn pop(&self) -> Option<E> {
        BoundedWorker::pop(self)
    }
}

/// A second `Worker` of its own type, so that its loop is compiled again
/// at another address: `Worker` against `Worker` is the A/A control, the
/// spread that code placement and the machine give with no change at all.
struct Control<E>(Worker<E>);

impl<E> Owner<E> for Control<E> {
    #[inline]
    fn push(&self, value: E) {
        self.0.push(value)
    }
    #[inline]
    fn pop(&self) -> Option<E> {
        self.0.pop()
    }
}

/// An owner's end called out of line: its `push` and `pop` are functions
/// of their own, as where a caller does not inline them, so the ratio is
/// that of the deque's own code, with nothing of the caller's loop merged
/// into it (its registers, its spills).
struct Called<'a, D>(&'a D);

impl<E, D: Owner<E>> Owner<E> for Called<'_, D> {
    #[inline(never)]
    fn push(&self, value: E) {
        self.0.push(value)
    }
    #[inline(never)]
    fn pop(&self) -> Option<E> {
        self.0.pop()
    }
}

/// The elements of the owner runs.
trait Item: Copy {
    fn make(i: u64) -> Self;
    fn key(self) -> u64;
}

impl Item for u64 {
    #[inline]
    fn make(i: u64) -> Self {
        i
    }
    #[inline]
    fn key(self) -> u64 {
        self
    }
}

impl Item for [u64; 2] {
    #[inline]
    fn make(i: u64) -> Self {
        [i, i]
    }
    #[inline]
    fn key(self) -> u64 {
        self[0]
    }
}

/// Operations per sample: push and pop `OPS / 2` elements, `n` at a time.
const OPS: u64 = 1 << 15;
/// Samples per deque and case; each round takes one of every deque.
const ROUNDS: usize = 31;

/// Nanoseconds per operation of one sample: (push `n`, pop `n`), as many
/// times as make `OPS` operations. `COPY` only tells the control's loop
/// from `Worker`'s, so that the compiler does not merge the two into one
/// function at one address.
#[inline(never)]
fn sample<E: Item, D: Owner<E>, const COPY: u64>(deque: &D, n: u64) -> f64 {
    let repeat = (OPS / 2 / n).max(1);
    let begin = Instant::now();
    let mut sink = 0;
    for _ in 0..repeat {
        for i in 0..n {
            deque.push(E::make(i));
        }
        while let Some(v) = deque.pop() {
            sink += v.key();
        }
    }
    std::hint::black_box(sink ^ COPY);
    begin.elapsed().as_nanos() as f64 / (repeat * 2 * n) as f64
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Sets of deques per case, each allocated at other heap addresses.
const PLACEMENTS: usize = 4;

/// What one case measured: medians over every round of every placement.
struct OwnerCase {
    /// ns per operation.
    worker: f64,
    /// ns per operation.
    bounded: f64,
    /// The median of the per-round ratios bounded / `Worker`.
    ratio: f64,
    /// The lowest and highest of the per-placement medians of that ratio.
    ratio_range: (f64, f64),
    /// The median of the per-round ratios control / `Worker`.
    control: f64,
    /// The lowest and highest of its per-placement medians.
    control_range: (f64, f64),
}

/// One case: `PLACEMENTS` sets of three deques (`Worker`, the control
/// `Worker`, `BoundedWorker`), each set allocated with spacers of another
/// size between them, so that the deques' fields sit at other addresses
/// relative to each other, the buffers and the elements' boxes (a loop of
/// a few ns per operation can pay for where its stores and loads fall, e.g.
/// a load that aliases a pending store 4 KiB away, whatever the code); then
/// `ROUNDS` rounds per set, each timing one sample of each deque in an
/// order that rotates with the round, so that no deque always runs first or
/// after the same one. A ratio is taken per round, between two samples a
/// fraction of a millisecond apart, so drift in the machine's speed
/// cancels.
fn owner_case<E: Item>(n: u64, called: bool) -> OwnerCase {
    let (mut w, mut b, mut rb, mut rc) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut per_b, mut per_c) = (Vec::new(), Vec::new());
    for placement in 0..PLACEMENTS {
        let mut spacers = vec![vec![0u8; 8 + 400 * placement]];
        let worker = Box::new(Worker::<E>::new());
        spacers.push(vec![0u8; 8 + 720 * placement]);
        let control = Box::new(Control(Worker::<E>::new()));
        spacers.push(vec![0u8; 8 + 1040 * placement]);
        let bounded = Box::new(BoundedWorker::<E>::new());
        spacers.push(vec![0u8; 8 + 176 * placement]);
        std::hint::black_box(&spacers);
        let run = |which| match (which, called) {
            (0, false) => sample::<E, _, 0>(&*worker, n),
            (1, false) => sample::<E, _, 1>(&*control, n),
            (_, false) => sample::<E, _, 0>(&*bounded, n),
            (0, true) => sample::<E, _, 0>(&Called(&*worker), n),
            (1, true) => sample::<E, _, 1>(&Called(&*control), n),
            (_, true) => sample::<E, _, 0>(&Called(&*bounded), n),
        };
        // Warm up: every buffer and the allocator's free lists in place.
        for which in 0..3 {
            run(which);
        }
        let (mut pb, mut pc) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            let mut this = [0.0; 3];
            for k in 0..3 {
                let which = (round + k) % 3;
                this[which] = run(which);
            }
            w.push(this[0]);
            b.push(this[2]);
            pb.push(this[2] / this[0]);
            pc.push(this[1] / this[0]);
        }
        rb.extend(&pb);
        rc.extend(&pc);
        per_b.push(median(pb));
        per_c.push(median(pc));
    }
    let range = |x: &[f64]| {
        let low = x.iter().copied().fold(f64::MAX, f64::min);
        (low, x.iter().copied().fold(f64::MIN, f64::max))
    };
    OwnerCase {
        worker: median(w),
        bounded: median(b),
        ratio: median(rb),
        ratio_range: range(&per_b),
        control: median(rc),
        control_range: range(&per_c),
    }
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
    println!(
        "owner only: push n then pop n, ns per operation; {PLACEMENTS} placements x {ROUNDS} rounds, one sample of {OPS} operations per deque per round, deques taking turns; push and pop inlined into the loop, then called out of line"
    );
    println!(
        "| push, pop | n | element | Worker | BoundedWorker | bounded / Worker (placements' range) | control: Worker / Worker (range) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (called, how) in [(false, "inlined"), (true, "called")] {
        for n in [1u64, 16, 1024] {
            for boxed in [false, true] {
                let (c, element) = if boxed {
                    (owner_case::<[u64; 2]>(n, called), "[u64; 2] (boxed by both)")
                } else {
                    (owner_case::<u64>(n, called), "u64 (a word for both)")
                };
                println!(
                    "| {how} | {n} | {element} | {:.2} | {:.2} | {:.3} ({:.3}-{:.3}) | {:.3} ({:.3}-{:.3}) |",
                    c.worker,
                    c.bounded,
                    c.ratio,
                    c.ratio_range.0,
                    c.ratio_range.1,
                    c.control,
                    c.control_range.0,
                    c.control_range.1
                );
            }
        }
    }
}
