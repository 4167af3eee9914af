//! Configuring and starting a pool.

use super::job::JobRef;
use super::priority::LevelDeques;
use super::registry::{PanicHandler, Registry};
use super::sleep::MAX_WORKERS;
use super::worker::WorkerThread;
use super::ThreadPool;
use crate::deque::Worker;
use crate::sync::{thread, Arc};
use std::any::Any;
use std::{error, fmt, io};

/// Each worker's deque starts with room for this many jobs and grows as
/// needed. Model checkers start small, so that growth is explored too.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
const DEQUE_CAPACITY: usize = 64;
#[cfg(any(feature = "loom", feature = "shuttle"))]
const DEQUE_CAPACITY: usize = 2;

/// Configures a [`ThreadPool`]; from [`ThreadPool::builder`].
///
/// ```
/// let pool = stealpool::ThreadPool::builder()
///     .num_threads(2)
///     .thread_name(|i| format!("compute-{i}"))
///     .stack_size(4 << 20)
///     .panic_handler(|_payload| eprintln!("a task panicked"))
///     .build()
///     .expect("threads could not be started");
/// assert_eq!(pool.num_workers(), 2);
/// ```
#[must_use]
#[derive(Default)]
pub struct Builder {
    num_threads: usize,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    panic_handler: Option<PanicHandler>,
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("num_threads", &self.num_threads)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

impl Builder {
    /// The number of worker threads; `0` (the default) means one per
    /// available core ([`std::thread::available_parallelism`]).
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.num_threads = num_threads;
        self
    }

    /// Names worker `i` `name(i)` (default: `stealpool-worker-i`).
    pub fn thread_name(mut self, name: impl FnMut(usize) -> String + 'static) -> Self {
        self.thread_name = Some(Box::new(name));
        self
    }

    /// The stack size of each worker thread, in bytes (default: the
    /// platform's default for spawned threads).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes);
        self
    }

    /// Called with the payload of every panic in a [`ThreadPool::spawn`]ed
    /// task, on the worker that ran it. The default prints the message on
    /// stderr. Either way the panic is counted in [`ThreadPool::stats`] and
    /// the worker goes on.
    pub fn panic_handler(mut self, handler: impl Fn(Box<dyn Any + Send>) + Send + Sync + 'static) -> Self {
        self.panic_handler = Some(Box::new(handler));
        self
    }

    /// Starts the worker threads.
    ///
    /// # Errors
    ///
    /// [`BuildError`] if more than 65 535 threads are asked for, if a name
    /// from [`thread_name`](Builder::thread_name) contains a NUL byte, or if
    /// a thread cannot be spawned. The threads already started are stopped
    /// and joined first, and so they are if `thread_name` panics.
    ///
    /// ```
    /// let error = stealpool::ThreadPool::builder()
    ///     .num_threads(2)
    ///     .thread_name(|i| format!("bad\0name-{i}"))
    ///     .build()
    ///     .unwrap_err();
    /// assert!(error.to_string().contains("NUL"));
    /// ```
    pub fn build(mut self) -> Result<ThreadPool, BuildError> {
        let num_threads = match self.num_threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        if num_threads > MAX_WORKERS {
            return Err(BuildError(ErrorKind::TooManyThreads(num_threads)));
        }
        // M1: before any worker starts, so every worker sees the result.
        crate::sync::register_barriers();
        // Each worker has two deques: the one thieves look in first, and the
        // owner-biased one holding its pending `join` halves (F1); and one
        // per level other than `Normal`, stolen from like the first (V2).
        let deques: Vec<(Worker<JobRef>, Worker<JobRef>, LevelDeques)> = (0..num_threads)
            .map(|_| {
                (
                    Worker::with_capacity(DEQUE_CAPACITY),
                    Worker::owner_biased_with_capacity(DEQUE_CAPACITY),
                    std::array::from_fn(|_| Worker::with_capacity(DEQUE_CAPACITY)),
                )
            })
            .collect();
        let stealers = deques.iter().map(|(local, ..)| local.stealer()).collect();
        let join_stealers = deques.iter().map(|(_, joins, _)| joins.stealer()).collect();
        let level_stealers =
            std::array::from_fn(|slot| deques.iter().map(|(.., levels)| levels[slot].stealer()).collect());
        let registry = Arc::new(Registry::new(
            stealers,
            join_stealers,
            level_stealers,
            self.panic_handler.take(),
        ));
        // Dropped on every way out but success, this pool stops and joins the
        // workers started so far, even when `thread_name` panics.
        let mut pool = ThreadPool {
            registry,
            threads: Vec::with_capacity(num_threads),
        };
        for (index, (local, joins, levels)) in deques.into_iter().enumerate() {
            let name = match &mut self.thread_name {
                Some(name) => name(index),
                None => format!("stealpool-worker-{index}"),
            };
            if name.contains('\0') {
                return Err(BuildError(ErrorKind::ThreadName { index, name }));
            }
            let mut builder = thread::Builder::new().name(name);
            if let Some(bytes) = self.stack_size {
                builder = builder.stack_size(bytes);
            }
            let worker_registry = pool.registry.clone();
            match builder.spawn(move || WorkerThread::run(index, local, joins, levels, worker_registry)) {
                Ok(handle) => pool.threads.push(handle),
                // The started workers find the registry terminating.
                // Workers that were never started leave their deques empty,
                // so `has_work` is unaffected.
                Err(error) => return Err(BuildError(ErrorKind::Spawn(error))),
            }
        }
        Ok(pool)
    }
}

/// Why [`Builder::build`] failed.
#[derive(Debug)]
pub struct BuildError(ErrorKind);

#[derive(Debug)]
enum ErrorKind {
    TooManyThreads(usize),
    ThreadName { index: usize, name: String },
    Spawn(io::Error),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            ErrorKind::TooManyThreads(n) => {
                write!(f, "a pool has at most {MAX_WORKERS} threads, {n} were asked for")
            }
            ErrorKind::ThreadName { index, name } => {
                write!(f, "the name of worker {index} contains a NUL byte: {name:?}")
            }
            ErrorKind::Spawn(error) => write!(f, "could not spawn a worker thread: {error}"),
        }
    }
}

impl error::Error for BuildError {
    fn source(&self) -> Option<&(dyn error::Error + 'static)> {
        match &self.0 {
            ErrorKind::TooManyThreads(_) | ErrorKind::ThreadName { .. } => None,
            ErrorKind::Spawn(error) => Some(error),
        }
    }
}
