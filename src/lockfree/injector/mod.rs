//! The public injector: a FIFO queue that any thread pushes to and steals
//! from, built on the pool's verified intake queue and on the deque.
//!
//! Two verified parts, one hand-over between them (`proofs/injector.md`,
//! Q8 and Q9):
//!
//! * **the intake**, the lock-free multi-producer queue of
//!   `lockfree/injector/queue.rs` (Q1-Q6): a push is one CAS and never waits;
//!   each element travels in a node of its own, allocated by the push;
//! * **a deque** (`proofs/deque.md`) whose top holds the oldest elements:
//!   every steal steals from it, lock-free, as from any `Stealer`.
//!
//! A steal that finds the deque empty claims its owner end (Q8, a CAS of a
//! flag; one thread at a time), takes the whole intake in one swap (Q3),
//! keeps the oldest element and pushes the others onto the deque's bottom
//! oldest first, then gives the owner end up. A steal that finds the owner
//! end held returns [`Steal::Retry`], never waits. Each producer's
//! elements thus leave in the order it pushed them: an element in the deque
//! was taken from the intake before any element still there was pushed.

// One file per job: the lock-free intake queue; the orderings of both.
pub(crate) mod ordering;
mod queue;

pub(crate) use queue::{Link, Linked, Queue};

use super::Steal;
use super::Stealer;
use super::Worker;
use crate::lockfree::deque::assert_limit;
use crate::lockfree::deque::MAX_BATCH;
use crate::sync::{AtomicBool, AtomicUsize, UnsafeCell};
use crossbeam_utils::CachePadded;
use ordering::{PENDING_LOAD, PENDING_MOVED, PENDING_PUSH, REFILL_CLAIM, REFILL_RELEASE};
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// A FIFO queue shared by any number of threads, for work from outside a
/// set of workers: crossbeam-deque's `Injector`.
///
/// [`push`](Self::push) is lock-free (one CAS) and allocates one node per
/// element. [`steal`](Self::steal) takes the oldest element; the batch
/// steals move several onto a [`Worker`]. Elements pushed by one thread are
/// stolen in the order it pushed them.
///
/// ```
/// use stealpool::deque::{Injector, Steal};
///
/// let injector = Injector::new();
/// injector.push(1);
/// injector.push(2);
/// assert_eq!(injector.steal(), Steal::Success(1));
/// assert_eq!(injector.steal(), Steal::Success(2));
/// assert_eq!(injector.steal(), Steal::Empty);
/// ```
pub struct Injector<T> {
    /// New elements, newest first (`injector_queue.rs`).
    intake: Queue<Owned<T>>,
    /// Elements pushed and not yet moved onto `deque`: counted by the push
    /// before its CAS (Q9), uncounted by the refill that moved them, after
    /// it pushed them on the deque.
    pending: CachePadded<AtomicUsize>,
    /// Whether a thread holds the owner end `worker` (Q8).
    refilling: CachePadded<AtomicBool>,
    /// The owner end of the deque, and a scratch list for a refill: used
    /// only by the thread that holds `refilling`.
    owner: UnsafeCell<Owner>,
    /// The thieves' end of the same deque: the oldest elements at its top.
    deque: Stealer<RawNode>,
    /// The injector owns the `T`s in its nodes.
    _owns: PhantomData<T>,
}

struct Owner {
    worker: Worker<RawNode>,
    /// The intake's elements, newest first, while a refill reverses them;
    /// empty otherwise (kept for its capacity).
    scratch: Vec<RawNode>,
}

// SAFETY: the injector moves `T`s between threads and never shares a `&T`.
// Its owner end is used by one thread at a time, the one that holds
// `refilling` (Q8); everything else is atomic or a `Stealer`.
unsafe impl<T: Send> Send for Injector<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Injector<T> {}

impl<T> Injector<T> {
    /// Creates an empty injector.
    ///
    /// ```
    /// let injector = stealpool::deque::Injector::<String>::new();
    /// assert!(injector.is_empty());
    /// ```
    pub fn new() -> Self {
        let worker = Worker::new();
        let deque = worker.stealer();
        Injector {
            intake: Queue::new(),
            pending: CachePadded::new(AtomicUsize::new(0)),
            refilling: CachePadded::new(AtomicBool::new(false)),
            owner: UnsafeCell::new(Owner {
                worker,
                scratch: Vec::new(),
            }),
            deque,
            _owns: PhantomData,
        }
    }

    /// Pushes `value` at the back. Lock-free: one CAS, retried only when
    /// another push or a refill changed the intake in between.
    ///
    /// ```
    /// let injector = stealpool::deque::Injector::new();
    /// injector.push(Box::new([0u8; 100]));
    /// assert_eq!(injector.len(), 1);
    /// ```
    pub fn push(&self, value: T) {
        let node = Box::new(Node {
            link: Link::new(),
            value,
        });
        // Q9: counted before the CAS that makes it stealable, so `pending`
        // is never less than what the intake holds.
        self.pending.fetch_add(1, PENDING_PUSH);
        self.intake.push(Owned(NonNull::from(Box::leak(node))));
    }

    /// Steals the oldest element.
    ///
    /// [`Steal::Retry`] when another thread won the element, or is moving
    /// new elements where steals find them; [`Steal::Empty`] when the
    /// injector held no element at some moment during the call.
    ///
    /// ```
    /// use stealpool::deque::{Injector, Steal};
    ///
    /// let injector = Injector::new();
    /// assert_eq!(injector.steal(), Steal::Empty);
    /// injector.push("a");
    /// assert_eq!(injector.steal(), Steal::Success("a"));
    /// ```
    pub fn steal(&self) -> Steal<T> {
        match self.deque.steal() {
            // SAFETY: the deque's words are nodes a refill moved there, and
            // the steal's claim made this one ours.
            Steal::Success(node) => Steal::Success(unsafe { node.into_value() }),
            Steal::Retry => Steal::Retry,
            Steal::Empty => self.refill(),
        }
    }

    /// Steals a batch of the oldest elements (about half of what the
    /// injector holds, at most 32) and pushes them onto `dest` so that its
    /// owner pops them oldest first, whatever its flavour:
    /// [`steal_batch_with_limit`](Self::steal_batch_with_limit) with a
    /// limit of 32. [`Steal::Success`] if at least one element moved.
    ///
    /// ```
    /// use stealpool::deque::{Injector, Steal, Worker};
    ///
    /// let injector = Injector::new();
    /// for i in 1..=4 {
    ///     injector.push(i);
    /// }
    /// let worker = Worker::new();
    /// assert_eq!(injector.steal_batch(&worker), Steal::Success(()));
    /// assert_eq!(worker.pop(), Some(1));
    /// assert_eq!(worker.pop(), Some(2));
    /// ```
    pub fn steal_batch(&self, dest: &Worker<T>) -> Steal<()> {
        self.steal_batch_with_limit(dest, MAX_BATCH)
    }

    /// Steals a batch of the oldest elements, about half of what the
    /// injector holds and at most `limit` (and at most 32, as crossbeam's
    /// injector caps a batch at the end of its block), and pushes them
    /// onto `dest` so that its owner pops them oldest first:
    /// crossbeam-deque 0.8's `steal_batch_with_limit`.
    ///
    /// ```
    /// use stealpool::deque::{Injector, Steal, Worker};
    ///
    /// let injector = Injector::new();
    /// for i in 1..=6 {
    ///     injector.push(i);
    /// }
    /// let worker = Worker::new_fifo();
    /// assert_eq!(injector.steal_batch_with_limit(&worker, 2), Steal::Success(()));
    /// assert_eq!(worker.pop(), Some(1));
    /// assert_eq!(worker.pop(), Some(2));
    /// assert_eq!(worker.pop(), None);
    /// ```
    ///
    /// # Panics
    ///
    /// If `limit` is 0, as crossbeam-deque's does; see
    /// [`Stealer::steal_batch_with_limit`](super::Stealer::steal_batch_with_limit)
    /// for why this is not an error value.
    pub fn steal_batch_with_limit(&self, dest: &Worker<T>, limit: usize) -> Steal<()> {
        assert_limit(limit, "Injector::steal_batch_with_limit");
        match self.steal_batch_into(dest, limit, false) {
            Steal::Success(_) => Steal::Success(()),
            Steal::Empty => Steal::Empty,
            Steal::Retry => Steal::Retry,
        }
    }

    /// Steals a batch of the oldest elements (about half of what the
    /// injector holds, at most 32), returns the oldest of them and pushes
    /// the others onto `dest` so that its owner pops them oldest first, as
    /// crossbeam-deque's does:
    /// [`steal_batch_with_limit_and_pop`](Self::steal_batch_with_limit_and_pop)
    /// with a limit of 32.
    ///
    /// ```
    /// use stealpool::deque::{Injector, Steal, Worker};
    ///
    /// let injector = Injector::new();
    /// for i in 1..=6 {
    ///     injector.push(i);
    /// }
    /// let worker = Worker::new();
    /// assert_eq!(injector.steal_batch_and_pop(&worker), Steal::Success(1));
    /// assert_eq!(worker.pop(), Some(2));
    /// assert_eq!(worker.pop(), Some(3));
    /// ```
    pub fn steal_batch_and_pop(&self, dest: &Worker<T>) -> Steal<T> {
        self.steal_batch_with_limit_and_pop(dest, MAX_BATCH)
    }

    /// Steals a batch of the oldest elements, at most `limit` in all,
    /// sized as by [`steal_batch_with_limit`](Self::steal_batch_with_limit),
    /// returns the oldest and pushes the others onto `dest` so that its
    /// owner pops them oldest first: crossbeam-deque 0.8's
    /// `steal_batch_with_limit_and_pop`.
    ///
    /// ```
    /// use stealpool::deque::{Injector, Steal, Worker};
    ///
    /// let injector = Injector::new();
    /// for i in 1..=6 {
    ///     injector.push(i);
    /// }
    /// let worker = Worker::new_fifo();
    /// assert_eq!(injector.steal_batch_with_limit_and_pop(&worker, 2), Steal::Success(1));
    /// assert_eq!(worker.pop(), Some(2));
    /// assert_eq!(worker.pop(), None);
    /// ```
    ///
    /// # Panics
    ///
    /// If `limit` is 0, as [`steal_batch_with_limit`](Self::steal_batch_with_limit).
    pub fn steal_batch_with_limit_and_pop(&self, dest: &Worker<T>, limit: usize) -> Steal<T> {
        assert_limit(limit, "Injector::steal_batch_with_limit_and_pop");
        match self.steal_batch_into(dest, limit, true) {
            Steal::Success(Some(oldest)) => Steal::Success(oldest),
            // `steal_batch_into` keeps the oldest when asked to.
            Steal::Success(None) => unreachable!("an injector batch asked to keep one kept none"),
            Steal::Empty => Steal::Empty,
            Steal::Retry => Steal::Retry,
        }
    }

    /// Takes the oldest element and about half of what is left (at most
    /// `limit` in all, at least 1, and at most 32), keeps the oldest if
    /// `keep`, and pushes the others onto `dest` in the order its owner
    /// pops them oldest first: oldest first onto a FIFO worker, newest
    /// first onto a LIFO one.
    fn steal_batch_into(&self, dest: &Worker<T>, limit: usize, keep: bool) -> Steal<Option<T>> {
        let first = match self.deque.steal() {
            // SAFETY: as in `steal`.
            Steal::Success(node) => unsafe { node.into_value() },
            Steal::Retry => return Steal::Retry,
            Steal::Empty => match self.refill() {
                Steal::Success(value) => value,
                Steal::Empty => return Steal::Empty,
                Steal::Retry => return Steal::Retry,
            },
        };
        // Half of what is left, rounded up, with the first: at least one
        // more if any is left.
        let more = self.deque.len().div_ceil(2).min(limit - 1).min(MAX_BATCH - 1);
        let in_order = dest.is_fifo();
        let kept = if keep {
            Some(first)
        } else if in_order {
            dest.push(first);
            None
        } else {
            // Pushed last, below: a LIFO worker pops it first.
            Some(first)
        };
        let mut batch = [const { None::<RawNode> }; MAX_BATCH - 1];
        let mut taken = 0;
        while taken < more {
            match self.deque.steal() {
                // SAFETY: as in `steal`; each node is ours by its steal's
                // claim, and handed on once.
                Steal::Success(node) if in_order => dest.push(unsafe { node.into_value() }),
                Steal::Success(node) => batch[taken] = Some(node),
                Steal::Empty | Steal::Retry => break,
            }
            taken += 1;
        }
        // Newest first onto a LIFO `dest`'s bottom, so that it pops the
        // oldest first.
        for node in batch[..taken].iter_mut().rev() {
            if let Some(node) = node.take() {
                // SAFETY: as in `steal`.
                dest.push(unsafe { node.into_value() });
            }
        }
        match kept {
            Some(first) if !keep => {
                dest.push(first);
                Steal::Success(None)
            }
            kept => Steal::Success(kept),
        }
    }

    /// `true` if the injector held no element at the moment of the
    /// snapshot.
    ///
    /// ```
    /// let injector = stealpool::deque::Injector::new();
    /// assert!(injector.is_empty());
    /// injector.push(());
    /// assert!(!injector.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of elements (a snapshot; while other threads push and
    /// steal, a momentary estimate that may count an element being moved
    /// twice).
    ///
    /// ```
    /// let injector = stealpool::deque::Injector::new();
    /// injector.push(1);
    /// injector.push(2);
    /// assert_eq!(injector.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        // Q9: the intake's count first: an element it no longer counts was
        // on the deque before the count dropped.
        let pending = self.pending.load(PENDING_LOAD);
        pending + self.deque.len()
    }

    /// The deque was seen empty: if the intake holds elements, claims the
    /// owner end (Q8), takes the intake, and returns its oldest element,
    /// moving the rest onto the deque. `Retry` if another thread holds the
    /// owner end, or an element is being pushed; `Empty` if nothing is
    /// pending and the deque is still empty.
    #[cold]
    fn refill(&self) -> Steal<T> {
        // Q9: every element not yet on the deque is counted here; with none,
        // a deque still empty after this load means the injector was empty
        // at it.
        if self.pending.load(PENDING_LOAD) == 0 {
            return if self.deque.is_empty() {
                Steal::Empty
            } else {
                Steal::Retry
            };
        }
        // Q8: one owner at a time; the others retry rather than wait.
        if self
            .refilling
            .compare_exchange(false, true, REFILL_CLAIM, REFILL_CLAIM_FAILURE)
            .is_err()
        {
            return Steal::Retry;
        }
        let guard = ReleaseOnDrop(&self.refilling);
        let oldest = self.owner.with_mut(|owner| {
            // SAFETY: this thread holds `refilling` (Q8) until `guard`
            // drops, so no other thread touches the owner end meanwhile,
            // and the claim made the last holder's use of it happen before
            // this one.
            let owner = unsafe { &mut *owner };
            self.take_for_owner(owner)
        });
        drop(guard);
        match oldest {
            // SAFETY: taken from the intake (whose swap made it ours) or
            // popped by the owner end's claim (D17).
            Some(node) => Steal::Success(unsafe { node.into_value() }),
            // Counted but not yet in the intake: a push is between its count
            // and its CAS.
            None => Steal::Retry,
        }
    }

    /// Takes the oldest element for a steal that holds the owner end (Q8):
    /// what a previous owner left on the deque, else the intake's oldest,
    /// with the rest of the intake moved onto the deque.
    fn take_for_owner(&self, owner: &mut Owner) -> Option<RawNode> {
        // A previous owner may have filled the deque after our steal found
        // it empty: what is there is older than the intake's elements.
        let oldest = if let Some(node) = owner.worker.pop_oldest() {
            Some(node)
        } else {
            owner
                .scratch
                .extend(self.intake.take_all().map(RawNode::from_owned));
            let count = owner.scratch.len();
            // The intake yields newest first: the last is the oldest.
            let oldest = owner.scratch.pop();
            for node in owner.scratch.drain(..).rev() {
                owner.worker.push(node);
            }
            // Q9: uncounted only now that they are on the deque.
            self.pending.fetch_sub(count, PENDING_MOVED);
            oldest
        };
        oldest
    }
}

/// Q8's failure ordering: a failed claim reads nothing through the flag.
const REFILL_CLAIM_FAILURE: crate::sync::Ordering = crate::sync::Ordering::Relaxed;

/// Gives the owner end up (Q8), also when a push onto the deque panics.
struct ReleaseOnDrop<'a>(&'a AtomicBool);

impl Drop for ReleaseOnDrop<'_> {
    fn drop(&mut self) {
        // Q8: release, so the next holder sees this holder's writes.
        self.0.store(false, REFILL_RELEASE);
    }
}

impl<T> Drop for Injector<T> {
    fn drop(&mut self) {
        // The elements on the deque: nodes the intake no longer holds. Those
        // still in the intake are dropped with it.
        self.owner.with_mut(|owner| {
            // SAFETY: `&mut self`: no other thread holds the owner end.
            let owner = unsafe { &mut *owner };
            while let Some(node) = owner.worker.pop() {
                // SAFETY: popped by the owner, so ours, once.
                drop(unsafe { node.into_value::<T>() });
            }
        });
    }
}

impl<T> Default for Injector<T> {
    /// An empty injector, as [`new`](Self::new).
    ///
    /// ```
    /// let injector: stealpool::deque::Injector<u8> = Default::default();
    /// assert!(injector.is_empty());
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl<T> fmt::Debug for Injector<T> {
    /// The snapshot length, as crossbeam-deque shows none: `Injector { len: 2, .. }`.
    ///
    /// ```
    /// let injector = stealpool::deque::Injector::new();
    /// injector.push(1);
    /// assert_eq!(format!("{injector:?}"), "Injector { len: 1, .. }");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Injector")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

/// An element in its node: the intake's link, then the value.
struct Node<T> {
    link: Link,
    value: T,
}

/// A node the intake holds: owns its `Box<Node<T>>`.
struct Owned<T>(NonNull<Node<T>>);

// SAFETY: a box of a `Node<T>` moves with its `T`.
unsafe impl<T: Send> Send for Owned<T> {}

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        // SAFETY: `Owned` holds the only pointer to a leaked box (`push`),
        // freed once, here.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

// SAFETY: the node is a leaked box, live until the `Owned` that
// `from_node` rebuilds frees it; `into_node` gives up the pointer with its
// provenance; the link is the node's own field, which only the queue
// touches while the node is queued.
unsafe impl<T> Linked for Owned<T> {
    type Node = Node<T>;

    fn into_node(self) -> NonNull<Node<T>> {
        let node = self.0;
        std::mem::forget(self);
        node
    }

    unsafe fn from_node(node: NonNull<Node<T>>) -> Self {
        Owned(node)
    }

    unsafe fn link(node: NonNull<Node<T>>) -> *const Link {
        // SAFETY: the node is live (the caller's contract); no reference to
        // it is made.
        unsafe { &raw const (*node.as_ptr()).link }
    }
}

/// A node on the deque, its type erased: one word that the deque keeps as
/// itself (`element.rs`), so the deque allocates nothing per element.
pub(crate) struct RawNode(NonNull<()>);

impl RawNode {
    fn from_owned<T>(owned: Owned<T>) -> RawNode {
        RawNode(owned.into_node().cast())
    }

    /// The value, with the node freed.
    ///
    /// # Safety
    ///
    /// `self` came from `from_owned::<T>`, and is taken once.
    unsafe fn into_value<T>(self) -> T {
        // SAFETY: a leaked `Box<Node<T>>` (the caller's contract).
        let node = unsafe { Box::from_raw(self.0.cast::<Node<T>>().as_ptr()) };
        node.value
    }
}

// SAFETY: a `RawNode` on the deque owns its node, whose value is `Send`
// (the injector holds only `T: Send` across threads).
unsafe impl Send for RawNode {}

#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::{Injector, RawNode};
    use crate::lockfree::{is_boxed, Steal, Worker};

    #[test]
    fn nodes_travel_the_deque_unboxed() {
        assert!(!is_boxed::<RawNode>());
    }

    #[test]
    fn a_refill_keeps_each_producers_order() {
        let injector = Injector::new();
        for i in 0..10 {
            injector.push(Box::new(i));
        }
        assert_eq!(injector.steal(), Steal::Success(Box::new(0)));
        injector.push(Box::new(10));
        let worker = Worker::new();
        let mut got = vec![];
        while let Steal::Success(v) = injector.steal_batch_and_pop(&worker) {
            got.push(*v);
            while let Some(v) = worker.pop() {
                got.push(*v);
            }
        }
        assert_eq!(got, (1..=10).collect::<Vec<_>>());
        assert!(injector.is_empty());
    }
}
