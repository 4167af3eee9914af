//! The job `join` makes of its second half: the fewest stores a stealable
//! job can cost, since every `join` makes one whether or not it is stolen.
//!
//! * The header's injector link is left unwritten, as every job's is until
//!   it is pushed on the injector (which a `join` half never is).
//! * The latch is one word, which also names the owner's slot, so the thief
//!   that sets it learns whom to wake from the value its swap replaces, and
//!   finds the pool in its own worker (J4).
//! * The closure and the outcome share one cell with no tag: the owner
//!   knows which one is there (the closure until the job runs or is taken
//!   back, the outcome once the latch is set), so nothing is written to say
//!   so (J2).

use crate::lockfree::JobHeader;
use crate::lockfree::JobRef;
use crate::pool::kernel::job::JobResult;
use crate::pool::kernel::latch::{CoreLatch, LatchOwner};
use crate::pool::kernel::worker::WorkerThread;
use crate::sync::UnsafeCell;
use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;

/// The closure until the job runs, then what it left. The owner knows
/// which (J2).
union Cell<F, R> {
    func: ManuallyDrop<F>,
    outcome: ManuallyDrop<JobResult<R>>,
}

/// `join`'s second half, in the frame of the `join` that waits for it.
#[repr(C)]
pub(crate) struct JoinJob<F, R> {
    header: JobHeader,
    pub(crate) latch: CoreLatch,
    cell: UnsafeCell<Cell<F, R>>,
}

impl<F: FnOnce() -> R + Send, R: Send> JoinJob<F, R> {
    /// A job for `func`, waited for by the worker of slot `owner`.
    #[inline(always)]
    pub(crate) fn new(func: F, owner: LatchOwner) -> Self {
        JoinJob {
            header: JobHeader::new(Self::execute),
            latch: CoreLatch::with_owner(owner),
            cell: UnsafeCell::new(Cell {
                func: ManuallyDrop::new(func),
            }),
        }
    }

    /// A reference to push on a deque.
    ///
    /// # Safety
    ///
    /// `self` stays where it is until the job has run (its latch is set) or
    /// it has been popped back and its closure taken.
    #[inline(always)]
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // From the whole job: `execute` reaches the other fields through it.
        // SAFETY: the header is the first field (repr(C)), and `execute`
        // matches this type; the caller keeps the job live.
        unsafe { JobRef::new(NonNull::from(self).cast()) }.into_half()
    }

    /// Run by the thief, on a worker of the owner's pool (J4).
    unsafe fn execute(header: NonNull<JobHeader>) {
        // SAFETY: `header` is the first field of a live `JoinJob`.
        let this = unsafe { header.cast::<Self>().as_ref() };
        // SAFETY: only the owner's pool's threads take a `join` half, and
        // each runs with its worker current (J4).
        let thief =
            unsafe { WorkerThread::current().as_ref() }.expect("stealpool: a join half ran outside its pool");
        // H6: where the owner may look for work forked beneath this half
        // while it waits: this thread's deque, from its bottom now.
        let outer = thief.enter_stolen_half();
        this.latch.mark_running(thief.index());
        // SAFETY: the job runs once (F2, `deque.md`), so the cell still
        // holds the closure and nothing else touches it (J2).
        let func = this
            .cell
            .with_mut(|cell| unsafe { ManuallyDrop::take(&mut (*cell).func) });
        let outcome = match panic::catch_unwind(AssertUnwindSafe(func)) {
            Ok(value) => JobResult::Ok(value),
            Err(payload) => JobResult::Panic(payload),
        };
        // SAFETY: the owner reads the cell only after the latch is set (J2);
        // the closure was moved out, so nothing is overwritten unread.
        this.cell.with_mut(|cell| unsafe {
            std::ptr::write(
                cell,
                Cell {
                    outcome: ManuallyDrop::new(outcome),
                },
            )
        });
        // SAFETY: after the swap the owner may return and free `this`; the
        // worker to wake comes from the swapped-out word (J1, J4).
        let owner = unsafe { CoreLatch::set(&this.latch) };
        // H6: only after the latch is set, so that an owner that reads the
        // mark this puts back also sees the latch set.
        thief.leave_stolen_half(outer);
        if let Some(owner) = owner {
            thief.registry().sleep.wake_specific(owner);
        }
    }

    /// Takes the closure out, to run it here or drop it.
    ///
    /// # Safety
    ///
    /// The job was popped back (no thief has it), and its closure was not
    /// taken before.
    #[inline(always)]
    pub(crate) unsafe fn take_func(&self) -> F {
        // SAFETY: as above; the cell holds the closure, moved out once.
        self.cell
            .with_mut(|cell| unsafe { ManuallyDrop::take(&mut (*cell).func) })
    }

    /// Takes what the thief left.
    ///
    /// # Safety
    ///
    /// The latch is set, and this is the only read.
    pub(crate) unsafe fn take_outcome(&self) -> JobResult<R> {
        // SAFETY: the latch is set, so `execute` wrote the outcome and will
        // not touch the job again (J2); read once.
        self.cell
            .with_mut(|cell| unsafe { ManuallyDrop::take(&mut (*cell).outcome) })
    }
}
