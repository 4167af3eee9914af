//! [`split`]: a parallel iterator over pieces of data that a closure cuts
//! in two, as the pool asks for pieces.

use super::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use super::ParallelIterator;
use std::fmt;

/// The pieces `splitter` cuts `data` into: it takes a piece and returns
/// its left part and, if it cut it, the right one. The pieces are cut as
/// the pool asks (about two per worker, more where work is stolen), so
/// the items are the pieces not cut further, in order.
///
/// ```
/// use stealpool::prelude::*;
///
/// // Ranges halved until they are shorter than 100.
/// let pieces = stealpool::iter::split(0..1_000u32, |r| {
///     let mid = r.start + (r.end - r.start) / 2;
///     if r.len() < 100 { (r, None) } else { (r.start..mid, Some(mid..r.end)) }
/// });
/// let sum: u32 = pieces.map(|r| r.sum::<u32>()).sum();
/// assert_eq!(sum, (0..1_000).sum());
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    Split { data, splitter }
}

/// The iterator of [`split`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let s: stealpool::iter::Split<u32, _> = stealpool::iter::split(8u32, |n| (n / 2, (n > 1).then_some(n - n / 2)));
/// assert_eq!(s.sum::<u32>(), 8);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

/// Shows the data, not the closure.
impl<D: fmt::Debug, S> fmt::Debug for Split<D, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Split")
            .field("data", &self.data)
            .finish_non_exhaustive()
    }
}

impl<D, S> ParallelIterator for Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;

    fn drive_unindexed<C: UnindexedConsumer<D>>(self, consumer: C) -> C::Result {
        let piece = Piece {
            data: self.data,
            splitter: &self.splitter,
        };
        bridge_unindexed(piece, consumer)
    }
}

/// [`Split`]'s producer: a piece and the closure that cuts it.
struct Piece<'s, D, S> {
    data: D,
    splitter: &'s S,
}

impl<D, S> UnindexedProducer for Piece<'_, D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;

    fn split(self) -> (Self, Option<Self>) {
        let splitter = self.splitter;
        let (left, right) = splitter(self.data);
        let right = right.map(|data| Piece { data, splitter });
        (Piece { data: left, splitter }, right)
    }

    fn fold_with<F: Folder<D>>(self, folder: F) -> F {
        folder.consume(self.data)
    }
}
