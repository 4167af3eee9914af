//! What the deque can hold: values that fit in one pointer-sized word.
//!
//! Slots are `AtomicPtr<()>` so that every access to them can be atomic
//! (see D11 in `proofs/deque.md`). An [`Element`] is a value that converts to
//! such a word and back without allocating: owning pointers (`Box<T>`,
//! `Arc<T>`), plain `usize`s, and the pool's own one-word job references.

use std::ptr;
use std::sync::Arc;

mod sealed {
    /// Converts a value to one word and back.
    ///
    /// # Safety
    ///
    /// `from_word(into_word(x))` must give back `x`, and each word returned
    /// by `into_word` must be passed to `from_word` at most once.
    pub unsafe trait Word: Sized {
        fn into_word(self) -> *mut ();
        /// # Safety
        /// `word` came from `into_word` and has not been converted back yet.
        unsafe fn from_word(word: *mut ()) -> Self;
    }
}

pub(crate) use sealed::Word;

/// A value the deque can hold: anything that is `Send` and fits in one
/// pointer-sized word without allocating.
///
/// Implemented for `Box<T>` and `Arc<T>` (so any `T: Send` can be queued as
/// `Box<T>`) and for `usize`. The trait is sealed: its conversions are what
/// keep the deque free of data races, so only this crate implements it.
///
/// ```
/// use stealpool::deque::Worker;
///
/// let boxed: Worker<Box<String>> = Worker::new();
/// boxed.push(Box::new("hello".to_string()));
/// let indices: Worker<usize> = Worker::new();
/// indices.push(7);
/// assert_eq!(indices.pop(), Some(7));
/// ```
pub trait Element: Word + Send {}

// SAFETY: `Box::into_raw`/`Box::from_raw` round-trip, one owner per word.
unsafe impl<T> Word for Box<T> {
    #[inline]
    fn into_word(self) -> *mut () {
        Box::into_raw(self).cast()
    }
    #[inline]
    unsafe fn from_word(word: *mut ()) -> Self {
        // SAFETY: the caller passes a word from `into_word`, once.
        unsafe { Box::from_raw(word.cast()) }
    }
}
impl<T: Send> Element for Box<T> {}

// SAFETY: `Arc::into_raw`/`Arc::from_raw` round-trip; each word owns one count.
unsafe impl<T> Word for Arc<T> {
    #[inline]
    fn into_word(self) -> *mut () {
        Arc::into_raw(self).cast_mut().cast()
    }
    #[inline]
    unsafe fn from_word(word: *mut ()) -> Self {
        // SAFETY: the caller passes a word from `into_word`, once.
        unsafe { Arc::from_raw(word.cast_const().cast()) }
    }
}
impl<T: Send + Sync> Element for Arc<T> {}

// SAFETY: a `usize` travels as a pointer with no provenance, and back.
unsafe impl Word for usize {
    #[inline]
    fn into_word(self) -> *mut () {
        ptr::without_provenance_mut(self)
    }
    #[inline]
    unsafe fn from_word(word: *mut ()) -> Self {
        word.addr()
    }
}
impl Element for usize {}
