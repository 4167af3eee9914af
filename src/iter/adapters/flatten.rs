//! [`Flatten`] and [`FlattenIter`]: the items of items, in order; run as
//! [`flat_map`](crate::iter::ParallelIterator::flat_map) and
//! [`flat_map_iter`](crate::iter::ParallelIterator::flat_map_iter) with
//! the identity, so they split as those do.

use crate::iter::plumbing::UnindexedConsumer;
use crate::iter::{IntoParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::flatten`]: each inner iterator is
/// split on the pool too.
///
/// ```
/// use stealpool::prelude::*;
///
/// let rows = vec![vec![1, 2], vec![], vec![3]];
/// let flat: stealpool::iter::Flatten<_> = rows.into_par_iter().flatten();
/// assert_eq!(flat.collect::<Vec<i32>>(), [1, 2, 3]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Flatten<I> {
    base: I,
}

impl<I> Flatten<I> {
    pub(crate) fn new(base: I) -> Self {
        Flatten { base }
    }
}

impl<I> ParallelIterator for Flatten<I>
where
    I: ParallelIterator<Item: IntoParallelIterator>,
{
    type Item = <I::Item as IntoParallelIterator>::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.base.flat_map(|inner| inner).drive_unindexed(consumer)
    }
}

/// The iterator of [`ParallelIterator::flatten_iter`]: each inner
/// iterator runs sequentially in its piece.
///
/// ```
/// use stealpool::prelude::*;
///
/// let rows = vec![vec![1, 2], vec![], vec![3]];
/// let flat: stealpool::iter::FlattenIter<_> = rows.into_par_iter().flatten_iter();
/// assert_eq!(flat.collect::<Vec<i32>>(), [1, 2, 3]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct FlattenIter<I> {
    base: I,
}

impl<I> FlattenIter<I> {
    pub(crate) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}

impl<I> ParallelIterator for FlattenIter<I>
where
    I: ParallelIterator<Item: IntoIterator<Item: Send>>,
{
    type Item = <I::Item as IntoIterator>::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.base.flat_map_iter(|inner| inner).drive_unindexed(consumer)
    }
}
