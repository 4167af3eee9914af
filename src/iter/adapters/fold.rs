//! [`Fold`]: each piece's items folded into one accumulator; the iterator
//! of those accumulators.

use crate::iter::plumbing::{Consumer, Folder, UnindexedConsumer};
use crate::iter::ParallelIterator;

/// The iterator of [`ParallelIterator::fold`]: one accumulator per piece.
///
/// ```
/// use stealpool::prelude::*;
///
/// let sums: stealpool::iter::Fold<_, _, _> = (0..100u32).into_par_iter().fold(|| 0, |a, x| a + x);
/// assert_eq!(sums.sum::<u32>(), 4_950);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

debug_without_closures!(Fold<I, ID, F> { base: I });

impl<I, ID, F> Fold<I, ID, F> {
    pub(crate) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> T + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    T: Send,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let consumer = FoldConsumer {
            base: consumer,
            identity: &self.identity,
            fold_op: &self.fold_op,
        };
        self.base.drive_unindexed(consumer)
    }
}

/// [`Fold`]'s consumer: splits as its base does (which is unindexed:
/// `Fold` reports no length).
struct FoldConsumer<'f, C, ID, F> {
    base: C,
    identity: &'f ID,
    fold_op: &'f F,
}

impl<'f, C, ID, F> FoldConsumer<'f, C, ID, F> {
    fn with_base<D>(&self, base: D) -> FoldConsumer<'f, D, ID, F> {
        FoldConsumer {
            base,
            identity: self.identity,
            fold_op: self.fold_op,
        }
    }
}

impl<'f, U, T, C, ID, F> Consumer<U> for FoldConsumer<'f, C, ID, F>
where
    C: Consumer<T>,
    F: Fn(T, U) -> T + Sync,
    ID: Fn() -> T + Sync,
    T: Send,
{
    type Folder = FoldFolder<'f, C::Folder, T, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let (identity, fold_op) = (self.identity, self.fold_op);
        (
            FoldConsumer {
                base: left,
                identity,
                fold_op,
            },
            FoldConsumer {
                base: right,
                identity,
                fold_op,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        FoldFolder {
            base: self.base.into_folder(),
            item: (self.identity)(),
            fold_op: self.fold_op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<U, T, C, ID, F> UnindexedConsumer<U> for FoldConsumer<'_, C, ID, F>
where
    C: UnindexedConsumer<T>,
    F: Fn(T, U) -> T + Sync,
    ID: Fn() -> T + Sync,
    T: Send,
{
    fn split_off_left(&self) -> Self {
        self.with_base(self.base.split_off_left())
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// [`Fold`]'s folder: the piece's accumulator, passed on when complete.
struct FoldFolder<'f, C, T, F> {
    base: C,
    item: T,
    fold_op: &'f F,
}

impl<U, T, C, F> Folder<U> for FoldFolder<'_, C, T, F>
where
    C: Folder<T>,
    F: Fn(T, U) -> T,
{
    type Result = C::Result;

    fn consume(self, item: U) -> Self {
        FoldFolder {
            item: (self.fold_op)(self.item, item),
            ..self
        }
    }

    fn consume_iter<I: IntoIterator<Item = U>>(self, iter: I) -> Self {
        let fold_op = self.fold_op;
        let base = &self.base;
        let item = iter
            .into_iter()
            .take_while(|_| !base.full())
            .fold(self.item, fold_op);
        FoldFolder { item, ..self }
    }

    fn complete(self) -> C::Result {
        self.base.consume(self.item).complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

/// The iterator of [`ParallelIterator::fold_with`]: one accumulator per
/// piece, each started from a clone of `init`. It runs as
/// [`try_fold_with`](ParallelIterator::try_fold_with) with a fold that
/// never short-circuits.
///
/// ```
/// use stealpool::prelude::*;
///
/// let sums: stealpool::iter::FoldWith<_, _, _> = (0..100u32).into_par_iter().fold_with(0, |a, x| a + x);
/// assert_eq!(sums.sum::<u32>(), 4_950);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FoldWith<I, T, F> {
    base: I,
    init: T,
    fold_op: F,
}

debug_without_closures!(FoldWith<I, T, F> { base: I, init: T });

impl<I, T, F> FoldWith<I, T, F> {
    pub(crate) fn new(base: I, init: T, fold_op: F) -> Self {
        FoldWith { base, init, fold_op }
    }
}

impl<I, T, F> ParallelIterator for FoldWith<I, T, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> T + Sync + Send,
    T: Send + Clone,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        use std::convert::Infallible;
        use std::ops::ControlFlow::{self, Break, Continue};
        let fold_op = &self.fold_op;
        let step = move |acc, item| ControlFlow::<Infallible, T>::Continue(fold_op(acc, item));
        let unwrap = |flow: ControlFlow<Infallible, T>| match flow {
            Continue(acc) => acc,
            Break(never) => match never {},
        };
        self.base
            .try_fold_with(self.init, step)
            .map(unwrap)
            .drive_unindexed(consumer)
    }
}
