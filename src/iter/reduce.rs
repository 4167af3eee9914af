//! The consumers of [`reduce`](super::ParallelIterator::reduce),
//! [`sum`](super::ParallelIterator::sum) and
//! [`product`](super::ParallelIterator::product): each piece folded
//! sequentially, the pieces' results combined in order.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::ParallelIterator;
use std::iter::{self, Product, Sum};
use std::marker::PhantomData;

/// `reduce(identity, op)` over `par_iter`.
pub(super) fn reduce<I, ID, OP>(par_iter: I, identity: ID, op: OP) -> I::Item
where
    I: ParallelIterator,
    ID: Fn() -> I::Item + Sync,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync,
{
    par_iter.drive_unindexed(ReduceConsumer {
        identity: &identity,
        op: &op,
    })
}

/// Folds each piece from `identity()` with `op`, and joins pieces with `op`.
struct ReduceConsumer<'r, ID, OP> {
    identity: &'r ID,
    op: &'r OP,
}

impl<ID, OP> Clone for ReduceConsumer<'_, ID, OP> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<ID, OP> Copy for ReduceConsumer<'_, ID, OP> {}

impl<'r, T, ID, OP> Consumer<T> for ReduceConsumer<'r, ID, OP>
where
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    type Folder = ReduceFolder<'r, T, OP>;
    type Reducer = Self;
    type Result = T;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self, self, self)
    }

    fn into_folder(self) -> Self::Folder {
        ReduceFolder {
            item: (self.identity)(),
            op: self.op,
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T, ID, OP> UnindexedConsumer<T> for ReduceConsumer<'_, ID, OP>
where
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    fn split_off_left(&self) -> Self {
        *self
    }

    fn to_reducer(&self) -> Self {
        *self
    }
}

impl<T, ID, OP: Fn(T, T) -> T> Reducer<T> for ReduceConsumer<'_, ID, OP> {
    fn reduce(self, left: T, right: T) -> T {
        (self.op)(left, right)
    }
}

/// One piece's running result.
struct ReduceFolder<'r, T, OP> {
    item: T,
    op: &'r OP,
}

impl<T, OP: Fn(T, T) -> T> Folder<T> for ReduceFolder<'_, T, OP> {
    type Result = T;

    fn consume(self, item: T) -> Self {
        ReduceFolder {
            item: (self.op)(self.item, item),
            op: self.op,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let op = self.op;
        ReduceFolder {
            item: iter.into_iter().fold(self.item, op),
            op,
        }
    }

    fn complete(self) -> T {
        self.item
    }

    fn full(&self) -> bool {
        false
    }
}

/// A consumer that sums or multiplies, through the std traits `$tr`
/// (`Sum`, `Product`) and their method `$method`.
macro_rules! arithmetic_consumer {
    ($consumer:ident, $folder:ident, $tr:ident, $method:ident, $what:literal) => {
        #[doc = concat!("The ", $what, " of the items, each piece's by `Iterator::", stringify!($method), "`.")]
        pub(super) struct $consumer<S>(PhantomData<fn() -> S>);

        impl<S> $consumer<S> {
            pub(super) fn new() -> Self {
                $consumer(PhantomData)
            }
        }

        impl<T, S: Send + $tr<T> + $tr<S>> Consumer<T> for $consumer<S> {
            type Folder = $folder<S>;
            type Reducer = Self;
            type Result = S;

            fn split_at(self, _index: usize) -> (Self, Self, Self) {
                ($consumer::new(), $consumer::new(), self)
            }

            fn into_folder(self) -> $folder<S> {
                $folder(iter::empty::<T>().$method())
            }

            fn full(&self) -> bool {
                false
            }
        }

        impl<T, S: Send + $tr<T> + $tr<S>> UnindexedConsumer<T> for $consumer<S> {
            fn split_off_left(&self) -> Self {
                $consumer::new()
            }

            fn to_reducer(&self) -> Self {
                $consumer::new()
            }
        }

        impl<S: $tr<S>> Reducer<S> for $consumer<S> {
            fn reduce(self, left: S, right: S) -> S {
                [left, right].into_iter().$method()
            }
        }

        #[doc = concat!("One piece's running ", $what, ".")]
        pub(super) struct $folder<S>(S);

        impl<T, S: $tr<T> + $tr<S>> Folder<T> for $folder<S> {
            type Result = S;

            fn consume(self, item: T) -> Self {
                let item: S = iter::once(item).$method();
                $folder([self.0, item].into_iter().$method())
            }

            fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
                let piece: S = iter.into_iter().$method();
                $folder([self.0, piece].into_iter().$method())
            }

            fn complete(self) -> S {
                self.0
            }

            fn full(&self) -> bool {
                false
            }
        }
    };
}

arithmetic_consumer!(SumConsumer, SumFolder, Sum, sum, "sum");
arithmetic_consumer!(ProductConsumer, ProductFolder, Product, product, "product");

/// [`reduce_with`](ParallelIterator::reduce_with): each piece folds into
/// an `Option`, and the pieces' options are joined by `op`.
pub(super) fn reduce_with<I, OP>(par_iter: I, op: OP) -> Option<I::Item>
where
    I: ParallelIterator,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
{
    let join = |a: Option<I::Item>, b: Option<I::Item>| match (a, b) {
        (Some(a), Some(b)) => Some(op(a, b)),
        (a, b) => a.or(b),
    };
    par_iter
        .fold(|| None, |acc, item| join(acc, Some(item)))
        .reduce(|| None, join)
}

/// `min_by_key` and `max_by_key`: the item whose key wins, where the right
/// one of two wins when `right_wins(left_key, right_key)`.
pub(super) fn by_key<I, K, F>(par_iter: I, f: F, right_wins: fn(&K, &K) -> bool) -> Option<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Sync + Send + Fn(&I::Item) -> K,
{
    let keyed = par_iter.map(|item| (f(&item), item));
    let winner = keyed.reduce_with(|a, b| if right_wins(&a.0, &b.0) { b } else { a });
    winner.map(|(_, item)| item)
}
