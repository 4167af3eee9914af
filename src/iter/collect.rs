//! Collecting: [`FromParallelIterator`] and [`ParallelExtend`] for `Vec`,
//! `String`, `OsString`, `HashMap` and `()` (the other std collections
//! are in `collections.rs`), `Cow`, `Result` and `Option` of any of them,
//! and pairs of them (what `unzip` and `partition_map` fill).
//!
//! An indexed iterator collected into a `Vec` writes every piece's items
//! straight into their places in the vector's spare capacity (I2, I3). An
//! unindexed one (after `filter`, over a string) collects each piece into
//! a collection of its own and joins them in order.

use super::plumbing::{bridge, Consumer, Folder, Reducer, UnindexedConsumer};
use super::Either;
use super::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator,
};
use crate::sync::{AtomicBool, Mutex, Ordering};
use std::borrow::Cow;
use std::collections::{HashMap, LinkedList};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;
use std::ptr;
use std::sync::PoisonError;

/// Appends the items of the indexed `par_iter` to `vec`, in place.
pub(super) fn collect_indexed<I: IndexedParallelIterator>(par_iter: I, vec: &mut Vec<I::Item>) {
    let len = par_iter.len();
    collect_with_consumer(vec, len, |consumer| bridge(par_iter, consumer));
}

/// Appends `len` items to `vec`: `drive` feeds them to the consumer it is
/// given, which writes each in its place past `vec`'s end.
fn collect_with_consumer<T, F>(vec: &mut Vec<T>, len: usize, drive: F)
where
    T: Send,
    F: FnOnce(CollectConsumer<'_, T>) -> CollectResult<'_, T>,
{
    vec.reserve(len);
    let old_len = vec.len();
    // SAFETY (I2): the `len` slots past the end are allocated (reserved
    // above), uninitialized and borrowed by the consumer alone until
    // `drive` returns.
    let target = unsafe { vec.as_mut_ptr().add(old_len) };
    // SAFETY (I2): as above.
    let result = drive(unsafe { CollectConsumer::new(target, len) });
    // I3: `result` owns exactly the items written, one contiguous run from
    // the first slot; if it is not all `len` of them, dropping it (here,
    // by the panic) drops those it owns, and `vec` keeps its old length.
    let written = result.initialized_len;
    assert!(
        written == len && result.start.0 == target,
        "an indexed parallel iterator produced {written} items where it announced {len}"
    );
    result.release_ownership();
    // SAFETY (I3): the `len` slots past the old end are initialized, and
    // nothing else owns them any more.
    unsafe { vec.set_len(old_len + len) };
}

/// A pointer to the first slot of a consumer's or result's target range.
struct Slot<T>(*mut T);

impl<T> Clone for Slot<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Slot<T> {}

// SAFETY (I4, I2): each consumer and result has a target range no other one
// touches, and moving it to another thread moves the `T`s it writes,
// which are `Send`.
unsafe impl<T: Send> Send for Slot<T> {}

/// Writes `len` items into the uninitialized slots from `start` (I2).
struct CollectConsumer<'c, T> {
    start: Slot<T>,
    len: usize,
    /// The vector lent to the consumer.
    marker: PhantomData<&'c mut Vec<T>>,
}

impl<T> CollectConsumer<'_, T> {
    /// # Safety
    ///
    /// `start` is valid for writes of `len` items, uninitialized, and
    /// nothing else reads or writes them while the consumer or its
    /// results live.
    unsafe fn new(start: *mut T, len: usize) -> Self {
        CollectConsumer {
            start: Slot(start),
            len,
            marker: PhantomData,
        }
    }
}

impl<'c, T: Send> Consumer<T> for CollectConsumer<'c, T> {
    type Folder = CollectResult<'c, T>;
    type Reducer = CollectReducer;
    type Result = CollectResult<'c, T>;

    fn split_at(self, index: usize) -> (Self, Self, CollectReducer) {
        assert!(index <= self.len, "collect: split past the end of the target");
        // SAFETY (I2): the two halves of the range, disjoint; `index` is
        // at most `len`, so the right one starts in or just past it.
        unsafe {
            let right = self.start.0.add(index);
            (
                CollectConsumer::new(self.start.0, index),
                CollectConsumer::new(right, self.len - index),
                CollectReducer,
            )
        }
    }

    fn into_folder(self) -> CollectResult<'c, T> {
        CollectResult {
            start: self.start,
            total_len: self.len,
            initialized_len: 0,
            marker: PhantomData,
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T: Send> UnindexedConsumer<T> for CollectConsumer<'_, T> {
    fn split_off_left(&self) -> Self {
        unreachable!("an indexed collect is driven by its indices only")
    }

    fn to_reducer(&self) -> CollectReducer {
        CollectReducer
    }
}

/// The items a piece wrote: `initialized_len` of them from `start`, out of
/// the `total_len` slots it may write. It owns them, and drops them if it
/// is dropped (I3).
struct CollectResult<'c, T> {
    start: Slot<T>,
    total_len: usize,
    initialized_len: usize,
    marker: PhantomData<&'c mut Vec<T>>,
}

impl<T> CollectResult<'_, T> {
    /// Gives up the items, which now belong to whoever takes them.
    fn release_ownership(mut self) -> usize {
        std::mem::replace(&mut self.initialized_len, 0)
    }
}

impl<T> Drop for CollectResult<'_, T> {
    fn drop(&mut self) {
        // SAFETY (I3): the first `initialized_len` slots are initialized
        // and owned by this result alone.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.start.0, self.initialized_len)) };
    }
}

impl<T> Folder<T> for CollectResult<'_, T> {
    type Result = Self;

    fn consume(mut self, item: T) -> Self {
        assert!(
            self.initialized_len < self.total_len,
            "an indexed parallel iterator produced more items than it announced"
        );
        // SAFETY (I2): the slot is within this result's range and not yet
        // written; counting it right after makes this result its owner.
        unsafe { self.start.0.add(self.initialized_len).write(item) };
        self.initialized_len += 1;
        self
    }

    fn complete(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }
}

/// Joins two adjacent pieces' results (I3).
struct CollectReducer;

impl<'c, T> Reducer<CollectResult<'c, T>> for CollectReducer {
    fn reduce(self, mut left: CollectResult<'c, T>, right: CollectResult<'c, T>) -> CollectResult<'c, T> {
        // I3: merge only when `right`'s items follow `left`'s; otherwise
        // `left` fell short and the final count fails, and `right` is
        // dropped here with its items.
        if left.start.0.wrapping_add(left.initialized_len) == right.start.0 {
            left.total_len += right.total_len;
            left.initialized_len += right.release_ownership();
        }
        left
    }
}

/// Collects each piece into a `C` and returns them in order.
pub(super) fn collect_pieces<C, T, I>(par_iter: I) -> LinkedList<C>
where
    I: ParallelIterator<Item = T>,
    C: Default + Extend<T> + Send,
{
    par_iter.drive_unindexed(PiecesConsumer(PhantomData))
}

/// The consumer of [`collect_pieces`]: its own reducer.
struct PiecesConsumer<C>(PhantomData<fn() -> C>);

impl<T, C: Default + Extend<T> + Send> Consumer<T> for PiecesConsumer<C> {
    type Folder = PiecesFolder<C>;
    type Reducer = Self;
    type Result = LinkedList<C>;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (PiecesConsumer(PhantomData), PiecesConsumer(PhantomData), self)
    }

    fn into_folder(self) -> PiecesFolder<C> {
        PiecesFolder(C::default())
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T, C: Default + Extend<T> + Send> UnindexedConsumer<T> for PiecesConsumer<C> {
    fn split_off_left(&self) -> Self {
        PiecesConsumer(PhantomData)
    }

    fn to_reducer(&self) -> Self {
        PiecesConsumer(PhantomData)
    }
}

impl<C> Reducer<LinkedList<C>> for PiecesConsumer<C> {
    fn reduce(self, mut left: LinkedList<C>, mut right: LinkedList<C>) -> LinkedList<C> {
        left.append(&mut right);
        left
    }
}

/// One piece's collection.
struct PiecesFolder<C>(C);

impl<T, C: Extend<T>> Folder<T> for PiecesFolder<C> {
    type Result = LinkedList<C>;

    fn consume(mut self, item: T) -> Self {
        self.0.extend(Some(item));
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        self.0.extend(iter);
        self
    }

    fn complete(self) -> LinkedList<C> {
        LinkedList::from([self.0])
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        let par_iter = par_iter.into_par_iter();
        match par_iter.opt_len() {
            // Indexed: every `split_at` below is by index (I2).
            Some(len) => collect_with_consumer(self, len, |consumer| par_iter.drive_unindexed(consumer)),
            None => {
                let pieces: LinkedList<Vec<T>> = collect_pieces(par_iter);
                self.reserve(pieces.iter().map(Vec::len).sum());
                for mut piece in pieces {
                    self.append(&mut piece);
                }
            }
        }
    }
}

/// Extends a vector with copies of the items referred to, in order.
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut v = vec![0u8];
/// v.par_extend(&[1, 2, 3]);
/// assert_eq!(v, [0, 1, 2, 3]);
/// ```
impl<'a, T: 'a + Copy + Send + Sync> ParallelExtend<&'a T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, par_iter: I) {
        self.par_extend(par_iter.into_par_iter().copied());
    }
}

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        let mut vec = Vec::new();
        vec.par_extend(par_iter);
        vec
    }
}

/// `String` from pieces of text: `char`, `&char`, `&str`, `String`.
macro_rules! string_from {
    ($($item:ty),*) => {$(
        impl<'a> ParallelExtend<$item> for String {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                let pieces: LinkedList<String> = collect_pieces(par_iter.into_par_iter());
                self.reserve(pieces.iter().map(String::len).sum());
                self.extend(pieces);
            }
        }

        impl<'a> FromParallelIterator<$item> for String {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                let mut string = String::new();
                string.par_extend(par_iter);
                string
            }
        }
    )*};
}

string_from!(char, &'a char, &'a str, String, Box<str>, Cow<'a, str>);

/// `OsString` from pieces of text: `&OsStr`, `OsString`, `Cow<OsStr>`.
macro_rules! os_string_from {
    ($($item:ty),*) => {$(
        impl<'a> ParallelExtend<$item> for OsString {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                let pieces: LinkedList<OsString> = collect_pieces(par_iter.into_par_iter());
                self.reserve(pieces.iter().map(|piece| piece.len()).sum());
                self.extend(pieces);
            }
        }

        impl<'a> FromParallelIterator<$item> for OsString {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                let mut string = OsString::new();
                string.par_extend(par_iter);
                string
            }
        }
    )*};
}

os_string_from!(&'a OsStr, OsString, Cow<'a, OsStr>);

/// Runs the iterator for its effects: `()` from items that are `()`.
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use stealpool::prelude::*;
///
/// let seen = AtomicU32::new(0);
/// let () = (0..10u32).into_par_iter().map(|x| _ = seen.fetch_add(x, Ordering::Relaxed)).collect();
/// assert_eq!(seen.into_inner(), 45);
/// ```
impl FromParallelIterator<()> for () {
    fn from_par_iter<I: IntoParallelIterator<Item = ()>>(par_iter: I) -> Self {
        par_iter.into_par_iter().for_each(drop);
    }
}

/// Runs the iterator for its effects, as collecting into `()` does.
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut unit = ();
/// unit.par_extend((0..3u8).into_par_iter().map(|_| ()));
/// ```
impl ParallelExtend<()> for () {
    fn par_extend<I: IntoParallelIterator<Item = ()>>(&mut self, par_iter: I) {
        par_iter.into_par_iter().for_each(drop);
    }
}

/// A `Cow` of anything whose owned form collects: always `Cow::Owned`.
///
/// ```
/// use std::borrow::Cow;
/// use stealpool::prelude::*;
///
/// let text: Cow<'_, str> = "a b".par_split_whitespace().collect();
/// assert!(matches!(text, Cow::Owned(ref s) if s == "ab"));
/// ```
impl<'a, C, T> FromParallelIterator<T> for Cow<'a, C>
where
    C: ToOwned<Owned: FromParallelIterator<T>> + ?Sized,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Cow::Owned(C::Owned::from_par_iter(par_iter))
    }
}

impl<K, V, S> ParallelExtend<(K, V)> for HashMap<K, V, S>
where
    K: Eq + Hash + Send,
    V: Send,
    S: BuildHasher + Send,
{
    fn par_extend<I: IntoParallelIterator<Item = (K, V)>>(&mut self, par_iter: I) {
        // Later items replace earlier ones with the same key, as
        // `Extend` does: the pieces are inserted in order.
        let pieces: LinkedList<Vec<(K, V)>> = collect_pieces(par_iter.into_par_iter());
        self.reserve(pieces.iter().map(Vec::len).sum());
        for piece in pieces {
            self.extend(piece);
        }
    }
}

impl<K, V, S> FromParallelIterator<(K, V)> for HashMap<K, V, S>
where
    K: Eq + Hash + Send,
    V: Send,
    S: BuildHasher + Default + Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = (K, V)>>(par_iter: I) -> Self {
        let mut map = HashMap::default();
        map.par_extend(par_iter);
        map
    }
}

/// The items split in two vectors, each in order: the pairs' first and
/// second items, or the `Left` and the `Right` values. Each piece splits
/// its own items, and the pieces' vectors are joined in order.
fn split_in_two<I, L, R>(par_iter: I) -> (Vec<L>, Vec<R>)
where
    I: ParallelIterator,
    Sides<L, R>: Extend<I::Item>,
    L: Send,
    R: Send,
{
    let pieces: LinkedList<Sides<L, R>> = collect_pieces(par_iter);
    let mut all_left = Vec::with_capacity(pieces.iter().map(|piece| piece.0.len()).sum());
    let mut all_right = Vec::with_capacity(pieces.iter().map(|piece| piece.1.len()).sum());
    for Sides(mut left, mut right) in pieces {
        all_left.append(&mut left);
        all_right.append(&mut right);
    }
    (all_left, all_right)
}

/// Extends each collection of a pair by one side of each item, as
/// [`unzip`](ParallelIterator::unzip) does: the first collection by the
/// first items, the second by the second, each in order.
///
/// ```
/// use stealpool::prelude::*;
///
/// let mut pair = (vec![0u32], String::new());
/// pair.par_extend((1..4u32).into_par_iter().map(|x| (x * x, char::from(b'a' + x as u8))));
/// assert_eq!(pair, (vec![0, 1, 4, 9], String::from("bcd")));
/// ```
impl<A, B, FromA, FromB> ParallelExtend<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + ParallelExtend<A>,
    FromB: Send + ParallelExtend<B>,
{
    fn par_extend<I: IntoParallelIterator<Item = (A, B)>>(&mut self, par_iter: I) {
        let (all_a, all_b) = split_in_two(par_iter.into_par_iter());
        self.0.par_extend(all_a);
        self.1.par_extend(all_b);
    }
}

/// Extends the first collection of a pair by the `Left` values, the
/// second by the `Right` ones, each in order, as
/// [`partition_map`](ParallelIterator::partition_map) does.
///
/// ```
/// use stealpool::iter::Either;
/// use stealpool::prelude::*;
///
/// let mut pair: (Vec<u32>, Vec<u32>) = (vec![], vec![100]);
/// pair.par_extend((0..5u32).into_par_iter().map(|x| if x % 2 == 0 { Either::Left(x) } else { Either::Right(x) }));
/// assert_eq!(pair, (vec![0, 2, 4], vec![100, 1, 3]));
/// ```
impl<L, R, A, B> ParallelExtend<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + ParallelExtend<L>,
    B: Send + ParallelExtend<R>,
{
    fn par_extend<I: IntoParallelIterator<Item = Either<L, R>>>(&mut self, par_iter: I) {
        let (all_left, all_right) = split_in_two(par_iter.into_par_iter());
        self.0.par_extend(all_left);
        self.1.par_extend(all_right);
    }
}

/// Collects a pair of collections from pairs, as
/// [`unzip`](ParallelIterator::unzip) does, for
/// collections that collect but need not be `Default` or extend.
///
/// ```
/// use stealpool::prelude::*;
///
/// let (small, big): (Vec<u32>, Result<Vec<u32>, ()>) = (0..3u32).into_par_iter().map(|x| (x, Ok(x + 10))).collect();
/// assert_eq!((small, big), (vec![0, 1, 2], Ok(vec![10, 11, 12])));
/// ```
impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + FromParallelIterator<A>,
    FromB: Send + FromParallelIterator<B>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = (A, B)>>(par_iter: I) -> Self {
        let (all_a, all_b) = split_in_two(par_iter.into_par_iter());
        (FromA::from_par_iter(all_a), FromB::from_par_iter(all_b))
    }
}

/// Collects the `Left` values into the first collection, the `Right`
/// ones into the second, as
/// [`partition_map`](ParallelIterator::partition_map) does.
///
/// ```
/// use stealpool::iter::Either;
/// use stealpool::prelude::*;
///
/// let (even, odd): (Vec<u32>, String) =
///     (0..4u32).into_par_iter().map(|x| if x % 2 == 0 { Either::Left(x) } else { Either::Right('o') }).collect();
/// assert_eq!((even, odd), (vec![0, 2], String::from("oo")));
/// ```
impl<L, R, A, B> FromParallelIterator<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + FromParallelIterator<L>,
    B: Send + FromParallelIterator<R>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Either<L, R>>>(par_iter: I) -> Self {
        let (all_left, all_right) = split_in_two(par_iter.into_par_iter());
        (A::from_par_iter(all_left), B::from_par_iter(all_right))
    }
}

/// One piece of [`split_in_two`]: its items' first and second sides.
struct Sides<L, R>(Vec<L>, Vec<R>);

impl<L, R> Default for Sides<L, R> {
    fn default() -> Self {
        Sides(Vec::new(), Vec::new())
    }
}

impl<L, R> Extend<(L, R)> for Sides<L, R> {
    fn extend<T: IntoIterator<Item = (L, R)>>(&mut self, iter: T) {
        for (left, right) in iter {
            self.0.push(left);
            self.1.push(right);
        }
    }
}

impl<L, R> Extend<Either<L, R>> for Sides<L, R> {
    fn extend<T: IntoIterator<Item = Either<L, R>>>(&mut self, iter: T) {
        for item in iter {
            match item {
                Either::Left(left) => self.0.push(left),
                Either::Right(right) => self.1.push(right),
            }
        }
    }
}

/// Collects the `Ok` values, or returns an `Err` if any item is one: as
/// rayon's, it stops early (every piece stops once an `Err` is met, and the
/// `Ok` values collected so far are dropped), and which `Err` it returns
/// when there are several is not fixed.
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(par_iter: I) -> Self {
        let saved: Mutex<Option<E>> = Mutex::new(None);
        let keep_first = |error: E| {
            let mut saved = saved.lock().unwrap_or_else(PoisonError::into_inner);
            saved.get_or_insert(error);
        };
        let collection = par_iter
            .into_par_iter()
            .map(|item| item.map_err(keep_first).ok())
            .while_some()
            .collect();
        match saved.into_inner().unwrap_or_else(PoisonError::into_inner) {
            Some(error) => Err(error),
            None => Ok(collection),
        }
    }
}

/// Collects the `Some` values, or returns `None` if any item is `None`,
/// stopping early as `Result`'s does.
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(par_iter: I) -> Self {
        let met_none = AtomicBool::new(false);
        let collection = par_iter
            .into_par_iter()
            .map(|item| {
                if item.is_none() {
                    // Relaxed: read after the drive, which `join` orders
                    // after every piece's writes (I5).
                    met_none.store(true, Ordering::Relaxed);
                }
                item
            })
            .while_some()
            .collect();
        // Relaxed: see the store (I5).
        (!met_none.load(Ordering::Relaxed)).then_some(collection)
    }
}
