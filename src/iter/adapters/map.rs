//! [`Map`]: `map_op` applied to every item, indexed when its base is.

use crate::iter::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::map`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let lengths: stealpool::iter::Map<_, _> = ["ab", "c"].par_iter().map(|s| s.len());
/// assert_eq!(lengths.sum::<usize>(), 3);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Map<I, F> {
    base: I,
    map_op: F,
}

debug_without_closures!(Map<I, F> { base: I });

impl<I, F> Map<I, F> {
    pub(crate) fn new(base: I, map_op: F) -> Self {
        Map { base, map_op }
    }
}

impl<I, F, R> ParallelIterator for Map<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let map_op = &self.map_op;
        self.base.drive_unindexed(MapConsumer {
            base: consumer,
            map_op,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F, R> IndexedParallelIterator for Map<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback {
            callback,
            map_op: self.map_op,
        });

        struct Callback<CB, F> {
            callback: CB,
            map_op: F,
        }

        impl<T, F, R, CB> ProducerCallback<T> for Callback<CB, F>
        where
            CB: ProducerCallback<R>,
            F: Fn(T) -> R + Sync,
        {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let map_op = &self.map_op;
                self.callback.callback(MapProducer { base, map_op })
            }
        }
    }
}

/// [`Map`]'s producer.
struct MapProducer<'f, P, F> {
    base: P,
    map_op: &'f F,
}

impl<'f, P, F, R> Producer for MapProducer<'f, P, F>
where
    P: Producer,
    F: Fn(P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = std::iter::Map<P::IntoIter, &'f F>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().map(self.map_op)
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let map_op = self.map_op;
        (
            MapProducer { base: left, map_op },
            MapProducer { base: right, map_op },
        )
    }

    fn fold_with<G: Folder<R>>(self, folder: G) -> G {
        let map_op = self.map_op;
        self.base.fold_with(MapFolder { base: folder, map_op }).base
    }

    fn fold_rev_with<G: Folder<R>>(self, folder: G) -> G {
        let map_op = self.map_op;
        self.base.fold_rev_with(MapFolder { base: folder, map_op }).base
    }
}

/// [`Map`]'s consumer.
struct MapConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, R, C, F> Consumer<T> for MapConsumer<'f, C, F>
where
    C: Consumer<R>,
    F: Fn(T) -> R + Sync,
{
    type Folder = MapFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let map_op = self.map_op;
        (
            MapConsumer { base: left, map_op },
            MapConsumer { base: right, map_op },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        MapFolder {
            base: self.base.into_folder(),
            map_op: self.map_op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, R, C, F> UnindexedConsumer<T> for MapConsumer<'_, C, F>
where
    C: UnindexedConsumer<R>,
    F: Fn(T) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        MapConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// [`Map`]'s folder.
struct MapFolder<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<T, R, C, F> Folder<T> for MapFolder<'_, C, F>
where
    C: Folder<R>,
    F: Fn(T) -> R,
{
    type Result = C::Result;

    fn consume(self, item: T) -> Self {
        MapFolder {
            base: self.base.consume((self.map_op)(item)),
            map_op: self.map_op,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let map_op = self.map_op;
        MapFolder {
            base: self.base.consume_iter(iter.into_iter().map(map_op)),
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
