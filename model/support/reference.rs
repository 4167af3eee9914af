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
}

impl<T> Default for ReferenceDeque<T> {
    fn default() -> Self {
        ReferenceDeque {
            items: VecDeque::new(),
        }
    }
}

impl<T> ReferenceDeque<T> {
    /// An empty deque.
    pub fn new() -> Self {
        Self::default()
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

    /// `Worker::pop`: takes the newest element, from the bottom.
    pub fn pop(&mut self) -> Option<T> {
        self.items.pop_back()
    }

    /// `Stealer::steal`: takes the oldest element, from the top.
    pub fn steal(&mut self) -> Option<T> {
        self.items.pop_front()
    }

    /// The number of elements `steal_batch_and_pop` takes from a deque of
    /// `len` elements: half, rounded up, at most [`MAX_BATCH`]. Rounding up
    /// lets a thief take the only element; taking no more than half leaves
    /// the owner the newest (hottest) half of its work.
    pub fn batch_size(len: usize) -> usize {
        len.div_ceil(2).min(MAX_BATCH)
    }

    /// `Stealer::steal_batch_and_pop` into another deque's `Worker`: takes
    /// [`batch_size`](Self::batch_size) elements from the top, returns the
    /// newest of them (as crossbeam-deque's LIFO workers do) and pushes the
    /// others into `dest` oldest first, so they keep their relative order
    /// there.
    pub fn steal_batch_and_pop(&mut self, dest: &mut ReferenceDeque<T>) -> Option<T> {
        let count = Self::batch_size(self.len());
        dest.items.extend(self.items.drain(..count));
        if count == 0 {
            None
        } else {
            dest.items.pop_back()
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
    fn batch_into_self_pops() {
        let mut deque = filled(0..3);
        assert_eq!(deque.steal_batch_into_self(), Some(2));
        assert_eq!(deque.len(), 2);
    }
}
