//! [`StepBy`]: every `step`-th item, from the first; indexed, split where
//! the base splits at multiples of `step`.

use crate::iter::plumbing::{bridge, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::step_by`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let s: stealpool::iter::StepBy<_> = (0..10u32).into_par_iter().step_by(3);
/// assert_eq!(s.collect::<Vec<_>>(), [0, 3, 6, 9]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I> StepBy<I> {
    /// `step` is positive (checked by the caller).
    pub(crate) fn new(base: I, step: usize) -> Self {
        StepBy { base, step }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for StepBy<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.step)
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        return self.base.with_producer(Callback {
            callback,
            step: self.step,
            len,
        });

        struct Callback<CB> {
            callback: CB,
            step: usize,
            len: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let (step, len) = (self.step, self.len);
                self.callback.callback(StepByProducer { base, step, len })
            }
        }
    }
}

/// [`StepBy`]'s producer: `len` items of its base, every `step`-th passed on.
struct StepByProducer<P> {
    base: P,
    step: usize,
    len: usize,
}

impl<P: Producer> Producer for StepByProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::StepBy<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().step_by(self.step)
    }

    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.step)
    }

    fn max_len(&self) -> usize {
        (self.base.max_len() / self.step).max(1)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        // Item `index` of this piece is the base's item `index * step`:
        // the right piece starts on it, so its first item is kept (I8).
        let items = index.saturating_mul(self.step).min(self.len);
        let (left, right) = self.base.split_at(items);
        let step = self.step;
        (
            StepByProducer {
                base: left,
                step,
                len: items,
            },
            StepByProducer {
                base: right,
                step,
                len: self.len - items,
            },
        )
    }
}
