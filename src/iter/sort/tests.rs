//! The tests of the parallel loops and sorts (`par::tests`).

use super::quicksort::PARALLEL_PARTITION;
use crate::iter::sort::SEQUENTIAL_SORT;
// These tests build only on the `std` backend (see `mod.rs`), where the
// facade's atomics are `std`'s: `LIVE` below needs their `const fn new`.
use crate::sync::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
use crate::ThreadPool;
use std::panic::{self, AssertUnwindSafe};

fn random(n: usize, seed: u64, modulus: u64) -> Vec<u64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % modulus
        })
        .collect()
}

/// Inputs that break naive quicksorts and merges.
fn inputs() -> Vec<(&'static str, Vec<u64>)> {
    let n = 200_000;
    vec![
        ("empty", vec![]),
        ("one", vec![7]),
        ("small", random(100, 1, u64::MAX)),
        ("random", random(n, 2, u64::MAX)),
        ("few distinct", random(n, 3, 4)),
        ("all equal", vec![5; n]),
        ("sorted", (0..n as u64).collect()),
        ("reversed", (0..n as u64).rev().collect()),
        ("sawtooth", (0..n as u64).map(|i| i % 1000).collect()),
        ("organ pipe", (0..n as u64).map(|i| i.min(n as u64 - i)).collect()),
        ("odd length", random(n + 7, 4, 1 << 20)),
    ]
}

#[test]
fn for_each_visits_every_index_once() {
    for threads in [1, 2, 4] {
        let pool = ThreadPool::new(threads);
        for n in [0, 1, 2, 3, 100, 10_007] {
            let visits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            pool.for_each(0..n, |i| {
                visits[i].fetch_add(1, AtomicOrdering::Relaxed);
            });
            assert!(
                visits.iter().all(|v| v.load(AtomicOrdering::Relaxed) == 1),
                "n = {n}"
            );
        }
    }
}

#[test]
fn for_each_range_covers_an_offset_range_with_disjoint_pieces() {
    let pool = ThreadPool::new(3);
    let visits: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
    pool.for_each_range(100..1000, |piece| {
        assert!(!piece.is_empty());
        for i in piece {
            visits[i].fetch_add(1, AtomicOrdering::Relaxed);
        }
    });
    for (i, v) in visits.iter().enumerate() {
        assert_eq!(
            v.load(AtomicOrdering::Relaxed),
            usize::from(i >= 100),
            "index {i}"
        );
    }
}

#[test]
fn for_each_chunk_mut_hands_out_each_chunk_once_with_its_index() {
    let pool = ThreadPool::new(2);
    for (len, chunk) in [(0, 3), (1, 3), (10, 3), (12, 3), (10_000, 7), (5, 100)] {
        let mut v = vec![usize::MAX; len];
        pool.for_each_chunk_mut(&mut v, chunk, |i, c| {
            assert!(c.len() == chunk || (i + 1) * chunk >= len);
            c.fill(i);
        });
        let expected: Vec<usize> = (0..len).map(|j| j / chunk).collect();
        assert!(v == expected, "len {len}, chunk {chunk}");
    }
}

#[test]
fn for_each_chunk_hands_out_each_chunk_once_with_its_index() {
    let pool = ThreadPool::new(2);
    for (len, chunk) in [(0, 3), (1, 3), (10, 3), (12, 3), (10_000, 7), (5, 100)] {
        let v: Vec<usize> = (0..len).collect();
        let seen: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(usize::MAX)).collect();
        pool.for_each_chunk(&v, chunk, |i, c| {
            assert!(c.len() == chunk || (i + 1) * chunk >= len);
            assert_eq!(c[0], i * chunk, "chunk {i} starts where it should");
            for &j in c {
                let before = seen[j].swap(i, AtomicOrdering::Relaxed);
                assert_eq!(before, usize::MAX, "element {j} handed out twice");
            }
        });
        let seen: Vec<usize> = seen.iter().map(|s| s.load(AtomicOrdering::Relaxed)).collect();
        let expected: Vec<usize> = (0..len).map(|j| j / chunk).collect();
        assert!(seen == expected, "len {len}, chunk {chunk}");
    }
}

#[test]
fn an_unbalanced_loop_is_split_where_it_is_stolen() {
    // All the work is in the last indices: adaptive splitting must cut
    // that part finer than the initial two pieces per worker.
    let pool = ThreadPool::new(2);
    let pieces = AtomicUsize::new(0);
    pool.for_each_range(0..1 << 16, |piece| {
        pieces.fetch_add(1, AtomicOrdering::Relaxed);
        if piece.end > 60_000 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    });
    assert!(pieces.into_inner() >= 4);
}

#[test]
fn reduce_matches_the_sequential_fold() {
    let data = random(100_003, 5, 1 << 32);
    for threads in [1, 2, 3] {
        let pool = ThreadPool::new(threads);
        let sum = pool.reduce(0..data.len(), || 0u64, |i| data[i], |a, b| a + b);
        assert_eq!(sum, data.iter().sum::<u64>());
        let max = pool.reduce(0..data.len(), || 0u64, |i| data[i], u64::max);
        assert_eq!(max, *data.iter().max().unwrap());
        assert_eq!(pool.reduce(0..0, || 42u64, |i| i as u64, |a, b| a + b), 42);
    }
}

#[test]
fn reduce_combines_in_index_order() {
    let pool = ThreadPool::new(2);
    let all: Vec<usize> = pool.reduce(
        0..5_000,
        Vec::new,
        |i| vec![i],
        |mut a, b| {
            a.extend(b);
            a
        },
    );
    assert_eq!(all, (0..5_000).collect::<Vec<_>>());
}

#[test]
fn for_each_and_reduce_work_from_inside_the_pool() {
    let pool = ThreadPool::new(2);
    let total = AtomicU64::new(0);
    pool.scope(|s| {
        s.spawn(|_| {
            let sum = pool.reduce(0..1000, || 0u64, |i| i as u64, |a, b| a + b);
            total.fetch_add(sum, AtomicOrdering::Relaxed);
        });
        s.spawn(|_| {
            pool.for_each(0..1000, |i| {
                total.fetch_add(i as u64, AtomicOrdering::Relaxed);
            })
        });
    });
    assert_eq!(total.into_inner(), 2 * 999 * 1000 / 2);
}

#[test]
fn sort_unstable_matches_std() {
    for threads in [1, 2, 4] {
        let pool = ThreadPool::new(threads);
        for (name, input) in inputs() {
            let mut expected = input.clone();
            expected.sort_unstable();
            let mut v = input;
            pool.sort_unstable(&mut v);
            assert!(v == expected, "{name}, {threads} threads");
        }
    }
}

#[test]
fn sort_unstable_of_send_elements_matches_std() {
    // The quicksort behind `par_sort_unstable`, whose partitions run on
    // one thread each: `Cell`s are `Send` but not `Sync`. (One worker
    // sorts with std's sort.)
    for threads in [2] {
        let pool = ThreadPool::new(threads);
        for (name, input) in inputs() {
            let mut expected = input.clone();
            expected.sort_unstable();
            let mut v: Vec<std::cell::Cell<u64>> = input.into_iter().map(std::cell::Cell::new).collect();
            super::sort_unstable_by_send(&pool, &mut v, |a, b| a.get().cmp(&b.get()));
            assert!(
                v.iter().map(std::cell::Cell::get).eq(expected),
                "{name}, {threads} threads"
            );
        }
    }
}

#[test]
fn sort_matches_std_and_is_stable() {
    for threads in [1, 2, 4] {
        let pool = ThreadPool::new(threads);
        for (name, input) in inputs() {
            // Sort (key, original index) by key only: a stable sort
            // leaves each key's indices increasing, as std's does.
            let mut v: Vec<(u64, usize)> = input.iter().map(|&k| (k % 1000, 0)).collect();
            for (i, e) in v.iter_mut().enumerate() {
                e.1 = i;
            }
            let mut expected = v.clone();
            expected.sort_by_key(|e| e.0);
            pool.sort_by(&mut v, |a, b| a.0.cmp(&b.0));
            assert!(v == expected, "{name}, {threads} threads");
        }
    }
}

#[test]
fn sorts_own_non_copy_elements() {
    let pool = ThreadPool::new(2);
    let input: Vec<String> = random(50_000, 6, 1 << 40).iter().map(u64::to_string).collect();
    let mut expected = input.clone();
    expected.sort();
    let mut v = input.clone();
    pool.sort(&mut v);
    assert!(v == expected);
    let mut v = input;
    pool.sort_unstable(&mut v);
    assert!(v == expected);
}

/// The smallest inputs that take every parallel path of both sorts
/// (pieces, parallel merges, a parallel partition with block swaps),
/// with owned elements: small enough for Miri to check the merge sort's
/// raw copies.
#[test]
fn sorts_of_owned_elements_through_every_parallel_path() {
    let pool = ThreadPool::new(2);
    // Under Miri, only the merge sort's paths: a parallel partition
    // needs more elements than Miri gets through in reasonable time.
    let n = if cfg!(miri) {
        6 * SEQUENTIAL_SORT
    } else {
        3 * PARALLEL_PARTITION.max(2 * SEQUENTIAL_SORT)
    };
    let input: Vec<Box<u64>> = random(n, 8, 1000).into_iter().map(Box::new).collect();
    let mut expected = input.clone();
    expected.sort();
    let mut v = input.clone();
    pool.sort(&mut v);
    assert!(v == expected);
    let mut v = input;
    pool.sort_unstable(&mut v);
    assert!(v == expected);
}

/// A comparison that panics after `limit` calls must leave every
/// element in the slice exactly once (no double drop, no leak).
#[test]
fn a_panicking_comparison_loses_and_duplicates_nothing() {
    static LIVE: AtomicUsize = AtomicUsize::new(0);
    struct Tracked(u64);
    impl Drop for Tracked {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, AtomicOrdering::Relaxed);
        }
    }
    let pool = ThreadPool::new(2);
    for stable in [true, false] {
        for limit in [10, 100_000, usize::MAX] {
            let input = random(100_000, 7, 1 << 20);
            LIVE.store(input.len(), AtomicOrdering::Relaxed);
            let mut v: Vec<Tracked> = input.iter().map(|&x| Tracked(x)).collect();
            let calls = AtomicUsize::new(0);
            let compare = |a: &Tracked, b: &Tracked| {
                if calls.fetch_add(1, AtomicOrdering::Relaxed) == limit {
                    panic!("comparison {limit} fails");
                }
                a.0.cmp(&b.0)
            };
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                if stable {
                    pool.sort_by(&mut v, compare);
                } else {
                    pool.sort_unstable_by(&mut v, compare);
                }
            }));
            assert_eq!(
                result.is_err(),
                limit < usize::MAX,
                "stable: {stable}, limit {limit}"
            );
            let mut got: Vec<u64> = v.iter().map(|t| t.0).collect();
            let mut expected = input;
            got.sort_unstable();
            expected.sort_unstable();
            assert!(
                got == expected,
                "elements lost or duplicated: stable: {stable}, limit {limit}"
            );
            drop(v);
            assert_eq!(
                LIVE.load(AtomicOrdering::Relaxed),
                0,
                "stable: {stable}, limit {limit}"
            );
        }
    }
}
