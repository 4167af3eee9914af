//! What the deque can hold: any `T`, each slot one atomic word.
//!
//! Slots are `AtomicPtr<()>` so that every access to them can be atomic
//! (see D11 in `proofs/deque.md`). An element goes into a slot as one word
//! and comes back out of it by [`into_word`] and [`from_word`], chosen per
//! type when the code is compiled:
//!
//! * **as itself**, for the types known to be one initialized word or less
//!   with no padding: the primitive integers, `bool`, `char`, `f32`, `f64`
//!   the pool's job references ([`JobRef`](super::JobRef), defined in
//!   this layer for that) and the injector's nodes. Their bytes are copied into a null
//!   word (a pointer keeps its provenance, being copied
//!   whole, byte for byte) and back;
//! * **as nothing**, for zero-sized types: the word is a dangling pointer,
//!   and the value is conjured back from it;
//! * **through a box**, for everything else (`Box<dyn FnOnce()>`, tuples,
//!   `Option<Box<_>>`, and also `Box<T>` and `Arc<T>`): the word is the
//!   `Box<T>`'s pointer, so a push allocates once and a pop or steal frees it.
//!
//! Why not every word-sized type as itself: a word-sized value may hold
//! uninitialized bytes (a union, a `MaybeUninit<u64>`, padding), and an
//! atomic word holding uninitialized bytes is undefined behaviour; nothing
//! on stable Rust tells such a type from a pointer or an integer, and
//! without specialization no trait can tell `Box<T>` from a type for every
//! `T`. So the types that travel as themselves are the ones named here,
//! recognized by their `TypeId`. The comparison is between two constants
//! and folds away when the code is compiled.

use std::any::TypeId;
use std::marker::PhantomData;
use std::mem::{self, MaybeUninit};
use std::ptr::{self, NonNull};

/// How values of `T` travel in a slot.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Repr {
    /// The value's bytes are the word's (its first bytes; the rest are 0).
    Itself,
    /// Zero-sized: the word says nothing.
    Nothing,
    /// The word is a `Box<T>`'s pointer.
    Boxed,
}

/// `TypeId::of::<T>()` for a `T` that may hold lifetimes: `TypeId::of`
/// asks for `'static`, so it is called through a trait object whose
/// lifetime is erased. The id is only compared with ids of `'static` types
/// that hold no lifetime; those compare equal exactly for the same type.
#[inline(always)]
fn type_id<T>() -> TypeId {
    trait NonStaticAny {
        fn get_type_id(&self) -> TypeId
        where
            Self: 'static;
    }
    impl<T> NonStaticAny for PhantomData<T> {
        #[inline(always)]
        fn get_type_id(&self) -> TypeId
        where
            Self: 'static,
        {
            TypeId::of::<T>()
        }
    }
    let marker = PhantomData::<T>;
    let object: &dyn NonStaticAny = &marker;
    // SAFETY: only the lifetime bound of the trait object changes; the
    // method called reads no data and returns a `TypeId`, which outlives
    // nothing.
    let object: &(dyn NonStaticAny + 'static) = unsafe { mem::transmute(object) };
    object.get_type_id()
}

/// Whether `T` is one of the types that are all initialized bytes, at most
/// one word, and travel as themselves.
#[inline(always)]
fn is_plain_word<T>() -> bool {
    let id = type_id::<T>();
    id == TypeId::of::<usize>()
        || id == TypeId::of::<isize>()
        || id == TypeId::of::<u64>()
        || id == TypeId::of::<i64>()
        || id == TypeId::of::<u32>()
        || id == TypeId::of::<i32>()
        || id == TypeId::of::<u16>()
        || id == TypeId::of::<i16>()
        || id == TypeId::of::<u8>()
        || id == TypeId::of::<i8>()
        || id == TypeId::of::<bool>()
        || id == TypeId::of::<char>()
        || id == TypeId::of::<f64>()
        || id == TypeId::of::<f32>()
        || id == TypeId::of::<crate::lockfree::JobRef>()
        || id == TypeId::of::<super::injector::RawNode>()
}

#[inline(always)]
fn repr<T>() -> Repr {
    if mem::size_of::<T>() == 0 {
        Repr::Nothing
    } else if mem::size_of::<T>() <= mem::size_of::<*mut ()>()
        && mem::align_of::<T>() <= mem::align_of::<*mut ()>()
        && is_plain_word::<T>()
    {
        Repr::Itself
    } else {
        Repr::Boxed
    }
}

/// Whether values of `T` go into the slots through a box (an allocation
/// per push). The pool's jobs do not.
#[allow(dead_code)] // used by the tests and debug assertions
pub(crate) fn is_boxed<T>() -> bool {
    repr::<T>() == Repr::Boxed
}

/// Gives `value` up as one word, which [`from_word`] turns back into it.
#[inline(always)]
pub(crate) fn into_word<T>(value: T) -> *mut () {
    match repr::<T>() {
        Repr::Itself => {
            let mut word: *mut () = ptr::null_mut();
            // SAFETY: `T` is at most a word (`repr`), and all its bytes are
            // initialized (`is_plain_word`): the word's bytes are the
            // value's, then zeros. A job reference is copied whole, so the
            // word keeps its provenance.
            unsafe {
                ptr::copy_nonoverlapping(
                    ptr::from_ref(&value).cast::<u8>(),
                    ptr::from_mut(&mut word).cast::<u8>(),
                    mem::size_of::<T>(),
                );
            }
            // The value lives on in the word (these types have no drop glue,
            // but a job reference's job is owned through it).
            mem::forget(value);
            word
        }
        Repr::Nothing => {
            mem::forget(value);
            NonNull::<u8>::dangling().as_ptr().cast()
        }
        Repr::Boxed => Box::into_raw(Box::new(value)).cast(),
    }
}

/// Takes back the value [`into_word`] gave up as `word`.
///
/// # Safety
///
/// `word` came from `into_word::<T>` and is taken back at most once.
#[inline(always)]
pub(crate) unsafe fn from_word<T>(word: *mut ()) -> T {
    match repr::<T>() {
        Repr::Itself => {
            let mut value = MaybeUninit::<T>::uninit();
            // SAFETY: the word's first `size_of::<T>()` bytes are those of a
            // `T` (`into_word`), copied back whole.
            unsafe {
                ptr::copy_nonoverlapping(
                    ptr::from_ref(&word).cast::<u8>(),
                    value.as_mut_ptr().cast::<u8>(),
                    mem::size_of::<T>(),
                );
                value.assume_init()
            }
        }
        // SAFETY: a zero-sized `T` was given up by `into_word` (forgotten
        // there), so conjuring it here once moves it back; a dangling aligned
        // pointer is valid for zero-sized reads.
        Repr::Nothing => unsafe { ptr::read(NonNull::<T>::dangling().as_ptr()) },
        // SAFETY: the word is `Box::into_raw` of a `Box<T>`, freed once.
        Repr::Boxed => *unsafe { Box::from_raw(word.cast::<T>()) },
    }
}

#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::{from_word, into_word, is_boxed};
    use crate::sync::Arc;

    fn round_trip<T: PartialEq + std::fmt::Debug + Clone>(value: T) {
        let word = into_word(value.clone());
        // SAFETY: from `into_word`, once.
        assert_eq!(unsafe { from_word::<T>(word) }, value);
    }

    #[test]
    fn words_travel_as_themselves() {
        assert!(!is_boxed::<usize>());
        assert!(!is_boxed::<u8>());
        assert!(!is_boxed::<char>());
        assert!(!is_boxed::<crate::lockfree::JobRef>());
        assert!(!is_boxed::<()>());
        assert!(is_boxed::<Box<u8>>());
        assert!(is_boxed::<(usize, usize)>());
        assert!(is_boxed::<std::mem::MaybeUninit<usize>>());
        round_trip(usize::MAX);
        round_trip(-5i8);
        round_trip(u16::MAX - 1);
        round_trip('é');
        round_trip(true);
        round_trip(1.5f64);
        round_trip(-0.25f32);
        round_trip(());
        round_trip((1u64, 2u64));
        round_trip(Some(Box::new(3)));
        round_trip(Arc::new(String::from("x")));
    }

    #[test]
    fn references_with_lifetimes_are_boxed() {
        let local = 5;
        let r: &i32 = &local;
        assert!(is_boxed::<&i32>());
        round_trip(r);
    }
}
