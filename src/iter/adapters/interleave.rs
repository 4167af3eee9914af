//! [`Interleave`] and [`InterleaveShortest`]: the items of two indexed
//! iterators taken in turn.

use super::Take;
use crate::iter::plumbing::{bridge, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::iter::Fuse;

/// The iterator of [`IndexedParallelIterator::interleave`]: an item of
/// the first, one of the second, and so on; once one of them ends, the
/// rest of the other.
///
/// ```
/// use stealpool::prelude::*;
///
/// let i: stealpool::iter::Interleave<_, _> = (0..3u8).into_par_iter().interleave(10..11u8);
/// assert_eq!(i.collect::<Vec<_>>(), [0, 10, 1, 2]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Interleave<A, B> {
    a: A,
    b: B,
}

impl<A, B> Interleave<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        Interleave { a, b }
    }
}

impl<A, B> ParallelIterator for Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C: UnindexedConsumer<A::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A, B> IndexedParallelIterator for Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    /// # Panics
    ///
    /// If the two lengths add up to more than `usize::MAX`.
    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("interleave: the two lengths overflow usize")
    }

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        let (a_len, b_len) = (self.a.len(), self.b.len());
        return self.a.with_producer(CallbackA {
            callback,
            b: self.b,
            a_len,
            b_len,
        });

        struct CallbackA<CB, B> {
            callback: CB,
            b: B,
            a_len: usize,
            b_len: usize,
        }

        impl<CB, B, T> ProducerCallback<T> for CallbackA<CB, B>
        where
            B: IndexedParallelIterator<Item = T>,
            CB: ProducerCallback<T>,
        {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, a: P) -> CB::Output {
                self.b.with_producer(CallbackB {
                    callback: self.callback,
                    a,
                    a_len: self.a_len,
                    b_len: self.b_len,
                })
            }
        }

        struct CallbackB<CB, PA> {
            callback: CB,
            a: PA,
            a_len: usize,
            b_len: usize,
        }

        impl<CB, PA, T> ProducerCallback<T> for CallbackB<CB, PA>
        where
            PA: Producer<Item = T>,
            CB: ProducerCallback<T>,
        {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, b: P) -> CB::Output {
                self.callback.callback(InterleavePieces {
                    a: self.a,
                    b,
                    a_len: self.a_len,
                    b_len: self.b_len,
                    a_next: true,
                })
            }
        }
    }
}

/// [`Interleave`]'s producer: a piece of each side, `a_len` and `b_len`
/// items long, and which side gives the piece's first item (when both
/// have items left).
struct InterleavePieces<A, B> {
    a: A,
    b: B,
    a_len: usize,
    b_len: usize,
    a_next: bool,
}

impl<A, B> InterleavePieces<A, B> {
    /// How many of the first `index` items come from each side: in turn
    /// from the side that is next, until one side runs out.
    fn counts(&self, index: usize) -> (usize, usize) {
        let (first, second) = (index.div_ceil(2), index / 2);
        let (mut from_a, mut from_b) = if self.a_next {
            (first, second)
        } else {
            (second, first)
        };
        if from_a > self.a_len {
            from_a = self.a_len;
            from_b = index - from_a;
        } else if from_b > self.b_len {
            from_b = self.b_len;
            from_a = index - from_b;
        }
        (from_a, from_b)
    }
}

impl<A, B> Producer for InterleavePieces<A, B>
where
    A: Producer,
    B: Producer<Item = A::Item>,
{
    type Item = A::Item;
    type IntoIter = InterleaveIter<A::IntoIter, B::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        InterleaveIter {
            a: self.a.into_iter().fuse(),
            b: self.b.into_iter().fuse(),
            a_next: self.a_next,
        }
    }

    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }

    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (from_a, from_b) = self.counts(index);
        let (a_left, a_right) = self.a.split_at(from_a);
        let (b_left, b_right) = self.b.split_at(from_b);
        // After an even number of items in turn, the same side is next;
        // after an odd number, the other. (Once a side has run out, which
        // is next no longer matters.)
        let right_a_next = self.a_next == (index % 2 == 0);
        (
            InterleavePieces {
                a: a_left,
                b: b_left,
                a_len: from_a,
                b_len: from_b,
                a_next: self.a_next,
            },
            InterleavePieces {
                a: a_right,
                b: b_right,
                a_len: self.a_len - from_a,
                b_len: self.b_len - from_b,
                a_next: right_a_next,
            },
        )
    }
}

/// A piece of [`Interleave`], sequentially.
struct InterleaveIter<I, J> {
    a: Fuse<I>,
    b: Fuse<J>,
    a_next: bool,
}

impl<I: Iterator, J: Iterator<Item = I::Item>> Iterator for InterleaveIter<I, J> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let next = if self.a_next { self.a.next() } else { self.b.next() };
        match next {
            Some(item) => {
                self.a_next = !self.a_next;
                Some(item)
            }
            None if self.a_next => self.b.next(),
            None => self.a.next(),
        }
    }
}

/// The iterator of [`IndexedParallelIterator::interleave_shortest`]: an
/// item of the first, one of the second, and so on, until the side whose
/// turn it is has no more.
///
/// ```
/// use stealpool::prelude::*;
///
/// let i: stealpool::iter::InterleaveShortest<_, _> = (0..4u8).into_par_iter().interleave_shortest(10..12u8);
/// assert_eq!(i.collect::<Vec<_>>(), [0, 10, 1, 11, 2]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct InterleaveShortest<A, B> {
    interleave: Interleave<Take<A>, Take<B>>,
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> InterleaveShortest<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        // The first side has its turn first, so it gives one item more
        // than the second when it is the longer.
        let (a_len, b_len) = (a.len(), b.len());
        let a_take = a_len.min(b_len.saturating_add(1));
        let b_take = a_len.min(b_len);
        InterleaveShortest {
            interleave: Interleave::new(Take::new(a, a_take), Take::new(b, b_take)),
        }
    }
}

impl<A, B> ParallelIterator for InterleaveShortest<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C: UnindexedConsumer<A::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A, B> IndexedParallelIterator for InterleaveShortest<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    fn len(&self) -> usize {
        self.interleave.len()
    }

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        self.interleave.with_producer(callback)
    }
}
