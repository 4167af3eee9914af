//! [`FlatMap`]: every item mapped to a parallel iterator, whose items are
//! passed on in order; each inner iterator is itself split on the pool.

use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use crate::iter::{IntoParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::flat_map`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let f: stealpool::iter::FlatMap<_, _> = (1..4u32).into_par_iter().flat_map(|n| 0..n);
/// assert_eq!(f.collect::<Vec<_>>(), [0, 0, 1, 0, 1, 2]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FlatMap<I, F> {
    base: I,
    map_op: F,
}

debug_without_closures!(FlatMap<I, F> { base: I });

impl<I, F> FlatMap<I, F> {
    pub(crate) fn new(base: I, map_op: F) -> Self {
        FlatMap { base, map_op }
    }
}

impl<I, F, PI> ParallelIterator for FlatMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> PI + Sync + Send,
    PI: IntoParallelIterator,
{
    type Item = PI::Item;

    fn drive_unindexed<C: UnindexedConsumer<PI::Item>>(self, consumer: C) -> C::Result {
        let map_op = &self.map_op;
        self.base.drive_unindexed(FlatMapConsumer {
            base: consumer,
            map_op,
        })
    }
}

/// [`FlatMap`]'s consumer: each item's inner iterator is driven into a
/// piece of `base` split off to its left.
struct FlatMapConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, PI, C, F> Consumer<T> for FlatMapConsumer<'f, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Folder = FlatMapFolder<'f, C, F, C::Result>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let map_op = self.map_op;
        (
            FlatMapConsumer { base: left, map_op },
            FlatMapConsumer { base: right, map_op },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        FlatMapFolder {
            base: self.base,
            map_op: self.map_op,
            previous: None,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, PI, C, F> UnindexedConsumer<T> for FlatMapConsumer<'_, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    fn split_off_left(&self) -> Self {
        FlatMapConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// [`FlatMap`]'s folder: the results of the inner iterators so far,
/// reduced in order.
struct FlatMapFolder<'f, C, F, R> {
    base: C,
    map_op: &'f F,
    previous: Option<R>,
}

impl<T, PI, C, F> Folder<T> for FlatMapFolder<'_, C, F, C::Result>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Result = C::Result;

    fn consume(self, item: T) -> Self {
        let inner = (self.map_op)(item).into_par_iter();
        let result = inner.drive_unindexed(self.base.split_off_left());
        let previous = match self.previous {
            Some(previous) => self.base.to_reducer().reduce(previous, result),
            None => result,
        };
        FlatMapFolder {
            previous: Some(previous),
            ..self
        }
    }

    fn complete(self) -> C::Result {
        match self.previous {
            Some(previous) => previous,
            None => self.base.into_folder().complete(),
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
