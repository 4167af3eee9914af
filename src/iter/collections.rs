//! The std collections, `Option` and `Result` as parallel iterators, and
//! the collections `collect` builds beyond `Vec`, `String` and `HashMap`.
//!
//! As rayon's, a collection that cannot be split in place (a hash table, a
//! tree, a list) is first gathered into a `Vec` of its items (or of
//! references to them), which then splits at any index: the iterators are
//! [`VecIntoIter`]s. `Option` and `Result` hold one item or none.
//!
//! ```
//! use std::collections::{BTreeMap, HashMap, HashSet};
//! use stealpool::prelude::*;
//!
//! let ages: HashMap<&str, u32> = [("ann", 31), ("bob", 42)].into_iter().collect();
//! assert_eq!(ages.par_iter().map(|(_, age)| age).sum::<u32>(), 73);
//! let names: HashSet<&str> = ages.into_par_iter().map(|(name, _)| name).collect();
//! assert!(names.contains("bob"));
//! let squares: BTreeMap<u32, u32> = (1..4u32).into_par_iter().map(|x| (x, x * x)).collect();
//! assert_eq!(squares.into_par_iter().map(|(_, s)| s).collect::<Vec<_>>(), [1, 4, 9]);
//! assert_eq!(Some(3).into_par_iter().chain(None).sum::<i32>(), 3);
//! let parsed: Result<u8, _> = "7".parse::<u8>();
//! assert_eq!(parsed.par_iter().count(), 1);
//! ```

use super::collect::collect_pieces;
use super::{FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator, VecIntoIter};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};

/// `IntoParallelIterator` for a collection by value, by reference and by
/// mutable reference, through a `Vec` of what its `into_iter` yields.
macro_rules! through_vec {
    ($(impl<$($g:tt),*> $coll:ty, item $item:ty, where { $($bounds:tt)* };)*) => {$(
        impl<$($g),*> IntoParallelIterator for $coll
        where
            $item: Send,
            $($bounds)*
        {
            type Iter = VecIntoIter<$item>;
            type Item = $item;
            fn into_par_iter(self) -> VecIntoIter<$item> {
                self.into_iter().collect::<Vec<_>>().into_par_iter()
            }
        }
    )*};
}

through_vec! {
    impl<K, V, S> HashMap<K, V, S>, item (K, V), where {};
    impl<'a, K, V, S> &'a HashMap<K, V, S>, item (&'a K, &'a V), where {};
    impl<'a, K, V, S> &'a mut HashMap<K, V, S>, item (&'a K, &'a mut V), where {};
    impl<T, S> HashSet<T, S>, item T, where {};
    impl<'a, T, S> &'a HashSet<T, S>, item &'a T, where {};
    impl<K, V> BTreeMap<K, V>, item (K, V), where {};
    impl<'a, K, V> &'a BTreeMap<K, V>, item (&'a K, &'a V), where {};
    impl<'a, K, V> &'a mut BTreeMap<K, V>, item (&'a K, &'a mut V), where {};
    impl<T> BTreeSet<T>, item T, where {};
    impl<'a, T> &'a BTreeSet<T>, item &'a T, where {};
    impl<T> VecDeque<T>, item T, where {};
    impl<'a, T> &'a VecDeque<T>, item &'a T, where {};
    impl<'a, T> &'a mut VecDeque<T>, item &'a mut T, where {};
    impl<T> LinkedList<T>, item T, where {};
    impl<'a, T> &'a LinkedList<T>, item &'a T, where {};
    impl<'a, T> &'a mut LinkedList<T>, item &'a mut T, where {};
    impl<T> BinaryHeap<T>, item T, where {};
    impl<'a, T> &'a BinaryHeap<T>, item &'a T, where {};
    impl<T> Option<T>, item T, where {};
    impl<'a, T> &'a Option<T>, item &'a T, where {};
    impl<'a, T> &'a mut Option<T>, item &'a mut T, where {};
    impl<T, E> Result<T, E>, item T, where {};
    impl<'a, T, E> &'a Result<T, E>, item &'a T, where {};
    impl<'a, T, E> &'a mut Result<T, E>, item &'a mut T, where {};
}

/// `FromParallelIterator` and `ParallelExtend` for a collection built by
/// its `Extend`, piece after piece, in order.
macro_rules! extend_in_order {
    ($(impl<$($g:tt),*> $coll:ty, item $item:ty, where { $($bounds:tt)* };)*) => {$(
        impl<$($g),*> ParallelExtend<$item> for $coll
        where
            $item: Send,
            $($bounds)*
        {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                let pieces: LinkedList<Vec<$item>> = collect_pieces(par_iter.into_par_iter());
                for piece in pieces {
                    self.extend(piece);
                }
            }
        }

        impl<$($g),*> FromParallelIterator<$item> for $coll
        where
            $item: Send,
            $coll: Default,
            $($bounds)*
        {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                let mut collection = <$coll>::default();
                collection.par_extend(par_iter);
                collection
            }
        }
    )*};
}

extend_in_order! {
    impl<T, S> HashSet<T, S>, item T, where { T: Eq + Hash, S: BuildHasher + Send, };
    impl<K, V> BTreeMap<K, V>, item (K, V), where { K: Ord, };
    impl<T> BTreeSet<T>, item T, where { T: Ord, };
    impl<T> VecDeque<T>, item T, where {};
    impl<T> LinkedList<T>, item T, where {};
    impl<T> BinaryHeap<T>, item T, where { T: Ord, };
}

/// `ParallelExtend<&T>` for a collection of `T: Copy`: extends it by
/// copies of the items referred to (of the pairs, for a map), as its
/// `Extend<&T>` does.
macro_rules! extend_copied {
    ($(impl<$($g:tt),*> $coll:ty, item $item:ty, copy $copy:expr, where { $($bounds:tt)* };)*) => {$(
        impl<'a, $($g),*> ParallelExtend<$item> for $coll
        where
            $($bounds)*
        {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                self.par_extend(par_iter.into_par_iter().map($copy));
            }
        }
    )*};
}

extend_copied! {
    impl<T, S> HashSet<T, S>, item &'a T, copy |x: &T| *x, where {
        T: 'a + Copy + Eq + Hash + Send + Sync, S: BuildHasher + Send,
    };
    impl<T> BTreeSet<T>, item &'a T, copy |x: &T| *x, where { T: 'a + Copy + Ord + Send + Sync, };
    impl<T> VecDeque<T>, item &'a T, copy |x: &T| *x, where { T: 'a + Copy + Send + Sync, };
    impl<T> LinkedList<T>, item &'a T, copy |x: &T| *x, where { T: 'a + Copy + Send + Sync, };
    impl<T> BinaryHeap<T>, item &'a T, copy |x: &T| *x, where { T: 'a + Copy + Ord + Send + Sync, };
    impl<K, V, S> HashMap<K, V, S>, item (&'a K, &'a V), copy |(k, v): (&K, &V)| (*k, *v), where {
        K: 'a + Copy + Eq + Hash + Send + Sync, V: 'a + Copy + Send + Sync, S: BuildHasher + Send,
    };
    impl<K, V> BTreeMap<K, V>, item (&'a K, &'a V), copy |(k, v): (&K, &V)| (*k, *v), where {
        K: 'a + Copy + Ord + Send + Sync, V: 'a + Copy + Send + Sync,
    };
}
