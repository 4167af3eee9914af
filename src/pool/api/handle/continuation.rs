//! Continuations: `then`, `zip` and `when_all`, with no thread blocked.
//!
//! A continuation is a job whose inputs arrive later: the results of the
//! handles it follows. It is allocated when it is attached, with one
//! [`Arrival`] cell per input and a count of the inputs still missing
//! (K2). Each antecedent's packet holds a [`Continuation`] (a reference to
//! the job and a pointer to its input's cell) and hands its result over
//! when it completes, or at once if it already had (K1). The input that
//! arrives last schedules the job on its pool (K3), which runs the user's
//! function and completes the job's own packet, where the next
//! continuation may wait in turn. Nothing waits on a result: a chain of
//! any length is a sequence of jobs, none of which is pushed before its
//! input is there. The proof is in `proofs/continuation.md`.

use super::claim::{Claim, DETACHED};
use crate::lockfree::JobHeader;
use crate::lockfree::JobRef;
use crate::pool::api::handle::{run_submitted_value, JoinHandle, Packet};
use crate::pool::kernel::job::drop_payload;
use crate::pool::kernel::job::drop_quietly;
use crate::pool::kernel::ordering::{ARRIVE, READY_LOAD};
use crate::pool::kernel::registry::Registry;
use crate::pool::kernel::serving::{TaskRef, TaskState};
use crate::pool::kernel::worker::WorkerThread;
use crate::sync::flags::bug;
use crate::sync::{thread_local, Arc, AtomicUsize, UnsafeCell};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::mem::ManuallyDrop;
use std::panic::Location;
use std::ptr::NonNull;
use std::thread;

/// Where one input of a continuation lands: written once by the input's
/// deliverer, read once by the job after the last arrival (K2).
pub(crate) type Arrival<R> = UnsafeCell<Option<thread::Result<R>>>;

/// The inputs of a continuation, and how to turn them into its argument.
trait Inputs: Send {
    /// The argument of the continuation's function.
    type Values;

    /// Takes every input; the first panic among them (in input order)
    /// instead, if any input is a panic.
    ///
    /// # Safety
    ///
    /// Called once, after every input arrived and was acquired (K2).
    unsafe fn take(&self) -> Result<Self::Values, Box<dyn Any + Send>>;
}

/// Takes one input.
///
/// # Safety
///
/// As [`Inputs::take`]: nothing else touches the cell any more.
unsafe fn take_one<R>(arrival: &Arrival<R>) -> thread::Result<R> {
    // SAFETY: the caller's contract: the deliverer is done with the cell.
    let value = arrival.with_mut(|cell| unsafe { (*cell).take() });
    value.expect("a continuation ran before its input arrived")
}

impl<R: Send> Inputs for Arrival<R> {
    type Values = R;

    unsafe fn take(&self) -> thread::Result<R> {
        // SAFETY: forwarded.
        unsafe { take_one(self) }
    }
}

impl<R: Send, S: Send> Inputs for (Arrival<R>, Arrival<S>) {
    type Values = (R, S);

    unsafe fn take(&self) -> thread::Result<(R, S)> {
        // SAFETY: forwarded. Both are taken, so a panic drops the other.
        let (a, b) = unsafe { (take_one(&self.0), take_one(&self.1)) };
        match (a, b) {
            (Ok(a), Ok(b)) => Ok((a, b)),
            (Err(payload), other) => {
                discard(other);
                Err(payload)
            }
            (Ok(a), Err(payload)) => {
                drop_quietly(a);
                Err(payload)
            }
        }
    }
}

impl<R: Send> Inputs for Box<[Arrival<R>]> {
    type Values = Vec<R>;

    unsafe fn take(&self) -> thread::Result<Vec<R>> {
        let mut values = Vec::with_capacity(self.len());
        let mut first_panic = None;
        for arrival in self.iter() {
            // SAFETY: forwarded; every input is taken, whatever the outcome.
            match unsafe { take_one(arrival) } {
                Ok(value) => values.push(value),
                Err(payload) if first_panic.is_none() => first_panic = Some(payload),
                Err(payload) => drop_payload(payload),
            }
        }
        match first_panic {
            None => Ok(values),
            Some(payload) => {
                // One at a time: a `Vec`'s drop that meets a second
                // panicking element aborts.
                values.into_iter().for_each(drop_quietly);
                Err(payload)
            }
        }
    }
}

/// Drops an input the continuation will not see, because another input
/// panicked: quietly, since its `Drop` (or its payload's) may panic too, and
/// an unwind from here would leave the continuation's handle incomplete.
fn discard<R>(input: thread::Result<R>) {
    match input {
        Ok(value) => drop_quietly(value),
        Err(payload) => drop_payload(payload),
    }
}

/// A continuation's job: inputs, the count of the missing ones, the
/// function, and the packet of the handle it returns, in one `Arc`.
#[repr(C)]
struct PendingJob<I, F, U> {
    header: JobHeader,
    /// The pool the job runs on.
    registry: Arc<Registry>,
    /// Inputs not arrived yet (K2).
    missing: AtomicUsize,
    /// Who runs it, once every input is there: the worker that takes it
    /// from its queue, the thread that joins its handle first, or the last
    /// arrival when the pool's workers have left (H3, K4).
    claim: Claim,
    inputs: I,
    func: UnsafeCell<Option<F>>,
    packet: Packet<U>,
}

// SAFETY: each input cell is written by one deliverer and read by the job
// after K2's acquire; `func` is taken once, by the job; the packet is
// `Sync` when `U: Send`.
unsafe impl<I: Inputs, F: Send, U: Send> Sync for PendingJob<I, F, U> {}
// SAFETY: as above; everything inside is `Send`.
unsafe impl<I: Inputs, F: Send, U: Send> Send for PendingJob<I, F, U> {}

impl<I, F, U> PendingJob<I, F, U>
where
    I: Inputs + 'static,
    F: FnOnce(I::Values) -> U + Send + 'static,
    U: Send + 'static,
{
    /// The job, waiting for `missing` inputs, and the handle to its result.
    /// `antecedents` are the tasks of those inputs (H8). The caller's
    /// place names the task in stall reports.
    #[track_caller]
    fn new(
        registry: Arc<Registry>,
        inputs: I,
        missing: usize,
        func: F,
        antecedents: Vec<TaskRef>,
    ) -> (Arc<Self>, JoinHandle<U>) {
        let job = Arc::new(PendingJob {
            header: JobHeader::new(Self::execute),
            registry: registry.clone(),
            missing: AtomicUsize::new(missing),
            claim: Claim::for_new_task(&registry),
            inputs,
            func: UnsafeCell::new(Some(func)),
            packet: Packet::new(false, antecedents, Location::caller()),
        });
        let reference = Arc::into_raw(job.clone());
        let handle = JoinHandle {
            job: reference.cast(),
            // SAFETY: the handle's reference keeps the job, and its packet.
            packet: NonNull::from(unsafe { &(*reference).packet }),
            release: Self::release,
            retain: Self::retain,
            // SAFETY: as above.
            claim: NonNull::from(unsafe { &(*reference).claim }),
            run_here: Self::run_here,
            registry,
            state: Self::state,
        };
        (job, handle)
    }

    /// A continuation that delivers into `arrival`, one of `job`'s inputs,
    /// holding a reference to `job` of its own.
    fn continuation<R>(job: &Arc<Self>, arrival: &Arrival<R>) -> Continuation<R> {
        Continuation {
            arrival: NonNull::from(arrival),
            job: Arc::into_raw(job.clone()).cast(),
            arrive: Self::arrive,
            release: Self::release,
        }
    }

    /// One input arrived (its cell is written); the last arrival schedules
    /// the job (K2, K3).
    unsafe fn arrive(job: *const ()) {
        // SAFETY: the continuation's reference, used once.
        let job = unsafe { Arc::from_raw(job.cast::<Self>()) };
        // K2: AcqRel: release our input, and, for the last arrival, acquire
        // every other one. Exactly one arrival sees 1.
        if job.missing.fetch_sub(1, ARRIVE) == 1 {
            Self::schedule(job);
        }
    }

    /// Makes the job runnable on its pool, or runs it on this thread if
    /// every worker of the pool has left (K3), after the jobs this thread
    /// is running so already (K4).
    fn schedule(job: Arc<Self>) {
        // K4: a worker waiting for the handle may run it in place now.
        job.packet.mark_ready();
        let registry = job.registry.clone();
        // The queue's reference: the last arrival's.
        let queued = Arc::into_raw(job);
        // SAFETY: the header is the first field of this `#[repr(C)]` job,
        // whose `execute` takes the reference back.
        let job_ref = unsafe { JobRef::new(NonNull::new_unchecked(queued.cast_mut().cast())) };
        if schedule_on(&registry, job_ref).is_err() {
            // SAFETY: the reference was not queued; take it back.
            let job = unsafe { Arc::from_raw(queued) };
            // H3: a thread joining the handle may have run it already.
            if job.claim.take(DETACHED) {
                // Nobody records the panic: the pool has no worker left.
                run_detached(Box::new(move || job.run(|| {})));
            }
        }
    }

    /// H4: runs the job on `worker`, the thread joining its handle, if
    /// every input is there and nobody has claimed it (H3). The handle's
    /// reference keeps the job.
    unsafe fn run_here(job: *const (), worker: &WorkerThread) -> bool {
        // SAFETY: the handle's reference keeps the job alive.
        let job = unsafe { &*job.cast::<Self>() };
        // K4: acquire, pairing with every arrival's release (K2): the
        // inputs are there to be read once the count shows none missing.
        if job.missing.load(READY_LOAD) != 0 || !job.claim.take(worker.runner_id()) {
            return false;
        }
        worker.run_claimed(job.claim.lineage(), || job.run(|| worker.record_panic()));
        true
    }

    /// Runs the function on the inputs and completes the packet; calls
    /// `on_panic` if the function panicked.
    fn run(&self, on_panic: impl FnOnce()) {
        // SAFETY: the job runs once, after the last arrival's acquire (K2).
        let inputs = unsafe { self.inputs.take() };
        // SAFETY: the job runs once, so nothing else touches `func`.
        let func = self.func.with_mut(|func| unsafe { (*func).take() });
        let func = func.expect("a continuation ran twice");
        match inputs {
            Ok(values) => run_submitted_value(&self.packet, || func(values), on_panic),
            // The antecedent's panic was counted where it happened. The
            // function is dropped unrun, quietly: its handle already has
            // its outcome.
            Err(payload) => {
                self.packet.complete(Err(payload));
                drop_quietly(func);
            }
        }
    }

    unsafe fn execute(header: NonNull<JobHeader>) {
        // SAFETY: the queue's reference, made by `schedule`, used once.
        let job = unsafe { Arc::from_raw(header.as_ptr().cast_const().cast::<Self>()) };
        // SAFETY: jobs run on workers.
        let worker = unsafe { &*WorkerThread::current() };
        // H3: the thread that joined the handle ran it already; only the
        // queue's reference is left.
        if !job.claim.take(worker.runner_id()) {
            return;
        }
        worker.run_claimed(job.claim.lineage(), move || {
            job.run(|| worker.record_panic());
            drop(job);
        });
    }

    /// H8, Z2: what the job is at.
    unsafe fn state(job: *const ()) -> TaskState {
        // SAFETY: the caller holds a reference, made by `new` or
        // `continuation`.
        let job = unsafe { &*job.cast::<Self>() };
        job.packet.state(&job.claim)
    }

    unsafe fn retain(job: *const ()) {
        // SAFETY: the caller holds a reference, made by `new` or
        // `continuation`.
        unsafe { Arc::increment_strong_count(job.cast::<Self>()) }
    }

    unsafe fn release(job: *const ()) {
        // SAFETY: a reference made by `new` or `continuation`, dropped once.
        drop(unsafe { Arc::from_raw(job.cast::<Self>()) });
    }
}

thread_local! {
    /// K4: the continuations this thread runs because their pool's workers
    /// have left, in the order their last inputs arrived.
    static DETACHED_JOBS: DetachedJobs = DetachedJobs {
        running: Cell::new(false),
        queued: RefCell::new(VecDeque::new()),
    };
}

/// See `DETACHED_JOBS`.
struct DetachedJobs {
    /// A `run_detached` is draining the queue on this thread.
    running: Cell<bool>,
    queued: RefCell<VecDeque<Box<dyn FnOnce()>>>,
}

/// K4: runs `job` on this thread, now if no continuation runs here in
/// place already, otherwise after it returns, in a loop: a chain of any
/// length whose pool is gone runs one link after another, never one
/// inside another.
fn run_detached(job: Box<dyn FnOnce()>) {
    let first = DETACHED_JOBS.with(|jobs| {
        if jobs.running.replace(true) {
            jobs.queued.borrow_mut().push_back(job);
            None
        } else {
            Some(job)
        }
    });
    let Some(mut job) = first else {
        return;
    };
    /// Lets the next call on this thread run in place again, however
    /// this one ends.
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            DETACHED_JOBS.with(|jobs| jobs.running.set(false));
        }
    }
    let _done = Done;
    loop {
        // Each catches its function's panic for its handle (`run`).
        job();
        match DETACHED_JOBS.with(|jobs| jobs.queued.borrow_mut().pop_front()) {
            Some(next) => job = next,
            None => break,
        }
    }
}

/// Queues a continuation's job on `registry`'s pool as a task (K3): on the
/// current worker's deque if it is one of the pool's, otherwise on the
/// injector, unless every worker has left: then the job was not queued,
/// and its caller runs it.
fn schedule_on(registry: &Registry, job: JobRef) -> Result<(), JobRef> {
    if let Some(worker) = registry.current_worker() {
        registry.count_task();
        worker.push(job);
        return Ok(());
    }
    let mut job = Some(job);
    let open = registry.sleep.while_open(|| {
        registry.count_task();
        registry.injector.push(job.take().expect("pushed once"));
    });
    if open {
        registry.sleep.new_work();
        Ok(())
    } else {
        Err(job.take().expect("not pushed"))
    }
}

/// What an antecedent's packet holds for a continuation attached to it:
/// where to deliver the result, and a reference to the job it feeds.
pub(crate) struct Continuation<R> {
    arrival: NonNull<Arrival<R>>,
    job: *const (),
    arrive: unsafe fn(*const ()),
    release: unsafe fn(*const ()),
}

// SAFETY: the continuation moves a `thread::Result<R>` (`R: Send`) into a
// job that is `Send + Sync`; the pointers are into that job, kept alive by
// the reference it holds.
unsafe impl<R: Send> Send for Continuation<R> {}

impl<R> Continuation<R> {
    /// Delivers the antecedent's result: exactly once per continuation,
    /// since this consumes it (K1).
    pub(crate) fn deliver(self, result: thread::Result<R>) {
        let this = ManuallyDrop::new(self);
        // SAFETY: the job is alive (our reference), and this input's cell is
        // written by this delivery alone (K2).
        this.arrival_cell()
            .with_mut(|cell| unsafe { *cell = Some(result) });
        // SAFETY: our reference, handed over once.
        unsafe { (this.arrive)(this.job) }
    }

    fn arrival_cell(&self) -> &Arrival<R> {
        // SAFETY: our reference keeps the job, and so the cell.
        unsafe { self.arrival.as_ref() }
    }
}

impl<R> Drop for Continuation<R> {
    /// A continuation never delivered (its antecedent's packet was dropped
    /// unfinished, which the pool's drain rules out) releases its job.
    fn drop(&mut self) {
        // SAFETY: our reference, released once.
        unsafe { (self.release)(self.job) }
    }
}

impl<R: Send + 'static> JoinHandle<R> {
    /// Runs `f` on the pool with this handle's result once it is ready, and
    /// returns the handle to `f`'s result; no thread waits for it.
    ///
    /// `f` runs exactly once, on a worker of this handle's pool, after the
    /// task finished, whether `then` is called before, while or after it
    /// runs. A panic of the task skips `f` and reaches the returned handle
    /// (it was counted in [`Stats::panicked`](crate::Stats::panicked) where
    /// it happened); a panic of `f` does too. Dropping the returned handle
    /// does not cancel `f`. Shutting the pool down runs every continuation
    /// already attached. If every worker of the pool has already left (the
    /// pool was dropped before `then` was called on a finished task), `f`
    /// runs on the calling thread instead, before `then` returns.
    ///
    /// # Panics
    ///
    /// If the handle was already polled (as a `Future`) to completion.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let length = pool
    ///     .submit(|| "work-stealing".to_string())
    ///     .then(|text| text.len())
    ///     .then(|length| length * 2);
    /// assert_eq!(length.join().unwrap(), 26);
    ///
    /// let failed = pool.submit(|| -> u32 { panic!("boom") }).then(|n| n + 1);
    /// assert!(failed.join().is_err());
    /// ```
    #[track_caller]
    pub fn then<U, F>(self, f: F) -> JoinHandle<U>
    where
        U: Send + 'static,
        F: FnOnce(R) -> U + Send + 'static,
    {
        let antecedents = vec![self.task_ref()];
        let (job, handle) =
            PendingJob::new(self.registry.clone(), Arrival::<R>::new(None), 1, f, antecedents);
        let continuation = PendingJob::continuation(&job, &job.inputs);
        drop(job);
        self.attach(continuation);
        handle
    }

    /// A handle to both results, as a pair, once both tasks have finished;
    /// no thread waits for them. `a.zip(b).then(|(x, y)| ..)` runs a
    /// function of both.
    ///
    /// If either task panicked, the returned handle holds a panic (this
    /// handle's first). The pair is put together on this handle's pool,
    /// wherever `other` runs.
    ///
    /// # Panics
    ///
    /// If either handle was already polled (as a `Future`) to completion.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let a = pool.submit(|| 6);
    /// let b = pool.submit(|| "seven");
    /// let both = a.zip(b).then(|(six, seven)| format!("{six} {seven}"));
    /// assert_eq!(both.join().unwrap(), "6 seven");
    /// ```
    #[track_caller]
    pub fn zip<S: Send + 'static>(self, other: JoinHandle<S>) -> JoinHandle<(R, S)> {
        let inputs = (Arrival::<R>::new(None), Arrival::<S>::new(None));
        let antecedents = vec![self.task_ref(), other.task_ref()];
        let (job, handle) = PendingJob::new(self.registry.clone(), inputs, 2, |pair| pair, antecedents);
        let first = PendingJob::continuation(&job, &job.inputs.0);
        let second = PendingJob::continuation(&job, &job.inputs.1);
        drop(job);
        self.attach(first);
        other.attach(second);
        handle
    }
}

/// See [`ThreadPool::when_all`](crate::ThreadPool::when_all).
#[track_caller]
pub(crate) fn when_all<R: Send + 'static>(
    registry: &Arc<Registry>,
    handles: impl IntoIterator<Item = JoinHandle<R>>,
) -> JoinHandle<Vec<R>> {
    let handles: Vec<JoinHandle<R>> = handles.into_iter().collect();
    let inputs: Box<[Arrival<R>]> = handles.iter().map(|_| Arrival::new(None)).collect();
    let antecedents = handles.iter().map(JoinHandle::task_ref).collect();
    let (job, handle) = PendingJob::new(
        registry.clone(),
        inputs,
        handles.len(),
        |values| values,
        antecedents,
    );
    if handles.is_empty() {
        // Nothing to wait for: done now, with no job to run.
        job.packet.complete(Ok(Vec::new()));
        return handle;
    }
    let continuations: Vec<_> = job
        .inputs
        .iter()
        .map(|arrival| PendingJob::continuation(&job, arrival))
        .collect();
    drop(job);
    // `--cfg stealpool_bug="when_all_reversed"` pairs the inputs with the
    // cells in reverse, so the values come out in reverse input order
    // (`model/lin/pool.rs` catches it).
    let continuations: Vec<_> = if bug!("when_all_reversed") {
        continuations.into_iter().rev().collect()
    } else {
        continuations
    };
    for (handle, continuation) in handles.into_iter().zip(continuations) {
        handle.attach(continuation);
    }
    handle
}
