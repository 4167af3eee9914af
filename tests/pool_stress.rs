#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The pool under load on real threads: a million tasks from eight outside
//! threads, fork-join algorithms checked against sequential results, deep
//! recursive submit-and-join on small pools, and a randomized soak that mixes
//! every API from inside and outside the pool with exact accounting.
//!
//! Counts scale down under Miri.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use stealpool::deque::{Steal, Worker};
use stealpool::ThreadPool;

mod common;
use common::{block_on, fib, quiet_expected_panics, scaled, EXPECTED};

/// A xorshift64* generator: cheap, deterministic for a given seed.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A generator for a child, independent of this one's later draws.
    fn fork(&mut self) -> Rng {
        Rng::new(self.next())
    }
}

// ---------------------------------------------------------------- a million tasks

#[test]
fn a_million_tasks_from_eight_outside_threads_each_run_once() {
    let (threads, per_thread) = (scaled(8, 2), scaled(125_000, 50));
    let tasks = threads * per_thread;
    let pool = Arc::new(ThreadPool::new(scaled(4, 2)));
    let seen: Arc<Vec<AtomicU8>> = Arc::new((0..tasks).map(|_| AtomicU8::new(0)).collect());
    let submitters: Vec<_> = (0..threads)
        .map(|t| {
            let (pool, seen) = (pool.clone(), seen.clone());
            thread::spawn(move || {
                for i in 0..per_thread {
                    let seen = seen.clone();
                    let task = t * per_thread + i;
                    pool.spawn(move || {
                        seen[task].fetch_add(1, Relaxed);
                    });
                }
            })
        })
        .collect();
    for submitter in submitters {
        submitter.join().unwrap();
    }
    pool.wait_all();
    for (task, count) in seen.iter().enumerate() {
        assert_eq!(count.load(Relaxed), 1, "task {task} ran {count:?} times");
    }
    let stats = pool.stats();
    assert_eq!(stats.tasks_executed, tasks as u64);
    assert_eq!(pool.pending_tasks(), 0);
    eprintln!(
        "{tasks} tasks: per worker {:?}, {} stolen in {} of {} steal attempts",
        stats
            .per_worker
            .iter()
            .map(|w| w.tasks_executed)
            .collect::<Vec<_>>(),
        stats.tasks_stolen,
        stats.successful_steals,
        stats.steal_attempts
    );
}

// ---------------------------------------------------------------- batch stealing

/// The pool's thieves take half a victim's deque with `steal_batch_and_pop`
/// while the victim pops its own newest jobs without a CAS. An element must
/// come out exactly once even when the owner pops several times between a
/// thief's read of `bottom` and its CAS on `top`: with three elements a
/// thief that read the old `bottom` claims two, while the owner takes the
/// two newest with no CAS. Duplicated jobs are a double execution (a
/// use-after-free for a heap job), lost ones a task that never runs.
///
/// The window is a preemption of the thief, so the test runs many short
/// rounds within a time budget and stops at the first element that comes
/// out twice or never.
#[test]
fn batch_steals_never_take_what_the_owner_popped() {
    const PER_ROUND: usize = 3;
    let budget = Duration::from_secs(if cfg!(miri) { 3600 } else { 3 });
    let max_rounds = scaled(3_000_000, 2_000);
    let owner: Worker<usize> = Worker::new();
    let stealer = owner.stealer();
    let seen: Arc<Vec<AtomicU8>> = Arc::new((0..max_rounds * PER_ROUND).map(|_| AtomicU8::new(0)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let thief = {
        let (seen, stop) = (seen.clone(), stop.clone());
        thread::spawn(move || {
            let dest = Worker::new();
            while !stop.load(Relaxed) {
                if let Steal::Success(element) = stealer.steal_batch_and_pop(&dest) {
                    seen[element].fetch_add(1, Relaxed);
                    while let Some(element) = dest.pop() {
                        seen[element].fetch_add(1, Relaxed);
                    }
                }
            }
        })
    };
    let start = Instant::now();
    let mut rounds = 0;
    let mut bad = None;
    while rounds < max_rounds && bad.is_none() {
        for i in 0..PER_ROUND {
            owner.push(rounds * PER_ROUND + i);
        }
        while let Some(element) = owner.pop() {
            seen[element].fetch_add(1, Relaxed);
        }
        rounds += 1;
        // Every so often, wait for the thief to drain what it took and
        // check the rounds so far; the deque is empty from the owner's view.
        if rounds % 1024 == 0 || rounds == max_rounds || start.elapsed() > budget {
            let checked = rounds.saturating_sub(2) * PER_ROUND;
            bad = seen[..checked].iter().position(|count| count.load(Relaxed) > 1);
            if start.elapsed() > budget {
                break;
            }
        }
    }
    stop.store(true, Relaxed);
    thief.join().unwrap();
    let checked = rounds * PER_ROUND;
    let duplicated = seen[..checked].iter().filter(|c| c.load(Relaxed) > 1).count();
    let lost = seen[..checked].iter().filter(|c| c.load(Relaxed) == 0).count();
    eprintln!("batch steals: {rounds} rounds, {duplicated} elements out twice, {lost} never");
    assert_eq!(
        (duplicated, lost),
        (0, 0),
        "elements duplicated and lost by batch steals"
    );
}

// ---------------------------------------------------------------- fork-join

fn fib_sequential(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_sequential(n - 1) + fib_sequential(n - 2)
    }
}

#[test]
fn fork_join_fib_matches_the_sequential_result() {
    let n = scaled(22, 7) as u64;
    for workers in [1, 2, 4] {
        let pool = ThreadPool::new(workers);
        assert_eq!(fib(&pool, n), fib_sequential(n), "fib({n}) on {workers} workers");
        // And from a worker, where `join` pushes on its own deque directly.
        assert_eq!(pool.install(|| fib(&pool, n)), fib_sequential(n));
    }
}

/// Three-way partition around the middle element: `<`, `==`, `>`; returns
/// the bounds of the `==` run. Equal keys never recurse, so inputs full of
/// duplicates stay shallow.
fn partition<T: Ord + Copy>(v: &mut [T]) -> (usize, usize) {
    let pivot = v[v.len() / 2];
    let (mut lt, mut i, mut gt) = (0, 0, v.len());
    while i < gt {
        if v[i] < pivot {
            v.swap(lt, i);
            lt += 1;
            i += 1;
        } else if v[i] > pivot {
            gt -= 1;
            v.swap(i, gt);
        } else {
            i += 1;
        }
    }
    (lt, gt)
}

fn quicksort<T: Ord + Copy + Send>(pool: &ThreadPool, v: &mut [T]) {
    if v.len() <= 32 {
        v.sort_unstable();
        return;
    }
    let (lt, gt) = partition(v);
    let (low, rest) = v.split_at_mut(lt);
    let high = &mut rest[gt - lt..];
    pool.join(|| quicksort(pool, low), || quicksort(pool, high));
}

#[test]
fn parallel_quicksort_matches_the_sequential_sort() {
    let len = scaled(200_000, 300);
    let mut rng = Rng::new(42);
    let inputs: Vec<(&str, Vec<u64>)> = vec![
        ("random", (0..len).map(|_| rng.next()).collect()),
        ("few distinct keys", (0..len).map(|_| rng.below(16)).collect()),
        ("sorted", (0..len as u64).collect()),
        ("reversed", (0..len as u64).rev().collect()),
    ];
    let pool = ThreadPool::new(2);
    for (name, input) in inputs {
        let mut expected = input.clone();
        expected.sort_unstable();
        let mut sorted = input;
        quicksort(&pool, &mut sorted);
        assert!(
            sorted == expected,
            "quicksort of {name} input differs from sort_unstable"
        );
    }
}

// ---------------------------------------------------------------- recursive submit + join

/// A task that submits two subtasks and joins both handles, `depth` levels
/// deep; returns the number of leaves.
fn submit_tree(pool: &Arc<ThreadPool>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (left, right) = (pool.clone(), pool.clone());
    let a = pool.submit(move || submit_tree(&left, depth - 1));
    let b = pool.submit(move || submit_tree(&right, depth - 1));
    a.join().unwrap() + b.join().unwrap()
}

fn run_submit_tree(workers: usize, depth: u32) {
    let pool = Arc::new(ThreadPool::new(workers));
    let inner = pool.clone();
    let root = pool.submit(move || submit_tree(&inner, depth));
    assert_eq!(root.join().unwrap(), 1 << depth, "on {workers} workers");
    pool.wait_all();
    // The root and every subtask are tasks.
    assert_eq!(pool.stats().tasks_executed, (1 << (depth + 1)) - 1);
    Arc::try_unwrap(pool)
        .expect("finished tasks still hold the pool")
        .shutdown();
}

#[test]
fn nested_submit_and_join_completes_on_two_threads() {
    run_submit_tree(2, scaled(12, 3) as u32);
}

#[test]
fn nested_submit_and_join_completes_on_one_thread() {
    // Only work-while-waiting lets the one worker finish: every level waits
    // on handles whose tasks sit on its own deque.
    run_submit_tree(1, scaled(12, 3) as u32);
}

#[test]
fn many_outside_threads_join_and_install_at_once() {
    let threads = scaled(6, 2);
    let pool = Arc::new(ThreadPool::new(2));
    let callers: Vec<_> = (0..threads as u64)
        .map(|t| {
            let pool = pool.clone();
            thread::spawn(move || {
                for round in 0..scaled(20, 2) as u64 {
                    let n = 10 + (t + round) % 6;
                    assert_eq!(fib(&pool, n), fib_sequential(n));
                    let mut data: Vec<u64> = (0..500).map(|i| (i * 7919 + t) % 1000).collect();
                    let mut expected = data.clone();
                    expected.sort_unstable();
                    pool.install(|| quicksort(&pool, &mut data));
                    assert_eq!(data, expected);
                }
            })
        })
        .collect();
    for caller in callers {
        caller.join().unwrap();
    }
}

// ---------------------------------------------------------------- randomized soak

/// What the soak promised and what the pool did.
#[derive(Default)]
struct Ledger {
    /// Sum of the values of every piece of work issued.
    issued: AtomicU64,
    /// Sum of the values of every piece of work that ran.
    done: AtomicU64,
    /// Tasks created: `spawn`, `submit`, `Scope::spawn`.
    tasks: AtomicU64,
    /// Tasks made to panic.
    task_panics: AtomicU64,
    /// Calls of the panic handler (panics of `spawn`ed tasks).
    handled: AtomicU64,
    /// Panics of spawned tasks (what the handler must have seen).
    spawn_panics: AtomicU64,
}

impl Ledger {
    /// Issues a piece of work worth a random value.
    fn issue(&self, rng: &mut Rng) -> u64 {
        let value = 1 + rng.below(1000);
        self.issued.fetch_add(value, Relaxed);
        value
    }

    fn perform(&self, value: u64) {
        self.done.fetch_add(value, Relaxed);
    }

    fn task(&self) {
        self.tasks.fetch_add(1, Relaxed);
    }
}

/// What tasks that go on spawning need: the pool and the ledger. Leaf tasks
/// capture only the ledger, so the pool can be dropped with leaves queued.
struct Soak {
    pool: Arc<ThreadPool>,
    ledger: Arc<Ledger>,
    /// Tasks may call `wait_all`. Only in rounds where no task waits for
    /// another (no handle joins, no scopes inside tasks): a task in
    /// `wait_all` waits for every task not on its own stack, so one that is
    /// itself awaited by a task below it on another stack would never return.
    wait_all_inside: bool,
}

/// The operations the soak draws from.
#[derive(Clone, Copy, Debug)]
enum Op {
    Spawn,
    SpawnLeaf,
    SpawnPanic,
    SubmitJoin,
    SubmitPanic,
    SubmitDrop,
    SubmitAwait,
    Join,
    JoinPanic,
    Scope,
    ScopePanic,
    Install,
    WaitAll,
}

const OPS: [Op; 13] = [
    Op::Spawn,
    Op::SpawnLeaf,
    Op::SpawnPanic,
    Op::SubmitJoin,
    Op::SubmitPanic,
    Op::SubmitDrop,
    Op::SubmitAwait,
    Op::Join,
    Op::JoinPanic,
    Op::Scope,
    Op::ScopePanic,
    Op::Install,
    Op::WaitAll,
];

/// Draws an operation allowed in this context.
fn draw(soak: &Soak, rng: &mut Rng, outside: bool) -> Op {
    loop {
        let op = OPS[rng.below(OPS.len() as u64) as usize];
        let allowed = match op {
            // Blocking a worker thread on a waker could starve the pool.
            Op::SubmitAwait => outside,
            Op::WaitAll => outside || soak.wait_all_inside,
            // In `wait_all` rounds, tasks never wait for other tasks.
            Op::SubmitJoin | Op::SubmitPanic | Op::Join | Op::JoinPanic | Op::Scope | Op::ScopePanic => {
                outside || !soak.wait_all_inside
            }
            _ => true,
        };
        if allowed {
            return op;
        }
    }
}

/// Runs a few random operations, `depth` levels of nesting at most.
fn soak_ops(soak: &Arc<Soak>, rng: &mut Rng, depth: u32, outside: bool) {
    if depth == 0 {
        return;
    }
    for _ in 0..1 + rng.below(2) {
        soak_op(soak, rng, depth, outside);
    }
}

fn soak_op(soak: &Arc<Soak>, rng: &mut Rng, depth: u32, outside: bool) {
    let (pool, ledger) = (&soak.pool, &soak.ledger);
    let op = draw(soak, rng, outside);
    match op {
        Op::Spawn => {
            let value = ledger.issue(rng);
            ledger.task();
            let (soak, mut rng) = (soak.clone(), rng.fork());
            pool.spawn(move || {
                soak.ledger.perform(value);
                soak_ops(&soak, &mut rng, depth - 1, false);
                if soak.wait_all_inside && rng.below(4) == 0 {
                    soak.pool.wait_all();
                }
            });
        }
        Op::SpawnLeaf => {
            let value = ledger.issue(rng);
            ledger.task();
            let ledger = ledger.clone();
            pool.spawn(move || ledger.perform(value));
        }
        Op::SpawnPanic => {
            ledger.task();
            ledger.task_panics.fetch_add(1, Relaxed);
            ledger.spawn_panics.fetch_add(1, Relaxed);
            pool.spawn(|| panic!("{EXPECTED} in a spawned task"));
        }
        Op::SubmitJoin | Op::SubmitAwait => {
            let value = ledger.issue(rng);
            ledger.task();
            let (soak, mut rng) = (soak.clone(), rng.fork());
            let handle = pool.submit(move || {
                soak.ledger.perform(value);
                soak_ops(&soak, &mut rng, depth - 1, false);
                value ^ 0xABCD
            });
            let result = match op {
                Op::SubmitAwait => block_on(handle),
                _ => handle.join(),
            };
            assert_eq!(result.unwrap(), value ^ 0xABCD);
        }
        Op::SubmitPanic => {
            ledger.task();
            ledger.task_panics.fetch_add(1, Relaxed);
            let handle = pool.submit(|| -> u64 { panic!("{EXPECTED} in a submitted task") });
            assert!(handle.join().is_err());
        }
        Op::SubmitDrop => {
            let value = ledger.issue(rng);
            ledger.task();
            let ledger = ledger.clone();
            drop(pool.submit(move || ledger.perform(value)));
        }
        Op::Join => {
            let (va, vb) = (ledger.issue(rng), ledger.issue(rng));
            let (mut ra, mut rb) = (rng.fork(), rng.fork());
            let (a, b) = pool.join(
                || {
                    ledger.perform(va);
                    soak_ops(soak, &mut ra, depth - 1, false);
                    va
                },
                || {
                    ledger.perform(vb);
                    soak_ops(soak, &mut rb, depth - 1, false);
                    vb
                },
            );
            assert_eq!((a, b), (va, vb));
        }
        Op::JoinPanic => {
            // `b` runs even though `a` panics (J5); it carries no work.
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.join(|| -> u64 { panic!("{EXPECTED} in a join") }, || 1)
            }));
            assert!(result.is_err());
        }
        Op::Scope => {
            let slots = 1 + rng.below(6) as usize;
            let values: Vec<u64> = (0..slots).map(|_| ledger.issue(rng)).collect();
            let mut results = vec![0u64; slots];
            let rngs: Vec<Rng> = (0..slots).map(|_| rng.fork()).collect();
            pool.scope(|s| {
                for ((slot, value), mut rng) in results.iter_mut().zip(&values).zip(rngs) {
                    ledger.task();
                    s.spawn(move |s| {
                        ledger.perform(*value);
                        if rng.below(2) == 0 {
                            // A task spawned by a scope task, borrowing the slot.
                            ledger.task();
                            s.spawn(move |_| *slot = *value);
                        } else {
                            *slot = *value;
                        }
                        soak_ops(soak, &mut rng, depth - 1, false);
                    });
                }
            });
            assert_eq!(results, values);
        }
        Op::ScopePanic => {
            let value = ledger.issue(rng);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.scope(|s| {
                    ledger.task();
                    s.spawn(|_| ledger.perform(value));
                    ledger.task();
                    ledger.task_panics.fetch_add(1, Relaxed);
                    s.spawn(|_| panic!("{EXPECTED} in a scope task"));
                })
            }));
            assert!(result.is_err());
        }
        Op::Install => {
            let value = ledger.issue(rng);
            let mut rng = rng.fork();
            let got = pool.install(|| {
                ledger.perform(value);
                soak_ops(soak, &mut rng, depth - 1, false);
                value
            });
            assert_eq!(got, value);
        }
        Op::WaitAll => pool.wait_all(),
    }
}

/// One round: a fresh pool, some outside threads issuing random operations,
/// then either `wait_all` and exact checks, or a drop with work still
/// queued. Returns whether it ended by a drop, and the number of tasks.
fn soak_round(seed: u64) -> (bool, u64) {
    let mut rng = Rng::new(seed);
    let ledger = Arc::new(Ledger::default());
    let handled = ledger.clone();
    let workers = 1 + rng.below(scaled(4, 2) as u64) as usize;
    let pool = ThreadPool::builder()
        .num_threads(workers)
        .panic_handler(move |_| {
            handled.handled.fetch_add(1, Relaxed);
        })
        .build()
        .unwrap();
    let soak = Arc::new(Soak {
        pool: Arc::new(pool),
        ledger: ledger.clone(),
        wait_all_inside: rng.below(4) == 0,
    });
    let (outside, ops, depth) = (
        1 + rng.below(3) as usize,
        scaled(40, 3),
        1 + rng.below(scaled(4, 2) as u64) as u32,
    );
    let threads: Vec<_> = (0..outside)
        .map(|_| {
            let (soak, mut rng) = (soak.clone(), rng.fork());
            thread::spawn(move || {
                for _ in 0..ops {
                    soak_op(&soak, &mut rng, depth, true);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let drop_early = rng.below(3) == 0;
    if !drop_early && !soak.wait_all_inside {
        // No task is inside `wait_all`: one call from here is exact.
        soak.pool.wait_all();
        assert_eq!(soak.pool.pending_tasks(), 0, "seed {seed}");
        assert_eq!(
            ledger.done.load(Relaxed),
            ledger.issued.load(Relaxed),
            "seed {seed}"
        );
    }
    // Tasks that can spawn hold `soak`; once they are gone, the pool is ours.
    let start = Instant::now();
    while Arc::strong_count(&soak) > 1 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "seed {seed}: tasks never finished"
        );
        thread::yield_now();
    }
    let pool = Arc::try_unwrap(Arc::try_unwrap(soak).ok().unwrap().pool).expect("the pool is shared");
    if !drop_early {
        pool.wait_all();
        let stats = pool.stats();
        assert_eq!(pool.pending_tasks(), 0, "seed {seed}");
        assert_eq!(
            stats.tasks_executed,
            ledger.tasks.load(Relaxed),
            "seed {seed}: {stats:?}"
        );
        assert_eq!(
            stats.panicked,
            ledger.task_panics.load(Relaxed),
            "seed {seed}: {stats:?}"
        );
    }
    // Leaf tasks may still be queued here: the drop must run them all.
    drop(pool);
    assert_eq!(
        ledger.done.load(Relaxed),
        ledger.issued.load(Relaxed),
        "seed {seed}"
    );
    assert_eq!(
        ledger.handled.load(Relaxed),
        ledger.spawn_panics.load(Relaxed),
        "seed {seed}"
    );
    (drop_early, ledger.tasks.load(Relaxed))
}

#[test]
fn randomized_soak_of_every_api() {
    quiet_expected_panics();
    // Bounded in time and in rounds: a slow machine does fewer rounds.
    // `STEALPOOL_SOAK_SECONDS` shortens it where each round costs more
    // (ThreadSanitizer's step, model/scripts/verify.sh).
    let seconds = std::env::var("STEALPOOL_SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(miri) { 3600 } else { 20 });
    let budget = Duration::from_secs(seconds);
    let max_rounds = scaled(20_000, 30) as u64;
    let base = std::env::var("STEALPOOL_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_u64);
    let start = Instant::now();
    let (mut rounds, mut drops, mut tasks) = (0, 0, 0);
    while rounds < max_rounds && start.elapsed() < budget {
        let (dropped, round_tasks) = soak_round(base + rounds);
        drops += u64::from(dropped);
        tasks += round_tasks;
        rounds += 1;
    }
    eprintln!(
        "soak: {rounds} rounds, {tasks} tasks ({drops} rounds ended by a drop with work queued) in {:.1?}, \
         seeds {base}..{}",
        start.elapsed(),
        base + rounds
    );
    assert!(rounds > 0);
}

#[test]
fn scope_tree_sums_exactly() {
    fn tree<'s>(s: &stealpool::Scope<'s>, depth: u32, total: &'s AtomicUsize) {
        total.fetch_add(1, Relaxed);
        if depth > 0 {
            s.spawn(move |s| tree(s, depth - 1, total));
            s.spawn(move |s| tree(s, depth - 1, total));
        }
    }
    let depth = scaled(14, 3) as u32;
    let pool = ThreadPool::new(2);
    let total = AtomicUsize::new(0);
    pool.scope(|s| tree(s, depth, &total));
    assert_eq!(total.load(Relaxed), (1 << (depth + 1)) - 1);
}

/// A task spawns a child and then blocks outside the pool until the child
/// has run (loom's `block_after_spawn`, on real threads, with the light and
/// heavy barriers of S3/S2 as they are on this machine: membarrier where
/// Linux offers it). The other worker must not sleep through the child.
#[test]
fn spawn_then_block_outside_the_pool() {
    spawn_then_block_rounds(std::sync::Arc::new(ThreadPool::new(2)));
}

/// As `spawn_then_block_outside_the_pool`, with the child on the spawning
/// worker's bounded deque (G12; loom's `bounded_pool_spawn_then_block`):
/// the other worker's final check must see it there.
#[test]
fn spawn_then_block_outside_the_pool_with_bounded_steals() {
    let pool = std::sync::Arc::new(
        ThreadPool::builder()
            .num_threads(2)
            .bounded_steals(true)
            .build()
            .unwrap(),
    );
    let rounds = spawn_then_block_rounds(pool.clone());
    // Every child was taken from the blocked worker's bounded deque.
    let steals = pool.stats().bounded_steals;
    assert!(steals >= rounds, "{steals} bounded steals in {rounds} rounds");
}

/// Returns the number of rounds it ran.
fn spawn_then_block_rounds(pool: std::sync::Arc<ThreadPool>) -> u64 {
    let rounds: u64 = if cfg!(miri) { 5 } else { 2_000 };
    for round in 0..rounds {
        let spawner = pool.clone();
        let (ran, child_ran) = std::sync::mpsc::channel();
        let handle = pool.submit(move || {
            spawner.spawn(move || {
                let _ = ran.send(());
            });
            child_ran.recv_timeout(std::time::Duration::from_secs(30)).is_ok()
        });
        assert!(
            handle.join().unwrap(),
            "round {round}: the child was stranded for 30 s"
        );
    }
    rounds
}

/// The same through `join` (loom's and shuttle's `join_then_block`): the
/// first half blocks outside the pool until the second has run, so the
/// second must be taken by the other worker, not left on the blocked
/// worker's deque.
#[test]
fn join_then_block_outside_the_pool() {
    let pool = std::sync::Arc::new(ThreadPool::new(2));
    let rounds = if cfg!(miri) { 5 } else { 2_000 };
    for round in 0..rounds {
        let joiner = pool.clone();
        let handle = pool.submit(move || {
            let (ran, second_ran) = std::sync::mpsc::channel();
            let (first, ()) = joiner.join(
                move || {
                    second_ran
                        .recv_timeout(std::time::Duration::from_secs(30))
                        .is_ok()
                },
                move || {
                    let _ = ran.send(());
                },
            );
            first
        });
        assert!(
            handle.join().unwrap(),
            "round {round}: the second half was stranded for 30 s"
        );
    }
}
