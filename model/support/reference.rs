//! The executable specification of the deque: a sequential reference model.
//!
//! [`ReferenceDeque`] says what `stealpool::deque` must do when its operations
//! run one after another, on one thread: a `VecDeque` whose back is the
//! deque's *bottom* (where the owner pushes and pops, last-in first-out) and
//! whose front is its *top* (where thieves steal, first-in first-out).
//!
//! Sequentially there is no contention, so a steal never needs a retry: the
//! model has no `Retry` outcome, and a real deque that reports one in a
//! single-threaded run is wrong.
//!
//! The model is deliberately naive (no buffer, no indices, no growth), so
//! that it is obviously right and the real deque can be checked against it
//! step by step: by `model/support/deque_ops.rs`, which both the proptest suite in
//! `tests/` and the `deque_ops` fuzz target in `fuzz/` drive. It depends on
//! nothing but `std`, so either can include it with `#[path]`.

use std::collections::VecDeque;

/// The most elements one `steal_batch_and_pop` takes, as in the real deque.
pub const MAX_BATCH: usize = 32;

/// A sequential deque with the semantics of `Worker` (bottom) and `Stealer`
/// (top).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceDeque<T> {
    /// Front = top (oldest), back = bottom (newest).
    items: VecDeque<T>,
    /// `Worker::new_fifo`: the owner pops the oldest.
    fifo: bool,
}

impl<T> Default for ReferenceDeque<T> {
    fn default() -> Self {
        ReferenceDeque {
            items: VecDeque::new(),
            fifo: false,
        }
    }
}

impl<T> ReferenceDeque<T> {
    /// An empty deque.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty deque whose owner pops the oldest (`Worker::new_fifo`).
    pub fn new_fifo() -> Self {
        ReferenceDeque {
            items: VecDeque::new(),
            fifo: true,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// `true` when no element is left.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// `Worker::push`: adds `value` at the bottom.
    pub fn push(&mut self, value: T) {
        self.items.push_back(value);
    }

    /// `Worker::pop`: takes the newest element, from the bottom (the
    /// oldest, from the top, for a FIFO deque).
    pub fn pop(&mut self) -> Option<T> {
        if self.fifo {
            self.items.pop_front()
        } else {
            self.items.pop_back()
        }
    }

    /// `Stealer::steal`: takes the oldest element, from the top.
    pub fn steal(&mut self) -> Option<T> {
        self.items.pop_front()
    }

    /// The number of elements `steal_batch_and_pop` takes from a deque of
    /// `len` elements: half, rounded up, at most [`MAX_BATCH`]. Rounding up
    /// lets a thief take the only element; taking no more than half leaves
    /// the owner the newest (hottest) half of its work.
    #[allow(dead_code)] // the tests' table; the fuzz target uses the limited form
    pub fn batch_size(len: usize) -> usize {
        Self::batch_size_with_limit(len, MAX_BATCH)
    }

    /// [`batch_size`](Self::batch_size) with `limit` (at least 1) in place
    /// of [`MAX_BATCH`], as the `*_with_limit` steals take.
    pub fn batch_size_with_limit(len: usize, limit: usize) -> usize {
        len.div_ceil(2).min(limit)
    }

    /// `Stealer::steal_batch_and_pop` into another deque's `Worker`:
    /// [`steal_batch_with_limit_and_pop`](Self::steal_batch_with_limit_and_pop)
    /// with a limit of [`MAX_BATCH`].
    pub fn steal_batch_and_pop(&mut self, dest: &mut ReferenceDeque<T>) -> Option<T> {
        self.steal_batch_with_limit_and_pop(dest, MAX_BATCH)
    }

    /// Takes [`batch_size_with_limit`](Self::batch_size_with_limit)
    /// elements from the top and returns the one this deque's owner would
    /// pop first (the newest of them; the oldest from a FIFO deque, as
    /// crossbeam-deque's), and moves the others to `dest` so that `dest`
    /// pops them in the order this deque's owner would have: in their order
    /// when both pop alike, reversed when they do not.
    pub fn steal_batch_with_limit_and_pop(
        &mut self,
        dest: &mut ReferenceDeque<T>,
        limit: usize,
    ) -> Option<T> {
        let count = Self::batch_size_with_limit(self.len(), limit);
        let mut batch: VecDeque<T> = self.items.drain(..count).collect();
        let kept = if self.fifo {
            batch.pop_front()
        } else {
            batch.pop_back()
        };
        self.hand_over(batch, dest);
        kept
    }

    /// `Stealer::steal_batch_with_limit` into another deque's `Worker`:
    /// moves the batch of
    /// [`steal_batch_with_limit_and_pop`](Self::steal_batch_with_limit_and_pop),
    /// the one it returns included, and returns how many moved.
    pub fn steal_batch_with_limit(&mut self, dest: &mut ReferenceDeque<T>, limit: usize) -> usize {
        let count = Self::batch_size_with_limit(self.len(), limit);
        let batch: VecDeque<T> = self.items.drain(..count).collect();
        self.hand_over(batch, dest);
        count
    }

    /// Pushes `batch` (oldest first) on `dest` so that `dest` pops it in
    /// the order this deque's owner would have.
    fn hand_over(&self, batch: VecDeque<T>, dest: &mut ReferenceDeque<T>) {
        if self.fifo == dest.fifo {
            dest.items.extend(batch);
        } else {
            dest.items.extend(batch.into_iter().rev());
        }
    }

    /// `Stealer::steal_batch_and_pop` with the deque's own `Worker` as the
    /// destination: moving elements within one deque would change nothing,
    /// so the real deque pops instead, and so does the model.
    pub fn steal_batch_into_self(&mut self) -> Option<T> {
        self.pop()
    }

    /// The elements from top (oldest) to bottom (newest).
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::{ReferenceDeque, MAX_BATCH};

    fn filled(values: std::ops::Range<usize>) -> ReferenceDeque<usize> {
        let mut deque = ReferenceDeque::new();
        values.for_each(|v| deque.push(v));
        deque
    }

    #[test]
    fn owner_is_lifo_and_thieves_are_fifo() {
        let mut deque = filled(0..4);
        assert_eq!(deque.pop(), Some(3));
        assert_eq!(deque.steal(), Some(0));
        assert_eq!(deque.iter().copied().collect::<Vec<_>>(), [1, 2]);
        assert_eq!(deque.steal(), Some(1));
        assert_eq!(deque.pop(), Some(2));
        assert_eq!((deque.pop(), deque.steal(), deque.len()), (None, None, 0));
    }

    #[test]
    fn batch_takes_half_rounded_up_and_keeps_order() {
        let mut victim = filled(0..5);
        let mut thief = filled(100..101);
        assert_eq!(victim.steal_batch_and_pop(&mut thief), Some(2));
        assert_eq!(victim.iter().copied().collect::<Vec<_>>(), [3, 4]);
        assert_eq!(thief.iter().copied().collect::<Vec<_>>(), [100, 0, 1]);
        // The thief's owner pops the newest of the rest first.
        assert_eq!(thief.pop(), Some(1));
    }

    #[test]
    fn batch_of_one_element_takes_it() {
        let mut victim = filled(7..8);
        let mut thief = ReferenceDeque::new();
        assert_eq!(victim.steal_batch_and_pop(&mut thief), Some(7));
        assert!(victim.is_empty() && thief.is_empty());
        assert_eq!(victim.steal_batch_and_pop(&mut thief), None);
    }

    #[test]
    fn batch_is_capped() {
        let mut victim = filled(0..1000);
        let mut thief = ReferenceDeque::new();
        assert_eq!(victim.steal_batch_and_pop(&mut thief), Some(MAX_BATCH - 1));
        assert_eq!(thief.len(), MAX_BATCH - 1);
        assert_eq!(victim.len(), 1000 - MAX_BATCH);
        assert_eq!(
            thief.iter().copied().collect::<Vec<_>>(),
            (0..MAX_BATCH - 1).collect::<Vec<_>>()
        );
    }

    #[test]
    fn batch_size_table() {
        let sizes: Vec<usize> = [0, 1, 2, 3, 4, 63, 64, 65, 1 << 20]
            .into_iter()
            .map(ReferenceDeque::<()>::batch_size)
            .collect();
        assert_eq!(sizes, [0, 1, 1, 2, 2, 32, 32, 32, 32]);
    }

    #[test]
    fn fifo_batches_keep_the_victims_order() {
        // From a FIFO deque: the oldest is returned, the rest popped oldest
        // first by either flavour of thief.
        let mut victim = ReferenceDeque::new_fifo();
        (0..6).for_each(|v| victim.push(v));
        let mut lifo = ReferenceDeque::new();
        assert_eq!(victim.steal_batch_and_pop(&mut lifo), Some(0));
        assert_eq!((lifo.pop(), lifo.pop(), lifo.pop()), (Some(1), Some(2), None));
        let mut fifo = ReferenceDeque::new_fifo();
        assert_eq!(victim.steal_batch_with_limit(&mut fifo, 1), 1);
        assert_eq!((fifo.pop(), victim.pop()), (Some(3), Some(4)));
        // From a LIFO deque into a FIFO one: newest first.
        let mut victim = filled(0..4);
        assert_eq!(victim.steal_batch_with_limit(&mut fifo, 8), 2);
        assert_eq!((fifo.pop(), fifo.pop()), (Some(1), Some(0)));
    }

    #[test]
    fn batch_into_self_pops() {
        let mut deque = filled(0..3);
        assert_eq!(deque.steal_batch_into_self(), Some(2));
        assert_eq!(deque.len(), 2);
    }
}
