//! [`Inspect`] and [`Update`]: a closure called on every item by
//! reference (`&`, `&mut`) as it passes; indexed when the base is. Both
//! run as a [`map`](crate::iter::ParallelIterator::map) that hands the
//! item back, so they split exactly as `map` does.

use crate::iter::plumbing::{ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::inspect`].
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use stealpool::prelude::*;
///
/// let seen = AtomicUsize::new(0);
/// let it: stealpool::iter::Inspect<_, _> = (0..10u32).into_par_iter().inspect(|_| {
///     seen.fetch_add(1, Ordering::Relaxed);
/// });
/// assert_eq!(it.sum::<u32>(), 45);
/// assert_eq!(seen.into_inner(), 10);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Inspect<I, F> {
    base: I,
    inspect_op: F,
}

debug_without_closures!(Inspect<I, F> { base: I });

impl<I, F> Inspect<I, F> {
    pub(crate) fn new(base: I, inspect_op: F) -> Self {
        Inspect { base, inspect_op }
    }
}

impl<I, F> ParallelIterator for Inspect<I, F>
where
    I: ParallelIterator,
    F: Fn(&I::Item) + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let op = &self.inspect_op;
        self.base
            .map(move |item| (op(&item), item).1)
            .drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F> IndexedParallelIterator for Inspect<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(&I::Item) + Sync + Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let op = &self.inspect_op;
        self.base
            .map(move |item| (op(&item), item).1)
            .with_producer(callback)
    }
}

/// The iterator of [`ParallelIterator::update`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let it: stealpool::iter::Update<_, _> = vec![1, 2, 3].into_par_iter().update(|x| *x *= 10);
/// assert_eq!(it.collect::<Vec<i32>>(), [10, 20, 30]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Update<I, F> {
    base: I,
    update_op: F,
}

debug_without_closures!(Update<I, F> { base: I });

impl<I, F> Update<I, F> {
    pub(crate) fn new(base: I, update_op: F) -> Self {
        Update { base, update_op }
    }
}

impl<I, F> ParallelIterator for Update<I, F>
where
    I: ParallelIterator,
    F: Fn(&mut I::Item) + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let op = &self.update_op;
        self.base
            .map(move |mut item| (op(&mut item), item).1)
            .drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F> IndexedParallelIterator for Update<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(&mut I::Item) + Sync + Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let op = &self.update_op;
        self.base
            .map(move |mut item| (op(&mut item), item).1)
            .with_producer(callback)
    }
}
