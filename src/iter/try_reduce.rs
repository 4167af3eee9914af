//! The `Try` types (`Option`, `Result`, `ControlFlow`) and the consumers
//! of [`try_reduce`](super::ParallelIterator::try_reduce) and
//! [`try_reduce_with`](super::ParallelIterator::try_reduce_with) (and so
//! of `try_for_each*`): each piece combines its items until one is a
//! short-circuit value (`None`, `Err`, `Break`); then every piece stops
//! (I5) and that value is the result.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::ParallelIterator;
use crate::sync::{AtomicBool, Ordering};
use std::convert::Infallible;
use std::ops::ControlFlow::{self, Break, Continue};

/// The types the `try_*` methods accept, as `?` does on stable Rust:
/// `Option<T>`, `Result<T, E>` and `ControlFlow<B, C>`. Sealed: the
/// standard `Try` trait is not stable, and this one is its stand-in.
///
/// ```
/// use std::ops::ControlFlow;
/// use stealpool::prelude::*;
///
/// let first_big = (0..100u32).into_par_iter().try_for_each(|x| {
///     if x == 42 { ControlFlow::Break(x) } else { ControlFlow::Continue(()) }
/// });
/// assert_eq!(first_big, ControlFlow::Break(42));
/// ```
pub trait Try: private::Sealed {
    /// The value of a success (`T` of `Some(T)` or `Ok(T)`).
    type Output;
    /// What a short-circuit carries (`None`, `Err(E)`, `Break(B)`).
    type Residual;
    /// A success.
    fn from_output(output: Self::Output) -> Self;
    /// A short-circuit.
    fn from_residual(residual: Self::Residual) -> Self;
    /// Which of the two `self` is.
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

/// Only the standard types are `Try`.
mod private {
    pub trait Sealed {}
    impl<T> Sealed for Option<T> {}
    impl<T, E> Sealed for Result<T, E> {}
    impl<B, C> Sealed for std::ops::ControlFlow<B, C> {}
}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;
    fn from_output(output: T) -> Self {
        Some(output)
    }
    fn from_residual(_: Option<Infallible>) -> Self {
        None
    }
    fn branch(self) -> ControlFlow<Option<Infallible>, T> {
        match self {
            Some(output) => Continue(output),
            None => Break(None),
        }
    }
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = Result<Infallible, E>;
    fn from_output(output: T) -> Self {
        Ok(output)
    }
    fn from_residual(residual: Result<Infallible, E>) -> Self {
        match residual {
            Err(error) => Err(error),
        }
    }
    fn branch(self) -> ControlFlow<Result<Infallible, E>, T> {
        match self {
            Ok(output) => Continue(output),
            Err(error) => Break(Err(error)),
        }
    }
}

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = ControlFlow<B, Infallible>;
    fn from_output(output: C) -> Self {
        Continue(output)
    }
    fn from_residual(residual: ControlFlow<B, Infallible>) -> Self {
        match residual {
            Break(b) => Break(b),
        }
    }
    fn branch(self) -> ControlFlow<ControlFlow<B, Infallible>, C> {
        match self {
            Continue(output) => Continue(output),
            Break(b) => Break(Break(b)),
        }
    }
}

/// `op(left, right)` unless either is a short-circuit, which wins (the
/// left one first).
fn combine<R: Try, OP: Fn(R::Output, R::Output) -> R>(op: &OP, left: R, right: R) -> R {
    match (left.branch(), right.branch()) {
        (Continue(left), Continue(right)) => op(left, right),
        (Break(residual), _) | (_, Break(residual)) => R::from_residual(residual),
    }
}

/// `try_reduce(identity, op)` over `par_iter`.
pub(super) fn try_reduce<I, T, ID, OP>(par_iter: I, identity: ID, op: OP) -> I::Item
where
    I: ParallelIterator,
    I::Item: Try<Output = T>,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> I::Item + Sync,
{
    let stop = AtomicBool::new(false);
    let identity = || Some(I::Item::from_output(identity()));
    let op = |left: I::Item, right: I::Item| combine(&op, left, right);
    let result = par_iter.drive_unindexed(TryReduceConsumer {
        identity: &identity,
        op: &op,
        stop: &stop,
    });
    result.unwrap_or_else(|| unreachable!("every piece starts from the identity"))
}

/// `try_reduce_with(op)` over `par_iter`: `None` for no items.
pub(super) fn try_reduce_with<I, T, OP>(par_iter: I, op: OP) -> Option<I::Item>
where
    I: ParallelIterator,
    I::Item: Try<Output = T>,
    OP: Fn(T, T) -> I::Item + Sync,
{
    let stop = AtomicBool::new(false);
    let op = |left: I::Item, right: I::Item| combine(&op, left, right);
    par_iter.drive_unindexed(TryReduceConsumer {
        identity: &|| None,
        op: &op,
        stop: &stop,
    })
}

/// Combines a piece's items with `op` from `identity()` (`None`: from the
/// first item); `stop` tells every piece that a short-circuit was met.
struct TryReduceConsumer<'r, ID, OP> {
    identity: &'r ID,
    op: &'r OP,
    stop: &'r AtomicBool,
}

impl<ID, OP> Clone for TryReduceConsumer<'_, ID, OP> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<ID, OP> Copy for TryReduceConsumer<'_, ID, OP> {}

impl<ID, OP> TryReduceConsumer<'_, ID, OP> {
    fn stopped(&self) -> bool {
        // Relaxed: only a hint to stop early; the short-circuit value
        // travels in the pieces' results, through `join` (I5).
        self.stop.load(Ordering::Relaxed)
    }
}

impl<'r, R, ID, OP> Consumer<R> for TryReduceConsumer<'r, ID, OP>
where
    R: Try + Send,
    ID: Fn() -> Option<R> + Sync,
    OP: Fn(R, R) -> R + Sync,
{
    type Folder = TryReduceFolder<'r, R, ID, OP>;
    type Reducer = Self;
    type Result = Option<R>;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self, self, self)
    }

    fn into_folder(self) -> Self::Folder {
        TryReduceFolder {
            consumer: self,
            item: (self.identity)(),
            broken: false,
        }
    }

    fn full(&self) -> bool {
        self.stopped()
    }
}

impl<R, ID, OP> UnindexedConsumer<R> for TryReduceConsumer<'_, ID, OP>
where
    R: Try + Send,
    ID: Fn() -> Option<R> + Sync,
    OP: Fn(R, R) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        *self
    }

    fn to_reducer(&self) -> Self {
        *self
    }
}

impl<R, ID, OP: Fn(R, R) -> R> Reducer<Option<R>> for TryReduceConsumer<'_, ID, OP> {
    fn reduce(self, left: Option<R>, right: Option<R>) -> Option<R> {
        match (left, right) {
            (Some(left), Some(right)) => Some((self.op)(left, right)),
            (left, right) => left.or(right),
        }
    }
}

/// One piece's running result; `broken` once it is a short-circuit.
struct TryReduceFolder<'r, R, ID, OP> {
    consumer: TryReduceConsumer<'r, ID, OP>,
    item: Option<R>,
    broken: bool,
}

impl<R: Try, ID, OP: Fn(R, R) -> R> Folder<R> for TryReduceFolder<'_, R, ID, OP> {
    type Result = Option<R>;

    fn consume(mut self, item: R) -> Self {
        let item = match self.item.take() {
            Some(left) => (self.consumer.op)(left, item),
            None => item,
        };
        match item.branch() {
            Continue(output) => self.item = Some(R::from_output(output)),
            Break(residual) => {
                // Relaxed: a hint, as in `stopped` (I5).
                self.consumer.stop.store(true, Ordering::Relaxed);
                self.item = Some(R::from_residual(residual));
                self.broken = true;
            }
        }
        self
    }

    fn complete(self) -> Option<R> {
        self.item
    }

    fn full(&self) -> bool {
        self.broken || self.consumer.stopped()
    }
}
