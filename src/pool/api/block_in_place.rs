//! `block_in_place`: the public entry to compensation (the spare threads
//! of `pool/kernel/spares.rs`).

use crate::pool::kernel::spares::Blocked;
use crate::pool::kernel::worker::WorkerThread;

/// Runs `f`, which may block (on I/O, a lock, a channel), without taking
/// a worker's share of the pool's compute with it.
///
/// On a worker thread of a pool, a spare thread first takes up the pool's
/// other work for as long as `f` runs, so the pool keeps as many threads
/// running tasks as it has workers; when `f` returns, the spare gives its
/// place back at its next job boundary. Spares are started on demand, at
/// most [`Builder::max_blocking_threads`](crate::Builder::max_blocking_threads)
/// at once; with that many already standing in, `f` just blocks its worker
/// (never a panic, never a deadlock that plain blocking would not have).
/// A spare with nothing to stand in for waits for the next blocking call,
/// and exits after 10 seconds without one.
///
/// Outside every pool, and inside a `block_in_place` already, it just
/// calls `f`. `join`, `scope` and handles work inside `f` as anywhere on
/// a worker.
///
/// The pool's own waits on a worker (`JoinHandle::join` of a task
/// running elsewhere, and waits on another pool) use the same stand-ins.
///
/// ```
/// use std::sync::mpsc;
/// use std::time::Duration;
///
/// let pool = stealpool::ThreadPool::new(1);
/// let (sender, receiver) = mpsc::channel();
/// // The only worker blocks until the other task sends: without
/// // `block_in_place`, that task could never run.
/// let waiter = pool.submit(move || {
///     stealpool::block_in_place(|| receiver.recv_timeout(Duration::from_secs(60)))
/// });
/// pool.spawn(move || sender.send(42).unwrap());
/// assert_eq!(waiter.join().unwrap(), Ok(42));
/// assert!(pool.stats().spare_threads_started >= 1);
/// ```
pub fn block_in_place<R>(f: impl FnOnce() -> R) -> R {
    // SAFETY: the thread-local pointer is null or this thread's worker.
    let Some(worker) = (unsafe { WorkerThread::current().as_ref() }) else {
        return f();
    };
    // Without a stand-in (every spare slot taken), `f` just blocks.
    let _blocked = Blocked::enter(worker);
    f()
}
