//! Pinning a worker thread to one CPU, and the CPUs this process may use.
//!
//! Only Linux on real threads pins (`sched_setaffinity`). Under the model
//! checkers and Miri a worker is no OS thread of its own, so pinning is
//! skipped there and reported as done: nothing in the pool's logic depends
//! on it. Elsewhere it is reported as failed, so `Stats::pin_failures` tells
//! a user who asked for pinning that none happened.

/// Linux on real threads: the only build that pins.
#[cfg(all(target_os = "linux", not(any(miri, feature = "loom", feature = "shuttle"))))]
mod imp {
    use std::mem;

    /// The largest CPU id a `cpu_set_t` holds.
    const SET_SIZE: usize = libc::CPU_SETSIZE as usize;

    pub(crate) fn pin_current_thread(cpu: usize) -> bool {
        if cpu >= SET_SIZE {
            return false;
        }
        // SAFETY: `cpu_set_t` is plain bits; zeroed is the empty set, and
        // `CPU_SET` writes inside it (the bound is checked above).
        // `sched_setaffinity(0, ..)` applies to the calling thread and only
        // reads the set.
        unsafe {
            let mut set: libc::cpu_set_t = mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, mem::size_of::<libc::cpu_set_t>(), &set) == 0
        }
    }

    pub(crate) fn allowed_cpus() -> Option<Vec<usize>> {
        // The main thread's mask (its id is the process's): what `taskset`
        // or a container gave the process. The calling thread's may be one
        // CPU, if it is a pinned worker.
        // SAFETY: as above; `sched_getaffinity` writes only the set we
        // pass; `getpid` cannot fail.
        unsafe {
            let mut set: libc::cpu_set_t = mem::zeroed();
            if libc::sched_getaffinity(libc::getpid(), mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
                return None;
            }
            let cpus: Vec<usize> = (0..SET_SIZE).filter(|&cpu| libc::CPU_ISSET(cpu, &set)).collect();
            (!cpus.is_empty()).then_some(cpus)
        }
    }

    pub(crate) fn unpin_current_thread() {
        let Some(cpus) = allowed_cpus() else { return };
        // SAFETY: as in `pin_current_thread`; every id came from a set.
        unsafe {
            let mut set: libc::cpu_set_t = mem::zeroed();
            for cpu in cpus {
                libc::CPU_SET(cpu, &mut set);
            }
            libc::sched_setaffinity(0, mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }

    pub(crate) fn current_cpu() -> Option<usize> {
        // SAFETY: `sched_getcpu` takes nothing and only returns a number.
        usize::try_from(unsafe { libc::sched_getcpu() }).ok()
    }
}

#[cfg(all(
    not(target_os = "linux"),
    not(any(miri, feature = "loom", feature = "shuttle"))
))]
mod imp {
    pub(crate) fn pin_current_thread(_cpu: usize) -> bool {
        false
    }

    pub(crate) fn allowed_cpus() -> Option<Vec<usize>> {
        None
    }

    pub(crate) fn unpin_current_thread() {}

    pub(crate) fn current_cpu() -> Option<usize> {
        None
    }
}

#[cfg(any(miri, feature = "loom", feature = "shuttle"))]
mod imp {
    pub(crate) fn pin_current_thread(_cpu: usize) -> bool {
        true
    }

    pub(crate) fn allowed_cpus() -> Option<Vec<usize>> {
        None
    }

    pub(crate) fn unpin_current_thread() {}

    pub(crate) fn current_cpu() -> Option<usize> {
        None
    }
}

/// Pins the calling thread to `cpu`; `false` if the system refused (a CPU
/// that does not exist or is outside the process's cgroup or affinity mask)
/// or cannot pin. A worker that is not pinned still works; the caller counts
/// the failure.
pub(crate) fn pin_current_thread(cpu: usize) -> bool {
    imp::pin_current_thread(cpu)
}

/// The CPUs the process may run on (its main thread's mask, not the
/// calling thread's, which a pinned worker narrows to one), ascending;
/// `None` where unknown.
pub(crate) fn allowed_cpus() -> Option<Vec<usize>> {
    imp::allowed_cpus()
}

/// Lets the calling thread run on every CPU of [`allowed_cpus`] again: a
/// thread inherits its parent's mask, so a spare started by a pinned worker
/// would otherwise run on that worker's CPU only. Best effort: a failure
/// leaves the thread as it was.
pub(crate) fn unpin_current_thread() {
    imp::unpin_current_thread()
}

/// The CPU the calling thread runs on now, where the system says cheaply
/// (`sched_getcpu` on Linux); `None` elsewhere and under the model checkers
/// and Miri.
pub(crate) fn current_cpu() -> Option<usize> {
    imp::current_cpu()
}

crate::sync::thread_local! {
    // Not `const`: loom's `thread_local!` takes only the plain form.
    #[allow(clippy::missing_const_for_thread_local)]
    static SUBMITTER_CPU: std::cell::Cell<usize> = std::cell::Cell::new(usize::MAX);
}

/// The CPU that stands for the calling thread when it submits to a pool
/// from outside (Q10 in `proofs/injector.md`): the one it ran on at its
/// first call, remembered, so that every submission of one thread goes to
/// the same node's injector whatever CPU it migrates to later (Q5 holds per
/// injector). Where the CPU is unknown, a number drawn from the thread's id,
/// as fixed.
pub(crate) fn submitter_cpu() -> usize {
    SUBMITTER_CPU.with(|cpu| {
        if cpu.get() == usize::MAX {
            let chosen = current_cpu().unwrap_or_else(|| {
                use std::hash::{Hash, Hasher};
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                crate::sync::thread::current().id().hash(&mut hasher);
                hasher.finish() as usize >> 1
            });
            cpu.set(chosen);
        }
        cpu.get()
    })
}
