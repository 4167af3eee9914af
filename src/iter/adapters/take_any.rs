//! [`TakeAny`], [`SkipAny`], [`TakeAnyWhile`] and [`SkipAnyWhile`]: items
//! let through a gate that every piece shares, so which items pass
//! depends on the order the pieces reach it, not on their positions.
//! The counts are single atomic words taken one at a time (I9); the
//! `while` flags are hints as `find_any`'s is (I5).

use crate::iter::plumbing::{Consumer, Folder, UnindexedConsumer};
use crate::iter::ParallelIterator;
use crate::sync::{AtomicBool, AtomicUsize, Ordering};

/// The iterator of [`ParallelIterator::take_any`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let some: stealpool::iter::TakeAny<_> = (0..100u32).into_par_iter().take_any(5);
/// let v: Vec<u32> = some.collect();
/// assert_eq!(v.len(), 5);
/// assert!(v.iter().all(|x| *x < 100));
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct TakeAny<I> {
    base: I,
    n: usize,
}

impl<I> TakeAny<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        TakeAny { base, n }
    }
}

impl<I: ParallelIterator> ParallelIterator for TakeAny<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let gate = Count {
            left: AtomicUsize::new(self.n),
            take: true,
        };
        self.base.drive_unindexed(GateConsumer {
            base: consumer,
            gate: &gate,
        })
    }
}

/// The iterator of [`ParallelIterator::skip_any`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let rest: stealpool::iter::SkipAny<_> = (0..100u32).into_par_iter().skip_any(95);
/// assert_eq!(rest.count(), 5);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct SkipAny<I> {
    base: I,
    n: usize,
}

impl<I> SkipAny<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        SkipAny { base, n }
    }
}

impl<I: ParallelIterator> ParallelIterator for SkipAny<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let gate = Count {
            left: AtomicUsize::new(self.n),
            take: false,
        };
        self.base.drive_unindexed(GateConsumer {
            base: consumer,
            gate: &gate,
        })
    }
}

/// The iterator of [`ParallelIterator::take_any_while`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let small: stealpool::iter::TakeAnyWhile<_, _> = (0..100u32).into_par_iter().take_any_while(|x| *x < 50);
/// assert!(small.collect::<Vec<_>>().iter().all(|x| *x < 50));
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct TakeAnyWhile<I, P> {
    base: I,
    predicate: P,
}

debug_without_closures!(TakeAnyWhile<I, P> { base: I });

impl<I, P> TakeAnyWhile<I, P> {
    pub(crate) fn new(base: I, predicate: P) -> Self {
        TakeAnyWhile { base, predicate }
    }
}

impl<I, P> ParallelIterator for TakeAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let gate = While {
            predicate: self.predicate,
            flag: AtomicBool::new(false),
            take: true,
        };
        self.base.drive_unindexed(GateConsumer {
            base: consumer,
            gate: &gate,
        })
    }
}

/// The iterator of [`ParallelIterator::skip_any_while`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let rest: stealpool::iter::SkipAnyWhile<_, _> = (0..100u32).into_par_iter().skip_any_while(|x| *x < 50);
/// let v: Vec<u32> = rest.collect();
/// assert!((50..100).all(|x| v.contains(&x)));
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct SkipAnyWhile<I, P> {
    base: I,
    predicate: P,
}

debug_without_closures!(SkipAnyWhile<I, P> { base: I });

impl<I, P> SkipAnyWhile<I, P> {
    pub(crate) fn new(base: I, predicate: P) -> Self {
        SkipAnyWhile { base, predicate }
    }
}

impl<I, P> ParallelIterator for SkipAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let gate = While {
            predicate: self.predicate,
            flag: AtomicBool::new(false),
            take: false,
        };
        self.base.drive_unindexed(GateConsumer {
            base: consumer,
            gate: &gate,
        })
    }
}

/// What lets an item through, shared by every piece.
trait Gate<T>: Sync {
    /// Whether `item` passes.
    fn pass(&self, item: &T) -> bool;
    /// Whether no item will pass any more.
    fn closed(&self) -> bool;
}

/// `take_any` (`take`) and `skip_any`: a count of the items still to
/// take or to skip.
struct Count {
    left: AtomicUsize,
    take: bool,
}

impl Count {
    /// Takes one from the count, if it is not 0.
    fn take_one(&self) -> bool {
        // Relaxed: each successful exchange takes one unit of the count,
        // and read-modify-writes of one word are totally ordered, so
        // exactly `n` items win one (I9); the items travel through `join`.
        let mut left = self.left.load(Ordering::Relaxed);
        while left != 0 {
            // Relaxed, as above (I9).
            match self
                .left
                .compare_exchange_weak(left, left - 1, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => left = now,
            }
        }
        false
    }
}

impl<T> Gate<T> for Count {
    fn pass(&self, _item: &T) -> bool {
        // `take`: an item passes if it wins a unit; `skip`: if none is left.
        self.take_one() == self.take
    }

    fn closed(&self) -> bool {
        // Relaxed: a hint to stop early; a stale nonzero only costs work
        // (I9).
        self.take && self.left.load(Ordering::Relaxed) == 0
    }
}

/// `take_any_while` (`take`) and `skip_any_while`: `flag` is set once
/// some item failed the predicate.
struct While<P> {
    predicate: P,
    flag: AtomicBool,
    take: bool,
}

impl<T, P: Fn(&T) -> bool + Sync> Gate<T> for While<P> {
    fn pass(&self, item: &T) -> bool {
        // Relaxed: a hint, as `find_any`'s flag (I5): an item read before
        // the store may still pass, as rayon promises no more.
        if self.flag.load(Ordering::Relaxed) {
            return !self.take;
        }
        if (self.predicate)(item) {
            return self.take;
        }
        // Relaxed, as above (I5).
        self.flag.store(true, Ordering::Relaxed);
        !self.take
    }

    fn closed(&self) -> bool {
        // Relaxed, as in `pass` (I5).
        self.take && self.flag.load(Ordering::Relaxed)
    }
}

/// The consumer (and, over a folder, the folder) of the four adapters.
struct GateConsumer<'g, C, G> {
    base: C,
    gate: &'g G,
}

impl<'g, T, C: Consumer<T>, G: Gate<T>> Consumer<T> for GateConsumer<'g, C, G> {
    type Folder = GateConsumer<'g, C::Folder, G>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let gate = self.gate;
        (
            GateConsumer { base: left, gate },
            GateConsumer { base: right, gate },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        GateConsumer {
            base: self.base.into_folder(),
            gate: self.gate,
        }
    }

    fn full(&self) -> bool {
        self.gate.closed() || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>, G: Gate<T>> UnindexedConsumer<T> for GateConsumer<'_, C, G> {
    fn split_off_left(&self) -> Self {
        GateConsumer {
            base: self.base.split_off_left(),
            gate: self.gate,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

impl<T, F: Folder<T>, G: Gate<T>> Folder<T> for GateConsumer<'_, F, G> {
    type Result = F::Result;

    fn consume(mut self, item: T) -> Self {
        if self.gate.pass(&item) {
            self.base = self.base.consume(item);
        }
        self
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.gate.closed() || self.base.full()
    }
}
