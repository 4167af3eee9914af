//! The job word: what the pool's deques and injector carry.
//!
//! A [`JobRef`] is one word, a thin pointer to a [`JobHeader`] that starts
//! every job struct (`#[repr(C)]`, header first), so pushing a job never
//! allocates on the queue's side. It is defined here, beside the queues,
//! so that the deque recognises it as a word that travels as itself
//! (`element.rs`) and the injector queue links it through its header,
//! without either knowing the pool. The job types behind it (stack jobs,
//! heap jobs, a `join`'s half, a submitted task, a scope's task) are the
//! pool's, in `pool/kernel/job.rs` and beside the waits that make them.

use super::injector::{Link, Linked};
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
