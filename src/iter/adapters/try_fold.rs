//! [`TryFold`] and [`TryFoldWith`]: each piece's items folded into one
//! accumulator until the fold short-circuits (`None`, `Err`, `Break`),
//! which ends that piece; the iterator of the pieces' results.

use crate::iter::plumbing::{Consumer, Folder, UnindexedConsumer};
use crate::iter::{ParallelIterator, Try};
use std::marker::PhantomData;
use std::ops::ControlFlow::{self, Break, Continue};

/// The iterator of [`ParallelIterator::try_fold`]: one result per piece.
///
/// ```
/// use stealpool::prelude::*;
///
/// let sums: stealpool::iter::TryFold<_, _, _, _> =
///     (0..100u32).into_par_iter().try_fold(|| 0u32, |a, x| a.checked_add(x));
/// assert_eq!(sums.try_reduce(|| 0, |a, b| a.checked_add(b)), Some(4_950));
/// ```
#[must_use = "iterator adapters are lazy"]
pub struct TryFold<I, R, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
    marker: PhantomData<fn() -> R>,
}

impl<I, R, ID, F> TryFold<I, R, ID, F> {
    pub(crate) fn new(base: I, identity: ID, fold_op: F) -> Self {
        TryFold {
            base,
            identity,
            fold_op,
            marker: PhantomData,
        }
    }
}

impl<I: Clone, R, ID: Clone, F: Clone> Clone for TryFold<I, R, ID, F> {
    fn clone(&self) -> Self {
        TryFold::new(self.base.clone(), self.identity.clone(), self.fold_op.clone())
    }
}

debug_without_closures!(TryFold<I, R, ID, F> { base: I });

impl<I, R, ID, F, T> ParallelIterator for TryFold<I, R, ID, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> R + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    R: Try<Output = T> + Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(TryFoldConsumer {
            base: consumer,
            start: ByIdentity(&self.identity),
            fold_op: &self.fold_op,
            marker: PhantomData,
        })
    }
}

/// The iterator of [`ParallelIterator::try_fold_with`]: one result per
/// piece, each fold starting from a clone of `init`.
///
/// ```
/// use stealpool::prelude::*;
///
/// let folded: stealpool::iter::TryFoldWith<_, _, _> =
///     (1..5u32).into_par_iter().try_fold_with(1u32, |a, x| a.checked_mul(x));
/// assert_eq!(folded.try_reduce(|| 1, |a, b| a.checked_mul(b)), Some(24));
/// ```
#[must_use = "iterator adapters are lazy"]
pub struct TryFoldWith<I, R: Try, F> {
    base: I,
    init: R::Output,
    fold_op: F,
}

impl<I, R: Try, F> TryFoldWith<I, R, F> {
    pub(crate) fn new(base: I, init: R::Output, fold_op: F) -> Self {
        TryFoldWith { base, init, fold_op }
    }
}

impl<I: Clone, R: Try<Output: Clone>, F: Clone> Clone for TryFoldWith<I, R, F> {
    fn clone(&self) -> Self {
        TryFoldWith::new(self.base.clone(), self.init.clone(), self.fold_op.clone())
    }
}

impl<I: std::fmt::Debug, R: Try<Output: std::fmt::Debug>, F> std::fmt::Debug for TryFoldWith<I, R, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TryFoldWith")
            .field("base", &self.base)
            .field("init", &self.init)
            .finish_non_exhaustive()
    }
}

impl<I, R, F, T> ParallelIterator for TryFoldWith<I, R, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> R + Sync + Send,
    R: Try<Output = T> + Send,
    T: Clone + Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        // `T` is `Send`, not `Sync`: each consumer owns a clone, made
        // when it splits, as `map_with`'s does.
        self.base.drive_unindexed(TryFoldConsumer {
            base: consumer,
            start: ByClone(self.init),
            fold_op: &self.fold_op,
            marker: PhantomData,
        })
    }
}

/// Where a piece's fold starts.
trait Start: Send + Sized {
    /// The accumulator.
    type Out;
    /// The start of another piece.
    fn split(&self) -> Self;
    /// The accumulator to start from.
    fn start(self) -> Self::Out;
}

/// `try_fold`'s start: `identity()`.
struct ByIdentity<'f, ID>(&'f ID);

impl<T, ID: Fn() -> T + Sync> Start for ByIdentity<'_, ID> {
    type Out = T;
    fn split(&self) -> Self {
        ByIdentity(self.0)
    }
    fn start(self) -> T {
        (self.0)()
    }
}

/// `try_fold_with`'s start: a clone of the initial value.
struct ByClone<T>(T);

impl<T: Clone + Send> Start for ByClone<T> {
    type Out = T;
    fn split(&self) -> Self {
        ByClone(self.0.clone())
    }
    fn start(self) -> T {
        self.0
    }
}

/// The consumer of both adapters.
struct TryFoldConsumer<'f, C, S, F, R> {
    base: C,
    start: S,
    fold_op: &'f F,
    marker: PhantomData<fn() -> R>,
}

impl<'f, C, S: Start, F, R> TryFoldConsumer<'f, C, S, F, R> {
    fn with_base<D>(&self, base: D) -> TryFoldConsumer<'f, D, S, F, R> {
        TryFoldConsumer {
            base,
            start: self.start.split(),
            fold_op: self.fold_op,
            marker: PhantomData,
        }
    }
}

impl<'f, U, T, R, C, S, F> Consumer<U> for TryFoldConsumer<'f, C, S, F, R>
where
    C: Consumer<R>,
    F: Fn(T, U) -> R + Sync,
    S: Start<Out = T>,
    R: Try<Output = T> + Send,
{
    type Folder = TryFoldFolder<'f, C::Folder, R, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let left = TryFoldConsumer {
            base: left,
            start: self.start.split(),
            fold_op: self.fold_op,
            marker: PhantomData,
        };
        let right = TryFoldConsumer {
            base: right,
            start: self.start,
            fold_op: self.fold_op,
            marker: PhantomData,
        };
        (left, right, reducer)
    }

    fn into_folder(self) -> Self::Folder {
        TryFoldFolder {
            base: self.base.into_folder(),
            result: Continue(self.start.start()),
            fold_op: self.fold_op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<U, T, R, C, S, F> UnindexedConsumer<U> for TryFoldConsumer<'_, C, S, F, R>
where
    C: UnindexedConsumer<R>,
    F: Fn(T, U) -> R + Sync,
    S: Start<Out = T>,
    R: Try<Output = T> + Send,
{
    fn split_off_left(&self) -> Self {
        self.with_base(self.base.split_off_left())
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// One piece's fold: its accumulator, or the short-circuit that ended it.
struct TryFoldFolder<'f, C, R: Try, F> {
    base: C,
    result: ControlFlow<R::Residual, R::Output>,
    fold_op: &'f F,
}

impl<U, T, R, C, F> Folder<U> for TryFoldFolder<'_, C, R, F>
where
    C: Folder<R>,
    F: Fn(T, U) -> R,
    R: Try<Output = T>,
{
    type Result = C::Result;

    fn consume(mut self, item: U) -> Self {
        if let Continue(acc) = self.result {
            self.result = (self.fold_op)(acc, item).branch();
        }
        self
    }

    fn complete(self) -> C::Result {
        let item = match self.result {
            Continue(output) => R::from_output(output),
            Break(residual) => R::from_residual(residual),
        };
        self.base.consume(item).complete()
    }

    fn full(&self) -> bool {
        self.result.is_break() || self.base.full()
    }
}
