//! [`MinLen`] and [`MaxLen`]: a floor and a ceiling on the length of the
//! pieces.

use crate::iter::plumbing::{bridge, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::with_min_len`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let coarse: stealpool::iter::MinLen<_> = (0..100u32).into_par_iter().with_min_len(50);
/// // At most two pieces, so at most two accumulators.
/// assert!(coarse.fold(|| 0, |n, _| n + 1).count() <= 2);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct MinLen<I> {
    base: I,
    min: usize,
}

impl<I> MinLen<I> {
    pub(crate) fn new(base: I, min: usize) -> Self {
        MinLen { base, min }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for MinLen<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for MinLen<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback {
            callback,
            min: self.min,
        });

        struct Callback<CB> {
            callback: CB,
            min: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(MinLenProducer { base, min: self.min })
            }
        }
    }
}

/// [`MinLen`]'s producer.
struct MinLenProducer<P> {
    base: P,
    min: usize,
}

impl<P: Producer> Producer for MinLenProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }

    fn min_len(&self) -> usize {
        self.base.min_len().max(self.min)
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let min = self.min;
        (
            MinLenProducer { base: left, min },
            MinLenProducer { base: right, min },
        )
    }

    fn fold_with<F: crate::iter::plumbing::Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }

    fn fold_rev_with<F: crate::iter::plumbing::Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_rev_with(folder)
    }
}

/// The iterator of [`IndexedParallelIterator::with_max_len`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let fine: stealpool::iter::MaxLen<_> = (0..100u32).into_par_iter().with_max_len(10);
/// // At least ten pieces, so at least ten accumulators.
/// assert!(fine.fold(|| 0, |n, _| n + 1).count() >= 10);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct MaxLen<I> {
    base: I,
    max: usize,
}

impl<I> MaxLen<I> {
    pub(crate) fn new(base: I, max: usize) -> Self {
        MaxLen { base, max }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for MaxLen<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for MaxLen<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback {
            callback,
            max: self.max,
        });

        struct Callback<CB> {
            callback: CB,
            max: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(MaxLenProducer { base, max: self.max })
            }
        }
    }
}

/// [`MaxLen`]'s producer.
struct MaxLenProducer<P> {
    base: P,
    max: usize,
}

impl<P: Producer> Producer for MaxLenProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len().min(self.max)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let max = self.max;
        (
            MaxLenProducer { base: left, max },
            MaxLenProducer { base: right, max },
        )
    }

    fn fold_with<F: crate::iter::plumbing::Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }

    fn fold_rev_with<F: crate::iter::plumbing::Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_rev_with(folder)
    }
}
