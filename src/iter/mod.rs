//! Parallel iterators in rayon's vocabulary: `use stealpool::prelude::*;`
//! and `par_iter()`, `into_par_iter()`, `par_sort()` and the rest work as
//! they do with rayon, on the checked pool.
//!
//! They run on the pool the caller is a worker of, else on the global pool
//! (see [`join`](crate::join)); [`ThreadPool::install`](crate::ThreadPool::install)
//! runs them on a given pool:
//!
//! ```
//! use stealpool::prelude::*;
//!
//! let pool = stealpool::ThreadPool::new(2);
//! let sum: u64 = pool.install(|| (1..=100u64).collect::<Vec<_>>().par_iter().map(|x| x * x).sum());
//! assert_eq!(sum, 338_350);
//! ```
//!
//! Work is split on [`join`](crate::join), adaptively: into about two
//! pieces per worker, and a piece that another worker steals is split
//! again where it lands. A panic in a closure reaches the caller once the
//! other pieces have finished; what was produced is dropped.
//!
//! The [`plumbing`] module has the producer and consumer traits that the
//! iterators are built from.

mod adapters;
mod collect;
mod find;
mod for_each;
pub mod plumbing;
mod range;
mod reduce;
mod slice;
mod string;
mod vec;

pub use adapters::{
    Chunks, Enumerate, Filter, FilterMap, FlatMap, FlatMapIter, Fold, Map, MinLen, Skip, Take, Zip,
};
pub use range::{InclusiveIter as RangeInclusiveIter, Iter as RangeIter};
pub use slice::{
    Chunks as SliceChunks, ChunksMut as SliceChunksMut, Iter as SliceIter, IterMut as SliceIterMut,
    ParallelSlice, ParallelSliceMut, Windows,
};
pub use string::{Lines, ParallelString, SplitWhitespace};
pub use vec::IntoIter as VecIntoIter;

use plumbing::{ProducerCallback, UnindexedConsumer};
use std::iter::{Product, Sum};

/// A parallel iterator: the items of a source, in pieces processed on the
/// pool's workers. Rayon's `ParallelIterator`, with the same methods and
/// meanings.
///
/// ```
/// use stealpool::prelude::*;
///
/// let evens: Vec<u32> = (0..10u32).into_par_iter().filter(|x| x % 2 == 0).collect();
/// assert_eq!(evens, [0, 2, 4, 6, 8]);
/// ```
pub trait ParallelIterator: Sized + Send {
    /// The items produced.
    type Item: Send;

    /// Calls `op` on every item, in parallel, in no particular order.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use stealpool::prelude::*;
    ///
    /// let total = AtomicUsize::new(0);
    /// (0..100usize).into_par_iter().for_each(|i| {
    ///     total.fetch_add(i, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 4_950);
    /// ```
    fn for_each<OP>(self, op: OP)
    where
        OP: Fn(Self::Item) + Sync + Send,
    {
        let op = |_: &mut (), item| op(item);
        let source = for_each::Cloned(());
        self.drive_unindexed(for_each::ForEachConsumer { op: &op, source })
    }

    /// Calls `op` on every item with a `&mut` to a clone of `init`, one
    /// clone per piece: per-piece state such as a channel's sender.
    ///
    /// ```
    /// use std::sync::mpsc::channel;
    /// use stealpool::prelude::*;
    ///
    /// let (sender, receiver) = channel();
    /// (0..5u32).into_par_iter().for_each_with(sender, |s, x| s.send(x).unwrap());
    /// let mut got: Vec<u32> = receiver.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        T: Send + Clone,
    {
        let source = for_each::Cloned(init);
        self.drive_unindexed(for_each::ForEachConsumer { op: &op, source })
    }

    /// Calls `op` on every item with a `&mut` to a value made by `init()`,
    /// once per piece: per-piece state that cannot be cloned or sent, such
    /// as a random number generator or a buffer.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use stealpool::prelude::*;
    ///
    /// let longest = AtomicUsize::new(0);
    /// (0..1_000u32).into_par_iter().for_each_init(String::new, |buffer, x| {
    ///     buffer.clear();
    ///     buffer.push_str(&x.to_string());
    ///     longest.fetch_max(buffer.len(), Ordering::Relaxed);
    /// });
    /// assert_eq!(longest.into_inner(), 3);
    /// ```
    fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        let source = for_each::Init(&init);
        self.drive_unindexed(for_each::ForEachConsumer { op: &op, source })
    }

    /// Applies `map_op` to every item.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let doubled: Vec<i32> = [1, 2, 3].par_iter().map(|x| x * 2).collect();
    /// assert_eq!(doubled, [2, 4, 6]);
    /// ```
    fn map<F, R>(self, map_op: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, map_op)
    }

    /// Copies the items out of their references.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<u8> = [1u8, 2].par_iter().copied().collect();
    /// assert_eq!(v, [1, 2]);
    /// ```
    #[allow(clippy::type_complexity)]
    fn copied<'a, T>(self) -> Map<Self, fn(&'a T) -> T>
    where
        Self: ParallelIterator<Item = &'a T>,
        T: 'a + Copy + Send + Sync,
    {
        Map::new(self, |x: &T| *x)
    }

    /// Clones the items out of their references.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let names = vec![String::from("a"), String::from("b")];
    /// let owned: Vec<String> = names.par_iter().cloned().collect();
    /// assert_eq!(owned, names);
    /// ```
    #[allow(clippy::type_complexity)]
    fn cloned<'a, T>(self) -> Map<Self, fn(&'a T) -> T>
    where
        Self: ParallelIterator<Item = &'a T>,
        T: 'a + Clone + Send + Sync,
    {
        Map::new(self, T::clone)
    }

    /// Keeps the items for which `filter_op` is true.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let odd: Vec<u8> = (0..6u8).into_par_iter().filter(|x| x % 2 == 1).collect();
    /// assert_eq!(odd, [1, 3, 5]);
    /// ```
    fn filter<P>(self, filter_op: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, filter_op)
    }

    /// Maps every item to an `Option` and keeps the `Some`s' values.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let numbers: Vec<i32> = ["1", "x", "3"].par_iter().filter_map(|s| s.parse().ok()).collect();
    /// assert_eq!(numbers, [1, 3]);
    /// ```
    fn filter_map<P, R>(self, filter_op: P) -> FilterMap<Self, P>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        FilterMap::new(self, filter_op)
    }

    /// Maps every item to a parallel iterator and yields their items, in
    /// order; each inner iterator is split on the pool too.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let rows = vec![vec![1, 2], vec![], vec![3]];
    /// let flat: Vec<i32> = rows.par_iter().flat_map(|row| row.par_iter().copied()).collect();
    /// assert_eq!(flat, [1, 2, 3]);
    /// ```
    fn flat_map<F, PI>(self, map_op: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        FlatMap::new(self, map_op)
    }

    /// Maps every item to a sequential iterator and yields their items,
    /// in order.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map_iter(|n| 0..n).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map_iter<F, SI>(self, map_op: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> SI + Sync + Send,
        SI: IntoIterator,
        SI::Item: Send,
    {
        FlatMapIter::new(self, map_op)
    }

    /// Combines the items with `op`, starting every piece from
    /// `identity()`: `op` must be associative and `identity()` its neutral
    /// element. Items are combined in order (`op` need not commute).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let sum = (1..=10u64).into_par_iter().reduce(|| 0, |a, b| a + b);
    /// assert_eq!(sum, 55);
    /// ```
    fn reduce<OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        reduce::reduce(self, identity, op)
    }

    /// [`reduce`](ParallelIterator::reduce) with no identity: `None` for no
    /// items.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!((1..5u32).into_par_iter().reduce_with(|a, b| a * b), Some(24));
    /// assert_eq!((0..0u32).into_par_iter().reduce_with(|a, b| a * b), None);
    /// ```
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        let fold_op = |acc: Option<Self::Item>, item| Some(option_op(&op, acc, item));
        self.fold(|| None, fold_op).reduce(
            || None,
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(op(a, b)),
                (a, b) => a.or(b),
            },
        )
    }

    /// Folds each piece's items into an accumulator started from
    /// `identity()`: a parallel iterator over the accumulators, one per
    /// piece, in order (how many depends on the splitting). Often followed
    /// by [`reduce`](ParallelIterator::reduce).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let words = ["a", "bb", "ccc"];
    /// let letters = words
    ///     .par_iter()
    ///     .fold(String::new, |mut s, w| {
    ///         s.push_str(w);
    ///         s
    ///     })
    ///     .reduce(String::new, |a, b| a + &b);
    /// assert_eq!(letters, "abbccc");
    /// ```
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// The sum of the items (as [`Iterator::sum`]; an overflow panics in
    /// debug builds).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let sum: u64 = (0..1_000u64).into_par_iter().map(|i| i * i).sum();
    /// assert_eq!(sum, 332_833_500);
    /// ```
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        self.drive_unindexed(reduce::SumConsumer::new())
    }

    /// The product of the items (as [`Iterator::product`]).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let factorial: u64 = (1..=10u64).into_par_iter().product();
    /// assert_eq!(factorial, 3_628_800);
    /// ```
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        self.drive_unindexed(reduce::ProductConsumer::new())
    }

    /// The number of items.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!((0..100u32).into_par_iter().filter(|x| x % 3 == 0).count(), 34);
    /// ```
    fn count(self) -> usize {
        self.map(|_| 1usize).sum()
    }

    /// The least item, the first of equal ones, as [`Iterator::min`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!([3, 1, 2].par_iter().min(), Some(&1));
    /// ```
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.reduce_with(std::cmp::min)
    }

    /// The greatest item, the last of equal ones, as [`Iterator::max`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!([3, 1, 2].par_iter().max(), Some(&3));
    /// ```
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.reduce_with(std::cmp::max)
    }

    /// The least item by `f`, the first of equal ones, as
    /// [`Iterator::min_by`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let least = [2.5f64, -1.0, 3.0].par_iter().min_by(|a, b| a.total_cmp(b));
    /// assert_eq!(least, Some(&-1.0));
    /// ```
    fn min_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Sync + Send + Fn(&Self::Item, &Self::Item) -> std::cmp::Ordering,
    {
        self.reduce_with(|a, b| if f(&b, &a).is_lt() { b } else { a })
    }

    /// The greatest item by `f`, the last of equal ones, as
    /// [`Iterator::max_by`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let greatest = [2.5f64, -1.0, 3.0].par_iter().max_by(|a, b| a.total_cmp(b));
    /// assert_eq!(greatest, Some(&3.0));
    /// ```
    fn max_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Sync + Send + Fn(&Self::Item, &Self::Item) -> std::cmp::Ordering,
    {
        self.reduce_with(|a, b| if f(&b, &a).is_ge() { b } else { a })
    }

    /// The item whose key is least, the first of equal ones.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let words = ["pear", "fig", "kiwi", "yam"];
    /// assert_eq!(words.par_iter().min_by_key(|w| w.len()), Some(&"fig"));
    /// ```
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&Self::Item) -> K,
    {
        let keyed = self.map(|item| (f(&item), item));
        let least = keyed.reduce_with(|a, b| if b.0 < a.0 { b } else { a });
        least.map(|(_, item)| item)
    }

    /// The item whose key is greatest, the last of equal ones.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let words = ["pear", "fig", "kiwi", "yam"];
    /// assert_eq!(words.par_iter().max_by_key(|w| w.len()), Some(&"kiwi"));
    /// ```
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&Self::Item) -> K,
    {
        let keyed = self.map(|item| (f(&item), item));
        let greatest = keyed.reduce_with(|a, b| if b.0 >= a.0 { b } else { a });
        greatest.map(|(_, item)| item)
    }

    /// Whether `predicate` holds for some item; stops early once one is
    /// found.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert!((0..usize::MAX).into_par_iter().any(|i| i == 5));
    /// ```
    fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&found| found).is_some()
    }

    /// Whether `predicate` holds for every item; stops early at the first
    /// item found for which it does not.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert!([2, 4, 6].par_iter().all(|x| x % 2 == 0));
    /// ```
    fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&holds| !holds).is_none()
    }

    /// Some item for which `predicate` holds, not necessarily the first;
    /// the search stops everywhere once one is found.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let found = (0..1_000u32).into_par_iter().find_any(|x| x % 100 == 99);
    /// assert_eq!(found.map(|x| x % 100), Some(99));
    /// ```
    fn find_any<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find::find_any(self, predicate)
    }

    /// Collects the items, in order, into a collection: `Vec`, `String`,
    /// `HashMap`, ... (every [`FromParallelIterator`]).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use stealpool::prelude::*;
    ///
    /// let squares: Vec<u32> = (0..5u32).into_par_iter().map(|x| x * x).collect();
    /// assert_eq!(squares, [0, 1, 4, 9, 16]);
    /// let by_name: HashMap<&str, usize> = ["a", "bb"].par_iter().map(|s| (*s, s.len())).collect();
    /// assert_eq!(by_name["bb"], 2);
    /// ```
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }

    /// Splits an iterator of pairs into two collections.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let (small, squares): (Vec<u32>, Vec<u32>) = (0..4u32).into_par_iter().map(|x| (x, x * x)).unzip();
    /// assert_eq!(small, [0, 1, 2, 3]);
    /// assert_eq!(squares, [0, 1, 4, 9]);
    /// ```
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        collect::unzip(self)
    }

    /// Drives every item into `consumer`: the plumbing every method above
    /// is built on.
    ///
    /// ```
    /// use stealpool::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
    /// use stealpool::prelude::*;
    ///
    /// /// Counts the items: each piece counts its own, and counts add up.
    /// struct Count;
    /// struct Add;
    /// struct Counter(usize);
    ///
    /// impl Reducer<usize> for Add {
    ///     fn reduce(self, left: usize, right: usize) -> usize {
    ///         left + right
    ///     }
    /// }
    /// impl<T> Folder<T> for Counter {
    ///     type Result = usize;
    ///     fn consume(self, _item: T) -> Self {
    ///         Counter(self.0 + 1)
    ///     }
    ///     fn complete(self) -> usize {
    ///         self.0
    ///     }
    ///     fn full(&self) -> bool {
    ///         false
    ///     }
    /// }
    /// impl<T> Consumer<T> for Count {
    ///     type Folder = Counter;
    ///     type Reducer = Add;
    ///     type Result = usize;
    ///     fn split_at(self, _index: usize) -> (Self, Self, Add) {
    ///         (Count, Count, Add)
    ///     }
    ///     fn into_folder(self) -> Counter {
    ///         Counter(0)
    ///     }
    ///     fn full(&self) -> bool {
    ///         false
    ///     }
    /// }
    /// impl<T> UnindexedConsumer<T> for Count {
    ///     fn split_off_left(&self) -> Self {
    ///         Count
    ///     }
    ///     fn to_reducer(&self) -> Add {
    ///         Add
    ///     }
    /// }
    ///
    /// let evens = (0..1_000u32).into_par_iter().filter(|x| x % 2 == 0);
    /// assert_eq!(evens.drive_unindexed(Count), 500);
    /// ```
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>;

    /// The number of items, if known before iterating (indexed
    /// iterators). `collect` into a `Vec` then writes the items in place.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!((0..7u8).into_par_iter().opt_len(), Some(7));
    /// assert_eq!((0..7u8).into_par_iter().filter(|_| true).opt_len(), None);
    /// ```
    fn opt_len(&self) -> Option<usize> {
        None
    }
}

/// `op(acc, item)`, or `item` when there is no `acc` yet.
fn option_op<T>(op: &impl Fn(T, T) -> T, acc: Option<T>, item: T) -> T {
    match acc {
        Some(acc) => op(acc, item),
        None => item,
    }
}

/// A parallel iterator whose length is known and whose items can be split
/// at any index: ranges, slices, vectors and the adapters that keep
/// positions (`map`, `enumerate`, `zip`, `chunks`, ...).
///
/// ```
/// use stealpool::prelude::*;
///
/// let v = vec![10, 20, 30];
/// assert_eq!(v.par_iter().enumerate().map(|(i, x)| i * x).sum::<usize>(), 80);
/// ```
// As rayon's: `len` is the plumbing's, an emptiness test would not be.
#[allow(clippy::len_without_is_empty)]
pub trait IndexedParallelIterator: ParallelIterator {
    /// The number of items.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!((3..10u32).into_par_iter().len(), 7);
    /// ```
    fn len(&self) -> usize;

    /// Hands this iterator's [`Producer`](plumbing::Producer) to
    /// `callback`: the plumbing the indexed methods are built on.
    ///
    /// ```
    /// use stealpool::iter::plumbing::{Producer, ProducerCallback};
    /// use stealpool::prelude::*;
    ///
    /// struct First;
    /// impl<T> ProducerCallback<T> for First {
    ///     type Output = Option<T>;
    ///     fn callback<P: Producer<Item = T>>(self, producer: P) -> Option<T> {
    ///         producer.into_iter().next()
    ///     }
    /// }
    /// assert_eq!((5..9u32).into_par_iter().with_producer(First), Some(5));
    /// ```
    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<Self::Item>;

    /// Pairs every item with its index.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<(usize, char)> = ['a', 'b'].par_iter().copied().enumerate().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b')]);
    /// ```
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Pairs the items with those of another indexed iterator, up to the
    /// shorter one's length.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let a = [1, 2, 3];
    /// let b = [10, 20];
    /// let sums: Vec<i32> = a.par_iter().zip(&b).map(|(x, y)| x + y).collect();
    /// assert_eq!(sums, [11, 22]);
    /// ```
    fn zip<Z>(self, zip_op: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, zip_op.into_par_iter())
    }

    /// Groups the items in `Vec`s of `chunk_size` (the last may be shorter).
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let chunks: Vec<Vec<u8>> = (0..5u8).into_par_iter().chunks(2).collect();
    /// assert_eq!(chunks, [vec![0, 1], vec![2, 3], vec![4]]);
    /// ```
    fn chunks(self, chunk_size: usize) -> Chunks<Self> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        Chunks::new(self, chunk_size)
    }

    /// Never splits into pieces shorter than `min` items: for items so
    /// cheap that a `join` per piece would cost more than the piece.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let sum: u64 = (0..10_000u64).into_par_iter().with_min_len(1_000).sum();
    /// assert_eq!(sum, 49_995_000);
    /// ```
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// The first `n` items (all of them if there are fewer).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<u64> = (0..u64::MAX).into_par_iter().take(4).collect();
    /// assert_eq!(v, [0, 1, 2, 3]);
    /// ```
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// All but the first `n` items (none if there are fewer).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!([1, 2, 3].par_iter().skip(1).sum::<i32>(), 5);
    /// ```
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// The index of some item for which `predicate` holds, not
    /// necessarily the first.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!([1, 5, 9].par_iter().position_any(|&x| x == 5), Some(1));
    /// ```
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let found = self.map(predicate).enumerate().find_any(|&(_, holds)| holds);
        found.map(|(i, _)| i)
    }

    /// Collects the items into `target`, replacing its contents, each
    /// written in its place in parallel.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = vec![7];
    /// (0..3u8).into_par_iter().collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        target.clear();
        collect::collect_indexed(self, target);
    }
}

/// A value that can become a parallel iterator: ranges, vectors, slices
/// and references to them, and every parallel iterator.
///
/// ```
/// use stealpool::prelude::*;
///
/// let v = vec![1, 2, 3];
/// let total: i32 = v.into_par_iter().sum();
/// assert_eq!(total, 6);
/// ```
pub trait IntoParallelIterator {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// Turns `self` into a parallel iterator.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!((0..4u32).into_par_iter().map(|x| x * 2).sum::<u32>(), 12);
    /// ```
    fn into_par_iter(self) -> Self::Iter;
}

impl<T: ParallelIterator> IntoParallelIterator for T {
    type Iter = T;
    type Item = T::Item;
    fn into_par_iter(self) -> T {
        self
    }
}

/// `par_iter()`: a parallel iterator over references to the items of a
/// collection, as `iter()` is for a sequential one.
///
/// ```
/// use stealpool::prelude::*;
///
/// let v = vec![1, 2, 3];
/// assert_eq!(v.par_iter().max(), Some(&3));
/// ```
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items, references into `self`.
    type Item: Send + 'data;

    /// A parallel iterator over `&self`'s items.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let words = vec!["a", "bc"];
    /// assert_eq!(words.par_iter().map(|w| w.len()).sum::<usize>(), 3);
    /// ```
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;
    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over mutable references to the
/// items of a collection.
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = vec![1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x *= 10);
/// assert_eq!(v, [10, 20, 30]);
/// ```
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items, mutable references into `self`.
    type Item: Send + 'data;

    /// A parallel iterator over `&mut self`'s items.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [1u8, 2];
    /// v.par_iter_mut().for_each(|x| *x += 1);
    /// assert_eq!(v, [2, 3]);
    /// ```
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;
    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// A collection that [`collect`](ParallelIterator::collect) can build:
/// `Vec<T>`, `String` (from `char`, `&str`, `String`), `HashMap<K, V>`,
/// and `Result<C, E>` or `Option<C>` of any of them.
///
/// ```
/// use stealpool::prelude::*;
///
/// let s: String = ["con", "cat"].par_iter().copied().collect();
/// assert_eq!(s, "concat");
/// let parsed: Result<Vec<u8>, _> = ["1", "2"].par_iter().map(|s| s.parse::<u8>()).collect();
/// assert_eq!(parsed, Ok(vec![1, 2]));
/// let failed: Result<Vec<u8>, _> = ["1", "x"].par_iter().map(|s| s.parse::<u8>()).collect();
/// assert!(failed.is_err());
/// ```
pub trait FromParallelIterator<T: Send> {
    /// Builds the collection from the items, kept in order where the
    /// collection has one.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v = Vec::from_par_iter((0..3u8).into_par_iter());
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>;
}

/// A collection that can be extended by a parallel iterator's items (what
/// [`unzip`](ParallelIterator::unzip) fills).
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = vec![0u8];
/// v.par_extend((1..3u8).into_par_iter());
/// assert_eq!(v, [0, 1, 2]);
/// ```
pub trait ParallelExtend<T: Send> {
    /// Appends the items, in order where the collection has one.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut s = String::from("a");
    /// s.par_extend(['b', 'c'].par_iter().copied());
    /// assert_eq!(s, "abc");
    /// ```
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>;
}
