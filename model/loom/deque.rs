//! Loom models of the deque: every interleaving of a small scenario, within a
//! preemption bound, under the C11 memory model.
//!
//! Every model:
//! * runs `loom::model::Builder` with a preemption bound set here, in code
//!   (it overrides `LOOM_MAX_PREEMPTIONS`), stated above the test with the
//!   floor;
//! * counts its executions with a plain `std` atomic (outside the facade) and
//!   fails below that floor, so a harness that explores next to nothing
//!   cannot pass; the floors are about half the executions observed;
//! * checks that the elements that came out (popped, stolen, moved by a batch
//!   into the thief's own worker, or drained at the end) are exactly the
//!   elements pushed, as a multiset;
//! * leaks nothing: buffers carry a `loom::alloc::Track` under loom, so an
//!   unreclaimed buffer fails the model, and every element is drained at the
//!   end or counted when dropped.
//!
//! Elements are `usize` (from 1, so a read of a slot whose write is not
//! visible shows up as 0, the null word) wherever a bug could duplicate an
//! element: a duplicated `Box` would be freed twice.
//!
//! Loom treats SeqCst loads, stores and read-modify-writes as AcqRel but
//! handles `fence(SeqCst)`, and does not explore load buffering.
//!
//! Run with `cargo test --features loom --test loom_deque` (the quick bounds;
//! `STEALPOOL_MODEL_BOUNDS=full` for the bounds stated here, `support/bounds.rs`);
//! each model prints a line as it starts and one as it ends.

#[path = "../support/loom_run.rs"]
mod loom_run;
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use loom_run::{explore, explore_bounds};
use std::sync::Mutex as StdMutex;
use stealpool::deque::{Steal, Stealer, Worker};

/// Steals until the outcome is not `Retry`. A `Retry` means another thread
/// took an element, so this terminates.
fn steal<T: Send>(stealer: &Stealer<T>) -> Option<T> {
    loop {
        match stealer.steal() {
            Steal::Success(value) => return Some(value),
            Steal::Empty => return None,
            Steal::Retry => thread::yield_now(),
        }
    }
}

/// One steal attempt: the element, or `None` on `Empty` or `Retry`.
fn steal_once<T: Send>(stealer: &Stealer<T>) -> Option<T> {
    stealer.steal().success()
}

/// Pops until the deque is empty, then checks that it is empty for a thief
/// too.
fn drain(worker: &Worker<usize>, out: &mut Vec<usize>) {
    while let Some(value) = worker.pop() {
        out.push(value);
    }
    assert!(
        worker.is_empty(),
        "the deque is not empty after pop returned None"
    );
    assert_eq!(
        worker.stealer().steal(),
        Steal::Empty,
        "a drained deque gave a thief something"
    );
}

/// Every pushed element came out exactly once: equal as multisets.
fn assert_exactly_once(pushed: &[usize], mut out: Vec<usize>) {
    let mut pushed = pushed.to_vec();
    pushed.sort_unstable();
    out.sort_unstable();
    assert_eq!(
        out, pushed,
        "elements out (left) differ from elements pushed (right)"
    );
}

/// A thief's loot: checks as it goes that each element is one that was
/// pushed (a 0 is the null word of a slot whose write was not visible).
fn take(got: &mut Vec<usize>, value: Option<usize>, pushed: &[usize]) {
    if let Some(value) = value {
        assert!(
            pushed.contains(&value),
            "a thief got {value}, which was never pushed"
        );
        got.push(value);
    }
}

/// Makes the deque under test with the given capacity: symmetric
/// (`Worker::with_capacity`) or owner-biased
/// (`Worker::owner_biased_with_capacity`).
type NewDeque = fn(usize) -> Worker<usize>;

// Preemption bound 5 and floor 35 (element pushed before the thief starts,
// 71 executions observed); bound 5, floor 70 (pushed while it runs, 144).
//
// The last element: the owner's pop (fence, then CAS on `top`) races a thief's
// steal (fence, then CAS on `top`); exactly one of them may get it. First with
// the element pushed before the thief starts, then pushed while it runs.
#[test]
fn pop_vs_steal_last() {
    pop_vs_steal_last_on("pop_vs_steal_last", Worker::with_capacity, [35, 70]);
}

fn pop_vs_steal_last_on(name: &str, new_deque: NewDeque, floors: [usize; 2]) {
    explore(&format!("{name}/pushed_before"), 5, floors[0], move || {
        let worker = new_deque(2);
        worker.push(1);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || steal(&stealer));
        let mut out: Vec<usize> = worker.pop().into_iter().collect();
        take(&mut out, thief.join().unwrap(), &[1]);
        drain(&worker, &mut out);
        assert_exactly_once(&[1], out);
    });
    explore(
        &format!("{name}/pushed_while_stealing"),
        5,
        floors[1],
        move || {
            let worker = new_deque(2);
            let stealer = worker.stealer();
            let thief = thread::spawn(move || steal(&stealer));
            worker.push(1);
            let mut out: Vec<usize> = worker.pop().into_iter().collect();
            take(&mut out, thief.join().unwrap(), &[1]);
            drain(&worker, &mut out);
            assert_exactly_once(&[1], out);
        },
    );
}

// Preemption bound 5, floor 2000 (4505 executions observed).
//
// Two elements pushed while a thief runs; the owner pops twice while the
// thief steals twice: the first pop takes a non-last element without a CAS,
// the second races the thief for the last one. A thief may read a `bottom`
// that a pop stored, so this also checks that such a `bottom` still carries
// the pushes' slot writes.
#[test]
fn pop_vs_steal_two() {
    pop_vs_steal_two_on("pop_vs_steal_two", Worker::with_capacity, 2000);
}

fn pop_vs_steal_two_on(name: &str, new_deque: NewDeque, floor: usize) {
    explore(name, 5, floor, move || {
        let worker = new_deque(2);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || {
            let mut got = Vec::new();
            for _ in 0..2 {
                take(&mut got, steal(&stealer), &[1, 2]);
            }
            got
        });
        worker.push(1);
        worker.push(2);
        let mut out: Vec<usize> = Vec::new();
        out.extend(worker.pop());
        out.extend(worker.pop());
        out.extend(thief.join().unwrap());
        drain(&worker, &mut out);
        assert_exactly_once(&[1, 2], out);
    });
}

// Preemption bound 4, floor 75000 (153446 executions observed).
//
// Two thieves race for the same `top` (their CASes on `top` decide), while
// the owner pushes a second element and pops.
#[test]
fn steal_vs_steal() {
    steal_vs_steal_on("steal_vs_steal", Worker::with_capacity, (4, 75000), (3, 10_000));
}

fn steal_vs_steal_on(name: &str, new_deque: NewDeque, full: (usize, usize), quick: (usize, usize)) {
    explore_bounds(name, full, quick, move || {
        let pushed = [1, 2];
        let worker = new_deque(2);
        worker.push(1);
        // One `Stealer` shared by both thieves (it is `Sync`).
        let stealer = Arc::new(worker.stealer());
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let stealer = stealer.clone();
                thread::spawn(move || {
                    let mut got = Vec::new();
                    take(&mut got, steal(&stealer), &pushed);
                    take(&mut got, steal_once(&stealer), &pushed);
                    got
                })
            })
            .collect();
        worker.push(2);
        let mut out: Vec<usize> = worker.pop().into_iter().collect();
        for thief in thieves {
            out.extend(thief.join().unwrap());
        }
        drain(&worker, &mut out);
        assert_exactly_once(&pushed, out);
    });
}

/// An element whose fields are written, through loom-checked memory, after it
/// is allocated and before it is pushed.
struct Payload {
    id: usize,
    atomic: AtomicUsize,
    cell: UnsafeCell<usize>,
}

impl Payload {
    fn new(id: usize) -> Box<Payload> {
        let payload = Box::new(Payload {
            id,
            atomic: AtomicUsize::new(0),
            cell: UnsafeCell::new(0),
        });
        payload.atomic.store(id * 10, Ordering::Relaxed);
        // SAFETY: nothing else can reach the payload yet.
        payload.cell.with_mut(|cell| unsafe { *cell = id * 10 });
        payload
    }

    /// Checks that every field is fully written and returns the id. Loom
    /// fails the cell read if the write does not happen before it, and the
    /// relaxed load may return the initial 0 if nothing orders it.
    fn check(&self) -> usize {
        assert_eq!(
            self.atomic.load(Ordering::Relaxed),
            self.id * 10,
            "payload {} not published",
            self.id
        );
        // SAFETY: the element is ours; nothing else accesses it.
        let cell = self.cell.with(|cell| unsafe { *cell });
        assert_eq!(cell, self.id * 10, "payload {} not published", self.id);
        self.id
    }
}

// Preemption bound 5, floor 7000 (14015 executions observed).
//
// Publication: the owner writes the fields of boxed payloads and pushes them
// while a thief steals; whatever the thief gets must be fully written (D2
// release of `bottom` pairs with D7 acquire). The third push grows the
// buffer, so a payload may also reach the thief through a copied slot (D10
// release of the buffer pointer pairs with D8 acquire).
#[test]
fn push_publication() {
    explore("push_publication", 5, 7000, || {
        let worker: Worker<Box<Payload>> = Worker::with_capacity(2);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || {
            let mut got = Vec::new();
            for _ in 0..2 {
                if let Some(payload) = steal(&stealer) {
                    got.push(payload.check());
                }
            }
            got
        });
        for id in 1..=3 {
            worker.push(Payload::new(id));
        }
        let mut out: Vec<usize> = worker.pop().map(|payload| payload.check()).into_iter().collect();
        out.extend(thief.join().unwrap());
        while let Some(payload) = worker.pop() {
            out.push(payload.check());
        }
        assert!(worker.stealer().steal().is_empty());
        assert_exactly_once(&[1, 2, 3], out);
    });
}

// Preemption bound 5 for both scenarios; floors 50000 (capacity 1, 101795
// executions observed) and 5000 (capacity 2, 10489).
//
// Growth while a thief may hold the old buffer. First: capacity 1, one
// element pushed before the thief starts, then the owner pushes twice (two
// growths, 1 -> 2 -> 4), pops, pushes and pops again while the thief steals
// twice. Second: capacity 2 full, a thief steals while the owner pushes a
// third element (growth to 4) and pops across it.
#[test]
fn grow_vs_steal() {
    explore_bounds("grow_vs_steal/capacity_1", (5, 50000), (4, 11_000), || {
        let pushed = [1, 2, 3, 4];
        let worker = Worker::with_capacity(1);
        worker.push(1);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || {
            let mut got = Vec::new();
            take(&mut got, steal(&stealer), &pushed);
            take(&mut got, steal(&stealer), &pushed);
            got
        });
        worker.push(2);
        worker.push(3);
        let mut out: Vec<usize> = worker.pop().into_iter().collect();
        worker.push(4);
        out.extend(worker.pop());
        out.extend(thief.join().unwrap());
        drain(&worker, &mut out);
        assert_exactly_once(&pushed, out);
    });
    explore("grow_vs_steal/capacity_2", 5, 5000, || {
        let pushed = [1, 2, 3];
        let worker = Worker::with_capacity(2);
        worker.push(1);
        worker.push(2);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || {
            let mut got = Vec::new();
            take(&mut got, steal(&stealer), &pushed);
            take(&mut got, steal_once(&stealer), &pushed);
            got
        });
        worker.push(3);
        let mut out: Vec<usize> = Vec::new();
        out.extend(worker.pop());
        out.extend(worker.pop());
        out.extend(thief.join().unwrap());
        drain(&worker, &mut out);
        assert_exactly_once(&pushed, out);
    });
}

/// A thief that calls `steal_batch_and_pop` into its own worker (capacity 1,
/// so the batch grows it) until the outcome is not `Retry`, then drains that
/// worker.
fn batch_thief(stealer: Stealer<usize>, pushed: &'static [usize]) -> Vec<usize> {
    let own = Worker::with_capacity(1);
    let mut got = Vec::new();
    let first = loop {
        match stealer.steal_batch_and_pop(&own) {
            Steal::Success(value) => break Some(value),
            Steal::Empty => break None,
            Steal::Retry => thread::yield_now(),
        }
    };
    take(&mut got, first, pushed);
    while let Some(value) = own.pop() {
        take(&mut got, Some(value), pushed);
    }
    got
}

// Preemption bound 5, floor 2500 (one thief, 5448 executions observed);
// bound 4, floor 30000 (with a plain thief, 66133).
//
// `steal_batch_and_pop` into the thief's own worker against the owner's pops.
// First: four elements (a batch takes the oldest two), and the owner pops
// three times, down into the batch's range, then pushes a fifth and pops
// again while the batch is in flight. Second: the owner pops, pushes a fifth
// and pops while a batch thief and a plain thief steal.
#[test]
fn batch_vs_pop() {
    const PUSHED: &[usize] = &[1, 2, 3, 4, 5];
    explore("batch_vs_pop/one_thief", 5, 2500, || {
        let worker = Worker::with_capacity(4);
        for value in 1..=4 {
            worker.push(value);
        }
        let stealer = worker.stealer();
        let thief = thread::spawn(move || batch_thief(stealer, PUSHED));
        let mut out: Vec<usize> = Vec::new();
        for _ in 0..3 {
            out.extend(worker.pop());
        }
        worker.push(5);
        out.extend(worker.pop());
        out.extend(thief.join().unwrap());
        drain(&worker, &mut out);
        assert_exactly_once(PUSHED, out);
    });
    explore_bounds("batch_vs_pop/with_plain_thief", (4, 30000), (3, 7100), || {
        let worker = Worker::with_capacity(4);
        for value in 1..=4 {
            worker.push(value);
        }
        let stealer = worker.stealer();
        let batcher = thread::spawn(move || batch_thief(stealer, PUSHED));
        let stealer = worker.stealer();
        let thief = thread::spawn(move || {
            let mut got = Vec::new();
            take(&mut got, steal(&stealer), PUSHED);
            got
        });
        let mut out: Vec<usize> = Vec::new();
        out.extend(worker.pop());
        worker.push(5);
        out.extend(worker.pop());
        out.extend(batcher.join().unwrap());
        out.extend(thief.join().unwrap());
        drain(&worker, &mut out);
        assert_exactly_once(PUSHED, out);
    });
}

/// An element that records its id in a per-execution log when dropped.
struct Counted {
    id: usize,
    dropped: std::sync::Arc<StdMutex<Vec<usize>>>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.dropped.lock().unwrap().push(self.id);
    }
}

// Preemption bound 5, floor 2000 (4037 executions observed).
//
// Handles dropped with elements still inside, from both threads in either
// order. Capacity 1: the owner has pushed one element; while a thief steals
// one and drops its `Stealer`, the owner pushes two more (two growths, so a
// chain of three buffers, the old ones possibly still read by the thief),
// pops one and drops the `Worker` and a second `Stealer`. Whichever handle
// goes last frees the deque: every element is dropped exactly once, and
// loom's leak check covers every buffer of the chain.
#[test]
fn drop_leftovers() {
    explore("drop_leftovers", 5, 2000, || {
        let dropped = std::sync::Arc::new(StdMutex::new(Vec::new()));
        let counted = |id| {
            Box::new(Counted {
                id,
                dropped: dropped.clone(),
            })
        };
        let worker = Worker::with_capacity(1);
        worker.push(counted(1));
        let stealer = worker.stealer();
        let spare = worker.stealer();
        let thief = thread::spawn(move || {
            drop(steal(&stealer));
            drop(stealer);
        });
        worker.push(counted(2));
        worker.push(counted(3));
        drop(worker.pop());
        drop(worker);
        drop(spare);
        thief.join().unwrap();
        let dropped = std::mem::take(&mut *dropped.lock().unwrap());
        assert_exactly_once(&[1, 2, 3], dropped);
    });
}

// Preemption bound 3, floor 250 (545 executions observed).
//
// Regression for `--cfg stealpool_bug="stale_buffer"` (a thief loads the
// buffer pointer before `top` and `bottom`), the equivalent here of
// CVE-2021-32810 in crossbeam-deque. Capacity 1, the owner has pushed 1; the
// thief loads the old buffer and is preempted; the owner pushes 2 (growth to
// capacity 2), pops 2, pops 1 (the last: CAS `top` 0 -> 1) and pushes 3 at
// index 1 of the new buffer; the thief then reads `top` 1 and `bottom` 2, the
// stale slot `1 & 0` of the old buffer, which still holds 1, and its CAS
// succeeds: 1 comes out twice and 3 is lost.
#[test]
fn regression_stale_buffer() {
    explore("regression_stale_buffer", 3, 250, || {
        let pushed = [1, 2, 3];
        let worker = Worker::with_capacity(1);
        worker.push(1);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || steal_once(&stealer));
        worker.push(2);
        let mut out: Vec<usize> = Vec::new();
        out.extend(worker.pop());
        out.extend(worker.pop());
        worker.push(3);
        take(&mut out, thief.join().unwrap(), &pushed);
        drain(&worker, &mut out);
        assert_exactly_once(&pushed, out);
    });
}

// Preemption bound 3, floor 10 (19 executions observed).
//
// Regression for `--cfg stealpool_bug="relaxed_buffer_publish"` (the buffer
// pointer stored and loaded relaxed, the bug CDSChecker found in the C11
// Chase-Lev deque). Capacity 1, the owner has pushed 1, then pushes 2 while
// a thief steals: the push grows the buffer (copying 1 with a relaxed store)
// and publishes it. A thief that still reads the old `bottom` 1 but the new
// buffer pointer reads the copied slot; unless the pointer's store and load
// synchronize, neither the new buffer's slots nor the copy need be visible:
// loom reports the thief's load of a slot whose creation does not happen
// before it, and a thief reading the null word (0) fails the checks below.
#[test]
fn regression_relaxed_buffer_publish() {
    explore("regression_relaxed_buffer_publish", 3, 10, || {
        let pushed = [1, 2];
        let worker = Worker::with_capacity(1);
        worker.push(1);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || steal_once(&stealer));
        worker.push(2);
        let mut out: Vec<usize> = Vec::new();
        take(&mut out, thief.join().unwrap(), &pushed);
        drain(&worker, &mut out);
        assert_exactly_once(&pushed, out);
    });
}

// The owner-biased deque (`Worker::owner_biased_with_capacity`): `pop` runs
// a light barrier (D15) and `steal` a pre-check, then a heavy barrier (D16).
// Under loom both barriers are `fence(SeqCst)`, exact for a light-heavy
// pair (M1 in `proofs/sleep.md`), so these models check the protocol given
// the pair: the pre-check's relaxed `Empty`, and D15/D16 in D3/D6's place.
// They are the scenarios above in which D3 and D6 are caught.

// Preemption bound 5, floors 55 and 100 (117 and 212 executions observed).
#[test]
fn owner_biased_pop_vs_steal_last() {
    pop_vs_steal_last_on(
        "owner_biased_pop_vs_steal_last",
        Worker::owner_biased_with_capacity,
        [55, 100],
    );
}

// Preemption bound 5, floor 8000 (15964 executions observed).
//
// As `pop_vs_steal_two`: the owner's first pop takes a non-last element
// without a CAS, which only D15/D16 keep from the thief.
#[test]
fn owner_biased_pop_vs_steal_two() {
    pop_vs_steal_two_on(
        "owner_biased_pop_vs_steal_two",
        Worker::owner_biased_with_capacity,
        8000,
    );
}

// Preemption bound 3, floor 50000 (106513 executions observed).
//
// As `steal_vs_steal`, at a smaller bound: two thieves, each pre-checking
// and then claiming, while the owner pushes and pops.
#[test]
fn owner_biased_steal_vs_steal() {
    steal_vs_steal_on(
        "owner_biased_steal_vs_steal",
        Worker::owner_biased_with_capacity,
        (3, 50000),
        (2, 4800),
    );
}

// Preemption bound 5, floor 960 (1928 executions observed).
//
// The owner hands on its oldest element (`pop_oldest`, D17: a CAS on `top`
// with no barrier) while a thief steals the same end with D16's heavy
// barrier, then pops the rest: each element comes out exactly once, whoever
// wins each CAS, and the owner's later pops (D15) still see what the thief
// took. This is what a worker's promotion of a pending `join` half does
// while an idle worker takes halves directly (F3, F4 in `proofs/fork.md`).
#[test]
fn owner_biased_pop_oldest_vs_steal() {
    explore("owner_biased_pop_oldest_vs_steal", 5, 960, || {
        let pushed = [1, 2, 3];
        let worker = Worker::owner_biased_with_capacity(2);
        worker.push(1);
        worker.push(2);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || {
            let mut got = Vec::new();
            take(&mut got, steal(&stealer), &[1, 2, 3]);
            got
        });
        let mut out: Vec<usize> = Vec::new();
        out.extend(worker.pop_oldest());
        worker.push(3);
        out.extend(worker.pop());
        out.extend(thief.join().unwrap());
        drain(&worker, &mut out);
        assert_exactly_once(&pushed, out);
    });
}

// Preemption bound 5, floor 480 (996 executions observed, 0.1 s).
//
// A symmetric deque taken as a FIFO, as a worker takes its deque of a
// priority level (V7 in `proofs/priority.md`): the owner takes its oldest
// element (`pop_oldest`, D17: a CAS on `top`, no fence), pushes (growing
// the buffer), takes its oldest again, while a thief steals the same end
// (D5-D9). Each element comes out exactly once, and each taker gets its
// elements oldest first.
#[test]
fn pop_oldest_vs_steal() {
    explore("pop_oldest_vs_steal", 5, 480, || {
        let pushed = [1, 2, 3];
        let worker = Worker::with_capacity(2);
        worker.push(1);
        worker.push(2);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || {
            let mut got = Vec::new();
            take(&mut got, steal(&stealer), &[1, 2, 3]);
            take(&mut got, steal(&stealer), &[1, 2, 3]);
            got
        });
        let mut out: Vec<usize> = Vec::new();
        out.extend(worker.pop_oldest());
        worker.push(3);
        out.extend(worker.pop_oldest());
        let stolen = thief.join().unwrap();
        while let Some(value) = worker.pop_oldest() {
            out.push(value);
        }
        assert!(out.is_sorted(), "the owner took {out:?}, not oldest first");
        assert!(stolen.is_sorted(), "the thief took {stolen:?}, not oldest first");
        out.extend(stolen);
        drain(&worker, &mut out);
        assert_exactly_once(&pushed, out);
    });
}

// Preemption bound 5, floor 850 (1713 executions observed, 0.3 s).
//
// A FIFO worker (`Worker::new_fifo`, D19): its owner pops the oldest by
// D17's claim, a CAS on `top`, while a thief steals the same end (D5-D9).
// Two elements, then the owner pops twice, pushes a third and pops again
// while the thief steals twice: each element comes out exactly once, and
// each taker gets its elements oldest first. A thief taking the element
// the owner has read but not yet claimed makes the owner's CAS fail and
// retry at the next index, which must read that index's slot afresh (the
// `oldest_stale_word` mutant keeps the word it read and hands element 1
// out twice).
#[test]
fn fifo_pop_vs_steal() {
    explore("fifo_pop_vs_steal", 5, 850, || {
        let pushed = [1, 2, 3];
        let worker = Worker::fifo_with_capacity(2);
        worker.push(1);
        worker.push(2);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || {
            let mut got = Vec::new();
            take(&mut got, steal(&stealer), &[1, 2, 3]);
            take(&mut got, steal(&stealer), &[1, 2, 3]);
            got
        });
        let mut out: Vec<usize> = Vec::new();
        out.extend(worker.pop());
        out.extend(worker.pop());
        worker.push(3);
        out.extend(worker.pop());
        let stolen = thief.join().unwrap();
        drain(&worker, &mut out);
        assert!(out.is_sorted(), "the FIFO owner took {out:?}, not oldest first");
        assert!(stolen.is_sorted(), "the thief took {stolen:?}, not oldest first");
        out.extend(stolen);
        assert_exactly_once(&pushed, out);
    });
}

// Preemption bound 5, floor 32000 (63855 executions observed, 7.6 s);
// quick: bound 4, floor 10500 (21321, 2.5 s).
//
// A FIFO worker of capacity 1 grows twice (1 -> 2 -> 4) under a thief, its
// pops claiming at `top` between the pushes, and a push after its own pops
// reuses a slot they freed (D1 on a `top` the owner's own CAS wrote, D19):
// the thief steals twice while the owner pushes 2 and 3, pops, pushes 4 and
// pops. Each element exactly once, each taker oldest first.
#[test]
fn fifo_grow_vs_pop_and_steal() {
    explore_bounds("fifo_grow_vs_pop_and_steal", (5, 32000), (4, 10500), || {
        let pushed = [1, 2, 3, 4];
        let worker = Worker::fifo_with_capacity(1);
        worker.push(1);
        let stealer = worker.stealer();
        let thief = thread::spawn(move || {
            let mut got = Vec::new();
            take(&mut got, steal(&stealer), &pushed);
            take(&mut got, steal(&stealer), &pushed);
            got
        });
        worker.push(2);
        worker.push(3);
        let mut out: Vec<usize> = worker.pop().into_iter().collect();
        worker.push(4);
        out.extend(worker.pop());
        let stolen = thief.join().unwrap();
        drain(&worker, &mut out);
        assert!(out.is_sorted(), "the FIFO owner took {out:?}, not oldest first");
        assert!(stolen.is_sorted(), "the thief took {stolen:?}, not oldest first");
        out.extend(stolen);
        assert_exactly_once(&pushed, out);
    });
}
