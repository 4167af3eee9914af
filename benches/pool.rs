//! The pool against `rayon`, `chili` (fork-join only), `std::thread::spawn` and a `Mutex<VecDeque>` +
//! `Condvar` pool, each peer measured in the same run (the ratios are what
//! survives a noisy machine; the absolute times do not).
//!
//! * `fib_join/T`: `fib(20)` with a `join` at every call (10 945 joins),
//!   nothing else: pure fork-join overhead on T threads, against rayon and
//!   chili (heartbeat scheduling). `sequential` is the same recursion
//!   without forks, the floor. Each sample's runs happen inside one
//!   `install` (one chili scope), so the hand-off of a run to a sleeping
//!   worker is not timed.
//! * `tree_sum/ORDER/T`: chili's own benchmark, the sum of a balanced tree
//!   of 2^18 - 1 nodes with a `join` at every node, each peer visiting the
//!   children in the same ORDER (`left_first` or `right_first`, see
//!   `workloads::Node`: the order alone moves the time 2 to 3 times).
//! * `quicksort_1M`, `mergesort_1M`: one million random `u64`s (the report
//!   does ten million). Each library's own parallel sort, the same simple
//!   fork-join algorithm forked through each peer (`*_same_algorithm`), and
//!   the sequential std sort.
//! * `spawn_scope`: 10 000 tiny tasks spawned inside a scope, per task.
//! * `spawn_outside/S`: 10 000 tiny tasks spawned by S threads outside the
//!   pool, per task, all peers waiting on the same countdown.
//! * `mix`: 100 tasks of the heterogeneous mix (80 × 1 µs, 15 × 100 µs,
//!   5 × 10 ms: 51.6 ms of work) spawned from outside.
//!
//! The idle pool's wake-up latency (p50/p99) and CPU use are measured by
//! `examples/report.rs`: percentiles do not fit criterion's model.

#[path = "common/mutex_pool.rs"]
mod mutex_pool;
#[path = "common/workloads.rs"]
mod workloads;

use criterion::measurement::WallTime;
use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkGroup, Criterion, Throughput,
};
use mutex_pool::MutexPool;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use stealpool::ThreadPool;
use workloads::{
    fib, fib_seq, merge_sort, mix, quicksort, random_u64s, spin_for, Countdown, Node, Rayon, Threads,
};

const THREADS: usize = 2;

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// `iters` runs of `f`, timed where they run. The fork-join groups call it
/// inside one `install` per sample (and in one chili scope), so that they
/// time the `join`s and not the hand-off of each run to a sleeping worker,
/// which would be most of a 50 µs run; the report measures that wake-up
/// on its own.
fn timed<R>(iters: u64, mut f: impl FnMut() -> R) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    start.elapsed()
}

fn fib_join(c: &mut Criterion) {
    const N: u64 = 20;
    let joins = (workloads::fib_calls(N) - 1) / 2;
    let mut group = c.benchmark_group("pool/fib_join");
    group.throughput(Throughput::Elements(joins));
    group.bench_function("sequential", |b| b.iter(|| fib_seq(black_box(N))));
    for threads in [1, 2] {
        ForkJoinPeers::new(threads).fib(&mut group, N);
    }
    group.finish();
}

fn tree_sum(c: &mut Criterion) {
    const LAYERS: u32 = 18;
    let tree = Node::tree(LAYERS);
    let nodes = (1u64 << LAYERS) - 1;
    let mut group = c.benchmark_group("pool/tree_sum");
    group.throughput(Throughput::Elements(nodes / 2));
    group.bench_function("sequential/left_first", |b| {
        b.iter(|| black_box(&tree).sum_seq::<false>())
    });
    group.bench_function("sequential/right_first", |b| {
        b.iter(|| black_box(&tree).sum_seq::<true>())
    });
    for threads in [1, 2] {
        let peers = ForkJoinPeers::new(threads);
        peers.tree_sum::<false>(&mut group, &tree, "left_first");
        peers.tree_sum::<true>(&mut group, &tree, "right_first");
    }
    group.finish();
}

/// The fork-join peers at one thread count: this pool as built by default
/// and with `max_pending_joins(PENDING_LIMIT)` (F6: `join`s past that many
/// pending halves run inline while every worker is busy), rayon and chili.
struct ForkJoinPeers {
    threads: usize,
    ours: ThreadPool,
    limited: ThreadPool,
    rayon: rayon::ThreadPool,
    chili: chili::ThreadPool,
}

/// chili records at most 3 halves before running `join`s inline; the
/// limited pool is given the same.
const PENDING_LIMIT: usize = 3;

impl ForkJoinPeers {
    fn new(threads: usize) -> Self {
        ForkJoinPeers {
            threads,
            ours: ThreadPool::new(threads),
            limited: ThreadPool::builder()
                .num_threads(threads)
                .max_pending_joins(PENDING_LIMIT)
                .build()
                .expect("the pool starts"),
            rayon: rayon_pool(threads),
            // chili's thread count includes the caller, which works in its
            // scope.
            chili: chili::ThreadPool::with_config(chili::Config {
                thread_count: std::num::NonZero::new(threads),
                ..chili::Config::default()
            }),
        }
    }

    /// fib(`n`) with a `join` at every call, on each peer.
    fn fib(&self, group: &mut BenchmarkGroup<'_, WallTime>, n: u64) {
        let threads = self.threads;
        for (name, pool) in [("stealpool", &self.ours), ("stealpool_limited", &self.limited)] {
            group.bench_function(format!("{name}/{threads}"), |b| {
                b.iter_custom(|iters| pool.install(|| timed(iters, || fib(pool, black_box(n)))))
            });
        }
        group.bench_function(format!("rayon/{threads}"), |b| {
            b.iter_custom(|iters| self.rayon.install(|| timed(iters, || fib(&Rayon, black_box(n)))))
        });
        group.bench_function(format!("chili/{threads}"), |b| {
            b.iter_custom(|iters| {
                let mut scope = self.chili.scope();
                timed(iters, || workloads::fib_chili(&mut scope, black_box(n)))
            })
        });
    }

    /// The tree sum on each peer, every one visiting in the same order.
    fn tree_sum<const RIGHT_FIRST: bool>(
        &self,
        group: &mut BenchmarkGroup<'_, WallTime>,
        tree: &Node,
        order: &str,
    ) {
        let threads = self.threads;
        for (name, pool) in [("stealpool", &self.ours), ("stealpool_limited", &self.limited)] {
            group.bench_function(format!("{name}/{order}/{threads}"), |b| {
                b.iter_custom(|iters| pool.install(|| timed(iters, || tree.sum::<RIGHT_FIRST, _>(pool))))
            });
        }
        group.bench_function(format!("rayon/{order}/{threads}"), |b| {
            b.iter_custom(|iters| {
                self.rayon
                    .install(|| timed(iters, || tree.sum::<RIGHT_FIRST, _>(&Rayon)))
            })
        });
        group.bench_function(format!("chili/{order}/{threads}"), |b| {
            b.iter_custom(|iters| {
                let mut scope = self.chili.scope();
                timed(iters, || tree.sum_chili::<RIGHT_FIRST>(&mut scope))
            })
        });
    }
}

/// Runs `sort` on a fresh copy of `input` each iteration; the copy is not
/// timed.
fn bench_sort(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    input: &[u64],
    sort: impl Fn(&mut Vec<u64>),
) {
    group.bench_function(name, |b| {
        b.iter_batched_ref(|| input.to_vec(), |v| sort(v), BatchSize::LargeInput)
    });
}

fn sorts(c: &mut Criterion) {
    const LEN: usize = 1_000_000;
    let input = random_u64s(LEN, 42);
    let ours = ThreadPool::new(THREADS);
    let rayon = rayon_pool(THREADS);
    let baseline = MutexPool::new(THREADS);

    let mut group = c.benchmark_group("pool/quicksort_1M");
    group.throughput(Throughput::Elements(LEN as u64));
    bench_sort(&mut group, "std_sequential", &input, |v| v.sort_unstable());
    bench_sort(&mut group, "stealpool", &input, |v| ours.sort_unstable(v));
    bench_sort(&mut group, "rayon", &input, |v| {
        use rayon::slice::ParallelSliceMut;
        rayon.install(|| v.par_sort_unstable())
    });
    bench_sort(&mut group, "stealpool_same_algorithm", &input, |v| {
        ours.install(|| quicksort(&ours, v))
    });
    bench_sort(&mut group, "rayon_same_algorithm", &input, |v| {
        rayon.install(|| quicksort(&Rayon, v))
    });
    bench_sort(&mut group, "std_thread_same_algorithm", &input, |v| {
        quicksort(&Threads::for_threads(THREADS), v)
    });
    bench_sort(&mut group, "mutex_pool_same_algorithm", &input, |v| {
        // SAFETY: `v` is not touched until `wait_all` has returned.
        unsafe { workloads::quicksort_tasks(&baseline.spawner(), v) };
        baseline.wait_all();
    });
    group.finish();

    let mut group = c.benchmark_group("pool/mergesort_1M");
    group.throughput(Throughput::Elements(LEN as u64));
    bench_sort(&mut group, "std_sequential", &input, |v| v.sort());
    bench_sort(&mut group, "stealpool", &input, |v| ours.sort(v));
    bench_sort(&mut group, "rayon", &input, |v| {
        use rayon::slice::ParallelSliceMut;
        rayon.install(|| v.par_sort())
    });
    bench_sort(&mut group, "stealpool_same_algorithm", &input, |v| {
        let mut buf = vec![0; v.len()];
        ours.install(|| merge_sort(&ours, v, &mut buf))
    });
    bench_sort(&mut group, "rayon_same_algorithm", &input, |v| {
        let mut buf = vec![0; v.len()];
        rayon.install(|| merge_sort(&Rayon, v, &mut buf))
    });
    bench_sort(&mut group, "std_thread_same_algorithm", &input, |v| {
        let mut buf = vec![0; v.len()];
        merge_sort(&Threads::for_threads(THREADS), v, &mut buf)
    });
    group.finish();
}

/// A task small enough that spawning dominates.
fn tiny(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

fn spawn_scope(c: &mut Criterion) {
    const TASKS: u64 = 10_000;
    let ours = ThreadPool::new(THREADS);
    let rayon = rayon_pool(THREADS);
    let counter = AtomicU64::new(0);
    let mut group = c.benchmark_group("pool/spawn_scope");
    group.throughput(Throughput::Elements(TASKS));
    group.bench_function("stealpool", |b| {
        b.iter(|| {
            ours.scope(|s| {
                for _ in 0..TASKS {
                    s.spawn(|_| tiny(&counter));
                }
            })
        })
    });
    group.bench_function("rayon", |b| {
        b.iter(|| {
            rayon.scope(|s| {
                for _ in 0..TASKS {
                    s.spawn(|_| tiny(&counter));
                }
            })
        })
    });
    group.finish();
}

/// Spawns `tasks` tiny tasks split over `submitters` threads with `spawn`,
/// and waits for all of them.
fn spawn_from_outside(submitters: usize, tasks: usize, spawn: &(dyn Fn(Box<dyn FnOnce() + Send>) + Sync)) {
    let done = Arc::new(Countdown::new(tasks));
    let counter = Arc::new(AtomicU64::new(0));
    let per_submitter = tasks / submitters;
    let submit = || {
        for _ in 0..per_submitter {
            let (done, counter) = (done.clone(), counter.clone());
            spawn(Box::new(move || {
                tiny(&counter);
                done.count_down();
            }));
        }
    };
    if submitters == 1 {
        submit();
    } else {
        std::thread::scope(|s| {
            for _ in 0..submitters {
                s.spawn(submit);
            }
        });
    }
    done.wait();
}

fn spawn_outside(c: &mut Criterion) {
    const TASKS: usize = 10_000;
    const THREAD_TASKS: usize = 500;
    let ours = ThreadPool::new(THREADS);
    let rayon = rayon_pool(THREADS);
    let baseline = MutexPool::new(THREADS);
    for submitters in [1, 4] {
        let mut group = c.benchmark_group(format!("pool/spawn_outside/{submitters}"));
        group.throughput(Throughput::Elements(TASKS as u64));
        group.bench_function("stealpool", |b| {
            b.iter(|| spawn_from_outside(submitters, TASKS, &|task| ours.spawn(task)))
        });
        group.bench_function("rayon", |b| {
            b.iter(|| spawn_from_outside(submitters, TASKS, &|task| rayon.spawn(task)))
        });
        group.bench_function("mutex_pool", |b| {
            b.iter(|| spawn_from_outside(submitters, TASKS, &|task| baseline.spawn(task)))
        });
        // A thread per task: fewer tasks, the same per-task unit.
        group.throughput(Throughput::Elements(THREAD_TASKS as u64));
        group.bench_function("std_thread", |b| {
            b.iter(|| {
                spawn_from_outside(submitters, THREAD_TASKS, &|task| {
                    std::thread::spawn(task);
                })
            })
        });
        group.finish();
    }
}

fn heterogeneous_mix(c: &mut Criterion) {
    let tasks = mix(100, 7);
    let ours = ThreadPool::new(THREADS);
    let rayon = rayon_pool(THREADS);
    let baseline = MutexPool::new(THREADS);
    let run = |spawn: &dyn Fn(Box<dyn FnOnce() + Send>)| {
        let done = Arc::new(Countdown::new(tasks.len()));
        for &length in &tasks {
            let done = done.clone();
            spawn(Box::new(move || {
                spin_for(length);
                done.count_down();
            }));
        }
        done.wait();
    };
    let mut group = c.benchmark_group("pool/mix");
    group.sample_size(10);
    group.throughput(Throughput::Elements(tasks.len() as u64));
    group.bench_function("stealpool", |b| b.iter(|| run(&|task| ours.spawn(task))));
    group.bench_function("rayon", |b| b.iter(|| run(&|task| rayon.spawn(task))));
    group.bench_function("mutex_pool", |b| b.iter(|| run(&|task| baseline.spawn(task))));
    group.bench_function("std_thread", |b| {
        b.iter(|| {
            run(&|task| {
                std::thread::spawn(task);
            })
        })
    });
    group.finish();
}

fn config() -> Criterion {
    // Short groups: the whole file runs in a few minutes.
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = fib_join, tree_sum, sorts, spawn_scope, spawn_outside, heterogeneous_mix
}
criterion_main!(benches);
