//! The machinery under the parallel iterators, in rayon's shape: a
//! *producer* is a source that can be split at an index ([`Producer`]) or
//! in two somewhere ([`UnindexedProducer`]); a *consumer* is the rest of
//! the pipeline, split alongside it ([`Consumer`]), which turns each piece
//! into a sequential [`Folder`] and joins the pieces' results with a
//! [`Reducer`]. [`bridge`] and [`bridge_unindexed`] do the splitting, on
//! `join`, adaptively: about two pieces per worker, and a piece that
//! another worker steals is split again there.
//!
//! Users need none of this to use the iterators; it is public so that new
//! sources and adapters can be written outside the crate. One difference
//! from rayon's: [`Producer::IntoIter`] needs only to be an `Iterator`,
//! where rayon's must also be a `DoubleEndedIterator` and an
//! `ExactSizeIterator`. A producer written for rayon works here
//! unchanged, but generic code over `P: Producer` that walks a piece from
//! its back or asks its length does not compile (rayon's
//! `tests/producer_split_at.rs` is such code). A new indexed
//! source is a producer that splits, and two short trait impls:
//!
//! ```
//! use stealpool::iter::plumbing::{bridge, Producer, ProducerCallback, UnindexedConsumer};
//! use stealpool::prelude::*;
//!
//! /// The squares of `start..end`.
//! struct Squares {
//!     start: u64,
//!     end: u64,
//! }
//!
//! impl Producer for Squares {
//!     type Item = u64;
//!     type IntoIter = std::iter::Map<std::ops::Range<u64>, fn(u64) -> u64>;
//!     fn into_iter(self) -> Self::IntoIter {
//!         (self.start..self.end).map(|x| x * x)
//!     }
//!     fn split_at(self, index: usize) -> (Self, Self) {
//!         let mid = self.start + index as u64;
//!         (Squares { start: self.start, end: mid }, Squares { start: mid, end: self.end })
//!     }
//! }
//!
//! impl ParallelIterator for Squares {
//!     type Item = u64;
//!     fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
//!         bridge(self, consumer)
//!     }
//!     fn opt_len(&self) -> Option<usize> {
//!         Some(self.len())
//!     }
//! }
//!
//! impl IndexedParallelIterator for Squares {
//!     fn len(&self) -> usize {
//!         (self.end - self.start) as usize
//!     }
//!     fn with_producer<CB: ProducerCallback<u64>>(self, callback: CB) -> CB::Output {
//!         callback.callback(self)
//!     }
//! }
//!
//! let squares: Vec<u64> = Squares { start: 0, end: 5 }.collect();
//! assert_eq!(squares, [0, 1, 4, 9, 16]);
//! assert_eq!(Squares { start: 0, end: 100 }.enumerate().filter(|(i, s)| *s == (i * i) as u64).count(), 100);
//! ```
//!
//! A new consumer is a folder for one piece, a reducer joining two
//! pieces' results, and the consumer that splits and makes them; this one
//! counts the items, and any parallel iterator can drive it:
//!
//! ```
//! use stealpool::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
//! use stealpool::prelude::*;
//!
//! /// Counts the items: each piece counts its own, and counts add up.
//! struct Count;
//! struct Add;
//! struct Counter(usize);
//!
//! impl Reducer<usize> for Add {
//!     fn reduce(self, left: usize, right: usize) -> usize {
//!         left + right
//!     }
//! }
//! impl<T> Folder<T> for Counter {
//!     type Result = usize;
//!     fn consume(self, _item: T) -> Self {
//!         Counter(self.0 + 1)
//!     }
//!     fn complete(self) -> usize {
//!         self.0
//!     }
//!     fn full(&self) -> bool {
//!         false
//!     }
//! }
//! impl<T> Consumer<T> for Count {
//!     type Folder = Counter;
//!     type Reducer = Add;
//!     type Result = usize;
//!     fn split_at(self, _index: usize) -> (Self, Self, Add) {
//!         (Count, Count, Add)
//!     }
//!     fn into_folder(self) -> Counter {
//!         Counter(0)
//!     }
//!     fn full(&self) -> bool {
//!         false
//!     }
//! }
//! impl<T> UnindexedConsumer<T> for Count {
//!     fn split_off_left(&self) -> Self {
//!         Count
//!     }
//!     fn to_reducer(&self) -> Add {
//!         Add
//!     }
//! }
//!
//! let evens = (0..1_000u32).into_par_iter().filter(|x| x % 2 == 0);
//! assert_eq!(evens.drive_unindexed(Count), 500);
//! ```

use super::IndexedParallelIterator;
use crate::iter::pool::{CurrentPool, OnPool};
use crate::iter::splitter::Splitter;

/// A source of items that can be split at any index: the indexed
/// iterators' sources (slices, ranges, vectors) and adapters over them.
pub trait Producer: Send + Sized {
    /// The items produced.
    type Item;
    /// The sequential iterator over this piece.
    type IntoIter: Iterator<Item = Self::Item>;

    /// This piece, sequentially.
    fn into_iter(self) -> Self::IntoIter;

    /// Pieces are not split below this length (see
    /// [`with_min_len`](super::IndexedParallelIterator::with_min_len)).
    fn min_len(&self) -> usize {
        1
    }

    /// Pieces longer than this are split even when the pool has pieces
    /// enough (see
    /// [`with_max_len`](super::IndexedParallelIterator::with_max_len));
    /// [`min_len`](Producer::min_len) wins where the two disagree.
    ///
    /// ```
    /// use stealpool::iter::plumbing::{Producer, ProducerCallback};
    /// use stealpool::prelude::*;
    ///
    /// struct MaxOf;
    /// impl<T> ProducerCallback<T> for MaxOf {
    ///     type Output = usize;
    ///     fn callback<P: Producer<Item = T>>(self, producer: P) -> usize {
    ///         producer.max_len()
    ///     }
    /// }
    /// assert_eq!((0..9u8).into_par_iter().with_max_len(4).with_producer(MaxOf), 4);
    /// ```
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// Splits into the items before `index` and those from it on.
    fn split_at(self, index: usize) -> (Self, Self);

    /// Feeds this piece's items to `folder`.
    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        folder.consume_iter(self.into_iter())
    }

    /// Feeds this piece's items to `folder` last to first: what
    /// [`rev`](super::IndexedParallelIterator::rev) runs. By default the
    /// piece is collected and then walked backwards; the sources that can
    /// walk backwards (ranges, slices, vectors) and the adapters over them
    /// (`map`, `map_with`, `enumerate`, `chunks`, `chain`, `with_min_len`,
    /// `rev`; `zip` in blocks of a few pairs on the stack) do so without
    /// collecting.
    ///
    /// ```
    /// use stealpool::iter::plumbing::{Folder, Producer, ProducerCallback};
    /// use stealpool::prelude::*;
    ///
    /// struct Items(Vec<u8>);
    /// impl Folder<u8> for Items {
    ///     type Result = Vec<u8>;
    ///     fn consume(mut self, item: u8) -> Self {
    ///         self.0.push(item);
    ///         self
    ///     }
    ///     fn complete(self) -> Vec<u8> {
    ///         self.0
    ///     }
    ///     fn full(&self) -> bool {
    ///         false
    ///     }
    /// }
    /// struct Backwards;
    /// impl ProducerCallback<u8> for Backwards {
    ///     type Output = Vec<u8>;
    ///     fn callback<P: Producer<Item = u8>>(self, producer: P) -> Vec<u8> {
    ///         producer.fold_rev_with(Items(Vec::new())).complete()
    ///     }
    /// }
    /// assert_eq!((1..4u8).into_par_iter().with_producer(Backwards), [3, 2, 1]);
    /// ```
    fn fold_rev_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        let items: Vec<Self::Item> = self.into_iter().collect();
        folder.consume_iter(items.into_iter().rev())
    }
}

/// What receives a [`Producer`] whose type only the source knows: the
/// indexed iterators hand their producer to a callback
/// ([`with_producer`](super::IndexedParallelIterator::with_producer)).
pub trait ProducerCallback<T> {
    /// The callback's result.
    type Output;
    /// Runs with the producer.
    fn callback<P: Producer<Item = T>>(self, producer: P) -> Self::Output;
}

/// A source that can split itself in two, where it likes: strings split
/// at a separator near their middle.
pub trait UnindexedProducer: Send + Sized {
    /// The items produced.
    type Item;
    /// Two halves, or `self` and `None` when it is too small to split.
    fn split(self) -> (Self, Option<Self>);
    /// Feeds this piece's items to `folder`.
    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F;
}

/// The sequential end of a consumer: takes one piece's items in order.
pub trait Folder<Item>: Sized {
    /// What the piece comes to.
    type Result;
    /// Takes one item.
    fn consume(self, item: Item) -> Self;
    /// Takes items until `iter` ends or the folder is [`full`](Folder::full).
    fn consume_iter<I: IntoIterator<Item = Item>>(mut self, iter: I) -> Self {
        for item in iter {
            self = self.consume(item);
            if self.full() {
                break;
            }
        }
        self
    }
    /// The piece's result.
    fn complete(self) -> Self::Result;
    /// Whether more items would change nothing (a search has its answer).
    fn full(&self) -> bool;
}

/// Joins the results of two adjacent pieces, left then right.
pub trait Reducer<Result> {
    /// The result of `left` followed by `right`.
    fn reduce(self, left: Result, right: Result) -> Result;
}

/// The rest of a pipeline, which can be split at an index along with its
/// producer.
pub trait Consumer<Item>: Send + Sized {
    /// Consumes one piece sequentially.
    type Folder: Folder<Item, Result = Self::Result>;
    /// Joins the pieces' results.
    type Reducer: Reducer<Self::Result>;
    /// What the pipeline comes to.
    type Result: Send;
    /// Splits into the consumers of the items before `index` and from it on.
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer);
    /// The folder for a piece that is not split further.
    fn into_folder(self) -> Self::Folder;
    /// Whether more items would change nothing.
    fn full(&self) -> bool;
}

/// A consumer that can also be split where the producer likes, without an
/// index: every consumer but the indexed `collect`'s.
pub trait UnindexedConsumer<Item>: Consumer<Item> {
    /// A consumer for items to the left of all that `self` will consume.
    fn split_off_left(&self) -> Self;
    /// The reducer to join the left part's result with this one's.
    fn to_reducer(&self) -> Self::Reducer;
}

/// Drives the indexed iterator `par_iter` into `consumer`.
pub fn bridge<I, C>(par_iter: I, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    C: Consumer<I::Item>,
{
    let len = par_iter.len();
    return par_iter.with_producer(Callback { len, consumer });

    struct Callback<C> {
        len: usize,
        consumer: C,
    }

    impl<C: Consumer<I>, I> ProducerCallback<I> for Callback<C> {
        type Output = C::Result;
        fn callback<P: Producer<Item = I>>(self, producer: P) -> C::Result {
            bridge_producer_consumer(self.len, producer, self.consumer)
        }
    }
}

/// Splits `producer` (of `len` items) and `consumer` alike on the current
/// pool, adaptively, and reduces the pieces' results in order.
pub fn bridge_producer_consumer<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    CurrentPool.install(|| {
        let splits = Splitter::new(CurrentPool.num_workers());
        let lengths = Lengths {
            min: producer.min_len().max(1),
            max: producer.max_len(),
        };
        indexed(len, splits, lengths, producer, consumer)
    })
}

/// The producer's bounds on the length of a piece.
#[derive(Clone, Copy)]
struct Lengths {
    /// No piece is split into halves shorter than this (at least 1).
    min: usize,
    /// A piece longer than this is split whatever the budget says.
    max: usize,
}

/// [`bridge_producer_consumer`] below the pool's entry.
fn indexed<P, C>(len: usize, splits: Splitter, lengths: Lengths, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    // Both halves at least `min` long; `len / 2` cannot overflow. Past
    // the budget, a piece over `max` is split anyway.
    let halves_fit = len / 2 >= lengths.min;
    let split = match splits.split() {
        Some(halves) => Some(halves),
        None if len > lengths.max => Some(splits.split_anyway()),
        None => None,
    };
    let Some((left, right)) = split.filter(|_| halves_fit) else {
        return producer.fold_with(consumer.into_folder()).complete();
    };
    let mid = len / 2;
    let (left_producer, right_producer) = producer.split_at(mid);
    let (left_consumer, right_consumer, reducer) = consumer.split_at(mid);
    let (left_result, right_result) = CurrentPool.join(
        || indexed(mid, left, lengths, left_producer, left_consumer),
        || indexed(len - mid, right.arrive(), lengths, right_producer, right_consumer),
    );
    reducer.reduce(left_result, right_result)
}

/// Splits an unindexed `producer` and `consumer` on the current pool,
/// adaptively, and reduces the pieces' results in order.
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    CurrentPool.install(|| unindexed(Splitter::new(CurrentPool.num_workers()), producer, consumer))
}

/// [`bridge_unindexed`] below the pool's entry.
fn unindexed<P, C>(splits: Splitter, producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    let Some((left, right)) = splits.split() else {
        return producer.fold_with(consumer.into_folder()).complete();
    };
    let (left_producer, right_producer) = match producer.split() {
        (left_producer, Some(right_producer)) => (left_producer, right_producer),
        (producer, None) => return producer.fold_with(consumer.into_folder()).complete(),
    };
    let reducer = consumer.to_reducer();
    let left_consumer = consumer.split_off_left();
    let (left_result, right_result) = CurrentPool.join(
        || unindexed(left, left_producer, left_consumer),
        || unindexed(right.arrive(), right_producer, consumer),
    );
    reducer.reduce(left_result, right_result)
}
