//! Jobs: what the deques and the injector carry.
//!
//! A [`JobRef`] is one word, a thin pointer to a [`JobHeader`] that starts
//! every job struct (`#[repr(C)]`, header first), so pushing a job never
//! allocates on the deque's side. The kinds of job behind it:
//!
//! * [`StackJob`]: lives in the stack frame of a thread that waits on its
//!   latch (`install` from outside the pool or from another pool); the frame
//!   outlives the job's execution (proof J1 in `proofs/join.md`). `join`'s
//!   second half is the leaner `JoinJob` (`join_job.rs`).
//! * [`HeapJob`]: a boxed closure that frees itself when run (`spawn`,
//!   `Scope::spawn`).
//! * `SubmitJob` (in `handle.rs`): a closure and its result slot in one
//!   `Arc` shared with the `JoinHandle` (`submit`).

use super::injector_queue::{Link, Linked};
use super::latch::Latch;
use crate::sync::UnsafeCell;
use std::any::Any;
use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;

/// The first field of every job: how to run it, and its link in the
/// injector.
#[repr(C)]
pub(crate) struct JobHeader {
    /// Runs the job whose header this is, consuming it.
    execute: unsafe fn(NonNull<JobHeader>),
    /// The injector's link (Q2, Q6 in `proofs/injector.md`): written by the
    /// thread that pushes the job on the injector, read by the worker whose
    /// swap takes it out; the deques never touch it.
    link: Link,
}

impl JobHeader {
    pub(crate) fn new(execute: unsafe fn(NonNull<JobHeader>)) -> Self {
        JobHeader {
            execute,
            link: Link::new(),
        }
    }
}

/// A one-word reference to a job that has not run yet.
///
/// Its two low bits say what kind of job it is, for the waits that may run
/// only some jobs on top of their frame (H6, H7 in `proofs/waits.md`):
/// `HALF` for a `join` half, `SCOPE_TASK` for a task of a scope. A header
/// is at least 4-aligned (it starts with a function pointer), so the bits
/// are free; they travel with the word through the deques, and are
/// cleared wherever the pointer is used.
pub(crate) struct JobRef(NonNull<JobHeader>);

/// The bits of a `JobRef` that say what kind of job it is.
const KIND_BITS: usize = 0b11;
/// A `join`'s second half, which its `join` waits for.
const HALF: usize = 0b01;
/// A task of a scope, which its scope waits for.
const SCOPE_TASK: usize = 0b10;

const _: () = assert!(std::mem::align_of::<JobHeader>() > KIND_BITS);

// SAFETY: every job is `Send` (its closure and result are), so its reference
// may move to whichever worker runs it.
unsafe impl Send for JobRef {}

impl JobRef {
    /// Runs the job.
    ///
    /// # Safety
    ///
    /// Each `JobRef` is executed at most once; a `StackJob`'s frame is still
    /// alive (its owner waits on the latch).
    pub(crate) unsafe fn execute(self) {
        let header = self.header();
        // SAFETY: the header is live and `execute` matches the job's type.
        unsafe { (header.as_ref().execute)(header) }
    }

    /// The job's header: the reference with its kind bits cleared.
    #[inline(always)]
    fn header(&self) -> NonNull<JobHeader> {
        // The bits were set on an aligned address, so clearing them gives
        // it back, with its provenance.
        self.0.map_addr(|addr| {
            // SAFETY: a header's address is aligned above the kind bits, so
            // it has a set bit outside them.
            unsafe { std::num::NonZeroUsize::new_unchecked(addr.get() & !KIND_BITS) }
        })
    }

    /// This reference with `kind` as its kind bits.
    #[inline(always)]
    fn with_kind(self, kind: usize) -> JobRef {
        JobRef(self.header().map_addr(|addr| addr | kind))
    }

    /// Marks the reference as a `join` half's (H6).
    #[inline(always)]
    pub(crate) fn into_half(self) -> JobRef {
        self.with_kind(HALF)
    }

    /// Marks the reference as a scope task's (H7).
    pub(crate) fn into_scope_task(self) -> JobRef {
        self.with_kind(SCOPE_TASK)
    }

    /// The same job with no kind: one that no wait may run on top of its
    /// frame as its own work (H6: a half promoted from below a stolen
    /// half's mark).
    pub(crate) fn without_kind(self) -> JobRef {
        self.with_kind(0)
    }

    /// Whether this is a `join` half's reference, marked by `into_half`.
    pub(crate) fn is_half(&self) -> bool {
        self.0.addr().get() & KIND_BITS == HALF
    }

    /// Whether this is a scope task's reference, marked by `into_scope_task`.
    pub(crate) fn is_scope_task(&self) -> bool {
        self.0.addr().get() & KIND_BITS == SCOPE_TASK
    }

    /// `is_half` of a `JobRef` that a deque slot holds as `word`, read
    /// before the steal that would take it: looks at the bits only.
    pub(crate) fn word_is_half(word: *mut ()) -> bool {
        word.addr() & KIND_BITS == HALF
    }

    /// `is_scope_task` of a `JobRef` that a deque slot holds as `word`,
    /// read before the steal that would take it: looks at the bits only.
    pub(crate) fn word_is_scope_task(word: *mut ()) -> bool {
        word.addr() & KIND_BITS == SCOPE_TASK
    }

    /// The job's address, for the job types that read their own fields
    /// (the header is their first field).
    pub(crate) fn job_ptr(&self) -> NonNull<JobHeader> {
        self.header()
    }

    /// A reference to the job that starts with `header`.
    ///
    /// # Safety
    ///
    /// `header` is the first field of a `#[repr(C)]` job whose `execute`
    /// accepts it, live until that runs.
    pub(crate) unsafe fn new(header: NonNull<JobHeader>) -> Self {
        JobRef(header)
    }

    /// Whether `self` refers to the job at `header`.
    pub(crate) fn is(&self, header: *const JobHeader) -> bool {
        std::ptr::eq(self.header().as_ptr(), header)
    }
}

// SAFETY: a `JobRef` points to its whole job (header first), live until it
// runs; the injector alone touches the header's link, and only while the
// job is queued there (Q6).
unsafe impl Linked for JobRef {
    type Node = JobHeader;

    fn into_node(self) -> NonNull<JobHeader> {
        // The kind bits do not go through the injector: a job taken from
        // it is of no kind, as a wait sees it (H6).
        self.header()
    }

    unsafe fn from_node(node: NonNull<JobHeader>) -> Self {
        JobRef(node)
    }

    unsafe fn link(node: NonNull<JobHeader>) -> *const Link {
        // SAFETY: the caller passes a live job's header.
        unsafe { &raw const (*node.as_ptr()).link }
    }
}

/// The outcome of a job run on another thread.
pub(crate) enum JobResult<R> {
    None,
    Ok(R),
    Panic(Box<dyn Any + Send>),
}

impl<R> JobResult<R> {
    /// The value, re-raising a caught panic in the caller.
    pub(crate) fn into_return_value(self) -> R {
        match self {
            JobResult::Ok(value) => value,
            JobResult::Panic(payload) => panic::resume_unwind(payload),
            JobResult::None => unreachable!("a job's result was read before it ran"),
        }
    }
}

/// What a `StackJob` holds: its closure until it runs, then its outcome.
/// One enum, so the closure and the result share their bytes.
enum JobState<F, R> {
    Pending(F),
    Ok(R),
    Panic(Box<dyn Any + Send>),
    /// Taken: run inline, dropped unrun, or its outcome read.
    Empty,
}

/// A job in the stack frame of the thread that waits for it.
#[repr(C)]
pub(crate) struct StackJob<L: Latch, F, R> {
    header: JobHeader,
    pub(crate) latch: L,
    state: UnsafeCell<JobState<F, R>>,
}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> StackJob<L, F, R> {
    pub(crate) fn new(func: F, latch: L) -> Self {
        StackJob {
            header: JobHeader::new(Self::execute),
            latch,
            state: UnsafeCell::new(JobState::Pending(func)),
        }
    }

    /// A reference to push on a deque.
    ///
    /// # Safety
    ///
    /// `self` stays where it is until the job has run (its latch is set).
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // From the whole job, not just its header: `execute` reaches the other
        // fields through this pointer.
        JobRef(NonNull::from(self).cast())
    }

    unsafe fn execute(header: NonNull<JobHeader>) {
        // SAFETY: `header` is the first field of a live `StackJob` (repr(C)).
        let this = unsafe { header.cast::<Self>().as_ref() };
        // SAFETY: the job runs once, so nothing else touches the state (J2).
        let func = unsafe { this.take_func() }.expect("a stack job ran twice");
        let state = match panic::catch_unwind(AssertUnwindSafe(|| func(true))) {
            Ok(value) => JobState::Ok(value),
            Err(payload) => JobState::Panic(payload),
        };
        // SAFETY: the waiter reads the state only after the latch is set
        // (J2); the slot is `Empty`, so nothing is dropped here.
        this.state
            .with_mut(|slot| unsafe { std::ptr::write(slot, state) });
        // SAFETY: after this call the waiter may return and free `this`;
        // nothing of `this` is touched afterwards (J1).
        unsafe { Latch::set(&this.latch) };
    }

    /// Takes the closure out without running it (`None` if it ran).
    ///
    /// # Safety
    ///
    /// The job is not running and will not run elsewhere: it was popped
    /// back, or its latch is set.
    pub(crate) unsafe fn take_func(&self) -> Option<F> {
        // SAFETY: as above; the closure is read out in place and its slot
        // marked `Empty` without dropping anything.
        self.state.with_mut(|state| unsafe {
            match &*state {
                JobState::Pending(func) => {
                    let func = std::ptr::read(func);
                    std::ptr::write(state, JobState::Empty);
                    Some(func)
                }
                _ => None,
            }
        })
    }

    /// Takes the result out, leaving `Empty`.
    ///
    /// # Safety
    ///
    /// The latch is set (J2).
    pub(crate) unsafe fn take_job_result(&self) -> JobResult<R> {
        // SAFETY: as above; read out in place.
        self.state.with_mut(|state| unsafe {
            let result = match &*state {
                JobState::Ok(value) => JobResult::Ok(std::ptr::read(value)),
                JobState::Panic(payload) => JobResult::Panic(std::ptr::read(payload)),
                JobState::Pending(_) | JobState::Empty => return JobResult::None,
            };
            std::ptr::write(state, JobState::Empty);
            result
        })
    }

    /// The result, once the latch is set; re-raises a panic of the job.
    pub(crate) fn into_result(self) -> R {
        // SAFETY: the latch is set, so `execute` wrote the result and will
        // not touch the job again (J2).
        unsafe { self.take_job_result() }.into_return_value()
    }
}

/// A boxed job that frees itself when it runs.
#[repr(C)]
pub(crate) struct HeapJob<F> {
    header: JobHeader,
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// Boxes `func` as a job: the one allocation of a `spawn`.
    pub(crate) fn into_job_ref(func: F) -> JobRef {
        let job = Box::new(HeapJob {
            header: JobHeader::new(Self::execute),
            func,
        });
        // SAFETY: `Box::into_raw` is never null.
        JobRef(unsafe { NonNull::new_unchecked(Box::into_raw(job).cast()) })
    }

    unsafe fn execute(header: NonNull<JobHeader>) {
        // SAFETY: `header` came from `into_job_ref` and runs once.
        let job = unsafe { Box::from_raw(header.cast::<Self>().as_ptr()) };
        (job.func)();
    }
}

/// Drops a panic payload whose own `Drop` may panic, without unwinding: a
/// panic escaping a job could leave a `join` or `scope` frame while another
/// thread still uses it (J1).
///
/// The `Drop` that panicked leaves a new payload, usually a plain string; it
/// is dropped the same way, and so on, up to `NESTED_DROPS` payloads deep.
/// A payload still left after that (a chain of `Drop`s that all panic) is
/// leaked rather than dropped: leaking is safe, unwinding here is not.
pub(crate) fn drop_payload(payload: Box<dyn Any + Send>) {
    const NESTED_DROPS: usize = 4;
    let mut payload = payload;
    for _ in 0..NESTED_DROPS {
        match panic::catch_unwind(AssertUnwindSafe(|| drop(payload))) {
            Ok(()) => return,
            Err(nested) => payload = nested,
        }
    }
    std::mem::forget(payload);
}

/// Drops `value`, whose `Drop` may panic, without unwinding: for what is
/// left over while a panic is on its way out, where a second panic would
/// abort the process.
pub(crate) fn drop_quietly<T>(value: T) {
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| drop(value))) {
        drop_payload(payload);
    }
}

/// Holds a value that a panic unwinding past it drops with
/// [`drop_quietly`] rather than the unwinding's own drop, which would abort
/// the process if the value's `Drop` panicked too. The normal way out is
/// [`into_inner`](Self::into_inner). Where `T` has no drop glue, neither has
/// this.
pub(crate) struct DropQuietly<T>(ManuallyDrop<T>);

impl<T> DropQuietly<T> {
    #[inline(always)]
    pub(crate) fn new(value: T) -> Self {
        DropQuietly(ManuallyDrop::new(value))
    }

    #[inline(always)]
    pub(crate) fn into_inner(self) -> T {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped, so the value is taken once.
        unsafe { ManuallyDrop::take(&mut this.0) }
    }
}

impl<T> Drop for DropQuietly<T> {
    fn drop(&mut self) {
        if std::mem::needs_drop::<T>() {
            // SAFETY: dropped once; `into_inner` skips this.
            drop_quietly(unsafe { ManuallyDrop::take(&mut self.0) });
        }
    }
}

/// Aborts the process if a panic unwinds past it. Jobs catch their panics;
/// this is the last line of defence for J1 should one escape anyway.
pub(crate) struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        if std::thread::panicking() {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "stealpool: a panic escaped a job; aborting");
            std::process::abort();
        }
    }
}
