//! A thief's end of a bounded deque: one request slot per handle.

use super::shared::*;
use super::*;

/// A thief's end of a [`BoundedWorker`]'s deque: every [`steal`](Self::steal)
/// returns [`Steal::Success`] or [`Steal::Empty`], never [`Steal::Retry`],
/// within [`ROUND_BOUND`] rounds of its own, whatever other thieves do.
///
/// A thread that stops in the middle of a steal, for any time, holds up no
/// other steal, and when it goes on it delivers nothing into a later
/// request (a thief's request is answered in a word that names the
/// request by a 62-bit number, not by the 43-bit index of `top`, which
/// wraps).
///
/// Each handle holds one of [`MAX_STEALERS`] request slots, so it is not
/// `Clone`; ask the worker for more. It can move between threads (`Send`)
/// but runs one steal at a time (not `Sync`).
///
/// ```
/// use stealpool::deque::{BoundedWorker, Steal};
/// use std::thread;
///
/// let worker = BoundedWorker::new();
/// for i in 0..100u64 {
///     worker.push(i);
/// }
/// let thieves: Vec<_> = (0..3)
///     .map(|_| {
///         let thief = worker.stealer();
///         thread::spawn(move || {
///             let mut sum = 0;
///             while let Steal::Success(i) = thief.steal() {
///                 sum += i;
///             }
///             sum
///         })
///     })
///     .collect();
/// let stolen: u64 = thieves.into_iter().map(|t| t.join().unwrap()).sum();
/// let mut rest = 0;
/// while let Some(i) = worker.pop() {
///     rest += i;
/// }
/// assert_eq!(stolen + rest, (0..100).sum::<u64>());
/// ```
pub struct BoundedStealer<T> {
    pub(super) shared: Arc<Shared<T>>,
    pub(super) slot: usize,
    /// The number of the slot's last request (G4: numbered from the
    /// slot's idle word when the handle took the slot).
    pub(super) generation: Cell<usize>,
    pub(super) _not_sync: PhantomData<Cell<()>>,
}

// SAFETY: a handle moves its slot with it; `T: Send` as for the deque.
unsafe impl<T: Send> Send for BoundedStealer<T> {}

impl<T> BoundedStealer<T> {
    /// Steals the oldest element, or returns `Empty` if the deque was
    /// empty at some instant of the call. Never `Retry`.
    ///
    /// ```
    /// use stealpool::deque::{BoundedWorker, Steal};
    ///
    /// let worker = BoundedWorker::new();
    /// worker.push(1);
    /// worker.push(2);
    /// let thief = worker.stealer();
    /// assert_eq!(thief.steal(), Steal::Success(1));
    /// assert_eq!(thief.steal(), Steal::Success(2));
    /// assert_eq!(thief.steal(), Steal::Empty);
    /// ```
    pub fn steal(&self) -> Steal<T> {
        self.steal_counting_rounds().0
    }

    /// [`steal`](Self::steal), and the number of rounds of its loop it ran
    /// (at most [`ROUND_BOUND`]): a measure of its latency in steps, which
    /// preemption does not inflate. For benchmarks.
    ///
    /// ```
    /// use stealpool::deque::{BoundedWorker, Steal, ROUND_BOUND};
    ///
    /// let worker = BoundedWorker::new();
    /// worker.push(7);
    /// let (stolen, rounds) = worker.stealer().steal_counting_rounds();
    /// assert_eq!(stolen, Steal::Success(7));
    /// assert!((1..=ROUND_BOUND).contains(&rounds));
    /// ```
    #[doc(hidden)]
    pub fn steal_counting_rounds(&self) -> (Steal<T>, usize) {
        let (word, rounds) = self.shared.request(self.slot, self.next_generation());
        (Self::outcome(word), rounds)
    }

    /// The number of the handle's next request, which it becomes.
    #[inline]
    pub(super) fn next_generation(&self) -> usize {
        let next = self.generation.get().wrapping_add(1);
        self.generation.set(next);
        next
    }

    /// A request's outcome as a steal's.
    fn outcome(word: Option<*mut ()>) -> Steal<T> {
        match word {
            // SAFETY: the element of an index claimed for this request
            // alone (G6), delivered once (G4) and taken once (G10).
            Some(word) => Steal::Success(unsafe { element(word) }),
            None => Steal::Empty,
        }
    }

    /// The number of elements (a snapshot).
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::new();
    /// worker.push(1);
    /// assert_eq!(worker.stealer().len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.shared.len()
    }

    /// `true` if the deque held no element at the snapshot.
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::<u8>::new();
    /// assert!(worker.stealer().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first half of [`steal`](Self::steal): the request is announced
    /// and left for other threads to serve, as if this thief stopped for
    /// good right after. Only in the model checkers' builds, for the
    /// progress models; [`finish_steal`](Self::finish_steal) ends it. A
    /// handle dropped between the two leaks the element claimed for it, if
    /// any (G2).
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn start_steal(&self) {
        self.shared.announce(self.slot, self.next_generation());
    }

    /// The second half of [`steal`](Self::steal), after
    /// [`start_steal`](Self::start_steal): what the request came to.
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn finish_steal(&self) -> Steal<T> {
        Self::outcome(self.shared.serve(self.slot, self.generation.get()).0)
    }

    /// Whether this handle's request, started by
    /// [`start_steal`](Self::start_steal), was already served or withdrawn
    /// by other threads (model checkers' builds only).
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn is_decided(&self) -> bool {
        // G1: a look at our bit.
        self.shared.top.load(TOP_LOAD) & bit(self.slot) == 0
    }

    /// The most rounds any finished request of this process ran (model
    /// checkers' builds only): at most [`ROUND_BOUND`].
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn most_rounds() -> usize {
        // T1: a statistic, read after the runs that counted.
        MOST_ROUNDS.count()
    }
}

impl<T> BoundedStealer<T> {
    /// [`finish_steal`](Self::finish_steal) for the unit tests, which run
    /// outside the checkers' builds.
    #[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
    pub(super) fn finish_steal_any(&self) -> Steal<T> {
        Self::outcome(self.shared.serve(self.slot, self.generation.get()).0)
    }
}

impl<T> BoundedStealer<T> {
    /// How many delivered elements owners moved into boxes so far in this
    /// process (model checkers' builds only; G10).
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn evictions() -> usize {
        // T1: a statistic, read after the runs that counted.
        EVICTIONS.count()
    }

    /// How many times so far in this process a helper found a pending
    /// request word, then `top` changed since it saw the claim, and so
    /// delivered nothing (model checkers' builds only; G4).
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn helps_refused() -> usize {
        // T1: a statistic, read after the runs that counted.
        HELPS_REFUSED.count()
    }
}

impl<T> Drop for BoundedStealer<T> {
    fn drop(&mut self) {
        // G2: our own word, idle unless a request was left under way (only
        // the checkers' builds can leave one, `start_steal`): then the slot
        // is never given back, so that a tag naming its claim still names
        // the slot's request under way (G4).
        if is_idle(self.shared.requests[self.slot].load(OWNER_LOCAL)) {
            // G2: release our idle word to the next holder of the slot.
            self.shared.free.fetch_or(1 << self.slot, SLOT_RELEASE);
        }
    }
}

impl<T> fmt::Debug for BoundedStealer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoundedStealer")
            .field("slot", &self.slot)
            .finish()
    }
}
