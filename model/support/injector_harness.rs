//! What the injector's harnesses share: the value they queue and the
//! checks of FIFO per submitter.
//!
//! Compiled through `#[path]` into `model/loom/injector.rs`,
//! `model/shuttle/injector.rs` and `tests/injector_queue.rs`, next to the
//! queue's own source (`src/lockfree/injector/queue.rs`) and the sync facade, so
//! that its counters are loom's, shuttle's or `std`'s as the harness's are.

use crate::injector_queue::{Link, Linked, Queue};
use crate::sync::{leak_track, Arc, AtomicUsize, LeakTrack, Ordering};
use std::ptr::NonNull;

/// A queued value: its link, who pushed it and when, and a drop counter.
pub struct Item {
    link: Link,
    pub submitter: usize,
    pub sequence: usize,
    drops: Arc<AtomicUsize>,
    /// Under loom, an item never dropped fails the execution.
    _track: LeakTrack,
}

impl Item {
    /// The `sequence`th value of `submitter`, counting its drop in `drops`.
    pub fn boxed(submitter: usize, sequence: usize, drops: &Arc<AtomicUsize>) -> Box<Item> {
        Box::new(Item {
            link: Link::new(),
            submitter,
            sequence,
            drops: drops.clone(),
            _track: leak_track(),
        })
    }
}

impl Drop for Item {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: a box is its own node, live until `from_node` takes it back, and
// its pointer from `Box::into_raw` covers the whole item.
unsafe impl Linked for Box<Item> {
    type Node = Item;

    fn into_node(self) -> NonNull<Item> {
        // SAFETY: `Box::into_raw` is never null.
        unsafe { NonNull::new_unchecked(Box::into_raw(self)) }
    }

    unsafe fn from_node(node: NonNull<Item>) -> Self {
        // SAFETY: from `into_node`, taken back once.
        unsafe { Box::from_raw(node.as_ptr()) }
    }

    unsafe fn link(node: NonNull<Item>) -> *const Link {
        // SAFETY: a live item.
        unsafe { &raw const (*node.as_ptr()).link }
    }
}

/// One `pop_batch` as a worker runs it: the oldest value, then the ones it
/// handed on, popped from a LIFO (the deque's owner end). Returns them in
/// that order, empty if the queue was.
#[allow(clippy::vec_box)] // the boxes are the queue's values, as taken out
pub fn pop_batch_in_run_order(queue: &Queue<Box<Item>>) -> Vec<Box<Item>> {
    let mut lifo = Vec::new();
    let Some(first) = queue.pop_batch(|item| lifo.push(item)) else {
        return Vec::new();
    };
    let mut order = vec![first];
    while let Some(item) = lifo.pop() {
        order.push(item);
    }
    order
}

/// Follows one consumer's values in the order it ran them, asserting FIFO
/// per submitter (Q5): each submitter's sequence numbers strictly increase.
pub struct FifoCheck {
    last: Vec<Option<usize>>,
}

impl FifoCheck {
    pub fn new(submitters: usize) -> Self {
        FifoCheck {
            last: vec![None; submitters],
        }
    }

    /// Records that `submitter`'s value `sequence` ran next.
    pub fn saw(&mut self, submitter: usize, sequence: usize) {
        let previous = self.last[submitter].replace(sequence);
        assert!(
            previous < Some(sequence),
            "submitter {submitter}: value {sequence} came after {previous:?}"
        );
    }
}
