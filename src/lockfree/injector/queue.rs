//! The injector's queue: an intrusive lock-free multi-producer stack that
//! consumers empty in one swap.
//!
//! Every value carries its own [`Link`] (for the pool, inside the
//! `JobHeader` that starts every job), so a push allocates nothing: a
//! producer writes its value's link and swings `head` to the value with one
//! CAS (Q1, Q2), and never reads another value. A consumer takes every queued
//! value at once (Q3) and owns them from then on. It reads them newest first,
//! the reverse of the order of the pushes' CASes, which `pop_batch` turns
//! back into oldest first for whoever pops the values it hands on (Q5), and
//! `pop_batch_in_order` hands on oldest first, reversing the list in place
//! (Q7); and
//! it reads each value's link before it hands the value on, so no link is
//! read once another thread may have the value (Q6). The queue frees
//! nothing: a value's memory is its owner's. The proof is
//! `proofs/injector.md`.
//!
//! Generic and free of the pool's types so that the model checkers and Miri
//! can run this very file on its own (`model/loom/injector.rs`,
//! `model/shuttle/injector.rs`, `tests/injector_queue.rs`).

use super::ordering::{PUSH_CAS, RELAXED, TAKE_SWAP};
use crate::sync::flags::bug;
use crate::sync::{AtomicPtr, UnsafeCell};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr::{self, NonNull};

/// The link word inside a queued value: the address of the value pushed
/// before it, or 0 for none.
///
/// Written by the value's pusher before the CAS that publishes it (Q2), then
/// read only by the consumer whose swap took it (Q3, Q6), so a missing
/// happens-before edge is a race the model checkers see. An address, not a
/// pointer: a pusher's view of `head` may be older than a value that was
/// taken, freed, and replaced by another at the same address (ABA), and only
/// the exposed provenance of the live value makes the link usable (Q6).
///
/// Its value is meaningful only while the value is queued, so it starts
/// unwritten: nothing reads it before `push` writes it.
pub(crate) struct Link(UnsafeCell<MaybeUninit<usize>>);

impl Link {
    /// A link not in any queue.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Link(UnsafeCell::new(MaybeUninit::uninit()))
    }
}

/// A value that can sit in a [`Queue`]: a pointer to a node that holds a
/// [`Link`].
///
/// # Safety
///
/// * `into_node` gives the value up as a pointer to its node, whose
///   provenance covers everything `from_node`'s value will access, and
///   `from_node(into_node(v))` gives `v` back;
/// * the node stays live from `into_node` until `from_node` takes the value
///   back;
/// * `link` returns a pointer to the node's own `Link`, which nothing but the
///   queue touches while the value is given up.
pub(crate) unsafe trait Linked: Sized {
    /// What the value points to.
    type Node;

    /// Gives the value up as a pointer to its node.
    fn into_node(self) -> NonNull<Self::Node>;

    /// Takes a value given up by `into_node` back.
    ///
    /// # Safety
    ///
    /// `node` came from `into_node` (its address; see Q6 for the
    /// provenance) and is taken back once.
    unsafe fn from_node(node: NonNull<Self::Node>) -> Self;

    /// The node's link.
    ///
    /// # Safety
    ///
    /// `node` came from `into_node` and has not been taken back yet.
    unsafe fn link(node: NonNull<Self::Node>) -> *const Link;
}

/// A FIFO per producer of `T`s: lock-free `push`, take-everything
/// `take_all`.
pub(crate) struct Queue<T: Linked> {
    /// The newest value's node, or null; each node links to the one pushed
    /// before it.
    head: AtomicPtr<T::Node>,
    _values: PhantomData<T>,
}

// SAFETY: values move from the pushing thread to the taking thread (so
// `T: Send`), and each link is accessed by one thread at a time: the pusher
// until Q2, then the consumer whose Q3 swapped it out (Q6).
unsafe impl<T: Linked + Send> Send for Queue<T> {}
// SAFETY: as above; `&Queue` gives only `push`, `is_empty`, `take_all` and
// `pop_batch`.
unsafe impl<T: Linked + Send> Sync for Queue<T> {}

impl<T: Linked> Queue<T> {
    pub(crate) fn new() -> Self {
        Queue {
            head: AtomicPtr::new(ptr::null_mut()),
            _values: PhantomData,
        }
    }

    /// Appends `value`. Lock-free: one CAS, retried only when another push
    /// or a take changed `head` in between.
    pub(crate) fn push(&self, value: T) {
        let node = value.into_node();
        // Q6: every node's provenance is exposed, so a consumer may rebuild a
        // pointer to it from the address in its successor's link.
        let _ = node.as_ptr().expose_provenance();
        // SAFETY: the node is ours until the CAS below publishes it.
        let link = unsafe { T::link(node) };
        // Q1: relaxed; the value only seeds the CAS and is never dereferenced.
        let mut head = self.head.load(RELAXED);
        loop {
            // SAFETY: not published yet: only this thread reaches the link.
            unsafe { (*link).0.with_mut(|next| *next = MaybeUninit::new(head.addr())) };
            // Q2: release publishes the link (and everything written to the
            // value before the push) to the consumer's Q3; a failure (Q1) only
            // reloads `head`.
            match self
                .head
                .compare_exchange_weak(head, node.as_ptr(), PUSH_CAS, RELAXED)
            {
                Ok(_) => return,
                Err(current) => head = current,
            }
        }
    }

    /// Whether no value is queued (Q4: a relaxed snapshot; the sleep
    /// protocol's fences make it recent enough where it matters).
    pub(crate) fn is_empty(&self) -> bool {
        self.head.load(RELAXED).is_null()
    }

    /// Takes every queued value; the iterator yields them newest first.
    pub(crate) fn take_all(&self) -> Taken<T> {
        // Q4: a relaxed look first, so that idle workers polling an empty
        // queue do not write its line.
        let newest = if self.is_empty() {
            ptr::null_mut()
        } else {
            // Q3: acquire pairs with the Q2 of every value in the list.
            self.head.swap(ptr::null_mut(), TAKE_SWAP)
        };
        Taken {
            next: newest,
            _values: PhantomData,
        }
    }

    /// Takes every queued value; the iterator yields them oldest first
    /// (Q7): the list this thread's swap took is reversed in place first,
    /// each link rewritten to the address of the value pushed after it.
    /// One more pass over the values than `take_all`, and a write to each.
    /// `--cfg stealpool_bug="batch_newest_first"` leaves the list as it
    /// was taken, newest first: the mistake Q7 rules out.
    pub(crate) fn take_all_oldest_first(&self) -> Taken<T> {
        let mut newest = self.take_all();
        if bug!("batch_newest_first") {
            return newest;
        }
        let mut reversed: *mut T::Node = ptr::null_mut();
        while let Some(node) = NonNull::new(newest.next) {
            // Q6, Q7: a node of the list our Q3 took, not handed on: its
            // link is ours. Read the older node's address, then point the
            // link at the newer one (exposed by its push, Q6).
            // SAFETY: as above; the link was written by `push` (Q2).
            let link = unsafe { T::link(node) };
            let older = unsafe { (*link).0.with(|next| (*next).assume_init()) };
            // SAFETY: as above: no other thread reaches this link.
            unsafe {
                (*link)
                    .0
                    .with_mut(|next| *next = MaybeUninit::new(reversed.addr()))
            };
            reversed = node.as_ptr();
            newest.next = ptr::with_exposed_provenance_mut(older);
        }
        Taken {
            next: reversed,
            _values: PhantomData,
        }
    }

    /// Takes every queued value, returns the oldest, and hands the others to
    /// `hand_on` newest first: pushed in that order on a LIFO (a deque's
    /// owner end), they pop oldest first (Q5). Each value's link is read
    /// before the value is handed on (Q6).
    pub(crate) fn pop_batch(&self, mut hand_on: impl FnMut(T)) -> Option<T> {
        let mut taken = self.take_all();
        let mut oldest = taken.next()?;
        for older in taken {
            hand_on(std::mem::replace(&mut oldest, older));
        }
        Some(oldest)
    }

    /// Takes every queued value, returns the oldest, and hands the others to
    /// `hand_on` oldest first (Q7): pushed in that order on a FIFO (a
    /// deque taken from its old end by its owner and its thieves), they
    /// come out oldest first, behind whatever it held.
    pub(crate) fn pop_batch_in_order(&self, mut hand_on: impl FnMut(T)) -> Option<T> {
        let mut taken = self.take_all_oldest_first();
        let oldest = taken.next()?;
        for value in taken {
            hand_on(value);
        }
        Some(oldest)
    }
}

impl<T: Linked> Drop for Queue<T> {
    fn drop(&mut self) {
        // Whatever is still queued is dropped with the queue.
        drop(self.take_all());
    }
}

/// The values one `take_all` took, newest first. Values not iterated are
/// dropped with it, except while the thread is panicking (a panicking
/// `hand_on` in `pop_batch`): they are leaked then, since a second panic in
/// one of their drops would abort the process.
pub(crate) struct Taken<T: Linked> {
    /// The next value to yield, or null.
    next: *mut T::Node,
    _values: PhantomData<T>,
}

impl<T: Linked> Iterator for Taken<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let node = NonNull::new(self.next)?;
        // Q6: the link is read before the value leaves this iterator: once
        // the caller hands the value on, another thread may push it again
        // (writing its link) or free it.
        // SAFETY: a node of the list this thread's Q3 swapped out, not
        // handed on yet; nobody else reaches its link.
        // The link was written by `push` (Q2) before the node was queued.
        let older = unsafe { (*T::link(node)).0.with(|next| (*next).assume_init()) };
        // Q6: the older node's address, with the provenance it exposed when
        // it was pushed.
        self.next = ptr::with_exposed_provenance_mut(older);
        // SAFETY: pushed by `push` (so from `into_node`) and taken once: the
        // swap took the list whole.
        Some(unsafe { T::from_node(node) })
    }
}

impl<T: Linked> Drop for Taken<T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        for value in self.by_ref() {
            drop(value);
        }
    }
}
