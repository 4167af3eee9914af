#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Panics and early stops in the adapters `rev`, `chain`, `map_with`,
//! `map_init`, `find_first`, `find_last`, `while_some`, `par_bridge` and
//! collect into `Result`: every value is dropped once, on pools of 1 and 2
//! workers.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use stealpool::prelude::*;

mod common;
use common::par_iter::on_pools;
use common::{message, quiet_expected_panics, EXPECTED};

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
