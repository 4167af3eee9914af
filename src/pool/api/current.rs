//! What a task may ask of the pool it runs on, under rayon-core's names:
//! whether work waits in its own queue, to run a job in the meantime
//! (`yield_now`, `yield_local`), and the most threads a pool may have.

use crate::pool::kernel::sleep::MAX_WORKERS;
use crate::pool::kernel::worker::WorkerThread;

/// What [`yield_now`] or [`yield_local`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Yield {
    /// It ran a job of the pool, to its end.
    Executed,
    /// It found no job to run.
    Idle,
}

/// The current thread's worker, of any pool.
fn current_worker<'a>() -> Option<&'a WorkerThread> {
    // SAFETY: the thread-local pointer is null or the thread's own worker,
    // which lives for the whole thread body; the reference is used only on
    // this thread, within the caller's call.
    unsafe { WorkerThread::current().as_ref() }
}

/// Runs one job of the current thread's pool, if there is one, before it
/// returns: a task that waits for something outside the pool can keep
/// the pool's work going meanwhile. `None` outside every pool.
///
/// The job is found as an idle worker finds one (this thread's own queues,
/// the pool's injector, other workers' queues) and runs on this thread's
/// stack, above the caller. If that job waits for the caller's own task
/// (joins its handle, say), it waits for ever: yield only where no queued
/// job can depend on the caller.
///
/// ```
/// use stealpool::Yield;
///
/// assert_eq!(stealpool::yield_now(), None);
/// let pool = stealpool::ThreadPool::new(1);
/// let ran = pool.install(|| {
///     stealpool::spawn(|| {});
///     // The only worker runs the spawned task here.
///     stealpool::yield_now()
/// });
/// assert_eq!(ran, Some(Yield::Executed));
/// ```
pub fn yield_now() -> Option<Yield> {
    let worker = current_worker()?;
    Some(if worker.yield_to_pool() {
        Yield::Executed
    } else {
        Yield::Idle
    })
}

/// As [`yield_now`], but runs only a job of the current thread's own
/// queues (what it spawned or forked and nobody took yet); `None` outside
/// every pool.
///
/// ```
/// use stealpool::Yield;
///
/// let pool = stealpool::ThreadPool::new(1);
/// let (first, second) = pool.install(|| {
///     stealpool::spawn(|| {});
///     (stealpool::yield_local(), stealpool::yield_local())
/// });
/// assert_eq!((first, second), (Some(Yield::Executed), Some(Yield::Idle)));
/// ```
pub fn yield_local() -> Option<Yield> {
    let worker = current_worker()?;
    Some(if worker.yield_to_own_deques() {
        Yield::Executed
    } else {
        Yield::Idle
    })
}

/// Whether the current thread's own queues hold jobs that nobody has taken
/// yet: `Some(true)` or `Some(false)` on a thread of a pool, `None` outside
/// every pool. A look, not a promise: another thread may take them next.
///
/// ```
/// assert_eq!(stealpool::current_thread_has_pending_tasks(), None);
/// let pool = stealpool::ThreadPool::new(1);
/// let pending = pool.install(|| {
///     let before = stealpool::current_thread_has_pending_tasks();
///     stealpool::spawn(|| {});
///     (before, stealpool::current_thread_has_pending_tasks())
/// });
/// assert_eq!(pending, (Some(false), Some(true)));
/// ```
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    current_worker().map(WorkerThread::has_own_jobs)
}

/// The most workers a pool may have: [`Builder::num_threads`](crate::Builder::num_threads)
/// past it (with the spare threads) is a [`BuildError`](crate::BuildError).
///
/// ```
/// let most = stealpool::max_num_threads();
/// assert!(stealpool::ThreadPool::builder().num_threads(most + 1).build().is_err());
/// ```
pub fn max_num_threads() -> usize {
    MAX_WORKERS
}
