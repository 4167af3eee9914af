#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The parallel iterators' sources and targets beyond ranges and slices:
//! `par_bridge`, the std collections (extended by values and by
//! references), pairs of collections, `Option` and `Result`,
//! `par_sort_unstable` of `Send` elements, inclusive ranges longer than
//! `usize`, ranges of 128-bit integers, and the types inferred for
//! unsuffixed ranges, against the sequential std iterators on pools of 1
//! and 2 workers.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::panic;
use stealpool::iter::Either;
use stealpool::prelude::*;

mod common;
use common::par_iter::{data, on_pools, SIZES};
use common::{message, quiet_expected_panics_or};

#[test]
fn par_bridge_sees_every_item_once() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let mut got: Vec<u64> = v.iter().copied().par_bridge().map(|x| x * 2).collect();
            got.sort_unstable();
            let mut expected: Vec<u64> = v.iter().map(|x| x * 2).collect();
            expected.sort_unstable();
            assert_eq!(got, expected);
            assert_eq!(v.iter().par_bridge().count(), v.len());
            assert_eq!(v.iter().par_bridge().sum::<u64>(), v.iter().sum());
            let found = v.iter().par_bridge().find_any(|&&x| x == 999);
            assert_eq!(found, v.iter().find(|&&x| x == 999));
            // An iterator that is not fused: `next` after its end is not called.
            let mut left = n;
            let unfused = std::iter::from_fn(move || {
                assert!(left != u64::MAX, "next called after the end");
                left = left.checked_sub(1).unwrap_or(u64::MAX);
                (left != u64::MAX).then_some(left)
            });
            assert_eq!(unfused.par_bridge().count(), n as usize);
        }
    });
}

#[test]
fn collections_as_sources_and_targets_match_std() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let sorted = |mut x: Vec<u64>| {
                x.sort_unstable();
                x
            };
            let map: HashMap<u64, u64> = v.iter().map(|&x| (x, x * 2)).collect();
            let pairs = |m: &HashMap<u64, u64>| sorted(m.iter().map(|(k, v)| k * 10_000 + v).collect());
            assert_eq!(
                sorted(map.par_iter().map(|(k, v)| k * 10_000 + v).collect()),
                pairs(&map)
            );
            let mut map2 = map.clone();
            map2.par_iter_mut().for_each(|(_, v)| *v += 1);
            assert!(map2.iter().all(|(k, v)| *v == k * 2 + 1));
            assert_eq!(
                sorted(map.clone().into_par_iter().map(|(k, v)| k * 10_000 + v).collect()),
                pairs(&map)
            );
            let set: HashSet<u64> = v.par_iter().copied().collect();
            assert_eq!(set, v.iter().copied().collect::<HashSet<_>>());
            assert_eq!(set.par_iter().count(), set.len());
            assert_eq!(set.clone().into_par_iter().sum::<u64>(), set.iter().sum());
            let tree: BTreeMap<u64, usize> = v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
            assert_eq!(
                tree,
                v.iter()
                    .enumerate()
                    .map(|(i, &x)| (x, i))
                    .collect::<BTreeMap<_, _>>()
            );
            let keys: Vec<u64> = tree.par_iter().map(|(k, _)| *k).collect();
            assert_eq!(keys, tree.keys().copied().collect::<Vec<_>>());
            let mut tree2 = tree.clone();
            tree2.par_iter_mut().for_each(|(_, i)| *i += 1);
            assert!(tree2.iter().all(|(k, i)| tree[k] + 1 == *i));
            assert_eq!(
                tree.clone().into_par_iter().collect::<Vec<_>>(),
                tree.into_iter().collect::<Vec<_>>()
            );
            let bset: BTreeSet<u64> = v.par_iter().copied().collect();
            assert_eq!(
                bset.par_iter().copied().collect::<Vec<_>>(),
                bset.iter().copied().collect::<Vec<_>>()
            );
            assert_eq!(
                bset.clone().into_par_iter().collect::<Vec<_>>(),
                bset.into_iter().collect::<Vec<_>>()
            );
            let deque: VecDeque<u64> = v.par_iter().copied().collect();
            assert_eq!(deque, v.iter().copied().collect::<VecDeque<_>>());
            assert_eq!(deque.par_iter().copied().collect::<Vec<_>>(), v);
            assert_eq!(
                deque.into_par_iter().rev().collect::<Vec<_>>(),
                v.iter().rev().copied().collect::<Vec<_>>()
            );
            let list: LinkedList<u64> = v.par_iter().copied().collect();
            assert_eq!(list, v.iter().copied().collect::<LinkedList<_>>());
            assert_eq!(list.into_par_iter().collect::<Vec<_>>(), v);
            let heap: BinaryHeap<u64> = v.par_iter().copied().collect();
            assert_eq!(sorted(heap.par_iter().copied().collect()), sorted(v.clone()));
            assert_eq!(sorted(heap.into_par_iter().collect()), sorted(v.clone()));
        }
        let mut some = Some(3);
        assert_eq!(some.par_iter().copied().collect::<Vec<_>>(), [3]);
        some.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(some.into_par_iter().chain(None).collect::<Vec<_>>(), [4]);
        assert_eq!(None::<u8>.into_par_iter().count(), 0);
        let mut ok: Result<u8, ()> = Ok(1);
        ok.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(ok.par_iter().copied().sum::<u8>(), 2);
        assert_eq!(ok.into_par_iter().len(), 1);
        assert_eq!(Err::<u8, ()>(()).into_par_iter().len(), 0);
    });
}

#[test]
fn par_sort_unstable_sorts_send_only_elements() {
    on_pools(|| {
        for n in [0u64, 1, 7, 5_000, 9_001] {
            let v = data(n);
            let mut expected = v.clone();
            expected.sort_unstable();
            let mut cells: Vec<Cell<u64>> = v.iter().copied().map(Cell::new).collect();
            cells.par_sort_unstable_by_key(Cell::get);
            assert!(cells.iter().map(Cell::get).eq(expected.iter().copied()));
            cells.par_sort_unstable_by(|a, b| b.get().cmp(&a.get()));
            assert!(cells.iter().map(Cell::get).eq(expected.iter().rev().copied()));
            let mut plain = v.clone();
            plain.par_sort_unstable();
            assert_eq!(plain, expected);
        }
    });
}

#[test]
fn inclusive_ranges_longer_than_usize_iterate_unindexed() {
    on_pools(|| {
        let all = || (0..=u64::MAX).into_par_iter();
        assert_eq!(all().opt_len(), None);
        // The answers lie in the first piece, which one worker runs first.
        assert_eq!(all().find_first(|&x| x > 5), Some(6));
        assert!(all().any(|x| x == 3));
        assert_eq!(all().map(|x| x / 2).find_first(|&x| x == 4), Some(4));
        assert_eq!(all().filter(|x| x % 3 == 2).find_first(|_| true), Some(2));
        assert_eq!(all().chain(0..3u64).find_first(|&x| x == 1), Some(1));
        assert_eq!(
            (i64::MIN..=i64::MAX)
                .into_par_iter()
                .find_first(|&x| x > i64::MIN + 1),
            Some(i64::MIN + 2)
        );
        assert_eq!((0..=usize::MAX).into_par_iter().find_any(|&x| x == 2), Some(2));
        // One item fewer fits in `usize`, and stays indexed.
        assert_eq!((1..=u64::MAX).into_par_iter().len(), usize::MAX);
        assert_eq!((1..=u64::MAX).into_par_iter().opt_len(), Some(usize::MAX));
        assert_eq!(
            (1..=u64::MAX).into_par_iter().rev().take(2).collect::<Vec<_>>(),
            [u64::MAX, u64::MAX - 1]
        );
        // The indexed methods need a length, and say so (rayon's inclusive
        // 64-bit ranges have no indexed methods at all).
        // (Kept off stderr: the default panic hook is slow under the
        // thread sanitizer.)
        quiet_expected_panics_or(|p| message(p).is_some_and(|m| m.contains("range too long")));
        let panic = panic::catch_unwind(|| all().len()).expect_err("no usize length");
        assert!(message(&*panic).unwrap().contains("range too long for usize"));
        // Small inclusive ranges are unchanged.
        assert_eq!(
            (250..=255u8).into_par_iter().collect::<Vec<_>>(),
            [250, 251, 252, 253, 254, 255]
        );
        let (high, low) = (5u32, 4u32);
        assert_eq!((high..=low).into_par_iter().count(), 0);
    });
}

/// Ranges of unsuffixed integer literals infer as with rayon: the range's
/// iterator type is known before its integer type, so indexed methods
/// resolve and the `i32` fallback fixes the type afterwards.
#[test]
fn unsuffixed_integer_ranges_infer() {
    on_pools(|| {
        let chunks = (1..10).into_par_iter().chunks(3).collect::<Vec<Vec<i32>>>();
        assert_eq!(chunks, [vec![1, 2, 3], vec![4, 5, 6], vec![7, 8, 9]]);
        let pairs: Vec<(usize, i32)> = (0..=3).into_par_iter().enumerate().collect();
        assert_eq!(pairs, [(0, 0), (1, 1), (2, 2), (3, 3)]);
        // The literal's fallback type, `i32`: 2^31 - 1 would overflow a `u8`.
        let sum = (0..3).into_par_iter().map(|x| x * 1_000_000_000).max();
        assert_eq!(sum, Some(2_000_000_000));
        let len = (5..1_005).into_par_iter().zip(0..2_000).len();
        assert_eq!(len, 1_000);
    });
}

/// `par_extend` by references (`&T`, and `(&K, &V)` for the maps) copies
/// the items as `Extend<&T>` does, after what the collection held.
#[test]
fn extend_by_references_matches_std() {
    fn check<C>(start: &[u64], v: &[u64])
    where
        C: Default + PartialEq + std::fmt::Debug + Extend<u64> + for<'a> Extend<&'a u64>,
        C: for<'a> ParallelExtend<&'a u64> + ParallelExtend<u64>,
    {
        let (mut serial, mut parallel) = (C::default(), C::default());
        serial.extend(start.iter().copied());
        parallel.par_extend(start.par_iter().copied());
        serial.extend(v);
        parallel.par_extend(v);
        assert_eq!(parallel, serial);
        // An unindexed iterator of references, from a filter.
        serial.extend(v.iter().filter(|&&x| x % 3 == 0));
        parallel.par_extend(v.par_iter().filter(|&&x| x % 3 == 0));
        assert_eq!(parallel, serial);
    }
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let start = [7, 3, 7];
            check::<Vec<u64>>(&start, &v);
            check::<VecDeque<u64>>(&start, &v);
            check::<LinkedList<u64>>(&start, &v);
            check::<HashSet<u64>>(&start, &v);
            check::<BTreeSet<u64>>(&start, &v);
            let mut heap = BinaryHeap::from(start.to_vec());
            heap.par_extend(&v);
            let mut expected = [&start[..], &v].concat();
            expected.sort_unstable();
            assert_eq!(heap.into_sorted_vec(), expected);
            // Later pairs replace earlier ones with the same key.
            let pairs: Vec<(u64, usize)> = v.iter().enumerate().map(|(i, &x)| (x % 50, i)).collect();
            let refs: Vec<(&u64, &usize)> = pairs.iter().map(|(k, v)| (k, v)).collect();
            let mut map = HashMap::from([(1_000, 1)]);
            map.par_extend(refs.par_iter().copied());
            let mut expected = HashMap::from([(1_000, 1)]);
            expected.extend(refs.iter().copied());
            assert_eq!(map, expected);
            let mut tree = BTreeMap::from([(1_000, 1)]);
            tree.par_extend(refs.par_iter().copied());
            let mut expected = BTreeMap::from([(1_000, 1)]);
            expected.extend(refs.iter().copied());
            assert_eq!(tree, expected);
            // `String` from every piece of text `Extend` takes.
            let words: Vec<String> = v.iter().map(|x| format!("{x},")).collect();
            let text = words.concat();
            let chars: Vec<char> = text.chars().collect();
            let mut s = String::from("<");
            s.par_extend(&chars);
            s.par_extend(words.par_iter().map(String::as_str));
            s.par_extend(words.par_iter().map(|w| w.clone().into_boxed_str()));
            s.par_extend(words.par_iter().map(|w| Cow::Borrowed(w.as_str())));
            s.par_extend(words.par_iter().map(|w| Cow::<str>::Owned(w.clone())));
            assert_eq!(s, format!("<{text}{text}{text}{text}{text}"));
            let boxed: String = words.par_iter().map(|w| w.clone().into_boxed_str()).collect();
            assert_eq!(boxed, text);
            let cows: String = words.par_iter().map(|w| Cow::Borrowed(w.as_str())).collect();
            assert_eq!(cows, text);
        }
    });
}

/// A pair of collections extends and collects side by side, each side in
/// order, as the std `Extend` for pairs does: from pairs (nested, too), and
/// from `Either`s.
#[test]
fn pairs_of_collections_extend_and_collect() {
    on_pools(|| {
        for n in SIZES {
            let v = data(n);
            let triples = |x: &u64| (x % 7, (x * 2, x.to_string()));
            let (keys, (doubles, names)): (Vec<u64>, (Vec<u64>, Vec<String>)) =
                v.par_iter().map(triples).unzip();
            let expected: (Vec<u64>, (Vec<u64>, Vec<String>)) = v.iter().map(triples).unzip();
            assert_eq!((keys, (doubles, names)), expected);
            // Extended after what the pair held, from an unindexed iterator.
            let mut pair = (vec![1_000u64], VecDeque::from([2_000u64]));
            pair.par_extend(v.par_iter().filter(|&&x| x % 2 == 1).map(|&x| (x, x + 1)));
            let mut expected = (vec![1_000u64], VecDeque::from([2_000u64]));
            expected.extend(v.iter().filter(|&&x| x % 2 == 1).map(|&x| (x, x + 1)));
            assert_eq!(pair, expected);
            // Collected, where a side collects but does not extend.
            let (small, checked): (Vec<u64>, Option<Vec<u64>>) =
                v.par_iter().map(|&x| (x, Some(x + 1))).collect();
            assert_eq!(small, v);
            assert_eq!(checked, Some(v.iter().map(|x| x + 1).collect()));
            let (_, failed): (Vec<u64>, Option<Vec<u64>>) =
                v.par_iter().map(|&x| (x, (x != 500).then_some(x))).collect();
            assert_eq!(failed.is_none(), v.contains(&500));
            // From `Either`s: the `Left` values to the first, in order.
            let side = |&x: &u64| {
                if x % 3 == 0 {
                    Either::Left(x)
                } else {
                    Either::Right(x as u8 as char)
                }
            };
            let (threes, chars): (Vec<u64>, String) = v.par_iter().map(side).collect();
            assert_eq!(
                threes,
                v.iter().copied().filter(|x| x % 3 == 0).collect::<Vec<_>>()
            );
            assert_eq!(
                chars,
                v.iter()
                    .filter(|&&x| x % 3 != 0)
                    .map(|&x| x as u8 as char)
                    .collect::<String>()
            );
            let mut sides = (vec![0u64], String::from("<"));
            sides.par_extend(v.par_iter().map(side));
            assert_eq!(sides.0[1..], threes[..]);
            assert_eq!(sides.1, format!("<{chars}"));
        }
    });
}

/// Ranges of `i128` and `u128` are parallel iterators, not indexed ones:
/// they yield what the std ranges do, have a length only when it fits in
/// `usize`, and short-circuit across lengths past it.
#[test]
fn ranges_of_128_bit_integers_match_std() {
    on_pools(|| {
        for n in [0u64, 1, 2, 7, 1_000, 3_001] {
            let n = u128::from(n);
            for start in [0u128, 1 << 70, u128::MAX - n] {
                let range = start..start + n;
                let got: Vec<u128> = range.clone().into_par_iter().collect();
                assert_eq!(got, range.clone().collect::<Vec<_>>());
                assert_eq!(range.clone().into_par_iter().opt_len(), Some(n as usize));
                let odd: Vec<u128> = range.clone().into_par_iter().filter(|x| x % 2 == 1).collect();
                assert_eq!(odd, range.clone().filter(|x| x % 2 == 1).collect::<Vec<_>>());
                let inclusive = start..=start + n;
                let got: Vec<u128> = inclusive.clone().into_par_iter().collect();
                assert_eq!(got, inclusive.clone().collect::<Vec<_>>());
                assert_eq!(inclusive.into_par_iter().opt_len(), Some(n as usize + 1));
            }
            let n = n as i128;
            for start in [i128::MIN, -n / 2, i128::MAX - n] {
                let range = start..start + n;
                let got: Vec<i128> = range.clone().into_par_iter().map(|x| x / 3).collect();
                assert_eq!(got, range.clone().map(|x| x / 3).collect::<Vec<_>>());
                let inclusive = start..=start + n;
                assert_eq!(
                    inclusive.clone().into_par_iter().map(|x| x % 1_000).sum::<i128>(),
                    inclusive.clone().map(|x| x % 1_000).sum::<i128>()
                );
                assert_eq!(inclusive.into_par_iter().count(), n as usize + 1);
            }
        }
        let (high, low) = (5u128, 4u128);
        assert_eq!((high..low).into_par_iter().count(), 0);
        assert_eq!((high..=low).into_par_iter().opt_len(), Some(0));
        assert_eq!((high..=low).into_par_iter().count(), 0);
        // The last items of ranges that end at the type's largest value.
        let top: Vec<u128> = (u128::MAX - 2..=u128::MAX).into_par_iter().collect();
        assert_eq!(top, [u128::MAX - 2, u128::MAX - 1, u128::MAX]);
        assert_eq!(
            (u128::MAX - 1_000..=u128::MAX)
                .into_par_iter()
                .find_last(|&x| x % 2 == 0),
            Some(u128::MAX - 1)
        );
        // Past `usize`: no length, and the searches from the left stop
        // early (the first piece runs first, on one worker too; from the
        // right they would not, on one worker).
        let all = || (0..u128::MAX).into_par_iter();
        assert_eq!(all().opt_len(), None);
        assert_eq!(all().find_first(|&x| x > 5), Some(6));
        assert!(all().any(|x| x == 3));
        assert_eq!(all().filter(|x| x % 7 == 6).find_first(|_| true), Some(6));
        let everything = || (i128::MIN..=i128::MAX).into_par_iter();
        assert_eq!(everything().opt_len(), None);
        assert_eq!(
            everything().find_first(|&x| x > i128::MIN + 1),
            Some(i128::MIN + 2)
        );
        assert_eq!(
            (1u128 << 100..=u128::MAX)
                .into_par_iter()
                .find_first(|&x| x % 3 == 0),
            (1u128 << 100..).find(|&x| x % 3 == 0)
        );
    });
}
