//! Draining a collection in parallel: [`ParallelDrainRange`] for `Vec`,
//! `VecDeque` and `String`, [`ParallelDrainFull`] for `BinaryHeap`,
//! `HashMap` and `HashSet`.
//!
//! The items are moved out of the collection first, sequentially, into a
//! `Vec` that the parallel iterator then hands out as
//! [`VecIntoIter`](super::VecIntoIter) does: the collection is left as
//! its own `drain` leaves it as soon as `par_drain` returns, whether or
//! not the iterator is then run, and no item is ever in two places.
//! Rayon's `Vec` drain moves the items out in parallel, in place; this
//! one costs a sequential move of the range first.

use super::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator, VecIntoIter};
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;
use std::ops::RangeBounds;

/// The iterator of [`par_drain`](ParallelDrainRange::par_drain): the items
/// drained, in the collection's order (a `HashMap`'s or `HashSet`'s
/// order, a `BinaryHeap`'s arbitrary one).
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = vec![1, 2, 3, 4];
/// let d: stealpool::iter::Drain<'_, i32> = v.par_drain(1..3);
/// assert_eq!(d.collect::<Vec<_>>(), [2, 3]);
/// assert_eq!(v, [1, 4]);
/// ```
#[derive(Debug)]
pub struct Drain<'a, T> {
    items: VecIntoIter<T>,
    /// The collection stays borrowed while its items are handed out, as
    /// with rayon's.
    collection: PhantomData<&'a mut T>,
}

impl<T: Send> Drain<'_, T> {
    fn new(items: Vec<T>) -> Self {
        Drain {
            items: items.into_par_iter(),
            collection: PhantomData,
        }
    }
}

impl<T: Send> ParallelIterator for Drain<'_, T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.items.drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.items.opt_len()
    }
}

impl<T: Send> IndexedParallelIterator for Drain<'_, T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.items.drive(consumer)
    }

    fn len(&self) -> usize {
        self.items.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        self.items.with_producer(callback)
    }
}

/// A range of a collection drained in parallel: rayon's
/// `ParallelDrainRange`.
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut s = String::from("héllo");
/// let chars: Vec<char> = s.par_drain(1..3).collect();
/// assert_eq!((chars, s.as_str()), (vec!['é'], "hllo"));
/// ```
pub trait ParallelDrainRange<Idx = usize> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The items.
    type Item: Send;

    /// Removes the items of `range` and hands them out in parallel, as
    /// the collection's `drain` does sequentially.
    ///
    /// # Panics
    ///
    /// Where the collection's `drain` does: a range out of bounds, or (a
    /// `String`'s) not on character boundaries.
    ///
    /// ```
    /// use std::collections::VecDeque;
    /// use stealpool::prelude::*;
    ///
    /// let mut q: VecDeque<u8> = (0..10).collect();
    /// assert_eq!(q.par_drain(..5).sum::<u8>(), 10);
    /// assert_eq!(q.len(), 5);
    /// ```
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

impl<'a, T: Send> ParallelDrainRange for &'a mut Vec<T> {
    type Iter = Drain<'a, T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'a, T> {
        Drain::new(self.drain(range).collect())
    }
}

impl<'a, T: Send> ParallelDrainRange for &'a mut VecDeque<T> {
    type Iter = Drain<'a, T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'a, T> {
        Drain::new(self.drain(range).collect())
    }
}

impl<'a> ParallelDrainRange for &'a mut String {
    type Iter = Drain<'a, char>;
    type Item = char;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'a, char> {
        Drain::new(self.drain(range).collect())
    }
}

/// A whole collection drained in parallel: rayon's `ParallelDrainFull`.
///
/// ```
/// use std::collections::HashMap;
/// use stealpool::prelude::*;
///
/// let mut m: HashMap<u8, u8> = (0..10).map(|k| (k, k * 2)).collect();
/// assert_eq!(m.par_drain().map(|(_, v)| u32::from(v)).sum::<u32>(), 90);
/// assert!(m.is_empty());
/// ```
pub trait ParallelDrainFull {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The items.
    type Item: Send;

    /// Removes every item and hands them out in parallel, as the
    /// collection's `drain` does sequentially.
    ///
    /// ```
    /// use std::collections::BinaryHeap;
    /// use stealpool::prelude::*;
    ///
    /// let mut heap: BinaryHeap<u8> = (0..10).collect();
    /// assert_eq!(heap.par_drain().count(), 10);
    /// assert!(heap.is_empty());
    /// ```
    fn par_drain(self) -> Self::Iter;
}

impl<'a, T: Send> ParallelDrainFull for &'a mut BinaryHeap<T> {
    type Iter = Drain<'a, T>;
    type Item = T;

    fn par_drain(self) -> Drain<'a, T> {
        Drain::new(self.drain().collect())
    }
}

impl<'a, K, V, S> ParallelDrainFull for &'a mut HashMap<K, V, S>
where
    K: Eq + Hash + Send,
    V: Send,
    S: BuildHasher,
{
    type Iter = Drain<'a, (K, V)>;
    type Item = (K, V);

    fn par_drain(self) -> Drain<'a, (K, V)> {
        Drain::new(self.drain().collect())
    }
}

impl<'a, T, S> ParallelDrainFull for &'a mut HashSet<T, S>
where
    T: Eq + Hash + Send,
    S: BuildHasher,
{
    type Iter = Drain<'a, T>;
    type Item = T;

    fn par_drain(self) -> Drain<'a, T> {
        Drain::new(self.drain().collect())
    }
}
