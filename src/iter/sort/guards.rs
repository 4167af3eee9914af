//! The merge sort's raw-pointer plumbing: [`SendPtr`], which carries a range
//! to the worker running the other half of a `join`, and the drop guards
//! ([`CopyOnDrop`], [`Unwind`]) that keep every element owned exactly once
//! when a comparison panics. The quicksort needs none of them: it only
//! moves elements by `swap`.

// For the intra-doc links below.
#[cfg(doc)]
use super::merge_sort::MergeSort;
use crate::sync::{AtomicBool, Ordering as AtomicOrdering};
use std::ptr;

/// A raw pointer that may cross to the worker running the other half of a
/// `join`.
pub(in crate::iter) struct SendPtr<T>(pub(in crate::iter) *mut T);

impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// `self` advanced by `count` elements.
    ///
    /// # Safety
    ///
    /// As for `pointer::add`.
    pub(in crate::iter) unsafe fn add(self, count: usize) -> Self {
        // SAFETY: forwarded to the caller.
        SendPtr(unsafe { self.0.add(count) })
    }
}

// SAFETY: the sorts hand each task a range that no other task reads or
// writes meanwhile, and the `T`s it points to are `Send`.
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as above; shared `SendPtr`s are only copied, never dereferenced
// concurrently on overlapping ranges.
unsafe impl<T: Send> Sync for SendPtr<T> {}

/// Copies `len` elements from `src` to `dst` when dropped.
pub(in crate::iter) struct CopyOnDrop<T> {
    pub(in crate::iter) src: SendPtr<T>,
    pub(in crate::iter) dst: SendPtr<T>,
    pub(in crate::iter) len: usize,
}

impl<T> Drop for CopyOnDrop<T> {
    fn drop(&mut self) {
        // SAFETY: the owners of guards (`MergeSort::sort`) arm them over two
        // disjoint ranges of `len` elements that they alone use.
        unsafe { ptr::copy_nonoverlapping(self.src.0, self.dst.0, self.len) };
    }
}

/// Armed by a level of [`MergeSort::sort`] while its halves and its merge
/// run; dropped while unwinding, it moves every element of the level to
/// where the level's caller expects them (`buf` when `into_buf`, else `v`).
///
/// A half that started leaves its elements where it was asked to (the
/// region that is not the level's destination), even when it unwinds; a
/// half that never started still has them in `v`. A merge only reads its
/// source, so a merge that unwinds changes nothing of this.
pub(in crate::iter) struct Unwind<'a, T> {
    pub(in crate::iter) v: SendPtr<T>,
    pub(in crate::iter) buf: SendPtr<T>,
    pub(in crate::iter) into_buf: bool,
    /// `(offset, len, started)` of each half.
    pub(in crate::iter) halves: [(usize, usize, &'a AtomicBool); 2],
}

impl<T> Drop for Unwind<'_, T> {
    fn drop(&mut self) {
        let dst = if self.into_buf { self.buf } else { self.v };
        for (offset, len, started) in self.halves {
            // Relaxed: the half ran on this thread or finished before `join`
            // returned or unwound, which orders its store before this load
            // (J2).
            let here = if !started.load(AtomicOrdering::Relaxed) || self.into_buf {
                self.v
            } else {
                self.buf
            };
            if here.0 != dst.0 {
                // SAFETY: `v` and `buf` are disjoint, and the half's range
                // is ours alone.
                unsafe { ptr::copy_nonoverlapping(here.0.add(offset), dst.0.add(offset), len) };
            }
        }
    }
}
