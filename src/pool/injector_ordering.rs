//! Every memory ordering of the injector's queue (`injector_queue.rs`), in
//! one table, each citing its step in `proofs/injector.md`. The ones a proof
//! needs can be weakened one step with `--cfg stealpool_weaken="NAME"` (see
//! `crate::weaken`); relaxed accesses are plain constants.

use crate::sync::Ordering;
#[allow(unused_imports)] // some appear only in weakened builds
use crate::sync::Ordering::{Acquire, Relaxed, Release};
use crate::weaken::orderings;

orderings! {
    /// Q2: the push's CAS of `head`. Release publishes the node (its value
    /// and its link) to the taker's swap (Q3).
    PUSH_CAS: Ordering = Release, weakened "injector_push" => Relaxed;
    /// Q3: the taker's swap of `head` to null. Acquire pairs with every
    /// push's Q2 through the release sequence of RMWs on `head`.
    TAKE_SWAP: Ordering = Acquire, weakened "injector_take" => Relaxed;
}

/// Q1 (the push's load and failed CAS), Q4 (emptiness checks): relaxed
/// accesses, each argued at its step.
pub(crate) const RELAXED: Ordering = Relaxed;
