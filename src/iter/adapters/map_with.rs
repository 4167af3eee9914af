//! [`MapWith`] and [`MapInit`]: `map_op` applied to every item with a
//! `&mut` to its piece's state, a clone of a value or made by `init()`;
//! indexed when the base is. Built as `for_each_with` and
//! `for_each_init` are, on a [`StateSource`].

use crate::iter::for_each::{Cloned, Init, StateSource};
use crate::iter::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::map_with`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let offset: stealpool::iter::MapWith<_, _, _> = (0..3u32).into_par_iter().map_with(10u32, |ten, x| x + *ten);
/// assert_eq!(offset.collect::<Vec<_>>(), [10, 11, 12]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct MapWith<I, T, F> {
    base: I,
    item: T,
    map_op: F,
}

debug_without_closures!(MapWith<I, T, F> { base: I, item: T });

impl<I, T, F> MapWith<I, T, F> {
    pub(crate) fn new(base: I, item: T, map_op: F) -> Self {
        MapWith { base, item, map_op }
    }
}

/// The iterator of [`ParallelIterator::map_init`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let squares: stealpool::iter::MapInit<_, _, _> = (0..3u32).into_par_iter().map_init(Vec::new, |scratch: &mut Vec<u32>, x| {
///     scratch.push(x);
///     x * x
/// });
/// assert_eq!(squares.collect::<Vec<_>>(), [0, 1, 4]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct MapInit<I, INIT, F> {
    base: I,
    init: INIT,
    map_op: F,
}

debug_without_closures!(MapInit<I, INIT, F> { base: I });

impl<I, INIT, F> MapInit<I, INIT, F> {
    pub(crate) fn new(base: I, init: INIT, map_op: F) -> Self {
        MapInit { base, init, map_op }
    }
}

impl<I, T, F, R> ParallelIterator for MapWith<I, T, F>
where
    I: ParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let MapWith { base, item, map_op } = self;
        let source = Cloned(item);
        base.drive_unindexed(StateConsumer {
            base: consumer,
            source,
            map_op: &map_op,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, T, F, R> IndexedParallelIterator for MapWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let MapWith { base, item, map_op } = self;
        let source = Cloned(item);
        base.with_producer(StateCallback {
            callback,
            source,
            map_op: &map_op,
        })
    }
}

impl<I, INIT, T, F, R> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let MapInit { base, init, map_op } = self;
        let source = Init(&init);
        base.drive_unindexed(StateConsumer {
            base: consumer,
            source,
            map_op: &map_op,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, INIT, T, F, R> IndexedParallelIterator for MapInit<I, INIT, F>
where
    I: IndexedParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let MapInit { base, init, map_op } = self;
        let source = Init(&init);
        base.with_producer(StateCallback {
            callback,
            source,
            map_op: &map_op,
        })
    }
}

/// Wraps the base's producer in a [`StateProducer`].
struct StateCallback<'f, CB, S, F> {
    callback: CB,
    source: S,
    map_op: &'f F,
}

impl<T, R, CB, S, F> ProducerCallback<T> for StateCallback<'_, CB, S, F>
where
    CB: ProducerCallback<R>,
    S: StateSource,
    F: Fn(&mut S::State, T) -> R + Sync,
{
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (source, map_op) = (self.source, self.map_op);
        self.callback.callback(StateProducer { base, source, map_op })
    }
}

/// The producer: each piece maps with its own state from `source`.
struct StateProducer<'f, P, S, F> {
    base: P,
    source: S,
    map_op: &'f F,
}

impl<'f, P, S, F, R> Producer for StateProducer<'f, P, S, F>
where
    P: Producer,
    S: StateSource,
    F: Fn(&mut S::State, P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = StateIter<'f, P::IntoIter, S::State, F>;

    fn into_iter(self) -> Self::IntoIter {
        let state = self.source.into_state();
        StateIter {
            base: self.base.into_iter(),
            state,
            map_op: self.map_op,
        }
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
        let left = StateProducer {
            base: left,
            source: self.source.split(),
            map_op,
        };
        (
            left,
            StateProducer {
                base: right,
                source: self.source,
                map_op,
            },
        )
    }

    fn fold_with<G: Folder<R>>(self, folder: G) -> G {
        let state = self.source.into_state();
        self.base
            .fold_with(StateFolder {
                base: folder,
                state,
                map_op: self.map_op,
            })
            .base
    }

    fn fold_rev_with<G: Folder<R>>(self, folder: G) -> G {
        let state = self.source.into_state();
        self.base
            .fold_rev_with(StateFolder {
                base: folder,
                state,
                map_op: self.map_op,
            })
            .base
    }
}

/// A piece's items mapped with its state.
struct StateIter<'f, It, U, F> {
    base: It,
    state: U,
    map_op: &'f F,
}

impl<It: Iterator, U, F: Fn(&mut U, It::Item) -> R, R> Iterator for StateIter<'_, It, U, F> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        let item = self.base.next()?;
        Some((self.map_op)(&mut self.state, item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

/// The consumer: each piece maps with its own state from `source`.
struct StateConsumer<'f, C, S, F> {
    base: C,
    source: S,
    map_op: &'f F,
}

impl<'f, T, R, C, S, F> Consumer<T> for StateConsumer<'f, C, S, F>
where
    C: Consumer<R>,
    S: StateSource,
    F: Fn(&mut S::State, T) -> R + Sync,
{
    type Folder = StateFolder<'f, C::Folder, S::State, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let map_op = self.map_op;
        let left = StateConsumer {
            base: left,
            source: self.source.split(),
            map_op,
        };
        (
            left,
            StateConsumer {
                base: right,
                source: self.source,
                map_op,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        let state = self.source.into_state();
        StateFolder {
            base: self.base.into_folder(),
            state,
            map_op: self.map_op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, R, C, S, F> UnindexedConsumer<T> for StateConsumer<'_, C, S, F>
where
    C: UnindexedConsumer<R>,
    S: StateSource,
    F: Fn(&mut S::State, T) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        StateConsumer {
            base: self.base.split_off_left(),
            source: self.source.split(),
            map_op: self.map_op,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// The folder: one piece's state and the base folder.
struct StateFolder<'f, C, U, F> {
    base: C,
    state: U,
    map_op: &'f F,
}

impl<T, R, C, U, F> Folder<T> for StateFolder<'_, C, U, F>
where
    C: Folder<R>,
    F: Fn(&mut U, T) -> R,
{
    type Result = C::Result;

    fn consume(mut self, item: T) -> Self {
        let mapped = (self.map_op)(&mut self.state, item);
        self.base = self.base.consume(mapped);
        self
    }

    fn complete(self) -> C::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
