//! The parallel, stable merge sort behind [`ThreadPool::sort_by`], and its
//! parallel and sequential merges.

use super::guards::{CopyOnDrop, SendPtr, Unwind};
use crate::iter::pool::OnPool;
use crate::sync::{AtomicBool, Ordering as AtomicOrdering};
#[cfg(doc)]
use crate::ThreadPool;
use std::cmp::Ordering;
use std::mem;
use std::ptr;

/// The parallel merge sort behind [`ThreadPool::sort_by`].
///
/// It sorts back and forth between `v` and a scratch buffer of the same
/// length, moving elements with bitwise copies. The rule that keeps every
/// element owned exactly once, even when a comparison panics: a merge only
/// *reads* its source range, so until it has finished the source still holds
/// every element; only then does the destination become the owner. Each
/// level arms a [`CopyOnDrop`] that, on unwinding, copies the whole source
/// into the destination, so whatever happens below, each call leaves its
/// elements where its caller expects them.
pub(in crate::iter) struct MergeSort<'a, P, C> {
    pub(in crate::iter) pool: &'a P,
    pub(in crate::iter) compare: &'a C,
    /// Runs up to this long are sorted, and merges up to this long done,
    /// sequentially.
    pub(in crate::iter) grain: usize,
}

impl<P: OnPool, C: Sync> MergeSort<'_, P, C> {
    /// Sorts the `len` elements at `v`, leaving the result at `buf` when
    /// `into_buf`, at `v` otherwise.
    ///
    /// # Safety
    ///
    /// `v` holds `len` initialized elements and `buf` has room for `len`,
    /// neither range touched by anyone else during the call. On return (or
    /// unwind) the elements are owned by the range the result was asked in;
    /// the other range holds stale bitwise copies.
    pub(in crate::iter) unsafe fn sort<T: Send>(
        &self,
        v: SendPtr<T>,
        buf: SendPtr<T>,
        len: usize,
        into_buf: bool,
    ) where
        C: Fn(&T, &T) -> Ordering + Sync,
    {
        if len <= self.grain {
            // Copies `v` to `buf` once the sort is done or has unwound
            // (std's sort keeps a permutation when it unwinds).
            let _to_buf = into_buf.then_some(CopyOnDrop {
                src: v,
                dst: buf,
                len,
            });
            // SAFETY: `v` holds `len` elements nobody else touches.
            let slice = unsafe { std::slice::from_raw_parts_mut(v.0, len) };
            slice.sort_by(self.compare);
            return;
        }
        let mid = len / 2;
        // The halves are sorted into the other range, then merged into ours.
        let (src, dst) = if into_buf { (v, buf) } else { (buf, v) };
        // Whether each half's sort started: a half that never ran still has
        // its elements in `v` (`join` runs `b` even when `a` panics, J5, but
        // the flag does not rely on it).
        let ran = [AtomicBool::new(false), AtomicBool::new(false)];
        // Unwinding from the halves or the merge: gather every element in
        // `dst`, where our caller expects them.
        let guard = Unwind {
            v,
            buf,
            into_buf,
            halves: [(0, mid, &ran[0]), (mid, len - mid, &ran[1])],
        };
        // SAFETY: the two halves are disjoint sub-ranges of ours.
        let (v_right, buf_right) = unsafe { (v.add(mid), buf.add(mid)) };
        self.pool.join(
            || {
                // Relaxed: read by the unwind guard only after `join` has
                // returned or unwound, which orders this store first (J2).
                ran[0].store(true, AtomicOrdering::Relaxed);
                // SAFETY: as above.
                unsafe { self.sort(v, buf, mid, !into_buf) }
            },
            || {
                // Relaxed: as above (J2).
                ran[1].store(true, AtomicOrdering::Relaxed);
                // SAFETY: as above.
                unsafe { self.sort(v_right, buf_right, len - mid, !into_buf) }
            },
        );
        // SAFETY: `src` holds both sorted halves, `dst` has room for `len`.
        unsafe { self.merge(src, mid, src.add(mid), len - mid, dst) };
        // Merged: `dst` owns the elements; nothing to move.
        mem::forget(guard);
    }

    /// Copies the merge of two sorted runs to `dst`, in parallel when long:
    /// the longer run is cut at its middle element, the other run where that
    /// element would go, and the two pairs are merged side by side into
    /// their places in `dst`.
    ///
    /// # Safety
    ///
    /// The runs hold initialized elements and are not written during the
    /// call; `dst` has room for both, overlaps neither, and nobody else
    /// touches it.
    unsafe fn merge<T: Send>(
        &self,
        left: SendPtr<T>,
        left_len: usize,
        right: SendPtr<T>,
        right_len: usize,
        dst: SendPtr<T>,
    ) where
        C: Fn(&T, &T) -> Ordering + Sync,
    {
        let is_less = |a: &T, b: &T| (self.compare)(a, b) == Ordering::Less;
        if left_len + right_len <= self.grain {
            // SAFETY: forwarded.
            unsafe { merge_sequential(left.0, left_len, right.0, right_len, dst.0, &is_less) };
            return;
        }
        // SAFETY: the runs are initialized and not written meanwhile.
        let (l, r) = unsafe {
            (
                std::slice::from_raw_parts(left.0, left_len),
                std::slice::from_raw_parts(right.0, right_len),
            )
        };
        // Stability: an element of `left` goes before every equal element of
        // `right`, so equal elements of `right` stay right of a `left` pivot,
        // and equal elements of `left` stay left of a `right` pivot.
        let (left_cut, right_cut) = if left_len >= right_len {
            let cut = left_len / 2;
            (cut, r.partition_point(|x| is_less(x, &l[cut])))
        } else {
            let cut = right_len / 2;
            (l.partition_point(|x| !is_less(&r[cut], x)), cut)
        };
        // SAFETY: the four sub-runs and two destinations are disjoint parts
        // of the ranges above.
        unsafe {
            let (left_hi, right_hi) = (left.add(left_cut), right.add(right_cut));
            let dst_hi = dst.add(left_cut + right_cut);
            self.pool.join(
                || self.merge(left, left_cut, right, right_cut, dst),
                || {
                    self.merge(
                        left_hi,
                        left_len - left_cut,
                        right_hi,
                        right_len - right_cut,
                        dst_hi,
                    )
                },
            );
        }
    }
}

/// Copies the merge of two sorted runs to `dst`, one element at a time.
///
/// # Safety
///
/// As for [`MergeSort::merge`].
unsafe fn merge_sequential<T>(
    left: *const T,
    left_len: usize,
    right: *const T,
    right_len: usize,
    dst: *mut T,
    is_less: &impl Fn(&T, &T) -> bool,
) {
    let (mut l, mut r, mut out) = (0, 0, dst);
    // SAFETY: `l < left_len`, `r < right_len` and `out` stays within the
    // `left_len + right_len` slots of `dst`; the runs are only read, so a
    // panicking `is_less` leaves them intact.
    unsafe {
        while l < left_len && r < right_len {
            let take_right = is_less(&*right.add(r), &*left.add(l));
            let from = if take_right { right.add(r) } else { left.add(l) };
            ptr::copy_nonoverlapping(from, out, 1);
            out = out.add(1);
            r += usize::from(take_right);
            l += usize::from(!take_right);
        }
        ptr::copy_nonoverlapping(left.add(l), out, left_len - l);
        ptr::copy_nonoverlapping(right.add(r), out.add(left_len - l), right_len - r);
    }
}
