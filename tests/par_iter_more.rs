#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The adapters and sources beyond the first set (`rev`, `chain`,
//! `map_with`, `map_init`, `find_first`, `find_last`, `while_some`,
//! `par_bridge`, the std collections, `Option` and `Result`, collect into
//! `Result` and `Option`, `par_sort_unstable` of `Send` elements, inclusive
//! ranges longer than `usize`) against the sequential std iterators, on
//! pools of 1 and 2 workers; panics and early stops drop every value once.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use stealpool::prelude::*;
use stealpool::ThreadPool;

mod common;
use common::{message, quiet_expected_panics, quiet_expected_panics_or, EXPECTED};

/// Runs `check` on a 1-worker and a 2-worker pool.
fn on_pools(check: impl Fn() + Sync) {
    for workers in [1, 2] {
        ThreadPool::new(workers).install(&check);
    }
}

fn data(n: u64) -> Vec<u64> {
    (0..n).map(|i| i.wrapping_mul(2_654_435_761) % 1_000).collect()
}

const SIZES: [u64; 6] = [0, 1, 2, 7, 1_000, 3_001];

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

thread_local! {
    /// This thread's allocations so far (see [`Counting`]).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// Counts each thread's allocations; the pool's workers count their own.
struct Counting;

// SAFETY: forwards to the system allocator unchanged; the count is a
// const-initialized thread-local without destructor, which does not
// allocate.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
        // SAFETY: forwarded.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
        // SAFETY: forwarded.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: forwarded.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// A name, a walk forwards, the same walk backwards.
type Walk<'a> = (&'a str, &'a dyn Fn(), &'a dyn Fn());

#[test]
fn rev_allocates_nothing_per_item() {
    // One worker: every piece runs on the thread that counts.
    ThreadPool::new(1).install(|| {
        let v = data(10_000);
        let w = data(9_000);
        let sink = AtomicUsize::new(0);
        let add = |x: u64| {
            sink.fetch_add(x as usize, SeqCst);
        };
        // Each backwards walk against the same walk forwards, which
        // allocates nothing: the same pieces, the same joins.
        let walks: [Walk; 6] = [
            (
                "enumerate().rev()",
                &|| v.par_iter().enumerate().for_each(|(i, x)| add(i as u64 + x)),
                &|| {
                    v.par_iter()
                        .enumerate()
                        .rev()
                        .for_each(|(i, x)| add(i as u64 + x))
                },
            ),
            (
                "rev().enumerate()",
                &|| v.par_iter().enumerate().for_each(|(i, x)| add(i as u64 + x)),
                &|| {
                    v.par_iter()
                        .rev()
                        .enumerate()
                        .for_each(|(i, x)| add(i as u64 + x))
                },
            ),
            (
                "zip().rev()",
                &|| v.par_iter().zip(&w).for_each(|(a, b)| add(a + b)),
                &|| v.par_iter().zip(&w).rev().for_each(|(a, b)| add(a + b)),
            ),
            (
                "skip().take().rev()",
                &|| v.par_iter().skip(10).take(5_000).for_each(|x| add(*x)),
                &|| v.par_iter().skip(10).take(5_000).rev().for_each(|x| add(*x)),
            ),
            (
                "chunks().rev()",
                &|| v.par_iter().chunks(100).for_each(|c| add(c.len() as u64)),
                &|| v.par_iter().chunks(100).rev().for_each(|c| add(c.len() as u64)),
            ),
            (
                "rev().chunks()",
                &|| v.par_iter().chunks(100).for_each(|c| add(c.len() as u64)),
                &|| v.par_iter().rev().chunks(100).for_each(|c| add(c.len() as u64)),
            ),
        ];
        for (name, forwards, backwards) in walks {
            forwards();
            backwards();
            let (f, b) = (allocations(forwards), allocations(backwards));
            assert_eq!(b, f, "{name}: {b} allocations backwards, {f} forwards");
        }
        assert!(sink.load(SeqCst) > 0);
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

/// Counts its clones and drops through shared counters.
struct Counted<'a> {
    made: &'a AtomicUsize,
    dropped: &'a AtomicUsize,
    value: u32,
}

impl<'a> Counted<'a> {
    fn new(made: &'a AtomicUsize, dropped: &'a AtomicUsize, value: u32) -> Self {
        made.fetch_add(1, SeqCst);
        Counted { made, dropped, value }
    }
}

impl Clone for Counted<'_> {
    fn clone(&self) -> Self {
        Counted::new(self.made, self.dropped, self.value)
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.dropped.fetch_add(1, SeqCst);
    }
}

/// `n` counted values, `0..n`.
fn values<'a>(n: u32, made: &'a AtomicUsize, dropped: &'a AtomicUsize) -> Vec<Counted<'a>> {
    (0..n).map(|i| Counted::new(made, dropped, i)).collect()
}

/// Runs `f` with fresh counters; it must panic with [`EXPECTED`]; then
/// every value made has been dropped exactly once.
fn panics_and_drops_all(f: impl Fn(&AtomicUsize, &AtomicUsize) + Sync) {
    quiet_expected_panics();
    let (made, dropped) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let result = panic::catch_unwind(AssertUnwindSafe(|| f(&made, &dropped)));
    let message = message(&*result.expect_err("the panic reaches the caller")).unwrap();
    assert!(message.contains(EXPECTED), "{message}");
    assert_eq!(dropped.load(SeqCst), made.load(SeqCst));
}

#[test]
fn panics_in_the_new_adapters_drop_every_value_once() {
    on_pools(|| {
        for n in [1u32, 10, 3_000] {
            for bad in [0, n / 2, n - 1] {
                let check = |c: &Counted| assert!(c.value != bad, "{EXPECTED}: item {bad}");
                // The state of `map_with` (cloned per piece) and `map_init`.
                panics_and_drops_all(|made, dropped| {
                    let state = Counted::new(made, dropped, 0);
                    let _: Vec<u32> = (0..n)
                        .into_par_iter()
                        .map_with(state, |s, i| {
                            assert!(i != bad, "{EXPECTED}");
                            s.value += 1;
                            i
                        })
                        .collect();
                });
                panics_and_drops_all(|made, dropped| {
                    let _: Vec<Counted> = values(n, made, dropped)
                        .into_par_iter()
                        .map_init(
                            || Counted::new(made, dropped, 0),
                            |_, c| {
                                check(&c);
                                c
                            },
                        )
                        .collect();
                });
                // Owned items walked backwards, chained, found, bridged.
                panics_and_drops_all(|made, dropped| {
                    let _: Vec<Counted> = values(n, made, dropped)
                        .into_par_iter()
                        .rev()
                        .inspect_with(check)
                        .collect();
                });
                panics_and_drops_all(|made, dropped| {
                    let (a, b) = (values(n, made, dropped), values(n, made, dropped));
                    let _: Vec<Counted> = a.into_par_iter().chain(b).rev().inspect_with(check).collect();
                });
                panics_and_drops_all(|made, dropped| {
                    let (a, b) = (values(n, made, dropped), values(n, made, dropped));
                    let _: Vec<(Counted, Counted)> = a
                        .into_par_iter()
                        .zip(b)
                        .rev()
                        .map(|(x, y)| {
                            check(&x);
                            (x, y)
                        })
                        .collect();
                });
                panics_and_drops_all(|made, dropped| {
                    let _: Vec<Vec<Counted>> = values(n, made, dropped)
                        .into_par_iter()
                        .chunks(3)
                        .rev()
                        .map(|c| {
                            c.iter().for_each(check);
                            c
                        })
                        .collect();
                });
                panics_and_drops_all(|made, dropped| {
                    let found = values(n, made, dropped).into_par_iter().find_last(|c| {
                        check(c);
                        false
                    });
                    assert!(found.is_none());
                });
                panics_and_drops_all(|made, dropped| {
                    let _: Vec<Counted> = values(n, made, dropped)
                        .into_iter()
                        .par_bridge()
                        .inspect_with(check)
                        .collect();
                });
                panics_and_drops_all(|made, dropped| {
                    let items = values(n, made, dropped).into_par_iter().map(|c| {
                        check(&c);
                        Ok::<_, ()>(c)
                    });
                    let _: Result<Vec<Counted>, ()> = items.collect();
                });
            }
        }
        // Stopping early drops what was made and what was left.
        let (made, dropped) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let values: Vec<Counted> = (0..3_000).map(|i| Counted::new(&made, &dropped, i)).collect();
        let collected: Result<Vec<Counted>, u32> = values
            .into_par_iter()
            .map(|c| if c.value == 1_500 { Err(c.value) } else { Ok(c) })
            .collect();
        assert_eq!(collected.err(), Some(1_500));
        assert_eq!(dropped.load(SeqCst), made.load(SeqCst));
        let values: Vec<Counted> = (0..3_000).map(|i| Counted::new(&made, &dropped, i)).collect();
        let first = values
            .into_par_iter()
            .rev()
            .find_first(|c| c.value % 1_000 == 999);
        assert_eq!(first.as_ref().map(|c| c.value), Some(2_999));
        drop(first);
        assert_eq!(dropped.load(SeqCst), made.load(SeqCst));
    });
}

/// `map(|x| { f(&x); x })`, the shape of the checks above.
trait InspectWith: ParallelIterator {
    fn inspect_with<F: Fn(&Self::Item) + Sync + Send>(
        self,
        f: F,
    ) -> stealpool::iter::Map<Self, impl Fn(Self::Item) -> Self::Item + Sync + Send> {
        self.map(move |x| {
            f(&x);
            x
        })
    }
}
impl<I: ParallelIterator> InspectWith for I {}
