//! `submit`'s handle: blocking `join`, `Future`, and the continuations of
//! `continuation.rs`.

use crate::pool::api::block_in_place::block_in_place;
use crate::pool::kernel::spares::Blocked;
use crate::sync::flags::bug;
// One file per job: the claim that decides who runs a submitted task;
// continuations (`then`, `zip`, `when_all`).
pub(in crate::pool::api) mod claim;
pub(crate) mod continuation;

use crate::lockfree::JobHeader;
use crate::lockfree::JobRef;
use crate::pool::kernel::job::drop_payload;
use crate::pool::kernel::latch::{CrossPoolLatch, Latch, LockLatch};
use crate::pool::kernel::registry::Registry;
use crate::pool::kernel::serving::{self, Awaited, ReadState, TaskRef, TaskState, Waiting};
use crate::pool::kernel::stall::{self, Released};
use crate::pool::kernel::worker::WorkerThread;
use crate::pool::queues::priority::Priority;
use crate::sync::{Arc, Mutex, MutexGuard, UnsafeCell};
use claim::Claim;
use continuation::Continuation;
use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};
use std::thread;

/// Who waits for a task's result.
enum Waiter<R> {
    None,
    /// A blocked thread: outside every pool (no `Waiting`), or a worker
    /// with a spare standing in for it (H4).
    Thread(*const LockLatch, *const Waiting),
    /// A worker of another pool, parked and serving its mailbox, with a
    /// spare of its own pool standing in if one may start (H4, Y1).
    OtherPool(*const CrossPoolLatch, *const Waiting),
    /// An async task.
    Task(Waker),
    /// A continuation: takes the result when it is ready (K1).
    Then(Continuation<R>),
}

/// Where a task's result is.
enum Slot<R> {
    /// The task has not finished.
    Pending,
    /// The task has finished; its result waits to be taken.
    Ready(thread::Result<R>),
    /// The result was taken by a poll that returned `Ready`.
    Taken,
}

struct State<R> {
    result: Slot<R>,
    waiter: Waiter<R>,
    /// The task can run: every input of a continuation has arrived (K4).
    /// Always true of a submitted task.
    ready: bool,
    /// The `Thread` waiter is a worker that would run the task in place
    /// once it is ready: `mark_ready` wakes it then (H4).
    wake_on_ready: bool,
    /// H8: until it is ready, a continuation's references to the tasks it
    /// waits for, so that a worker joining it can run them in place.
    inputs: Vec<TaskRef>,
}

impl<R> State<R> {
    /// Takes the result if it is ready; panics if a poll took it already.
    fn take(&mut self) -> Option<thread::Result<R>> {
        match std::mem::replace(&mut self.result, Slot::Taken) {
            Slot::Ready(result) => Some(result),
            Slot::Pending => {
                self.result = Slot::Pending;
                None
            }
            Slot::Taken => None,
        }
    }
}

/// The message of a handle used after a poll returned its result.
const CONSUMED: &str = "stealpool: JoinHandle used after it was polled to completion";

/// Where a submitted task leaves its result. The mutex orders the result's
/// write before its read (H1); latches registered here are set while it is
/// held, so a waiter that unregisters under it never leaves a dangling one.
pub(crate) struct Packet<R> {
    state: Mutex<State<R>>,
    /// Where the task was made (`submit`, `then`, `zip`, `when_all`): its
    /// name in stall reports (Z2).
    origin: &'static Location<'static>,
}

// SAFETY: the raw latch pointers are only dereferenced under the mutex,
// while their owners are blocked waiting on them; `R` crosses threads once.
unsafe impl<R: Send> Send for Packet<R> {}
// SAFETY: as above; all access goes through the mutex.
unsafe impl<R: Send> Sync for Packet<R> {}

impl<R> Drop for Packet<R> {
    /// A panic nobody took (its handle was dropped): its payload is dropped
    /// quietly, since its own `Drop` may panic, and the task's panic was
    /// counted and reported where it happened.
    fn drop(&mut self) {
        // `get_mut`: no lock to take, nobody else holds the packet.
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Slot::Ready(Err(_)) = state.result {
            let Slot::Ready(Err(payload)) = std::mem::replace(&mut state.result, Slot::Taken) else {
                unreachable!()
            };
            drop_payload(payload);
        }
    }
}

impl<R> Packet<R> {
    /// The packet of a task that can run at once (`ready`, no `inputs`)
    /// or of a continuation, which can once its inputs are there
    /// (`mark_ready`); `inputs` are the tasks it waits for (H8), `origin`
    /// where it was made.
    pub(crate) fn new(ready: bool, inputs: Vec<TaskRef>, origin: &'static Location<'static>) -> Self {
        Packet {
            origin,
            state: Mutex::new(State {
                result: Slot::Pending,
                waiter: Waiter::None,
                ready,
                wake_on_ready: false,
                inputs,
            }),
        }
    }

    /// H8, Z2: what the task of this packet, whose claim is `claim`, is
    /// at; with new references to the tasks a continuation still waits
    /// for (none once it is ready).
    pub(crate) fn state(&self, claim: &Claim) -> TaskState {
        let state = self.lock();
        TaskState {
            finished: !matches!(state.result, Slot::Pending),
            ready: state.ready,
            runner: claim.runner(),
            origin: self.origin,
            inputs: state.inputs.iter().map(TaskRef::clone_ref).collect(),
        }
    }

    /// H4, K4: the continuation can run now (its last input arrived). A
    /// worker of its pool waiting for its handle is woken to run it in
    /// place, so that it does not wait for a thread to take it from the
    /// queue (with no spare to stand in, there may be none).
    pub(crate) fn mark_ready(&self) {
        let mut state = self.lock();
        state.ready = true;
        // H8: the inputs are all there; their references go, after the
        // lock. One may be the last of its job (an input of a `zip` that
        // finished first, its handle gone): the job holds nothing of the
        // user's by then (its closure ran, its result was delivered), but a
        // continuation's job holds its pool, whose last reference may go.
        let inputs = std::mem::take(&mut state.inputs);
        if state.wake_on_ready {
            if let Waiter::Thread(latch, _) = std::mem::replace(&mut state.waiter, Waiter::None) {
                // SAFETY: as in `complete`: the waiter takes this mutex
                // before its latch may go (H1).
                unsafe { Latch::set(latch) };
            }
        }
        drop(state);
        drop(inputs);
    }

    fn lock(&self) -> MutexGuard<'_, State<R>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores the result and wakes the waiter, if any; hands it to the
    /// continuation, if one is attached (K1).
    pub(crate) fn complete(&self, result: thread::Result<R>) {
        let mut state = self.lock();
        if let Waiter::Then(_) = state.waiter {
            let Waiter::Then(continuation) = std::mem::replace(&mut state.waiter, Waiter::None) else {
                unreachable!()
            };
            state.result = Slot::Taken;
            // K1: outside the lock: delivering may take the sleep lock or
            // run the continuation's job, which completes another packet.
            drop(state);
            continuation.deliver(result);
            return;
        }
        state.result = Slot::Ready(result);
        match std::mem::replace(&mut state.waiter, Waiter::None) {
            Waiter::None | Waiter::Then(_) => {}
            // SAFETY: the waiter is blocked until this latch is set and must
            // take this mutex to unregister, so the latch is live (H1).
            Waiter::Thread(latch, _) => unsafe { Latch::set(latch) },
            // SAFETY: as above; the latch holds its waiter's pool (J3).
            Waiter::OtherPool(latch, _) => unsafe { Latch::set(latch) },
            Waiter::Task(waker) => {
                drop(state);
                waker.wake();
            }
        }
    }
}

/// A handle to a task started by [`ThreadPool::submit`](crate::ThreadPool::submit):
/// wait for its result with [`join`](JoinHandle::join) or `.await` it.
///
/// Dropping the handle does not cancel the task; it still runs and its
/// result is dropped.
///
/// ```
/// let pool = stealpool::ThreadPool::new(2);
/// let handle = pool.submit(|| 6 * 7);
/// assert_eq!(handle.join().unwrap(), 42);
/// ```
pub struct JoinHandle<R> {
    /// The task's job (`SubmitJob`, or a continuation's), one reference of
    /// its `Arc`.
    pub(in crate::pool) job: *const (),
    /// The packet inside it.
    pub(in crate::pool) packet: NonNull<Packet<R>>,
    /// Drops that reference (it knows the closure's type; the handle not).
    pub(in crate::pool) release: unsafe fn(*const ()),
    /// Takes one more reference, for a job that runs the task in place
    /// (Y1).
    pub(in crate::pool) retain: unsafe fn(*const ()),
    /// The task's claim word (H3), inside the job.
    pub(in crate::pool) claim: NonNull<Claim>,
    /// Claims the task for the current worker and runs it there, if it is
    /// ready to run and nobody has claimed it: `true` if it ran (H4).
    pub(in crate::pool) run_here: unsafe fn(*const (), &WorkerThread) -> bool,
    /// The pool the task runs on, where continuations of it run too.
    pub(in crate::pool) registry: Arc<Registry>,
    /// H8, Z2: what the task is at (`Packet::state`).
    pub(in crate::pool) state: ReadState,
}

// SAFETY: the handle owns one reference to the job's `Arc`, whose packet is
// `Send + Sync` when `R: Send`; the closure is `Send` and only the worker
// that runs it touches it.
unsafe impl<R: Send> Send for JoinHandle<R> {}
// SAFETY: `&JoinHandle` only reads the packet under its mutex.
unsafe impl<R: Send> Sync for JoinHandle<R> {}

/// A submitted task and its packet in one allocation: the deque carries a
/// reference to it, the handle holds another (the one allocation of
/// `submit`).
#[repr(C)]
struct SubmitJob<F, R> {
    header: JobHeader,
    /// Who runs it: the worker that takes it from its queue, or the one
    /// that joins its handle first (H3).
    claim: Claim,
    func: UnsafeCell<Option<F>>,
    packet: Packet<R>,
}

impl<F: FnOnce() -> R + Send, R: Send> SubmitJob<F, R> {
    unsafe fn execute(header: NonNull<JobHeader>) {
        // SAFETY: the queue's reference, made by `submit`, used once.
        let job = unsafe { Arc::from_raw(header.as_ptr().cast_const().cast::<Self>()) };
        // SAFETY: tasks run on workers.
        let worker = unsafe { &*WorkerThread::current() };
        // H3: the thread that joined the handle ran it already; the queue's
        // reference is all that is left (nothing of the user's: the closure
        // ran, the joiner took the result). `--cfg
        // stealpool_bug="claim_ignored"` runs it again.
        if !job.claim.take(worker.runner_id()) && !bug!("claim_ignored") {
            return;
        }
        // SAFETY: the claim is ours, so nothing else touches `func`.
        let func = job.func.with_mut(|func| unsafe { (*func).take() });
        let func = func.expect("a submitted task ran twice");
        // The queue's reference is dropped inside the task: if the handle is
        // gone, that drops the result, whose `Drop` may panic; the task's
        // panic handling takes it then (J1).
        worker.run_claimed(job.claim.lineage(), move || {
            run_submitted(&job.packet, func);
            drop(job);
        });
    }

    unsafe fn release(job: *const ()) {
        // SAFETY: the handle's reference, made by `submit`, dropped once.
        drop(unsafe { Arc::from_raw(job.cast::<Self>()) });
    }

    /// H8, Z2: what the task is at.
    unsafe fn state(job: *const ()) -> TaskState {
        // SAFETY: the caller holds a reference, made by `submit`.
        let job = unsafe { &*job.cast::<Self>() };
        job.packet.state(&job.claim)
    }

    unsafe fn retain(job: *const ()) {
        // SAFETY: the caller holds a reference, made by `submit`.
        unsafe { Arc::increment_strong_count(job.cast::<Self>()) }
    }

    /// H4: runs the task on `worker`, the thread joining its handle, if
    /// nobody has claimed it yet (H3). The handle's reference keeps the job.
    unsafe fn run_here(job: *const (), worker: &WorkerThread) -> bool {
        // SAFETY: the handle's reference keeps the job alive.
        let job = unsafe { &*job.cast::<Self>() };
        if !job.claim.take(worker.runner_id()) {
            return false;
        }
        // SAFETY: the claim is ours, so nothing else touches `func`.
        let func = job.func.with_mut(|func| unsafe { (*func).take() });
        let func = func.expect("a submitted task ran twice");
        worker.run_claimed(job.claim.lineage(), || run_submitted(&job.packet, func));
        true
    }
}

/// Queues `f` as a task and returns the handle to its result.
#[track_caller]
pub(crate) fn submit<F, R>(registry: &Arc<Registry>, priority: Priority, f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let job = Arc::new(SubmitJob {
        header: JobHeader::new(SubmitJob::<F, R>::execute),
        claim: Claim::for_new_task(registry),
        func: UnsafeCell::new(Some(f)),
        packet: Packet::new(true, Vec::new(), Location::caller()),
    });
    let queued = Arc::into_raw(job.clone());
    registry.count_task();
    // SAFETY: the header is the first field of a `#[repr(C)]` job whose
    // `execute` takes back this `Arc` reference.
    registry.push_submitted(priority, unsafe {
        JobRef::new(NonNull::new_unchecked(queued.cast_mut().cast()))
    });
    let job = Arc::into_raw(job);
    JoinHandle {
        job: job.cast(),
        // SAFETY: `job` is live as long as the handle holds its reference.
        packet: NonNull::from(unsafe { &(*job).packet }),
        release: SubmitJob::<F, R>::release,
        retain: SubmitJob::<F, R>::retain,
        // SAFETY: as above.
        claim: NonNull::from(unsafe { &(*job).claim }),
        run_here: SubmitJob::<F, R>::run_here,
        registry: registry.clone(),
        state: SubmitJob::<F, R>::state,
    }
}

impl<R> JoinHandle<R> {
    fn packet(&self) -> &Packet<R> {
        // SAFETY: the handle's reference keeps the job, and so the packet.
        unsafe { self.packet.as_ref() }
    }

    /// Hands the result to `continuation` (K1): now, if it is there;
    /// otherwise `complete` will, exactly once.
    ///
    /// # Panics
    ///
    /// If a poll took the result already.
    pub(in crate::pool) fn attach(self, continuation: Continuation<R>)
    where
        R: Send,
    {
        let mut state = self.lock_unconsumed();
        match state.take() {
            Some(result) => {
                drop(state);
                continuation.deliver(result);
            }
            None => {
                // `--cfg stealpool_bug="then_unlocked"` looks and attaches
                // under two locks: a completion between them sees no
                // continuation, and this one then waits forever (the lost
                // notification K1 rules out).
                if bug!("then_unlocked") {
                    drop(state);
                    state = self.packet().lock();
                }
                state.waiter = Waiter::Then(continuation);
            }
        }
    }
}

impl<R> Drop for JoinHandle<R> {
    fn drop(&mut self) {
        // SAFETY: the handle's one reference, released once.
        unsafe { (self.release)(self.job) }
    }
}

impl<R: Send> JoinHandle<R> {
    /// Waits for the task and returns its value, or `Err` with the panic
    /// payload if it panicked.
    ///
    /// On a worker of the task's own pool, a task nobody has started yet
    /// runs right here, in place, as a call would (for a continuation whose
    /// inputs are missing, first the tasks of this pool it waits for that
    /// nobody has started, then the continuation); one that runs elsewhere
    /// is waited for with a spare thread standing in for this worker (as
    /// [`block_in_place`](crate::block_in_place) does), so the pool keeps
    /// its strength. A waiting worker never runs unrelated tasks on top of
    /// the wait, so tasks may join each other's handles in any order that
    /// is not a cycle, on any number of workers: waits nest no deeper than
    /// the program's own. See "Waiting on a worker" on
    /// [`ThreadPool`](crate::ThreadPool), and the limit past
    /// [`Builder::max_blocking_threads`](crate::Builder::max_blocking_threads).
    ///
    /// # Panics
    ///
    /// If the handle was already polled (as a [`Future`]) to completion: its
    /// result was handed out then. If the task is running beneath this call
    /// on the same thread (it waits, directly or not, for the code that
    /// joins it: a cycle), with a message that says so, rather than
    /// waiting forever; if a job this thread was handed while it waited
    /// (past `max_blocking_threads`) lies between the two, the message
    /// calls it a stall instead, as below. On a worker, if parking would
    /// complete a *stall*: every thread of this pool, and of every pool
    /// their waits depend on, is parked in a `JoinHandle::join` whose task (or, for a
    /// continuation, one of the inputs it still waits for) is queued or
    /// runs beneath such a wait, so none of them could ever return (a
    /// cycle of handles across threads, through continuations or across
    /// pools, or more waits at once than
    /// [`Builder::max_blocking_threads`](crate::Builder::max_blocking_threads)
    /// lets spares stand in for). The message names the pools, their
    /// limits and what they wait on, and up to eight of the waits: where
    /// each was joined, where its task was made (`submit`, `then`, `zip`,
    /// `when_all`), the input that blocks a continuation, and beneath
    /// which join the blocking task runs. Waits the pool cannot see (a
    /// channel, a lock, a `join` half, a scope) are never part of a stall,
    /// so a program blocked in them is not reported.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(1);
    /// let failed = pool.submit(|| -> u32 { panic!("boom") });
    /// assert!(failed.join().is_err());
    ///
    /// let pool = std::sync::Arc::new(pool);
    /// let inner = pool.clone();
    /// let nested = pool.submit(move || inner.submit(|| 1).join().unwrap() + 1);
    /// assert_eq!(nested.join().unwrap(), 2);
    /// ```
    #[track_caller]
    pub fn join(self) -> thread::Result<R> {
        let joined_at = Location::caller();
        if let Some(result) = self.try_take() {
            return result;
        }
        // SAFETY: the thread-local pointer is null or this thread's worker.
        let worker = unsafe { WorkerThread::current().as_ref() };
        if let (true, Some(worker)) = (bug!("wait_runs_any"), worker) {
            // The rule H4 replaced: run any job of the pool while waiting,
            // on top of this frame.
            while !self.is_finished() {
                if !worker.run_one_job() {
                    crate::sync::thread::yield_now();
                }
            }
            return self.take_result();
        }
        if let Some(worker) = worker {
            if !std::ptr::eq(worker.registry(), &*self.registry) {
                return self.join_from_other_pool(worker, joined_at);
            }
        }
        // A worker that may run the task in place asks to be woken when a
        // continuation's inputs are all there, once (K4).
        let mut wake_on_ready = worker.is_some_and(|worker| self.may_run_in_place(worker));
        // Y2: a worker's wait is a link of the chains searched for a
        // waiter; a thread outside every pool is none.
        let waiting = worker.map(|worker| Waiting::here(worker, false));
        let waiting_ptr = waiting
            .as_ref()
            .map_or(std::ptr::null(), |waiting| &raw const *waiting);
        loop {
            if let Some(worker) = worker {
                if self.run_in_place(worker) {
                    return self.take_result();
                }
                // H8: a continuation not ready yet: the inputs of this pool
                // that nobody started run here first, then it is tried again.
                if self.run_inputs_in_place(worker) {
                    continue;
                }
            }
            // A task another thread runs is often about to end: a few
            // looks before the park and its stand-in.
            if worker.is_some_and(|worker| worker.spin_until(|| self.is_finished())) {
                return self.take_result();
            }
            let latch = LockLatch::new();
            let mut stalled = None;
            // H2, H4: on a worker, a spare stands in while this thread
            // blocks (outside every pool, `block_in_place` just calls the
            // closure).
            block_in_place(|| {
                if self.register(Waiter::Thread(&raw const latch, waiting_ptr), wake_on_ready) {
                    // Y3: a need of the runner's (a task of another pool)
                    // becomes this wait's, for the waits on this one.
                    let _adopted = worker.and_then(|worker| self.help_runner(worker));
                    // Z1: a worker's wait is recorded while it parks; the
                    // park that would complete a stall is not made.
                    let mut parked = match worker.map(|worker| {
                        stall::park(
                            worker,
                            self.awaited(None, joined_at),
                            Released::Lock(&raw const latch),
                        )
                    }) {
                        Some(Err(stall)) => {
                            stalled = Some(stall);
                            return;
                        }
                        Some(Ok(parked)) => Some(parked),
                        None => None,
                    };
                    // Z5: a recorded wait looks again every `RECHECK`.
                    let recheck = parked.as_ref().and(stall::RECHECK);
                    while !latch.wait_for(recheck) {
                        if let Some(Err(stall)) = parked.as_mut().map(|parked| parked.recheck()) {
                            stalled = Some(stall);
                            return;
                        }
                    }
                    drop(parked);
                }
            });
            if let Some(stall) = stalled {
                self.unregister();
                // Y7: no search up the chains still reads this wait.
                self.registry.stalls.wait_out_searches();
                panic!("{stall}");
            }
            // Without `wake_on_ready` only the result sets the latch (or
            // was there already): no second look under the lock.
            if !wake_on_ready || self.is_finished() {
                return self.take_result();
            }
            // Woken (or not registered) because the task became ready:
            // one more try in place, then wait for the result alone.
            wake_on_ready = false;
        }
    }

    /// H4 on a worker of another pool: it parks, serving its mailbox, with
    /// a spare of its own pool standing in if one may start (W1). The task
    /// may need this thread's pool back (it joins a task of it, or what it
    /// waits for does), whose threads may all be parked: what it needs is
    /// run by this thread, or by a thread waiting for it (Y1, Y3).
    #[cold]
    #[inline(never)]
    fn join_from_other_pool(
        self,
        worker: &WorkerThread,
        joined_at: &'static Location<'static>,
    ) -> thread::Result<R> {
        // Y3: this wait's need, published before the search for a waiter
        // of the task's pool (Y1).
        let _need = serving::needing(worker, self.task_ref());
        let blocked = Blocked::enter(worker);
        // Y4: with no spare standing in, this thread is lent to the tasks
        // the other pool's threads need of its own.
        let lent = (!blocked.stood_in).then(|| serving::lend(worker, &self.registry));
        let waiting = Waiting::here(worker, true);
        let latch = CrossPoolLatch::new(worker.registry_arc(), worker.index());
        if self.register(Waiter::OtherPool(&raw const latch, &raw const waiting), false) {
            let _helped = self.help_runner(worker);
            // Z1: watched by the stall detector while it parks.
            let lent_to = lent.as_ref().map(|_| (&*self.registry, worker.frames()));
            if let Err(stall) = worker.wait_serving_mail_watched(&latch, self.awaited(lent_to, joined_at)) {
                self.unregister();
                // Y7: no search up the chains still reads this wait.
                worker.registry().stalls.wait_out_searches();
                panic!("{stall}");
            }
        }
        drop(blocked);
        self.take_result()
    }

    /// A counted reference to the task, for a job that runs it in place.
    pub(in crate::pool) fn task_ref(&self) -> TaskRef {
        // SAFETY: the handle's reference keeps the job alive; the functions
        // are its own, and its pool is `registry`.
        unsafe {
            TaskRef::new(
                &raw const *self.registry,
                self.job,
                self.claim.as_ref().lineage(),
                self.run_here,
                self.retain,
                self.release,
                self.state,
            )
        }
    }

    /// Y3, after this thread registered as the task's waiter: what the
    /// task's runner waits for, if it needs a task run, is run here (a
    /// task of this thread's pool) or becomes this wait's need (one of
    /// another pool), until the returned guard drops.
    fn help_runner<'w>(&self, worker: &'w WorkerThread) -> Option<serving::NeedGuard<'w>> {
        // `--cfg stealpool_bug="need_unread"` leaves the runner's need
        // unread: a waiter that registers after the runner's search for one
        // is never handed what the runner waits for (the race Y3 closes).
        if bug!("need_unread") {
            return None;
        }
        let need = {
            let state = self.packet().lock();
            // SAFETY: the handle's reference keeps the job, and its claim.
            let runner = unsafe { self.claim.as_ref() }.runner();
            if !matches!(state.result, Slot::Pending)
                || runner <= claim::DETACHED
                || runner == worker.runner_id()
            {
                return None;
            }
            // Y3: claimed by a worker of the task's pool and unfinished,
            // with the packet's lock held: the runner is inside the task.
            serving::need_of(&self.registry, runner)
        }?;
        serving::help_with(worker, need)
    }

    /// Whether `worker` may run this handle's task in place (H4): it is a
    /// worker of the task's pool.
    fn may_run_in_place(&self, worker: &WorkerThread) -> bool {
        std::ptr::eq(worker.registry(), &*self.registry) && !bug!("wait_not_in_place")
    }

    /// H4, H5: on `worker`, runs the task in place if it is of this pool,
    /// ready, unclaimed, and the worker's budget of waits run in place is
    /// not spent; `true` if it ran. Panics if the task runs beneath this
    /// frame on this very thread.
    fn run_in_place(&self, worker: &WorkerThread) -> bool {
        if !self.may_run_in_place(worker) {
            return false;
        }
        if let Some(_budget) = worker.wait_in_place() {
            // SAFETY: the handle's reference keeps the job alive.
            if unsafe { (self.run_here)(self.job, worker) } {
                return true;
            }
        }
        // SAFETY: the handle's reference keeps the job, and its claim.
        let runner = unsafe { self.claim.as_ref() }.runner();
        // H5: claimed by this thread, yet unfinished: it runs beneath us
        // and cannot go on until this frame returns.
        if runner == worker.runner_id() && !self.is_finished() {
            // SAFETY: as above.
            let seq = unsafe { self.claim.as_ref() }.lineage().seq();
            if worker.posted_above(seq) {
                panic!(
                    "stealpool: JoinHandle::join can never return (a stall): its task runs lower \
                     on this thread's stack, beneath a job this thread was handed while it waited \
                     (past Builder::max_blocking_threads, a task another wait needed or queued \
                     work of a stalled pool; or a broadcast's part), and cannot go on until this \
                     call returns"
                );
            }
            panic!(
                "stealpool: JoinHandle::join can never return: its task runs beneath it on the same \
                 thread and cannot go on until this call returns (the program's waits form a \
                 cycle, or, past Builder::max_blocking_threads, this thread was handed the joining \
                 task while it waited on another pool)"
            );
        }
        false
    }

    /// H8: runs here, within H4's budget, the tasks of `worker`'s pool that
    /// this continuation waits for, directly or through other
    /// continuations, and that nobody has claimed; `true` if any ran.
    fn run_inputs_in_place(&self, worker: &WorkerThread) -> bool {
        if !self.may_run_in_place(worker) || bug!("inputs_not_in_place") {
            return false;
        }
        // SAFETY: the handle's reference keeps the job; the function is its own.
        let mut pending = unsafe { (self.state)(self.job) }.inputs;
        pending.reverse();
        let mut seen = std::collections::HashSet::new();
        let mut ran = false;
        while let Some(task) = pending.pop() {
            if !seen.insert(task.job()) {
                continue;
            }
            if task.is_of(worker.registry()) && task.run_on(worker) {
                ran = true;
            } else {
                pending.extend(task.state().inputs.into_iter().rev());
            }
        }
        ran
    }

    /// Z1: the task as the stall detector reads it, for a waiter lending
    /// itself to `lent_to` (Y4), joining it at `joined_at`.
    fn awaited(
        &self,
        lent_to: Option<(&Registry, Vec<u64>)>,
        joined_at: &'static Location<'static>,
    ) -> stall::Awaited {
        // Z1: a task that can run (a submitted task always; a continuation
        // once its inputs are there, K4) is read by its claim alone; one
        // whose inputs are missing, through them (H8's references).
        let ready = self.packet().lock().ready;
        stall::Awaited {
            pool: &raw const *self.registry,
            pending: (!ready).then_some((self.job, self.state)),
            claim: self.claim.as_ptr().cast_const().cast(),
            runner_of: Claim::runner_of,
            // SAFETY: the handle's reference keeps the job, and its claim.
            lineage: unsafe { self.claim.as_ref() }.lineage(),
            lent_to: lent_to
                .as_ref()
                .map_or(std::ptr::null(), |(pool, _)| *pool as *const Registry),
            lender_frames: lent_to.map(|(_, frames)| frames).unwrap_or_default(),
            origin: self.packet().origin,
            joined_at,
            kind: stall::WaitKind::Join,
        }
    }

    /// Z1: a wait that ends without the result takes its latch back, under
    /// the mutex the setter holds while it uses it (H1).
    fn unregister(&self) {
        self.packet().lock().waiter = Waiter::None;
    }

    /// The result, once the task has finished; unregisters the waiter.
    fn take_result(&self) -> thread::Result<R> {
        // H1: unregister under the mutex: the setter held it while it used
        // our latch, so the latch may leave with this frame afterwards.
        let mut state = self.packet().lock();
        state.waiter = Waiter::None;
        state.take().expect("a joined task left no result")
    }

    /// The result if it is there; panics if a poll took it already.
    fn try_take(&self) -> Option<thread::Result<R>> {
        self.lock_unconsumed().take()
    }

    /// The packet's state, locked; panics if a poll took the result already.
    fn lock_unconsumed(&self) -> MutexGuard<'_, State<R>> {
        let state = self.packet().lock();
        if let Slot::Taken = state.result {
            drop(state);
            panic!("{CONSUMED}");
        }
        state
    }

    /// Registers `waiter` unless the result is already there, or, with
    /// `wake_on_ready`, unless the task is ready to run (K4).
    fn register(&self, waiter: Waiter<R>, wake_on_ready: bool) -> bool {
        let mut state = self.packet().lock();
        if !matches!(state.result, Slot::Pending) || (wake_on_ready && state.ready) {
            return false;
        }
        state.waiter = waiter;
        state.wake_on_ready = wake_on_ready;
        true
    }

    /// `true` once the task has finished (and still `true` after a poll
    /// took its result).
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(1);
    /// let handle = pool.submit(|| 1);
    /// pool.wait_all();
    /// assert!(handle.is_finished());
    /// ```
    pub fn is_finished(&self) -> bool {
        // `--cfg stealpool_bug="finished_early"` answers from the claim
        // (H3): `true` once a thread has started the task, before its
        // result is there (`model/lin/pool.rs` catches it).
        // SAFETY: the handle's reference keeps the job, and its claim.
        if bug!("finished_early") && unsafe { self.claim.as_ref() }.runner() != 0 {
            return true;
        }
        !matches!(self.packet().lock().result, Slot::Pending)
    }
}

impl<R: Send> Future for JoinHandle<R> {
    type Output = thread::Result<R>;

    /// `Ready` with the task's result once it has finished.
    ///
    /// # Panics
    ///
    /// If polled again after it returned `Ready`, like other futures.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.lock_unconsumed();
        match state.take() {
            Some(result) => Poll::Ready(result),
            None => {
                state.waiter = Waiter::Task(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl<R> fmt::Debug for JoinHandle<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle").finish_non_exhaustive()
    }
}

/// Y2: the worker waiting for the task whose packet is `packet`, null if
/// none (or a thread outside every pool, or a continuation).
///
/// # Safety
///
/// `packet` is a live `Packet<R>`.
unsafe fn waiting_of<R>(packet: *const ()) -> *const Waiting {
    // SAFETY: the caller's promise.
    let packet = unsafe { &*packet.cast::<Packet<R>>() };
    match packet.lock().waiter {
        Waiter::Thread(_, waiting) | Waiter::OtherPool(_, waiting) => waiting,
        _ => std::ptr::null(),
    }
}

/// Runs a submitted task on `worker`, catching its panic for the handle.
pub(crate) fn run_submitted<R>(packet: &Packet<R>, f: impl FnOnce() -> R) {
    // SAFETY: tasks run on workers.
    run_submitted_value(packet, f, || unsafe { &*WorkerThread::current() }.record_panic());
}

/// Runs `f`, catching its panic for the packet; calls `on_panic` first if
/// it panicked.
pub(crate) fn run_submitted_value<R>(packet: &Packet<R>, f: impl FnOnce() -> R, on_panic: impl FnOnce()) {
    // Y2: searches from inside the task find whoever joins its handle.
    let awaited = Awaited::Task {
        packet: (&raw const *packet).cast(),
        waiter: waiting_of::<R>,
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| serving::running(awaited, f)));
    if result.is_err() {
        on_panic();
    }
    packet.complete(result);
}
