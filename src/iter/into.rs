//! The conversions into parallel iterators (`into_par_iter`, `par_iter`,
//! `par_iter_mut`) and out of them (`collect`, `par_extend`).

use super::ParallelIterator;

/// A value that can become a parallel iterator: ranges, vectors, slices,
/// the std collections (`HashMap`, `HashSet`, `BTreeMap`, `BTreeSet`,
/// `VecDeque`, `LinkedList`, `BinaryHeap`), `Option` and `Result`,
/// references to them, and every parallel iterator.
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
/// `Vec<T>`, `String` (from `char`, `&char`, `&str`, `String`,
/// `Box<str>`, `Cow<str>`), `HashMap<K, V>`, `HashSet`, `BTreeMap`,
/// `BTreeSet`, `VecDeque`, `LinkedList`, `BinaryHeap`, `Result<C, E>` or
/// `Option<C>` of any of them (which stop at the first `Err` or `None`,
/// as rayon's do), and a pair of them (from pairs, or from [`Either`](super::Either)s).
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
/// [`unzip`](ParallelIterator::unzip) fills): those `collect` builds, a
/// pair of them, and, as rayon's, the std collections of `Copy` items by
/// references to items (`&T`; `(&K, &V)` for the maps), which are copied.
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = vec![0u8];
/// v.par_extend((1..3u8).into_par_iter());
/// assert_eq!(v, [0, 1, 2]);
/// v.par_extend(&[7, 8]);
/// assert_eq!(v, [0, 1, 2, 7, 8]);
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
