//! A user's crate that runs on stealpool, with one planted race per entry
//! point of the pool, and the fixed twin of each.
//!
//! The code is ordinary rayon-style code: `stealpool::join`, `scope`,
//! `prelude::*`, a `ThreadPool` of its own. The only concession to the model
//! checkers is the `sync` module below, which takes the atomics from the
//! checker when one is on, as stealpool does inside. Built with the
//! `shuttle` (or `loom`) feature, stealpool's workers are the checker's
//! threads, so the checker explores the schedules in which the pool runs
//! this code in parallel. `tests/shuttle.rs` and `tests/loom.rs` find each
//! planted race and pass each fixed twin.

use stealpool::prelude::*;
use stealpool::ThreadPool;
use sync::{AtomicUsize, Ordering::SeqCst};

/// The atomics of the checker that is on, else std's.
mod sync {
    #[cfg(feature = "loom")]
    pub use loom::sync::atomic::{AtomicUsize, Ordering};
    #[cfg(feature = "shuttle")]
    pub use shuttle::sync::atomic::{AtomicUsize, Ordering};
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    pub use std::sync::atomic::{AtomicUsize, Ordering};
}

/// Whether to run the planted race or its fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Adds one with a load and a store: two adders at once can lose one.
    Planted,
    /// Adds one with `fetch_add`.
    Fixed,
}

impl Variant {
    fn add_one(self, counter: &AtomicUsize) {
        match self {
            Variant::Planted => {
                let seen = counter.load(SeqCst);
                counter.store(seen + 1, SeqCst);
            }
            Variant::Fixed => {
                counter.fetch_add(1, SeqCst);
            }
        }
    }
}

/// Two adders as the two halves of `pool.join`: returns the count, 2 unless
/// an update was lost.
pub fn join_on_a_pool(pool: &ThreadPool, variant: Variant) -> usize {
    let counter = AtomicUsize::new(0);
    pool.join(|| variant.add_one(&counter), || variant.add_one(&counter));
    counter.load(SeqCst)
}

/// Two adders as the halves of the free `stealpool::join`, on the current
/// pool (the global one here).
pub fn free_join(variant: Variant) -> usize {
    let counter = AtomicUsize::new(0);
    stealpool::join(|| variant.add_one(&counter), || variant.add_one(&counter));
    counter.load(SeqCst)
}

/// Two adders as two tasks of a `stealpool::scope`.
pub fn scope_tasks(variant: Variant) -> usize {
    let counter = AtomicUsize::new(0);
    stealpool::scope(|s| {
        s.spawn(|_| variant.add_one(&counter));
        s.spawn(|_| variant.add_one(&counter));
    });
    counter.load(SeqCst)
}

/// Two adders as the items of a parallel iterator.
pub fn par_iter_for_each(variant: Variant) -> usize {
    let counter = AtomicUsize::new(0);
    (0..2usize)
        .into_par_iter()
        .for_each(|_| variant.add_one(&counter));
    counter.load(SeqCst)
}

/// Two submitted tasks, the second one's result continued with `then`:
/// returns the count once both have run.
pub fn submit_then(pool: &ThreadPool, variant: Variant) -> usize {
    let counter = std::sync::Arc::new(AtomicUsize::new(0));
    let first = {
        let counter = counter.clone();
        pool.submit(move || variant.add_one(&counter))
    };
    let second = {
        let (counter, seen) = (counter.clone(), counter.clone());
        pool.submit(move || variant.add_one(&counter))
            .then(move |()| seen.load(SeqCst))
    };
    first.join().unwrap();
    second.join().unwrap();
    counter.load(SeqCst)
}

/// Rayon-style code, unchanged from what runs on rayon but for the `use`
/// line: a recursive `join`, a `scope` and a parallel iterator. Returns
/// three times the sum of `values`.
pub fn rayon_style_sum(values: &[u64]) -> u64 {
    fn sum(values: &[u64]) -> u64 {
        if values.len() <= 2 {
            return values.iter().sum();
        }
        let (left, right) = values.split_at(values.len() / 2);
        let (a, b) = stealpool::join(|| sum(left), || sum(right));
        a + b
    }
    let by_join = sum(values);
    let mut by_scope = [0u64; 2];
    let (left, right) = values.split_at(values.len() / 2);
    let (first, second) = by_scope.split_at_mut(1);
    stealpool::scope(|s| {
        s.spawn(|_| first[0] = left.iter().sum());
        s.spawn(|_| second[0] = right.iter().sum());
    });
    let by_iter: u64 = values.par_iter().map(|value| value * 1).sum();
    by_join + by_scope[0] + by_scope[1] + by_iter
}
