#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! rayon's iterator names, checked against the
//! sequential std iterators on pools of 1 and 2 workers, with their
//! panics, and each checked to run its pieces on both workers of a pool
//! of 2: `ParallelIterator`'s `try_*` family over `Option`, `Result` and
//! `ControlFlow`, `flatten(_iter)`, `fold_with`, `inspect`, `update`,
//! `find_map_*`, `partition(_map)`, `collect_vec_list`, `panic_fuse` and
//! the `*_any` gates; `IndexedParallelIterator`'s `position_first`/`_last`,
//! `positions`, `step_by`, `zip_eq`, `fold_chunks(_with)`,
//! `with_max_len`, the comparisons and `unzip_into_vecs`; the sources
//! `empty`, `once`, `repeat` and `repeat_n`; the slices'
//! `par_chunks_exact`, `par_rchunks` and `par_rchunks_exact` (and
//! `_mut`), `par_split(_inclusive)(_mut)`, `par_chunk_by(_mut)` and
//! `par_sort_by_cached_key`; and the strings' `par_chars`, `par_char_indices`,
//! `par_bytes` and `par_encode_utf16`, `par_split(_inclusive)`,
//! `par_split_terminator`, `par_split_ascii_whitespace`, `par_matches` and
//! `par_match_indices` over each kind of `Pattern`.

use std::collections::HashSet;
use std::ops::ControlFlow::{self, Break, Continue};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use stealpool::iter::Either;
use stealpool::prelude::*;
use stealpool::{current_thread_index, ThreadPool};

mod common;
use common::par_iter::{data, on_pools, SIZES};
use common::{message, quiet_expected_panics, quiet_expected_panics_or, wait_for, EXPECTED};

#[test]
fn try_methods_match_std() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            // No short-circuit: the sum, as `try_fold` gives it.
            let sum: u64 = v.iter().sum();
            let checked = v
                .par_iter()
                .map(|&x| Some(x))
                .try_reduce(|| 0, |a, b| a.checked_add(b));
            assert_eq!(checked, Some(sum));
            let with = v
                .par_iter()
                .map(|&x| Ok::<u64, ()>(x))
                .try_reduce_with(|a, b| Ok(a + b));
            assert_eq!(with, (n > 0).then_some(Ok(sum)));
            let folded = v
                .par_iter()
                .try_fold(|| 0u64, |a, &x| a.checked_add(x))
                .try_reduce(|| 0, |a, b| a.checked_add(b));
            assert_eq!(folded, Some(sum));
            let folded_with = v
                .par_iter()
                .try_fold_with(0u64, |a, &x| Ok::<u64, u64>(a + x))
                .collect::<Vec<_>>();
            assert_eq!(folded_with.iter().map(|r| r.unwrap()).sum::<u64>(), sum);
            let all_ok: Result<(), u64> = v
                .par_iter()
                .try_for_each(|&x| if x < 1_000 { Ok(()) } else { Err(x) });
            assert_eq!(all_ok, Ok(()));
            // A short-circuit: a value that is one, whichever is met.
            let err = v
                .par_iter()
                .try_for_each(|&x| if x % 7 != 3 { Ok(()) } else { Err(x) });
            assert_eq!(err.is_err(), v.iter().any(|x| x % 7 == 3));
            assert!(err.err().is_none_or(|x| x % 7 == 3));
            let flow: ControlFlow<u64> =
                v.par_iter()
                    .try_for_each(|&x| if x != 999 { Continue(()) } else { Break(x) });
            assert_eq!(flow.is_break(), v.contains(&999));
            let none = v.par_iter().try_for_each(|&x| (x != 500).then_some(()));
            assert_eq!(none.is_none(), v.contains(&500));
            // A fold that overflows in some piece: `None` from that piece,
            // and so from the whole, as sequentially (the terms are not
            // negative, so a piece overflows if and only if the total does).
            let small = |a: u8, x: &u64| a.checked_add(*x as u8 % 4);
            let folded = v
                .par_iter()
                .try_fold(|| 0u8, small)
                .try_reduce(|| 0, u8::checked_add);
            assert_eq!(folded, v.iter().try_fold(0u8, small));
            // `_with` and `_init`: state per piece, every item seen once.
            let seen = AtomicUsize::new(0);
            let r: Result<(), ()> = v.par_iter().try_for_each_with(&seen, |s, _| {
                s.fetch_add(1, SeqCst);
                Ok(())
            });
            assert_eq!((r, seen.load(SeqCst)), (Ok(()), v.len()));
            let r: Option<()> = v.par_iter().try_for_each_init(Vec::new, |buf, &x| {
                buf.push(x);
                Some(())
            });
            assert_eq!(r, Some(()));
        }
        // Every piece stops after a short-circuit: over 2^64 items, this
        // returns only if they do.
        let r = (0..u64::MAX)
            .into_par_iter()
            .try_for_each(|x| if x < 100 { Ok(()) } else { Err(x) });
        assert!(r.is_err());
    });
}

#[test]
fn new_adapters_match_std() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let rows: Vec<Vec<u64>> = v.chunks(5).map(<[u64]>::to_vec).collect();
            let flat: Vec<u64> = rows.iter().flatten().copied().collect();
            assert_eq!(rows.clone().into_par_iter().flatten().collect::<Vec<_>>(), flat);
            assert_eq!(
                rows.clone().into_par_iter().flatten_iter().collect::<Vec<_>>(),
                flat
            );
            let inspected = AtomicUsize::new(0);
            let doubled: Vec<u64> = v
                .par_iter()
                .map(|x| x * 2)
                .inspect(|x| _ = inspected.fetch_add(*x as usize, SeqCst))
                .collect();
            assert_eq!(doubled, v.iter().map(|x| x * 2).collect::<Vec<_>>());
            assert_eq!(
                inspected.load(SeqCst) as u64,
                v.iter().map(|x| x * 2).sum::<u64>()
            );
            // Indexed through both: `rev` and `zip` see their items in place.
            let updated: Vec<u64> = v.par_iter().copied().update(|x| *x += 1).rev().collect();
            assert_eq!(updated, v.iter().rev().map(|x| x + 1).collect::<Vec<_>>());
            assert_eq!(v.par_iter().inspect(|_| ()).zip(0..n).len(), v.len());
            let parse = |x: &u64| (x % 3 == 0).then_some(x / 3);
            let some: Vec<u64> = v.iter().filter_map(parse).collect();
            assert_eq!(v.par_iter().find_map_first(parse), some.first().copied());
            assert_eq!(v.par_iter().find_map_last(parse), some.last().copied());
            assert!(v.par_iter().find_map_any(parse).is_none_or(|x| some.contains(&x)));
            assert_eq!(v.par_iter().find_map_any(parse).is_some(), !some.is_empty());
            let (even, odd): (Vec<u64>, Vec<u64>) = v.par_iter().copied().partition(|x| *x % 2 == 0);
            let (s_even, s_odd): (Vec<u64>, Vec<u64>) = v.iter().partition(|x| *x % 2 == 0);
            assert_eq!((even, odd), (s_even, s_odd));
            let (small, big): (Vec<u64>, HashSet<String>) = v.par_iter().partition_map(|&x| {
                if x < 500 {
                    Either::Left(x)
                } else {
                    Either::Right(x.to_string())
                }
            });
            assert_eq!(small, v.iter().copied().filter(|x| *x < 500).collect::<Vec<_>>());
            assert_eq!(big, v.iter().filter(|x| **x >= 500).map(u64::to_string).collect());
            let folded: Vec<u64> = v.par_iter().fold_with(0u64, |a, x| a + x).collect();
            assert_eq!(folded.iter().sum::<u64>(), v.iter().sum());
            let list = v.par_iter().copied().collect_vec_list();
            assert_eq!(list.into_iter().flatten().collect::<Vec<_>>(), v);
            assert_eq!(v.par_iter().panic_fuse().copied().collect::<Vec<_>>(), v);
            assert_eq!(
                v.par_iter().copied().filter(|_| true).panic_fuse().sum::<u64>(),
                v.iter().sum()
            );
        }
    });
}

#[test]
fn any_gates_pass_the_promised_items() {
    on_pools(|| {
        for n in SIZES {
            let v: Vec<u64> = (0..n).collect();
            for k in [0, 1, 5, n as usize, n as usize + 3] {
                let taken: Vec<u64> = v.par_iter().copied().take_any(k).collect();
                assert_eq!(taken.len(), k.min(v.len()));
                assert_eq!(taken.iter().collect::<HashSet<_>>().len(), taken.len());
                let rest: Vec<u64> = v.par_iter().copied().skip_any(k).collect();
                assert_eq!(rest.len(), v.len().saturating_sub(k));
                assert_eq!(rest.iter().collect::<HashSet<_>>().len(), rest.len());
                // Unindexed bases too.
                assert_eq!(v.par_iter().filter(|_| true).take_any(k).count(), k.min(v.len()));
            }
            let small: Vec<u64> = v.par_iter().copied().take_any_while(|x| *x < n / 2).collect();
            assert!(small.iter().all(|x| *x < n / 2));
            let rest: Vec<u64> = v.par_iter().copied().skip_any_while(|x| *x < n / 2).collect();
            assert!((n / 2..n).all(|x| rest.contains(&x)));
        }
        // Stops early: take_any over a range that would never end.
        assert_eq!((0..u64::MAX).into_par_iter().take_any(100).count(), 100);
        assert!((0..u64::MAX).into_par_iter().take_any_while(|x| *x < 100).count() <= 100);
    });
}

#[test]
fn indexed_methods_match_std() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let is = |x: &u64| x % 10 == 3;
            assert_eq!(v.par_iter().position_first(is), v.iter().position(is));
            assert_eq!(v.par_iter().position_last(is), v.iter().rposition(is));
            assert!(v.par_iter().position_any(is).is_none_or(|i| is(&v[i])));
            let at: Vec<usize> = v
                .iter()
                .enumerate()
                .filter(|(_, x)| is(x))
                .map(|(i, _)| i)
                .collect();
            assert_eq!(v.par_iter().positions(is).collect::<Vec<_>>(), at);
            for step in [1, 2, 3, 7, 1_000, 5_000] {
                let stepped: Vec<u64> = v.iter().step_by(step).copied().collect();
                assert_eq!(v.par_iter().step_by(step).copied().collect::<Vec<_>>(), stepped);
                assert_eq!(v.par_iter().step_by(step).len(), stepped.len());
                // Indexed below other adapters, and backwards.
                let en: Vec<(usize, u64)> = v.iter().step_by(step).copied().enumerate().rev().collect();
                assert_eq!(
                    v.par_iter()
                        .copied()
                        .step_by(step)
                        .enumerate()
                        .rev()
                        .collect::<Vec<_>>(),
                    en
                );
                for size in [1, 4, 1_000] {
                    let sums: Vec<u64> = v.chunks(size).map(|c| c.iter().sum()).collect();
                    let got: Vec<u64> = v
                        .par_iter()
                        .step_by(1)
                        .fold_chunks(size, || 0, |a, x| a + x)
                        .collect();
                    assert_eq!(got, sums);
                    let counts: Vec<usize> = v.chunks(size).map(<[u64]>::len).collect();
                    assert_eq!(
                        v.par_iter()
                            .fold_chunks_with(size, 0, |a, _| a + 1)
                            .collect::<Vec<_>>(),
                        counts
                    );
                }
            }
            let pairs: Vec<(u64, u64)> = v.iter().copied().zip(0..n).collect();
            assert_eq!(v.par_iter().copied().zip_eq(0..n).collect::<Vec<_>>(), pairs);
            let (mut a, mut b) = (vec![7], vec![8, 9]);
            v.par_iter().map(|&x| (x, x + 1)).unzip_into_vecs(&mut a, &mut b);
            assert_eq!(a, v);
            assert_eq!(b, v.iter().map(|x| x + 1).collect::<Vec<_>>());
            // Comparisons, against shorter, longer and changed copies.
            let mut changed = v.clone();
            if let Some(last) = changed.last_mut() {
                *last += 1;
            }
            let shorter = &v[..v.len().saturating_sub(1)];
            for other in [&v[..], &changed[..], shorter] {
                assert_eq!(v.par_iter().cmp(other), v.iter().cmp(other));
                assert_eq!(v.par_iter().partial_cmp(other), v.iter().partial_cmp(other));
                assert_eq!(v.par_iter().eq(other), v.iter().eq(other));
                assert_eq!(v.par_iter().ne(other), v.iter().ne(other));
                assert_eq!(v.par_iter().lt(other), v.iter().lt(other));
                assert_eq!(v.par_iter().le(other), v.iter().le(other));
                assert_eq!(v.par_iter().gt(other), v.iter().gt(other));
                assert_eq!(v.par_iter().ge(other), v.iter().ge(other));
            }
            let nan = [f64::NAN];
            assert_eq!(nan.par_iter().partial_cmp(&nan), None);
            // `with_max_len`: every piece at most `max` long, through
            // adapters, unless `with_min_len` asks for more.
            let longest = |pieces: Vec<usize>| pieces.into_iter().max().unwrap_or(0);
            let lens = v
                .par_iter()
                .with_max_len(10)
                .map(|x| x + 1)
                .fold(|| 0, |n, _| n + 1)
                .collect();
            assert!(longest(lens) <= 10);
            let lens = v
                .par_iter()
                .with_max_len(10)
                .zip(0..n)
                .fold(|| 0, |n, _| n + 1)
                .collect();
            assert!(longest(lens) <= 10);
            let lens = v
                .par_iter()
                .with_max_len(10)
                .with_min_len(100)
                .fold(|| 0, |n, _| n + 1)
                .collect();
            assert!(v.len() < 200 || longest(lens) >= 100);
            assert_eq!(v.par_iter().with_max_len(3).copied().collect::<Vec<_>>(), v);
        }
    });
}

#[test]
fn indexed_methods_panic_as_documented() {
    quiet_expected_panics_or(|p| {
        message(p).is_some_and(|m| m.contains("must not be zero") || m.contains("different lengths"))
    });
    let zero_step = panic::catch_unwind(|| (0..3u8).into_par_iter().step_by(0).count());
    assert!(message(&*zero_step.unwrap_err())
        .unwrap()
        .contains("must not be zero"));
    let zero_chunk = panic::catch_unwind(|| (0..3u8).into_par_iter().fold_chunks(0, || 0, |a, _| a).count());
    assert!(message(&*zero_chunk.unwrap_err())
        .unwrap()
        .contains("must not be zero"));
    let unequal = panic::catch_unwind(|| (0..3u8).into_par_iter().zip_eq(0..4u8).count());
    assert!(message(&*unequal.unwrap_err())
        .unwrap()
        .contains("different lengths"));
    // A panic in a fold of a chunk reaches the caller.
    quiet_expected_panics();
    let result = panic::catch_unwind(|| {
        (0..1_000u32)
            .into_par_iter()
            .fold_chunks(
                7,
                || 0,
                |a, x| {
                    assert!(x != 500, "{EXPECTED}");
                    a + x
                },
            )
            .count()
    });
    assert!(message(&*result.unwrap_err()).unwrap().contains(EXPECTED));
}

#[test]
fn sources_match_std() {
    use stealpool::iter::{empty, once, repeat, repeat_n, repeatn};
    on_pools(|| {
        assert_eq!(empty::<u8>().collect::<Vec<_>>(), []);
        assert_eq!(empty::<u8>().rev().enumerate().count(), 0);
        assert_eq!(empty::<u8>().zip(0..5u8).len(), 0);
        assert_eq!(
            once(4u8).chain(empty()).chain(once(5)).collect::<Vec<_>>(),
            [4, 5]
        );
        assert_eq!(once('a').zip(0..9u8).rev().collect::<Vec<_>>(), [('a', 0)]);
        for n in [0usize, 1, 2, 7, 1_000, 3_001] {
            let s = String::from("ab");
            let expected: Vec<String> = std::iter::repeat_n(s.clone(), n).collect();
            assert_eq!(repeat_n(s.clone(), n).collect::<Vec<_>>(), expected);
            assert_eq!(repeatn(s.clone(), n).rev().collect::<Vec<_>>(), expected);
            assert_eq!(repeat(s.clone()).take(n).len(), n);
            let zipped: Vec<(usize, u64)> = repeat(n).zip(0..n as u64).collect();
            assert_eq!(zipped, (0..n as u64).map(|i| (n, i)).collect::<Vec<_>>());
            let en: Vec<(usize, u8)> = repeat_n(1u8, n).enumerate().skip(n / 2).collect();
            assert_eq!(
                en,
                std::iter::repeat_n(1u8, n)
                    .enumerate()
                    .skip(n / 2)
                    .collect::<Vec<_>>()
            );
        }
        // Endless: stopped by the consumer.
        assert_eq!(repeat(3u8).take_any(1_000).count(), 1_000);
        assert_eq!(repeat(3u8).find_any(|x| *x == 3), Some(3));
        assert!(repeat(3u8).map(|x| x + 1).any(|x| x == 4));
    });
}

#[test]
fn slice_chunk_iterators_match_std() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            for size in [1, 2, 3, 7, 1_000, 5_000] {
                let exact = v.par_chunks_exact(size);
                assert_eq!(exact.remainder(), v.chunks_exact(size).remainder());
                assert_eq!(exact.len(), v.chunks_exact(size).len());
                assert_eq!(
                    exact.collect::<Vec<_>>(),
                    v.chunks_exact(size).collect::<Vec<_>>()
                );
                assert_eq!(
                    v.par_rchunks(size).collect::<Vec<_>>(),
                    v.rchunks(size).collect::<Vec<_>>()
                );
                let rexact = v.par_rchunks_exact(size);
                assert_eq!(rexact.remainder(), v.rchunks_exact(size).remainder());
                assert_eq!(
                    rexact.collect::<Vec<_>>(),
                    v.rchunks_exact(size).collect::<Vec<_>>()
                );
                // Backwards and numbered: split keeps each chunk at its index.
                let back: Vec<(usize, &[u64])> = v.rchunks(size).rev().enumerate().collect();
                assert_eq!(v.par_rchunks(size).rev().enumerate().collect::<Vec<_>>(), back);
                let back: Vec<&[u64]> = v.chunks_exact(size).rev().collect();
                assert_eq!(v.par_chunks_exact(size).rev().collect::<Vec<_>>(), back);
                // Mutable: each chunk filled with its index, as sequentially.
                type Fill = fn(&mut [u64], usize);
                let cases: [(Fill, Fill); 3] = [
                    (
                        |s, k| {
                            s.par_chunks_exact_mut(k)
                                .enumerate()
                                .for_each(|(i, c)| c.fill(i as u64))
                        },
                        |s, k| {
                            s.chunks_exact_mut(k)
                                .enumerate()
                                .for_each(|(i, c)| c.fill(i as u64))
                        },
                    ),
                    (
                        |s, k| {
                            s.par_rchunks_mut(k)
                                .enumerate()
                                .for_each(|(i, c)| c.fill(i as u64))
                        },
                        |s, k| s.rchunks_mut(k).enumerate().for_each(|(i, c)| c.fill(i as u64)),
                    ),
                    (
                        |s, k| {
                            s.par_rchunks_exact_mut(k)
                                .enumerate()
                                .for_each(|(i, c)| c.fill(i as u64))
                        },
                        |s, k| {
                            s.rchunks_exact_mut(k)
                                .enumerate()
                                .for_each(|(i, c)| c.fill(i as u64))
                        },
                    ),
                ];
                for (parallel, sequential) in cases {
                    let (mut a, mut b) = (v.clone(), v.clone());
                    parallel(&mut a, size);
                    sequential(&mut b, size);
                    assert_eq!(a, b);
                }
                let mut a = v.clone();
                let mut chunks = a.par_chunks_exact_mut(size);
                assert_eq!(chunks.take_remainder().len(), v.len() % size);
                assert!(chunks.remainder().is_empty());
                let mut a = v.clone();
                assert_eq!(
                    a.par_rchunks_exact_mut(size).into_remainder(),
                    v.rchunks_exact(size).remainder()
                );
            }
        }
    });
    let zero = panic::catch_unwind(|| [1u8].par_rchunks(0).count());
    assert!(zero.is_err());
}

#[test]
fn par_sort_by_cached_key_matches_std() {
    on_pools(|| {
        for n in SIZES {
            // Pairs whose first half is the key: equal keys keep their order.
            let v: Vec<(u64, usize)> = data(n).into_iter().map(|x| x % 37).zip(0..).collect();
            let calls = AtomicUsize::new(0);
            let key = |p: &(u64, usize)| {
                calls.fetch_add(1, SeqCst);
                p.0.to_string()
            };
            let (mut a, mut b) = (v.clone(), v.clone());
            a.par_sort_by_cached_key(key);
            b.sort_by_cached_key(|p| p.0.to_string());
            assert_eq!(a, b);
            // One key per element (none for fewer than two elements).
            assert_eq!(calls.load(SeqCst), if n < 2 { 0 } else { v.len() });
        }
        // Elements that are `Send` but not `Sync`.
        let mut cells: Vec<std::cell::Cell<u8>> = (0..100u8).rev().map(std::cell::Cell::new).collect();
        cells.par_sort_by_cached_key(|c| c.get());
        assert!(cells.windows(2).all(|w| w[0].get() <= w[1].get()));
    });
}

#[test]
fn slice_splits_match_std() {
    on_pools(|| {
        for n in [0u64, 1, 2, 7, 1_000, 3_001, 20_000] {
            let v = data(n);
            for modulus in [1, 3, 50, 1_000, 2_000] {
                let sep = |x: &u64| x % modulus == 0;
                assert_eq!(
                    v.par_split(sep).collect::<Vec<_>>(),
                    v.split(sep).collect::<Vec<_>>()
                );
                let (mut a, mut b) = (v.clone(), v.clone());
                a.par_split_mut(sep).for_each(|p| p.reverse());
                b.split_mut(sep).for_each(|p| p.reverse());
                assert_eq!(a, b);
                let inclusive: Vec<&[u64]> = v.split_inclusive(sep).collect();
                assert_eq!(v.par_split_inclusive(sep).collect::<Vec<_>>(), inclusive);
                let (mut a, mut b) = (v.clone(), v.clone());
                a.par_split_inclusive_mut(sep).for_each(|p| p.reverse());
                b.split_inclusive_mut(sep).for_each(|p| p.reverse());
                assert_eq!(a, b);
            }
            for same in [
                |a: &u64, b: &u64| a <= b,
                |a: &u64, b: &u64| a / 100 == b / 100,
                |_: &u64, _: &u64| true,
            ] {
                assert_eq!(
                    v.par_chunk_by(same).collect::<Vec<_>>(),
                    v.chunk_by(same).collect::<Vec<_>>()
                );
                let (mut a, mut b) = (v.clone(), v.clone());
                a.par_chunk_by_mut(same)
                    .for_each(|run| run.fill(run.len() as u64));
                b.chunk_by_mut(same).for_each(|run| run.fill(run.len() as u64));
                assert_eq!(a, b);
            }
        }
    });
}

#[test]
fn string_scans_match_std() {
    on_pools(|| {
        // Multi-byte characters of every width, so cuts near the middle
        // must move to a boundary.
        let unit = "aé€😀 b\n";
        for repeats in [0, 1, 100, 1_000, 5_001] {
            let text = unit.repeat(repeats);
            assert_eq!(
                text.par_chars().collect::<Vec<_>>(),
                text.chars().collect::<Vec<_>>()
            );
            assert_eq!(
                text.par_char_indices().collect::<Vec<_>>(),
                text.char_indices().collect::<Vec<_>>()
            );
            assert_eq!(
                text.par_bytes().collect::<Vec<_>>(),
                text.bytes().collect::<Vec<_>>()
            );
            assert_eq!(
                text.par_encode_utf16().collect::<Vec<_>>(),
                text.encode_utf16().collect::<Vec<_>>()
            );
            assert_eq!(text.par_chars().collect::<String>(), text);
        }
    });
}

#[test]
fn string_splits_match_std() {
    on_pools(|| {
        // Separators at the ends, doubled, and of every width, so the
        // cuts near the middle land next to each other and on multi-byte
        // characters.
        let units = ["a,é;;€ b\t😀\n,", ",x\u{a0}y\x0b,,z", "😀"];
        for unit in units {
            for repeats in [0, 1, 2, 100, 1_000, 5_001] {
                let text = unit.repeat(repeats);
                let text = text.as_str();
                let is_sep = |c: char| c == ',' || c == '😀';
                let check = |got: Vec<&str>, want: Vec<&str>, what: &str| {
                    assert_eq!(got, want, "{what} of {unit:?} x {repeats}");
                };
                check(text.par_split(',').collect(), text.split(',').collect(), "split");
                check(
                    text.par_split(is_sep).collect(),
                    text.split(is_sep).collect(),
                    "split by a closure",
                );
                check(
                    text.par_split(&[';', '😀'][..]).collect(),
                    text.split(&[';', '😀'][..]).collect(),
                    "split by a slice",
                );
                check(
                    text.par_split(['é', ',']).collect(),
                    text.split(['é', ',']).collect(),
                    "split by an array",
                );
                check(
                    text.par_split(&['é', ',']).collect(),
                    text.split(&['é', ',']).collect(),
                    "split by an array's reference",
                );
                check(
                    text.par_split_inclusive(is_sep).collect(),
                    text.split_inclusive(is_sep).collect(),
                    "split_inclusive",
                );
                check(
                    text.par_split_terminator(is_sep).collect(),
                    text.split_terminator(is_sep).collect(),
                    "split_terminator",
                );
                check(
                    text.par_split_ascii_whitespace().collect(),
                    text.split_ascii_whitespace().collect(),
                    "split_ascii_whitespace",
                );
                check(
                    text.par_matches(is_sep).collect(),
                    text.matches(is_sep).collect(),
                    "matches",
                );
                assert_eq!(
                    text.par_match_indices([',', 'z']).collect::<Vec<_>>(),
                    text.match_indices([',', 'z']).collect::<Vec<_>>(),
                    "match_indices of {unit:?} x {repeats}"
                );
            }
        }
        // A long text without a separator stays one piece.
        let plain = "abc".repeat(1_000);
        assert_eq!(plain.par_split(',').collect::<Vec<_>>(), [plain.as_str()]);
        assert_eq!(plain.par_split_terminator(',').count(), 1);
        assert_eq!(plain.par_split_inclusive(',').count(), 1);
        assert_eq!("".par_split(',').collect::<Vec<_>>(), [""]);
        assert_eq!("".par_split_terminator(',').count(), 0);
        assert_eq!("".par_split_inclusive(',').count(), 0);
    });
}

/// `a` and `b` in turn, from `a`: the rest of the longer once the other
/// ends, or, if `shortest`, nothing more once the side whose turn it is
/// ends.
fn interleaved(a: &[u64], b: &[u64], shortest: bool) -> Vec<u64> {
    let mut sides = [a.iter().copied(), b.iter().copied()];
    let mut out = Vec::new();
    for turn in [0, 1].into_iter().cycle() {
        match sides[turn].next() {
            Some(x) => out.push(x),
            None if shortest => break,
            None => {
                out.extend(&mut sides[1 - turn]);
                break;
            }
        }
    }
    out
}

#[test]
fn interleave_matches_a_sequential_model() {
    assert_eq!(interleaved(&[1, 2, 3, 4], &[5, 6], false), [1, 5, 2, 6, 3, 4]);
    assert_eq!(interleaved(&[1, 2, 3, 4], &[5, 6], true), [1, 5, 2, 6, 3]);
    assert_eq!(interleaved(&[1, 2], &[5, 6, 7], true), [1, 5, 2, 6]);
    on_pools(|| {
        for (na, nb) in [
            (0, 0),
            (0, 3),
            (3, 0),
            (1, 1),
            (4, 2),
            (2, 5),
            (1_000, 999),
            (7, 3_001),
            (3_001, 1_000),
        ] {
            let a = data(na);
            let b: Vec<u64> = data(nb).iter().map(|x| x + 1_000).collect();
            for shortest in [false, true] {
                let want = interleaved(&a, &b, shortest);
                let par = || {
                    let (a, b) = (a.par_iter().copied(), b.par_iter().copied());
                    if shortest {
                        Either::Left(a.interleave_shortest(b))
                    } else {
                        Either::Right(a.interleave(b))
                    }
                };
                let what = format!("{na} and {nb}, shortest {shortest}");
                assert_eq!(par().len(), want.len(), "{what}");
                assert_eq!(par().collect::<Vec<_>>(), want, "{what}");
                // Pieces of one item: a split at every index.
                assert_eq!(par().with_max_len(1).collect::<Vec<_>>(), want, "{what}");
                assert_eq!(
                    par().with_max_len(1).rev().collect::<Vec<_>>(),
                    want.iter().rev().copied().collect::<Vec<_>>(),
                    "{what}"
                );
                let mid = want.len() / 3;
                assert_eq!(
                    par().skip(mid).take(mid + 1).collect::<Vec<_>>(),
                    want.iter().skip(mid).take(mid + 1).copied().collect::<Vec<_>>(),
                    "{what}"
                );
                assert_eq!(
                    par()
                        .with_max_len(3)
                        .zip(0..want.len())
                        .filter(|&(x, i)| x != want[i])
                        .count(),
                    0,
                    "{what}"
                );
                assert_eq!(par().map(|x| x * 2).sum::<u64>(), want.iter().sum::<u64>() * 2);
            }
        }
    });
}

/// `v` with `sep` between every two items.
fn with_separators(v: &[u64], sep: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for (i, &x) in v.iter().enumerate() {
        if i > 0 {
            out.push(sep);
        }
        out.push(x);
    }
    out
}

#[test]
fn intersperse_matches_a_sequential_model() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let want = with_separators(&v, 5_000);
            let par = || v.par_iter().copied().intersperse(5_000);
            assert_eq!(par().len(), want.len());
            assert_eq!(par().collect::<Vec<_>>(), want, "{n}");
            // Indexed: pieces cut at every index, backwards, and zipped.
            assert_eq!(par().with_max_len(1).collect::<Vec<_>>(), want);
            assert_eq!(
                par().with_max_len(1).rev().collect::<Vec<_>>(),
                want.iter().rev().copied().collect::<Vec<_>>()
            );
            assert_eq!(par().zip(want.par_iter()).filter(|(a, b)| a != *b).count(), 0);
            let mid = want.len() / 3;
            assert_eq!(par().skip(mid).collect::<Vec<_>>(), want[mid..].to_vec());
            // Driven unindexed: the same, counted and summed.
            assert_eq!(par().count(), want.len());
            assert_eq!(par().sum::<u64>(), want.iter().sum::<u64>());
            assert_eq!(
                par().intersperse(7).collect::<Vec<_>>(),
                with_separators(&want, 7)
            );
            // Unindexed, with pieces that come out empty: none kept, the
            // first alone, the last alone, a few far apart.
            for keep in [
                (|_: usize| false) as fn(usize) -> bool,
                |i| i == 0,
                |i| i == 3_000,
                |i| i % 997 == 5,
                |i| i % 2 == 0,
            ] {
                let kept: Vec<u64> = v
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| keep(i))
                    .map(|(_, &x)| x)
                    .collect();
                let got: Vec<u64> = v
                    .par_iter()
                    .enumerate()
                    .with_max_len(1)
                    .filter(|&(i, _)| keep(i))
                    .map(|(_, &x)| x)
                    .intersperse(5_000)
                    .collect();
                assert_eq!(got, with_separators(&kept, 5_000), "{n}");
            }
        }
        let words: Vec<String> = (0..3_000).map(|i| i.to_string()).collect();
        let text = words.join(",");
        assert_eq!(
            text.par_split(',').intersperse(";").collect::<String>(),
            words.join(";")
        );
        assert_eq!(
            text.par_split(',')
                .filter(|w| w.len() == 1)
                .intersperse(";")
                .collect::<String>(),
            "0;1;2;3;4;5;6;7;8;9"
        );
    });
}

#[test]
fn blocks_run_in_order_and_stop_early() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            for block in [1, 3, 100, 5_000] {
                assert_eq!(
                    v.par_iter().by_uniform_blocks(block).collect::<Vec<_>>(),
                    v.iter().collect::<Vec<_>>()
                );
                assert_eq!(
                    v.par_iter().rev().by_uniform_blocks(block).collect::<Vec<_>>(),
                    v.iter().rev().collect::<Vec<_>>()
                );
            }
            assert_eq!(
                v.par_iter().by_exponential_blocks().collect::<Vec<_>>(),
                v.iter().collect::<Vec<_>>()
            );
            assert_eq!(
                v.par_iter()
                    .by_exponential_blocks()
                    .filter(|x| *x % 3 == 0)
                    .sum::<u64>(),
                v.iter().filter(|x| *x % 3 == 0).sum::<u64>()
            );
            assert_eq!(
                v.par_iter().by_exponential_blocks().find_first(|x| **x > 990),
                v.iter().find(|x| **x > 990)
            );
        }
        // A search stops after the block where it ends.
        let reached = AtomicUsize::new(0);
        let found = (0..u64::MAX)
            .into_par_iter()
            .inspect(|_| _ = reached.fetch_add(1, SeqCst))
            .by_exponential_blocks()
            .find_first(|&x| x == 100);
        assert_eq!(found, Some(100));
        assert!(reached.load(SeqCst) <= 4 * 101, "{}", reached.load(SeqCst));
    });
    let zero = panic::catch_unwind(|| (0..3u8).into_par_iter().by_uniform_blocks(0));
    assert!(zero.is_err());
}

/// A closure that a pipeline calls on every item, with the item.
type ItemHook<'a> = &'a (dyn Fn(usize) + Sync);

#[test]
fn a_block_starts_once_the_one_before_has_ended() {
    // On a pool of 2, each thread's first item waits until both threads
    // have one, so the second thread takes part from the first block on;
    // an item finds every item of the blocks before its own done.
    let check = |starts: &(dyn Fn(usize) -> usize + Sync), run: &(dyn Fn(ItemHook) + Sync)| {
        let seen = std::sync::Mutex::new(HashSet::new());
        let two = AtomicBool::new(false);
        let done = AtomicUsize::new(0);
        let early = AtomicUsize::new(0);
        ThreadPool::new(2).install(|| {
            run(&|i| {
                let mut threads = seen.lock().unwrap();
                let first = threads.insert(current_thread_index().unwrap());
                if threads.len() >= 2 {
                    two.store(true, SeqCst);
                }
                drop(threads);
                if first {
                    wait_for(&two);
                }
                if done.load(SeqCst) < starts(i) {
                    early.fetch_add(1, SeqCst);
                }
                done.fetch_add(1, SeqCst);
            })
        });
        assert!(two.load(SeqCst), "ran on one thread only");
        assert_eq!(
            early.load(SeqCst),
            0,
            "items started before the block before theirs ended"
        );
    };
    check(&|i| i / 2_000 * 2_000, &|f| {
        (0..6_000usize)
            .into_par_iter()
            .by_uniform_blocks(2_000)
            .for_each(f)
    });
    // Blocks of 2, 4, 8, ...: block k starts at 2^(k+1) - 2.
    check(&|i| (1 << (i + 2).ilog2()) - 2, &|f| {
        (0..6_000usize)
            .into_par_iter()
            .by_exponential_blocks()
            .for_each(f)
    });
}

/// Halves a range until it is shorter than 10: `split`'s closure.
fn halve(r: std::ops::Range<u64>) -> (std::ops::Range<u64>, Option<std::ops::Range<u64>>) {
    let mid = r.start + (r.end - r.start) / 2;
    if r.end - r.start < 10 {
        (r, None)
    } else {
        (r.start..mid, Some(mid..r.end))
    }
}

#[test]
fn split_gives_the_pieces_in_order() {
    on_pools(|| {
        for n in SIZES {
            let pieces: Vec<std::ops::Range<u64>> = stealpool::iter::split(0..n, halve).collect();
            // Contiguous, in order, covering the whole.
            assert_eq!(
                pieces.iter().flat_map(Clone::clone).collect::<Vec<_>>(),
                (0..n).collect::<Vec<_>>()
            );
            assert!(pieces.windows(2).all(|w| w[0].end == w[1].start));
            let sum: u64 = stealpool::iter::split(0..n, halve).map(|r| r.sum::<u64>()).sum();
            assert_eq!(sum, (0..n).sum::<u64>());
            // A closure that never cuts: the data is the one item.
            assert_eq!(stealpool::iter::split(n, |d| (d, None)).collect::<Vec<_>>(), [n]);
        }
    });
    // Cut as the pool asks: a pool of 1 asks for no cut beyond its own.
    let calls = AtomicUsize::new(0);
    let count = ThreadPool::new(1).install(|| {
        stealpool::iter::split(0..1_000_000u64, |r| {
            calls.fetch_add(1, SeqCst);
            halve(r)
        })
        .count()
    });
    assert!(count < 1_000, "{count} pieces");
    // Each piece beyond the first is a cut the closure made.
    assert!(count <= calls.load(SeqCst) + 1);
}

/// The children of node `n` in a tree of `size` nodes: up to three, with
/// some nodes leaves, so subtrees have uneven sizes.
fn tree_children(n: u64, size: u64) -> Vec<u64> {
    let wide = if n % 4 == 1 { 1 } else { 3 };
    (1..=wide).map(|k| 3 * n + k).filter(|&c| c < size).collect()
}

/// The tree's nodes in prefix (or postfix) order, recursively.
fn walked(n: u64, size: u64, prefix: bool, out: &mut Vec<u64>) {
    if prefix {
        out.push(n);
    }
    for c in tree_children(n, size) {
        walked(c, size, prefix, out);
    }
    if !prefix {
        out.push(n);
    }
}

#[test]
fn walk_tree_matches_a_recursive_walk() {
    on_pools(|| {
        for size in [1, 2, 5, 100, 3_001] {
            for prefix in [true, false] {
                let mut want = Vec::new();
                walked(0, size, prefix, &mut want);
                let children = |&n: &u64| tree_children(n, size);
                let got: Vec<u64> = if prefix {
                    stealpool::iter::walk_tree_prefix(0, children).collect()
                } else {
                    stealpool::iter::walk_tree_postfix(0, children).collect()
                };
                assert_eq!(got, want, "size {size}, prefix {prefix}");
                // The first match, found early.
                let big = |&n: &u64| n > size / 2;
                let first = if prefix {
                    stealpool::iter::walk_tree_prefix(0, children).find_first(big)
                } else {
                    stealpool::iter::walk_tree_postfix(0, children).find_first(big)
                };
                assert_eq!(first, want.iter().copied().find(big));
            }
            let mut all: Vec<u64> =
                stealpool::iter::walk_tree(0, |&n: &u64| tree_children(n, size)).collect();
            all.sort();
            let mut want = Vec::new();
            walked(0, size, true, &mut want);
            want.sort();
            assert_eq!(all, want);
        }
        // A chain 100 000 deep: no deep call stack.
        let chain = |&n: &u32| (n < 100_000).then_some(n + 1);
        let down: Vec<u32> = stealpool::iter::walk_tree_prefix(0, chain).collect();
        assert_eq!(down, (0..=100_000).collect::<Vec<_>>());
        let up: Vec<u32> = stealpool::iter::walk_tree_postfix(0, chain).collect();
        assert_eq!(up, (0..=100_000).rev().collect::<Vec<_>>());
    });
}

#[test]
fn char_ranges_match_std() {
    on_pools(|| {
        let (below, above) = ('\u{D7F0}', '\u{E010}');
        for (a, b) in [
            ('a', 'z'),
            (below, above),
            ('\0', char::MAX),
            ('x', 'x'),
            ('z', 'a'),
            ('\u{D7FF}', '\u{E000}'),
        ] {
            let want: Vec<char> = (a..b).collect();
            assert_eq!((a..b).into_par_iter().len(), want.len());
            assert_eq!((a..b).into_par_iter().collect::<Vec<_>>(), want, "{a:?}..{b:?}");
            assert_eq!(
                (a..b).into_par_iter().with_max_len(7).rev().collect::<Vec<_>>(),
                want.iter().rev().copied().collect::<Vec<_>>()
            );
            let want: Vec<char> = (a..=b).collect();
            assert_eq!((a..=b).into_par_iter().len(), want.len());
            assert_eq!((a..=b).into_par_iter().collect::<Vec<_>>(), want, "{a:?}..={b:?}");
            assert_eq!(
                (a..=b).into_par_iter().enumerate().skip(3).collect::<Vec<_>>(),
                want.iter().copied().enumerate().skip(3).collect::<Vec<_>>()
            );
        }
        let mut exhausted = 'a'..='b';
        exhausted.by_ref().for_each(drop);
        assert_eq!(exhausted.into_par_iter().count(), 0);
    });
}

#[test]
fn tuples_zip_as_zip_does() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let w: Vec<u64> = v.iter().map(|x| x + 1).collect();
            let short = &v[..v.len() / 2];
            let want: Vec<(&u64, &u64, &u64)> =
                v.iter().zip(&w).zip(short).map(|((a, b), c)| (a, b, c)).collect();
            let got: Vec<(&u64, &u64, &u64)> = (&v, &w, short).into_par_iter().collect();
            assert_eq!(got, want);
            assert_eq!((&v, &w, short).into_par_iter().len(), short.len());
            assert_eq!(
                (&v, &w, short)
                    .into_par_iter()
                    .with_max_len(1)
                    .rev()
                    .collect::<Vec<_>>(),
                want.iter().rev().copied().collect::<Vec<_>>()
            );
            assert_eq!(
                (v.clone(),).into_par_iter().collect::<Vec<_>>(),
                v.iter().map(|&x| (x,)).collect::<Vec<_>>()
            );
            // Twelve iterators, by value, and a tuple's `par_iter`.
            let twelve = (
                0..n,
                1..n + 1,
                2..n + 2,
                3..n + 3,
                4..n + 4,
                5..n + 5,
                6..n + 6,
                7..n + 7,
                8..n + 8,
                9..n + 9,
                10..n + 10,
                v.clone(),
            );
            let sums: Vec<u64> = twelve
                .into_par_iter()
                .map(|(a, b, c, d, e, f, g, h, i, j, k, l)| a + b + c + d + e + f + g + h + i + j + k + l)
                .collect();
            assert_eq!(
                sums,
                v.iter()
                    .enumerate()
                    .map(|(i, x)| 11 * i as u64 + 55 + x)
                    .collect::<Vec<_>>()
            );
            let pair = (v.clone(), w.clone());
            assert_eq!(pair.par_iter().filter(|(a, b)| **a + 1 == **b).count(), v.len());
            // Through `&mut`: each pair's first takes the second's value.
            let mut pair = (v.clone(), w.clone());
            (&mut pair).into_par_iter().for_each(|(a, b)| *a = *b);
            assert_eq!(pair.0, w);
        }
    });
}

#[test]
fn cows_os_strings_and_units_collect_as_std() {
    use std::borrow::Cow;
    use std::ffi::{OsStr, OsString};
    on_pools(|| {
        let words: Vec<String> = (0..3_000).map(|i| format!("w{i}")).collect();
        let text = words.join(" ");
        let v: Cow<'_, [u64]> = (0..3_000u64).into_par_iter().collect();
        assert!(matches!(&v, Cow::Owned(owned) if *owned == (0..3_000).collect::<Vec<_>>()));
        let joined: Cow<'_, str> = text.par_split_whitespace().collect();
        assert_eq!(joined, words.concat());
        let os: OsString = text.par_split_whitespace().map(OsStr::new).collect();
        assert_eq!(os, OsString::from(words.concat()));
        let os: Cow<'_, OsStr> = text.par_split_whitespace().map(OsString::from).collect();
        assert_eq!(os, OsStr::new(&words.concat()));
        let mut os = OsString::from(">");
        os.par_extend(text.par_split_whitespace().map(|w| Cow::Borrowed(OsStr::new(w))));
        assert_eq!(os, OsString::from(format!(">{}", words.concat())));
        // `()` runs every item for its effect.
        let seen = AtomicUsize::new(0);
        let () = (0..3_000usize)
            .into_par_iter()
            .map(|x| _ = seen.fetch_add(x, SeqCst))
            .collect();
        assert_eq!(seen.load(SeqCst), (0..3_000).sum::<usize>());
        let ok: Result<(), usize> = (0..3_000usize)
            .into_par_iter()
            .map(|x| if x < 5_000 { Ok(()) } else { Err(x) })
            .collect();
        assert_eq!(ok, Ok(()));
    });
}

#[test]
fn array_windows_match_windows() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let want: Vec<&[u64]> = v.windows(3).collect();
            let got: Vec<&[u64; 3]> = v.par_array_windows().collect();
            assert_eq!(got.iter().map(|w| &w[..]).collect::<Vec<_>>(), want);
            assert_eq!(v.par_array_windows::<3>().len(), want.len());
            let back: Vec<&[u64; 1]> = v.par_array_windows().with_max_len(1).rev().collect();
            assert_eq!(back, v.iter().rev().map(std::array::from_ref).collect::<Vec<_>>());
            let sums: Vec<u64> = v
                .par_array_windows::<7>()
                .with_max_len(2)
                .map(|w| w.iter().sum())
                .collect();
            assert_eq!(sums, v.windows(7).map(|w| w.iter().sum()).collect::<Vec<u64>>());
        }
    });
    assert!(panic::catch_unwind(|| [1u8].par_array_windows::<0>().count()).is_err());
    // The shared slices' splits clone with their predicate.
    let v = [1u8, 0, 2, 2, 0, 3];
    let split = v.par_split(|x| *x == 0);
    assert_eq!(split.clone().collect::<Vec<_>>(), split.collect::<Vec<_>>());
    let inclusive = v.par_split_inclusive(|x| *x == 0);
    assert_eq!(inclusive.clone().count(), inclusive.count());
    let runs = v.par_chunk_by(|a, b| a == b);
    assert_eq!(runs.clone().collect::<Vec<_>>(), runs.collect::<Vec<_>>());
}

/// Runs `f` with the items' closure hook on a pool of 2: the hook notes
/// the thread it runs on and waits (up to the tests' deadline) until
/// another thread of the pool has run the hook too. Returns whether one
/// did, which it can only if the pipeline's pieces ran on two threads at
/// once. (The thread may be a spare the pool brings in while a worker
/// waits in the hook, so the threads are counted by index, whatever it.)
/// After one wait times out, the hook waits no more, so a pipeline that
/// runs on one thread fails after one deadline, not one per item.
fn on_both_workers(f: impl Fn(&(dyn Fn() + Sync)) + Sync) -> bool {
    let seen = std::sync::Mutex::new(HashSet::new());
    let two = AtomicBool::new(false);
    let gave_up = AtomicBool::new(false);
    let hook = || {
        let me = current_thread_index().expect("runs on a thread of the pool");
        let mut threads = seen.lock().unwrap();
        threads.insert(me);
        if threads.len() >= 2 {
            two.store(true, SeqCst);
        }
        drop(threads);
        if !gave_up.load(SeqCst) && !wait_for(&two) {
            gave_up.store(true, SeqCst);
        }
    };
    ThreadPool::new(2).install(|| f(&hook));
    two.load(SeqCst)
}

/// A pipeline that calls the hook it is given on every item.
type Case<'a> = Box<dyn Fn(&(dyn Fn() + Sync)) + Sync + 'a>;

#[test]
fn new_adapters_split_across_workers() {
    let n = 10_000u64;
    let rows: Vec<Vec<u64>> = (0..100)
        .map(|i| (0..100).map(|j| i * 100 + j).collect())
        .collect();
    let big: Vec<u64> = (0..n).collect();
    let long = "aé€😀".repeat(10_000);
    let csv = "12,é4,".repeat(10_000);
    let words = "ab \t€ ".repeat(10_000);
    let cases: Vec<(&str, Case)> = vec![
        (
            "try_for_each",
            Box::new(|h| {
                (0..n)
                    .into_par_iter()
                    .try_for_each(|_| {
                        h();
                        Some(())
                    })
                    .unwrap()
            }),
        ),
        (
            "try_fold",
            Box::new(|h| {
                _ = (0..n)
                    .into_par_iter()
                    .try_fold(
                        || (),
                        |(), _| {
                            h();
                            Some(())
                        },
                    )
                    .count()
            }),
        ),
        (
            "try_reduce",
            Box::new(|h| {
                _ = (0..n)
                    .into_par_iter()
                    .map(|_| {
                        h();
                        Ok::<(), ()>(())
                    })
                    .try_reduce(|| (), |(), ()| Ok(()))
            }),
        ),
        (
            "flatten",
            Box::new(|h| rows.par_iter().flatten().for_each(|_| h())),
        ),
        (
            "flatten_iter",
            Box::new(|h| rows.par_iter().flatten_iter().for_each(|_| h())),
        ),
        (
            "inspect",
            Box::new(|h| (0..n).into_par_iter().inspect(|_| h()).for_each(drop)),
        ),
        (
            "update",
            Box::new(|h| _ = (0..n).into_par_iter().update(|_| h()).collect::<Vec<_>>()),
        ),
        (
            "find_map_first",
            Box::new(|h| {
                _ = (0..n)
                    .into_par_iter()
                    .find_map_first(|_| None::<u64>.or_else(|| (h(), None).1))
            }),
        ),
        (
            "partition_map",
            Box::new(|h| {
                _ = (0..n)
                    .into_par_iter()
                    .partition_map::<Vec<_>, Vec<_>, _, _, _>(|x| (h(), Either::Left::<u64, u64>(x)).1)
            }),
        ),
        (
            "collect_vec_list",
            Box::new(|h| _ = (0..n).into_par_iter().inspect(|_| h()).collect_vec_list()),
        ),
        (
            "panic_fuse",
            Box::new(|h| (0..n).into_par_iter().panic_fuse().for_each(|_| h())),
        ),
        (
            "take_any",
            Box::new(|h| (0..n).into_par_iter().take_any(n as usize).for_each(|_| h())),
        ),
        (
            "skip_any",
            Box::new(|h| (0..n).into_par_iter().skip_any(1).for_each(|_| h())),
        ),
        (
            "take_any_while",
            Box::new(|h| (0..n).into_par_iter().take_any_while(|_| true).for_each(|_| h())),
        ),
        (
            "par_chunks_exact",
            Box::new(|h| big.par_chunks_exact(3).for_each(|_| h())),
        ),
        ("par_rchunks", Box::new(|h| big.par_rchunks(3).for_each(|_| h()))),
        (
            "par_rchunks_exact",
            Box::new(|h| big.par_rchunks_exact(3).for_each(|_| h())),
        ),
        ("par_chars", Box::new(|h| long.par_chars().for_each(|_| h()))),
        (
            "par_char_indices",
            Box::new(|h| long.par_char_indices().for_each(|_| h())),
        ),
        ("par_bytes", Box::new(|h| long.par_bytes().for_each(|_| h()))),
        (
            "par_encode_utf16",
            Box::new(|h| long.par_encode_utf16().for_each(|_| h())),
        ),
        (
            "str par_split",
            Box::new(|h| csv.par_split(',').for_each(|_| h())),
        ),
        (
            "par_split_inclusive",
            Box::new(|h| csv.par_split_inclusive(',').for_each(|_| h())),
        ),
        (
            "par_split_terminator",
            Box::new(|h| csv.par_split_terminator([','][..].as_ref()).for_each(|_| h())),
        ),
        (
            "par_split_ascii_whitespace",
            Box::new(|h| words.par_split_ascii_whitespace().for_each(|_| h())),
        ),
        (
            "par_matches",
            Box::new(|h| csv.par_matches(|c: char| c.is_ascii_digit()).for_each(|_| h())),
        ),
        (
            "par_match_indices",
            Box::new(|h| csv.par_match_indices(',').for_each(|_| h())),
        ),
        (
            "interleave",
            Box::new(|h| {
                big.par_iter()
                    .interleave(&big[..n as usize / 2])
                    .for_each(|_| h())
            }),
        ),
        (
            "interleave_shortest",
            Box::new(|h| big.par_iter().interleave_shortest(&big).for_each(|_| h())),
        ),
        (
            "intersperse",
            Box::new(|h| big.par_iter().intersperse(&0).for_each(|_| h())),
        ),
        (
            "intersperse, unindexed",
            Box::new(|h| csv.par_split(',').intersperse(";").for_each(|_| h())),
        ),
        (
            "by_uniform_blocks",
            Box::new(|h| {
                (0..n)
                    .into_par_iter()
                    .by_uniform_blocks(n as usize / 3)
                    .for_each(|_| h())
            }),
        ),
        (
            "by_exponential_blocks",
            Box::new(|h| (0..n).into_par_iter().by_exponential_blocks().for_each(|_| h())),
        ),
        (
            "split",
            Box::new(|h| {
                stealpool::iter::split(0..n, halve)
                    .flat_map_iter(|r| r)
                    .for_each(|_| h())
            }),
        ),
        (
            "walk_tree_prefix",
            Box::new(|h| stealpool::iter::walk_tree_prefix(0, |&x| tree_children(x, n)).for_each(|_| h())),
        ),
        (
            "walk_tree_postfix",
            Box::new(|h| stealpool::iter::walk_tree_postfix(0, |&x| tree_children(x, n)).for_each(|_| h())),
        ),
        (
            "char range",
            Box::new(|h| ('\0'..'\u{3000}').into_par_iter().for_each(|_| h())),
        ),
        (
            "MultiZip",
            Box::new(|h| (&big, &big, &big).into_par_iter().for_each(|_| h())),
        ),
        (
            "par_array_windows",
            Box::new(|h| big.par_array_windows::<2>().for_each(|_| h())),
        ),
        (
            "fold_with",
            Box::new(|h| _ = (0..n).into_par_iter().fold_with((), |(), _| h()).count()),
        ),
        (
            "par_sort_by_cached_key",
            Box::new(|h| big.clone().par_sort_by_cached_key(|x| (h(), *x).1)),
        ),
        (
            "par_split",
            Box::new(|h| big.par_split(|x| x % 100 == 0).for_each(|_| h())),
        ),
        (
            "par_chunk_by",
            Box::new(|h| big.par_chunk_by(|a, b| a / 100 == b / 100).for_each(|_| h())),
        ),
        (
            "skip_any_while",
            Box::new(|h| (0..n).into_par_iter().skip_any_while(|_| false).for_each(|_| h())),
        ),
    ];
    for (name, case) in &cases {
        assert!(on_both_workers(case), "{name} ran on one worker only");
    }
}

#[test]
fn panics_reach_the_caller_and_the_fuse_stops_the_rest() {
    quiet_expected_panics();
    for workers in [1, 2] {
        let pool = ThreadPool::new(workers);
        let calls = AtomicUsize::new(0);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                (0..1_000_000u32).into_par_iter().panic_fuse().for_each(|x| {
                    calls.fetch_add(1, SeqCst);
                    assert!(x != 10, "{EXPECTED}");
                })
            })
        }));
        let text = message(&*result.expect_err("the panic reaches the caller")).unwrap();
        assert!(text.contains(EXPECTED), "{text}");
        // On one worker the piece holding item 10 is the first to run; the
        // fuse stops every later piece before its first item. On more,
        // how many items the other workers run before the panic is seen
        // is up to the scheduler, so only the one-worker count is exact.
        if workers == 1 {
            assert_eq!(calls.load(SeqCst), 11);
        }
        // The fuse below the closure that panics, walked backwards in
        // pieces of one item: the items after the panic (999 down to 501
        // ran first) are each a piece of their own, and each must check
        // the fuse before its first item.
        let calls = AtomicUsize::new(0);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                (0..1_000u32)
                    .into_par_iter()
                    .with_max_len(1)
                    .panic_fuse()
                    .inspect(|&x| assert!(x != 500, "{EXPECTED}"))
                    .rev()
                    .for_each(|_| _ = calls.fetch_add(1, SeqCst))
            })
        }));
        assert!(result.is_err());
        // As above, exact on one worker only: with more, the piece holding
        // item 500 may start after every other piece has run (a
        // ThreadSanitizer run saw all 999).
        if workers == 1 {
            assert_eq!(calls.load(SeqCst), 499);
        }
        // Without the fuse, every piece runs to its end.
        let calls = AtomicUsize::new(0);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                (0..100_000u32).into_par_iter().for_each(|x| {
                    calls.fetch_add(1, SeqCst);
                    assert!(x != 10, "{EXPECTED}");
                })
            })
        }));
        assert!(result.is_err());
        if workers == 1 {
            assert!(calls.load(SeqCst) > 11);
        }
        // A panic in a try closure, and one in a try_fold.
        for case in [
            (|| {
                _ = (0..1_000u32).into_par_iter().try_for_each(|x| {
                    assert!(x != 500, "{EXPECTED}");
                    Some(())
                })
            }) as fn(),
            || {
                _ = (0..1_000u32)
                    .into_par_iter()
                    .try_fold(
                        || 0,
                        |a, x| {
                            assert!(x != 999, "{EXPECTED}");
                            Some(a + x)
                        },
                    )
                    .count()
            },
            || {
                _ = (0..1_000u32)
                    .into_par_iter()
                    .inspect(|x| assert!(*x != 3, "{EXPECTED}"))
                    .count()
            },
            || {
                _ = (0..1_000u32)
                    .into_par_iter()
                    .take_any_while(|x| {
                        assert!(*x != 3, "{EXPECTED}");
                        true
                    })
                    .count()
            },
        ] {
            let result = panic::catch_unwind(AssertUnwindSafe(|| pool.install(case)));
            let payload = result.expect_err("the panic reaches the caller");
            assert!(message(&*payload).unwrap().contains(EXPECTED));
        }
    }
}

#[test]
fn either_drives_and_extends_the_side_it_holds() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let pick = |left: bool| {
                if left {
                    Either::Left(v.clone().into_par_iter())
                } else {
                    Either::Right(v.par_iter().copied())
                }
            };
            for left in [true, false] {
                assert_eq!(pick(left).opt_len(), Some(v.len()));
                assert_eq!(pick(left).collect::<Vec<_>>(), v);
                assert_eq!(
                    pick(left).enumerate().rev().collect::<Vec<_>>(),
                    v.iter().copied().enumerate().rev().collect::<Vec<_>>()
                );
                assert_eq!(
                    pick(left).filter(|x| x % 2 == 0).count(),
                    v.iter().filter(|x| *x % 2 == 0).count()
                );
            }
            let mut held: Either<Vec<u64>, HashSet<u64>> = Either::Left(vec![7]);
            held.par_extend(v.par_iter().copied());
            assert_eq!(held.left().unwrap(), [&[7][..], &v].concat());
            let mut held: Either<Vec<u64>, HashSet<u64>> = Either::Right(HashSet::new());
            held.par_extend(v.par_iter().copied());
            assert_eq!(held.right().unwrap(), v.iter().copied().collect());
        }
    });
}

#[test]
fn skip_runs_the_skipped_items_closures_and_take_does_not() {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let items: Vec<usize> = (0..1024).collect();
    let seen = AtomicUsize::new(0);
    let kept = items
        .par_iter()
        .map(|&n| {
            seen.fetch_add(1, Relaxed);
            n
        })
        .skip(512)
        .collect::<Vec<_>>();
    assert_eq!(kept, (512..1024).collect::<Vec<_>>());
    // As `Iterator::skip`: every item was produced, the skipped ones too.
    assert_eq!(seen.swap(0, Relaxed), 1024);
    let first = items
        .par_iter()
        .map(|&n| {
            seen.fetch_add(1, Relaxed);
            n
        })
        .take(10)
        .count();
    assert_eq!(first, 10);
    // As `Iterator::take`: nothing past the first ten is read.
    assert_eq!(seen.load(Relaxed), 10);
}
