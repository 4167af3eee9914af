//! [`MultiZip`]: a tuple of up to 12 indexed parallel iterators (or of
//! what turns into them) as one, of tuples: `(a, b, c).into_par_iter()`.

use super::plumbing::{bridge, ProducerCallback, UnindexedConsumer};
use super::ParallelIterator;
use super::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator,
};

/// The iterator of a tuple's `into_par_iter`: the items of its iterators
/// side by side, as long as the shortest, as
/// [`zip`](IndexedParallelIterator::zip) does for two.
///
/// ```
/// use stealpool::prelude::*;
///
/// let (a, b, c) = (vec![1, 2, 3], [10, 20, 30], vec!['x', 'y']);
/// let z: stealpool::iter::MultiZip<_> = (&a, &b, &c).into_par_iter();
/// assert_eq!(z.collect::<Vec<_>>(), [(&1, &10, &'x'), (&2, &20, &'y')]);
/// let sums: Vec<i32> = (a, b).into_par_iter().map(|(x, y)| x + y).collect();
/// assert_eq!(sums, [11, 22, 33]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct MultiZip<T> {
    tuple: T,
}

/// The pattern of `a.zip(b).zip(c)...`'s items, `((a, b), c)...`.
macro_rules! nested {
    (@acc $acc:tt ;) => { $acc };
    (@acc $acc:tt ; $next:ident $(, $rest:ident)*) => { nested!(@acc ($acc, $next) ; $($rest),*) };
    ($first:ident $(, $rest:ident)*) => { nested!(@acc $first ; $($rest),*) };
}

macro_rules! multizip {
    ($(($T:ident, $v:ident)),+) => {
        impl<$($T,)+> IntoParallelIterator for ($($T,)+)
        where
            $($T: IntoParallelIterator<Iter: IndexedParallelIterator>,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                let ($($v,)+) = self;
                MultiZip { tuple: ($($v.into_par_iter(),)+) }
            }
        }

        impl<'a, $($T,)+> IntoParallelIterator for &'a ($($T,)+)
        where
            $($T: IntoParallelRefIterator<'a, Iter: IndexedParallelIterator>,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                let ($($v,)+) = self;
                MultiZip { tuple: ($($v.par_iter(),)+) }
            }
        }

        impl<'a, $($T,)+> IntoParallelIterator for &'a mut ($($T,)+)
        where
            $($T: IntoParallelRefMutIterator<'a, Iter: IndexedParallelIterator>,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                let ($($v,)+) = self;
                MultiZip { tuple: ($($v.par_iter_mut(),)+) }
            }
        }

        impl<$($T: IndexedParallelIterator,)+> ParallelIterator for MultiZip<($($T,)+)> {
            type Item = ($($T::Item,)+);

            fn drive_unindexed<CONSUMER: UnindexedConsumer<Self::Item>>(self, consumer: CONSUMER) -> CONSUMER::Result {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($T: IndexedParallelIterator,)+> IndexedParallelIterator for MultiZip<($($T,)+)> {
            fn len(&self) -> usize {
                let ($($v,)+) = &self.tuple;
                [$($v.len()),+].into_iter().min().expect("a tuple of at least one")
            }

            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                multizip!(@zip self, callback, $($v),+)
            }
        }
    };
    (@zip $self:ident, $callback:ident, $first:ident $(, $rest:ident)*) => {{
        let ($first, $($rest,)*) = $self.tuple;
        $first$(.zip($rest))*
            .map(|nested!($first $(, $rest)*)| ($first, $($rest,)*))
            .with_producer($callback)
    }};
}

/// [`multizip!`] for every prefix of the list: tuples of 1 to 12.
macro_rules! multizip_prefixes {
    ([$($done:tt)*]) => {};
    ([$($done:tt)*] $next:tt $(, $rest:tt)*) => {
        multizip!($($done)* $next);
        multizip_prefixes!([$($done)* $next,] $($rest),*);
    };
}

multizip_prefixes! {
    [] (A, a), (B, b), (C, c), (D, d), (E, e), (F, f), (G, g), (H, h), (I, i), (J, j), (K, k), (L, l)
}
