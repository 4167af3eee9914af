//! [`IndexedParallelIterator`]: the iterators that know their length and
//! split at any index, and the methods that need that.

use super::adapters::{
    Chunks, Enumerate, ExponentialBlocks, FoldChunks, FoldChunksWith, Interleave, InterleaveShortest, MaxLen,
    MinLen, Positions, Rev, Skip, StepBy, Take, UniformBlocks, Zip, ZipEq,
};
use super::plumbing::{bridge, Consumer, ProducerCallback};
use super::{collect, IntoParallelIterator, ParallelIterator};
use std::cmp::Ordering;

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

    /// Drives every item into an indexed `consumer` (one that splits at
    /// an index): the plumbing under `collect_into_vec` and `zip`. Rayon
    /// requires it of every implementation; here it is provided, through
    /// [`with_producer`](IndexedParallelIterator::with_producer).
    ///
    /// ```
    /// use stealpool::iter::plumbing::{Consumer, Folder, Reducer};
    /// use stealpool::prelude::*;
    ///
    /// struct Last;
    /// struct Keep;
    /// struct Held(Option<u8>);
    /// impl Reducer<Option<u8>> for Keep {
    ///     fn reduce(self, left: Option<u8>, right: Option<u8>) -> Option<u8> {
    ///         right.or(left)
    ///     }
    /// }
    /// impl Folder<u8> for Held {
    ///     type Result = Option<u8>;
    ///     fn consume(self, item: u8) -> Self {
    ///         Held(Some(item))
    ///     }
    ///     fn complete(self) -> Option<u8> {
    ///         self.0
    ///     }
    ///     fn full(&self) -> bool {
    ///         false
    ///     }
    /// }
    /// impl Consumer<u8> for Last {
    ///     type Folder = Held;
    ///     type Reducer = Keep;
    ///     type Result = Option<u8>;
    ///     fn split_at(self, _index: usize) -> (Self, Self, Keep) {
    ///         (Last, Last, Keep)
    ///     }
    ///     fn into_folder(self) -> Held {
    ///         Held(None)
    ///     }
    ///     fn full(&self) -> bool {
    ///         false
    ///     }
    /// }
    /// assert_eq!((0..200u8).into_par_iter().drive(Last), Some(199));
    /// ```
    fn drive<C>(self, consumer: C) -> C::Result
    where
        C: Consumer<Self::Item>,
    {
        bridge(self, consumer)
    }

    /// Hands this iterator's [`Producer`](super::plumbing::Producer) to
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

    /// The items last to first.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<char> = ['a', 'b', 'c'].par_iter().rev().copied().collect();
    /// assert_eq!(v, ['c', 'b', 'a']);
    /// ```
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
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

    /// The index of the first item for which `predicate` holds; pieces
    /// after one that found an item stop.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!([1, 5, 9, 5].par_iter().position_first(|&x| x == 5), Some(1));
    /// ```
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let found = self.map(predicate).enumerate().find_first(|&(_, holds)| holds);
        found.map(|(i, _)| i)
    }

    /// The index of the last item for which `predicate` holds.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!([1, 5, 9, 5].par_iter().position_last(|&x| x == 5), Some(3));
    /// ```
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let found = self.map(predicate).enumerate().find_last(|&(_, holds)| holds);
        found.map(|(i, _)| i)
    }

    /// The indices of the items for which `predicate` holds, in order.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let p: Vec<usize> = (0..10u32).into_par_iter().positions(|x| x % 4 == 0).collect();
    /// assert_eq!(p, [0, 4, 8]);
    /// ```
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        Positions::new(self, predicate)
    }

    /// Every `step`-th item, from the first.
    ///
    /// # Panics
    ///
    /// If `step` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<u32> = (0..10u32).into_par_iter().step_by(4).collect();
    /// assert_eq!(v, [0, 4, 8]);
    /// ```
    fn step_by(self, step: usize) -> StepBy<Self> {
        assert!(step != 0, "step must not be zero");
        StepBy::new(self, step)
    }

    /// Runs the items as a sequence of blocks, each in parallel and each
    /// after the one before it has ended: the first as long as the pool
    /// has workers, each next one twice as long. A search that ends early
    /// (`find_first`, `take_any_while`, ...) then stops after the block
    /// where it ends, having run at most about as many items again.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let first = (0..1_000_000u32).into_par_iter().by_exponential_blocks().find_first(|&x| x % 1000 == 999);
    /// assert_eq!(first, Some(999));
    /// ```
    fn by_exponential_blocks(self) -> ExponentialBlocks<Self> {
        ExponentialBlocks::new(self)
    }

    /// Runs the items as a sequence of blocks of `block_size` items (the
    /// last perhaps fewer), each in parallel and each after the one before
    /// it has ended.
    ///
    /// # Panics
    ///
    /// If `block_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<u32> = (0..10_000u32).into_par_iter().by_uniform_blocks(1_000).map(|x| x * 2).collect();
    /// assert_eq!(v, (0..10_000).map(|x| x * 2).collect::<Vec<_>>());
    /// ```
    fn by_uniform_blocks(self, block_size: usize) -> UniformBlocks<Self> {
        assert!(block_size != 0, "block_size must not be zero");
        UniformBlocks::new(self, block_size)
    }

    /// The items of `self` and `other` in turn, starting with `self`'s;
    /// once one of them ends, the rest of the other.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<i32> = vec![1, 2, 3, 4].into_par_iter().interleave(vec![5, 6]).collect();
    /// assert_eq!(v, [1, 5, 2, 6, 3, 4]);
    /// ```
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// The items of `self` and `other` in turn, starting with `self`'s,
    /// until the one whose turn it is has no more.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<i32> = vec![1, 2, 3, 4].into_par_iter().interleave_shortest(vec![5, 6]).collect();
    /// assert_eq!(v, [1, 5, 2, 6, 3]);
    /// ```
    fn interleave_shortest<I>(self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        InterleaveShortest::new(self, other.into_par_iter())
    }

    /// [`zip`](IndexedParallelIterator::zip) of two iterators of the same length.
    ///
    /// # Panics
    ///
    /// If the lengths differ.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let dot: i32 = [1, 2, 3].par_iter().zip_eq(&[4, 5, 6]).map(|(a, b)| a * b).sum();
    /// assert_eq!(dot, 32);
    /// ```
    fn zip_eq<Z>(self, zip_op: Z) -> ZipEq<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = zip_op.into_par_iter();
        let (a, b) = (self.len(), other.len());
        assert!(
            a == b,
            "iterators of different lengths zipped with zip_eq: {a} and {b}"
        );
        ZipEq::new(self, other)
    }

    /// Each run of `chunk_size` items (the last may be shorter) folded
    /// from `identity()` with `fold_op`: one value per chunk, in order.
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let sums: Vec<u32> = (0..10u32).into_par_iter().fold_chunks(4, || 0, |a, x| a + x).collect();
    /// assert_eq!(sums, [6, 22, 17]);
    /// ```
    fn fold_chunks<T, ID, F>(self, chunk_size: usize, identity: ID, fold_op: F) -> FoldChunks<Self, ID, F>
    where
        ID: Fn() -> T + Send + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
        T: Send,
    {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        FoldChunks::new(self, chunk_size, identity, fold_op)
    }

    /// [`fold_chunks`](IndexedParallelIterator::fold_chunks) from a clone of `init`.
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let counts: Vec<usize> = (0..5u8).into_par_iter().fold_chunks_with(2, 0usize, |n, _| n + 1).collect();
    /// assert_eq!(counts, [2, 2, 1]);
    /// ```
    fn fold_chunks_with<T, F>(self, chunk_size: usize, init: T, fold_op: F) -> FoldChunksWith<Self, T, F>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Send + Sync,
    {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        FoldChunksWith::new(self, chunk_size, init, fold_op)
    }

    /// Splits pieces longer than `max` items even when the pool has
    /// pieces enough: for items so costly, or so uneven, that more pieces
    /// balance better. [`with_min_len`](IndexedParallelIterator::with_min_len)
    /// wins where the two disagree.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let pieces = (0..1_000u32).into_par_iter().with_max_len(100).fold(|| 0, |n, _| n + 1).count();
    /// assert!(pieces >= 10);
    /// ```
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// Compares the items with those of `other`, lexicographically, as
    /// [`Iterator::cmp`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    /// use std::cmp::Ordering;
    ///
    /// assert_eq!([1, 2, 3].par_iter().cmp(&[1, 2, 4]), Ordering::Less);
    /// assert_eq!([1, 2].par_iter().cmp(&[1, 2]), Ordering::Equal);
    /// assert_eq!([1, 2, 3].par_iter().cmp(&[1, 2]), Ordering::Greater);
    /// ```
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let by_length = self.len().cmp(&other.len());
        let first = self
            .zip(other)
            .map(|(a, b)| Ord::cmp(&a, &b))
            .find_first(|o| o.is_ne());
        first.unwrap_or(by_length)
    }

    /// Compares the items with those of `other`, lexicographically, as
    /// [`Iterator::partial_cmp`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    /// use std::cmp::Ordering;
    ///
    /// assert_eq!([1.0, 2.0].par_iter().partial_cmp(&[1.0, 3.0]), Some(Ordering::Less));
    /// assert_eq!([f64::NAN].par_iter().partial_cmp(&[1.0]), None);
    /// ```
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let by_length = self.len().cmp(&other.len());
        let first = self
            .zip(other)
            .map(|(a, b)| PartialOrd::partial_cmp(&a, &b))
            .find_first(|o| *o != Some(Ordering::Equal));
        first.unwrap_or(Some(by_length))
    }

    /// Whether the items equal those of `other`, as [`Iterator::eq`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert!((0..3u8).into_par_iter().eq(vec![0, 1, 2]));
    /// assert!(!(0..3u8).into_par_iter().eq(vec![0, 1]));
    /// ```
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(a, b)| a == b)
    }

    /// Whether the items differ from those of `other`, as [`Iterator::ne`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert!((0..3u8).into_par_iter().ne(vec![0, 1, 5]));
    /// ```
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// Whether the items are lexicographically less than those of
    /// `other`, as [`Iterator::lt`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert!([1, 2].par_iter().lt(&[1, 3]));
    /// ```
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Less)
    }

    /// Whether the items are lexicographically less than or equal to
    /// those of `other`, as [`Iterator::le`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert!([1, 2].par_iter().le(&[1, 2]));
    /// ```
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(self.partial_cmp(other), Some(Ordering::Less | Ordering::Equal))
    }

    /// Whether the items are lexicographically greater than those of
    /// `other`, as [`Iterator::gt`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert!([1, 3].par_iter().gt(&[1, 2, 9]));
    /// ```
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Greater)
    }

    /// Whether the items are lexicographically greater than or equal to
    /// those of `other`, as [`Iterator::ge`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert!([1, 3].par_iter().ge(&[1, 3]));
    /// ```
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(self.partial_cmp(other), Some(Ordering::Greater | Ordering::Equal))
    }

    /// Unzips the pairs into `left` and `right`, replacing their
    /// contents: collected in parallel as
    /// [`unzip`](ParallelIterator::unzip) does.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let (mut a, mut b) = (vec![], vec![9]);
    /// (0..3u8).into_par_iter().map(|x| (x, x * 10)).unzip_into_vecs(&mut a, &mut b);
    /// assert_eq!((a, b), (vec![0, 1, 2], vec![0, 10, 20]));
    /// ```
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        let (a, b): (Vec<A>, Vec<B>) = self.unzip();
        *left = a;
        *right = b;
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
