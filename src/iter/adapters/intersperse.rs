//! [`Intersperse`]: a separator between every two items.
//!
//! Indexed, a piece knows where its items fall, so it is a producer whose
//! pieces may start or end with a separator. Unindexed (after `filter`,
//! over a string), a piece may come out empty, so no piece can know
//! whether an item comes before its own first one: each piece puts
//! separators between its own items, and the one between two pieces is
//! fed, when their results are joined, to a consumer split off for it,
//! if both pieces had items.

use crate::iter::plumbing::{Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::intersperse`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let i: stealpool::iter::Intersperse<_> = (1..4u8).into_par_iter().intersperse(0);
/// assert_eq!(i.collect::<Vec<_>>(), [1, 0, 2, 0, 3]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Intersperse<I: ParallelIterator> {
    base: I,
    separator: I::Item,
}

impl<I: ParallelIterator> Intersperse<I> {
    pub(crate) fn new(base: I, separator: I::Item) -> Self {
        Intersperse { base, separator }
    }
}

/// How many items `n` items come to with separators between them, if
/// that fits in a `usize`.
fn interspersed(n: usize) -> Option<usize> {
    match n {
        0 => Some(0),
        n => n.checked_add(n - 1),
    }
}

impl<I> ParallelIterator for Intersperse<I>
where
    I: ParallelIterator<Item: Clone>,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let consumer = SeparatingConsumer {
            base: consumer,
            separator: self.separator,
            len: self.base.opt_len(),
        };
        self.base.drive_unindexed(consumer).0
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len().and_then(interspersed)
    }
}

impl<I> IndexedParallelIterator for Intersperse<I>
where
    I: IndexedParallelIterator<Item: Clone>,
{
    /// # Panics
    ///
    /// If the items and separators are more than `usize::MAX`.
    fn len(&self) -> usize {
        interspersed(self.base.len()).expect("intersperse: the length overflows usize")
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        return self.base.with_producer(Callback {
            callback,
            separator: self.separator,
            len,
        });

        struct Callback<CB, T> {
            callback: CB,
            separator: T,
            len: usize,
        }

        impl<CB, T> ProducerCallback<T> for Callback<CB, T>
        where
            CB: ProducerCallback<T>,
            T: Clone + Send,
        {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(SeparatedPiece {
                    base,
                    separator: self.separator,
                    len: self.len,
                    separator_first: false,
                    separator_last: false,
                })
            }
        }
    }
}

/// [`Intersperse`]'s producer: `len` items of the base with separators
/// between them, and one before the first if `separator_first`, one
/// after the last if `separator_last` (never both when `len` is 0: such a
/// piece is one separator).
struct SeparatedPiece<P, T> {
    base: P,
    separator: T,
    len: usize,
    separator_first: bool,
    separator_last: bool,
}

impl<P, T> Producer for SeparatedPiece<P, T>
where
    P: Producer<Item = T>,
    T: Clone + Send,
{
    type Item = T;
    type IntoIter = SeparatedIter<P::IntoIter, T>;

    fn into_iter(self) -> Self::IntoIter {
        SeparatedIter {
            base: self.base.into_iter(),
            separator: self.separator,
            left: self.len,
            separator_next: self.separator_first,
            separator_last: self.separator_last && self.len > 0,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let first = usize::from(self.separator_first);
        if index < first + 1 {
            // Nothing, or the leading separator alone, on the left.
            let (left_base, right_base) = self.base.split_at(0);
            let left = SeparatedPiece {
                base: left_base,
                separator: self.separator.clone(),
                len: 0,
                separator_first: index == 1,
                separator_last: false,
            };
            let right = SeparatedPiece {
                base: right_base,
                separator_first: self.separator_first && index == 0,
                ..self
            };
            return (left, right);
        }
        // Past the leading separator, item j is at 2j and the separator
        // after it at 2j + 1.
        let at = index - first;
        let left_len = at.div_ceil(2);
        let right_len = self.len - left_len;
        let (left_base, right_base) = self.base.split_at(left_len);
        let left = SeparatedPiece {
            base: left_base,
            separator: self.separator.clone(),
            len: left_len,
            separator_first: self.separator_first,
            separator_last: at % 2 == 0,
        };
        let right = SeparatedPiece {
            base: right_base,
            separator: self.separator,
            len: right_len,
            separator_first: at % 2 == 1,
            separator_last: right_len > 0 && self.separator_last,
        };
        (left, right)
    }
}

/// A piece of [`Intersperse`], sequentially.
struct SeparatedIter<I, T> {
    base: I,
    separator: T,
    /// The base's items still to come.
    left: usize,
    separator_next: bool,
    /// Whether a separator follows the base's last item.
    separator_last: bool,
}

impl<I: Iterator<Item = T>, T: Clone> Iterator for SeparatedIter<I, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.separator_next {
            self.separator_next = false;
            return Some(self.separator.clone());
        }
        if self.left == 0 {
            return None;
        }
        let item = self.base.next()?;
        self.left -= 1;
        self.separator_next = self.left > 0 || std::mem::take(&mut self.separator_last);
        Some(item)
    }
}

/// [`Intersperse`]'s consumer, unindexed: `len` is the number of the
/// base's items its piece will get, when the base knows it.
struct SeparatingConsumer<C, T> {
    base: C,
    separator: T,
    len: Option<usize>,
}

impl<C, T> Consumer<T> for SeparatingConsumer<C, T>
where
    C: Consumer<T>,
    T: Clone + Send,
{
    type Folder = SeparatingFolder<C::Folder, T>;
    type Reducer = JoiningReducer<C::Reducer, C, T>;
    /// The result, and whether the piece had items.
    type Result = (C::Result, bool);

    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        // Where the base's split falls among the items and separators.
        let left_items = index.saturating_add(index.saturating_sub(1));
        let (joint_items, left_len, right_len) = match self.len {
            Some(len) => (
                usize::from(index > 0 && index < len),
                Some(index),
                Some(len - index),
            ),
            None => (1, None, None),
        };
        let (left, rest, outer) = self.base.split_at(left_items);
        let (joint, right, inner) = rest.split_at(joint_items);
        (
            SeparatingConsumer {
                base: left,
                separator: self.separator.clone(),
                len: left_len,
            },
            SeparatingConsumer {
                base: right,
                separator: self.separator.clone(),
                len: right_len,
            },
            JoiningReducer {
                outer,
                inner,
                joint,
                separator: self.separator,
            },
        )
    }

    fn into_folder(self) -> Self::Folder {
        SeparatingFolder {
            base: self.base.into_folder(),
            separator: self.separator,
            started: false,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<C, T> UnindexedConsumer<T> for SeparatingConsumer<C, T>
where
    C: UnindexedConsumer<T>,
    T: Clone + Send,
{
    fn split_off_left(&self) -> Self {
        SeparatingConsumer {
            base: self.base.split_off_left(),
            separator: self.separator.clone(),
            len: None,
        }
    }

    fn to_reducer(&self) -> Self::Reducer {
        // The joint's place is set by the reduction's order, as every
        // split-off consumer's is.
        JoiningReducer {
            outer: self.base.to_reducer(),
            inner: self.base.to_reducer(),
            joint: self.base.split_off_left(),
            separator: self.separator.clone(),
        }
    }
}

/// A piece's folder: a separator before each item but the piece's first.
struct SeparatingFolder<F, T> {
    base: F,
    separator: T,
    started: bool,
}

impl<F: Folder<T>, T: Clone> Folder<T> for SeparatingFolder<F, T> {
    type Result = (F::Result, bool);

    fn consume(mut self, item: T) -> Self {
        if self.started {
            self.base = self.base.consume(self.separator.clone());
        }
        self.base = self.base.consume(item);
        self.started = true;
        self
    }

    fn complete(self) -> (F::Result, bool) {
        (self.base.complete(), self.started)
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

/// Joins two pieces' results with the joint's between them: the joint
/// gets the separator if both pieces had items.
struct JoiningReducer<R, C, T> {
    outer: R,
    inner: R,
    joint: C,
    separator: T,
}

impl<R, C, T> Reducer<(C::Result, bool)> for JoiningReducer<R, C, T>
where
    R: Reducer<C::Result>,
    C: Consumer<T, Reducer = R>,
{
    fn reduce(self, left: (C::Result, bool), right: (C::Result, bool)) -> (C::Result, bool) {
        let mut joint = self.joint.into_folder();
        if left.1 && right.1 {
            joint = joint.consume(self.separator);
        }
        let joined = self.inner.reduce(joint.complete(), right.0);
        (self.outer.reduce(left.0, joined), left.1 || right.1)
    }
}
