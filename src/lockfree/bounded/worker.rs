//! The owner's end of a bounded deque: push and pop at the bottom.

use super::shared::*;
use super::*;

/// The owner's end of a deque whose steals never retry (see
/// [`BoundedStealer`]).
///
/// Push and pop at the bottom cost what [`Worker`](crate::deque::Worker)'s do
/// (elements are stored as there: word-sized primitives as themselves); a
/// `pop` that finds one element left takes it with one CAS as there if no
/// steal is under way, else through a request like a thief's, so it too
/// finishes within [`ROUND_BOUND`] rounds.
///
/// Indices are 43 bits wide in the shared word and wrap; no steal's
/// outcome depends on how often (see [`BoundedStealer`]). The deque is for
/// targets with 64-bit pointers only: its buffers reach 2^40 slots, and the
/// words in which requests are answered carry a 43-bit index.
///
/// ```
/// use stealpool::deque::{BoundedWorker, Steal};
///
/// let worker = BoundedWorker::new();
/// let thief = worker.stealer();
/// worker.push("a");
/// worker.push("b");
/// assert_eq!(thief.steal(), Steal::Success("a"));
/// assert_eq!(worker.pop(), Some("b"));
/// assert_eq!(thief.steal(), Steal::Empty);
/// ```
pub struct BoundedWorker<T> {
    pub(super) shared: Arc<Shared<T>>,
    /// The owner's copy of the buffer pointer.
    pub(super) buffer: Cell<*mut Buffer>,
    /// The owner's view of that buffer's slots, replaced with it.
    pub(super) slots: Cell<OwnerView>,
    /// `push` writes below this index without loading `top`.
    pub(super) push_limit: Cell<i64>,
    /// `top`'s index if only our own CASes (G11) moved it since a scan
    /// that left no delivered element behind (G10): then no element was
    /// delivered since, and the next scan is skipped. `UNKNOWN` otherwise.
    pub(super) clean_at: Cell<u64>,
    /// The number of the owner's last request (slot `OWNER`, G4).
    pub(super) generation: Cell<usize>,
}

/// `clean_at` when a scan is needed.
const UNKNOWN: u64 = u64::MAX;

// SAFETY: the unique owner handle; moving it moves the owner role. The
// `Cell`s keep it `!Sync`.
unsafe impl<T: Send> Send for BoundedWorker<T> {}

impl<T> Default for BoundedWorker<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> BoundedWorker<T> {
    /// An empty deque of 32 slots, growing as needed.
    ///
    /// ```
    /// let worker: stealpool::deque::BoundedWorker<u8> = stealpool::deque::BoundedWorker::new();
    /// assert!(worker.is_empty());
    /// ```
    pub fn new() -> Self {
        Self::with_capacity(32)
    }

    /// An empty deque with `capacity` slots (rounded up to a power of two,
    /// at least 2); one of them stays unused.
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::with_capacity(2);
    /// for i in 0..10 {
    ///     worker.push(i);
    /// }
    /// assert_eq!(worker.len(), 10);
    /// ```
    ///
    /// # Panics
    ///
    /// If `capacity` is above 2^40.
    pub fn with_capacity(capacity: usize) -> Self {
        assert!(
            capacity <= MAX_CAPACITY,
            "stealpool::deque::BoundedWorker::with_capacity: capacity {capacity} is above 2^40"
        );
        let buffer = Buffer::alloc(capacity.max(2).next_power_of_two(), ptr::null_mut());
        let idle = idle(0);
        let shared = Arc::new(Shared {
            top: CachePadded::new(AtomicU64::new(0)),
            bottom: CachePadded::new(AtomicI64::new(0)),
            buffer: CachePadded::new(AtomicPtr::new(buffer)),
            requests: (0..SLOTS)
                .map(|_| CachePadded::new(AtomicPtr::new(idle)))
                .collect(),
            free: AtomicUsize::new((1 << MAX_STEALERS) - 1),
            _owns: PhantomData,
        });
        BoundedWorker {
            shared,
            buffer: Cell::new(buffer),
            // SAFETY: the buffer lives as long as the deque (R1).
            slots: Cell::new(unsafe { (*buffer).owner_view() }),
            push_limit: Cell::new(0),
            clean_at: Cell::new(0),
            generation: Cell::new(0),
        }
    }

    /// An empty deque as [`with_capacity`](Self::with_capacity) makes it,
    /// with both indices at `index` instead of 0, as a long run of pushes
    /// and pops would leave them: for the models of a stalled thread
    /// across the 43-bit wrap of `top`'s index (model checkers' builds
    /// only).
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    #[doc(hidden)]
    pub fn starting_at(capacity: usize, index: i64) -> Self {
        let worker = Self::with_capacity(capacity);
        worker.move_to(index);
        worker
    }

    /// Moves both indices of an empty deque with no request under way to
    /// `at`, as `at - bottom` pushes each followed by a pop would
    /// (each pop's CAS past the last element, G11, moving `top`); the next
    /// push finds its limit and rescans (G10).
    #[cfg(any(test, feature = "loom", feature = "shuttle"))]
    pub(super) fn move_to(&self, at: i64) {
        let shared = &*self.shared;
        // G8: relaxed, the owner's own view: no request under way.
        let top = shared.top.load(OWNER_LOCAL);
        let bottom = shared.bottom.load(OWNER_LOCAL);
        assert_eq!(top & (PENDING_MASK | TAG_MASK), 0, "a request is under way");
        assert_eq!(diff(low(bottom), index(top)), 0, "the deque is not empty");
        // G8: relaxed, as above; no thief has a request to read them for.
        shared.top.store(low(at) << INDEX_SHIFT, OWNER_LOCAL);
        shared.bottom.store(at, OWNER_LOCAL);
        self.push_limit.set(i64::MIN);
        self.clean_at.set(UNKNOWN);
    }

    /// A thief's handle, or `None` if [`MAX_STEALERS`] are alive.
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::<u8>::new();
    /// let thieves: Vec<_> = (0..15).map(|_| worker.try_stealer().unwrap()).collect();
    /// assert!(worker.try_stealer().is_none());
    /// drop(thieves);
    /// assert!(worker.try_stealer().is_some());
    /// ```
    pub fn try_stealer(&self) -> Option<BoundedStealer<T>> {
        // G2: relaxed first look; the CAS below acquires.
        let mut free = self.shared.free.load(FREE_LOOK);
        loop {
            if free == 0 {
                return None;
            }
            let slot = free.trailing_zeros() as usize;
            // G2: acquire the previous holder's release of this slot.
            match self
                .shared
                .free
                .compare_exchange(free, free & !(1 << slot), SLOT_ACQUIRE, CAS_FAILURE)
            {
                Ok(_) => {
                    // G2: the slot's idle word, stored by its last holder
                    // before the release we acquired: the number of its
                    // last request, which ours go on from (G4).
                    let word = self.shared.requests[slot].load(OWNER_LOCAL);
                    debug_assert!(is_idle(word));
                    return Some(BoundedStealer {
                        shared: self.shared.clone(),
                        slot,
                        generation: Cell::new(generation(word)),
                        _not_sync: PhantomData,
                    });
                }
                Err(now) => free = now,
            }
        }
    }

    /// A thief's handle.
    ///
    /// ```
    /// use stealpool::deque::{BoundedWorker, Steal};
    ///
    /// let worker = BoundedWorker::new();
    /// worker.push(1u64);
    /// assert_eq!(worker.stealer().steal(), Steal::Success(1));
    /// ```
    ///
    /// # Panics
    ///
    /// If [`MAX_STEALERS`] handles are alive.
    pub fn stealer(&self) -> BoundedStealer<T> {
        self.try_stealer()
            .expect("stealpool::deque::BoundedWorker::stealer: 15 stealers are alive already")
    }

    /// The number of elements (a snapshot while thieves run).
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::new();
    /// worker.push(());
    /// assert_eq!(worker.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.shared.len()
    }

    /// `true` if the deque held no element at the snapshot.
    ///
    /// ```
    /// assert!(stealpool::deque::BoundedWorker::<()>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pushes `value` at the bottom, growing the buffer when full.
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::new();
    /// worker.push([0u8; 64]);
    /// assert_eq!(worker.len(), 1);
    /// ```
    #[inline]
    pub fn push(&self, value: T) {
        let shared = &*self.shared;
        let word = into_word(value);
        // G8: our own `bottom`.
        let bottom = shared.bottom.load(OWNER_LOCAL);
        let slots = if bottom >= self.push_limit.get() {
            self.make_room(bottom)
        } else {
            self.slots.get()
        };
        // G8: index `bottom` is not visible to rounds until the store
        // below, and its slot holds no claim.
        slots.write(bottom, word);
        // G8: release the slot to rounds that acquire `bottom` (G3).
        shared.bottom.store(bottom + 1, STORE_BOTTOM);
    }

    /// `push` at its limit: the slots it may write up to a new limit, after
    /// G10's scan and, if the buffer is full, a larger buffer. Out of
    /// `push`'s code (it runs at most once per capacity's worth of pushes),
    /// so that the common path saves no more registers than `Worker`'s
    /// (`benches/README.md`, "Bounded stealing": with it inline, a `push`
    /// and `pop` called out of line cost up to 18 % more than `Worker`'s).
    #[cold]
    #[inline(never)]
    fn make_room(&self, bottom: i64) -> OwnerView {
        let shared = &*self.shared;
        let mut slots = self.slots.get();
        // G8: acquire every delivery below `top - 1` (G10's scan).
        let top = shared.top.load(PUSH_LOAD_TOP);
        // The slot of `top - 1` may hold a claim not yet delivered (G8).
        let keep = bottom - diff(low(bottom), index(top)) - 1;
        // G10: no slot below it that we may overwrite holds an element
        // delivered and not taken. If only our CASes moved `top` since a
        // clean scan, nothing was delivered since.
        if tag(top) != 0 || index(top) != self.clean_at.get() {
            let clean = self.evict_below(keep) && tag(top) == 0;
            self.clean_at.set(if clean { index(top) } else { UNKNOWN });
        }
        if bottom - keep >= slots.capacity() as i64 {
            slots = self.grow(keep.max(0), bottom);
        }
        self.push_limit.set(keep + slots.capacity() as i64);
        slots
    }

    /// G10: moves every element delivered at an index below `keep` and not
    /// yet taken into a box in its request word, so that the slot is ours.
    /// `true` if no request word is left holding a delivered index.
    #[cold]
    #[inline(never)]
    fn evict_below(&self, keep: i64) -> bool {
        let shared = &*self.shared;
        let mut clean = true;
        for request in &shared.requests[..MAX_STEALERS] {
            // G10: acquire, so a word past a delivery comes after the
            // requester's read of the slot.
            let word = request.load(SCAN_LOAD);
            if !is_delivered(word) {
                continue;
            }
            let behind = diff(delivered_index(word), low(keep));
            if behind >= 0 {
                // `keep` itself stays; the owner writes no slot of it.
                clean = false;
                continue;
            }
            // The delivered element is still in its slot: we have not
            // written the slot since (G10).
            let element = self.slots.get().read(keep + behind);
            let boxed: *mut Evicted = Box::into_raw(Box::new(UnsafeCell::new(element)));
            // G10: release the box to the requester; on failure acquire
            // its taking of the element.
            let evicted = request
                .compare_exchange(word, boxed.cast(), EVICT, EVICT_FAILURE)
                .is_ok();
            // T1: a statistic, outside the facade.
            #[cfg(any(feature = "loom", feature = "shuttle"))]
            if evicted {
                EVICTIONS.hit();
            }
            if !evicted {
                // SAFETY: the box is ours still; it holds a copy of a word
                // the requester took, dropped as a word only.
                drop(unsafe { Box::from_raw(boxed) });
            }
        }
        clean
    }

    /// A buffer twice as large holding indices `from..bottom`, published.
    #[cold]
    pub(super) fn grow(&self, from: i64, bottom: i64) -> OwnerView {
        let old = self.buffer.get();
        // SAFETY: our buffer lives as long as the deque.
        let capacity = unsafe { (*old).capacity() } * 2;
        assert!(
            capacity <= MAX_CAPACITY,
            "stealpool::deque::BoundedWorker: more than 2^40 elements"
        );
        let new = Buffer::alloc(capacity, old);
        for index in from..bottom {
            // SAFETY: both buffers live as long as the deque.
            unsafe { (*new).write(index, (*old).read(index)) };
        }
        // G8: release the copies to helpers that acquire the pointer.
        self.shared.buffer.store(new, PUBLISH_BUFFER);
        self.buffer.set(new);
        // SAFETY: the new buffer lives as long as the deque (R1).
        let slots = unsafe { (*new).owner_view() };
        self.slots.set(slots);
        slots
    }

    /// Pops the newest element, or `None` if the deque is empty (or thieves
    /// took the last element first).
    ///
    /// ```
    /// let worker = stealpool::deque::BoundedWorker::new();
    /// worker.push(1);
    /// worker.push(2);
    /// assert_eq!(worker.pop(), Some(2));
    /// assert_eq!(worker.pop(), Some(1));
    /// assert_eq!(worker.pop(), None);
    /// ```
    #[inline]
    pub fn pop(&self) -> Option<T> {
        let shared = &*self.shared;
        // G8: our own `bottom`, and a relaxed look at `top` that can only
        // err towards "not empty".
        let bottom = shared.bottom.load(OWNER_LOCAL) - 1;
        if ahead(bottom + 1, shared.top.load(OWNER_LOCAL)) <= 0 {
            return None;
        }
        // G8: take index `bottom` before looking at `top`.
        shared.bottom.store(bottom, STORE_BOTTOM);
        // G8: the owner's half of the store-buffering pair with G3.
        fence(POP_FENCE);
        // G8: relaxed; the fence makes it current enough.
        let top = shared.top.load(OWNER_LOCAL);
        let left = ahead(bottom, top);
        if left > 0 {
            // More than one element: no claim can reach index `bottom`.
            // SAFETY: index `bottom` is ours (G8).
            return Some(unsafe { element(self.slots.get().read(bottom)) });
        }
        if left < 0 {
            // G8: thieves took index `bottom` too: put `bottom` back.
            shared.bottom.store(bottom + 1, STORE_BOTTOM);
            return None;
        }
        // The last element. With no request pending and no claim being
        // delivered, take it as today's deque does: one CAS of `top` past it
        // (G11), which a round's claim of it, made from a `top` with a
        // pending bit, cannot also win.
        if top & (PENDING_MASK | TAG_MASK) == 0 {
            let past = ((low(bottom) + 1) & INDEX_MASK) << INDEX_SHIFT;
            // G11: relaxed, as D4's.
            let won = shared
                .top
                .compare_exchange(top, past, OWNER_CLAIM, CAS_FAILURE)
                .is_ok();
            if won {
                // Our own move of `top` (G10's skip).
                if self.clean_at.get() == index(top) {
                    self.clean_at.set(index(past));
                }
                // G8: the deque is empty: put `bottom` back at `top`.
                shared.bottom.store(bottom + 1, STORE_BOTTOM);
                // SAFETY: index `bottom` is ours: `top` moved past it by
                // our CAS (G11).
                return Some(unsafe { element(self.slots.get().read(bottom)) });
            }
        }
        self.pop_requested(bottom)
    }

    /// The rest of `pop` for the last element, at index `bottom`, when a
    /// request is pending or a claim is being delivered, or our CAS lost to
    /// a claim: the owner's own request. Out of `pop`'s code, as
    /// `make_room` is out of `push`'s.
    #[cold]
    #[inline(never)]
    fn pop_requested(&self, bottom: i64) -> Option<T> {
        let shared = &*self.shared;
        // `bottom` stays below it, so a round that reads
        // `bottom` from here on sees the deque empty and claims nothing;
        // only a claim from a round that read `bottom` before can still take
        // it. The owner's request, decided by a claim or a withdrawal like a
        // thief's (G6, G5), settles between the two within the round bound.
        let next = self.generation.get().wrapping_add(1);
        self.generation.set(next);
        let taken = match shared.request(OWNER, next).0 {
            // A claim of index `bottom` served the owner.
            // SAFETY: delivered to us alone (G4), taken once (G10).
            Some(word) => Some(unsafe { element(word) }),
            None => {
                // Withdrawn. G8: relaxed; our rounds read `top` after the
                // withdrawal, and no claim of index `bottom` comes after it
                // (G5), so `top` is still at `bottom` unless a claim for
                // another requester took it before.
                if index(shared.top.load(OWNER_LOCAL)) == low(bottom) {
                    // SAFETY: index `bottom` is ours (G8): the deque is
                    // empty, `top` at `bottom`, as after any pop.
                    return Some(unsafe { element(self.slots.get().read(bottom)) });
                }
                None
            }
        };
        // G8: index `bottom` left through `top`: put `bottom` back at it.
        shared.bottom.store(bottom + 1, STORE_BOTTOM);
        taken
    }
}

/// A look at a bounded deque's length that any number of threads share
/// (`Sync`, unlike the handles): what the pool's sleepers read of each
/// slot's bounded deque in their final check (G12). It holds no request
/// slot.
pub(crate) struct BoundedLen<T>(Arc<Shared<T>>);

impl<T> BoundedLen<T> {
    /// `true` if the deque held no element at the snapshot (G8's relaxed
    /// loads; G12 says why they suffice after the sleeper's barrier).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.len() == 0
    }
}

impl<T> BoundedWorker<T> {
    /// A [`BoundedLen`] of this deque.
    pub(crate) fn len_view(&self) -> BoundedLen<T> {
        BoundedLen(self.shared.clone())
    }
}

impl<T> fmt::Debug for BoundedWorker<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoundedWorker").field("len", &self.len()).finish()
    }
}
