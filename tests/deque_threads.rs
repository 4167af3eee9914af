#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The deque on real threads: an owner and several thieves racing over a
//! million elements, growth while thieves steal, and drop accounting.
//!
//! Every test accounts for each element individually (a per-element counter,
//! not a total), so a duplicate and a loss cannot cancel out. Counts scale
//! down under Miri, which runs these tests too and checks them for data races
//! and use-after-free on the way.

mod common;

use common::Rng;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::*};
use std::sync::{Arc, Barrier};
use std::thread;
use stealpool::deque::{Steal, Stealer, Worker};

/// `full` on real hardware, `miri` under Miri (about a thousand times slower).
const fn scaled(full: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}

/// How many times each element came out, indexed by element.
struct Seen(Vec<AtomicU8>);

impl Seen {
    fn new(elements: usize) -> Self {
        Seen((0..elements).map(|_| AtomicU8::new(0)).collect())
    }

    /// Records that `element` came out; fails at once on a second time.
    fn take(&self, element: usize) {
        let before = self.0[element].fetch_add(1, Relaxed);
        assert_eq!(before, 0, "element {element} came out twice");
    }

    /// Fails unless every element came out exactly once.
    fn assert_each_once(&self) {
        self.assert_each_once_below(self.0.len());
    }

    /// Fails unless every element below `end` came out exactly once, and
    /// none from `end` on came out at all.
    fn assert_each_once_below(&self, end: usize) {
        for (element, count) in self.0.iter().enumerate() {
            assert_eq!(
                count.load(Relaxed),
                u8::from(element < end),
                "element {element} came out {count:?} times ({end} were pushed)"
            );
        }
    }
}

/// Steals from `stealer` until it reports `Empty`, retrying on `Retry`;
/// hands every element to `take`. Returns how many it took.
fn steal_until_empty<T: Send>(stealer: &Stealer<T>, mut take: impl FnMut(T)) -> usize {
    let mut taken = 0;
    loop {
        match stealer.steal() {
            Steal::Success(element) => {
                take(element);
                taken += 1;
            }
            Steal::Retry => continue,
            Steal::Empty => return taken,
        }
    }
}

/// An owner pushing and popping a million elements while two thieves steal
/// one at a time and a third steals batches into a deque of its own, which
/// one of the first two thieves also steals from. Every element comes out
/// exactly once.
#[test]
fn owner_and_three_thieves_account_for_every_element() {
    owner_and_three_thieves(Worker::with_capacity, scaled(1 << 20, 200));
}

/// The same with owner-biased deques: the owner's pops run no fence, every
/// steal that finds an element a process-wide barrier (D15, D16), and a
/// thief's `Empty` may be stale until the owner's done flag orders it.
#[test]
fn owner_biased_owner_and_three_thieves_account_for_every_element() {
    owner_and_three_thieves(Worker::owner_biased_with_capacity, scaled(1 << 18, 200));
}

/// The same with FIFO deques (`Worker::fifo_with_capacity`, D19): the
/// owners' pops claim at the top by a CAS, against the thieves' claims of
/// the same index, and the batches go into a FIFO worker.
#[test]
fn fifo_owner_and_three_thieves_account_for_every_element() {
    owner_and_three_thieves(Worker::fifo_with_capacity, scaled(1 << 20, 200));
}

fn owner_and_three_thieves(new_deque: fn(usize) -> Worker<usize>, elements: usize) {
    let seen = Seen::new(elements);
    let owner = new_deque(1);
    let batcher = new_deque(1);
    let (from_owner, from_batcher) = (owner.stealer(), batcher.stealer());
    // Set when the deque behind it is empty for good: its owner pushes no
    // more and saw it empty.
    let (owner_done, batcher_done) = (AtomicBool::new(false), AtomicBool::new(false));
    // Elements the thieves took so far, counted as they take them, and the
    // start gate: the owner begins once the three thieves run.
    let stolen = AtomicUsize::new(0);
    let ready = AtomicUsize::new(0);

    thread::scope(|s| {
        let (seen, owner_done, batcher_done, stolen, ready) =
            (&seen, &owner_done, &batcher_done, &stolen, &ready);
        let take = move |e: usize| {
            seen.take(e);
            stolen.fetch_add(1, Relaxed);
        };
        // Thief 0: single steals from the owner.
        let from = from_owner.clone();
        s.spawn(move || {
            ready.fetch_add(1, Release);
            loop {
                let finished = owner_done.load(Acquire);
                steal_until_empty(&from, take);
                if finished {
                    break;
                }
                thread::yield_now();
            }
        });
        // Thief 1: single steals from the owner and from the batching thief.
        let (from_a, from_b) = (from_owner.clone(), from_batcher);
        s.spawn(move || {
            ready.fetch_add(1, Release);
            loop {
                let finished = owner_done.load(Acquire) && batcher_done.load(Acquire);
                steal_until_empty(&from_a, take);
                steal_until_empty(&from_b, take);
                if finished {
                    break;
                }
                thread::yield_now();
            }
        });
        // Thief 2: batches from the owner into its own deque, then works
        // through it as its owner (LIFO).
        let from = from_owner;
        s.spawn(move || {
            ready.fetch_add(1, Release);
            loop {
                while let Some(e) = batcher.pop() {
                    take(e);
                }
                let finished = owner_done.load(Acquire);
                match from.steal_batch_and_pop(&batcher) {
                    Steal::Success(e) => take(e),
                    Steal::Retry => {}
                    Steal::Empty if finished => break,
                    Steal::Empty => thread::yield_now(),
                }
            }
            // Its deque is empty (the last pop said so) and gets no more.
            batcher_done.store(true, Release);
        });

        // The owner: once the thieves run, pushes everything, popping now
        // and then, in bursts.
        while ready.load(Acquire) < 3 {
            thread::yield_now();
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let held = HELD.min(elements);
        for element in 0..elements - held {
            owner.push(element);
            if rng.one_in(4) {
                let burst = if rng.one_in(64) { 16 } else { 1 };
                for _ in 0..burst {
                    match owner.pop() {
                        Some(e) => seen.take(e),
                        None => break,
                    }
                }
            }
        }
        // The last few stay in the deque until a thief has taken something,
        // so that the check below holds however the threads were scheduled.
        for element in elements - held..elements {
            owner.push(element);
        }
        wait_until(|| stolen.load(Relaxed) > 0);
        while let Some(e) = owner.pop() {
            seen.take(e);
        }
        owner_done.store(true, Release);
    });

    seen.assert_each_once();
    assert!(owner.is_empty());
    // Not a vacuous race: the thieves did take part.
    assert!(stolen.load(Relaxed) > 0, "no element was stolen");
}

/// Elements an owner keeps in its deque at the end of a test until a thief
/// has taken something, so that a test's "something was stolen" is reached
/// by waiting, never by luck (a loaded machine may run the owner to its end
/// before any thief's first steal).
const HELD: usize = 4;

/// Waits, yielding, until `done` returns `true`.
fn wait_until(done: impl Fn() -> bool) {
    while !done() {
        thread::yield_now();
    }
}

/// The owner churns its bottom (pushes a few, pops most of them back) while a
/// thief steals in batches from the top of the same small deque. A batch
/// claims several indices with one step, while the owner pops without a CAS
/// as long as `top` is below the index it takes: this is where a batch and
/// the owner can both take the same element, and the per-element count
/// catches it at once.
#[test]
fn owner_pops_race_batch_steals() {
    owner_pops_race_batch_steals_on(Worker::with_capacity, scaled(1 << 22, 200));
}

/// The same with owner-biased deques, where the owner's CAS-free pops are
/// kept from the thief's claims by a light and a heavy barrier (D15, D16).
#[test]
fn owner_biased_owner_pops_race_batch_steals() {
    owner_pops_race_batch_steals_on(Worker::owner_biased_with_capacity, scaled(1 << 18, 200));
}

/// The same with FIFO deques (D19): the owner's pops and the thief's batch
/// claims race for the same index, each by a CAS on `top`.
#[test]
fn fifo_owner_pops_race_batch_steals() {
    owner_pops_race_batch_steals_on(Worker::fifo_with_capacity, scaled(1 << 20, 200));
}

fn owner_pops_race_batch_steals_on(new_deque: fn(usize) -> Worker<usize>, elements: usize) {
    // Up to four times `elements` if the thief has taken nothing by then:
    // on a fast machine the owner can finish its churn before the thief's
    // first batch lands, and a race nobody joined proves nothing.
    let limit = elements * 4;
    let seen = Seen::new(limit + HELD);
    let owner = new_deque(1);
    let (started, done) = (AtomicBool::new(false), AtomicBool::new(false));
    let taken_so_far = AtomicUsize::new(0);
    let from = owner.stealer();

    let (stolen, pushed) = thread::scope(|s| {
        let (seen, started, done, taken_so_far) = (&seen, &started, &done, &taken_so_far);
        let thief = s.spawn(move || {
            let mine = new_deque(1);
            let mut taken = 0;
            started.store(true, Release);
            loop {
                let finished = done.load(Acquire);
                match from.steal_batch_and_pop(&mine) {
                    Steal::Success(e) => {
                        seen.take(e);
                        taken += 1;
                        while let Some(e) = mine.pop() {
                            seen.take(e);
                            taken += 1;
                        }
                        taken_so_far.store(taken, Relaxed);
                    }
                    Steal::Retry => {}
                    Steal::Empty if finished => return taken,
                    Steal::Empty => std::hint::spin_loop(),
                }
            }
        });
        // Start the churn only once the thief is running.
        while !started.load(Acquire) {
            thread::yield_now();
        }
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut next = 0;
        while next < elements || (next < limit && taken_so_far.load(Relaxed) == 0 && !cfg!(miri)) {
            // Push 1..=8, pop back all but 0..=2 of them: the deque stays
            // small, so batches keep reaching down to where the owner pops.
            let burst = (1 + rng.next() as usize % 8).min(limit - next);
            for element in next..next + burst {
                owner.push(element);
            }
            next += burst;
            for _ in 0..burst.saturating_sub(rng.next() as usize % 3) {
                match owner.pop() {
                    Some(e) => seen.take(e),
                    None => break,
                }
            }
        }
        // Still nothing stolen (a loaded machine): a few elements wait in
        // the deque until the thief takes one.
        if taken_so_far.load(Relaxed) == 0 {
            for element in next..next + HELD {
                owner.push(element);
            }
            next += HELD;
            wait_until(|| taken_so_far.load(Relaxed) > 0);
        }
        while let Some(e) = owner.pop() {
            seen.take(e);
        }
        done.store(true, Release);
        (thief.join().unwrap(), next)
    });

    seen.assert_each_once_below(pushed);
    assert!(stolen > 0, "no batch was stolen in {pushed} elements");
}

/// Many fresh deques of capacity 1, each filled while two thieves steal from
/// it (one of them in batches into its own deque of capacity 1): the buffers
/// grow over and over while thieves may still read the old ones.
#[test]
fn growth_under_stealing_from_capacity_one() {
    let rounds = scaled(1024, 3);
    let per_round = scaled(1024, 40);
    let seen = Seen::new(rounds * per_round);
    // Elements the thieves took so far, over all rounds.
    let taken_total = AtomicUsize::new(0);
    let mut stolen = 0;

    for round in 0..rounds {
        let owner: Worker<Box<usize>> = Worker::with_capacity(1);
        let start = Barrier::new(3);
        let done = AtomicBool::new(false);
        let first = round * per_round;
        stolen += thread::scope(|s| {
            let (seen, start, done, taken_total) = (&seen, &start, &done, &taken_total);
            let take = move |e: Box<usize>| {
                seen.take(*e);
                taken_total.fetch_add(1, Relaxed);
            };
            let from = owner.stealer();
            let single = s.spawn(move || {
                start.wait();
                let mut taken = 0;
                loop {
                    let finished = done.load(Acquire);
                    taken += steal_until_empty(&from, take);
                    if finished {
                        return taken;
                    }
                    thread::yield_now();
                }
            });
            let from = owner.stealer();
            let batching = s.spawn(move || {
                let mine = Worker::with_capacity(1);
                start.wait();
                let mut taken = 0;
                loop {
                    let finished = done.load(Acquire);
                    match from.steal_batch_and_pop(&mine) {
                        Steal::Success(e) => {
                            take(e);
                            taken += 1;
                            while let Some(e) = mine.pop() {
                                take(e);
                                taken += 1;
                            }
                        }
                        Steal::Retry => {}
                        Steal::Empty if finished => return taken,
                        Steal::Empty => thread::yield_now(),
                    }
                }
            });
            start.wait();
            for element in first..first + per_round {
                owner.push(Box::new(element));
            }
            // In the last round, the elements stay until a thief has taken
            // one, if none has yet: "something was stolen" by waiting, not
            // by luck.
            if round + 1 == rounds {
                wait_until(|| taken_total.load(Relaxed) > 0);
            }
            while let Some(e) = owner.pop() {
                seen.take(*e);
            }
            done.store(true, Release);
            single.join().unwrap() + batching.join().unwrap()
        });
    }

    seen.assert_each_once();
    assert!(stolen > 0, "no element was stolen while the buffers grew");
}

/// Counts the drops of every element of a test.
struct Ledger(Vec<AtomicUsize>);

impl Ledger {
    fn new(elements: usize) -> Arc<Self> {
        Arc::new(Ledger((0..elements).map(|_| AtomicUsize::new(0)).collect()))
    }

    fn drops(&self, element: usize) -> usize {
        self.0[element].load(Relaxed)
    }

    fn total(&self) -> usize {
        (0..self.0.len()).map(|e| self.drops(e)).sum()
    }

    fn assert_each_dropped_once(&self) {
        for element in 0..self.0.len() {
            assert_eq!(
                self.drops(element),
                1,
                "element {element} dropped {} times",
                self.drops(element)
            );
        }
    }
}

/// An element that records its drop.
struct Counted {
    id: usize,
    ledger: Arc<Ledger>,
}

impl Counted {
    fn boxed(id: usize, ledger: &Arc<Ledger>) -> Box<Counted> {
        Box::new(Counted {
            id,
            ledger: ledger.clone(),
        })
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.ledger.0[self.id].fetch_add(1, Relaxed);
    }
}

/// Elements still inside are dropped when the last handle goes, here the
/// `Worker`, and not before: dropping the `Stealer` first drops nothing.
/// The deque has grown from capacity 1 and its live range has wrapped.
#[test]
fn leftovers_dropped_once_when_the_worker_goes_last() {
    let elements = scaled(10_000, 100);
    let ledger = Ledger::new(elements);
    let worker = Worker::with_capacity(1);
    let stealer = worker.stealer();
    for id in 0..elements {
        worker.push(Counted::boxed(id, &ledger));
        // Keep `top` moving so indices wrap around each buffer.
        if id % 3 == 0 {
            assert_eq!(stealer.steal().success().map(|e| e.id), Some(id / 3));
        }
    }
    let popped = worker.pop().expect("elements left");
    assert_eq!(popped.id, elements - 1);
    drop(popped);
    let taken = elements.div_ceil(3) + 1;
    assert_eq!(ledger.total(), taken);

    drop(stealer);
    assert_eq!(ledger.total(), taken, "dropping a Stealer dropped elements");
    assert_eq!(worker.len(), elements - taken);
    drop(worker);
    ledger.assert_each_dropped_once();
}

/// The owner drops its `Worker` while thieves on other threads still steal
/// (singly and in batches into deques of their own); the thieves stop with
/// elements left, hand back their handles, and the elements left inside are
/// dropped exactly when the last `Stealer` goes, and those left in the
/// thieves' own deques with those deques.
#[test]
fn stealers_outlive_the_worker_and_drop_the_rest() {
    let elements = scaled(100_000, 300);
    let thieves = 3;
    // Each thief takes `quota`; the two batching thieves also hold up to 31
    // more in their own deques. That is at most `elements / 2 + 62`, so the
    // quotas are always reachable and elements are always left inside.
    let quota = elements / 6;
    let ledger = Ledger::new(elements);
    let worker = Worker::with_capacity(1);
    let stealer = worker.stealer();
    let started = Barrier::new(thieves + 1);

    let handles = thread::scope(|s| {
        let started = &started;
        let thieves: Vec<_> = (0..thieves)
            .map(|index| {
                let stealer = stealer.clone();
                s.spawn(move || {
                    let mine = Worker::with_capacity(1);
                    started.wait();
                    let mut taken = 0;
                    while taken < quota {
                        if let Some(element) = mine.pop() {
                            drop(element);
                            taken += 1;
                            continue;
                        }
                        let result = if index == 0 {
                            stealer.steal()
                        } else {
                            stealer.steal_batch_and_pop(&mine)
                        };
                        match result {
                            Steal::Success(element) => {
                                drop(element);
                                taken += 1;
                            }
                            Steal::Retry => {}
                            Steal::Empty => thread::yield_now(),
                        }
                    }
                    // `mine` may still hold part of its last batch: it goes
                    // back with the stealer, elements inside.
                    (stealer, mine)
                })
            })
            .collect();
        started.wait();
        for id in 0..elements {
            worker.push(Counted::boxed(id, &ledger));
        }
        // The owner leaves while the thieves are still at work.
        drop(worker);
        thieves.into_iter().map(|t| t.join().unwrap()).collect::<Vec<_>>()
    });

    let taken = quota * thieves;
    assert_eq!(
        ledger.total(),
        taken,
        "only the elements taken out are dropped so far"
    );
    let (stealers, mines): (Vec<_>, Vec<_>) = handles.into_iter().unzip();
    let in_batches: usize = mines.iter().map(Worker::len).sum();
    let inside = stealer.len();
    assert!(inside > 0, "the test must leave elements inside");
    assert_eq!(inside + in_batches + taken, elements);
    // The thieves' own deques drop what their batches left in them.
    drop(mines);
    assert_eq!(ledger.total(), taken + in_batches);
    // Any stealer but the last one drops nothing.
    drop(stealers);
    assert_eq!(ledger.total(), taken + in_batches);
    drop(stealer);
    ledger.assert_each_dropped_once();
}

/// `Arc` elements give back their counts: one per element taken out as it
/// is dropped, and the rest when the deque is dropped.
#[test]
fn arc_elements_release_their_counts() {
    let shared = Arc::new(());
    let count = scaled(1000, 50);
    let worker = Worker::with_capacity(2);
    let stealer = worker.stealer();
    let worker = thread::scope(|s| {
        let shared = &shared;
        let owner = s.spawn(move || {
            for _ in 0..count {
                worker.push(shared.clone());
            }
            worker
        });
        let mut taken = 0;
        while taken < count / 2 {
            match stealer.steal() {
                Steal::Success(_) => taken += 1,
                Steal::Retry | Steal::Empty => thread::yield_now(),
            }
        }
        owner.join().unwrap()
    });
    assert_eq!(Arc::strong_count(&shared), 1 + count - count / 2);
    drop((worker, stealer));
    assert_eq!(Arc::strong_count(&shared), 1);
}
