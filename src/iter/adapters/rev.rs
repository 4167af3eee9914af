//! [`Rev`]: an indexed iterator's items last to first.

use crate::iter::plumbing::{bridge, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::rev`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let backwards: stealpool::iter::Rev<_> = (0..4u8).into_par_iter().rev();
/// assert_eq!(backwards.collect::<Vec<_>>(), [3, 2, 1, 0]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Rev<I> {
    base: I,
}

impl<I> Rev<I> {
    pub(crate) fn new(base: I) -> Self {
        Rev { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Rev<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Rev<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        return self.base.with_producer(Callback { callback, len });

        struct Callback<CB> {
            callback: CB,
            len: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(RevProducer { base, len: self.len })
            }
        }
    }
}

/// [`Rev`]'s producer: the `len` items of `base`, backwards. Item `i` of
/// this piece is item `len - 1 - i` of `base`, so splitting at `index`
/// splits `base` at `len - index` and swaps the halves. The indexed collect
/// relies on this split (I8).
struct RevProducer<P> {
    base: P,
    len: usize,
}

impl<P: Producer> Producer for RevProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::Rev<std::vec::IntoIter<P::Item>>;

    /// Collects the piece to walk it backwards: the path of the one
    /// adapter over `rev` that takes its base's iterator, `zip`, which
    /// steps both sides together; the others fold, through
    /// [`fold_with`](Producer::fold_with) below.
    fn into_iter(self) -> Self::IntoIter {
        let items: Vec<P::Item> = self.base.into_iter().collect();
        items.into_iter().rev()
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(self.len - index);
        (
            RevProducer {
                base: right,
                len: index,
            },
            RevProducer {
                base: left,
                len: self.len - index,
            },
        )
    }

    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_rev_with(folder)
    }

    fn fold_rev_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }
}
