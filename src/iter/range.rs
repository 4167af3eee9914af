//! Ranges of integers as parallel iterators: `(0..n).into_par_iter()`.

use super::plumbing::{bridge, Folder, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::ops::{Range, RangeInclusive};

/// The parallel iterator over a `Range` of integers, from
/// [`into_par_iter`](IntoParallelIterator::into_par_iter).
///
/// Every integer type up to 64 bits; the range's length must fit in
/// `usize` (on 64-bit targets, every such range does).
///
/// ```
/// use stealpool::prelude::*;
///
/// let r: stealpool::iter::RangeIter<i64> = (-3..3i64).into_par_iter();
/// assert_eq!(r.sum::<i64>(), -3);
/// ```
#[derive(Clone, Debug)]
pub struct Iter<T> {
    range: Range<T>,
}

/// The parallel iterator over a `RangeInclusive` of integers.
///
/// A range with more items than `usize` counts (`0..=u64::MAX` has 2^64)
/// iterates as rayon's does, in two halves, and has no length:
/// [`opt_len`](ParallelIterator::opt_len) is `None`, `collect` gathers
/// pieces, and the indexed methods (`len`, `enumerate`, `zip`, ...) panic
/// on it, where rayon's inclusive ranges of 32- and 64-bit integers have
/// none at all.
///
/// ```
/// use stealpool::prelude::*;
///
/// let r: stealpool::iter::RangeInclusiveIter<u8> = (1..=255u8).into_par_iter();
/// assert_eq!(r.map(u32::from).sum::<u32>(), 32_640);
/// let all = (0..=u64::MAX).into_par_iter();
/// assert_eq!(all.opt_len(), None);
/// assert_eq!((0..=u64::MAX).into_par_iter().find_first(|&x| x > 5), Some(6));
/// ```
#[derive(Clone, Debug)]
pub struct InclusiveIter<T> {
    range: RangeInclusive<T>,
}

/// The producer of an [`Iter`].
struct RangeProducer<T> {
    range: Range<T>,
}

/// The producer of an [`InclusiveIter`].
struct InclusiveProducer<T> {
    range: RangeInclusive<T>,
}

macro_rules! indexed_range {
    ($($t:ty => $unsigned:ty),* $(,)?) => {$(
        impl IntoParallelIterator for Range<$t> {
            type Iter = Iter<$t>;
            type Item = $t;
            fn into_par_iter(self) -> Iter<$t> {
                Iter { range: self }
            }
        }

        impl ParallelIterator for Iter<$t> {
            type Item = $t;

            fn drive_unindexed<C: UnindexedConsumer<$t>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl IndexedParallelIterator for Iter<$t> {
            fn len(&self) -> usize {
                let Range { start, end } = self.range;
                if start >= end {
                    return 0;
                }
                // The distance in the unsigned type of the same width.
                let distance = (end as $unsigned).wrapping_sub(start as $unsigned);
                usize::try_from(distance).expect("range too long for usize")
            }

            fn with_producer<CB: ProducerCallback<$t>>(self, callback: CB) -> CB::Output {
                let range = if self.range.start < self.range.end { self.range } else { self.range.start..self.range.start };
                callback.callback(RangeProducer { range })
            }
        }

        impl IntoParallelIterator for RangeInclusive<$t> {
            type Iter = InclusiveIter<$t>;
            type Item = $t;
            fn into_par_iter(self) -> InclusiveIter<$t> {
                InclusiveIter { range: self }
            }
        }

        impl ParallelIterator for InclusiveIter<$t> {
            type Item = $t;

            fn drive_unindexed<C: UnindexedConsumer<$t>>(self, consumer: C) -> C::Result {
                if self.opt_len().is_some() {
                    return bridge(self, consumer);
                }
                // More items than `usize` counts (`0..=u64::MAX`): two
                // halves, each short enough, chained.
                let (start, end) = (*self.range.start(), *self.range.end());
                let half = (end as $unsigned).wrapping_sub(start as $unsigned) / 2;
                let last = (start as $unsigned).wrapping_add(half) as $t;
                // `last < end`: the range has at least two items.
                let left = InclusiveIter { range: start..=last };
                let right = InclusiveIter { range: last + 1..=end };
                left.chain(right).drive_unindexed(consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                let (start, end) = (*self.range.start(), *self.range.end());
                if self.range.is_empty() {
                    return Some(0);
                }
                let distance = (end as $unsigned).wrapping_sub(start as $unsigned);
                usize::try_from(distance).ok()?.checked_add(1)
            }
        }

        impl IndexedParallelIterator for InclusiveIter<$t> {
            fn len(&self) -> usize {
                self.opt_len().expect("range too long for usize")
            }

            fn with_producer<CB: ProducerCallback<$t>>(self, callback: CB) -> CB::Output {
                callback.callback(InclusiveProducer { range: self.range })
            }
        }

        impl Producer for InclusiveProducer<$t> {
            type Item = $t;
            type IntoIter = RangeInclusive<$t>;

            fn into_iter(self) -> RangeInclusive<$t> {
                self.range
            }

            fn fold_rev_with<F: Folder<$t>>(self, folder: F) -> F {
                folder.consume_iter(self.range.rev())
            }

            fn split_at(self, index: usize) -> (Self, Self) {
                let (start, end) = (*self.range.start(), *self.range.end());
                if index == 0 || self.range.is_empty() {
                    let mut empty = start..=start;
                    empty.next();
                    return (InclusiveProducer { range: empty }, self);
                }
                // `0 < index <= len`, so `mid - 1` is in the range; `mid`
                // is past it only when `index == len`.
                let last = (start as $unsigned).wrapping_add((index - 1) as $unsigned) as $t;
                let mut right = last..=end;
                right.next();
                (InclusiveProducer { range: start..=last }, InclusiveProducer { range: right })
            }
        }

        impl Producer for RangeProducer<$t> {
            type Item = $t;
            type IntoIter = Range<$t>;

            fn into_iter(self) -> Range<$t> {
                self.range
            }

            fn fold_rev_with<F: Folder<$t>>(self, folder: F) -> F {
                folder.consume_iter(self.range.rev())
            }

            fn split_at(self, index: usize) -> (Self, Self) {
                // `index` is at most the length, so this is in the range.
                let mid = (self.range.start as $unsigned).wrapping_add(index as $unsigned) as $t;
                (RangeProducer { range: self.range.start..mid }, RangeProducer { range: mid..self.range.end })
            }
        }
    )*};
}

indexed_range! {
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, usize => usize,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => usize,
}
