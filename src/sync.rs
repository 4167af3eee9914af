//! The sync facade: the one file that names `std::sync::atomic`, `loom` or
//! `shuttle`.
//!
//! Every concurrent part of the crate imports its atomics, fences, cells,
//! `Arc`, `Mutex`, `Condvar` and thread functions from here, so the code that
//! users run on real threads is the same code that the model checkers explore:
//!
//! * no feature: `std` (what users get);
//! * `--features loom`: [loom] explores every interleaving of a bounded model
//!   under the C11 memory model;
//! * `--features shuttle`: [shuttle] runs randomized and PCT schedules over
//!   larger scenarios (sequentially consistent only).
//!
//! [loom]: https://docs.rs/loom
//! [shuttle]: https://docs.rs/shuttle

#[cfg(all(feature = "loom", feature = "shuttle"))]
compile_error!("features `loom` and `shuttle` are mutually exclusive: enable at most one");

#[cfg(feature = "loom")]
#[allow(unused_imports, dead_code)]
mod imp {
    pub(crate) use loom::cell::UnsafeCell;
    pub(crate) use loom::hint::spin_loop;
    pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicI64, AtomicPtr, AtomicU64, AtomicUsize};
    pub(crate) use loom::sync::{Arc, Condvar, Mutex, MutexGuard};
    pub(crate) use loom::thread_local;

    pub(crate) mod thread {
        pub(crate) use loom::thread::{current, park, spawn, yield_now, Builder, JoinHandle, Thread};
    }

    /// Under loom, a value whose leak fails the model: the deque's buffers
    /// carry one, so a buffer that is never reclaimed is reported.
    pub(crate) type LeakTrack = loom::alloc::Track<()>;
    pub(crate) fn leak_track() -> LeakTrack {
        loom::alloc::Track::new(())
    }
}

#[cfg(feature = "shuttle")]
#[allow(unused_imports, dead_code)]
mod imp {
    pub(crate) use super::plain_cell::UnsafeCell;
    pub(crate) use shuttle::hint::spin_loop;
    pub(crate) use shuttle::sync::atomic::{fence, AtomicBool, AtomicI64, AtomicPtr, AtomicU64, AtomicUsize};
    pub(crate) use shuttle::sync::{Arc, Condvar, Mutex, MutexGuard};
    pub(crate) use shuttle::thread_local;

    pub(crate) mod thread {
        pub(crate) use shuttle::thread::{current, park, spawn, yield_now, Builder, JoinHandle, Thread};
    }

    pub(crate) type LeakTrack = ();
    pub(crate) fn leak_track() -> LeakTrack {}
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
#[allow(unused_imports, dead_code)]
mod imp {
    pub(crate) use super::plain_cell::UnsafeCell;
    pub(crate) use std::hint::spin_loop;
    pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicI64, AtomicPtr, AtomicU64, AtomicUsize};
    pub(crate) use std::sync::{Arc, Condvar, Mutex, MutexGuard};
    pub(crate) use std::thread_local;

    pub(crate) mod thread {
        pub(crate) use std::thread::{current, park, spawn, yield_now, Builder, JoinHandle, Thread};
    }

    pub(crate) type LeakTrack = ();
    pub(crate) fn leak_track() -> LeakTrack {}
}

#[allow(unused_imports)] // each backend exports the full set; not every build uses all
pub(crate) use imp::*;
pub(crate) use std::sync::atomic::Ordering;

/// A statistics counter. Always a `std` atomic, under every backend:
/// statistics order nothing and decide nothing (proof T1), so the model
/// checkers need not explore their interleavings.
pub(crate) type StatCounter = std::sync::atomic::AtomicU64;

/// An `UnsafeCell` with loom's `with`/`with_mut` shape, so the same call sites
/// compile against loom (which checks every access) and against `std` (where
/// the closures inline to plain pointer accesses).
#[cfg(not(feature = "loom"))]
#[allow(dead_code)]
mod plain_cell {
    #[derive(Debug)]
    pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        pub(crate) const fn new(value: T) -> Self {
            UnsafeCell(std::cell::UnsafeCell::new(value))
        }

        #[inline(always)]
        pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        #[inline(always)]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}
