//! The global pool and the free functions that run on "the current pool":
//! the pool of the worker the caller runs on, or else the global pool.
//!
//! On real threads the global pool is a plain [`ThreadPool`] in a `static`,
//! built once per process on first use and never dropped: its workers live
//! until the process exits.
//!
//! Under a model checker (`loom` or `shuttle`) a `static` pool would
//! outlive the execution that built it, and its threads would belong to no
//! execution. There, each thread outside every pool that calls a free
//! function gets a pool of its own, in a thread-local of the checker's: it
//! is built on that thread's first call, lives for the rest of the
//! thread's body, and is dropped with the thread's other locals when the
//! body returns, which shuts it down and joins its workers before the
//! execution ends. In a model that calls the free functions only from its
//! main thread (the usual shape) that is one pool per execution.

use super::broadcast::{broadcast_on_worker, spawn_broadcast as spawn_broadcast_on};
use super::builder::{BuildError, Builder};
use super::spawn_handler::ThreadSpawn;
use super::thread_pool::extend_worker;
use crate::pool::api::thread_pool::ThreadPool;
use crate::pool::kernel::broadcast::BroadcastContext;
use crate::pool::kernel::join as fork;
use crate::pool::kernel::scope::Scope;
use crate::pool::kernel::scope::{scope_fifo_on_worker, scope_on_worker, ScopeFifo};
use crate::pool::kernel::worker::WorkerThread;
use crate::pool::queues::priority::Priority;
use std::ffi::OsString;

/// The environment variable that sizes the lazily built global pool.
const NUM_THREADS_VAR: &str = "STEALPOOL_NUM_THREADS";

/// Workers of the global pool when `STEALPOOL_NUM_THREADS` is unset, empty
/// or `0`:
/// one per available core on real threads (`0` asks the builder for that);
/// two under a model checker, the fewest that can run two tasks at once,
/// since every worker multiplies the schedules a checker explores.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
const DEFAULT_THREADS: usize = 0;
#[cfg(any(feature = "loom", feature = "shuttle"))]
const DEFAULT_THREADS: usize = 2;

/// The global pool with the defaults: sized by [`NUM_THREADS_VAR`].
fn build_default() -> ThreadPool {
    let threads = match threads_from_env(std::env::var_os(NUM_THREADS_VAR)) {
        Ok(0) => DEFAULT_THREADS,
        Ok(threads) => threads,
        Err(warning) => {
            eprintln!("stealpool: {warning}");
            DEFAULT_THREADS
        }
    };
    match Builder::default().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(error) => panic!("stealpool: the global pool could not be built: {error}"),
    }
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod storage {
    use super::{build_default, ThreadPool};
    use std::sync::OnceLock;

    /// The global pool, once built.
    static GLOBAL: OnceLock<ThreadPool> = OnceLock::new();

    /// Runs `f` on the global pool, built on first use.
    pub(super) fn with_global<R>(f: impl FnOnce(&ThreadPool) -> R) -> R {
        f(GLOBAL.get_or_init(build_default))
    }

    /// Whether the global pool exists already.
    pub(super) fn exists() -> bool {
        GLOBAL.get().is_some()
    }

    /// Makes `pool` the global pool; `Err` if another thread was first.
    pub(super) fn set(pool: ThreadPool) -> Result<(), ThreadPool> {
        GLOBAL.set(pool)
    }
}

// N1: one pool per thread outside every pool, per execution.
#[cfg(any(feature = "loom", feature = "shuttle"))]
mod storage {
    use super::{build_default, ThreadPool};
    use std::cell::OnceCell;

    crate::sync::thread_local! {
        /// This thread's "global" pool, dropped (shut down, its workers
        /// joined) with the thread's other locals when its body returns.
        static GLOBAL: OnceCell<ThreadPool> = OnceCell::new();
    }

    /// Runs `f` on this thread's pool, built on its first use.
    pub(super) fn with_global<R>(f: impl FnOnce(&ThreadPool) -> R) -> R {
        GLOBAL.with(|global| f(global.get_or_init(build_default)))
    }

    /// Whether this thread's pool exists already.
    pub(super) fn exists() -> bool {
        GLOBAL.with(|global| global.get().is_some())
    }

    /// Makes `pool` this thread's pool; `Err` if it has one.
    pub(super) fn set(pool: ThreadPool) -> Result<(), ThreadPool> {
        GLOBAL.with(|global| global.set(pool))
    }
}

use storage::with_global;

/// The number of workers `STEALPOOL_NUM_THREADS` asks for: `Ok(0)` (the
/// machine's parallelism) when it is unset, empty or `0`; `Err` with the
/// warning to print when it is not a whole number of at most 65 535.
fn threads_from_env(value: Option<OsString>) -> Result<usize, String> {
    let Some(value) = value else { return Ok(0) };
    let text = value.to_str().map(str::trim);
    match text.map(str::parse::<usize>) {
        Some(Ok(n)) if n <= crate::pool::kernel::sleep::MAX_WORKERS => Ok(n),
        _ if text == Some("") => Ok(0),
        _ => Err(format!(
            "ignoring {NUM_THREADS_VAR}={value:?}: not a whole number from 0 to {}; \
             the global pool has one worker per available core",
            crate::pool::kernel::sleep::MAX_WORKERS
        )),
    }
}

/// The current thread's worker, of any pool.
fn current_worker<'a>() -> Option<&'a WorkerThread> {
    // SAFETY: the thread-local pointer is null or the thread's own worker,
    // which lives for the whole thread body; the reference is used only on
    // this thread, within the caller's call.
    unsafe { WorkerThread::current().as_ref() }
}

impl<S: ThreadSpawn> Builder<S> {
    /// Builds the global pool, the one the free functions ([`join`](crate::join),
    /// [`scope`](crate::scope), [`spawn`](crate::spawn), ...) use outside
    /// every pool, with this configuration. Call it before anything uses
    /// the global pool; otherwise that first use builds it with the
    /// defaults (sized by `STEALPOOL_NUM_THREADS`, see [`join`](crate::join)).
    ///
    /// `STEALPOOL_NUM_THREADS` does not apply here: `num_threads(0)` (the
    /// default) means one worker per available core.
    ///
    /// # Errors
    ///
    /// [`BuildError`] if the global pool exists already (built by an
    /// earlier call or by a use of the free functions), or for any reason
    /// [`build`](Builder::build) fails. The global pool is then unchanged.
    ///
    /// ```
    /// stealpool::ThreadPool::builder()
    ///     .num_threads(2)
    ///     .thread_name(|i| format!("global-{i}"))
    ///     .build_global()
    ///     .expect("nothing used the global pool yet");
    /// assert_eq!(stealpool::current_num_threads(), 2);
    ///
    /// // Once only.
    /// let again = stealpool::ThreadPool::builder().build_global();
    /// assert!(again.unwrap_err().to_string().contains("already"));
    /// ```
    pub fn build_global(self) -> Result<(), BuildError> {
        if storage::exists() {
            return Err(BuildError::global_exists());
        }
        let pool = self.build()?;
        // Another thread may have built it meanwhile: ours then shuts down.
        storage::set(pool).map_err(|_| BuildError::global_exists())
    }
}

/// Runs `f` on the current pool: right here on a worker of any pool, else
/// on a worker of the global pool, blocking until it returns (as
/// [`ThreadPool::install`]). The parallel iterators enter their pool this
/// way once, so that every split below runs on workers.
pub(crate) fn in_worker<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match current_worker() {
        Some(_) => f(),
        None => with_global(|pool| pool.install(f)),
    }
}

/// Runs `a` and `b`, potentially in parallel, on the current pool, and
/// returns both results: [`ThreadPool::join`] on the pool of the worker
/// running the caller, or on the global pool when the caller is no pool's
/// worker.
///
/// Both closures may borrow from the caller's stack; a panic in either is
/// re-raised here once both have finished (see [`ThreadPool::join`]).
///
/// # The global pool
///
/// Built on first use, with one worker per available core, or as many as
/// the environment variable `STEALPOOL_NUM_THREADS` says. That variable is
/// read once, when the global pool is built: unset, empty or `0` means one
/// worker per core; a value that is not a whole number from 0 to 65 535
/// (`abc`, `-1`, `1e3`) is ignored, with a warning on stderr, as if it were
/// unset. [`Builder::build_global`] configures the global pool instead, if
/// called before its first use.
///
/// # Panics
///
/// If `a` or `b` panics; and if the global pool must be built and its
/// threads cannot be started (use [`Builder::build_global`] to get that as
/// an error).
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     let (a, b) = stealpool::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(20), 6765);
///
/// // In a pool's task, on that pool's workers: no handle to pass around.
/// let pool = stealpool::ThreadPool::builder()
///     .num_threads(2)
///     .thread_name(|i| format!("mine-{i}"))
///     .build()
///     .unwrap();
/// let (a, b) = pool.install(|| {
///     stealpool::join(
///         || std::thread::current().name().map(str::to_owned),
///         || std::thread::current().name().map(str::to_owned),
///     )
/// });
/// assert!(a.unwrap().starts_with("mine-") && b.unwrap().starts_with("mine-"));
/// ```
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    match current_worker() {
        // As `ThreadPool::join` on the worker's own pool.
        Some(worker) => match worker.registry().current_publishing_worker() {
            Some(worker) => fork::join_on_worker(worker, a, b),
            None => fork::join_on_worker_limited(worker, a, b),
        },
        None => with_global(|pool| pool.join(a, b)),
    }
}

/// Creates a [`Scope`] on the current pool (the worker's, or the global
/// pool as for [`join`]): its tasks may borrow from the caller's stack, and
/// `scope` returns once `op` and all of them have finished.
///
/// # Panics
///
/// If `op` or a task of the scope panics, once all have finished; and as
/// [`join`] when the global pool cannot be built.
///
/// ```
/// let mut sums = [0u64; 4];
/// stealpool::scope(|s| {
///     for (i, sum) in sums.iter_mut().enumerate() {
///         s.spawn(move |_| *sum = (0..=i as u64).sum());
///     }
/// });
/// assert_eq!(sums, [0, 1, 3, 6]);
/// ```
pub fn scope<'s, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'s>) -> R + Send,
    R: Send,
{
    match current_worker() {
        // The scope waits for all its tasks before returning, so `'s`
        // borrows outlive them (C2).
        Some(worker) => scope_on_worker(extend_worker(worker), op),
        None => with_global(|pool| pool.scope(op)),
    }
}

/// Runs `f` on the current pool (the worker's, or the global pool as for
/// [`join`]) without waiting for it: [`ThreadPool::spawn`].
///
/// From a worker, `f` goes on that worker's own deque; a panic in `f` goes
/// to its pool's panic handler.
///
/// ```
/// use std::sync::mpsc;
///
/// let (tx, rx) = mpsc::channel();
/// for i in 0..4u64 {
///     let tx = tx.clone();
///     stealpool::spawn(move || {
///         // The free `join` in a spawned task runs on the same pool.
///         let (a, b) = stealpool::join(|| i * 10, || i);
///         tx.send(a + b).unwrap();
///     });
/// }
/// drop(tx);
/// let mut results: Vec<u64> = rx.iter().collect();
/// results.sort_unstable();
/// assert_eq!(results, [0, 11, 22, 33]);
/// ```
pub fn spawn<F: FnOnce() + Send + 'static>(f: F) {
    match current_worker() {
        Some(worker) => worker.registry().spawn_task(Priority::Normal, f),
        None => with_global(|pool| pool.spawn(f)),
    }
}

/// Runs `f` on the current pool (the worker's, or the global pool as for
/// [`join`]) without waiting for it, in FIFO order:
/// [`ThreadPool::spawn_fifo`]. From a worker, the tasks it spawns this way
/// start oldest first among themselves.
///
/// ```
/// use std::sync::mpsc;
///
/// let (tx, rx) = mpsc::channel();
/// for i in 0..4u64 {
///     let tx = tx.clone();
///     stealpool::spawn_fifo(move || tx.send(i * i).unwrap());
/// }
/// drop(tx);
/// let mut squares: Vec<u64> = rx.iter().collect();
/// squares.sort_unstable();
/// assert_eq!(squares, [0, 1, 4, 9]);
/// ```
pub fn spawn_fifo<F: FnOnce() + Send + 'static>(f: F) {
    match current_worker() {
        Some(worker) => worker.registry().spawn_fifo_task(f),
        None => with_global(|pool| pool.spawn_fifo(f)),
    }
}

/// Creates a [`ScopeFifo`] on the current pool (the worker's, or the
/// global pool as for [`join`]): [`ThreadPool::scope_fifo`].
///
/// # Panics
///
/// If `op` or a task of the scope panics, once all have finished; and as
/// [`join`] when the global pool cannot be built.
///
/// ```
/// let mut sums = [0u64; 3];
/// stealpool::scope_fifo(|s| {
///     for (i, sum) in sums.iter_mut().enumerate() {
///         s.spawn_fifo(move |_| *sum = i as u64 * 10);
///     }
/// });
/// assert_eq!(sums, [0, 10, 20]);
/// ```
pub fn scope_fifo<'s, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'s>) -> R + Send,
    R: Send,
{
    match current_worker() {
        // The scope waits for all its tasks before returning (C2).
        Some(worker) => scope_fifo_on_worker(extend_worker(worker), op),
        None => with_global(|pool| pool.scope_fifo(op)),
    }
}

/// [`scope`] with `op` run right where it is called (rayon-core's
/// `in_place_scope`): on a worker of any pool, a scope of that pool;
/// elsewhere, a scope of the global pool (as for [`join`]) whose tasks go
/// on its injector while the caller runs `op`, then blocks until they have
/// finished ([`ThreadPool::in_place_scope`]). Neither `op` nor its result
/// need be `Send`.
///
/// ```
/// use std::cell::Cell;
///
/// let seen = Cell::new(0); // not `Sync`: only `op` touches it
/// let mut total = 0u64;
/// stealpool::in_place_scope(|s| {
///     s.spawn(|_| total = (1..=10).sum());
///     seen.set(1);
/// });
/// assert_eq!((seen.get(), total), (1, 55));
/// ```
pub fn in_place_scope<'s, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'s>) -> R,
{
    match current_worker() {
        // The scope waits for all its tasks before returning (C2).
        Some(worker) => scope_on_worker(extend_worker(worker), op),
        None => with_global(|pool| pool.in_place_scope(op)),
    }
}

/// [`scope_fifo`] with `op` run right where it is called, as
/// [`in_place_scope`] does.
///
/// ```
/// use std::sync::Mutex;
///
/// let order = Mutex::new(Vec::new());
/// stealpool::in_place_scope_fifo(|s| {
///     s.spawn_fifo(|_| order.lock().unwrap().push('a'));
/// });
/// assert_eq!(order.into_inner().unwrap(), ['a']);
/// ```
pub fn in_place_scope_fifo<'s, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'s>) -> R,
{
    match current_worker() {
        // The scope waits for all its tasks before returning (C2).
        Some(worker) => scope_fifo_on_worker(extend_worker(worker), op),
        None => with_global(|pool| pool.in_place_scope_fifo(op)),
    }
}

/// Runs `op` once on every worker of the current pool (the pool of the
/// worker running the caller, otherwise the global pool) and returns the
/// results in worker order; see [`ThreadPool::broadcast`].
///
/// ```
/// let pool = stealpool::ThreadPool::new(2);
/// let indices = pool.install(|| stealpool::broadcast(|context| context.index()));
/// assert_eq!(indices, [0, 1]);
/// ```
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    match current_worker() {
        Some(worker) => broadcast_on_worker(worker, &op),
        None => with_global(|pool| pool.broadcast(op)),
    }
}

/// Queues `op` to run once on every worker of the current pool (the pool
/// of the worker running the caller, otherwise the global pool) and
/// returns at once; see [`ThreadPool::spawn_broadcast`].
///
/// ```
/// let (sender, receiver) = std::sync::mpsc::channel();
/// let sender = std::sync::Mutex::new(sender);
/// stealpool::spawn_broadcast(move |context| sender.lock().unwrap().send(context.index()).unwrap());
/// let mut seen: Vec<usize> = receiver.iter().take(stealpool::current_num_threads()).collect();
/// seen.sort();
/// assert_eq!(seen, (0..stealpool::current_num_threads()).collect::<Vec<_>>());
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    match current_worker() {
        Some(worker) => spawn_broadcast_on(worker.registry(), op),
        None => with_global(|pool| pool.spawn_broadcast(op)),
    }
}

/// The number of workers of the current pool: the pool of the worker
/// running the caller, otherwise the global pool (which this builds if it
/// does not exist yet; see [`join`]).
///
/// ```
/// let pool = stealpool::ThreadPool::new(3);
/// assert_eq!(pool.install(stealpool::current_num_threads), 3);
/// assert!(stealpool::current_num_threads() >= 1);
/// ```
pub fn current_num_threads() -> usize {
    match current_worker() {
        Some(worker) => worker.registry().num_workers(),
        None => with_global(|pool| pool.num_workers()),
    }
}

/// What [`join_context`] tells each closure about where it runs.
#[derive(Clone, Copy, Debug)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    /// Whether the closure runs on another thread than the one that
    /// called [`join_context`]: stolen by another worker, or handed to the
    /// global pool's workers from a thread outside every pool.
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// [`join`], with each closure told whether it migrated to another
/// thread than the caller's (rayon's `join_context`): code that splits
/// further only when stolen, say.
///
/// ```
/// let pool = stealpool::ThreadPool::new(2);
/// let (a, _) = pool.install(|| stealpool::join_context(|ctx| ctx.migrated(), |ctx| ctx.migrated()));
/// // The first closure always runs on the calling worker.
/// assert!(!a);
/// // Outside every pool both run on the global pool's workers.
/// let (a, b) = stealpool::join_context(|ctx| ctx.migrated(), |ctx| ctx.migrated());
/// assert!(a && b);
/// ```
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let caller = crate::sync::thread::current().id();
    let context = move || FnContext {
        migrated: crate::sync::thread::current().id() != caller,
    };
    join(move || a(context()), move || b(context()))
}
