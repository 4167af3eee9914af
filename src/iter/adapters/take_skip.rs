//! [`Take`] and [`Skip`]: the first `n` items, or all but them; the
//! source is split at `n`. `take` drops the other side unread, as
//! `Iterator::take` never reads past its `n`; `skip` first runs the
//! skipped items through what produces them (the closures of the
//! adapters before it), as `Iterator::skip` and rayon's `skip` do, and
//! drops them.

use crate::iter::for_each::{Cloned, ForEachConsumer};
use crate::iter::plumbing::{
    bridge, bridge_producer_consumer, Producer, ProducerCallback, UnindexedConsumer,
};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::take`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let first: stealpool::iter::Take<_> = (0..10u8).into_par_iter().take(3);
/// assert_eq!(first.collect::<Vec<_>>(), [0, 1, 2]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Take<I> {
    base: I,
    n: usize,
}

/// The iterator of [`IndexedParallelIterator::skip`]. The skipped items
/// are produced (the closures before `skip` run for them, in parallel)
/// and dropped before the rest are.
///
/// ```
/// use stealpool::prelude::*;
///
/// let rest: stealpool::iter::Skip<_> = (0..10u8).into_par_iter().skip(7);
/// assert_eq!(rest.collect::<Vec<_>>(), [7, 8, 9]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Skip<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Take<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Take { base, n }
    }
}

impl<I: IndexedParallelIterator> Skip<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Skip { base, n }
    }
}

/// Hands on the left (`take`) or right (`skip`) part of a producer split
/// at `n`.
struct Callback<CB> {
    callback: CB,
    n: usize,
    keep_left: bool,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (left, right) = base.split_at(self.n);
        if self.keep_left {
            drop(right);
            self.callback.callback(left)
        } else {
            // The skipped items' side effects happen, as `Iterator::skip`'s
            // do: each produced and dropped, split over the pool as any
            // `for_each`.
            let drop_item = |_: &mut (), item: T| drop(item);
            let consumer = ForEachConsumer {
                op: &drop_item,
                source: Cloned(()),
            };
            bridge_producer_consumer(self.n, left, consumer);
            self.callback.callback(right)
        }
    }
}

/// Implements both traits for `Take` or `Skip`: `$len` is the length.
macro_rules! split_adapter {
    ($adapter:ident, $keep_left:expr, $len:expr) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $adapter<I> {
            type Item = I::Item;

            fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $adapter<I> {
            fn len(&self) -> usize {
                let len: fn(&Self) -> usize = $len;
                len(self)
            }

            fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
                let (n, keep_left) = (self.n, $keep_left);
                self.base.with_producer(Callback {
                    callback,
                    n,
                    keep_left,
                })
            }
        }
    };
}

split_adapter!(Take, true, |take| take.n);
split_adapter!(Skip, false, |skip| skip.base.len() - skip.n);
