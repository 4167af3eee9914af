//! [`Either`] of two parallel iterators is one, of the items they share,
//! and either of two collections extends as the one it holds.

use super::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use super::{Either, IndexedParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator};

/// The items of the iterator held, whichever side it is on.
///
/// ```
/// use stealpool::iter::Either;
/// use stealpool::prelude::*;
///
/// let v = vec![1, 2, 3];
/// let it: Either<_, stealpool::iter::Empty<i32>> = Either::Left(v.into_par_iter());
/// assert_eq!(it.map(|x| x * 2).collect::<Vec<_>>(), [2, 4, 6]);
/// ```
impl<L, R> ParallelIterator for Either<L, R>
where
    L: ParallelIterator,
    R: ParallelIterator<Item = L::Item>,
{
    type Item = L::Item;

    fn drive_unindexed<C: UnindexedConsumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(left) => left.drive_unindexed(consumer),
            Either::Right(right) => right.drive_unindexed(consumer),
        }
    }

    fn opt_len(&self) -> Option<usize> {
        match self {
            Either::Left(left) => left.opt_len(),
            Either::Right(right) => right.opt_len(),
        }
    }
}

/// The indexed iterator held, whichever side it is on.
///
/// ```
/// use stealpool::iter::Either;
/// use stealpool::prelude::*;
///
/// let it: Either<stealpool::iter::RangeIter<u8>, _> = Either::Right(vec![7u8, 8].into_par_iter());
/// assert_eq!(it.enumerate().collect::<Vec<_>>(), [(0, 7), (1, 8)]);
/// ```
impl<L, R> IndexedParallelIterator for Either<L, R>
where
    L: IndexedParallelIterator,
    R: IndexedParallelIterator<Item = L::Item>,
{
    fn drive<C: Consumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(left) => left.drive(consumer),
            Either::Right(right) => right.drive(consumer),
        }
    }

    fn len(&self) -> usize {
        match self {
            Either::Left(left) => left.len(),
            Either::Right(right) => right.len(),
        }
    }

    fn with_producer<CB: ProducerCallback<L::Item>>(self, callback: CB) -> CB::Output {
        match self {
            Either::Left(left) => left.with_producer(callback),
            Either::Right(right) => right.with_producer(callback),
        }
    }
}

/// Extends the collection held, whichever side it is on.
///
/// ```
/// use stealpool::iter::Either;
/// use stealpool::prelude::*;
///
/// let mut either: Either<Vec<u8>, std::collections::BTreeSet<u8>> = Either::Right(Default::default());
/// either.par_extend(vec![2u8, 1, 2]);
/// assert_eq!(either.right().unwrap().len(), 2);
/// ```
impl<L, R, T> ParallelExtend<T> for Either<L, R>
where
    L: ParallelExtend<T>,
    R: ParallelExtend<T>,
    T: Send,
{
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        match self {
            Either::Left(left) => left.par_extend(par_iter),
            Either::Right(right) => right.par_extend(par_iter),
        }
    }
}
