//! [`WhileSome`]: the `Some` values up to a `None`; every piece stops once
//! any piece has met a `None` (I5). What `collect` into `Result` and
//! `Option` stops early with.

use crate::iter::plumbing::{Consumer, Folder, UnindexedConsumer};
use crate::iter::ParallelIterator;
use crate::sync::{AtomicBool, Ordering};

/// The iterator of [`ParallelIterator::while_some`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let some: stealpool::iter::WhileSome<_> = vec![Some(1), Some(2)].into_par_iter().while_some();
/// assert_eq!(some.sum::<i32>(), 3);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    pub(crate) fn new(base: I) -> Self {
        WhileSome { base }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let stop = AtomicBool::new(false);
        self.base.drive_unindexed(WhileSomeConsumer {
            base: consumer,
            stop: &stop,
        })
    }
}

/// Passes on the `Some` values; `stop` tells every piece that a `None`
/// has been met.
struct WhileSomeConsumer<'f, C> {
    base: C,
    stop: &'f AtomicBool,
}

impl<C> WhileSomeConsumer<'_, C> {
    fn stopped(&self) -> bool {
        // Relaxed: only a hint to stop early, as `find_any`'s flag (I5).
        self.stop.load(Ordering::Relaxed)
    }
}

impl<'f, T, C: Consumer<T>> Consumer<Option<T>> for WhileSomeConsumer<'f, C> {
    type Folder = WhileSomeConsumer<'f, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let stop = self.stop;
        (
            WhileSomeConsumer { base: left, stop },
            WhileSomeConsumer { base: right, stop },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        WhileSomeConsumer {
            base: self.base.into_folder(),
            stop: self.stop,
        }
    }

    fn full(&self) -> bool {
        self.stopped() || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<Option<T>> for WhileSomeConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        WhileSomeConsumer {
            base: self.base.split_off_left(),
            stop: self.stop,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

impl<T, F: Folder<T>> Folder<Option<T>> for WhileSomeConsumer<'_, F> {
    type Result = F::Result;

    fn consume(mut self, item: Option<T>) -> Self {
        match item {
            Some(item) => self.base = self.base.consume(item),
            // Relaxed, as in `stopped` (I5).
            None => self.stop.store(true, Ordering::Relaxed),
        }
        self
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.stopped() || self.base.full()
    }
}
