//! A thief's end of the deque: steal from the top.

use super::ordering::{
    barrier, fence, CAS_FAILURE, LOAD_BUFFER, OWNER_LOCAL, STEAL_CAS, STEAL_FENCE, STEAL_HEAVY_BARRIER,
    STEAL_LOAD_BOTTOM, STEAL_LOAD_TOP,
};
use super::Inner;
use super::MAX_BATCH;
use crate::lockfree::element::from_word;
use crate::lockfree::Steal;
use crate::lockfree::Worker;
use crate::sync::flags::bug;
use crate::sync::Arc;
use std::fmt;

/// A thief's end of a work-stealing deque: takes the oldest elements.
///
/// `Stealer`s are cheap to clone and can be shared between threads.
///
/// ```
/// use stealpool::deque::{Steal, Worker};
/// use std::thread;
///
/// let worker = Worker::new();
/// for i in 0..100usize {
///     worker.push(i);
/// }
/// let stealer = worker.stealer();
/// let stolen = thread::spawn(move || {
///     let mut sum = 0;
///     loop {
///         match stealer.steal() {
///             Steal::Success(i) => sum += i,
///             Steal::Retry => continue,
///             Steal::Empty => return sum,
///         }
///     }
/// })
/// .join()
/// .unwrap();
/// let mut rest = 0;
/// while let Some(i) = worker.pop() {
///     rest += i;
/// }
/// assert_eq!(stolen + rest, (0..100).sum::<usize>());
/// ```
pub struct Stealer<T> {
    inner: Arc<Inner<T>>,
    /// The owner pops with a light barrier (D15), so steals run the heavy
    /// one (D16).
    owner_biased: bool,
    /// The owner pops the oldest (`Worker::new_fifo`, D19): a batch steal
    /// hands what it took over in that order.
    fifo: bool,
}

impl<T> Stealer<T> {
    pub(super) fn new(inner: Arc<Inner<T>>, owner_biased: bool, fifo: bool) -> Self {
        Stealer {
            inner,
            owner_biased,
            fifo,
        }
    }

    /// The number of elements in the deque (a snapshot).
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// `true` if the deque held no element at the moment of the snapshot.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Steals the oldest element if it sits at index `min_index` or above
    /// and `accept` takes the word its slot holds; otherwise `Empty`, with
    /// nothing claimed: `steal` with two tests, before D6 and between
    /// D11's read and D9's claim (D18), and the code of `steal` itself. For
    /// the pool's waits, which may take only work pushed after a point
    /// (H6 in `proofs/waits.md`).
    #[inline(always)]
    pub(crate) fn steal_if(&self, min_index: i64, accept: impl FnOnce(*mut ()) -> bool) -> Steal<T> {
        let inner = &*self.inner;
        // `--cfg stealpool_bug="stale_buffer"`: the buffer read before `top`
        // and `bottom`, the mistake R2 rules out (it is loaded after D7).
        let stale = if bug!("stale_buffer") {
            Some(inner.buffer.load(LOAD_BUFFER))
        } else {
            None
        };
        // D5: relaxed; the fence D6 right after acquires for it.
        let top = inner.top.load(STEAL_LOAD_TOP);
        // D18: the oldest element is below the point: declined, with
        // nothing read or claimed. (`steal`'s point is the lowest index.)
        if top < min_index {
            return Steal::Empty;
        }
        if self.owner_biased {
            // D16: a look before paying for the heavy barrier. Relaxed (D12):
            // an empty answer may be stale, which a thief that must not miss
            // a push rules out with a heavy barrier of its own first.
            if inner.bottom.load(OWNER_LOCAL) - top <= 0 {
                return Steal::Empty;
            }
            // D16: the heavy side of the pair with the owner's D15, in D6's
            // place.
            barrier(STEAL_HEAVY_BARRIER);
        } else {
            // D6: SeqCst fence, the thief's half of the store-buffering pair
            // with the owner's D3.
            fence(STEAL_FENCE);
        }
        // D7: acquire `bottom` from the push that published the slot (D2).
        let bottom = inner.bottom.load(STEAL_LOAD_BOTTOM);
        if bottom - top <= 0 {
            return Steal::Empty;
        }
        // D8: acquire the buffer pointer (D10), loaded only after `bottom`:
        // the push that made index `top` visible came after any growth that
        // moved it, so this is that buffer or a newer copy (R2).
        let buffer = match stale {
            Some(buffer) => buffer,
            None => inner.buffer.load(LOAD_BUFFER),
        };
        // D11: relaxed read. It may race with the owner rewriting the slot
        // after a wrap; then `top` has moved and the CAS below fails.
        // SAFETY: buffers are freed only with `inner`, which we hold.
        let word = unsafe { (*buffer).read(top) };
        // D18: the word is only looked at, never turned into an element,
        // unless the CAS below makes it ours. (`steal` accepts every word.)
        if !accept(word) {
            return Steal::Empty;
        }
        // D9: claim index `top`. Atomicity decides between us, other
        // thieves and the owner's D4; release orders our slot read before
        // the owner reuses the slot (D1).
        if inner
            .top
            .compare_exchange(top, top + 1, STEAL_CAS, CAS_FAILURE)
            .is_err()
        {
            return Steal::Retry;
        }
        // SAFETY: the CAS made index `top` ours; its word is converted once.
        Steal::Success(unsafe { from_word::<T>(word) })
    }

    /// Steals the oldest element.
    ///
    /// Returns [`Steal::Retry`] when another thread claimed that element
    /// first; the deque may still hold more.
    ///
    /// ```
    /// use stealpool::deque::{Steal, Worker};
    ///
    /// let worker = Worker::new();
    /// worker.push(1usize);
    /// worker.push(2);
    /// let stealer = worker.stealer();
    /// assert_eq!(stealer.steal(), Steal::Success(1));
    /// assert_eq!(stealer.steal(), Steal::Success(2));
    /// assert_eq!(stealer.steal(), Steal::Empty);
    /// ```
    pub fn steal(&self) -> Steal<T> {
        self.steal_if(i64::MIN, |_| true)
    }

    /// Steals about half of the elements (at most 32) and pushes them onto
    /// `dest`: [`steal_batch_with_limit`](Self::steal_batch_with_limit)
    /// with a limit of 32. [`Steal::Success`] if at least one element moved.
    ///
    /// The stolen elements are the oldest; they go onto `dest` so that
    /// `dest.pop()` gives them in the order this deque's owner would have
    /// popped them, as crossbeam-deque 0.8 orders them: newest first from a
    /// LIFO deque, oldest first from a FIFO one ([`Worker::new_fifo`]),
    /// whatever `dest`'s flavour.
    ///
    /// Stealing into the deque's own `Worker` moves nothing: `Success` if
    /// it holds an element, else `Empty`.
    ///
    /// ```
    /// use stealpool::deque::{Steal, Worker};
    ///
    /// let victim = Worker::new();
    /// for i in 1..=4u32 {
    ///     victim.push(i);
    /// }
    /// let thief = Worker::new();
    /// assert_eq!(victim.stealer().steal_batch(&thief), Steal::Success(()));
    /// assert_eq!(thief.pop(), Some(2));
    /// assert_eq!(thief.pop(), Some(1));
    /// assert_eq!(victim.len(), 2);
    ///
    /// // From a FIFO deque, the thief pops them oldest first.
    /// let fifo = Worker::new_fifo();
    /// for i in 1..=4u32 {
    ///     fifo.push(i);
    /// }
    /// assert_eq!(fifo.stealer().steal_batch(&thief), Steal::Success(()));
    /// assert_eq!(thief.pop(), Some(1));
    /// assert_eq!(thief.pop(), Some(2));
    /// ```
    pub fn steal_batch(&self, dest: &Worker<T>) -> Steal<()> {
        self.steal_batch_with_limit(dest, MAX_BATCH)
    }

    /// Steals about half of the elements, at most `limit`, and pushes them
    /// onto `dest`, ordered as by [`steal_batch`](Self::steal_batch):
    /// crossbeam-deque 0.8's `steal_batch_with_limit`. How many move is
    /// not specified beyond that: about half of the elements there were
    /// (rounded up), never more than `limit`; a limit above 32 lets a batch
    /// grow past [`steal_batch`](Self::steal_batch)'s. A batch that must
    /// be reversed on its way (from a FIFO deque into a LIFO worker, or the
    /// other way round) is held in a vector until its last claim: one
    /// allocation per such batch; between workers of one flavour there is
    /// none.
    ///
    /// ```
    /// use stealpool::deque::{Steal, Worker};
    ///
    /// let victim = Worker::new_fifo();
    /// for i in 1..=6 {
    ///     victim.push(i);
    /// }
    /// let thief = Worker::new_fifo();
    /// assert_eq!(victim.stealer().steal_batch_with_limit(&thief, 2), Steal::Success(()));
    /// assert_eq!(thief.pop(), Some(1));
    /// assert_eq!(thief.pop(), Some(2));
    /// assert_eq!(thief.pop(), None);
    /// ```
    ///
    /// # Panics
    ///
    /// If `limit` is 0, as crossbeam-deque's does. A batch of at most no
    /// element is a caller's mistake that the return type, kept as
    /// crossbeam's so that this is a drop-in replacement, has no way to
    /// report: it cannot be `Success`, and `Empty` or `Retry` would send a
    /// loop looking elsewhere or spinning on a deque that has elements.
    ///
    /// ```should_panic
    /// let victim = stealpool::deque::Worker::new();
    /// victim.push(1);
    /// // "stealpool::deque::Stealer::steal_batch_with_limit: limit is 0 ..."
    /// let _ = victim.stealer().steal_batch_with_limit(&stealpool::deque::Worker::new(), 0);
    /// ```
    pub fn steal_batch_with_limit(&self, dest: &Worker<T>, limit: usize) -> Steal<()> {
        assert_limit(limit, "Stealer::steal_batch_with_limit");
        if dest.is_same_deque(&self.inner) {
            return if dest.is_empty() {
                Steal::Empty
            } else {
                Steal::Success(())
            };
        }
        match self.steal_batch_into(dest, limit, None) {
            Steal::Success(_) => Steal::Success(()),
            Steal::Empty => Steal::Empty,
            Steal::Retry => Steal::Retry,
        }
    }

    /// Steals about half of the elements (at most 32), returns one of them
    /// and pushes the others onto `dest`:
    /// [`steal_batch_with_limit_and_pop`](Self::steal_batch_with_limit_and_pop)
    /// with a limit of 32. The one returned is what `dest.pop()` would have
    /// given after [`steal_batch`](Self::steal_batch): the newest stolen
    /// from a LIFO deque, the oldest from a FIFO one, as crossbeam-deque's.
    ///
    /// Stealing into the deque's own `Worker` pops from it instead.
    ///
    /// ```
    /// use stealpool::deque::{Steal, Worker};
    ///
    /// let victim = Worker::new();
    /// for i in 1..=6usize {
    ///     victim.push(i);
    /// }
    /// let thief = Worker::new();
    /// // 1, 2 and 3 are stolen; 3 is returned, 1 and 2 moved over.
    /// assert_eq!(victim.stealer().steal_batch_and_pop(&thief), Steal::Success(3));
    /// assert_eq!(thief.pop(), Some(2));
    /// assert_eq!(thief.pop(), Some(1));
    /// assert_eq!(victim.len(), 3);
    /// ```
    pub fn steal_batch_and_pop(&self, dest: &Worker<T>) -> Steal<T> {
        self.steal_batch_with_limit_and_pop(dest, MAX_BATCH)
    }

    /// Steals about half of the elements, at most `limit` in all, returns
    /// one of them and pushes the others onto `dest`, chosen and ordered as
    /// by [`steal_batch_and_pop`](Self::steal_batch_and_pop):
    /// crossbeam-deque 0.8's `steal_batch_with_limit_and_pop`. The number
    /// taken is as for [`steal_batch_with_limit`](Self::steal_batch_with_limit),
    /// the one returned included.
    ///
    /// ```
    /// use stealpool::deque::{Steal, Worker};
    ///
    /// let victim = Worker::new_fifo();
    /// for i in 1..=6 {
    ///     victim.push(i);
    /// }
    /// let thief = Worker::new_fifo();
    /// let stealer = victim.stealer();
    /// assert_eq!(stealer.steal_batch_with_limit_and_pop(&thief, 2), Steal::Success(1));
    /// assert_eq!(thief.pop(), Some(2));
    /// assert_eq!(thief.pop(), None);
    /// // A limit of 1 is a plain steal.
    /// assert_eq!(stealer.steal_batch_with_limit_and_pop(&thief, 1), Steal::Success(3));
    /// assert!(thief.is_empty());
    /// ```
    ///
    /// # Panics
    ///
    /// If `limit` is 0, as [`steal_batch_with_limit`](Self::steal_batch_with_limit).
    pub fn steal_batch_with_limit_and_pop(&self, dest: &Worker<T>, limit: usize) -> Steal<T> {
        assert_limit(limit, "Stealer::steal_batch_with_limit_and_pop");
        let keep = if self.fifo { Keep::Oldest } else { Keep::Newest };
        self.steal_batch_keeping(dest, limit, keep)
    }

    /// `steal_batch_and_pop` that returns the oldest of the stolen
    /// elements and moves the rest over: what the pool's workers run first
    /// when they steal, the largest piece of work (`pool/kernel/worker/search.rs`).
    pub(crate) fn steal_batch_and_pop_oldest(&self, dest: &Worker<T>) -> Steal<T> {
        self.steal_batch_keeping(dest, MAX_BATCH, Keep::Oldest)
    }

    #[inline]
    fn steal_batch_keeping(&self, dest: &Worker<T>, limit: usize, keep: Keep) -> Steal<T> {
        if dest.is_same_deque(&self.inner) {
            return dest.pop().map_or(Steal::Empty, Steal::Success);
        }
        if bug!("batch_wide_cas") {
            return self.steal_batch_wide_cas(dest, keep);
        }
        match self.steal_batch_into(dest, limit, Some(keep)) {
            Steal::Success(kept) => match kept {
                Some(value) => Steal::Success(value),
                // `steal_batch_into` keeps one when asked to.
                None => unreachable!("a batch steal asked to keep an element kept none"),
            },
            Steal::Empty => Steal::Empty,
            Steal::Retry => Steal::Retry,
        }
    }

    /// Claims about half of the elements, at most `limit` (at least 1),
    /// keeps the one `keep` names (if any) and pushes the others onto
    /// `dest`, which is not this deque: in the order they were taken when
    /// `dest` pops as this deque's owner does, else in the reverse order,
    /// so that `dest.pop()` gives them in the order this deque's owner
    /// would have.
    fn steal_batch_into(&self, dest: &Worker<T>, limit: usize, keep: Option<Keep>) -> Steal<Option<T>> {
        // Each element is claimed by its own full `steal` (D5-D9), never by
        // one CAS over several: the owner of a LIFO deque pops without a CAS
        // while `top` is below the index it takes, so it may pop into a
        // range that a single wide CAS is about to claim, and both would get
        // the same elements (proof B1). One CAS per element costs what the
        // owner's pops cost. Which of the stolen elements is returned, and
        // in which order the others are pushed, changes nothing there: each
        // is pushed on `dest` only after its own claim succeeded.
        let first = match self.steal() {
            Steal::Success(value) => value,
            Steal::Empty => return Steal::Empty,
            Steal::Retry => return Steal::Retry,
        };
        // Half of the elements there were, rounded up, counting the one
        // already taken: of the `len` left, `len / 2` more.
        let more = (self.len() / 2).min(limit - 1);
        if self.fifo == dest.is_fifo() {
            // Pushed oldest first: `dest` pops them as this deque's owner would.
            let mut kept = match keep {
                Some(_) => Some(first),
                None => {
                    dest.push(first);
                    None
                }
            };
            for _ in 0..more {
                match self.steal() {
                    Steal::Success(value) => match (keep, &mut kept) {
                        (Some(Keep::Newest), Some(kept)) => dest.push(std::mem::replace(kept, value)),
                        _ => dest.push(value),
                    },
                    Steal::Empty | Steal::Retry => break,
                }
            }
            return Steal::Success(kept);
        }
        // `dest` pops from the other end than this deque's owner: the batch
        // is pushed newest first, so it is held until the last claim.
        let mut batch = Vec::with_capacity(more + 1);
        batch.push(first);
        for _ in 0..more {
            match self.steal() {
                Steal::Success(value) => batch.push(value),
                Steal::Empty | Steal::Retry => break,
            }
        }
        let kept = match keep {
            Some(Keep::Oldest) => Some(batch.remove(0)),
            Some(Keep::Newest) => batch.pop(),
            None => None,
        };
        for value in batch.into_iter().rev() {
            dest.push(value);
        }
        Steal::Success(kept)
    }

    /// The batch-steal defect of B1, reintroduced for the checkers by
    /// `--cfg stealpool_bug="batch_wide_cas"`: one CAS claims half of the
    /// elements at once. The owner pops without a CAS while `top` is below
    /// the index it takes, so it can pop into the claimed range between this
    /// thief's load of `bottom` and its CAS, and both get those elements.
    fn steal_batch_wide_cas(&self, dest: &Worker<T>, keep: Keep) -> Steal<T> {
        let inner = &*self.inner;
        // D5, D6, D7: as in `steal`.
        let top = inner.top.load(STEAL_LOAD_TOP);
        fence(STEAL_FENCE);
        let bottom = inner.bottom.load(STEAL_LOAD_BOTTOM);
        let len = bottom - top;
        if len <= 0 {
            return Steal::Empty;
        }
        let count = (len as usize).div_ceil(2).min(MAX_BATCH);
        // D8: as in `steal`.
        let buffer = inner.buffer.load(LOAD_BUFFER);
        let mut words = [std::ptr::null_mut(); MAX_BATCH];
        for (offset, word) in words[..count].iter_mut().enumerate() {
            // D11: relaxed reads, claimed by the CAS below or discarded.
            // SAFETY: buffers are freed only with `inner`, which we hold.
            *word = unsafe { (*buffer).read(top + offset as i64) };
        }
        // D9, over `count` indices at once: the defect.
        if inner
            .top
            .compare_exchange(top, top + count as i64, STEAL_CAS, CAS_FAILURE)
            .is_err()
        {
            return Steal::Retry;
        }
        // The others moved oldest first and the one `keep` names returned,
        // as the fixed code does: the one CAS is the only defect.
        let kept = match keep {
            Keep::Oldest => 0,
            Keep::Newest => count - 1,
        };
        for (_, &word) in words[..count].iter().enumerate().filter(|&(i, _)| i != kept) {
            // SAFETY: none, that is the defect: the owner may have popped
            // these indices too.
            dest.push(unsafe { from_word::<T>(word) });
        }
        // SAFETY: as above.
        Steal::Success(unsafe { from_word::<T>(words[kept]) })
    }
}

impl<T> Clone for Stealer<T> {
    fn clone(&self) -> Self {
        Stealer {
            inner: self.inner.clone(),
            owner_biased: self.owner_biased,
            fifo: self.fifo,
        }
    }
}

impl<T> fmt::Debug for Stealer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stealer")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

/// Panics, naming `method`, if a batch steal's `limit` is 0.
#[track_caller]
pub(crate) fn assert_limit(limit: usize, method: &str) {
    assert!(
        limit > 0,
        "stealpool::deque::{method}: limit is 0, but a batch steal takes at least one element"
    );
}

/// Which stolen element a batch steal returns.
#[derive(Clone, Copy)]
enum Keep {
    Oldest,
    Newest,
}
