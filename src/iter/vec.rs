//! `Vec<T>` as a parallel iterator by value: `vec.into_par_iter()` moves
//! the elements out, each piece dropping whatever it did not hand on.

use super::plumbing::{bridge, Folder, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::{mem, ptr, slice};

/// The parallel iterator of `Vec<T>`'s
/// [`into_par_iter`](IntoParallelIterator::into_par_iter).
///
/// ```
/// use stealpool::prelude::*;
///
/// let words = vec![String::from("a"), String::from("bc")];
/// let it: stealpool::iter::VecIntoIter<String> = words.into_par_iter();
/// let owned: Vec<String> = it.map(|s| s + "!").collect();
/// assert_eq!(owned, ["a!", "bc!"]);
/// ```
#[derive(Clone, Debug)]
pub struct IntoIter<T> {
    vec: Vec<T>,
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Iter = IntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { vec: self }
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.vec.len())
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    fn len(&self) -> usize {
        self.vec.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        let len = self.vec.len();
        // SAFETY (I1): from here the producer owns the `len` elements and
        // the `Vec` only its buffer, which it frees, dropping no element,
        // when `self` goes out of scope after the callback has returned or
        // unwound. Every element is then moved out or dropped by exactly
        // one producer or drain.
        let slice = unsafe {
            self.vec.set_len(0);
            slice::from_raw_parts_mut(self.vec.as_mut_ptr(), len)
        };
        callback.callback(DrainProducer { slice })
    }
}

/// The elements of `slice`, owned: moved out when iterated, dropped with
/// the producer otherwise (I1).
struct DrainProducer<'a, T> {
    slice: &'a mut [T],
}

impl<'a, T: Send> Producer for DrainProducer<'a, T> {
    type Item = T;
    type IntoIter = SliceDrain<'a, T>;

    fn into_iter(mut self) -> SliceDrain<'a, T> {
        // The drain takes over the elements; `self` drops an empty slice.
        let slice = mem::take(&mut self.slice);
        SliceDrain {
            iter: slice.iter_mut(),
        }
    }

    fn fold_rev_with<F: Folder<T>>(self, folder: F) -> F {
        folder.consume_iter(self.into_iter().rev())
    }

    fn split_at(mut self, index: usize) -> (Self, Self) {
        // Each half owns its part; `self` drops an empty slice (I1).
        let slice = mem::take(&mut self.slice);
        let (left, right) = slice.split_at_mut(index);
        (DrainProducer { slice: left }, DrainProducer { slice: right })
    }
}

impl<T> Drop for DrainProducer<'_, T> {
    fn drop(&mut self) {
        // SAFETY (I1): the elements still in `slice` are owned by this
        // producer alone and have not been moved out.
        unsafe { ptr::drop_in_place(mem::take(&mut self.slice) as *mut [T]) };
    }
}

/// The sequential iterator over a [`DrainProducer`]'s elements: each is
/// read out once; those not reached are dropped with it (I1).
struct SliceDrain<'a, T> {
    iter: slice::IterMut<'a, T>,
}

impl<T> Iterator for SliceDrain<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        // SAFETY (I1): `iter` yields each owned element once, and the drain
        // never reads or drops it again.
        self.iter.next().map(|element| unsafe { ptr::read(element) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<T> DoubleEndedIterator for SliceDrain<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        // SAFETY (I1): as in `next`; the element leaves `iter` at its back.
        self.iter.next_back().map(|element| unsafe { ptr::read(element) })
    }
}

impl<T> Drop for SliceDrain<'_, T> {
    fn drop(&mut self) {
        let rest = mem::take(&mut self.iter).into_slice();
        // SAFETY (I1): the elements not yielded are still owned here.
        unsafe { ptr::drop_in_place(rest as *mut [T]) };
    }
}
