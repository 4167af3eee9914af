#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The parallel iterators' `unsafe` (`proofs/iter.md`): the drain of
//! `Vec::into_par_iter` (I1) and the indexed `collect` into a vector's
//! spare capacity (I2, I3), on paths that finish, stop early and panic,
//! and `par_drain` (which hands the drained range to the first), with
//! heap-owning items so that a leak, a double drop or an
//! uninitialized read is visible.
//!
//! Sized for Miri, which CI runs over several seeds under both Stacked and
//! Tree Borrows (`model/scripts/verify.sh miri`); on real threads they are
//! ordinary tests.

use std::panic::{self, AssertUnwindSafe};
use stealpool::prelude::*;
use stealpool::ThreadPool;

mod common;
use common::{quiet_expected_panics, EXPECTED};

const N: usize = 24;

fn strings() -> Vec<String> {
    (0..N).map(|i| i.to_string()).collect()
}

#[test]
fn drain_map_collect_in_place() {
    let pool = ThreadPool::new(2);
    let out: Vec<String> = pool.install(|| strings().into_par_iter().map(|s| s + "!").collect());
    assert_eq!(out, (0..N).map(|i| format!("{i}!")).collect::<Vec<_>>());
    // Appending after existing elements, through `par_extend`.
    let mut more = vec![String::from("first")];
    pool.install(|| {
        more.par_extend(
            strings()
                .into_par_iter()
                .enumerate()
                .map(|(i, s)| s + &i.to_string()),
        )
    });
    assert_eq!(more.len(), N + 1);
    assert_eq!(more[N], format!("{}{}", N - 1, N - 1));
}

#[test]
fn drain_stopped_early_drops_the_rest() {
    let pool = ThreadPool::new(2);
    let found = pool.install(|| strings().into_par_iter().find_any(|s| s == "3"));
    assert_eq!(found.as_deref(), Some("3"));
    let kept: Vec<String> = pool.install(|| strings().into_par_iter().filter(|s| s.len() == 1).collect());
    assert_eq!(kept.len(), 10);
    let first: Vec<String> = pool.install(|| strings().into_par_iter().take(5).collect());
    assert_eq!(first, ["0", "1", "2", "3", "4"]);
    let last: Vec<String> = pool.install(|| strings().into_par_iter().skip(N - 2).collect());
    assert_eq!(last.len(), 2);
}

#[test]
fn panicking_collect_drops_what_was_made() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    for bad in [0, N / 2, N - 1] {
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                strings()
                    .into_par_iter()
                    .map(|s| {
                        assert!(s != bad.to_string(), "{EXPECTED}");
                        s + "?"
                    })
                    .collect::<Vec<String>>()
            })
        }));
        assert!(result.is_err());
    }
}

#[test]
fn zip_chunks_and_slices() {
    let pool = ThreadPool::new(2);
    let words = strings();
    let (pairs, chunks): (Vec<(usize, String)>, Vec<Vec<String>>) = pool.install(|| {
        (
            (0..N).into_par_iter().zip(words.par_iter().cloned()).collect(),
            strings().into_par_iter().chunks(5).collect(),
        )
    });
    assert_eq!(pairs[7], (7, String::from("7")));
    assert_eq!(chunks.len(), N.div_ceil(5));
    assert_eq!(chunks.concat(), words);
    let mut lengths = vec![0; N];
    pool.install(|| lengths.par_iter_mut().zip(&words).for_each(|(l, w)| *l = w.len()));
    assert_eq!(lengths.iter().sum::<usize>(), words.iter().map(String::len).sum());
}

/// The later adapters' tests use fewer items: Miri's time is CI's.
const M: usize = 10;

fn few() -> Vec<String> {
    (0..M).map(|i| i.to_string()).collect()
}

#[test]
fn drains_walked_backwards_chained_and_bridged() {
    // `rev` reads a drain from its back (`SliceDrain::next_back`, I1);
    // `find_first` and collect into `Result` stop early, dropping the
    // rest; `par_bridge` shares an iterator behind a lock (I7); a panic
    // under `rev` and `chain` drops what was made. One pool for all.
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let expected: Vec<String> = few().into_iter().rev().collect();
    let back: Vec<String> = pool.install(|| few().into_par_iter().rev().collect());
    assert_eq!(back, expected);
    let found = pool.install(|| {
        few()
            .into_par_iter()
            .chain(few())
            .rev()
            .find_first(|s| s.len() == 1)
    });
    assert_eq!(found.as_deref(), Some("9"));
    let stopped: Result<Vec<String>, String> = pool.install(|| {
        few()
            .into_par_iter()
            .map(|s| if s == "5" { Err(s) } else { Ok(s) })
            .collect()
    });
    assert_eq!(stopped, Err(String::from("5")));
    let mut bridged: Vec<String> = pool.install(|| few().into_iter().par_bridge().collect());
    bridged.sort_by_key(|s| s.parse::<usize>().unwrap());
    assert_eq!(bridged, few());
    let bad = (M / 2).to_string();
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| {
            few()
                .into_par_iter()
                .chain(few())
                .rev()
                .map(|s| {
                    assert!(s != bad, "{EXPECTED}");
                    s + "?"
                })
                .collect::<Vec<String>>()
        })
    }));
    assert!(result.is_err());
}

#[test]
fn par_drain_moves_out_and_drops_once() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let mut v = strings();
    let out: Vec<String> = pool.install(|| v.par_drain(4..20).map(|s| s + "!").collect());
    assert_eq!((out.len(), v.len()), (16, 8));
    assert_eq!(out[0], "4!");
    // Dropped unrun, and a panic while handing out.
    drop(v.par_drain(..3));
    assert_eq!(v.len(), 5);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| v.par_drain(..).for_each(|s| assert!(s != "21", "{EXPECTED}")))
    }));
    assert!(result.is_err());
    assert!(v.is_empty());
}
