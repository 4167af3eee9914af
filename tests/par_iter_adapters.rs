#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The parallel iterators' adapters `rev`, `chain`, `map_with`, `map_init`,
//! `find_first`, `find_last`, `while_some`, and collect into `Result` and
//! `Option`, against the sequential std iterators on pools of 1 and 2
//! workers; and how the adapters over closures print.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use stealpool::prelude::*;
use stealpool::ThreadPool;

mod common;
use common::par_iter::{data, on_pools, SIZES};

#[test]
fn rev_and_chain_match_std() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let back: Vec<u64> = v.iter().rev().copied().collect();
            assert_eq!(v.par_iter().rev().copied().collect::<Vec<_>>(), back);
            assert_eq!(v.clone().into_par_iter().rev().collect::<Vec<_>>(), back);
            assert_eq!(
                (0..n).into_par_iter().rev().collect::<Vec<_>>(),
                (0..n).rev().collect::<Vec<_>>()
            );
            assert_eq!(
                (0..=n).into_par_iter().rev().collect::<Vec<_>>(),
                (0..=n).rev().collect::<Vec<_>>()
            );
            assert_eq!(v.par_iter().rev().rev().copied().collect::<Vec<_>>(), v);
            // Adapters under `rev` walk backwards too.
            assert_eq!(v.par_iter().copied().rev().collect::<Vec<_>>(), back);
            let plus: Vec<u64> = v.par_iter().map(|x| x + 1).with_min_len(64).rev().collect();
            assert_eq!(plus, back.iter().map(|x| x + 1).collect::<Vec<_>>());
            let en: Vec<(usize, u64)> = v.iter().rev().copied().enumerate().collect();
            assert_eq!(v.par_iter().rev().copied().enumerate().collect::<Vec<_>>(), en);
            let zipped: Vec<(u64, u64)> = v.iter().rev().copied().zip(0..n).collect();
            assert_eq!(v.par_iter().rev().copied().zip(0..n).collect::<Vec<_>>(), zipped);
            let chunks: Vec<Vec<u64>> = v.chunks(3).rev().map(<[u64]>::to_vec).collect();
            assert_eq!(
                v.par_chunks(3).rev().map(<[u64]>::to_vec).collect::<Vec<_>>(),
                chunks
            );
            let windows: Vec<u64> = v.windows(2).rev().map(|w| w[0] + w[1]).collect();
            assert_eq!(
                v.par_windows(2).rev().map(|w| w[0] + w[1]).collect::<Vec<_>>(),
                windows
            );
            let some: Vec<u64> = v.iter().rev().skip(3).take(50).copied().collect();
            assert_eq!(
                v.par_iter().rev().skip(3).take(50).copied().collect::<Vec<_>>(),
                some
            );
            let min_len: Vec<u64> = v.par_iter().with_min_len(100).rev().map(|x| x + 1).collect();
            assert_eq!(min_len, v.iter().rev().map(|x| x + 1).collect::<Vec<_>>());
            let mut mutated = v.clone();
            mutated
                .par_iter_mut()
                .rev()
                .enumerate()
                .for_each(|(i, x)| *x = i as u64);
            assert_eq!(mutated, (0..n).rev().collect::<Vec<_>>());

            // Adapters over `rev`, and `rev` over adapters, walk without
            // collecting (counted in `rev_allocates_nothing_per_item`).
            let en_back: Vec<(usize, u64)> = v.iter().copied().enumerate().rev().collect();
            assert_eq!(
                v.par_iter().copied().enumerate().rev().collect::<Vec<_>>(),
                en_back
            );
            let en_back_en: Vec<(usize, (usize, u64))> =
                v.iter().copied().enumerate().rev().enumerate().collect();
            assert_eq!(
                v.par_iter()
                    .copied()
                    .enumerate()
                    .rev()
                    .enumerate()
                    .collect::<Vec<_>>(),
                en_back_en
            );
            for shorter in [0, n / 3, n, n + 5] {
                let s: Vec<u64> = (0..shorter).collect();
                // std's `Zip::rev` needs both lengths exact; equal lengths first.
                let pairs: Vec<(u64, u64)> = v.iter().copied().zip(s.iter().copied()).collect();
                let back: Vec<(u64, u64)> = pairs.iter().rev().copied().collect();
                assert_eq!(
                    v.par_iter()
                        .copied()
                        .zip(&s)
                        .map(|(a, b)| (a, *b))
                        .rev()
                        .collect::<Vec<_>>(),
                    back
                );
                assert_eq!(
                    s.par_iter()
                        .copied()
                        .zip(&v)
                        .map(|(a, b)| (*b, a))
                        .rev()
                        .collect::<Vec<_>>(),
                    back
                );
                // Pairs too large for a block on the stack: one at a time.
                let big = |x: &u64| [*x; 16];
                let big_back: Vec<[u64; 16]> = back.iter().map(|(a, _)| big(a)).collect();
                let par: Vec<[u64; 16]> = v.par_iter().map(big).zip(&s).rev().map(|(a, _)| a).collect();
                assert_eq!(par, big_back);
                let rev_zip_rev: Vec<(u64, u64)> = pairs.clone();
                assert_eq!(
                    v.par_iter()
                        .copied()
                        .zip(s.par_iter().copied())
                        .rev()
                        .rev()
                        .collect::<Vec<_>>(),
                    rev_zip_rev
                );
                let found = back.iter().copied().find(|(a, _)| a % 7 == 3);
                let par = v.par_iter().copied().zip(s.par_iter().copied()).rev();
                assert_eq!(par.find_first(|(a, _)| a % 7 == 3), found);
            }
            for size in [1, 3, 1_000] {
                let chunks: Vec<Vec<u64>> = v.chunks(size).map(<[u64]>::to_vec).collect();
                let back: Vec<Vec<u64>> = chunks.iter().rev().cloned().collect();
                assert_eq!(v.par_iter().copied().chunks(size).collect::<Vec<_>>(), chunks);
                assert_eq!(v.par_iter().copied().chunks(size).rev().collect::<Vec<_>>(), back);
                let seq_rev: Vec<u64> = v.iter().rev().copied().collect();
                let rev_chunks: Vec<Vec<u64>> = seq_rev.chunks(size).map(<[u64]>::to_vec).collect();
                assert_eq!(
                    v.par_iter().rev().copied().chunks(size).collect::<Vec<_>>(),
                    rev_chunks
                );
                let rev_chunks_back: Vec<Vec<u64>> = rev_chunks.iter().rev().cloned().collect();
                let par = v.par_iter().rev().copied().chunks(size).rev();
                assert_eq!(par.collect::<Vec<_>>(), rev_chunks_back);
                let long = |c: &Vec<u64>| c.iter().sum::<u64>() > 500;
                let first_long = chunks.iter().rev().find(|c| long(c)).cloned();
                assert_eq!(
                    v.par_iter().copied().chunks(size).rev().find_first(long),
                    first_long
                );
            }

            let w = data(n / 3 + 1);
            let chained: Vec<u64> = v.iter().chain(&w).copied().collect();
            let par_chain = v.par_iter().chain(&w).copied();
            assert_eq!(par_chain.len(), chained.len());
            assert_eq!(par_chain.collect::<Vec<_>>(), chained);
            assert_eq!(
                v.clone().into_par_iter().chain(w.clone()).collect::<Vec<_>>(),
                chained
            );
            let back_chain: Vec<u64> = chained.iter().rev().copied().collect();
            assert_eq!(
                v.par_iter().chain(&w).rev().copied().collect::<Vec<_>>(),
                back_chain
            );
            let en: Vec<(usize, &u64)> = v.iter().chain(&w).enumerate().collect();
            assert_eq!(v.par_iter().chain(&w).enumerate().collect::<Vec<_>>(), en);
            for (skip, take) in [(0, 5), (n as usize / 2, 20), (n as usize, 3)] {
                let part: Vec<u64> = chained.iter().skip(skip).take(take).copied().collect();
                let par: Vec<u64> = v.par_iter().chain(&w).skip(skip).take(take).copied().collect();
                assert_eq!(par, part);
            }
            // Unindexed on either side: `collect` gathers pieces.
            let even = |x: &u64| x % 2 == 0;
            let seq: Vec<u64> = v.iter().copied().filter(even).chain(w.iter().copied()).collect();
            let par = v.par_iter().copied().filter(even).chain(w.par_iter().copied());
            assert_eq!(par.opt_len(), None);
            assert_eq!(par.collect::<Vec<_>>(), seq);
            let seq: Vec<u64> = w.iter().copied().chain(v.iter().copied().filter(even)).collect();
            let par = w.par_iter().copied().chain(v.par_iter().copied().filter(even));
            assert_eq!(par.collect::<Vec<_>>(), seq);
            assert_eq!(v.par_iter().chain(&w).sum::<u64>(), chained.iter().sum());
        }
    });
}

#[test]
fn map_with_and_map_init_match_map_with_state_per_piece() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let doubled: Vec<u64> = v.iter().map(|x| x * 2).collect();
            // A counter per piece: within a piece it counts 1, 2, 3, ...;
            // indexed pieces are runs of consecutive items.
            let counted: Vec<(u64, usize)> = v
                .par_iter()
                .map_with(0usize, |seen, x| {
                    *seen += 1;
                    (x * 2, *seen)
                })
                .collect();
            assert_eq!(counted.iter().map(|c| c.0).collect::<Vec<_>>(), doubled);
            assert!(counted.first().is_none_or(|c| c.1 == 1));
            assert!(counted.windows(2).all(|w| w[1].1 == 1 || w[1].1 == w[0].1 + 1));
            let inits = AtomicUsize::new(0);
            let init = || {
                inits.fetch_add(1, SeqCst);
                Vec::new()
            };
            let pushed: Vec<u64> = v
                .par_iter()
                .map_init(init, |buffer: &mut Vec<u64>, x| {
                    buffer.push(*x);
                    x * 2
                })
                .collect();
            assert_eq!(pushed, doubled);
            assert!(inits.load(SeqCst) >= 1);
            assert!(inits.load(SeqCst) <= n.max(1) as usize);
            // Unindexed, backwards and through `for_each`.
            let filtered: Vec<u64> = v
                .par_iter()
                .filter(|x| *x % 3 == 0)
                .map_with(2u64, |two, x| x * *two)
                .collect();
            assert_eq!(
                filtered,
                v.iter()
                    .filter(|x| *x % 3 == 0)
                    .map(|x| x * 2)
                    .collect::<Vec<_>>()
            );
            let back: Vec<u64> = v.par_iter().map_init(|| 3, |three, x| x * *three).rev().collect();
            assert_eq!(back, v.iter().rev().map(|x| x * 3).collect::<Vec<_>>());
            let total = AtomicUsize::new(0);
            v.par_iter().map_with(1u64, |one, x| x + *one).for_each(|x| {
                total.fetch_add(x as usize, SeqCst);
            });
            assert_eq!(total.load(SeqCst) as u64, v.iter().map(|x| x + 1).sum::<u64>());
        }
    });
}

#[test]
fn find_first_and_last_match_std() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            for m in [1u64, 7, 300, 999, 1_000] {
                let hit = |x: &&u64| **x % 1_000 >= 1_000 - m;
                assert_eq!(v.par_iter().find_first(hit), v.iter().find(hit), "n {n}, m {m}");
                assert_eq!(
                    v.par_iter().find_last(hit),
                    v.iter().rev().find(hit),
                    "n {n}, m {m}"
                );
                // The position, not just the value: pairs are unique.
                let en = || v.par_iter().enumerate();
                let seq = v.iter().enumerate();
                assert_eq!(
                    en().find_first(|(_, x)| hit(x)),
                    seq.clone().find(|(_, x)| hit(x))
                );
                assert_eq!(en().find_last(|(_, x)| hit(x)), seq.rev().find(|(_, x)| hit(x)));
                // Unindexed and chained.
                let odd = |x: &&u64| **x % 2 == 1;
                let seq = v.iter().enumerate().filter(|(_, x)| odd(x));
                let par = || v.par_iter().enumerate().filter(|(_, x)| odd(x));
                assert_eq!(
                    par().find_first(|(_, x)| hit(x)),
                    seq.clone().find(|(_, x)| hit(x))
                );
                assert_eq!(
                    par().find_last(|(_, x)| hit(x)),
                    seq.clone().last_where(|(_, x)| hit(x))
                );
                let chained = || v.par_iter().chain(&v).enumerate();
                let seq: Vec<(usize, &u64)> = v.iter().chain(&v).enumerate().collect();
                assert_eq!(
                    chained().find_first(|(_, x)| hit(x)),
                    seq.iter().copied().find(|(_, x)| hit(x))
                );
                assert_eq!(
                    chained().find_last(|(_, x)| hit(x)),
                    seq.iter().copied().rev().find(|(_, x)| hit(x))
                );
            }
            assert_eq!(v.par_iter().find_first(|_| false), None);
            assert_eq!(v.par_iter().find_last(|_| false), None);
        }
    });
}

/// `Iterator::filter(..).last()` by a predicate, for readability above.
trait LastWhere: Iterator + Sized {
    fn last_where(self, p: impl FnMut(&Self::Item) -> bool) -> Option<Self::Item> {
        self.filter(p).last()
    }
}

impl<I: Iterator> LastWhere for I {}

#[test]
fn collect_into_result_and_option_stops_at_the_first_error() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let all: Result<Vec<u64>, String> = v.par_iter().map(|&x| Ok(x)).collect();
            assert_eq!(all, Ok(v.clone()));
            let all: Option<Vec<u64>> = v.par_iter().map(|&x| Some(x)).collect();
            assert_eq!(all, Some(v.clone()));
            if n > 0 {
                // Any of the errors may come back, as with rayon.
                let bad = |x: u64| x % 100 == 7;
                let result: Result<Vec<u64>, u64> = v
                    .par_iter()
                    .map(|&x| if bad(x) { Err(x) } else { Ok(x) })
                    .collect();
                match v.iter().copied().find(|&x| bad(x)) {
                    Some(_) => assert!(result.is_err_and(bad)),
                    None => assert_eq!(result, Ok(v.clone())),
                }
                let last_none: Option<HashSet<u64>> = v
                    .par_iter()
                    .enumerate()
                    .map(|(i, &x)| (i + 1 < v.len()).then_some(x))
                    .collect();
                assert_eq!(last_none, None);
            }
            let sums: Result<u64, ()> = Ok(v.par_iter().sum());
            assert_eq!(sums, Ok(v.iter().sum()));
        }
    });
    // On one worker the pieces run in order: after an error in the first
    // item, the rest of the first piece and every later piece stop.
    let n = 100_000u32;
    let seen = AtomicUsize::new(0);
    let result: Result<Vec<u32>, u32> = ThreadPool::new(1).install(|| {
        (0..n)
            .into_par_iter()
            .map(|x| {
                seen.fetch_add(1, SeqCst);
                if x == 0 {
                    Err(x)
                } else {
                    Ok(x)
                }
            })
            .collect()
    });
    assert_eq!(result, Err(0));
    assert!(
        seen.load(SeqCst) < n as usize / 2,
        "{} items seen",
        seen.load(SeqCst)
    );
    let stopped: Vec<u32> = ThreadPool::new(1).install(|| {
        (0..n)
            .into_par_iter()
            .map(|x| (x != 0).then_some(x))
            .while_some()
            .collect()
    });
    assert!(stopped.is_empty());
}

/// The adapters over closures print their base and their other data,
/// whatever their closures are (closures have no `Debug`), and say that
/// something is left out.
#[test]
fn adapters_over_closures_print_without_the_closures() {
    let v = [1u8, 2];
    let base = format!("{:?}", v.par_iter());
    let shown = |name: &str, rest: &str| format!("{name} {{ base: {base}{rest}, .. }}");
    let cases: Vec<(String, String)> = vec![
        (format!("{:?}", v.par_iter().map(|x| x)), shown("Map", "")),
        (
            format!("{:?}", v.par_iter().filter(|_| true)),
            shown("Filter", ""),
        ),
        (
            format!("{:?}", v.par_iter().filter_map(Some)),
            shown("FilterMap", ""),
        ),
        (format!("{:?}", v.par_iter().flat_map(Some)), shown("FlatMap", "")),
        (
            format!("{:?}", v.par_iter().flat_map_iter(Some)),
            shown("FlatMapIter", ""),
        ),
        (
            format!("{:?}", v.par_iter().fold(|| 0, |x, _| x)),
            shown("Fold", ""),
        ),
        (
            format!("{:?}", v.par_iter().fold_with(7, |x, _| x)),
            shown("FoldWith", ", init: 7"),
        ),
        (
            format!("{:?}", v.par_iter().fold_chunks(3, || 0, |x, _| x)),
            shown("FoldChunks", ", size: 3"),
        ),
        (
            format!("{:?}", v.par_iter().fold_chunks_with(3, 7, |x, _| x)),
            shown("FoldChunksWith", ", size: 3, init: 7"),
        ),
        (
            format!("{:?}", v.par_iter().try_fold(|| 0, |x, _| Some(x))),
            shown("TryFold", ""),
        ),
        (
            format!("{:?}", v.par_iter().inspect(|_| ())),
            shown("Inspect", ""),
        ),
        (format!("{:?}", v.par_iter().copied().update(|_| ())), {
            let base = format!("{:?}", v.par_iter().copied());
            format!("Update {{ base: {base}, .. }}")
        }),
        (
            format!("{:?}", v.par_iter().map_with(7, |_, x| x)),
            shown("MapWith", ", item: 7"),
        ),
        (
            format!("{:?}", v.par_iter().map_init(|| 0, |_, x| x)),
            shown("MapInit", ""),
        ),
        (
            format!("{:?}", v.par_iter().positions(|_| true)),
            shown("Positions", ""),
        ),
        (
            format!("{:?}", v.par_iter().take_any_while(|_| true)),
            shown("TakeAnyWhile", ""),
        ),
        (
            format!("{:?}", v.par_iter().skip_any_while(|_| false)),
            shown("SkipAnyWhile", ""),
        ),
    ];
    for (got, expected) in cases {
        assert_eq!(got, expected);
    }
    // Nested: the base of an adapter is printed as it prints itself.
    let nested = format!("{:?}", (0..3u8).into_par_iter().map(|x| x).filter(|_| true));
    assert_eq!(
        nested,
        "Filter { base: Map { base: Iter { range: 0..3 }, .. }, .. }"
    );
}
