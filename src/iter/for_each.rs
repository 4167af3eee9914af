//! The consumer of [`for_each`](super::ParallelIterator::for_each),
//! [`for_each_with`](super::ParallelIterator::for_each_with) and
//! [`for_each_init`](super::ParallelIterator::for_each_init): `op` called
//! on every item with a `&mut` to its piece's state.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// Joins two `()`s.
pub(super) struct NoopReducer;

impl Reducer<()> for NoopReducer {
    fn reduce(self, _left: (), _right: ()) {}
}

/// Where each piece's state comes from.
pub(super) trait StateSource: Send + Sized {
    /// The state.
    type State;
    /// The source for a piece split off to the left.
    fn split(&self) -> Self;
    /// This piece's state.
    fn into_state(self) -> Self::State;
}

/// `for_each_with`'s: a clone of one value per piece (`for_each`'s: `()`).
pub(super) struct Cloned<U>(pub(super) U);

impl<U: Send + Clone> StateSource for Cloned<U> {
    type State = U;

    fn split(&self) -> Self {
        Cloned(self.0.clone())
    }

    fn into_state(self) -> U {
        self.0
    }
}

/// `for_each_init`'s: `init()`, once per piece.
pub(super) struct Init<'f, I>(pub(super) &'f I);

impl<U, I: Fn() -> U + Sync> StateSource for Init<'_, I> {
    type State = U;

    fn split(&self) -> Self {
        Init(self.0)
    }

    fn into_state(self) -> U {
        (self.0)()
    }
}

/// Calls `op` on every item with a `&mut` to its piece's state.
pub(super) struct ForEachConsumer<'f, F, S> {
    pub(super) op: &'f F,
    pub(super) source: S,
}

impl<'f, T, F, S> Consumer<T> for ForEachConsumer<'f, F, S>
where
    F: Fn(&mut S::State, T) + Sync,
    S: StateSource,
{
    type Folder = ForEachFolder<'f, F, S::State>;
    type Reducer = NoopReducer;
    type Result = ();

    fn split_at(self, _index: usize) -> (Self, Self, NoopReducer) {
        (self.split_off_left(), self, NoopReducer)
    }

    fn into_folder(self) -> Self::Folder {
        ForEachFolder {
            op: self.op,
            state: self.source.into_state(),
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T, F, S> UnindexedConsumer<T> for ForEachConsumer<'_, F, S>
where
    F: Fn(&mut S::State, T) + Sync,
    S: StateSource,
{
    fn split_off_left(&self) -> Self {
        ForEachConsumer {
            op: self.op,
            source: self.source.split(),
        }
    }

    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}

/// One piece's calls, with its state.
pub(super) struct ForEachFolder<'f, F, U> {
    op: &'f F,
    state: U,
}

impl<T, F: Fn(&mut U, T), U> Folder<T> for ForEachFolder<'_, F, U> {
    type Result = ();

    fn consume(mut self, item: T) -> Self {
        (self.op)(&mut self.state, item);
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        // Internal iteration: `for_each` runs chained adapters' own loops.
        iter.into_iter().for_each(|item| (self.op)(&mut self.state, item));
        self
    }

    fn complete(self) {}

    fn full(&self) -> bool {
        false
    }
}
