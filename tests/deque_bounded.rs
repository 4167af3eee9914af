#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The bounded deque (`deque::BoundedWorker`, `deque::BoundedStealer`) on
//! real threads: an owner and thieves racing, with every element accounted
//! for individually; growth while thieves steal; elements with drop glue
//! left in the deque, in a claimed slot and in a request at drop. Miri runs
//! these too (scaled down) for data races, use-after-free and leaks on the
//! unsafe paths (slot reads by requesters, buffer growth, drop).

#[path = "../model/support/bounded_ops.rs"]
mod bounded_ops;

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::*};
use std::sync::{Arc, Barrier};
use std::thread;
use stealpool::deque::{BoundedWorker, Steal, MAX_STEALERS};

const fn scaled(full: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}

struct Seen(Vec<AtomicU8>);

impl Seen {
    fn new(elements: usize) -> Self {
        Seen((0..elements).map(|_| AtomicU8::new(0)).collect())
    }
    fn take(&self, element: usize) {
        assert_eq!(
            self.0[element].fetch_add(1, Relaxed),
            0,
            "element {element} came out twice"
        );
    }
    fn all_once(&self) {
        for (i, seen) in self.0.iter().enumerate() {
            assert_eq!(
                seen.load(Relaxed),
                1,
                "element {i} came out {} times",
                seen.load(Relaxed)
            );
        }
    }
}

fn race(thieves: usize, elements: usize, capacity: usize) {
    let worker = BoundedWorker::<Box<usize>>::with_capacity(capacity);
    let seen = Arc::new(Seen::new(elements));
    let done = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(thieves + 1));
    let handles: Vec<_> = (0..thieves)
        .map(|_| {
            let stealer = worker.stealer();
            let (seen, done, start) = (seen.clone(), done.clone(), start.clone());
            thread::spawn(move || {
                start.wait();
                let mut stolen = 0;
                loop {
                    let finished = done.load(Acquire);
                    match stealer.steal() {
                        Steal::Success(i) => {
                            seen.take(*i);
                            stolen += 1;
                        }
                        Steal::Empty if finished => return stolen,
                        Steal::Empty => thread::yield_now(),
                        Steal::Retry => panic!("a bounded steal returned Retry"),
                    }
                }
            })
        })
        .collect();
    start.wait();
    for i in 0..elements {
        worker.push(Box::new(i));
        if i % 3 == 0 {
            if let Some(j) = worker.pop() {
                seen.take(*j);
            }
        }
    }
    while let Some(j) = worker.pop() {
        seen.take(*j);
    }
    done.store(true, Release);
    let stolen: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    seen.all_once();
    assert!(worker.is_empty());
    assert!(stolen <= elements);
}

#[test]
fn owner_and_three_thieves_account_for_every_element() {
    race(3, scaled(200_000, 300), 32);
}

#[test]
fn growth_while_fifteen_thieves_steal() {
    race(MAX_STEALERS, scaled(100_000, 200), 2);
}

/// Counts its drops, so a leak or a double drop shows.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Relaxed);
    }
}

#[test]
fn elements_left_behind_are_dropped_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let worker = BoundedWorker::with_capacity(2);
    let thieves: Vec<_> = (0..2).map(|_| worker.stealer()).collect();
    for _ in 0..10 {
        worker.push(Counted(drops.clone()));
    }
    let handles: Vec<_> = thieves
        .into_iter()
        .map(|thief| {
            thread::spawn(move || {
                for _ in 0..3 {
                    drop(thief.steal());
                }
            })
        })
        .collect();
    drop(worker.pop());
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(drops.load(Relaxed), 7);
    drop(worker);
    assert_eq!(drops.load(Relaxed), 10);
}

#[test]
fn stealers_come_and_go() {
    let worker = BoundedWorker::new();
    for round in 0..scaled(100, 10) {
        let thieves: Vec<_> = (0..MAX_STEALERS).map(|_| worker.stealer()).collect();
        assert!(worker.try_stealer().is_none());
        worker.push(round);
        assert_eq!(thieves[round % MAX_STEALERS].steal(), Steal::Success(round));
    }
    assert!(worker.try_stealer().is_some());
}

/// The fuzz target's body (`fuzz/fuzz_targets/bounded_ops.rs`) on inputs
/// from a fixed xorshift sequence: 2000 sequences of up to 300 operations
/// (6 under Miri), each checked against a `VecDeque`.
#[test]
fn operation_sequences_match_a_vecdeque() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..scaled(2000, 6) {
        let len = (next() % 300) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        bounded_ops::check_bounded_ops(next() as u8, &bytes);
    }
}
