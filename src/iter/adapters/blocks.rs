//! [`ExponentialBlocks`] and [`UniformBlocks`]: an indexed iterator run
//! as a sequence of blocks, each in parallel, one after the other.

use crate::iter::plumbing::{
    bridge_producer_consumer, Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer,
};
use crate::iter::pool::{CurrentPool, OnPool};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of
/// [`IndexedParallelIterator::by_exponential_blocks`]: blocks as long as
/// the pool has workers, then twice, four times as long, ...
///
/// ```
/// use stealpool::prelude::*;
///
/// let b: stealpool::iter::ExponentialBlocks<_> = (0..100u32).into_par_iter().by_exponential_blocks();
/// assert_eq!(b.find_first(|&x| x > 9), Some(10));
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct ExponentialBlocks<I> {
    base: I,
}

impl<I> ExponentialBlocks<I> {
    pub(crate) fn new(base: I) -> Self {
        ExponentialBlocks { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for ExponentialBlocks<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let first = CurrentPool.num_workers().max(1);
        let sizes = std::iter::successors(Some(first), |size: &usize| Some(size.saturating_mul(2)));
        let len = self.base.len();
        self.base.with_producer(InBlocks { consumer, len, sizes })
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

/// The iterator of [`IndexedParallelIterator::by_uniform_blocks`]:
/// blocks of the given length (the last perhaps shorter).
///
/// ```
/// use stealpool::prelude::*;
///
/// let b: stealpool::iter::UniformBlocks<_> = (0..10u32).into_par_iter().by_uniform_blocks(4);
/// assert_eq!(b.collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct UniformBlocks<I> {
    base: I,
    block_size: usize,
}

impl<I> UniformBlocks<I> {
    pub(crate) fn new(base: I, block_size: usize) -> Self {
        UniformBlocks { base, block_size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for UniformBlocks<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let sizes = std::iter::repeat(self.block_size);
        let len = self.base.len();
        self.base.with_producer(InBlocks { consumer, len, sizes })
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

/// Drives `consumer` over a producer of `len` items block by block, the
/// blocks `sizes` long: each block is split and bridged as a whole
/// iterator is, and the next starts once it has ended, unless the
/// consumer is full by then.
struct InBlocks<C, S> {
    consumer: C,
    len: usize,
    sizes: S,
}

impl<T, C, S> ProducerCallback<T> for InBlocks<C, S>
where
    C: Consumer<T>,
    S: Iterator<Item = usize>,
{
    type Output = C::Result;

    fn callback<P: Producer<Item = T>>(mut self, mut producer: P) -> C::Result {
        let mut consumer = self.consumer;
        let mut left = self.len;
        // Each block's result with the reducer that joins it to what
        // follows it, joined once the last block has run.
        let mut blocks = Vec::new();
        while left > 0 && !consumer.full() {
            let size = self.sizes.next().unwrap_or(usize::MAX).min(left);
            let (block, rest) = producer.split_at(size);
            let (block_consumer, rest_consumer, reducer) = consumer.split_at(size);
            blocks.push((bridge_producer_consumer(size, block, block_consumer), reducer));
            (producer, consumer, left) = (rest, rest_consumer, left - size);
        }
        // The items left when the consumer is full are dropped unseen.
        drop(producer);
        let mut result = consumer.into_folder().complete();
        while let Some((block, reducer)) = blocks.pop() {
            result = reducer.reduce(block, result);
        }
        result
    }
}
