//! [`IndexedParallelIterator`]: the iterators that know their length and
//! split at any index, and the methods that need that.

use super::adapters::{Chunks, Enumerate, MinLen, Rev, Skip, Take, Zip};
use super::plumbing::ProducerCallback;
use super::{collect, IntoParallelIterator, ParallelIterator};

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
