#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The parallel iterators (`stealpool::prelude`) against the sequential
//! std iterators: every method gives std's result, on pools of 1 and 2
//! workers and on the global pool; panics reach the caller and leak
//! nothing; edge cases panic where rayon's do; stolen pieces are split
//! again.

use proptest::prelude::*;
use std::collections::HashMap;
use std::num::Wrapping;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Mutex, OnceLock};
use stealpool::prelude::*;
use stealpool::ThreadPool;

mod common;
use common::{message, quiet_expected_panics_or, EXPECTED};

/// Keeps the panics these tests cause on purpose off stderr: those with
/// [`EXPECTED`] and the zero-size ones.
fn quiet() {
    quiet_expected_panics_or(|payload| {
        message(payload).is_some_and(|m| m.contains("must not be zero") || m.contains("must be non-zero"))
    });
}

/// One 2-worker pool for the property tests' many cases.
fn two_workers() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| ThreadPool::new(2))
}

/// Runs `check` on a 1-worker pool, a 2-worker pool and the global pool.
fn on_pools(check: impl Fn() + Sync) {
    for workers in [1, 2] {
        ThreadPool::new(workers).install(&check);
    }
    check();
}

fn data(n: u64) -> Vec<u64> {
    (0..n).map(|i| i.wrapping_mul(2_654_435_761) % 1_000).collect()
}

#[test]
fn sources_and_adapters_match_std() {
    on_pools(|| {
        for n in [0u64, 1, 2, 7, 1_000, 10_007] {
            let v = data(n);
            let seq_map: Vec<u64> = v.iter().map(|x| x * 3).collect();
            assert_eq!(v.par_iter().map(|x| x * 3).collect::<Vec<_>>(), seq_map);
            assert_eq!(
                v.clone().into_par_iter().map(|x| x * 3).collect::<Vec<_>>(),
                seq_map
            );
            assert_eq!((&v).into_par_iter().copied().collect::<Vec<_>>(), v);
            assert_eq!(v.as_slice().par_iter().cloned().collect::<Vec<_>>(), v);
            let range: Vec<u64> = (0..n).collect();
            assert_eq!((0..n).into_par_iter().collect::<Vec<_>>(), range);
            assert_eq!((0..=n).into_par_iter().count(), n as usize + 1);
            let filtered: Vec<u64> = v.iter().copied().filter(|x| x % 3 == 0).collect();
            assert_eq!(
                v.par_iter().copied().filter(|x| x % 3 == 0).collect::<Vec<_>>(),
                filtered
            );
            let fm: Vec<u64> = v.iter().filter_map(|x| (x % 2 == 0).then_some(x / 2)).collect();
            assert_eq!(
                v.par_iter()
                    .filter_map(|x| (x % 2 == 0).then_some(x / 2))
                    .collect::<Vec<_>>(),
                fm
            );
            let flat: Vec<u64> = v.iter().flat_map(|&x| 0..x % 4).collect();
            assert_eq!(
                v.par_iter().flat_map_iter(|&x| 0..x % 4).collect::<Vec<_>>(),
                flat
            );
            let en: Vec<(usize, &u64)> = v.iter().enumerate().collect();
            assert_eq!(v.par_iter().enumerate().collect::<Vec<_>>(), en);
            let zipped: Vec<(&u64, u64)> = v.iter().zip(5..).collect();
            assert_eq!(v.par_iter().zip(5..n + 5).collect::<Vec<_>>(), zipped);
            let zipped_short: Vec<(&u64, u64)> = v.iter().zip(0..n / 2).collect();
            assert_eq!(v.par_iter().zip(0..n / 2).collect::<Vec<_>>(), zipped_short);
            let chunks: Vec<Vec<u64>> = v.chunks(3).map(<[u64]>::to_vec).collect();
            assert_eq!(v.par_iter().copied().chunks(3).collect::<Vec<_>>(), chunks);
            assert_eq!(v.par_iter().with_min_len(100).copied().collect::<Vec<_>>(), v);
            for k in [0, 1, n as usize / 3, n as usize, n as usize + 5] {
                let take: Vec<u64> = v.iter().copied().take(k).collect();
                assert_eq!(v.clone().into_par_iter().take(k).collect::<Vec<_>>(), take);
                let skip: Vec<u64> = v.iter().copied().skip(k).collect();
                assert_eq!(v.par_iter().copied().skip(k).collect::<Vec<_>>(), skip);
            }
            let slice_chunks: Vec<u64> = v.chunks(7).map(|c| c.iter().sum()).collect();
            assert_eq!(
                v.par_chunks(7).map(|c| c.iter().sum()).collect::<Vec<u64>>(),
                slice_chunks
            );
            let windows: Vec<u64> = v.windows(3).map(|w| w[0] + w[2]).collect();
            assert_eq!(v.par_windows(3).map(|w| w[0] + w[2]).collect::<Vec<_>>(), windows);
        }
    });
}

#[test]
fn reductions_match_std() {
    on_pools(|| {
        for n in [0u64, 1, 3, 1_000, 10_007] {
            let v = data(n);
            assert_eq!(v.par_iter().sum::<u64>(), v.iter().sum::<u64>());
            let odd = |&x: &u64| Wrapping(x | 1);
            assert_eq!(
                v.par_iter().map(odd).product::<Wrapping<u64>>(),
                v.iter().map(odd).product()
            );
            assert_eq!(v.par_iter().count(), v.len());
            assert_eq!(v.par_iter().min(), v.iter().min());
            assert_eq!(v.par_iter().max(), v.iter().max());
            // First of the least keys, last of the greatest, as std.
            let key = |x: &&u64| **x % 10;
            let pos = |found: Option<&u64>| found.map(|r| (r as *const u64).addr());
            assert_eq!(pos(v.par_iter().min_by_key(key)), pos(v.iter().min_by_key(key)));
            assert_eq!(pos(v.par_iter().max_by_key(key)), pos(v.iter().max_by_key(key)));
            let by = |a: &&u64, b: &&u64| (**a % 10).cmp(&(**b % 10));
            assert_eq!(pos(v.par_iter().min_by(by)), pos(v.iter().min_by(by)));
            assert_eq!(pos(v.par_iter().max_by(by)), pos(v.iter().max_by(by)));
            assert_eq!(
                v.par_iter().copied().reduce(|| 0, u64::max),
                v.iter().copied().fold(0, u64::max)
            );
            assert_eq!(
                v.par_iter().copied().reduce_with(|a, b| a + b),
                v.iter().copied().reduce(|a, b| a + b)
            );
            // Order kept through fold and reduce: concatenation.
            let text: String = v.iter().map(|x| x.to_string()).collect();
            let folded = v
                .par_iter()
                .fold(String::new, |s, x| s + &x.to_string())
                .reduce(String::new, |a, b| a + &b);
            assert_eq!(folded, text);
            assert_eq!(v.par_iter().map(|x| x.to_string()).collect::<String>(), text);
            assert_eq!(v.par_iter().any(|&x| x == 999), v.contains(&999));
            assert!(v.par_iter().all(|&x| x < 1_000));
            assert_eq!(v.par_iter().all(|&x| x < 500), v.iter().all(|&x| x < 500));
            if let Some(found) = v.par_iter().find_any(|&&x| x % 7 == 3) {
                assert_eq!(found % 7, 3);
            } else {
                assert!(v.iter().all(|x| x % 7 != 3));
            }
            match v.par_iter().position_any(|&x| x == 42) {
                Some(i) => assert_eq!(v[i], 42),
                None => assert!(!v.contains(&42)),
            }
            let checked: Result<Vec<u64>, u64> = v
                .par_iter()
                .map(|&x| if x == 999 { Err(x) } else { Ok(x) })
                .collect();
            assert_eq!(
                checked,
                v.iter().map(|&x| if x == 999 { Err(x) } else { Ok(x) }).collect()
            );
            let some: Option<Vec<u64>> = v.par_iter().map(|&x| x.checked_sub(1)).collect();
            assert_eq!(some, v.iter().map(|&x| x.checked_sub(1)).collect());
            let (evens, odds): (Vec<u64>, Vec<bool>) = v.par_iter().map(|&x| (x, x % 2 == 1)).unzip();
            assert_eq!(evens, v);
            assert_eq!(odds, v.iter().map(|x| x % 2 == 1).collect::<Vec<_>>());
        }
    });
}

#[test]
fn for_each_and_mutation_see_every_item_once() {
    on_pools(|| {
        let n = 10_000usize;
        let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        (0..n).into_par_iter().for_each(|i| {
            seen[i].fetch_add(1, SeqCst);
        });
        assert!(seen.iter().all(|s| s.load(SeqCst) == 1));
        let collected = Mutex::new(Vec::new());
        (0..n).into_par_iter().for_each_with(0usize, |count, i| {
            *count += 1;
            collected.lock().unwrap().push((i, *count));
        });
        let mut collected = collected.into_inner().unwrap();
        collected.sort();
        assert!(collected
            .iter()
            .enumerate()
            .all(|(i, &(j, count))| i == j && count >= 1));
        let inits = AtomicUsize::new(0);
        let total = AtomicUsize::new(0);
        (0..n).into_par_iter().for_each_init(
            || {
                inits.fetch_add(1, SeqCst);
                Vec::new()
            },
            |seen: &mut Vec<usize>, i| {
                seen.push(i);
                total.fetch_add(1, SeqCst);
            },
        );
        assert_eq!(total.load(SeqCst), n);
        // Once per piece, not per item.
        assert!((1..=64).contains(&inits.load(SeqCst)), "{inits:?}");
        let mut v: Vec<usize> = (0..n).collect();
        v.par_iter_mut().for_each(|x| *x *= 2);
        assert!(v.iter().enumerate().all(|(i, &x)| x == 2 * i));
        v.par_chunks_mut(10)
            .enumerate()
            .for_each(|(c, chunk)| chunk.fill(c));
        assert!(v.iter().enumerate().all(|(i, &x)| x == i / 10));
    });
}

#[test]
fn strings_and_maps_match_std() {
    let mut text = String::new();
    for i in 0..5_000u32 {
        text.push_str(["lorem", "ipsum", "é", "dolor\n", "  ", "\tsit\r\n", "amet"][i as usize % 7]);
        text.push(if i % 5 == 0 { '\n' } else { ' ' });
    }
    on_pools(|| {
        for t in [&text[..], "", " ", "\n", "a", " a b ", "x\n\ny\n"] {
            assert_eq!(
                t.par_split_whitespace().collect::<Vec<_>>(),
                t.split_whitespace().collect::<Vec<_>>()
            );
            assert_eq!(t.par_lines().collect::<Vec<_>>(), t.lines().collect::<Vec<_>>());
        }
        let counts: HashMap<&str, usize> = text
            .par_split_whitespace()
            .fold(HashMap::new, |mut m, w| {
                *m.entry(w).or_insert(0) += 1;
                m
            })
            .reduce(HashMap::new, |mut a, b| {
                for (w, c) in b {
                    *a.entry(w).or_insert(0) += c;
                }
                a
            });
        let mut expected = HashMap::new();
        for w in text.split_whitespace() {
            *expected.entry(w).or_insert(0) += 1;
        }
        assert_eq!(counts, expected);
        let lengths: HashMap<&str, usize> = text.par_split_whitespace().map(|w| (w, w.len())).collect();
        assert_eq!(lengths.len(), expected.len());
        let chars: String = text.par_split_whitespace().flat_map_iter(str::chars).collect();
        assert_eq!(
            chars,
            text.split_whitespace().flat_map(str::chars).collect::<String>()
        );
    });
}

#[test]
fn sorts_match_std() {
    on_pools(|| {
        for n in [0u64, 1, 100, 12_000] {
            let v: Vec<(u64, u64)> = data(n).into_iter().zip(0..).collect();
            let mut expected = v.clone();
            expected.sort_by_key(|p| p.0);
            let mut got = v.clone();
            got.par_sort_by_key(|p| p.0);
            assert_eq!(got, expected, "stable by key");
            let mut got = v.clone();
            got.par_sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(got, expected, "stable by");
            let mut got = v.clone();
            got.par_sort();
            expected.sort();
            assert_eq!(got, expected);
            let mut got = v.clone();
            got.par_sort_unstable();
            assert_eq!(got, expected);
            let mut got = v.clone();
            got.par_sort_unstable_by(|a, b| b.cmp(a));
            expected.reverse();
            assert_eq!(got, expected);
            let mut got = v.clone();
            got.par_sort_unstable_by_key(|p| std::cmp::Reverse(*p));
            assert_eq!(got, expected);
        }
    });
}

#[test]
fn empty_inputs() {
    on_pools(|| {
        let empty: Vec<u32> = Vec::new();
        assert_eq!(empty.par_iter().sum::<u32>(), 0);
        assert_eq!(empty.par_iter().product::<u32>(), 1);
        assert_eq!(empty.par_iter().min(), None);
        assert_eq!(empty.par_iter().copied().reduce_with(|a, b| a + b), None);
        assert_eq!(empty.par_iter().copied().reduce(|| 7, |a, b| a + b), 7);
        assert!(!empty.par_iter().any(|_| true));
        assert!(empty.par_iter().all(|_| false));
        assert_eq!(empty.par_chunks(3).count(), 0);
        assert_eq!(empty.par_windows(3).count(), 0);
        assert_eq!([1u32, 2].par_windows(3).count(), 0);
        let (high, low) = (5u32, 3u32);
        assert_eq!((high..low).into_par_iter().count(), 0);
        assert_eq!((high as i8..=low as i8).into_par_iter().count(), 0);
        assert_eq!(empty.clone().into_par_iter().collect::<Vec<_>>(), empty);
        assert_eq!("".par_split_whitespace().count(), 0);
        let (a, b): (Vec<u32>, Vec<u32>) = empty.par_iter().map(|&x| (x, x)).unzip();
        assert!(a.is_empty() && b.is_empty());
    });
}

#[test]
fn extreme_ranges_do_not_overflow() {
    on_pools(|| {
        assert!((0..usize::MAX).into_par_iter().any(|i| i == 5));
        assert_eq!(
            (0..usize::MAX).into_par_iter().position_any(|i| i == 1_000),
            Some(1_000)
        );
        assert_eq!((0..usize::MAX).into_par_iter().len(), usize::MAX);
        assert!(!(0..usize::MAX).into_par_iter().all(|i| i < 3));
        assert_eq!(
            (i64::MIN..i64::MAX)
                .into_par_iter()
                .find_any(|&i| i == i64::MIN + 4),
            Some(i64::MIN + 4)
        );
        assert_eq!(
            (i8::MIN..=i8::MAX).into_par_iter().map(i32::from).sum::<i32>(),
            -128
        );
        assert_eq!(
            (u8::MIN..=u8::MAX).into_par_iter().collect::<Vec<_>>(),
            (0..=255).collect::<Vec<u8>>()
        );
    });
}

fn panic_message(f: impl FnOnce()) -> String {
    quiet();
    let payload = panic::catch_unwind(AssertUnwindSafe(f)).expect_err("should panic");
    message(&*payload).unwrap_or_default()
}

#[test]
fn zero_sizes_panic_clearly() {
    let v = [1, 2, 3];
    assert!(panic_message(|| {
        v.par_chunks(0);
    })
    .contains("chunk_size must not be zero"));
    assert!(panic_message(|| {
        v.to_vec().par_chunks_mut(0);
    })
    .contains("chunk_size must not be zero"));
    assert!(panic_message(|| {
        let _ = v.par_iter().chunks(0);
    })
    .contains("chunk_size must not be zero"));
    assert!(panic_message(|| {
        v.par_windows(0);
    })
    .contains("window size must be non-zero"));
}

/// Counts its drops.
struct Counted<'a>(&'a AtomicUsize, u32);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn panics_reach_the_caller_and_leak_nothing() {
    quiet();
    on_pools(|| {
        for n in [1u32, 10, 5_000] {
            for bad in [0, n / 2, n - 1] {
                let drops = AtomicUsize::new(0);
                let outputs = AtomicUsize::new(0);
                let input: Vec<Counted> = (0..n).map(|i| Counted(&drops, i)).collect();
                let result = panic::catch_unwind(AssertUnwindSafe(|| {
                    input
                        .into_par_iter()
                        .map(|c| {
                            assert!(c.1 != bad, "{EXPECTED}: item {bad}");
                            outputs.fetch_add(1, SeqCst);
                            Counted(c.0, c.1)
                        })
                        .collect::<Vec<_>>()
                }));
                let message = message(&*result.err().expect("the panic reaches the caller")).unwrap();
                assert!(message.contains(EXPECTED), "{message}");
                // Every input dropped once, every output made dropped once.
                assert_eq!(drops.load(SeqCst), n as usize + outputs.load(SeqCst));
            }
        }
        // Through the unindexed collect, for_each and reduce too.
        let drops = AtomicUsize::new(0);
        let made = AtomicUsize::new(0);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            (0..2_000u32)
                .into_par_iter()
                .filter(|i| i % 2 == 0)
                .map(|i| {
                    assert!(i != 1_000, "{EXPECTED}");
                    made.fetch_add(1, SeqCst);
                    Counted(&drops, i)
                })
                .collect::<Vec<_>>()
        }));
        assert!(result.is_err());
        assert_eq!(drops.load(SeqCst), made.load(SeqCst));
        let result = panic::catch_unwind(|| {
            (0..100u32)
                .into_par_iter()
                .for_each(|i| assert!(i != 77, "{EXPECTED}"))
        });
        assert!(result.is_err());
        let result = panic::catch_unwind(|| {
            (0..100u32)
                .into_par_iter()
                .reduce(|| 0, |a, b| if b == 3 { panic!("{EXPECTED}") } else { a + b })
        });
        assert!(result.is_err());
    });
}

#[test]
fn results_drop_every_item_once() {
    on_pools(|| {
        let drops = AtomicUsize::new(0);
        let v: Vec<Counted> = (0..3_000).map(|i| Counted(&drops, i)).collect();
        // `find_any` stops early: the items not reached are dropped too.
        let found = v.into_par_iter().find_any(|c| c.1 == 10);
        assert_eq!(found.as_ref().map(|c| c.1), Some(10));
        drop(found);
        assert_eq!(drops.load(SeqCst), 3_000);
        let drops = AtomicUsize::new(0);
        let v: Vec<Counted> = (0..3_000).map(|i| Counted(&drops, i)).collect();
        let kept: Vec<Counted> = v.into_par_iter().filter(|c| c.1 % 3 == 0).collect();
        assert_eq!(drops.load(SeqCst), 2_000);
        assert_eq!(kept.len(), 1_000);
        drop(kept);
        assert_eq!(drops.load(SeqCst), 3_000);
    });
}

#[test]
fn nested_iterators_run_on_the_same_pool() {
    on_pools(|| {
        let nested: u64 = (0..200u64)
            .into_par_iter()
            .map(|i| (0..i).into_par_iter().map(|j| j * i).sum::<u64>())
            .sum();
        let expected: u64 = (0..200u64).map(|i| (0..i).map(|j| j * i).sum::<u64>()).sum();
        assert_eq!(nested, expected);
        let words: Vec<Vec<usize>> = ["a bb", "ccc d", ""]
            .par_iter()
            .map(|line| line.par_split_whitespace().map(str::len).collect())
            .collect();
        assert_eq!(words, [vec![1, 2], vec![3, 1], vec![]]);
    });
}

#[test]
fn install_scopes_the_iterators_to_its_pool() {
    let pool = ThreadPool::builder()
        .num_threads(2)
        .thread_name(|i| format!("iter-{i}"))
        .build()
        .unwrap();
    let names: Vec<String> = pool.install(|| {
        (0..1_000u32)
            .into_par_iter()
            .map(|_| std::thread::current().name().unwrap_or("").to_string())
            .collect()
    });
    assert!(names.iter().all(|n| n.starts_with("iter-")), "{names:?}");
    assert_eq!(pool.install(stealpool::current_num_threads), 2);
}

/// A piece that another worker steals is split again there: with two
/// workers, a range of 1024 is first cut into pieces of 256 (two splits
/// per worker). Worker A is held in item 0 until worker B has run an item
/// of the right half, so B must have stolen that half; it then gets a
/// fresh budget and cuts it into pieces of 128 or fewer. Without
/// adaptivity they would be 256 long.
#[test]
fn stolen_pieces_are_split_again() {
    let pool = ThreadPool::new(2);
    let right_started = AtomicBool::new(false);
    let pieces: Vec<Vec<usize>> = pool.install(|| {
        (0..1024usize)
            .into_par_iter()
            .fold(Vec::new, |mut piece, i| {
                if i == 0 {
                    while !right_started.load(SeqCst) {
                        std::thread::yield_now();
                    }
                }
                if i >= 512 {
                    right_started.store(true, SeqCst);
                }
                piece.push(i);
                piece
            })
            .collect()
    });
    let all: Vec<usize> = pieces.concat();
    assert_eq!(all, (0..1024).collect::<Vec<_>>());
    let right: Vec<&Vec<usize>> = pieces.iter().filter(|p| p[0] >= 512).collect();
    assert!(
        right.iter().all(|p| p.len() <= 128),
        "right half's pieces: {:?}",
        right.iter().map(|p| p.len()).collect::<Vec<_>>()
    );
    assert!(right.len() >= 4);
}

/// `with_min_len` bounds the pieces from below; long text is split into
/// pieces at all (and in order, as `strings_and_maps_match_std` checks).
#[test]
fn pieces_respect_min_len_and_text_splits() {
    on_pools(|| {
        let pieces: Vec<usize> = (0..1_000u32)
            .into_par_iter()
            .with_min_len(300)
            .fold(|| 0usize, |n, _| n + 1)
            .collect();
        assert_eq!(pieces.iter().sum::<usize>(), 1_000);
        assert!(pieces.iter().all(|&n| n >= 300), "{pieces:?}");
        let text = "word ".repeat(10_000);
        let pieces = text.par_split_whitespace().fold(|| 0usize, |n, _| n + 1).count();
        assert!(pieces >= 2, "{pieces} pieces");
        let lines = "line\n".repeat(10_000);
        assert!(lines.par_lines().fold(|| 0usize, |n, _| n + 1).count() >= 2);
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn map_filter_sum_match_std(v in proptest::collection::vec(any::<u32>(), 0..3_000), m in 1u32..20) {
        two_workers().install(|| {
            let seq: Vec<u64> = v.iter().filter(|&&x| x % m == 0).map(|&x| u64::from(x) * 2).collect();
            let par: Vec<u64> = v.par_iter().filter(|&&x| x % m == 0).map(|&x| u64::from(x) * 2).collect();
            prop_assert_eq!(&par, &seq);
            prop_assert_eq!(v.par_iter().map(|&x| u64::from(x)).sum::<u64>(), v.iter().map(|&x| u64::from(x)).sum::<u64>());
            prop_assert_eq!(v.par_iter().max(), v.iter().max());
            Ok(())
        })?;
    }

    #[test]
    fn sorts_match_std_sort(mut v in proptest::collection::vec(any::<i16>(), 0..12_000)) {
        let mut expected = v.clone();
        expected.sort();
        let mut unstable = v.clone();
        two_workers().install(|| {
            v.par_sort();
            unstable.par_sort_unstable();
        });
        prop_assert_eq!(&v, &expected);
        prop_assert_eq!(&unstable, &expected);
    }

    #[test]
    fn words_and_lines_match_std(words in proptest::collection::vec("[a-c ]{0,6}(\n|\r\n| |\t)", 0..600)) {
        let text: String = words.concat();
        two_workers().install(|| {
            prop_assert_eq!(text.par_split_whitespace().collect::<Vec<_>>(), text.split_whitespace().collect::<Vec<_>>());
            prop_assert_eq!(text.par_lines().collect::<Vec<_>>(), text.lines().collect::<Vec<_>>());
            Ok(())
        })?;
    }
}
