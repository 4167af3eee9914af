//! Jobs addressed to one worker: what `broadcast` and `spawn_broadcast`
//! run on every worker (U1-U3 in `proofs/broadcast.md`).
//!
//! Each worker has a mailbox no other thread takes from. A poster puts the
//! job in, then wakes that worker under its slot's lock (U1); the worker
//! looks in its mailbox when it looks for work, and under that same lock
//! before it sleeps or parks, so a posted job is never left while its
//! worker waits for something else (U2).

use super::ordering::RELAXED;
use crate::lockfree::JobRef;
use crate::sync::{AtomicUsize, Mutex};
use crossbeam_utils::CachePadded;
use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;

/// One worker's mailbox: a queue under a lock (broadcasts are rare, and a
/// lock keeps the mailbox obviously right), and a count the owner reads
/// without the lock on every search.
struct Mailbox {
    jobs: Mutex<VecDeque<JobRef>>,
    /// How many jobs `jobs` holds: written under the lock, read without.
    len: AtomicUsize,
}

/// The mailboxes, one per slot: a broadcast posts to the workers' slots;
/// work handed to a thread that waits for it (Y1) goes to any slot, a
/// spare's included.
pub(crate) struct Mailboxes {
    boxes: Box<[CachePadded<Mailbox>]>,
}

impl Mailboxes {
    pub(crate) fn new(slots: usize) -> Self {
        Mailboxes {
            boxes: (0..slots)
                .map(|_| {
                    CachePadded::new(Mailbox {
                        jobs: Mutex::new(VecDeque::new()),
                        len: AtomicUsize::new(0),
                    })
                })
                .collect(),
        }
    }

    /// U1: puts `job` in worker `slot`'s mailbox. The caller then wakes
    /// that worker (`Registry::post`).
    pub(crate) fn put(&self, slot: usize, job: JobRef) {
        let mailbox = &self.boxes[slot];
        let mut jobs = mailbox.jobs.lock().unwrap_or_else(|e| e.into_inner());
        jobs.push_back(job);
        // U1: relaxed, under the lock; the lock and the poster's wake-up
        // under the slot's lock order it before the worker's look (U2).
        mailbox.len.store(jobs.len(), RELAXED);
    }

    /// Whether worker `slot`'s mailbox holds a job. Exact for the owner
    /// after the poster's wake-up (U2); a hint otherwise.
    #[inline]
    pub(crate) fn has_mail(&self, slot: usize) -> bool {
        // U2: relaxed; a look, confirmed under the lock by `take`.
        self.boxes
            .get(slot)
            .is_some_and(|mailbox| mailbox.len.load(RELAXED) != 0)
    }

    /// U2: the oldest job of worker `slot`'s mailbox, if any. Only that
    /// worker calls it.
    #[inline]
    pub(crate) fn take(&self, slot: usize) -> Option<JobRef> {
        if !self.has_mail(slot) {
            return None;
        }
        let mailbox = &self.boxes[slot];
        let mut jobs = mailbox.jobs.lock().unwrap_or_else(|e| e.into_inner());
        let job = jobs.pop_front();
        // U1: relaxed, under the lock.
        mailbox.len.store(jobs.len(), RELAXED);
        job
    }
}

/// What a broadcast closure learns of where it runs: the worker's index and
/// the pool's size.
///
/// ```
/// let pool = stealpool::ThreadPool::new(3);
/// let seen = pool.broadcast(|context| (context.index(), context.num_threads()));
/// assert_eq!(seen, [(0, 3), (1, 3), (2, 3)]);
/// ```
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    /// Tied to the call, as rayon's is: not kept past it.
    _call: PhantomData<&'a mut ()>,
}

impl BroadcastContext<'_> {
    pub(crate) fn new(index: usize, num_threads: usize) -> Self {
        BroadcastContext {
            index,
            num_threads,
            _call: PhantomData,
        }
    }

    /// The index of the worker this runs on: each of `0..num_threads()`
    /// once per broadcast, equal to
    /// [`current_thread_index`](crate::current_thread_index) here.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let same = pool.broadcast(|context| Some(context.index()) == stealpool::current_thread_index());
    /// assert_eq!(same, [true, true]);
    /// ```
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of workers of the pool, so of calls the broadcast makes.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// assert_eq!(pool.broadcast(|context| context.num_threads()), [2, 2]);
    /// ```
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

impl fmt::Debug for BroadcastContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BroadcastContext")
            .field("index", &self.index)
            .field("num_threads", &self.num_threads)
            .finish()
    }
}
