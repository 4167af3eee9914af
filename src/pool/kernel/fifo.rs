//! FIFO spawns (`spawn_fifo`, `ScopeFifo::spawn_fifo`): a job queued
//! behind a marker (E1-E3 in `proofs/fifo.md`).
//!
//! A worker that spawns a job in FIFO order pushes the job on a FIFO queue
//! of its slot (the pool's, or its scope's), then a small marker job on its
//! ordinary deque, as any spawn would push its job. Whoever runs a marker
//! (the owner, popping newest first, or a thief) runs the oldest job of that
//! queue in its place. So a worker's FIFO jobs start oldest first among
//! themselves, while their markers interleave with its other jobs exactly
//! as plain spawns do: the order rayon-core gives `spawn_fifo`.

use crate::lockfree::{Injector, JobHeader, JobRef, Steal};
use crate::sync::flags::bug;
use crate::sync::{spin_loop, thread, UnsafeCell};
use std::ptr::NonNull;

/// One FIFO queue per slot of a pool (workers and spare slots alike): the
/// crate's own verified injector (Q1-Q9), which any thread may steal from.
/// Each is built on the slot's first FIFO spawn (E5): a pool, or a FIFO
/// scope, whose threads spawn from two slots pays for two queues, not one
/// per slot.
///
/// A cell holds its queue as a raw pointer from `Box::into_raw`, null until
/// built, freed by `Drop`: markers keep pointers to the queue, and a `Box`
/// reborrowed at each later push would claim it unique under them.
pub(crate) struct FifoQueues(Box<[UnsafeCell<*mut Injector<JobRef>>]>);

// SAFETY: E5: slot `k`'s cell is read and written only by the thread that
// owns slot `k`, and successive owners of a slot are ordered by its
// hand-over (W3); other threads reach a queue only through a marker's
// pointer, to the injector, which is `Sync`.
unsafe impl Sync for FifoQueues {}
// SAFETY: as above; the queues hold `JobRef`s, which are `Send`.
unsafe impl Send for FifoQueues {}

impl FifoQueues {
    /// No queue yet, room for one for each of `slots` slots.
    pub(crate) fn new(slots: usize) -> Self {
        FifoQueues(
            (0..slots)
                .map(|_| UnsafeCell::new(std::ptr::null_mut()))
                .collect(),
        )
    }

    /// E5: slot `slot`'s queue, built on first use. Called only by the
    /// thread that owns the slot. The queue stays where it is until the
    /// `FifoQueues` is dropped, so the reference outlives this borrow (E3).
    fn queue(&self, slot: usize) -> &Injector<JobRef> {
        // SAFETY: E5: only this slot's owner touches the cell, and its
        // previous owners' accesses happen before (W3).
        let queue = self.0[slot].with_mut(|cell| unsafe {
            if (*cell).is_null() {
                *cell = Box::into_raw(Box::new(Injector::new()));
            }
            *cell
        });
        // SAFETY: built above or before, freed only by `drop`.
        unsafe { &*queue }
    }

    /// E1: queues `job` on slot `slot`'s queue, then hands `push_marker`
    /// the marker that runs the oldest job of that queue, for the slot's
    /// thread to push on its own deque. `scope` is the address of the scope
    /// whose tasks the queue holds (its marker is then a scope task of that
    /// scope, which H7 lets a waiting scope run), or null for the pool's
    /// queues.
    ///
    /// `job` is counted (as a task, or in its scope) by the caller, before.
    /// `--cfg stealpool_bug="fifo_marker_first"` pushes the marker first:
    /// a thief that runs it in between finds the queue empty (E2).
    pub(crate) fn push(&self, slot: usize, scope: *const (), job: JobRef, push_marker: impl FnOnce(JobRef)) {
        let queue = self.queue(slot);
        let marker = Marker::into_job_ref(scope, queue);
        let marker = if scope.is_null() {
            marker
        } else {
            marker.into_scope_task()
        };
        if bug!("fifo_marker_first") {
            push_marker(marker);
            queue.push(job);
            return;
        }
        queue.push(job);
        push_marker(marker);
    }
}

impl Drop for FifoQueues {
    fn drop(&mut self) {
        for cell in self.0.iter() {
            // SAFETY: E3: dropped after every marker's steal; each pointer
            // came from `Box::into_raw`, once, and is freed here once.
            cell.with_mut(|queue| unsafe {
                if !(*queue).is_null() {
                    drop(Box::from_raw(*queue));
                }
            });
        }
    }
}

/// A marker: runs the oldest job of its queue. Starts as every scope task
/// does (`ScopeJobStart` in `scope.rs`: its header, then its scope), so
/// that a waiting scope tells whose it is (H7).
#[repr(C)]
struct Marker {
    header: JobHeader,
    scope: *const (),
    queue: *const Injector<JobRef>,
}

impl Marker {
    fn into_job_ref(scope: *const (), queue: &Injector<JobRef>) -> JobRef {
        let marker = Box::new(Marker {
            header: JobHeader::new(Self::execute),
            scope,
            queue,
        });
        // SAFETY: `Box::into_raw` is never null; the header is this
        // `#[repr(C)]` job's first field, and `execute` frees the box once.
        unsafe { JobRef::new(NonNull::new_unchecked(Box::into_raw(marker).cast())) }
    }

    /// E2: takes the oldest job of the queue and runs it in the marker's
    /// place. The queue holds one job for each marker not yet run, so a
    /// steal never finds it empty; a `Retry` (another thread moving the
    /// queue's intake, or taking the job at its head) is tried again.
    unsafe fn execute(header: NonNull<JobHeader>) {
        // SAFETY: `header` came from `into_job_ref` and runs once.
        let marker = unsafe { Box::from_raw(header.cast::<Self>().as_ptr()) };
        // SAFETY: E3: the queue lives while one of its jobs has not run,
        // and the one this marker stands for has not.
        let queue = unsafe { &*marker.queue };
        drop(marker);
        let job = loop {
            match queue.steal() {
                Steal::Success(job) => break job,
                Steal::Retry => {
                    spin_loop();
                    thread::yield_now();
                }
                Steal::Empty => unreachable!("stealpool: a FIFO marker found its queue empty (E2)"),
            }
        };
        // SAFETY: taken out of the queue, so ours to run, once; the job
        // catches its own panics (a task's or a scope task's).
        unsafe { job.execute() };
    }
}
