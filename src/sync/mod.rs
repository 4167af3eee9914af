//! The sync facade: the one file that names `std::sync::atomic`, `loom` or
//! `shuttle`.
//!
//! Every concurrent part of the crate imports its atomics, fences, cells,
//! `Arc`, `Mutex`, `Condvar` and thread functions from here, so the code that
//! users run on real threads is the same code that the model checkers explore:
//!
//! * no feature: `std` (what users get);
//! * `--features loom`: [loom] explores every interleaving of a bounded model
//!   under the C/C++11 memory model;
//! * `--features shuttle`: [shuttle] runs randomized and PCT schedules over
//!   larger scenarios (sequentially consistent only).
//!
//! [loom]: https://docs.rs/loom
//! [shuttle]: https://docs.rs/shuttle

#[cfg(all(feature = "loom", feature = "shuttle"))]
compile_error!("features `loom` and `shuttle` are mutually exclusive: enable at most one");

// The registry of every bug and weakening flag, and the ordering table
// macro that declares each ordering's mutant.
pub(crate) mod flags;

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

    /// Under the model checkers both barriers are `fence(SeqCst)` (N4): exact for
    /// a light barrier paired with a heavy one, the only pairing the code
    /// relies on (M1 in `proofs/sleep.md`).
    #[inline(always)]
    pub(crate) fn light_barrier() {
        fence(std::sync::atomic::Ordering::SeqCst);
    }
    pub(crate) fn heavy_barrier() {
        fence(std::sync::atomic::Ordering::SeqCst);
    }
    #[inline(always)]
    pub(crate) fn light_barrier_known(_expedited: bool) {
        fence(std::sync::atomic::Ordering::SeqCst);
    }
    pub(crate) fn barriers_expedited() -> bool {
        false
    }
    pub(crate) fn register_barriers() {}

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

    /// As under loom: both barriers are `fence(SeqCst)` (M1).
    #[inline(always)]
    pub(crate) fn light_barrier() {
        fence(std::sync::atomic::Ordering::SeqCst);
    }
    pub(crate) fn heavy_barrier() {
        fence(std::sync::atomic::Ordering::SeqCst);
    }
    #[inline(always)]
    pub(crate) fn light_barrier_known(_expedited: bool) {
        fence(std::sync::atomic::Ordering::SeqCst);
    }
    pub(crate) fn barriers_expedited() -> bool {
        false
    }
    pub(crate) fn register_barriers() {}

    pub(crate) type LeakTrack = ();
    pub(crate) fn leak_track() -> LeakTrack {}

    /// A fair coin that shuttle's scheduler tosses: part of the schedule,
    /// so a failing schedule replays with the same tosses.
    pub(crate) fn schedule_coin() -> bool {
        use shuttle::rand::RngCore;
        shuttle::rand::thread_rng().next_u32() & 1 == 1
    }
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

    pub(crate) use super::asymmetric::{
        barriers_expedited, heavy_barrier, light_barrier, light_barrier_known, register_barriers,
    };

    pub(crate) type LeakTrack = ();
    pub(crate) fn leak_track() -> LeakTrack {}
}

#[allow(unused_imports)] // each backend exports the full set; not every build uses all
pub(crate) use imp::*;
pub(crate) use std::sync::atomic::Ordering;

/// Asymmetric barriers for a store-buffering pair with one hot side (M1 in
/// `proofs/sleep.md`): the hot side runs [`light_barrier`], which only stops
/// the compiler, and the rare side [`heavy_barrier`], which makes every
/// running thread of the process execute a full barrier (Linux
/// `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`). Where that is not
/// available (other systems, a seccomp profile that refuses it, Miri), both
/// sides are `fence(SeqCst)`.
///
/// A light barrier orders nothing against another light barrier, a plain
/// fence or an RMW: it may only pair with a heavy one.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod asymmetric {
    use std::sync::atomic::{compiler_fence, fence, AtomicBool, Ordering::Relaxed, Ordering::SeqCst};
    use std::sync::Once;

    /// Whether heavy barriers are process-wide, so light ones need only
    /// stop the compiler. Set once, before any pool's worker starts (M1).
    static EXPEDITED: AtomicBool = AtomicBool::new(false);

    /// Registers the process for expedited barriers, once. `Builder::build`
    /// calls it before it starts any worker, so every worker (the only
    /// threads that run heavy barriers) reads `EXPEDITED` after it is set.
    pub(crate) fn register_barriers() {
        static ONCE: Once = Once::new();
        // M1: relaxed; `Once` and the spawn of each worker order it before
        // every heavy barrier. A thread that reads a stale `false` runs a
        // full fence as its light barrier, which is only stronger.
        ONCE.call_once(|| EXPEDITED.store(membarrier::register(), Relaxed));
    }

    /// The hot side of an asymmetric pair.
    #[inline(always)]
    pub(crate) fn light_barrier() {
        // M1: relaxed, see `register_barriers`.
        light_barrier_known(EXPEDITED.load(Relaxed));
    }

    /// Whether heavy barriers are process-wide, for a caller that keeps the
    /// answer (M1): only once `register_barriers` has run can it be `true`,
    /// and every thread that may run a heavy barrier against the caller's
    /// light ones must come after that call.
    pub(crate) fn barriers_expedited() -> bool {
        // M1: relaxed, see `register_barriers`.
        EXPEDITED.load(Relaxed)
    }

    /// The hot side, with `barriers_expedited()` read when the caller was
    /// made: a test of a field at hand in place of a global's.
    #[inline(always)]
    pub(crate) fn light_barrier_known(expedited: bool) {
        if expedited {
            compiler_fence(SeqCst);
        } else {
            full_fence();
        }
    }

    /// A light barrier where heavy ones are not process-wide: out of the
    /// hot path's straight line.
    #[cold]
    #[inline(never)]
    fn full_fence() {
        fence(SeqCst);
    }

    /// The rare side of an asymmetric pair: a full fence here and, when
    /// registered, on every other running thread of the process.
    pub(crate) fn heavy_barrier() {
        fence(SeqCst);
        // M1: relaxed, see `register_barriers`.
        if EXPEDITED.load(Relaxed) {
            membarrier::expedited();
        }
    }

    #[cfg(all(target_os = "linux", not(miri)))]
    mod membarrier {
        use libc::{c_int, c_long};

        const CMD_QUERY: c_int = 0;
        const CMD_PRIVATE_EXPEDITED: c_int = 1 << 3;
        const CMD_REGISTER_PRIVATE_EXPEDITED: c_int = 1 << 4;

        fn membarrier(cmd: c_int) -> c_long {
            // SAFETY: membarrier(2) takes (cmd, flags, cpu_id) by value and
            // touches no memory of ours.
            unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0 as libc::c_uint, 0 as c_int) }
        }

        /// Whether the kernel supports private expedited barriers and this
        /// process is now registered for them.
        pub(super) fn register() -> bool {
            let supported = membarrier(CMD_QUERY);
            let needed = (CMD_PRIVATE_EXPEDITED | CMD_REGISTER_PRIVATE_EXPEDITED) as c_long;
            supported >= 0 && supported & needed == needed && membarrier(CMD_REGISTER_PRIVATE_EXPEDITED) == 0
        }

        pub(super) fn expedited() {
            // Registered, the command cannot fail; if it ever did, the light
            // barriers would be unpaired, so stop rather than go on.
            if membarrier(CMD_PRIVATE_EXPEDITED) != 0 {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "stealpool: membarrier failed after registration; aborting"
                );
                std::process::abort();
            }
        }
    }

    #[cfg(not(all(target_os = "linux", not(miri))))]
    mod membarrier {
        pub(super) fn register() -> bool {
            false
        }
        pub(super) fn expedited() {}
    }
}

/// A count the model checkers read to see that a model reached a path (a
/// `join` run inline, a half helped beneath a wait): not a step of any
/// protocol, it orders and decides nothing (T1, as statistics), so it is a
/// `std` atomic under both checkers, which need not explore it. In builds
/// without a checker it holds nothing and counts nothing, so the paths it
/// marks pay nothing.
pub struct Probe {
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    count: std::sync::atomic::AtomicUsize,
}

impl Probe {
    pub(crate) const fn new() -> Self {
        Probe {
            #[cfg(any(feature = "loom", feature = "shuttle"))]
            count: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The path was taken once more.
    #[inline(always)]
    pub(crate) fn hit(&self) {
        // T1: relaxed; nothing is read through it.
        #[cfg(any(feature = "loom", feature = "shuttle"))]
        self.count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Raises the probe to `value` if it is larger: a probe that keeps the
    /// largest of what it was shown (a bound's worst case seen), not a count.
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    pub(crate) fn raise_to(&self, value: usize) {
        // T1: relaxed; nothing is read through it.
        self.count.fetch_max(value, std::sync::atomic::Ordering::Relaxed);
    }

    /// How many times the path was taken, in this process (or the largest
    /// value the probe was raised to).
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    pub fn count(&self) -> usize {
        // T1: relaxed; read after the executions that counted.
        self.count.load(std::sync::atomic::Ordering::Relaxed)
    }
}

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
