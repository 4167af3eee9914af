//! Shuttle models of the bounded deque (`deque::BoundedWorker`,
//! `deque::BoundedStealer`, `proofs/bounded.md`): many thieves, a thief
//! stopped for good in the middle of its request, and linearizability of
//! the histories (`model/lin/linearizability.rs`, the checker the other deque
//! drivers use).
//!
//! Shuttle explores interleavings, sequentially consistent (loom's
//! `loom/bounded.rs` covers the orderings). Every request's rounds are
//! checked against `ROUND_BOUND` inside the deque in these builds, so each
//! schedule also checks the bound; each test prints the most rounds seen.
//! Every test counts its schedules and fails below its floor
//! (`support/shuttle_run.rs`).
//!
//! The last two tests are the pool's on these deques (G12): three workers
//! with `Builder::bounded_steals`.
//!
//! Run with `cargo test --features shuttle --test shuttle_bounded` (the
//! quick bounds: a tenth of the schedules; `STEALPOOL_MODEL_BOUNDS=full` for
//! those stated here).

#[path = "../lin/linearizability.rs"]
mod linearizability;
#[path = "../support/shuttle_run.rs"]
mod shuttle_run;

use linearizability::{check, Action, OverlapTally, Recorder, Stolen};
use shuttle::rand::{thread_rng, RngCore};
use shuttle::sync::atomic::{AtomicU64, Ordering::SeqCst};
use shuttle::sync::Arc;
use shuttle::thread;
use shuttle_run::{progress, run, run_seeded, Schedule};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use stealpool::deque::{BoundedStealer, BoundedWorker, Steal, ROUND_BOUND};
#[path = "../support/signal.rs"]
mod signal;
use signal::Signal;

fn stolen(steal: Steal<usize>) -> Stolen {
    match steal {
        Steal::Success(v) => Stolen::Success(v as u64),
        Steal::Empty => Stolen::Empty,
        Steal::Retry => panic!("a bounded steal returned Retry"),
    }
}

fn report_rounds(what: &str) {
    let most = BoundedStealer::<usize>::most_rounds();
    progress::line(format_args!(
        "shuttle_bounded {what}: at most {most} rounds per request (bound {ROUND_BOUND})"
    ));
    assert!(most <= ROUND_BOUND);
}

/// Every pushed element came out exactly once.
fn assert_exactly_once(pushed: usize, mut out: Vec<usize>) {
    out.sort_unstable();
    assert_eq!(
        out,
        (1..=pushed).collect::<Vec<_>>(),
        "elements out differ from elements pushed"
    );
}

/// The owner does `owner_ops` random pushes (two in three) and pops on a
/// deque of capacity 2 (so pushes grow it while thieves steal); each of
/// `thieves` thieves steals `steals` times; the history is checked.
fn linearizable(
    thieves: usize,
    owner_ops: usize,
    steals: usize,
    tally: std::sync::Arc<OverlapTally>,
) -> impl Fn() + Send + Sync {
    move || {
        let clock = Arc::new(AtomicU64::new(1));
        let worker = BoundedWorker::<usize>::with_capacity(2);
        let handles: Vec<_> = (1..=thieves)
            .map(|thread| {
                let stealer = worker.stealer();
                let clock = clock.clone();
                thread::spawn(move || {
                    let tick = || clock.fetch_add(1, SeqCst);
                    let mut log = Recorder::new(thread);
                    for _ in 0..steals {
                        log.record(tick, || Action::Steal(stolen(stealer.steal())));
                    }
                    log.into_events()
                })
            })
            .collect();
        let tick = || clock.fetch_add(1, SeqCst);
        let mut choices = thread_rng().next_u64();
        let mut log = Recorder::new(0);
        let mut next = 1usize;
        for _ in 0..owner_ops {
            let push = choices % 3 != 0;
            choices /= 3;
            if push {
                let value = next;
                next += 1;
                log.record(tick, || {
                    worker.push(value);
                    Action::Push(value as u64)
                });
            } else {
                log.record(tick, || Action::Pop(worker.pop().map(|v| v as u64)));
            }
        }
        let mut history = log.into_events();
        for handle in handles {
            history.extend(handle.join().unwrap());
        }
        if let Err(failure) = check(&history) {
            panic!("{failure}");
        }
        tally.add(&history);
    }
}

fn lin_test(name: &str, schedule: Schedule, seed: u64, (cross, pop, steals): (usize, usize, usize)) {
    let tally = std::sync::Arc::new(OverlapTally::default());
    run_seeded(
        "shuttle_bounded",
        name,
        schedule,
        Some(seed),
        linearizable(3, 7, 3, tally.clone()),
    );
    progress::line(format_args!("shuttle_bounded {name}: {}", tally.summary()));
    tally.assert_floors(&format!("shuttle_bounded {name}"), cross, pop, steals);
    report_rounds(name);
}

// 20000 random schedules, seeded: the owner does 7 operations, three
// thieves 3 steals each; every history linearizable (overlap floors about
// five points below the counts measured: 100%, 58% and 32% of the
// histories, down from 81% and 71% when deliveries carried boxes and the
// owner's last element always took a request: calls have fewer steps now,
// so random schedules overlap them less; a tenth of the schedules gives
// the same shares).
#[test]
fn linearizable_owner_and_three_thieves_random() {
    lin_test(
        "linearizable_owner_and_three_thieves_random",
        Schedule::Random { iterations: 20000 },
        0xB0_0001,
        (95, 53, 27),
    );
}

// 20000 PCT schedules, depth 3, seeded (measured: 78%, 16% and 14%).
#[test]
fn linearizable_owner_and_three_thieves_pct() {
    lin_test(
        "linearizable_owner_and_three_thieves_pct",
        Schedule::Pct {
            iterations: 20000,
            depth: 3,
        },
        0xB0_0002,
        (70, 12, 10),
    );
}

// 5000 random schedules: seven thieves and the owner; 12 elements pushed,
// each thief steals until it sees the deque empty, the owner pops a third
// of the time; every element comes out exactly once.
#[test]
fn seven_thieves() {
    run(
        "shuttle_bounded",
        "seven_thieves",
        Schedule::Random { iterations: 5000 },
        || {
            let worker = BoundedWorker::<usize>::with_capacity(2);
            let thieves: Vec<_> = (0..7)
                .map(|_| {
                    let stealer = worker.stealer();
                    thread::spawn(move || {
                        let mut got = Vec::new();
                        while let Some(v) = stolen_value(stealer.steal()) {
                            got.push(v);
                        }
                        got
                    })
                })
                .collect();
            let mut out = Vec::new();
            for value in 1..=12 {
                worker.push(value);
                if value % 3 == 0 {
                    out.extend(worker.pop());
                }
            }
            for thief in thieves {
                out.extend(thief.join().unwrap());
            }
            while let Some(v) = worker.pop() {
                out.push(v);
            }
            assert_exactly_once(12, out);
        },
    );
    report_rounds("seven_thieves");
}

fn stolen_value(steal: Steal<usize>) -> Option<usize> {
    match steal {
        Steal::Success(v) => Some(v),
        Steal::Empty => None,
        Steal::Retry => panic!("a bounded steal returned Retry"),
    }
}

// 5000 random and 5000 PCT (depth 3) schedules: the progress test. One
// thief announces a request and never runs again (its thread ends right
// after `start_steal`); four thieves and the owner steal, push and pop all
// the same, each call within the round bound. Some schedules must see the
// stopped request served or withdrawn by the others (helping); it is read
// only after everyone else is done, and its element is counted once.
#[test]
fn a_stopped_thief_keeps_no_one_waiting() {
    let helped = std::sync::Arc::new(AtomicUsize::new(0));
    for (name, schedule) in [
        (
            "a_stopped_thief_keeps_no_one_waiting_random",
            Schedule::Random { iterations: 5000 },
        ),
        (
            "a_stopped_thief_keeps_no_one_waiting_pct",
            Schedule::Pct {
                iterations: 5000,
                depth: 3,
            },
        ),
    ] {
        let helped = helped.clone();
        run("shuttle_bounded", name, schedule, move || {
            let worker = BoundedWorker::<usize>::with_capacity(2);
            let stopped = worker.stealer();
            stopped.start_steal();
            let thieves: Vec<_> = (0..4)
                .map(|_| {
                    let stealer = worker.stealer();
                    thread::spawn(move || {
                        let mut got = Vec::new();
                        for _ in 0..3 {
                            got.extend(stolen_value(stealer.steal()));
                        }
                        got
                    })
                })
                .collect();
            let mut out = Vec::new();
            for value in 1..=8 {
                worker.push(value);
                if value % 4 == 0 {
                    out.extend(worker.pop());
                }
            }
            for thief in thieves {
                out.extend(thief.join().unwrap());
            }
            if stopped.is_decided() {
                helped.fetch_add(1, Relaxed);
            }
            out.extend(stolen_value(stopped.finish_steal()));
            while let Some(v) = worker.pop() {
                out.push(v);
            }
            assert_exactly_once(8, out);
        });
    }
    let helped = helped.load(Relaxed);
    progress::line(format_args!("shuttle_bounded a_stopped_thief_keeps_no_one_waiting: the stopped request was decided by others in {helped} schedules"));
    assert!(helped > 0, "no schedule served or withdrawn the stopped request");
    report_rounds("a_stopped_thief_keeps_no_one_waiting");
}

/// A pool of three workers with bounded deques (G12): a task from outside
/// spawns three from inside (on its worker's bounded deque), then blocks
/// outside the pool until the last of them has run: the two other workers
/// must steal them, their requests perhaps combined, and neither may
/// sleep with one left there. Every task runs exactly once.
fn bounded_pool_storm() {
    const CHILDREN: usize = 3;
    let pool = Arc::new(
        stealpool::ThreadPool::builder()
            .num_threads(3)
            .bounded_steals(true)
            .build()
            .unwrap(),
    );
    let runs: std::sync::Arc<Vec<AtomicUsize>> =
        std::sync::Arc::new((0..=CHILDREN).map(|_| AtomicUsize::new(0)).collect());
    let (spawner, counts) = (pool.clone(), runs.clone());
    pool.spawn(move || {
        counts[0].fetch_add(1, Relaxed);
        let signal = Arc::new(Signal::new());
        for child in 1..=CHILDREN {
            let (counts, signal) = (counts.clone(), signal.clone());
            spawner.spawn(move || {
                counts[child].fetch_add(1, Relaxed);
                if child == CHILDREN {
                    signal.raise();
                }
            });
        }
        signal.wait();
    });
    pool.wait_all();
    Arc::try_unwrap(pool)
        .unwrap_or_else(|_| panic!("a finished task still holds the pool"))
        .shutdown();
    for (task, r) in runs.iter().enumerate() {
        assert_eq!(r.load(Relaxed), 1, "task {task} ran twice or never");
    }
}

// 10 000 random + 10 000 PCT (depth 3) schedules: `bounded_pool_storm`
// (about 2.5 s). `--cfg stealpool_bug="bounded_unchecked"` deadlocks the
// PCT test within its first schedules.
#[test]
fn bounded_pool_random() {
    run(
        "shuttle_bounded",
        "bounded_pool_random",
        Schedule::Random { iterations: 10_000 },
        bounded_pool_storm,
    );
}

#[test]
fn bounded_pool_pct() {
    run(
        "shuttle_bounded",
        "bounded_pool_pct",
        Schedule::Pct {
            iterations: 10_000,
            depth: 3,
        },
        bounded_pool_storm,
    );
}
