//! [`Rev`]: an indexed iterator's items last to first.

use crate::iter::plumbing::{bridge, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::rev`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let backwards: stealpool::iter::Rev<_> = (0..4u8).into_par_iter().rev();
/// assert_eq!(backwards.collect::<Vec<_>>(), [3, 2, 1, 0]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Rev<I> {
    base: I,
}

impl<I> Rev<I> {
    pub(crate) fn new(base: I) -> Self {
        Rev { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Rev<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Rev<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let len = self.base.len();
        return self.base.with_producer(Callback { callback, len });

        struct Callback<CB> {
            callback: CB,
            len: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(RevProducer { base, len: self.len })
            }
        }
    }
}

/// [`Rev`]'s producer: the `len` items of `base`, backwards. Item `i` of
/// this piece is item `len - 1 - i` of `base`, so splitting at `index`
/// splits `base` at `len - index` and swaps the halves. The indexed collect
/// relies on this split (I8).
struct RevProducer<P> {
    base: P,
    len: usize,
}

impl<P: Producer> Producer for RevProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::Rev<std::vec::IntoIter<P::Item>>;

    /// Collects the piece to walk it backwards: the path of the one
    /// adapter over `rev` that takes its base's iterator, `zip`, which
    /// steps both sides together; the others fold, through
    /// [`fold_with`](Producer::fold_with) below.
    fn into_iter(self) -> Self::IntoIter {
        let items: Vec<P::Item> = self.base.into_iter().collect();
        items.into_iter().rev()
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(self.len - index);
        (
            RevProducer {
                base: right,
                len: index,
            },
            RevProducer {
                base: left,
                len: self.len - index,
            },
        )
    }

    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_rev_with(folder)
    }

    fn fold_rev_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }
}

/// Items in a block of [`fold_back`], when an item is small enough for a
/// block to sit on the stack; a larger item makes blocks of one.
const BLOCK: usize = 16;
/// The largest item, in bytes, that blocks of [`BLOCK`] hold.
const BLOCK_ITEM_BYTES: usize = 64;

/// Feeds the `len` items of `piece` to `folder` last to first, for a
/// producer that cannot walk backwards itself (`zip`, whose two sides
/// must step back together) or had better not (`chunks`, whose chunks
/// read backwards one by one would read memory against the grain): the
/// right half before the left, down to blocks of at most [`BLOCK`] items,
/// each folded forwards into an array on the stack and handed over back
/// to front. Nothing is collected on the heap.
pub(super) fn fold_back<P: Producer, F: Folder<P::Item>>(piece: P, len: usize, folder: F) -> F {
    let block = if std::mem::size_of::<P::Item>() <= BLOCK_ITEM_BYTES {
        BLOCK
    } else {
        1
    };
    if folder.full() {
        folder
    } else if len <= 1 {
        piece.fold_with(folder)
    } else if len <= block {
        fold_block_back(piece, folder)
    } else {
        let (left, right) = piece.split_at(len / 2);
        let folder = fold_back(right, len - len / 2, folder);
        fold_back(left, len / 2, folder)
    }
}

/// Feeds a block of at most [`BLOCK`] items to `folder` last to first.
/// Not inlined, so that the array is on the stack only while a block is
/// walked, not in every frame of [`fold_back`]'s recursion.
#[inline(never)]
fn fold_block_back<P: Producer, F: Folder<P::Item>>(block: P, mut folder: F) -> F {
    let mut items: [Option<P::Item>; BLOCK] = [const { None }; BLOCK];
    let count = block
        .fold_with(Stack {
            items: &mut items,
            count: 0,
        })
        .count;
    for item in items[..count].iter_mut().rev().filter_map(Option::take) {
        folder = folder.consume(item);
        if folder.full() {
            break;
        }
    }
    folder
}

/// A folder that puts the items of a block in `items`, in order.
struct Stack<'a, T> {
    items: &'a mut [Option<T>; BLOCK],
    count: usize,
}

impl<T> Folder<T> for Stack<'_, T> {
    type Result = usize;

    /// # Panics
    ///
    /// If the block yields more than [`BLOCK`] items: a producer that
    /// yields more than its length.
    fn consume(self, item: T) -> Self {
        self.items[self.count] = Some(item);
        Stack {
            items: self.items,
            count: self.count + 1,
        }
    }

    fn complete(self) -> usize {
        self.count
    }

    fn full(&self) -> bool {
        false
    }
}
