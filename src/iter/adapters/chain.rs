//! [`Chain`]: the items of one iterator, then those of another; indexed
//! when both are.

use crate::iter::plumbing::{Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer};
use crate::iter::pool::{CurrentPool, OnPool};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::chain`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let both: stealpool::iter::Chain<_, _> = (0..2u8).into_par_iter().chain(7..9u8);
/// assert_eq!(both.collect::<Vec<_>>(), [0, 1, 7, 8]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Chain<A, B> {
    a: A,
    b: B,
}

impl<A, B> Chain<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        Chain { a, b }
    }
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C: UnindexedConsumer<A::Item>>(self, consumer: C) -> C::Result {
        let Chain { a, b } = self;
        // When `a`'s length is known, split at it: an indexed consumer
        // (`collect`'s, I2) then gets the split it needs (I8). Otherwise the
        // consumer is unindexed, and a split off to the left serves.
        let (left, right, reducer) = match a.opt_len() {
            Some(len) => consumer.split_at(len),
            None => {
                let reducer = consumer.to_reducer();
                (consumer.split_off_left(), consumer, reducer)
            }
        };
        let (a, b) = CurrentPool.join(|| a.drive_unindexed(left), || b.drive_unindexed(right));
        reducer.reduce(a, b)
    }

    fn opt_len(&self) -> Option<usize> {
        self.a.opt_len()?.checked_add(self.b.opt_len()?)
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    /// # Panics
    ///
    /// If the total length overflows `usize`, as rayon's.
    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("chained iterators too long for usize")
    }

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        let a_len = self.a.len();
        return self.a.with_producer(CallbackA {
            callback,
            a_len,
            b: self.b,
        });

        struct CallbackA<CB, B> {
            callback: CB,
            a_len: usize,
            b: B,
        }

        impl<CB, B> ProducerCallback<B::Item> for CallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<B::Item>,
        {
            type Output = CB::Output;
            fn callback<A: Producer<Item = B::Item>>(self, a: A) -> CB::Output {
                let (callback, a_len) = (self.callback, self.a_len);
                self.b.with_producer(CallbackB { callback, a_len, a })
            }
        }

        struct CallbackB<CB, A> {
            callback: CB,
            a_len: usize,
            a: A,
        }

        impl<CB, A> ProducerCallback<A::Item> for CallbackB<CB, A>
        where
            A: Producer,
            CB: ProducerCallback<A::Item>,
        {
            type Output = CB::Output;
            fn callback<B: Producer<Item = A::Item>>(self, b: B) -> CB::Output {
                let a_len = self.a_len;
                self.callback.callback(ChainProducer { a_len, a: self.a, b })
            }
        }
    }
}

/// [`Chain`]'s producer: `a`'s `a_len` items, then `b`'s. A split inside
/// `a` leaves the left piece an empty `b`, and one inside `b` leaves the
/// right piece an empty `a`. Either way the left piece has exactly the first
/// `index` items, as the indexed collect needs (I8).
struct ChainProducer<A, B> {
    a_len: usize,
    a: A,
    b: B,
}

impl<A: Producer, B: Producer<Item = A::Item>> Producer for ChainProducer<A, B> {
    type Item = A::Item;
    type IntoIter = std::iter::Chain<A::IntoIter, B::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().chain(self.b.into_iter())
    }

    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }

    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        if index <= self.a_len {
            let (a_left, a_right) = self.a.split_at(index);
            let (b_left, b_right) = self.b.split_at(0);
            let left = ChainProducer {
                a_len: index,
                a: a_left,
                b: b_left,
            };
            let right = ChainProducer {
                a_len: self.a_len - index,
                a: a_right,
                b: b_right,
            };
            (left, right)
        } else {
            let (a_left, a_right) = self.a.split_at(self.a_len);
            let (b_left, b_right) = self.b.split_at(index - self.a_len);
            let left = ChainProducer {
                a_len: self.a_len,
                a: a_left,
                b: b_left,
            };
            let right = ChainProducer {
                a_len: 0,
                a: a_right,
                b: b_right,
            };
            (left, right)
        }
    }

    fn fold_with<F: Folder<A::Item>>(self, folder: F) -> F {
        let folder = self.a.fold_with(folder);
        if folder.full() {
            // `b`'s items, unvisited, are dropped with it.
            return folder;
        }
        self.b.fold_with(folder)
    }

    fn fold_rev_with<F: Folder<A::Item>>(self, folder: F) -> F {
        let folder = self.b.fold_rev_with(folder);
        if folder.full() {
            return folder;
        }
        self.a.fold_rev_with(folder)
    }
}
