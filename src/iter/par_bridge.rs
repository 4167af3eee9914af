//! [`ParallelBridge`]: any sequential `Iterator + Send` as a parallel
//! iterator. The pieces share the iterator behind a lock and take its
//! items one at a time, so the order of the items is not kept, and it pays
//! only when the work per item outweighs a lock.

use super::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use super::ParallelIterator;
use crate::iter::pool::{CurrentPool, OnPool};
use crate::sync::{AtomicUsize, Mutex, Ordering};

/// `par_bridge()`: a parallel iterator over the items of a sequential
/// iterator, taken one at a time by the workers, in no fixed order.
///
/// ```
/// use std::sync::mpsc::channel;
/// use stealpool::prelude::*;
///
/// let (sender, receiver) = channel();
/// for x in 1..=10u32 {
///     sender.send(x).unwrap();
/// }
/// drop(sender);
/// let mut squares: Vec<u32> = receiver.into_iter().par_bridge().map(|x| x * x).collect();
/// squares.sort();
/// assert_eq!(squares[..3], [1, 4, 9]);
/// ```
pub trait ParallelBridge: Sized {
    /// Makes `self` a parallel iterator.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let total: u64 = (1..=100u64).filter(|x| x % 2 == 0).par_bridge().sum();
    /// assert_eq!(total, 2_550);
    /// ```
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<T: Iterator + Send> ParallelBridge for T
where
    T::Item: Send,
{
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

/// The iterator of [`ParallelBridge::par_bridge`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let it: stealpool::iter::IterBridge<_> = "a b c".split(' ').par_bridge();
/// assert_eq!(it.count(), 3);
/// ```
#[derive(Debug, Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct IterBridge<I> {
    iter: I,
}

impl<I: Iterator + Send> ParallelIterator for IterBridge<I>
where
    I::Item: Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        // One piece per worker: every piece takes items until the iterator
        // ends, so more pieces would only contend for the lock.
        let splits = AtomicUsize::new(CurrentPool.num_workers().saturating_sub(1));
        let iter = Mutex::new(Some(self.iter));
        bridge_unindexed(
            BridgeProducer {
                splits: &splits,
                iter: &iter,
            },
            consumer,
        )
    }
}

/// A piece of the bridge: all pieces share `iter`; `None` there once it
/// has ended (it is not asked again, as an `Iterator` need not be fused)
/// or a `next` panicked.
struct BridgeProducer<'a, I> {
    /// How many more pieces may be split off.
    splits: &'a AtomicUsize,
    iter: &'a Mutex<Option<I>>,
}

impl<I: Iterator + Send> UnindexedProducer for BridgeProducer<'_, I>
where
    I::Item: Send,
{
    type Item = I::Item;

    fn split(self) -> (Self, Option<Self>) {
        // Relaxed: a count of pieces, carrying no data (I7).
        let taken = self
            .splits
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        let other = taken.is_ok().then_some(BridgeProducer {
            splits: self.splits,
            iter: self.iter,
        });
        (self, other)
    }

    fn fold_with<F: Folder<I::Item>>(self, mut folder: F) -> F {
        while !folder.full() {
            let item = {
                // A poisoned lock means `next` panicked on another piece:
                // that panic reaches the caller; this piece stops.
                let Ok(mut guard) = self.iter.lock() else {
                    return folder;
                };
                let Some(iter) = guard.as_mut() else {
                    return folder;
                };
                match iter.next() {
                    Some(item) => item,
                    None => {
                        *guard = None;
                        return folder;
                    }
                }
            };
            folder = folder.consume(item);
        }
        folder
    }
}
