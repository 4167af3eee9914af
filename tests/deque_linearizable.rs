#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Linearizability of the deque on real threads: many short rounds, each an
//! owner doing random pushes and pops while two thieves steal, every round's
//! history checked against the sequential specification by
//! `model/linearizability.rs` (the same checker the shuttle harness
//! `model/lin_deque.rs` drives).
//!
//! Each operation is bracketed by two `fetch_add`s on one `SeqCst` counter
//! (invoke and return timestamps). The counter's modification order is a
//! total order of those read-modify-writes, and each one synchronizes with
//! the next (every RMW continues the release sequence), so "returned before
//! the other was invoked" in counter order is a happens-before edge: the
//! real-time order the checker enforces is a real one.
//!
//! Rounds are short (3 threads, at most 6 operations each) so that the
//! threads overlap and the search stays small; capacity 1 makes the owner
//! grow the buffer while thieves steal. Counts scale down under Miri.
//! `STEALPOOL_LIN_ROUNDS=N` overrides the number of rounds (for hunting a
//! mutant: see `proofs/linearizability.md`).

#[path = "../model/lin_record.rs"]
mod lin_record;
#[path = "../model/linearizability.rs"]
mod linearizability;

mod common;

use common::{scaled, Rng};
use lin_record::{batch, stolen};
use linearizability::{check, Action, Event, Recorder, Stolen};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::thread;
use std::time::Instant;
use stealpool::deque::Worker;

/// Thieves besides the owner.
const THIEVES: usize = 2;
/// Operations per thread and round.
const OPS: usize = 6;

/// Waits, spinning and then yielding, until `flag` is set.
fn spin_until(flag: &AtomicBool) {
    let mut spins = 0u32;
    while !flag.load(SeqCst) {
        spins += 1;
        if spins < 1000 {
            std::hint::spin_loop();
        } else {
            thread::yield_now();
        }
    }
}

/// The number of rounds: `STEALPOOL_LIN_ROUNDS` if set, else `default`.
fn rounds(default: usize) -> usize {
    std::env::var("STEALPOOL_LIN_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// One round: returns the history of all three threads. Each thief calls
/// `steal` or, one time in three, `steal_batch_and_pop`.
fn round(seed: u64) -> Vec<Event> {
    let clock = AtomicU64::new(1);
    let tick = || clock.fetch_add(1, SeqCst);
    let worker = Worker::<usize>::with_capacity(1);
    let ready = AtomicUsize::new(0);
    let go = AtomicBool::new(false);
    thread::scope(|s| {
        let thieves: Vec<_> = (1..=THIEVES)
            .map(|thread| {
                let stealer = worker.stealer();
                let (tick, ready, go) = (&tick, &ready, &go);
                s.spawn(move || {
                    let mut log = Recorder::new(thread);
                    let dest = Worker::with_capacity(1);
                    let mut rng = Rng(seed.rotate_left(8 * thread as u32) | 1);
                    ready.fetch_add(1, SeqCst);
                    spin_until(go);
                    for _ in 0..OPS {
                        if rng.next() % 3 == 0 {
                            log.record_batch(tick, || batch(&stealer, &dest));
                        } else {
                            log.record(tick, || Action::Steal(stolen(stealer.steal())));
                        }
                    }
                    log.into_events()
                })
            })
            .collect();
        let mut rng = Rng(seed | 1);
        let mut log = Recorder::new(0);
        while ready.load(SeqCst) < THIEVES {
            thread::yield_now();
        }
        go.store(true, SeqCst);
        let mut next = 1usize;
        for _ in 0..OPS {
            // Pushes two times in three, so the deque fills up and the
            // thieves find something.
            if rng.next() % 3 != 0 {
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
        for thief in thieves {
            history.extend(thief.join().unwrap());
        }
        history
    })
}

#[test]
fn owner_and_two_thieves_are_linearizable() {
    let rounds = rounds(scaled(2000, 20));
    let start = Instant::now();
    let (mut stolen, mut retries, mut popped, mut moved) = (0, 0, 0, 0);
    for r in 0..rounds {
        let seed = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(r as u64 + 1);
        let history = round(seed);
        if let Err(failure) = check(&history) {
            panic!(
                "round {r} of {rounds} (seed {seed:#x}, after {:.2?}): {failure}",
                start.elapsed()
            );
        }
        for e in &history {
            match e.action {
                Action::Steal(Stolen::Success(_)) | Action::Batch(Stolen::Success(_)) => stolen += 1,
                Action::Steal(Stolen::Retry) | Action::Batch(Stolen::Retry) => retries += 1,
                Action::BatchMoved(_) => moved += 1,
                Action::Pop(Some(_)) => popped += 1,
                _ => {}
            }
        }
    }
    eprintln!(
        "deque_linearizable: {rounds} executions in {:.2?}, each history linearizable \
         ({stolen} steals and batches succeeded, {moved} elements moved by batches, {retries} retried, \
         {popped} pops succeeded)",
        start.elapsed()
    );
    // Not vacuous: thieves took elements while the owner worked.
    assert!(stolen > 0, "no steal succeeded in {rounds} rounds");
    assert!(moved > 0, "no batch moved an element in {rounds} rounds");
}

/// The store-buffering race of D3/D6, aimed at: one owner and one thief on
/// two long-lived threads (one per core of a 2-core machine; spawning per
/// round would leave too few rounds), one long-lived deque. Each round the
/// owner pushes 1 and 2, lets the thief go, and after a random spin of up
/// to a few hundred cycles pops twice; the thief, after its own random spin,
/// steals twice. Then the owner drains the deque, so every round starts
/// from an empty one. The random spins make some rounds line the two up:
/// without D3 the owner's pop can read `top` before the thief's first CAS
/// while its store of `bottom` is still buffered, and take 2 without a CAS
/// while the thief's second steal takes it too.
///
/// Bounded by rounds and by time (`STEALPOOL_LIN_SECONDS`, default 10 s),
/// whichever ends first; the test asserts that both sides took elements in
/// the same round in at least 100 rounds, so that the race was run. On a
/// loaded machine, where the two threads seldom run at once, it goes on
/// past the time bound until it has those 100, for at most three times the
/// bound.
#[test]
fn pop_against_steals_round_after_round() {
    let rounds = rounds(scaled(200_000, 10));
    let floor = (rounds / 100).min(100);
    let seconds: u64 = std::env::var("STEALPOOL_LIN_SECONDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    let start = Instant::now();
    let clock = AtomicU64::new(1);
    let tick = || clock.fetch_add(1, SeqCst);
    let worker = Worker::<usize>::with_capacity(4);
    let stealer = worker.stealer();
    // The round the thief may start (it waits for round r; 0 = stop), and
    // the last round it finished, with its history.
    let ready = AtomicUsize::new(0);
    let started = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let thief_log = std::sync::Mutex::new(Vec::new());
    let (mut ran, mut steals, mut contended) = (0usize, 0usize, 0usize);
    thread::scope(|s| {
        s.spawn(|| {
            let mut rng = Rng(0x2545_F491_4F6C_DD1D);
            for r in 1.. {
                ready.store(r, SeqCst);
                // Spin, not yield: waking up late would miss the pops.
                while started.load(SeqCst) < r && !stop.load(SeqCst) {
                    std::hint::spin_loop();
                }
                if stop.load(SeqCst) {
                    return;
                }
                let mut log = Recorder::new(1);
                spin(rng.next() % 4);
                for _ in 0..2 {
                    log.record(tick, || Action::Steal(stolen(stealer.steal())));
                }
                *thief_log.lock().unwrap() = log.into_events();
                finished.store(r, SeqCst);
            }
        });
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for r in 1..=rounds {
            let mut log = Recorder::new(0);
            for value in [1, 2] {
                log.record(tick, || {
                    worker.push(value);
                    Action::Push(value as u64)
                });
            }
            wait_for(&ready, r, &AtomicBool::new(false));
            started.store(r, SeqCst);
            // The thief needs a cache miss to see `started`.
            spin(rng.next() % 48);
            for _ in 0..2 {
                log.record(tick, || Action::Pop(worker.pop().map(|v| v as u64)));
            }
            wait_for(&finished, r, &AtomicBool::new(false));
            // Alone now: empty the deque, so the next round starts empty.
            while log.record(tick, || Action::Pop(worker.pop().map(|v| v as u64))) != Action::Pop(None) {}
            let mut history = log.into_events();
            history.extend(thief_log.lock().unwrap().drain(..));
            if let Err(failure) = check(&history) {
                stop.store(true, SeqCst);
                panic!("round {r} of {rounds} (after {:.2?}): {failure}", start.elapsed());
            }
            let took = history
                .iter()
                .filter(|e| matches!(e.action, Action::Steal(Stolen::Success(_))))
                .count();
            steals += took;
            // Both sides got an element in the same round: the race was on.
            let popped = history.iter().any(|e| matches!(e.action, Action::Pop(Some(_))));
            contended += usize::from(took > 0 && popped);
            ran = r;
            let elapsed = start.elapsed().as_secs();
            if (elapsed >= seconds && contended >= floor) || elapsed >= 3 * seconds {
                break;
            }
        }
        stop.store(true, SeqCst);
    });
    eprintln!(
        "deque_linearizable pop_against_steals: {ran} executions in {:.2?}, each history linearizable \
         ({steals} steals succeeded; in {contended} rounds both the owner and the thief took an element)",
        start.elapsed()
    );
    assert!(
        contended >= floor,
        "the owner and the thief raced in only {contended} of {ran} rounds"
    );
}

/// Spins for about `n` pause instructions.
fn spin(n: u64) {
    for _ in 0..n {
        std::hint::spin_loop();
    }
}

/// Waits, spinning and then yielding, until `counter` reaches `value` or
/// `stop` is set.
fn wait_for(counter: &AtomicUsize, value: usize, stop: &AtomicBool) {
    let mut spins = 0u32;
    while counter.load(SeqCst) < value && !stop.load(SeqCst) {
        spins += 1;
        if spins < 1000 {
            std::hint::spin_loop();
        } else {
            thread::yield_now();
        }
    }
}
