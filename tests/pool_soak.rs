#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! A randomized soak on real threads that mixes every API from inside and
//! outside the pool with exact accounting.
//!
//! Counts scale down under Miri.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering::*};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use stealpool::ThreadPool;

mod common;
use common::stress::Rng;
use common::{block_on, quiet_expected_panics, scaled, EXPECTED};

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
