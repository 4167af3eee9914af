//! Linearizability of the deque under shuttle: one owner and two thieves
//! with short random operation sequences, thousands of random and PCT
//! schedules, every history checked against the sequential specification by
//! `model/lin/linearizability.rs` (the checker the real-thread test
//! `tests/deque_linearizable.rs` drives too).
//!
//! The invoke and return timestamps come from a `shuttle` atomic counter,
//! bumped just before each call and just after it returns. Reading it is a
//! scheduling point, so shuttle may switch threads between a timestamp and
//! the operation; since shuttle runs one thread at a time and is
//! sequentially consistent, the counter's order is the execution's order,
//! and "returned before invoked" is exact.
//!
//! Shuttle explores interleavings, not weak memory: it finds what goes wrong
//! in some order of the atomic steps (a stale buffer, a claim that races a
//! CAS-free pop), not what needs a store buffer or a relaxed load (loom's
//! job). Every test counts its executions with a plain `std` atomic (outside
//! the facade) and fails below its floor, so a harness that runs nothing
//! cannot pass.
//!
//! Run with `cargo test --features shuttle --test lin_deque` (the quick bounds;
//! `STEALPOOL_MODEL_BOUNDS=full` for the bounds stated here, `support/bounds.rs`);
//! each test prints a line as it starts and one as it ends.

#[path = "record.rs"]
mod lin_record;
#[path = "linearizability.rs"]
mod linearizability;
#[path = "../support/shuttle_run.rs"]
mod shuttle_run;

use lin_record::{batch, fifo_batch, stolen};
use linearizability::{check, Action, OverlapTally, Recorder};
use shuttle::rand::{thread_rng, RngCore};
use shuttle::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use shuttle::sync::Arc;
use shuttle::thread;
use shuttle_run::{progress, run_seeded, Schedule};
use stealpool::deque::Worker;

/// Thieves besides the owner.
const THIEVES: usize = 2;

/// The scheduler seeds of the seven tests, in the order below.
const SEEDS: [u64; 7] = [
    0x5EED_0001,
    0x5EED_0002,
    0x5EED_0003,
    0x5EED_0004,
    0x5EED_0005,
    0x5EED_0006,
    0x5EED_0007,
];

/// Each test's overlap floors (percent of its histories with calls of two
/// threads overlapping, with an owner's pop overlapping a successful steal,
/// and with two successful steals overlapping), in the order of [`SEEDS`].
/// The counts measured are a little above (printed by each test; with the
/// quick bounds' tenth of the schedules as with the full ones).
const FLOORS: [(usize, usize, usize); 7] = [
    (99, 50, 4),
    (55, 10, 1),
    (90, 20, 3),
    (95, 90, 30),
    (30, 5, 5),
    (55, 8, 1),
    (95, 75, 20),
];

/// What the thieves call.
#[derive(Clone, Copy)]
enum Thieves {
    /// `steal` only.
    Steal,
    /// `steal` or `steal_batch_and_pop`, one in two, at random.
    StealAndBatch,
}

/// Which flavour of deque is checked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavour {
    /// `Worker::with_capacity`: the owner pops the newest.
    Lifo,
    /// `Worker::fifo_with_capacity` (D19): the owner pops the oldest, and
    /// the batching thieves steal into FIFO workers of their own.
    Fifo,
}

/// One execution: the owner does `owner_ops` random pushes (two in three)
/// and pops on a deque of capacity 1 (so pushes grow it while thieves
/// steal), each thief `thief_ops` calls; then the history is checked.
fn owner_and_thieves(
    owner_ops: usize,
    thief_ops: usize,
    kind: Thieves,
    flavour: Flavour,
    tally: std::sync::Arc<OverlapTally>,
) -> impl Fn() + Send + Sync + 'static {
    move || {
        let clock = Arc::new(AtomicU64::new(1));
        let owner_done = Arc::new(AtomicBool::new(false));
        let fifo = flavour == Flavour::Fifo;
        let worker = if fifo {
            Worker::<usize>::fifo_with_capacity(1)
        } else {
            Worker::<usize>::with_capacity(1)
        };
        let thieves: Vec<_> = (1..=THIEVES)
            .map(|thread| {
                let stealer = worker.stealer();
                let clock = clock.clone();
                let owner_done = owner_done.clone();
                thread::spawn(move || {
                    let tick = || clock.fetch_add(1, SeqCst);
                    let mut log = Recorder::new(thread);
                    let dest = if fifo {
                        Worker::<usize>::fifo_with_capacity(1)
                    } else {
                        Worker::<usize>::with_capacity(1)
                    };
                    // Recorded by shuttle, like the owner's choices.
                    let mut choices = thread_rng().next_u64();
                    if matches!(kind, Thieves::StealAndBatch) {
                        // Batches start once there are three elements to
                        // claim two of (or the owner is done), so that they
                        // overlap the owner's pops; a spin loop is a
                        // scheduling point per round under shuttle.
                        while stealer.len() < 3 && !owner_done.load(SeqCst) {
                            thread::yield_now();
                        }
                    }
                    for _ in 0..thief_ops {
                        let use_batch = matches!(kind, Thieves::StealAndBatch) && choices % 2 == 1;
                        choices /= 2;
                        if use_batch && fifo {
                            log.record_fifo_batch(tick, || fifo_batch(&stealer, &dest));
                        } else if use_batch {
                            log.record_batch(tick, || batch(&stealer, &dest));
                        } else {
                            log.record(tick, || Action::Steal(stolen(stealer.steal())));
                        }
                    }
                    log.into_events()
                })
            })
            .collect();
        let tick = || clock.fetch_add(1, SeqCst);
        // Recorded by shuttle, so a failing schedule replays the same ops.
        let mut choices = thread_rng().next_u64();
        let mut log = Recorder::new(0);
        let mut next = 1usize;
        for op in 0..owner_ops {
            // With batches, three pushes first, then pops one time in two:
            // a batch that finds three elements claims two, and the owner's
            // next two pops reach into that range (B1).
            let push = match kind {
                Thieves::Steal => choices % 3 != 0,
                Thieves::StealAndBatch => op < 3 || choices % 3 == 0,
            };
            choices /= 3;
            if push {
                let value = next;
                next += 1;
                log.record(tick, || {
                    worker.push(value);
                    Action::Push(value as u64)
                });
            } else {
                log.record(tick, || {
                    let popped = worker.pop().map(|v| v as u64);
                    if fifo {
                        Action::PopOldest(popped)
                    } else {
                        Action::Pop(popped)
                    }
                });
            }
        }
        owner_done.store(true, SeqCst);
        let mut history = log.into_events();
        for thief in thieves {
            history.extend(thief.join().unwrap());
        }
        if let Err(failure) = check(&history) {
            panic!("{failure}");
        }
        tally.add(&history);
    }
}

/// Runs `owner_and_thieves(owner_ops, thief_ops, kind)` under `schedule`
/// seeded with `seed`, prints the overlap of its histories and fails below
/// the floors: at least `cross` % of the histories with calls of two
/// threads overlapping, `pop` % with an owner's pop overlapping a
/// successful steal, `steals` % with two successful steals overlapping.
/// The seeds are fixed, so the counts are the same on every run and the
/// floors (set under the counts measured, for the quick bounds' tenth of
/// the schedules too) cannot fail by chance.
#[allow(clippy::too_many_arguments)]
fn lin_test(
    name: &str,
    schedule: Schedule,
    seed: u64,
    owner_ops: usize,
    thief_ops: usize,
    kind: Thieves,
    flavour: Flavour,
    (cross, pop, steals): (usize, usize, usize),
) {
    let tally = std::sync::Arc::new(OverlapTally::default());
    run_seeded(
        "lin_deque",
        name,
        schedule,
        Some(seed),
        owner_and_thieves(owner_ops, thief_ops, kind, flavour, tally.clone()),
    );
    progress::line(format_args!("lin_deque {name}: {}", tally.summary()));
    tally.assert_floors(&format!("lin_deque {name}"), cross, pop, steals);
}

// 50000 random schedules: the owner does 6 operations, each thief 4 steals
// (floor: all 50000 must run).
#[test]
fn owner_and_two_thieves_random() {
    lin_test(
        "owner_and_two_thieves_random",
        Schedule::Random { iterations: 50000 },
        SEEDS[0],
        6,
        4,
        Thieves::Steal,
        Flavour::Lifo,
        FLOORS[0],
    );
}

// 50000 PCT schedules, depth 3: few, well-placed preemptions, which is what
// the stale-buffer bug needs (a thief preempted inside one steal while the
// owner grows, pops and pushes) (floor: all 50000 must run).
#[test]
fn owner_and_two_thieves_pct() {
    lin_test(
        "owner_and_two_thieves_pct",
        Schedule::Pct {
            iterations: 50000,
            depth: 3,
        },
        SEEDS[1],
        6,
        4,
        Thieves::Steal,
        Flavour::Lifo,
        FLOORS[1],
    );
}

// 20000 PCT schedules, depth 6, with 6 steals per thief: longer histories
// (18 operations), more preemptions (floor: all 20000 must run).
#[test]
fn owner_and_two_thieves_pct_deep() {
    lin_test(
        "owner_and_two_thieves_pct_deep",
        Schedule::Pct {
            iterations: 20000,
            depth: 6,
        },
        SEEDS[2],
        6,
        6,
        Thieves::Steal,
        Flavour::Lifo,
        FLOORS[2],
    );
}

// Batches: each thief's 3 calls are `steal` or `steal_batch_and_pop` at
// random; the owner does 3 pushes, then 4 operations, pops two times in
// three, so that batches find several elements and pops reach into them.
// 30000 random and 30000 PCT depth 3 schedules (floors: all must run).
#[test]
fn owner_and_two_batching_thieves_random() {
    lin_test(
        "owner_and_two_batching_thieves_random",
        Schedule::Random { iterations: 30000 },
        SEEDS[3],
        7,
        3,
        Thieves::StealAndBatch,
        Flavour::Lifo,
        FLOORS[3],
    );
}

#[test]
fn owner_and_two_batching_thieves_pct() {
    lin_test(
        "owner_and_two_batching_thieves_pct",
        Schedule::Pct {
            iterations: 30000,
            depth: 3,
        },
        SEEDS[4],
        7,
        3,
        Thieves::StealAndBatch,
        Flavour::Lifo,
        FLOORS[4],
    );
}

// A FIFO worker (D19): its owner's pops take the oldest, by D17's claim,
// judged as steals that cannot answer `Retry`. 30000 PCT schedules, depth
// 3, the owner doing 6 operations on a deque of one slot, each thief 4
// steals (floor: all 30000 must run).
#[test]
fn fifo_owner_and_two_thieves_pct() {
    lin_test(
        "fifo_owner_and_two_thieves_pct",
        Schedule::Pct {
            iterations: 30000,
            depth: 3,
        },
        SEEDS[5],
        6,
        4,
        Thieves::Steal,
        Flavour::Fifo,
        FLOORS[5],
    );
}

// A FIFO worker with batching thieves, each stealing into a FIFO worker of
// its own (`steal_batch_and_pop` returns the oldest it took, the thief's
// worker pops the rest oldest first): 30000 random schedules, as
// `owner_and_two_batching_thieves_random` (floor: all 30000 must run).
#[test]
fn fifo_owner_and_two_batching_thieves_random() {
    lin_test(
        "fifo_owner_and_two_batching_thieves_random",
        Schedule::Random { iterations: 30000 },
        SEEDS[6],
        7,
        3,
        Thieves::StealAndBatch,
        Flavour::Fifo,
        FLOORS[6],
    );
}
