//! [`FlatMapIter`]: every item mapped to a sequential iterator, whose
//! items are passed on in order.

use crate::iter::plumbing::{Consumer, Folder, UnindexedConsumer};
use crate::iter::ParallelIterator;

/// The iterator of [`ParallelIterator::flat_map_iter`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let pairs: stealpool::iter::FlatMapIter<_, _> = (0..2u8).into_par_iter().flat_map_iter(|x| [x, x]);
/// assert_eq!(pairs.collect::<Vec<_>>(), [0, 0, 1, 1]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FlatMapIter<I, F> {
    base: I,
    map_op: F,
}

debug_without_closures!(FlatMapIter<I, F> { base: I });

impl<I, F> FlatMapIter<I, F> {
    pub(crate) fn new(base: I, map_op: F) -> Self {
        FlatMapIter { base, map_op }
    }
}

impl<I, F, SI> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> SI + Sync + Send,
    SI: IntoIterator,
    SI::Item: Send,
{
    type Item = SI::Item;

    fn drive_unindexed<C: UnindexedConsumer<SI::Item>>(self, consumer: C) -> C::Result {
        let map_op = &self.map_op;
        self.base.drive_unindexed(FlatMapIterConsumer {
            base: consumer,
            map_op,
        })
    }
}

/// [`FlatMapIter`]'s consumer.
struct FlatMapIterConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, SI, C, F> Consumer<T> for FlatMapIterConsumer<'f, C, F>
where
    C: Consumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    type Folder = FlatMapIterFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let map_op = self.map_op;
        (
            FlatMapIterConsumer { base: left, map_op },
            FlatMapIterConsumer { base: right, map_op },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        FlatMapIterFolder {
            base: self.base.into_folder(),
            map_op: self.map_op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, SI, C, F> UnindexedConsumer<T> for FlatMapIterConsumer<'_, C, F>
where
    C: UnindexedConsumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    fn split_off_left(&self) -> Self {
        FlatMapIterConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// [`FlatMapIter`]'s folder.
struct FlatMapIterFolder<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<T, SI, C, F> Folder<T> for FlatMapIterFolder<'_, C, F>
where
    C: Folder<SI::Item>,
    F: Fn(T) -> SI,
    SI: IntoIterator,
{
    type Result = C::Result;

    fn consume(self, item: T) -> Self {
        FlatMapIterFolder {
            base: self.base.consume_iter((self.map_op)(item)),
            map_op: self.map_op,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let map_op = self.map_op;
        FlatMapIterFolder {
            base: self.base.consume_iter(iter.into_iter().flat_map(map_op)),
            map_op,
        }
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
