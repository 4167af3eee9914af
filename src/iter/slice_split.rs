//! Slices cut where a predicate says: `par_split`, `par_split_mut` (at
//! each separator element), `par_split_inclusive(_mut)` (after each) and `par_chunk_by`, `par_chunk_by_mut`
//! (between neighbours the predicate does not join). A piece is split at
//! the cut nearest its middle, so no item is cut in two; pieces shorter
//! than [`MIN_SPLIT`] are not split.

use super::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use super::ParallelIterator;

/// Pieces cheaper to scan sequentially than to split.
const MIN_SPLIT: usize = 1 << 10;

/// The place `i` nearest the middle of `slice` for which `is_cut(i)`:
/// the first at or after the middle, else the last before it.
fn cut_near<T>(slice: &[T], is_cut: impl Fn(usize) -> bool) -> Option<usize> {
    let mid = slice.len() / 2;
    (mid..slice.len())
        .find(|&i| is_cut(i))
        .or_else(|| (0..mid).rev().find(|&i| is_cut(i)))
}

/// Declares one of the four iterators with its producer.
macro_rules! split_iterator {
    (
        $(#[$doc:meta])* $name:ident, $producer:ident, $slice:ty, $bound:ident, $item:ty,
        pred ($($pred:tt)*), seq $seq:ident, split $split:ident,
        cut |$s:ident, $p:ident, $i:ident| $is_cut:expr, parts $sep_len:literal
    ) => {
        $(#[$doc])*
        pub struct $name<'a, T, P> {
            slice: $slice,
            pred: P,
        }

        impl<'a, T, P> $name<'a, T, P> {
            pub(super) fn new(slice: $slice, pred: P) -> Self {
                $name { slice, pred }
            }
        }

        impl<T: std::fmt::Debug, P> std::fmt::Debug for $name<'_, T, P> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name)).field("slice", &self.slice).finish_non_exhaustive()
            }
        }

        impl<'a, T: $bound + 'a, P: $($pred)* + Sync + Send> ParallelIterator for $name<'a, T, P> {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                let producer = $producer {
                    slice: self.slice,
                    pred: &self.pred,
                };
                bridge_unindexed(producer, consumer)
            }
        }

        /// The producer of the iterator of the same name.
        struct $producer<'a, 'p, T, P> {
            slice: $slice,
            pred: &'p P,
        }

        impl<'a, T: $bound + 'a, P: $($pred)* + Sync> UnindexedProducer for $producer<'a, '_, T, P> {
            type Item = $item;

            fn split(self) -> (Self, Option<Self>) {
                if self.slice.len() < MIN_SPLIT {
                    return (self, None);
                }
                let cut = {
                    let ($s, $p) = (&*self.slice, self.pred);
                    cut_near($s, |$i| $is_cut)
                };
                let Some(at) = cut else {
                    return (self, None);
                };
                // For `split`, the separator at `at` goes to neither side;
                // for `chunk_by`, the cut is after element `at`.
                let (left, right) = self.slice.$split(at + 1);
                let left = if $sep_len == 1 { left.$split(at).0 } else { left };
                let pred = self.pred;
                ($producer { slice: left, pred }, Some($producer { slice: right, pred }))
            }

            fn fold_with<F: Folder<$item>>(self, folder: F) -> F {
                folder.consume_iter(self.slice.$seq(self.pred))
            }
        }
    };
}

split_iterator!(
    /// The iterator of [`par_split`](super::ParallelSlice::par_split).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let s: stealpool::iter::SliceSplit<'_, u8, _> = [1u8, 0, 2, 3].par_split(|x| *x == 0);
    /// assert_eq!(s.collect::<Vec<_>>(), [&[1][..], &[2, 3]]);
    /// ```
    Split, SplitProducer, &'a [T], Sync, &'a [T],
    pred (Fn(&T) -> bool), seq split, split split_at,
    cut |s, p, i| p(&s[i]), parts 1
);

split_iterator!(
    /// The iterator of [`par_split_mut`](super::ParallelSliceMut::par_split_mut).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [3u8, 1, 0, 2, 1];
    /// let s: stealpool::iter::SliceSplitMut<'_, u8, _> = v.par_split_mut(|x| *x == 0);
    /// s.for_each(|part| part.sort());
    /// assert_eq!(v, [1, 3, 0, 1, 2]);
    /// ```
    SplitMut, SplitMutProducer, &'a mut [T], Send, &'a mut [T],
    pred (Fn(&T) -> bool), seq split_mut, split split_at_mut,
    cut |s, p, i| p(&s[i]), parts 1
);

split_iterator!(
    /// The iterator of [`par_chunk_by`](super::ParallelSlice::par_chunk_by).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let c: stealpool::iter::ChunkBy<'_, u8, _> = [1u8, 1, 2, 3, 3].par_chunk_by(|a, b| a == b);
    /// assert_eq!(c.collect::<Vec<_>>(), [&[1, 1][..], &[2], &[3, 3]]);
    /// ```
    ChunkBy, ChunkByProducer, &'a [T], Sync, &'a [T],
    pred (Fn(&T, &T) -> bool), seq chunk_by, split split_at,
    cut |s, p, i| i + 1 < s.len() && !p(&s[i], &s[i + 1]), parts 0
);

split_iterator!(
    /// The iterator of [`par_chunk_by_mut`](super::ParallelSliceMut::par_chunk_by_mut).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [1u8, 1, 2, 3, 3];
    /// let c: stealpool::iter::ChunkByMut<'_, u8, _> = v.par_chunk_by_mut(|a, b| a == b);
    /// c.for_each(|run| run.fill(run.len() as u8));
    /// assert_eq!(v, [2, 2, 1, 2, 2]);
    /// ```
    ChunkByMut, ChunkByMutProducer, &'a mut [T], Send, &'a mut [T],
    pred (Fn(&T, &T) -> bool), seq chunk_by_mut, split split_at_mut,
    cut |s, p, i| i + 1 < s.len() && !p(&s[i], &s[i + 1]), parts 0
);

split_iterator!(
    /// The iterator of
    /// [`par_split_inclusive`](super::ParallelSlice::par_split_inclusive).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let s: stealpool::iter::SliceSplitInclusive<'_, u8, _> = [1u8, 0, 2].par_split_inclusive(|x| *x == 0);
    /// assert_eq!(s.collect::<Vec<_>>(), [&[1, 0][..], &[2]]);
    /// ```
    SplitInclusive, SplitInclusiveProducer, &'a [T], Sync, &'a [T],
    pred (Fn(&T) -> bool), seq split_inclusive, split split_at,
    cut |s, p, i| i + 1 < s.len() && p(&s[i]), parts 0
);

split_iterator!(
    /// The iterator of
    /// [`par_split_inclusive_mut`](super::ParallelSliceMut::par_split_inclusive_mut).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let mut v = [1u8, 0, 2];
    /// let s: stealpool::iter::SliceSplitInclusiveMut<'_, u8, _> = v.par_split_inclusive_mut(|x| *x == 0);
    /// s.for_each(|part| part.reverse());
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    SplitInclusiveMut, SplitInclusiveMutProducer, &'a mut [T], Send, &'a mut [T],
    pred (Fn(&T) -> bool), seq split_inclusive_mut, split split_at_mut,
    cut |s, p, i| i + 1 < s.len() && p(&s[i]), parts 0
);

/// The iterators over shared slices clone with their predicate, as
/// rayon's do.
macro_rules! clone_with_pred {
    ($($name:ident),*) => {$(
        impl<T, P: Clone> Clone for $name<'_, T, P> {
            fn clone(&self) -> Self {
                $name {
                    slice: self.slice,
                    pred: self.pred.clone(),
                }
            }
        }
    )*};
}

clone_with_pred!(Split, SplitInclusive, ChunkBy);
