//! Ranges of integers as parallel iterators: `(0..n).into_par_iter()`;
//! and ranges of `char`, which skip the surrogates. Those of 128-bit
//! integers are not indexed, as rayon's are not.

use super::plumbing::{
    bridge, bridge_producer_consumer, bridge_unindexed, Folder, Producer, ProducerCallback,
    UnindexedConsumer, UnindexedProducer,
};
use super::{once, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::ops::{Range, RangeInclusive};

/// The parallel iterator over a `Range` of integers, from
/// [`into_par_iter`](IntoParallelIterator::into_par_iter).
///
/// Of every integer type, and of `char`. Up to 64 bits it is an
/// [`IndexedParallelIterator`], whose length must fit in `usize` (on
/// 64-bit targets, every such range's does); of `i128` and `u128`, as
/// rayon's, only a [`ParallelIterator`], which may be longer than `usize`
/// counts (`0..u128::MAX` is), and has an [`opt_len`](ParallelIterator::opt_len)
/// only when it is not.
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

// One impl for every `Range<T>`, not one per integer type: the iterator's
// type is then `Iter<T>` before `T` is known, so `(1..10).into_par_iter()
// .chunks(3)` type-checks with an integer literal whose type is fixed later
// (by a `collect::<Vec<Vec<i32>>>()`, or the `i32` fallback), as with
// rayon. One impl per type made the result a projection that method calls
// cannot look into (E0282).
impl<T> IntoParallelIterator for Range<T>
where
    Iter<T>: ParallelIterator,
{
    type Iter = Iter<T>;
    type Item = <Iter<T> as ParallelIterator>::Item;
    fn into_par_iter(self) -> Iter<T> {
        Iter { range: self }
    }
}

// As for `Range`.
impl<T> IntoParallelIterator for RangeInclusive<T>
where
    InclusiveIter<T>: ParallelIterator,
{
    type Iter = InclusiveIter<T>;
    type Item = <InclusiveIter<T> as ParallelIterator>::Item;
    fn into_par_iter(self) -> InclusiveIter<T> {
        InclusiveIter { range: self }
    }
}

macro_rules! indexed_range {
    ($($t:ty => $unsigned:ty),* $(,)?) => {$(
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

    )*};
}

indexed_range! {
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, usize => usize,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => usize,
}

/// The producer of the ranges of integers, and of those of 128-bit
/// integers short enough for `usize`.
macro_rules! range_producer {
    ($($t:ty => $unsigned:ty),* $(,)?) => {$(
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

range_producer! {
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, usize => usize, u128 => u128,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => usize, i128 => u128,
}

// Ranges of 128-bit integers are parallel iterators but not indexed ones,
// as rayon's: their length may pass `usize`. One whose length fits in
// `usize` has it as `opt_len`, and is split by index (so `collect` writes
// in place); a longer one is halved until the pieces are enough.
macro_rules! wide_range {
    ($($t:ty => $unsigned:ty),* $(,)?) => {$(
        impl Iter<$t> {
            /// The number of items, in the unsigned type of the same width.
            fn wide_len(&self) -> $unsigned {
                let Range { start, end } = self.range;
                if start >= end {
                    return 0;
                }
                (end as $unsigned).wrapping_sub(start as $unsigned)
            }
        }

        /// A range of a 128-bit integer type: a parallel iterator, not an
        /// indexed one (its length may not fit in `usize`).
        ///
        /// Searches from the right of one far longer than can be scanned
        /// (`find_last` on `0..u128::MAX`) may not finish: the last piece
        /// is scanned from its start, and is cut finer only where it is
        /// stolen (rayon's own tests expect the end of 10^27 items found).
        ///
        /// ```
        /// use stealpool::prelude::*;
        ///
        #[doc = concat!("let big: ", stringify!($t), " = 1 << 100;")]
        /// let all: stealpool::iter::RangeIter<_> = (0..big).into_par_iter();
        /// assert_eq!(all.opt_len(), None);
        /// assert_eq!((0..big).into_par_iter().find_first(|&x| x > 5), Some(6));
        /// let few: Vec<_> = (big..big + 3).into_par_iter().collect();
        /// assert_eq!(few, [big, big + 1, big + 2]);
        /// ```
        impl ParallelIterator for Iter<$t> {
            type Item = $t;

            fn drive_unindexed<C: UnindexedConsumer<$t>>(self, consumer: C) -> C::Result {
                let len = self.wide_len();
                let range = self.range.start..(self.range.start as $unsigned).wrapping_add(len) as $t;
                match usize::try_from(len) {
                    Ok(len) => bridge_producer_consumer(len, RangeProducer { range }, consumer),
                    Err(_) => bridge_unindexed(RangeProducer { range }, consumer),
                }
            }

            fn opt_len(&self) -> Option<usize> {
                usize::try_from(self.wide_len()).ok()
            }
        }

        impl UnindexedProducer for RangeProducer<$t> {
            type Item = $t;

            fn split(self) -> (Self, Option<Self>) {
                let Range { start, end } = self.range;
                let half = (end as $unsigned).wrapping_sub(start as $unsigned) / 2;
                if half == 0 {
                    return (self, None);
                }
                let mid = (start as $unsigned).wrapping_add(half) as $t;
                (RangeProducer { range: start..mid }, Some(RangeProducer { range: mid..end }))
            }

            fn fold_with<F: Folder<$t>>(self, folder: F) -> F {
                folder.consume_iter(self.range)
            }
        }

        /// An inclusive range of a 128-bit integer type: a parallel
        /// iterator, not an indexed one.
        ///
        /// ```
        /// use stealpool::prelude::*;
        ///
        #[doc = concat!("let top = ", stringify!($t), "::MAX;")]
        /// let last: Vec<_> = (top - 2..=top).into_par_iter().collect();
        /// assert_eq!(last, [top - 2, top - 1, top]);
        /// assert_eq!((top - 2..=top).into_par_iter().opt_len(), Some(3));
        /// ```
        impl ParallelIterator for InclusiveIter<$t> {
            type Item = $t;

            fn drive_unindexed<C: UnindexedConsumer<$t>>(self, consumer: C) -> C::Result {
                let (start, end) = (*self.range.start(), *self.range.end());
                if self.range.is_empty() {
                    return Iter { range: start..start }.drive_unindexed(consumer);
                }
                match end.checked_add(1) {
                    Some(past) => Iter { range: start..past }.drive_unindexed(consumer),
                    // `end` is the type's largest value: the rest, then it.
                    None => Iter { range: start..end }.chain(once(end)).drive_unindexed(consumer),
                }
            }

            fn opt_len(&self) -> Option<usize> {
                if self.range.is_empty() {
                    return Some(0);
                }
                let (start, end) = (*self.range.start(), *self.range.end());
                let distance = (end as $unsigned).wrapping_sub(start as $unsigned);
                usize::try_from(distance).ok()?.checked_add(1)
            }
        }
    )*};
}

wide_range! { u128 => u128, i128 => u128 }

/// The surrogates, which no `char` is: ranges of `char` skip them.
const SURROGATES: std::ops::Range<u32> = 0xD800..0xE000;

/// A `char`'s place among all `char`s (its code point, less the
/// surrogates below it).
fn char_index(c: char) -> u32 {
    let code = u32::from(c);
    if code >= SURROGATES.end {
        code - (SURROGATES.end - SURROGATES.start)
    } else {
        code
    }
}

/// The `char` at a place (see [`char_index`]).
fn char_at(index: u32) -> char {
    let code = if index >= SURROGATES.start {
        index + (SURROGATES.end - SURROGATES.start)
    } else {
        index
    };
    char::from_u32(code).expect("a place below the number of chars")
}

/// The producer of the ranges of `char`: the places `start..end`.
struct CharProducer {
    places: Range<u32>,
}

impl Producer for CharProducer {
    type Item = char;
    type IntoIter = std::iter::Map<Range<u32>, fn(u32) -> char>;

    fn into_iter(self) -> Self::IntoIter {
        self.places.map(char_at as fn(u32) -> char)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        // `index` is at most the length, below 2^21.
        let mid = self.places.start + index as u32;
        (
            CharProducer {
                places: self.places.start..mid,
            },
            CharProducer {
                places: mid..self.places.end,
            },
        )
    }

    fn fold_rev_with<F: Folder<char>>(self, folder: F) -> F {
        folder.consume_iter(self.places.rev().map(char_at))
    }
}

/// A range of `char`, the surrogates skipped, as `Range<char>`'s
/// `Iterator` does.
///
/// ```
/// use stealpool::prelude::*;
///
/// let r: stealpool::iter::RangeIter<char> = ('\u{D7FF}'..'\u{E001}').into_par_iter();
/// assert_eq!(r.collect::<Vec<_>>(), ['\u{D7FF}', '\u{E000}']);
/// ```
impl ParallelIterator for Iter<char> {
    type Item = char;

    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for Iter<char> {
    fn len(&self) -> usize {
        let (start, end) = (char_index(self.range.start), char_index(self.range.end));
        end.saturating_sub(start) as usize
    }

    fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
        let start = char_index(self.range.start);
        let end = char_index(self.range.end).max(start);
        callback.callback(CharProducer { places: start..end })
    }
}

/// An inclusive range of `char`, the surrogates skipped, as
/// `RangeInclusive<char>`'s `Iterator` does.
///
/// ```
/// use stealpool::prelude::*;
///
/// let r: stealpool::iter::RangeInclusiveIter<char> = ('a'..='e').into_par_iter();
/// assert_eq!(r.collect::<String>(), "abcde");
/// ```
impl ParallelIterator for InclusiveIter<char> {
    type Item = char;

    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl InclusiveIter<char> {
    /// The places of the range's `char`s.
    fn places(&self) -> Range<u32> {
        if self.range.is_empty() {
            return 0..0;
        }
        char_index(*self.range.start())..char_index(*self.range.end()) + 1
    }
}

impl IndexedParallelIterator for InclusiveIter<char> {
    fn len(&self) -> usize {
        self.places().len()
    }

    fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
        callback.callback(CharProducer {
            places: self.places(),
        })
    }
}
