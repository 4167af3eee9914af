//! The deque against `crossbeam-deque`, both holding `usize`s, measured in
//! the same run so their ratio survives a noisy machine.
//!
//! * `push_pop_pair`: the owner pushes one element and pops it back, the
//!   pattern of every `join`. Bounded below by the one StoreLoad fence in
//!   `pop` (≈ 6.3 ns on the reference CPU, so ≈ 7.5 ns per pair).
//! * `push_pop_burst`: 64 pushes then 64 pops, per element.
//! * `push_steal`: 64 pushes then 64 steals from the same thread: the cost of
//!   a steal with no contention (a fence and a CAS each).
//! * `contended_steal/N`: one owner pushing in bursts and popping some back
//!   while N thieves steal, per element moved; `contended_steal_batch/N`:
//!   the same with `steal_batch_and_pop`, as the pool's workers steal.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

const BURST: usize = 64;

/// The operations the benches need, over both deques.
trait Deque: Send + 'static {
    type Stealer: Clone + Send + 'static;
    fn new() -> Self;
    fn push(&self, value: usize);
    fn pop(&self) -> Option<usize>;
    fn stealer(&self) -> Self::Stealer;
    /// `Some(value)`, `None` when empty; retries internally after a lost race.
    fn steal(stealer: &Self::Stealer) -> Option<usize>;
    /// Moves a batch into `dest` and returns one more, as `steal`.
    fn steal_batch(stealer: &Self::Stealer, dest: &Self) -> Option<usize>;
}

impl Deque for stealpool::deque::Worker<usize> {
    type Stealer = stealpool::deque::Stealer<usize>;
    fn new() -> Self {
        stealpool::deque::Worker::new()
    }
    #[inline]
    fn push(&self, value: usize) {
        stealpool::deque::Worker::push(self, value)
    }
    #[inline]
    fn pop(&self) -> Option<usize> {
        stealpool::deque::Worker::pop(self)
    }
    fn stealer(&self) -> Self::Stealer {
        stealpool::deque::Worker::stealer(self)
    }
    #[inline]
    fn steal(stealer: &Self::Stealer) -> Option<usize> {
        use stealpool::deque::Steal;
        loop {
            match stealer.steal() {
                Steal::Success(value) => return Some(value),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }
    #[inline]
    fn steal_batch(stealer: &Self::Stealer, dest: &Self) -> Option<usize> {
        use stealpool::deque::Steal;
        loop {
            match stealer.steal_batch_and_pop(dest) {
                Steal::Success(value) => return Some(value),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }
}

impl Deque for crossbeam_deque::Worker<usize> {
    type Stealer = crossbeam_deque::Stealer<usize>;
    fn new() -> Self {
        // LIFO for the owner, as in a work-stealing scheduler (rayon's too).
        crossbeam_deque::Worker::new_lifo()
    }
    #[inline]
    fn push(&self, value: usize) {
        crossbeam_deque::Worker::push(self, value)
    }
    #[inline]
    fn pop(&self) -> Option<usize> {
        crossbeam_deque::Worker::pop(self)
    }
    fn stealer(&self) -> Self::Stealer {
        crossbeam_deque::Worker::stealer(self)
    }
    #[inline]
    fn steal(stealer: &Self::Stealer) -> Option<usize> {
        use crossbeam_deque::Steal;
        loop {
            match stealer.steal() {
                Steal::Success(value) => return Some(value),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }
    #[inline]
    fn steal_batch(stealer: &Self::Stealer, dest: &Self) -> Option<usize> {
        use crossbeam_deque::Steal;
        loop {
            match stealer.steal_batch_and_pop(dest) {
                Steal::Success(value) => return Some(value),
                Steal::Empty => return None,
                Steal::Retry => {}
            }
        }
    }
}

type Ours = stealpool::deque::Worker<usize>;
type Crossbeam = crossbeam_deque::Worker<usize>;

fn push_pop_pair<D: Deque>(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
) {
    let deque = D::new();
    c.bench_function(name, |b| {
        b.iter(|| {
            deque.push(black_box(1));
            black_box(deque.pop())
        })
    });
}

fn push_pop_burst<D: Deque>(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
) {
    let deque = D::new();
    c.bench_function(name, |b| {
        b.iter(|| {
            for i in 0..BURST {
                deque.push(black_box(i));
            }
            for _ in 0..BURST {
                black_box(deque.pop());
            }
        })
    });
}

fn push_steal<D: Deque>(c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, name: &str) {
    let deque = D::new();
    let stealer = deque.stealer();
    c.bench_function(name, |b| {
        b.iter(|| {
            for i in 0..BURST {
                deque.push(black_box(i));
            }
            for _ in 0..BURST {
                black_box(D::steal(&stealer));
            }
        })
    });
}

/// Moves `count` elements through a deque: the owner pushes bursts of 64
/// and pops half of each back (its own work), `thieves` threads steal the
/// rest. Returns the time from the start signal until every element is out.
fn contended<D: Deque>(count: u64, thieves: usize, batch: bool) -> Duration {
    let deque = D::new();
    let stealer = deque.stealer();
    let start = Arc::new(Barrier::new(thieves + 1));
    let done = Arc::new(AtomicBool::new(false));
    let taken = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..thieves)
        .map(|_| {
            let (stealer, start, done, taken) = (stealer.clone(), start.clone(), done.clone(), taken.clone());
            thread::spawn(move || {
                start.wait();
                let mut mine = 0;
                let local = D::new();
                loop {
                    let stolen = if batch {
                        D::steal_batch(&stealer, &local)
                    } else {
                        D::steal(&stealer)
                    };
                    match stolen {
                        Some(value) => {
                            black_box(value);
                            mine += 1;
                            while let Some(value) = local.pop() {
                                black_box(value);
                                mine += 1;
                            }
                        }
                        None if done.load(Ordering::Acquire) => break,
                        None => std::hint::spin_loop(),
                    }
                }
                taken.fetch_add(mine, Ordering::Relaxed);
            })
        })
        .collect();
    start.wait();
    let t0 = Instant::now();
    let mut pushed = 0u64;
    let mut popped = 0usize;
    while pushed < count {
        let burst = (count - pushed).min(BURST as u64);
        for i in 0..burst {
            deque.push((pushed + i) as usize);
        }
        pushed += burst;
        for _ in 0..burst / 2 {
            if deque.pop().is_some() {
                popped += 1;
            }
        }
    }
    while deque.pop().is_some() {
        popped += 1;
    }
    done.store(true, Ordering::Release);
    for handle in handles {
        handle.join().unwrap();
    }
    let elapsed = t0.elapsed();
    assert_eq!(
        popped + taken.load(Ordering::Relaxed),
        count as usize,
        "an element was lost or duplicated"
    );
    elapsed
}

fn single_thread(c: &mut Criterion) {
    let mut group = c.benchmark_group("deque/push_pop_pair");
    group.throughput(Throughput::Elements(1));
    push_pop_pair::<Ours>(&mut group, "stealpool");
    push_pop_pair::<Crossbeam>(&mut group, "crossbeam");
    group.finish();

    let mut group = c.benchmark_group("deque/push_pop_burst64");
    group.throughput(Throughput::Elements(BURST as u64));
    push_pop_burst::<Ours>(&mut group, "stealpool");
    push_pop_burst::<Crossbeam>(&mut group, "crossbeam");
    group.finish();

    let mut group = c.benchmark_group("deque/push_steal64");
    group.throughput(Throughput::Elements(BURST as u64));
    push_steal::<Ours>(&mut group, "stealpool");
    push_steal::<Crossbeam>(&mut group, "crossbeam");
    group.finish();
}

fn contended_steal(c: &mut Criterion) {
    for (name, batch) in [
        ("deque/contended_steal", false),
        ("deque/contended_steal_batch", true),
    ] {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(1));
        for thieves in [1, 2] {
            group.bench_with_input(BenchmarkId::new("stealpool", thieves), &thieves, |b, &n| {
                b.iter_custom(|iters| contended::<Ours>(iters, n, batch))
            });
            group.bench_with_input(BenchmarkId::new("crossbeam", thieves), &thieves, |b, &n| {
                b.iter_custom(|iters| contended::<Crossbeam>(iters, n, batch))
            });
        }
        group.finish();
    }
}

fn config() -> Criterion {
    // Short groups: the whole file runs in about a minute.
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = single_thread, contended_steal
}
criterion_main!(benches);
