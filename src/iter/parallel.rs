//! [`ParallelIterator`], the trait of every parallel iterator, and its
//! methods: each builds an adapter (`adapters/`) or drives a consumer
//! (`collect.rs`, `find.rs`, `for_each.rs`, `reduce.rs`).

use super::adapters::{
    Chain, Filter, FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter, Fold, FoldWith, Inspect,
    Intersperse, Map, MapInit, MapWith, PanicFuse, SkipAny, SkipAnyWhile, TakeAny, TakeAnyWhile, TryFold,
    TryFoldWith, Update, WhileSome,
};
use super::plumbing::UnindexedConsumer;
use super::try_reduce::{self, Try};
use super::Either;
use super::{collect, find, find_first_last, for_each, reduce};
use super::{FromParallelIterator, IntoParallelIterator, ParallelExtend};
use std::collections::LinkedList;
use std::iter::{Product, Sum};

/// A parallel iterator: the items of a source, in pieces processed on the
/// pool's workers. Rayon's `ParallelIterator`, with the same methods and meanings.
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
    /// (0..100usize).into_par_iter().for_each(|i| _ = total.fetch_add(i, Ordering::Relaxed));
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
    ///     (buffer.clear(), buffer.push_str(&x.to_string()));
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

    /// [`map`](ParallelIterator::map) with a `&mut` to a clone of `init`, one clone per piece.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<u32> = (0..3u32).into_par_iter().map_with(5u32, |five, x| x * *five).collect();
    /// assert_eq!(v, [0, 5, 10]);
    /// ```
    fn map_with<F, T, R>(self, init: T, map_op: F) -> MapWith<Self, T, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Send,
    {
        MapWith::new(self, init, map_op)
    }

    /// [`map`](ParallelIterator::map) with a `&mut` to a value made by
    /// `init()` once per piece (a buffer, a random number generator).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let digits = (8..11u32).into_par_iter().map_init(String::new, |s, x| {
    ///     (s.clear(), s.push_str(&x.to_string()));
    ///     s.len()
    /// });
    /// assert_eq!(digits.collect::<Vec<_>>(), [1, 1, 2]);
    /// ```
    fn map_init<F, INIT, T, R>(self, init: INIT, map_op: F) -> MapInit<Self, INIT, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        MapInit::new(self, init, map_op)
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

    /// Maps every item to a sequential iterator and yields their items, in order.
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

    /// [`reduce`](ParallelIterator::reduce) with no identity: `None` for no items.
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
        reduce::reduce_with(self, op)
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
    /// let letters = words.par_iter().fold(String::new, |s, w| s + w).reduce(String::new, |a, b| a + &b);
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

    /// [`fold`](ParallelIterator::fold) from a clone of `init` in every piece.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let longest = ["a", "ccc", "bb"].par_iter().fold_with(0usize, |n, s| n.max(s.len())).max();
    /// assert_eq!(longest, Some(3));
    /// ```
    fn fold_with<F, T>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Clone,
    {
        FoldWith::new(self, init, fold_op)
    }

    /// The sum of the items (as [`Iterator::sum`]; an overflow panics in debug builds).
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

    /// The least item by `f`, the first of equal ones, as [`Iterator::min_by`].
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

    /// The greatest item by `f`, the last of equal ones, as [`Iterator::max_by`].
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
        reduce::by_key(self, f, |a, b| b < a)
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
        reduce::by_key(self, f, |a, b| b >= a)
    }

    /// Whether `predicate` holds for some item; stops early once one is found.
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

    /// The first item in order for which `predicate` holds; pieces after
    /// one that found an item stop.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!((1..1_000u32).into_par_iter().find_first(|x| x % 7 == 0), Some(7));
    /// ```
    fn find_first<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find_first_last::find_first(self, predicate)
    }

    /// The last item in order for which `predicate` holds.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!((1..1_000u32).into_par_iter().find_last(|x| x % 7 == 0), Some(994));
    /// ```
    fn find_last<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find_first_last::find_last(self, predicate)
    }

    /// The items of `self`, then those of `chain`; indexed if both are.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<u8> = (0..2u8).into_par_iter().chain(vec![9, 8]).collect();
    /// assert_eq!(v, [0, 1, 9, 8]);
    /// ```
    fn chain<C>(self, chain: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, chain.into_par_iter())
    }

    /// The `Some` values, up to a `None`: once any piece meets a `None`,
    /// every piece stops (which items came before it is not fixed).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let total: u32 = (0..100u32).into_par_iter().map(|x| (x != 50).then_some(1)).while_some().sum();
    /// assert!(total <= 99);
    /// ```
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
    }

    /// Calls `op` on every item until one call short-circuits (returns
    /// `None`, `Err` or `Break`); then every piece stops, and that value
    /// is returned (some such value, when several pieces short-circuit).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let ok: Result<(), u32> = (0..100u32).into_par_iter().try_for_each(|x| if x < 100 { Ok(()) } else { Err(x) });
    /// assert_eq!(ok, Ok(()));
    /// let err = (0..100u32).into_par_iter().try_for_each(|x| if x % 10 != 7 { Ok(()) } else { Err(x) });
    /// assert_eq!(err.map_err(|x| x % 10), Err(7));
    /// ```
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map(op).try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// [`try_for_each`](ParallelIterator::try_for_each) with a `&mut` to a
    /// clone of `init`, one clone per piece.
    ///
    /// ```
    /// use std::sync::mpsc::channel;
    /// use stealpool::prelude::*;
    ///
    /// let (sender, receiver) = channel();
    /// let sent = (0..5u32).into_par_iter().try_for_each_with(sender, |s, x| s.send(x));
    /// assert!(sent.is_ok());
    /// assert_eq!(receiver.iter().count(), 5);
    /// ```
    fn try_for_each_with<OP, T, R>(self, init: T, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Try<Output = ()> + Send,
    {
        self.map_with(init, op)
            .try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// [`try_for_each`](ParallelIterator::try_for_each) with a `&mut` to a
    /// value made by `init()` once per piece.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let parsed = ["1", "22", "x"].par_iter().try_for_each_init(String::new, |buffer, s| {
    ///     buffer.clear();
    ///     buffer.push_str(s);
    ///     buffer.parse::<u32>().map(|_| ())
    /// });
    /// assert!(parsed.is_err());
    /// ```
    fn try_for_each_init<OP, INIT, T, R>(self, init: INIT, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_init(init, op)
            .try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// [`reduce`](ParallelIterator::reduce) over items that may
    /// short-circuit (`Option`, `Result`, `ControlFlow`): the first one
    /// met that does, or the combination of the successes; every piece
    /// stops once one short-circuits.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let sum = (0..100u8).into_par_iter().map(Some).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(sum, None); // 4 950 does not fit a u8
    /// let sum = (0..10u8).into_par_iter().map(Some).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(sum, Some(45));
    /// ```
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        try_reduce::try_reduce(self, identity, op)
    }

    /// [`try_reduce`](ParallelIterator::try_reduce) with no identity:
    /// `None` for no items.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let product = (1..6u32).into_par_iter().map(Ok::<u32, ()>).try_reduce_with(|a, b| Ok(a * b));
    /// assert_eq!(product, Some(Ok(120)));
    /// assert_eq!((0..0u32).into_par_iter().map(Some).try_reduce_with(|a, b| Some(a + b)), None);
    /// ```
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        try_reduce::try_reduce_with(self, op)
    }

    /// [`fold`](ParallelIterator::fold) that may short-circuit: each
    /// piece folds until `fold_op` returns `None`, `Err` or `Break`, which
    /// becomes that piece's item; often followed by
    /// [`try_reduce`](ParallelIterator::try_reduce).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let total = (0..1_000u32)
    ///     .into_par_iter()
    ///     .try_fold(|| 0u32, |a, x| a.checked_add(x))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(total, Some(499_500));
    /// ```
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, R, ID, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// [`try_fold`](ParallelIterator::try_fold) from a clone of `init` in
    /// every piece.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let lengths = ["a", "bb", "ccc"].par_iter().try_fold_with(0usize, |n, s| n.checked_add(s.len()));
    /// assert_eq!(lengths.try_reduce(|| 0, |a, b| a.checked_add(b)), Some(6));
    /// ```
    fn try_fold_with<F, T, R>(self, init: T, fold_op: F) -> TryFoldWith<Self, R, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send,
    {
        TryFoldWith::new(self, init, fold_op)
    }

    /// The items of the items, which are themselves parallel iterators
    /// (or become them); each is split on the pool too.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let grid = vec![vec![1, 2], vec![3]];
    /// assert_eq!(grid.into_par_iter().flatten().sum::<i32>(), 6);
    /// ```
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// The items of the items, which are sequential iterators (or become
    /// them): each runs in one piece.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let words: Vec<char> = ["ab", "c"].par_iter().map(|s| s.chars()).flatten_iter().collect();
    /// assert_eq!(words, ['a', 'b', 'c']);
    /// ```
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator<Item: Send>,
    {
        FlattenIter::new(self)
    }

    /// A clone of `element` between every two items.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let s: String = "a b c".par_split(' ').intersperse(", ").collect();
    /// assert_eq!(s, "a, b, c");
    /// let v: Vec<i32> = vec![1, 2, 3].into_par_iter().intersperse(-1).collect();
    /// assert_eq!(v, [1, -1, 2, -1, 3]);
    /// ```
    fn intersperse(self, element: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone,
    {
        Intersperse::new(self, element)
    }

    /// Calls `inspect_op` on a reference to every item as it passes.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use stealpool::prelude::*;
    ///
    /// let odd = AtomicU32::new(0);
    /// let v: Vec<u32> = (0..9u32).into_par_iter().inspect(|x| _ = odd.fetch_add(x % 2, Ordering::Relaxed)).collect();
    /// assert_eq!((v.len(), odd.into_inner()), (9, 4));
    /// ```
    fn inspect<OP>(self, inspect_op: OP) -> Inspect<Self, OP>
    where
        OP: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(self, inspect_op)
    }

    /// Calls `update_op` on a `&mut` to every item as it passes.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<String> = ["a", "b"].par_iter().map(|s| s.to_string()).update(|s| s.push('!')).collect();
    /// assert_eq!(v, ["a!", "b!"]);
    /// ```
    fn update<F>(self, update_op: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(self, update_op)
    }

    /// `map_op`'s first `Some` value of some item, not necessarily the
    /// first; the search stops everywhere once one is found.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let number = ["x", "12", "y"].par_iter().find_map_any(|s| s.parse::<u32>().ok());
    /// assert_eq!(number, Some(12));
    /// ```
    fn find_map_any<P, R>(self, map_op: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(map_op).find_any(|_| true)
    }

    /// The `Some` value of `map_op` for the first item in order that has one.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let number = ["x", "12", "7"].par_iter().find_map_first(|s| s.parse::<u32>().ok());
    /// assert_eq!(number, Some(12));
    /// ```
    fn find_map_first<P, R>(self, map_op: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(map_op).find_first(|_| true)
    }

    /// The `Some` value of `map_op` for the last item in order that has one.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let number = ["x", "12", "7"].par_iter().find_map_last(|s| s.parse::<u32>().ok());
    /// assert_eq!(number, Some(7));
    /// ```
    fn find_map_last<P, R>(self, map_op: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(map_op).find_last(|_| true)
    }

    /// Stops every piece at its next item once a closure has panicked in
    /// any piece, instead of letting them run to their ends; the panic
    /// reaches the caller as without it.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let result = std::panic::catch_unwind(|| {
    ///     (0..1_000_000u32).into_par_iter().panic_fuse().for_each(|x| assert!(x != 10));
    /// });
    /// assert!(result.is_err());
    /// ```
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// `n` items (all, if there are fewer) from anywhere in the iterator:
    /// which ones depends on the order the pieces run. Pieces stop once
    /// `n` have been taken.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!((0..u64::MAX).into_par_iter().take_any(10).count(), 10);
    /// ```
    fn take_any(self, n: usize) -> TakeAny<Self> {
        TakeAny::new(self, n)
    }

    /// All items but `n` (none, if there are fewer) from anywhere in the
    /// iterator.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!((0..100u32).into_par_iter().skip_any(10).count(), 90);
    /// ```
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        SkipAny::new(self, n)
    }

    /// Items for which `predicate` holds, until some piece meets one for
    /// which it does not; then every piece stops (items taken by other
    /// pieces before that stay).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<u32> = (0..100u32).into_par_iter().take_any_while(|x| *x < 50).collect();
    /// assert!(v.iter().all(|x| *x < 50));
    /// ```
    fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        TakeAnyWhile::new(self, predicate)
    }

    /// Skips items for which `predicate` holds, until some piece meets one
    /// for which it does not; from then on, every item passes.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<u32> = (0..100u32).into_par_iter().skip_any_while(|x| *x < 50).collect();
    /// assert!((50..100).all(|x| v.contains(&x)));
    /// ```
    fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        SkipAnyWhile::new(self, predicate)
    }

    /// The items, in order, in one `Vec` per piece: the pieces' own
    /// vectors, never copied into one.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let list = (0..10u32).into_par_iter().collect_vec_list();
    /// let all: Vec<u32> = list.into_iter().flatten().collect();
    /// assert_eq!(all, (0..10).collect::<Vec<_>>());
    /// ```
    fn collect_vec_list(self) -> LinkedList<Vec<Self::Item>> {
        collect::collect_pieces(self)
    }

    /// Splits the items in two collections: those for which `predicate`
    /// holds, and the others, each in order.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let (even, odd): (Vec<u32>, Vec<u32>) = (0..7u32).into_par_iter().partition(|x| x % 2 == 0);
    /// assert_eq!((even, odd), (vec![0, 2, 4, 6], vec![1, 3, 5]));
    /// ```
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.partition_map(|item| {
            if predicate(&item) {
                Either::Left(item)
            } else {
                Either::Right(item)
            }
        })
    }

    /// Maps every item to [`Either`] and collects the `Left` values in one
    /// collection, the `Right` ones in another, each in order.
    ///
    /// ```
    /// use stealpool::iter::Either;
    /// use stealpool::prelude::*;
    ///
    /// let (numbers, words): (Vec<u32>, Vec<&str>) = ["1", "a", "2"]
    ///     .par_iter()
    ///     .partition_map(|s| s.parse::<u32>().map_or(Either::Right(*s), Either::Left));
    /// assert_eq!((numbers, words), (vec![1, 2], vec!["a"]));
    /// ```
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        let mut both = (A::default(), B::default());
        both.par_extend(self.map(predicate));
        both
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
        let mut both = (FromA::default(), FromB::default());
        both.par_extend(self);
        both
    }

    /// Drives every item into `consumer`: the plumbing every method above is built on.
    ///
    /// It drives a consumer of one's own, as the
    /// [`plumbing`](super::plumbing) module's second example does (a count).
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
