//! [`Enumerate`]: every item paired with its index.

use crate::iter::plumbing::{bridge, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::enumerate`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let e: stealpool::iter::Enumerate<_> = [5, 6].par_iter().enumerate();
/// assert_eq!(e.map(|(i, x)| i * x).sum::<usize>(), 6);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Enumerate<I> {
    base: I,
}

impl<I> Enumerate<I> {
    pub(crate) fn new(base: I) -> Self {
        Enumerate { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Enumerate<I> {
    type Item = (usize, I::Item);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Enumerate<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        return self.base.with_producer(Callback { callback, len });

        struct Callback<CB> {
            callback: CB,
            len: usize,
        }

        impl<T, CB: ProducerCallback<(usize, T)>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(EnumerateProducer {
                    base,
                    offset: 0,
                    len: self.len,
                })
            }
        }
    }
}

/// [`Enumerate`]'s producer: `offset` is the index of its first item, and
/// `len` the number of its items, so that it can number them backwards.
struct EnumerateProducer<P> {
    base: P,
    offset: usize,
    len: usize,
}

impl<P: Producer> Producer for EnumerateProducer<P> {
    type Item = (usize, P::Item);
    type IntoIter = std::iter::Zip<std::ops::RangeFrom<usize>, P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        (self.offset..).zip(self.base.into_iter())
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        (
            EnumerateProducer {
                base: left,
                offset: self.offset,
                len: index,
            },
            EnumerateProducer {
                base: right,
                offset: self.offset + index,
                len: self.len - index,
            },
        )
    }

    /// Numbers the items as the base folds them, so a base that folds
    /// without its iterator (`rev`) does so under `enumerate` too.
    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        let numbered = Numbered {
            base: folder,
            next: self.offset,
        };
        self.base.fold_with(numbered).base
    }

    fn fold_rev_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        let numbered = NumberedBack {
            base: folder,
            after: self.offset + self.len,
        };
        self.base.fold_rev_with(numbered).base
    }
}

/// Pairs each item with its index, counting up from `next`.
struct Numbered<F> {
    base: F,
    next: usize,
}

impl<T, F: Folder<(usize, T)>> Folder<T> for Numbered<F> {
    type Result = F::Result;

    fn consume(self, item: T) -> Self {
        Numbered {
            base: self.base.consume((self.next, item)),
            next: self.next + 1,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let mut next = self.next;
        let numbered = iter.into_iter().map(|item| {
            next += 1;
            (next - 1, item)
        });
        let base = self.base.consume_iter(numbered);
        Numbered { base, next }
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

/// Pairs each item with its index, counting down from `after - 1`: the
/// items of a piece last to first.
struct NumberedBack<F> {
    base: F,
    after: usize,
}

impl<T, F: Folder<(usize, T)>> Folder<T> for NumberedBack<F> {
    type Result = F::Result;

    fn consume(self, item: T) -> Self {
        let index = self.after - 1;
        NumberedBack {
            base: self.base.consume((index, item)),
            after: index,
        }
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
