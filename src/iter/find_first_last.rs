//! The consumer of [`find_first`](super::ParallelIterator::find_first) and
//! [`find_last`](super::ParallelIterator::find_last): the first (last)
//! item in order for which the predicate holds, with pieces stopping once
//! a piece before (after) them has found one (I6).
//!
//! Every consumer owns a range of positions, `lower..upper` within
//! `0..usize::MAX`; a split gives the left consumer the lower half and
//! keeps the upper half. Ranges of pieces that run side by side are
//! disjoint and ordered as the pieces' items are, so a position stands
//! for a place in the order: the lower bound for `find_first`, the upper
//! for `find_last`. `best` holds the best position at which an item has
//! been found.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::ParallelIterator;
use crate::sync::{AtomicUsize, Ordering};
use std::cell::Cell;

/// Which item is wanted.
#[derive(Clone, Copy)]
enum Want {
    First,
    Last,
}

impl Want {
    /// Whether position `a` is strictly better than `b`.
    fn better(self, a: usize, b: usize) -> bool {
        match self {
            Want::First => a < b,
            Want::Last => a > b,
        }
    }
}

/// The first item of `par_iter` for which `predicate` holds.
pub(super) fn find_first<I, P>(par_iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let best = AtomicUsize::new(usize::MAX);
    par_iter.drive_unindexed(FindConsumer::new(&predicate, Want::First, &best))
}

/// The last item of `par_iter` for which `predicate` holds.
pub(super) fn find_last<I, P>(par_iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let best = AtomicUsize::new(0);
    par_iter.drive_unindexed(FindConsumer::new(&predicate, Want::Last, &best))
}

/// Looks for the best item in its range of positions.
struct FindConsumer<'p, P> {
    predicate: &'p P,
    /// Moves up when a left part is split off (`split_off_left` takes
    /// `&self`); the consumer is never shared, only moved, so a `Cell`.
    lower: Cell<usize>,
    upper: usize,
    want: Want,
    best: &'p AtomicUsize,
}

impl<'p, P> FindConsumer<'p, P> {
    fn new(predicate: &'p P, want: Want, best: &'p AtomicUsize) -> Self {
        FindConsumer {
            predicate,
            lower: Cell::new(0),
            upper: usize::MAX,
            want,
            best,
        }
    }

    /// This consumer's place in the order.
    fn position(&self) -> usize {
        match self.want {
            Want::First => self.lower.get(),
            Want::Last => self.upper,
        }
    }

    /// Whether an item has been found at a better place than `position`.
    fn beaten(&self, position: usize) -> bool {
        // Relaxed: a hint to stop early; the items travel in the pieces'
        // results, through `join` (I6).
        self.want.better(self.best.load(Ordering::Relaxed), position)
    }
}

impl<'p, T: Send, P: Fn(&T) -> bool + Sync> Consumer<T> for FindConsumer<'p, P> {
    type Folder = FindFolder<'p, T, P>;
    type Reducer = FindReducer;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, FindReducer) {
        // Positions are not indices: any split of the range keeps the order.
        let left = self.split_off_left();
        let reducer = FindReducer(self.want);
        (left, self, reducer)
    }

    fn into_folder(self) -> Self::Folder {
        FindFolder {
            predicate: self.predicate,
            position: self.position(),
            want: self.want,
            best: self.best,
            item: None,
        }
    }

    fn full(&self) -> bool {
        self.beaten(self.position())
    }
}

impl<T: Send, P: Fn(&T) -> bool + Sync> UnindexedConsumer<T> for FindConsumer<'_, P> {
    fn split_off_left(&self) -> Self {
        let lower = self.lower.get();
        let median = lower + (self.upper - lower) / 2;
        self.lower.set(median);
        FindConsumer {
            predicate: self.predicate,
            lower: Cell::new(lower),
            upper: median,
            want: self.want,
            best: self.best,
        }
    }

    fn to_reducer(&self) -> FindReducer {
        FindReducer(self.want)
    }
}

/// Keeps the left piece's find for `find_first`, the right's for
/// `find_last`.
struct FindReducer(Want);

impl<T> Reducer<Option<T>> for FindReducer {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match self.0 {
            Want::First => left.or(right),
            Want::Last => right.or(left),
        }
    }
}

/// One piece's search: for `find_first` it stops at its first find; for
/// `find_last` it keeps its latest.
struct FindFolder<'p, T, P> {
    predicate: &'p P,
    position: usize,
    want: Want,
    best: &'p AtomicUsize,
    item: Option<T>,
}

impl<T, P: Fn(&T) -> bool> Folder<T> for FindFolder<'_, T, P> {
    type Result = Option<T>;

    fn consume(mut self, item: T) -> Self {
        if (self.predicate)(&item) {
            // Record this piece's position unless a better one is there.
            // Relaxed, as in `beaten` (I6).
            let (want, position) = (self.want, self.position);
            let recorded = self
                .best
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |best| {
                    want.better(position, best).then_some(position)
                });
            // Keep the item if this piece's place is the best recorded
            // (this piece's or a piece's with the same position); else a
            // better item exists, and this one is dropped.
            if recorded.is_ok() || recorded == Err(position) {
                self.item = Some(item);
            }
        }
        self
    }

    fn complete(self) -> Option<T> {
        self.item
    }

    fn full(&self) -> bool {
        let done = matches!(self.want, Want::First) && self.item.is_some();
        // Relaxed, as in `beaten` (I6).
        done || self.want.better(self.best.load(Ordering::Relaxed), self.position)
    }
}
