//! Work handed to the thread that waits for it (Y1-Y3 in
//! `proofs/waits.md`).
//!
//! A worker of pool A that waits for work of pool B (an `install` on B, a
//! handle of one of B's tasks) parks, serving its own mailbox (U2), with a
//! spare of A standing in if one may start. The work it waits for may need
//! A back: B's job installs into A, or submits a task to A and joins it.
//! If every other thread of A is parked too (no spare left to start), the
//! job for A would never run, yet the waiter itself is A's and idle: the
//! job is posted to it (Y1).
//!
//! To find it, a thread keeps on its stack a chain of the work it runs
//! that somebody may wait for (`Running`: an `install`'s job, a submitted
//! task), each frame naming its waiter (`Waiting`, on the waiter's stack),
//! and each waiter naming the chain of its own thread beneath its wait.
//! Every frame on that path stays put while it is read (Y2): a waiter
//! waits until the work it waits for is done, and that work is on the
//! stack of the thread reading, beneath the read.

use super::job::HeapJob;
use super::registry::Registry;
use super::worker::WorkerThread;
use crate::lockfree::JobRef;
use crate::sync::flags::bug;
use crate::sync::thread_local;
use crate::sync::{Mutex, MutexGuard};
use std::cell::Cell;
use std::panic::Location;
use std::ptr;

/// How many frames a search for a waiter reads at most: a chain of waits
/// longer than this is left unsearched (the work is queued as usual).
const SEARCH_BUDGET: usize = 256;

/// A worker waiting for work somebody else runs; lives on the waiter's
/// stack for the whole wait.
pub(crate) struct Waiting {
    /// The waiter's pool.
    registry: *const Registry,
    /// The waiter's slot in it.
    index: usize,
    /// Whether the wait runs the jobs posted to the waiter (U2): a wait
    /// on another pool does; a wait on a task of its own pool blocks with
    /// a spare standing in, and is only a link of the chain.
    serves_mail: bool,
    /// The innermost work the waiter's thread was running when it began
    /// to wait, beneath the wait.
    below: *const Running,
    /// Y6: for a wait that serves its mail, the numbers of the tasks with
    /// a handle on the waiter's stack beneath it: a task is posted to it
    /// only if it waits for none of them (Y5's rule).
    frames: Vec<u64>,
}

impl Waiting {
    /// The current wait of `worker`, whose thread this is.
    pub(crate) fn here(worker: &WorkerThread, serves_mail: bool) -> Waiting {
        Waiting {
            registry: worker.registry(),
            index: worker.index(),
            serves_mail,
            below: innermost(),
            frames: if serves_mail { worker.frames() } else { Vec::new() },
        }
    }
}

/// Who waits for a `Running` frame's work.
#[derive(Clone, Copy)]
pub(crate) enum Awaited {
    /// An `install`'s job: its caller, known when the job was made.
    By(*const Waiting),
    /// A submitted task: whoever joins its handle, read from its packet
    /// by `waiter` (null when nobody waits, or not a pool's worker).
    Task {
        packet: *const (),
        waiter: unsafe fn(*const ()) -> *const Waiting,
    },
}

/// An `Awaited` moved into a job for another thread.
pub(crate) struct SendAwaited(Awaited);

// SAFETY: the pointers are read only as `waiter_in` reads them (Y2).
unsafe impl Send for SendAwaited {}

impl SendAwaited {
    /// # Safety
    ///
    /// The frames `awaited` names outlive every run of the work it goes with.
    pub(crate) unsafe fn new(awaited: Awaited) -> Self {
        SendAwaited(awaited)
    }

    pub(crate) fn into_inner(self) -> Awaited {
        self.0
    }
}

/// Work the current thread runs that somebody may wait for; lives on its
/// stack while the work runs.
struct Running {
    awaited: Awaited,
    below: *const Running,
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
thread_local! {
    /// The innermost `Running` frame of this thread, null when none.
    static INNERMOST: Cell<*const Running> = const { Cell::new(ptr::null()) };
}

#[cfg(any(feature = "loom", feature = "shuttle"))]
thread_local! {
    #[allow(clippy::missing_const_for_thread_local)]
    /// The innermost `Running` frame of this thread, null when none.
    static INNERMOST: Cell<*const Running> = Cell::new(ptr::null());
}

/// This thread's innermost frame, null when none (or while a checker
/// drops the thread's locals, N1).
fn innermost() -> *const Running {
    INNERMOST.try_with(Cell::get).unwrap_or(ptr::null())
}

/// Runs `f` as work `awaited` names the waiter of: searches from inside
/// `f` find that waiter (Y2). The frame is removed on every way out.
pub(crate) fn running<R>(awaited: Awaited, f: impl FnOnce() -> R) -> R {
    struct Pop(*const Running);
    impl Drop for Pop {
        fn drop(&mut self) {
            let _ = INNERMOST.try_with(|cell| cell.set(self.0));
        }
    }
    let frame = Running {
        awaited,
        below: innermost(),
    };
    let _pop = Pop(frame.below);
    let _ = INNERMOST.try_with(|cell| cell.set(&raw const frame));
    f()
}

/// Y1, Y2: the slot of a worker of `target` that waits, directly or
/// through other waits, for work the current thread runs, and runs the
/// jobs posted to it meanwhile, and (Y6) whose stack beneath its wait
/// holds tasks numbered as `may_run` accepts; `None` if there is none.
pub(crate) fn waiter_in(target: &Registry, may_run: impl Fn(&[u64]) -> bool) -> Option<usize> {
    // Y7: a wait reported as a stall leaves without its result while the
    // work beneath this call still runs; it waits for this walk to end
    // before its frames go. (Every pool of a process, or of a model, has
    // the one domain, so `target`'s is the leaver's.)
    let _searching = target.stalls.searching();
    let mut chains = vec![innermost()];
    let mut budget = SEARCH_BUDGET;
    while let Some(mut frame) = chains.pop() {
        while !frame.is_null() && budget > 0 {
            budget -= 1;
            // SAFETY (Y2): a frame reached from this thread's innermost one
            // is on a stack that waits, directly or not, for work beneath
            // this call: it stays put until this call returns.
            let running = unsafe { &*frame };
            let waiting = match running.awaited {
                Awaited::By(waiting) => waiting,
                // SAFETY: as above: the task's packet lives while it runs.
                Awaited::Task { packet, waiter } => unsafe { waiter(packet) },
            };
            // SAFETY (Y2): the waiter waits until this work is done.
            if let Some(waiting) = unsafe { waiting.as_ref() } {
                // `--cfg stealpool_bug="posts_unfiltered"` posts to the
                // first waiter up the chain, whatever its stack holds (Y1
                // before Y6).
                let stack_allows = bug!("posts_unfiltered") || may_run(&waiting.frames);
                if waiting.serves_mail && ptr::eq(waiting.registry, target) && stack_allows {
                    return Some(waiting.index);
                }
                chains.push(waiting.below);
            }
            frame = running.below;
        }
    }
    None
}

/// Y1: posts `job`, a job of `target`'s pool that work the current thread
/// runs will wait for, to a worker of `target` waiting for that work
/// whose stack `may_run` accepts (Y6); gives it back when there is none
/// (or it left), for the caller to queue.
pub(crate) fn post_to_waiter(
    target: &Registry,
    job: JobRef,
    may_run: impl Fn(&[u64]) -> bool,
) -> Result<(), JobRef> {
    // `--cfg stealpool_bug="waiter_unserved"` queues it as any job of the
    // pool: with no thread of it free, nothing runs it (what Y1 rules out).
    if bug!("waiter_unserved") {
        return Err(job);
    }
    match waiter_in(target, may_run) {
        Some(index) => match target.post(index, job) {
            None => Ok(()),
            Some(job) => Err(job),
        },
        None => Err(job),
    }
}

/// A counted reference to a task with a handle, type-erased: enough to
/// run it in place on a worker of its pool (H4), once, whoever claims it
/// first (H3).
pub(crate) struct TaskRef {
    /// The task's pool.
    registry: *const Registry,
    job: *const (),
    /// Y5: its place in the order tasks were made.
    lineage: Lineage,
    run_here: unsafe fn(*const (), &WorkerThread) -> bool,
    retain: unsafe fn(*const ()),
    release: unsafe fn(*const ()),
    /// H8, Z2: what the task is at: finished, ready, claimed, and the
    /// tasks a continuation still waits for.
    state: ReadState,
}

/// Reads the state of the task whose job it is given (its own type's).
pub(crate) type ReadState = unsafe fn(*const ()) -> TaskState;

/// What H8 and the stall detector (Z2) read of a task, under its packet's
/// lock.
pub(crate) struct TaskState {
    /// Its result is there.
    pub(crate) finished: bool,
    /// It can run: a submitted task, or a continuation with every input
    /// there (K4).
    pub(crate) ready: bool,
    /// Its claim's runner id (H3): 0 while nobody claimed it.
    pub(crate) runner: usize,
    /// Where it was made (`submit`, `then`, ...).
    pub(crate) origin: &'static Location<'static>,
    /// H8: until it is ready, new references to the tasks it waits for.
    pub(crate) inputs: Vec<TaskRef>,
}

// SAFETY: the task is `Send + Sync` for a `Send` result (as its handle
// is), and the rest are plain functions. The registry is dereferenced
// only while the task's pool is held otherwise: by a handle of the task
// (Y1-Y3's references, made and used while their handle waits) or by a
// continuation's job (which holds its pool); H8's references to a
// continuation's inputs only compare it.
unsafe impl Send for TaskRef {}

impl TaskRef {
    /// A new reference to the task of `job`.
    ///
    /// # Safety
    ///
    /// `job` is live (the caller holds a reference), of the pool of
    /// `registry`, of `lineage` (Y5), and the functions are its own.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn new(
        registry: *const Registry,
        job: *const (),
        lineage: Lineage,
        run_here: unsafe fn(*const (), &WorkerThread) -> bool,
        retain: unsafe fn(*const ()),
        release: unsafe fn(*const ()),
        state: ReadState,
    ) -> TaskRef {
        // SAFETY: the caller's promise.
        unsafe { retain(job) };
        TaskRef {
            registry,
            job,
            lineage,
            run_here,
            retain,
            release,
            state,
        }
    }

    pub(crate) fn clone_ref(&self) -> TaskRef {
        // SAFETY: our own reference keeps the job live.
        unsafe {
            TaskRef::new(
                self.registry,
                self.job,
                self.lineage,
                self.run_here,
                self.retain,
                self.release,
                self.state,
            )
        }
    }

    /// Y5: its place in the order tasks were made.
    pub(crate) fn lineage(&self) -> Lineage {
        self.lineage
    }

    /// The task's job, as an identity.
    pub(crate) fn job(&self) -> *const () {
        self.job
    }

    /// Whether the task runs on the pool of `registry`.
    pub(crate) fn is_of(&self, registry: &Registry) -> bool {
        std::ptr::eq(self.registry, registry)
    }

    /// The task's pool.
    pub(crate) fn registry(&self) -> *const Registry {
        self.registry
    }

    /// H8, Z2: what the task is at now.
    pub(crate) fn state(&self) -> TaskState {
        // SAFETY: our reference keeps the job; the function is its own.
        unsafe { (self.state)(self.job) }
    }

    /// Runs the task here if nobody claimed it yet and this stack's budget
    /// of tasks run in place is not spent (H4's, shared): `worker` is of
    /// its pool. Past the budget the task is left in its queue, so that
    /// waits handed work this way (a pipeline of handles across two pools
    /// whose stages nobody started) nest no deeper than H4's.
    /// `true` if it ran here.
    pub(crate) fn run_on(&self, worker: &WorkerThread) -> bool {
        match worker.wait_in_place() {
            // SAFETY: our reference keeps the job; the claim decides (H3).
            Some(_budget) => unsafe { (self.run_here)(self.job, worker) },
            None => false,
        }
    }

    /// Y1: a job that runs the task in place on the worker that takes it.
    fn into_job(self) -> JobRef {
        HeapJob::into_job_ref(move || {
            // SAFETY: posted jobs run on the pool's workers.
            let worker = unsafe { &*WorkerThread::current() };
            self.run_on(worker);
        })
    }

    /// Y1: posts a job that runs the task in place to a worker of its pool
    /// that waits for work the current thread runs, if there is one.
    pub(crate) fn post_to_waiter(&self) {
        // SAFETY: our reference keeps the task, which holds its pool.
        let registry = unsafe { &*self.registry };
        // Y6: only to a waiter whose stack holds no task this one may
        // wait for (Y5's rule, as for a lender).
        let may_run = |frames: &[u64]| self.lineage.may_run_above(frames);
        if waiter_in(registry, may_run).is_none() {
            return;
        }
        if let Err(job) = post_to_waiter(registry, self.clone_ref().into_job(), may_run) {
            // The waiter left meanwhile: the task is queued anyway; this
            // job only tries its claim.
            registry.push(job);
        }
    }
}

impl Drop for TaskRef {
    fn drop(&mut self) {
        // SAFETY: the reference `new` took, dropped once.
        unsafe { (self.release)(self.job) }
    }
}

/// Y3: what a waiting worker needs run: a task of another pool. One per
/// slot in the registry; read by threads of any pool.
/// With the task, the runner id (H3's claim word) of the thread that needs
/// it, so that a claim word leads to its need without reading anything of
/// the runner's `WorkerThread`.
pub(crate) struct NeedCell(Mutex<Option<(usize, TaskRef)>>);

impl Default for NeedCell {
    fn default() -> Self {
        NeedCell(Mutex::new(None))
    }
}

impl NeedCell {
    fn lock(&self) -> MutexGuard<'_, Option<(usize, TaskRef)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Y3: `worker` waits for `task` (of another pool) until the guard drops:
/// a thread that starts to wait for work `worker` runs reads it there.
/// Then, Y1: posted to a waiter of the task's pool found from here; Y4:
/// and to a worker of that pool lending itself to this one.
pub(crate) fn needing(worker: &WorkerThread, task: TaskRef) -> NeedGuard<'_> {
    let previous = publish(worker, Some(task));
    NeedGuard { worker, previous }
}

/// Y3, Y4: makes `need` the need of `worker`'s slot, then hands it to a
/// waiter found up the chain (Y1) and to a lender (Y4); returns the need
/// it replaced.
fn publish(worker: &WorkerThread, need: Option<TaskRef>) -> Option<TaskRef> {
    let posted = need.as_ref().map(TaskRef::clone_ref);
    let registry = worker.registry();
    // Y3: the need first, then the search (under each waiter's packet
    // lock): a waiter that registers after the search reads the need.
    let need = need.map(|task| (worker.runner_id(), task));
    let previous = std::mem::replace(&mut *registry.needs[worker.index()].lock(), need);
    let previous = previous.map(|(_, task)| task);
    let Some(posted) = posted else {
        return previous;
    };
    posted.post_to_waiter();
    // Y4: the need first, then the lenders (under their lock): a lender
    // that registers after this look reads the need. The post is made
    // under that lock too, so a lender gets it only while it waits.
    let lenders = registry.lenders.lock().unwrap_or_else(|e| e.into_inner());
    // Y5: only a lender whose every task beneath its wait was made after
    // the task, which therefore waits for none of them.
    if let Some(lender) = lenders.iter().find(|lender| {
        ptr::eq(lender.registry, posted.registry) && posted.lineage.may_run_above(&lender.frames)
    }) {
        // SAFETY: our reference keeps the task, which holds its pool.
        let target = unsafe { &*posted.registry };
        if let Some(job) = target.post(lender.index, posted.clone_ref().into_job()) {
            target.push(job);
        }
    }
    drop(lenders);
    previous
}

/// Puts back the need a wait replaced when the wait ends, on every way
/// out: a wait nested in another (a task run on top of a cross-pool wait
/// that waits across pools itself) leaves the outer wait's need as it
/// was, published again for the waiters that registered meanwhile.
pub(crate) struct NeedGuard<'a> {
    worker: &'a WorkerThread,
    previous: Option<TaskRef>,
}

impl Drop for NeedGuard<'_> {
    fn drop(&mut self) {
        let ended = publish(self.worker, self.previous.take());
        drop(ended);
    }
}

/// Y3: the need of the thread of `registry`'s pool whose runner word is
/// `runner` (read under a task's packet lock, with its result pending, so
/// that thread is inside the task), a new reference to it. Found by
/// comparing runner ids under each slot's need lock: nothing of the
/// runner's own is read.
pub(crate) fn need_of(registry: &Registry, runner: usize) -> Option<TaskRef> {
    registry.needs[..registry.slots_in_use()].iter().find_map(|need| {
        need.lock()
            .as_ref()
            .filter(|(needer, _)| *needer == runner)
            .map(|(_, task)| task.clone_ref())
    })
}

/// Y3: after `worker` registered as the waiter of a task whose runner
/// needs `task`: runs it here if it is of `worker`'s pool and (Y6) may
/// run above this stack, or takes it as `worker`'s own need (posting it
/// on) if it is of another pool.
pub(crate) fn help_with(worker: &WorkerThread, task: TaskRef) -> Option<NeedGuard<'_>> {
    if ptr::eq(task.registry, worker.registry()) {
        // Y6: as a post to a waiter, a task run on top of this wait must
        // not wait for a task beneath it; one refused stays where it is,
        // for a thread of its pool, a spare or a lender (or the stall
        // report). `--cfg stealpool_bug="posts_unfiltered"` runs it.
        if bug!("posts_unfiltered") || task.lineage.may_run_above(&worker.frames()) {
            task.run_on(worker);
        }
        None
    } else {
        Some(needing(worker, task))
    }
}

/// Y4: a worker of another pool waiting for work of this one with no
/// spare standing in for it.
pub(crate) struct Lender {
    registry: *const Registry,
    index: usize,
    /// Y5: the numbers of the tasks with a handle on the lender's stack,
    /// beneath its wait: it runs only a task that waits for none of them.
    frames: Vec<u64>,
}

// SAFETY: the registry is only read while the lender is listed, and it
// waits, alive, until it takes itself off the list.
unsafe impl Send for Lender {}

/// Y4: `worker`, with no spare standing in, waits for work of the pool of
/// `awaited`, which may need tasks of `worker`'s pool that no thread of
/// it is free to run. Until the guard drops, the needs of `awaited`'s
/// threads for tasks of `worker`'s pool are posted to `worker`; those
/// already there run here now.
pub(crate) fn lend<'a>(worker: &'a WorkerThread, awaited: &'a Registry) -> LendGuard<'a> {
    let own: *const Registry = worker.registry();
    let frames = worker.frames();
    awaited
        .lenders
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Lender {
            registry: own,
            index: worker.index(),
            frames: frames.clone(),
        });
    // Y4: listed first, then the look at the needs (each under its lock);
    // Y5: only those made before every task beneath this wait.
    let needed: Vec<TaskRef> = awaited
        .needs
        .iter()
        .filter_map(|need| {
            need.lock()
                .as_ref()
                .filter(|(_, task)| ptr::eq(task.registry, own) && task.lineage.may_run_above(&frames))
                .map(|(_, task)| task.clone_ref())
        })
        .collect();
    for task in needed {
        task.run_on(worker);
    }
    LendGuard { worker, awaited }
}

/// How many of the tasks a task was made inside of its lineage names
/// (Y5): past them, a task counts as made outside every task.
const ANCESTORS: usize = 4;

/// No task: an unused place among a lineage's ancestors.
const NO_TASK: u64 = u64::MAX;

/// Y5: where a task with a handle stands in the order tasks are made
/// (`StallDomain::next_seq`), and the tasks with a handle it was made
/// inside of (their bodies, or their descendants', made it), innermost
/// first, as far as `ANCESTORS` of them.
#[derive(Clone, Copy)]
pub(crate) struct Lineage {
    seq: u64,
    ancestors: [u64; ANCESTORS],
}

impl Lineage {
    /// The lineage of a task numbered `seq`, made inside the task of
    /// `parent` (if it is made inside one: the innermost task with a
    /// handle that the making thread runs, `WorkerThread::parent`).
    pub(crate) fn new(seq: u64, parent: Option<Lineage>) -> Lineage {
        let mut ancestors = [NO_TASK; ANCESTORS];
        if let Some(parent) = parent {
            ancestors[0] = parent.seq;
            ancestors[1..].copy_from_slice(&parent.ancestors[..ANCESTORS - 1]);
        }
        Lineage { seq, ancestors }
    }

    /// The task's number.
    pub(crate) fn seq(&self) -> u64 {
        self.seq
    }

    /// Y5: whether this task may run on top of a wait with the tasks
    /// numbered `frames` on the stack beneath it, so that it cannot wait
    /// for any of them: each was made after it, or is among the tasks it
    /// was made inside of. A task's closure holds only handles that
    /// existed when it was made, of tasks made before it, and a task made
    /// inside `f` was made by `f`'s body or a descendant, which hold only
    /// handles older than `f` or of `f`'s own descendants, never `f`'s.
    /// `--cfg stealpool_bug="lend_any"` lends every task (Y4 before Y5).
    pub(crate) fn may_run_above(&self, frames: &[u64]) -> bool {
        bug!("lend_any")
            || frames
                .iter()
                .all(|&frame| self.seq < frame || self.ancestors.contains(&frame))
    }
}

/// Takes a lender off its list when its wait ends, on every way out.
pub(crate) struct LendGuard<'a> {
    worker: &'a WorkerThread,
    awaited: &'a Registry,
}

impl Drop for LendGuard<'_> {
    fn drop(&mut self) {
        let own: *const Registry = self.worker.registry();
        let mut lenders = self.awaited.lenders.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = lenders
            .iter()
            .position(|lender| ptr::eq(lender.registry, own) && lender.index == self.worker.index())
        {
            lenders.swap_remove(at);
        }
    }
}
