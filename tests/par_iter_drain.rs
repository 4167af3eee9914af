#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! `par_drain`: `ParallelDrainRange` for `Vec`, `VecDeque` and `String`
//! and `ParallelDrainFull` for `BinaryHeap`, `HashMap` and `HashSet`,
//! against the collections' own `drain` on pools of 1 and 2 workers: the
//! items handed out, what the collection keeps, every item dropped once
//! whether the iterator runs, is dropped unrun or its consumer panics,
//! and the pieces run on both workers.

use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::ops::Bound::{Excluded, Included, Unbounded};
use std::ops::RangeBounds;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Mutex;
use stealpool::prelude::*;
use stealpool::{current_thread_index, ThreadPool};

mod common;
use common::par_iter::{data, on_pools, SIZES};
use common::{quiet_expected_panics, wait_for, EXPECTED};

/// Checks `par_drain(range)` of a `Vec` and a wrapped `VecDeque` holding
/// `v` against `drain(range)`.
fn check_range(v: &[u64], range: impl RangeBounds<usize> + Clone + std::fmt::Debug) {
    let (mut par, mut seq) = (v.to_vec(), v.to_vec());
    let got: Vec<u64> = par.par_drain(range.clone()).collect();
    let want: Vec<u64> = seq.drain(range.clone()).collect();
    assert_eq!((got, &par), (want.clone(), &seq), "Vec, {range:?}");
    // A deque whose items wrap around the end of its buffer.
    let mut deque: VecDeque<u64> = VecDeque::with_capacity(v.len());
    for &x in v.iter().rev() {
        deque.push_front(x);
    }
    let mut seq_deque = deque.clone();
    let got: Vec<u64> = deque.par_drain(range.clone()).collect();
    assert_eq!(
        got,
        seq_deque.drain(range.clone()).collect::<Vec<_>>(),
        "VecDeque, {range:?}"
    );
    assert_eq!(deque, seq_deque);
}

#[test]
fn drains_match_std() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let len = v.len();
            let mut ranges = vec![
                (Unbounded, Unbounded),
                (Included(len / 3), Unbounded),
                (Unbounded, Excluded(len / 2)),
                (Included(len), Excluded(len)),
                (Included(len / 2), Excluded(len)),
            ];
            if len > 0 {
                ranges.extend([(Excluded(0), Unbounded), (Included(len / 4), Included(len - 1))]);
            }
            for range in ranges {
                check_range(&v, range);
            }
            // Characters of one and two bytes.
            let text: String = v
                .iter()
                .map(|x| {
                    if x % 5 == 0 {
                        'é'
                    } else {
                        char::from(b'a' + (x % 26) as u8)
                    }
                })
                .collect();
            let (mut par, mut seq) = (text.clone(), text.clone());
            let cut = text
                .char_indices()
                .nth(text.chars().count() / 3)
                .map_or(text.len(), |(i, _)| i);
            assert_eq!(
                par.par_drain(cut..).collect::<String>(),
                seq.drain(cut..).collect::<String>()
            );
            assert_eq!(par, seq);
            let mut heap: BinaryHeap<u64> = v.iter().copied().collect();
            let mut got: Vec<u64> = heap.par_drain().collect();
            got.sort();
            let mut want = v.clone();
            want.sort();
            assert_eq!(got, want);
            assert!(heap.is_empty());
            let mut map: HashMap<u64, usize> = v.iter().enumerate().map(|(i, &x)| (x, i)).collect();
            let want_map = map.clone();
            let got: HashMap<u64, usize> = map.par_drain().collect();
            assert_eq!((got, map.len()), (want_map, 0));
            let mut set: HashSet<u64> = v.iter().copied().collect();
            let want_set = set.clone();
            let got: HashSet<u64> = set.par_drain().collect();
            assert_eq!((got, set.len()), (want_set, 0));
        }
        // Out of bounds and off a character boundary, as `drain` panics.
        quiet_expected_panics();
        assert!(panic::catch_unwind(|| vec![1, 2].par_drain(1..3).count()).is_err());
        assert!(panic::catch_unwind(|| String::from("é").par_drain(1..).count()).is_err());
    });
}

/// Counts its drops.
struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn every_drained_item_is_dropped_once() {
    quiet_expected_panics();
    on_pools(|| {
        let drops = AtomicUsize::new(0);
        let make = || (0..1_000).map(|_| Counted(&drops)).collect::<Vec<_>>();
        // Run to the end.
        let mut v = make();
        assert_eq!(v.par_drain(100..900).count(), 800);
        assert_eq!((v.len(), drops.load(SeqCst)), (200, 800));
        drop(v);
        // Dropped unrun: the range is gone from the vector all the same.
        drops.store(0, SeqCst);
        let mut v = make();
        drop(v.par_drain(..500));
        assert_eq!((v.len(), drops.load(SeqCst)), (500, 500));
        drop(v);
        // Stopped early, and a consumer that panics.
        drops.store(0, SeqCst);
        let mut v = make();
        assert!(v.par_drain(..).enumerate().find_any(|(i, _)| *i == 10).is_some());
        assert_eq!((v.len(), drops.load(SeqCst)), (0, 1_000));
        drops.store(0, SeqCst);
        let mut v: VecDeque<Counted> = make().into();
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            v.par_drain(..)
                .enumerate()
                .for_each(|(i, _)| assert!(i != 700, "{EXPECTED}"))
        }));
        assert!(result.is_err());
        assert_eq!((v.len(), drops.load(SeqCst)), (0, 1_000));
    });
}

#[test]
fn drains_run_on_both_workers() {
    let seen = Mutex::new(HashSet::new());
    let two = AtomicBool::new(false);
    let gave_up = AtomicBool::new(false);
    let hook = || {
        let mut threads = seen.lock().unwrap();
        threads.insert(current_thread_index().unwrap());
        if threads.len() >= 2 {
            two.store(true, SeqCst);
        }
        drop(threads);
        // After one wait times out, no more: one deadline, not one per item.
        if !gave_up.load(SeqCst) && !wait_for(&two) {
            gave_up.store(true, SeqCst);
        }
    };
    let mut v: Vec<u64> = (0..10_000).collect();
    ThreadPool::new(2).install(|| v.par_drain(..).for_each(|_| hook()));
    assert!(two.load(SeqCst), "par_drain ran on one worker only");
    assert!(v.is_empty());
}
