//! The sources that are not collections: [`empty`], [`once`],
//! [`repeat`] and [`repeat_n`] (also by rayon's older name, [`repeatn`]).

use super::adapters::Zip;
use super::plumbing::UnindexedProducer;
use super::plumbing::{bridge, bridge_unindexed, Folder, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::marker::PhantomData;

/// A parallel iterator with no items, as [`std::iter::empty`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let none: Vec<u8> = stealpool::iter::empty().collect();
/// assert!(none.is_empty());
/// assert_eq!(stealpool::iter::empty::<u32>().chain(0..3u32).sum::<u32>(), 3);
/// ```
pub fn empty<T: Send>() -> Empty<T> {
    Empty(PhantomData)
}

/// The iterator of [`empty`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let e: stealpool::iter::Empty<u8> = stealpool::iter::empty();
/// assert_eq!(e.len(), 0);
/// ```
pub struct Empty<T>(PhantomData<fn() -> T>);

impl<T> Clone for Empty<T> {
    fn clone(&self) -> Self {
        Empty(PhantomData)
    }
}

impl<T> std::fmt::Debug for Empty<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Empty")
    }
}

impl<T: Send> ParallelIterator for Empty<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        consumer.into_folder().complete()
    }

    fn opt_len(&self) -> Option<usize> {
        Some(0)
    }
}

impl<T: Send> IndexedParallelIterator for Empty<T> {
    fn len(&self) -> usize {
        0
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(self)
    }
}

impl<T: Send> Producer for Empty<T> {
    type Item = T;
    type IntoIter = std::iter::Empty<T>;

    fn into_iter(self) -> Self::IntoIter {
        std::iter::empty()
    }

    fn split_at(self, _index: usize) -> (Self, Self) {
        (empty(), empty())
    }
}

/// A parallel iterator with one item, as [`std::iter::once`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let v: Vec<u32> = stealpool::iter::once(7).chain(0..2u32).collect();
/// assert_eq!(v, [7, 0, 1]);
/// ```
pub fn once<T: Send>(item: T) -> Once<T> {
    Once { item: Some(item) }
}

/// The iterator of [`once`]; its producer is itself, holding its item or
/// none once split off.
///
/// ```
/// use stealpool::prelude::*;
///
/// let o: stealpool::iter::Once<char> = stealpool::iter::once('x');
/// assert_eq!(o.len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Once<T> {
    item: Option<T>,
}

impl<T: Send> ParallelIterator for Once<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<T: Send> IndexedParallelIterator for Once<T> {
    fn len(&self) -> usize {
        usize::from(self.item.is_some())
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(self)
    }
}

impl<T: Send> Producer for Once<T> {
    type Item = T;
    type IntoIter = std::option::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.item.into_iter()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let none = Once { item: None };
        if index == 0 {
            (none, self)
        } else {
            (self, none)
        }
    }
}

/// An endless parallel iterator of clones of `element`, as
/// [`std::iter::repeat`]: for a consumer that stops (`find_any`,
/// `take_any`), or to [`zip`](Repeat::zip) with an indexed iterator, or
/// made finite with [`take`](Repeat::take).
///
/// ```
/// use stealpool::prelude::*;
///
/// let v: Vec<(char, u8)> = stealpool::iter::repeat('x').zip(0..3u8).collect();
/// assert_eq!(v, [('x', 0), ('x', 1), ('x', 2)]);
/// assert_eq!(stealpool::iter::repeat(1u8).take_any(100).count(), 100);
/// ```
pub fn repeat<T: Clone + Send>(element: T) -> Repeat<T> {
    Repeat { element }
}

/// The iterator of [`repeat`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let r: stealpool::iter::Repeat<u8> = stealpool::iter::repeat(3);
/// assert_eq!(r.take(4).sum::<u8>(), 12);
/// ```
#[derive(Clone, Debug)]
pub struct Repeat<T> {
    element: T,
}

impl<T: Clone + Send> Repeat<T> {
    /// The first `n` clones: an indexed iterator.
    ///
    /// ```
    /// let v: Vec<u8> = stealpool::prelude::ParallelIterator::collect(stealpool::iter::repeat(5).take(2));
    /// assert_eq!(v, [5, 5]);
    /// ```
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeat_n(self.element, n)
    }

    /// Pairs a clone with every item of an indexed iterator.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let sums: Vec<u32> = stealpool::iter::repeat(10).zip(vec![1, 2]).map(|(a, b)| a + b).collect();
    /// assert_eq!(sums, [11, 12]);
    /// ```
    pub fn zip<Z>(self, zip_op: Z) -> Zip<RepeatN<T>, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = zip_op.into_par_iter();
        let n = other.len();
        self.take(n).zip(other)
    }
}

impl<T: Clone + Send> ParallelIterator for Repeat<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            RepeatProducer {
                element: self.element,
            },
            consumer,
        )
    }
}

/// [`Repeat`]'s producer: splits as long as the pool's budget lasts.
struct RepeatProducer<T> {
    element: T,
}

impl<T: Clone + Send> UnindexedProducer for RepeatProducer<T> {
    type Item = T;

    fn split(self) -> (Self, Option<Self>) {
        let other = RepeatProducer {
            element: self.element.clone(),
        };
        (self, Some(other))
    }

    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        folder.consume_iter(std::iter::repeat(self.element))
    }
}

/// `n` clones of `element`, an indexed parallel iterator, as
/// [`std::iter::repeat_n`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let v: Vec<String> = stealpool::iter::repeat_n(String::from("ab"), 3).collect();
/// assert_eq!(v, ["ab", "ab", "ab"]);
/// ```
pub fn repeat_n<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    RepeatN {
        element: (n > 0).then_some(element),
        count: n,
    }
}

/// [`repeat_n`] under the name rayon gave it first.
///
/// ```
/// use stealpool::prelude::*;
///
/// assert_eq!(stealpool::iter::repeatn(2u8, 4).sum::<u8>(), 8);
/// ```
pub fn repeatn<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    repeat_n(element, n)
}

/// The iterator of [`repeat_n`]; its producer is itself.
///
/// ```
/// use stealpool::prelude::*;
///
/// let r: stealpool::iter::RepeatN<u8> = stealpool::iter::repeat_n(1, 5);
/// assert_eq!(r.len(), 5);
/// ```
#[derive(Clone, Debug)]
pub struct RepeatN<T> {
    /// `None` when `count` is 0.
    element: Option<T>,
    count: usize,
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.count)
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    fn len(&self) -> usize {
        self.count
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(self)
    }
}

impl<T: Clone + Send> Producer for RepeatN<T> {
    type Item = T;
    type IntoIter = std::iter::Flatten<std::option::IntoIter<std::iter::RepeatN<T>>>;

    fn into_iter(self) -> Self::IntoIter {
        // An empty piece holds no element.
        let count = self.count;
        self.element
            .map(|element| std::iter::repeat_n(element, count))
            .into_iter()
            .flatten()
    }

    fn fold_rev_with<F: Folder<T>>(self, folder: F) -> F {
        // Every item is the same: backwards is forwards.
        Producer::fold_with(self, folder)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let left = RepeatN {
            element: self.element.clone().filter(|_| index > 0),
            count: index,
        };
        let right = RepeatN {
            element: self.element.filter(|_| self.count > index),
            count: self.count - index,
        };
        (left, right)
    }
}
