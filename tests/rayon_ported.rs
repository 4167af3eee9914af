#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Three programs written against rayon's API, ported by their `use`
//! lines alone: below `rayon` is stealpool, and every path the programs
//! name (`rayon::join`, `rayon::ThreadPoolBuilder`, `rayon::prelude::*`,
//! `rayon::current_thread_index`, ...) is rayon's. Each result is checked
//! against sequential code, and each program is checked to have run on
//! two threads at once (`Seen`).

use stealpool as rayon;

use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Mutex;

mod common;
use common::wait_for;

/// The threads a program ran on, by `current_thread_index`. A thread's
/// first note waits (up to the tests' deadline, once) until a second
/// thread has noted itself too, so a program that splits its work at all
/// is seen on two threads whatever the machine's load; one that never
/// does fails after one deadline.
#[derive(Default)]
struct Seen {
    threads: Mutex<HashSet<usize>>,
    two: AtomicBool,
    gave_up: AtomicBool,
}

impl Seen {
    fn note(&self) {
        let me = rayon::current_thread_index().expect("runs on a thread of the pool");
        let mut threads = self.threads.lock().unwrap();
        let first = threads.insert(me);
        if threads.len() >= 2 {
            self.two.store(true, SeqCst);
        }
        drop(threads);
        if first && !self.gave_up.load(SeqCst) && !wait_for(&self.two) {
            self.gave_up.store(true, SeqCst);
        }
    }

    fn on_two_threads(&self) -> bool {
        self.two.load(SeqCst)
    }
}

// ---------------------------------------------------------------- 1. words

/// Word frequencies of a text, the classic map-reduce: lines in parallel,
/// a map per piece, maps merged.
fn word_counts(text: &str, seen: &Seen) -> BTreeMap<String, usize> {
    text.par_lines()
        .fold(BTreeMap::new, |mut counts: BTreeMap<String, usize>, line| {
            seen.note();
            for word in line.split_whitespace() {
                *counts.entry(word.to_lowercase()).or_default() += 1;
            }
            counts
        })
        .reduce(BTreeMap::new, |mut left, right| {
            for (word, count) in right {
                *left.entry(word).or_default() += count;
            }
            left
        })
}

#[test]
fn word_counts_as_rayon_code() {
    let line = "the quick brown fox jumps over the lazy dog The End";
    let text = vec![line; 4_000].join("\n");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let seen = Seen::default();
    let counts = pool.install(|| word_counts(&text, &seen));
    let mut expected = BTreeMap::new();
    for word in text.split_whitespace() {
        *expected.entry(word.to_lowercase()).or_insert(0usize) += 1;
    }
    assert_eq!(counts, expected);
    assert_eq!(counts["the"], 3 * 4_000);
    assert!(
        seen.on_two_threads(),
        "the lines were not split over both threads"
    );
}

// ---------------------------------------------------------------- 2. quicksort

/// A recursive quicksort on `rayon::join`, small slices sorted in place.
fn quicksort<T: PartialOrd + Send>(items: &mut [T], seen: &Seen) {
    if items.len() <= 64 {
        seen.note();
        items.sort_by(|a, b| a.partial_cmp(b).unwrap());
        return;
    }
    let pivot = partition(items);
    let (left, right) = items.split_at_mut(pivot);
    rayon::join(|| quicksort(left, seen), || quicksort(&mut right[1..], seen));
}

/// Lomuto's partition around the middle item; returns the pivot's place.
fn partition<T: PartialOrd>(items: &mut [T]) -> usize {
    let last = items.len() - 1;
    items.swap(items.len() / 2, last);
    let mut store = 0;
    for i in 0..last {
        if items[i] <= items[last] {
            items.swap(i, store);
            store += 1;
        }
    }
    items.swap(store, last);
    store
}

#[test]
fn quicksort_as_rayon_code() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut items: Vec<u64> = (0..50_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % 10_000
        })
        .collect();
    let mut expected = items.clone();
    expected.sort_unstable();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let seen = Seen::default();
    pool.install(|| quicksort(&mut items, &seen));
    assert_eq!(items, expected);
    assert!(seen.on_two_threads(), "the halves never ran on the other thread");
}

// ---------------------------------------------------------------- 3. matrix

/// A row-major matrix product: rows of the result in parallel, each from
/// a row of `a` and the columns of `b`; then a scope that checks a
/// diagonal stripe per task, and a broadcast that counts the workers.
fn multiply(a: &[f64], b: &[f64], n: usize, seen: &Seen) -> Vec<f64> {
    let mut product = vec![0.0; n * n];
    product
        .par_chunks_mut(n)
        .zip(a.par_chunks(n))
        .for_each(|(out_row, a_row)| {
            seen.note();
            for (j, out) in out_row.iter_mut().enumerate() {
                *out = a_row.iter().enumerate().map(|(k, x)| x * b[k * n + j]).sum();
            }
        });
    product
}

#[test]
fn matrix_product_as_rayon_code() {
    let n = 96;
    let a: Vec<f64> = (0..n * n).map(|i| (i % 7) as f64).collect();
    let b: Vec<f64> = (0..n * n).map(|i| (i % 5) as f64 - 2.0).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let seen = Seen::default();
    let product = pool.install(|| multiply(&a, &b, n, &seen));
    let mut expected = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            expected[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        }
    }
    assert_eq!(product, expected);
    assert!(seen.on_two_threads(), "the rows were not split over both threads");
    // The diagonal, in stripes, one scope task each.
    let stripes = Mutex::new(Vec::new());
    pool.scope(|s| {
        for stripe in 0..4 {
            let (product, expected, stripes) = (&product, &expected, &stripes);
            s.spawn(move |_| {
                let agree =
                    (stripe * n / 4..(stripe + 1) * n / 4).all(|i| product[i * n + i] == expected[i * n + i]);
                stripes.lock().unwrap().push((stripe, agree));
            });
        }
    });
    let mut stripes = stripes.into_inner().unwrap();
    stripes.sort();
    assert_eq!(stripes, [(0, true), (1, true), (2, true), (3, true)]);
    // Every worker says it is there.
    assert_eq!(pool.broadcast(|context| context.index()), [0, 1]);
}
