//! [`Positions`]: the indices of the items for which a predicate holds,
//! in order; run as `enumerate` and `filter_map`.

use crate::iter::plumbing::UnindexedConsumer;
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::positions`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let p: stealpool::iter::Positions<_, _> = [1, 4, 6, 7].par_iter().positions(|x| x % 2 == 0);
/// assert_eq!(p.collect::<Vec<_>>(), [1, 2]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Positions<I, P> {
    base: I,
    predicate: P,
}

debug_without_closures!(Positions<I, P> { base: I });

impl<I, P> Positions<I, P> {
    pub(crate) fn new(base: I, predicate: P) -> Self {
        Positions { base, predicate }
    }
}

impl<I, P> ParallelIterator for Positions<I, P>
where
    I: IndexedParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    type Item = usize;

    fn drive_unindexed<C: UnindexedConsumer<usize>>(self, consumer: C) -> C::Result {
        let predicate = &self.predicate;
        self.base
            .enumerate()
            .filter_map(move |(i, item)| predicate(item).then_some(i))
            .drive_unindexed(consumer)
    }
}
