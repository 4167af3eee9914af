//! Shuttle tests of the deque: one owner and three thieves running long random
//! operation sequences under shuttle's random and PCT schedulers, thousands
//! of schedules each.
//!
//! Shuttle is sequentially consistent only (the weak-memory cases are loom's,
//! see `loom/deque.rs`); what it adds is scale: hundreds of operations per
//! schedule, growth from capacity 1 under stealing, batches into the thieves'
//! own workers, and the drop of a deque with elements left inside.
//!
//! Every test checks that the elements that came out (popped, stolen, moved by
//! a batch and popped from the thief's own worker, or drained at the end) are
//! exactly the elements pushed, as a multiset, and counts its schedules with
//! a plain `std` atomic (outside the facade), failing below the number it
//! asked for, so a harness that runs nothing cannot pass.
//!
//! The operations are drawn from a xorshift generator seeded per thread from
//! `shuttle::rand`, which shuttle records, so a failing schedule printed by
//! shuttle replays with the same operations.
//!
//! Run with `cargo test --features shuttle --test shuttle_deque` (the quick bounds;
//! `STEALPOOL_MODEL_BOUNDS=full` for the bounds stated here, `support/bounds.rs`);
//! each test prints a line as it starts and one as it ends.

#[path = "../support/shuttle_run.rs"]
mod shuttle_run;

use shuttle::rand::{thread_rng, RngCore};
use shuttle::sync::{Arc, Mutex};
use shuttle::thread;
use shuttle_run::{run, Schedule};
use stealpool::deque::{Steal, Stealer, Worker};

/// The number of thieves besides the owner.
const THIEVES: usize = 3;

/// A xorshift64 generator for the operation mix.
struct XorShift(u64);

impl XorShift {
    /// Seeded from shuttle's recorded randomness.
    fn from_shuttle() -> XorShift {
        XorShift(thread_rng().next_u64() | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// `true` with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Every pushed element came out exactly once: equal as multisets.
fn assert_exactly_once(pushed: usize, mut out: Vec<usize>) {
    out.sort_unstable();
    let expected: Vec<usize> = (1..=pushed).collect();
    if out != expected {
        let missing: Vec<usize> = expected
            .iter()
            .filter(|v| out.binary_search(v).is_err())
            .copied()
            .collect();
        let twice: Vec<usize> = out.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect();
        panic!(
            "{} elements out for {pushed} pushed; missing {missing:?}, out more than once {twice:?}, \
             out of range {:?}",
            out.len(),
            out.iter().filter(|&&v| v == 0 || v > pushed).collect::<Vec<_>>()
        );
    }
}

/// A thief: `attempts` random steals or batch steals into its own worker
/// (capacity 1, so batches grow it), popping from that worker now and then,
/// and draining it at the end. Returns everything it got.
fn thief(stealer: Stealer<usize>, attempts: usize, max_value: usize) -> Vec<usize> {
    let mut rng = XorShift::from_shuttle();
    let own = Worker::with_capacity(1);
    let mut got = Vec::new();
    let mut keep = |value: usize| {
        assert!(
            (1..=max_value).contains(&value),
            "a thief got {value}, which was never pushed"
        );
        got.push(value);
    };
    for _ in 0..attempts {
        let outcome = if rng.chance(50) {
            stealer.steal()
        } else {
            stealer.steal_batch_and_pop(&own)
        };
        match outcome {
            Steal::Success(value) => keep(value),
            Steal::Empty | Steal::Retry => thread::yield_now(),
        }
        if rng.chance(30) {
            if let Some(value) = own.pop() {
                keep(value);
            }
        }
    }
    while let Some(value) = own.pop() {
        keep(value);
    }
    got
}

/// One owner and three thieves, from a deque of capacity 1. The owner pushes
/// the values `1..=ops` in bursts of 1 to 8 and after each burst pops 0 to
/// `max_pops` times, so the deque both grows long (large batches, growth
/// while thieves hold old buffers) and is popped down into the range a batch
/// is claiming; the thieves steal meanwhile. Afterwards the owner drains what
/// is left, and everything is checked exactly once.
fn owner_and_thieves(ops: usize, max_pops: u64) -> impl Fn() + Send + Sync + 'static {
    owner_and_thieves_on(Worker::with_capacity, ops, max_pops)
}

/// `owner_and_thieves` on deques made by `new_deque` (symmetric or
/// owner-biased).
fn owner_and_thieves_on(
    new_deque: fn(usize) -> Worker<usize>,
    ops: usize,
    max_pops: u64,
) -> impl Fn() + Send + Sync + 'static {
    move || {
        let worker = new_deque(1);
        let handles: Vec<_> = (0..THIEVES)
            .map(|_| {
                let stealer = worker.stealer();
                thread::spawn(move || thief(stealer, ops / 2, ops))
            })
            .collect();
        let mut rng = XorShift::from_shuttle();
        let mut out = Vec::new();
        let mut next = 1;
        while next <= ops {
            for _ in 0..1 + rng.next() % 8 {
                if next <= ops {
                    worker.push(next);
                    next += 1;
                }
            }
            for _ in 0..rng.next() % (max_pops + 1) {
                match worker.pop() {
                    Some(value) => out.push(value),
                    None => break,
                }
            }
        }
        for handle in handles {
            out.extend(handle.join().unwrap());
        }
        while let Some(value) = worker.pop() {
            out.push(value);
        }
        assert!(worker.is_empty());
        assert!(worker.stealer().steal().is_empty());
        assert_exactly_once(ops, out);
    }
}

// 30000 random schedules of 300 pushes in bursts, popped in bursts of up to 8
// (floor: all 30000 must run).
#[test]
fn owner_and_three_thieves_random() {
    run(
        "shuttle",
        "owner_and_three_thieves",
        Schedule::Random { iterations: 30000 },
        owner_and_thieves(300, 8),
    );
}

// 50000 PCT schedules, depth 3, of 40 pushes: short runs, so PCT's few
// priority changes land in the middle of steals (floor: all 50000 must run).
#[test]
fn owner_and_three_thieves_pct() {
    run(
        "shuttle",
        "owner_and_three_thieves",
        Schedule::Pct {
            iterations: 50000,
            depth: 3,
        },
        owner_and_thieves(40, 8),
    );
}

// 20000 PCT schedules, depth 3, of 40 pushes, on an owner-biased deque: the
// steal's pre-check and D15/D16 in place of D3/D6 (floor: all 20000 must
// run). Under shuttle, sequentially consistent, both barriers are fences.
#[test]
fn owner_biased_owner_and_three_thieves_pct() {
    run(
        "shuttle",
        "owner_biased_owner_and_three_thieves",
        Schedule::Pct {
            iterations: 20000,
            depth: 3,
        },
        owner_and_thieves_on(Worker::owner_biased_with_capacity, 40, 8),
    );
}

// 20000 PCT schedules, depth 40, of 150 pushes popped in bursts of up to 6, so
// the deque grows long and batches are large (floor: all 20000 must run).
#[test]
fn owner_and_three_thieves_pct_deep() {
    run(
        "shuttle",
        "owner_and_three_thieves_deep",
        Schedule::Pct {
            iterations: 20000,
            depth: 40,
        },
        owner_and_thieves(150, 6),
    );
}

/// An element that records its id when dropped.
struct Counted {
    id: usize,
    dropped: Arc<Mutex<Vec<usize>>>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.dropped.lock().unwrap().push(self.id);
    }
}

// 20000 random schedules of 60 pushes (floor: all 20000 must run).
//
// Drop accounting: the owner pushes boxed elements from capacity 1 and pops
// some while three thieves steal some; each handle is dropped as soon as its
// thread is done, so the deque is freed, with elements still inside, by
// whichever handle goes last. Every element is dropped exactly once.
#[test]
fn drop_with_elements_inside_random() {
    const PUSHED: usize = 60;
    run(
        "shuttle",
        "drop_with_elements_inside",
        Schedule::Random { iterations: 20000 },
        || {
            let dropped = Arc::new(Mutex::new(Vec::new()));
            let worker = Worker::with_capacity(1);
            let handles: Vec<_> = (0..THIEVES)
                .map(|_| {
                    let stealer = worker.stealer();
                    thread::spawn(move || {
                        let mut rng = XorShift::from_shuttle();
                        for _ in 0..PUSHED / 6 {
                            if rng.chance(50) {
                                drop(stealer.steal());
                            } else {
                                let own = Worker::with_capacity(1);
                                drop(stealer.steal_batch_and_pop(&own));
                                // `own` drops its elements here.
                            }
                        }
                    })
                })
                .collect();
            let mut rng = XorShift::from_shuttle();
            for id in 1..=PUSHED {
                worker.push(Box::new(Counted {
                    id,
                    dropped: dropped.clone(),
                }));
                if rng.chance(25) {
                    drop(worker.pop());
                }
            }
            drop(worker);
            for handle in handles {
                handle.join().unwrap();
            }
            let dropped = std::mem::take(&mut *dropped.lock().unwrap());
            assert_exactly_once(PUSHED, dropped);
        },
    );
}
