//! [`Zip`]: the items of two indexed iterators in pairs.

use super::rev::fold_back;
use crate::iter::plumbing::{bridge, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::zip`]: as long as the
/// shorter of the two.
///
/// ```
/// use stealpool::prelude::*;
///
/// let z: stealpool::iter::Zip<_, _> = (0..3u8).into_par_iter().zip(vec!['a', 'b']);
/// assert_eq!(z.collect::<Vec<_>>(), [(0, 'a'), (1, 'b')]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ParallelIterator for Zip<A, B> {
    type Item = (A::Item, B::Item);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator for Zip<A, B> {
    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        // The bridge splits at indices below `len()`, so the longer side's
        // extra items all end in the last piece, where `Iterator::zip`
        // stops at the shorter side.
        let len = self.len();
        return self.a.with_producer(CallbackA {
            callback,
            b: self.b,
            len,
        });

        struct CallbackA<CB, B> {
            callback: CB,
            b: B,
            len: usize,
        }

        impl<CB, B, T> ProducerCallback<T> for CallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<(T, B::Item)>,
        {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, a: P) -> CB::Output {
                self.b.with_producer(CallbackB {
                    callback: self.callback,
                    a,
                    len: self.len,
                })
            }
        }

        struct CallbackB<CB, PA> {
            callback: CB,
            a: PA,
            len: usize,
        }

        impl<CB, PA, T> ProducerCallback<T> for CallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<(PA::Item, T)>,
        {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, b: P) -> CB::Output {
                self.callback.callback(ZipProducer {
                    a: self.a,
                    b,
                    len: self.len,
                })
            }
        }
    }
}

/// [`Zip`]'s producer: `len` pairs (the longer side's extra items, in the
/// last piece, are not among them).
struct ZipProducer<A, B> {
    a: A,
    b: B,
    len: usize,
}

impl<A: Producer, B: Producer> Producer for ZipProducer<A, B> {
    type Item = (A::Item, B::Item);
    type IntoIter = std::iter::Zip<A::IntoIter, B::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().zip(self.b.into_iter())
    }

    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }

    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (a_left, a_right) = self.a.split_at(index);
        let (b_left, b_right) = self.b.split_at(index);
        (
            ZipProducer {
                a: a_left,
                b: b_left,
                len: index,
            },
            ZipProducer {
                a: a_right,
                b: b_right,
                len: self.len - index,
            },
        )
    }

    /// The pairs last to first without collecting the piece: both sides
    /// must step back together, which folding cannot do, so the piece is
    /// halved down to blocks of a few pairs, and each block is walked
    /// forwards into an array on the stack and handed over back to front.
    fn fold_rev_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        let len = self.len;
        fold_back(self, len, folder)
    }
}

/// The iterator of [`IndexedParallelIterator::zip_eq`]: [`Zip`] of two
/// iterators of the same length.
///
/// ```
/// use stealpool::prelude::*;
///
/// let z: stealpool::iter::ZipEq<_, _> = (0..3u8).into_par_iter().zip_eq(vec!['a', 'b', 'c']);
/// assert_eq!(z.collect::<Vec<_>>(), [(0, 'a'), (1, 'b'), (2, 'c')]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct ZipEq<A, B> {
    zip: Zip<A, B>,
}

impl<A, B> ZipEq<A, B> {
    /// `a` and `b` have the same length (checked by the caller).
    pub(crate) fn new(a: A, b: B) -> Self {
        ZipEq { zip: Zip::new(a, b) }
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ParallelIterator for ZipEq<A, B> {
    type Item = (A::Item, B::Item);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.zip.drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.zip.opt_len()
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator for ZipEq<A, B> {
    fn len(&self) -> usize {
        self.zip.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.zip.with_producer(callback)
    }
}
