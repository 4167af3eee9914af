//! The consumer of [`find_any`](super::ParallelIterator::find_any) (and
//! so of `any`, `all` and `position_any`): every piece stops once any
//! piece has found an item.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::ParallelIterator;
use crate::sync::{AtomicBool, Ordering};

/// Some item of `par_iter` for which `predicate` holds.
pub(super) fn find_any<I, P>(par_iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let found = AtomicBool::new(false);
    par_iter.drive_unindexed(FindConsumer {
        predicate: &predicate,
        found: &found,
    })
}

/// Looks for an item for which `predicate` holds; `found` tells every
/// piece that one has been found.
struct FindConsumer<'p, P> {
    predicate: &'p P,
    found: &'p AtomicBool,
}

impl<P> Clone for FindConsumer<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for FindConsumer<'_, P> {}

impl<P> FindConsumer<'_, P> {
    fn found(&self) -> bool {
        // Relaxed: only a hint to stop early; the item itself travels in
        // the pieces' results, through `join` (I5).
        self.found.load(Ordering::Relaxed)
    }
}

impl<'p, T: Send, P: Fn(&T) -> bool + Sync> Consumer<T> for FindConsumer<'p, P> {
    type Folder = FindFolder<'p, T, P>;
    type Reducer = FindReducer;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, FindReducer) {
        (self, self, FindReducer)
    }

    fn into_folder(self) -> Self::Folder {
        FindFolder {
            consumer: self,
            item: None,
        }
    }

    fn full(&self) -> bool {
        self.found()
    }
}

impl<T: Send, P: Fn(&T) -> bool + Sync> UnindexedConsumer<T> for FindConsumer<'_, P> {
    fn split_off_left(&self) -> Self {
        *self
    }

    fn to_reducer(&self) -> FindReducer {
        FindReducer
    }
}

/// Keeps either piece's find.
struct FindReducer;

impl<T> Reducer<Option<T>> for FindReducer {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        left.or(right)
    }
}

/// One piece's search.
struct FindFolder<'p, T, P> {
    consumer: FindConsumer<'p, P>,
    item: Option<T>,
}

impl<T, P: Fn(&T) -> bool> Folder<T> for FindFolder<'_, T, P> {
    type Result = Option<T>;

    fn consume(mut self, item: T) -> Self {
        if (self.consumer.predicate)(&item) {
            // Relaxed: a hint, as in `found` (I5).
            self.consumer.found.store(true, Ordering::Relaxed);
            self.item = Some(item);
        }
        self
    }

    fn complete(self) -> Option<T> {
        self.item
    }

    fn full(&self) -> bool {
        self.item.is_some() || self.consumer.found()
    }
}
