//! The consumer of [`for_each_with`](super::ParallelIterator::for_each_with),
//! and of [`for_each`](super::ParallelIterator::for_each) with `()` for
//! the piece's state.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// Joins two `()`s.
pub(super) struct NoopReducer;

impl Reducer<()> for NoopReducer {
    fn reduce(self, _left: (), _right: ()) {}
}

/// Calls `op` on every item with a `&mut` to its piece's clone of `item`;
/// its own folder.
pub(super) struct ForEachWithConsumer<'f, F, U> {
    pub(super) op: &'f F,
    pub(super) item: U,
}

impl<T, F, U> Consumer<T> for ForEachWithConsumer<'_, F, U>
where
    F: Fn(&mut U, T) + Sync,
    U: Send + Clone,
{
    type Folder = Self;
    type Reducer = NoopReducer;
    type Result = ();

    fn split_at(self, _index: usize) -> (Self, Self, NoopReducer) {
        (self.split_off_left(), self, NoopReducer)
    }

    fn into_folder(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T, F, U> UnindexedConsumer<T> for ForEachWithConsumer<'_, F, U>
where
    F: Fn(&mut U, T) + Sync,
    U: Send + Clone,
{
    fn split_off_left(&self) -> Self {
        ForEachWithConsumer {
            op: self.op,
            item: self.item.clone(),
        }
    }

    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}

impl<T, F: Fn(&mut U, T), U> Folder<T> for ForEachWithConsumer<'_, F, U> {
    type Result = ();

    fn consume(mut self, item: T) -> Self {
        (self.op)(&mut self.item, item);
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        // Internal iteration: `for_each` runs chained adapters' own loops.
        iter.into_iter().for_each(|item| (self.op)(&mut self.item, item));
        self
    }

    fn complete(self) {}

    fn full(&self) -> bool {
        false
    }
}
