//! Starting a pool's workers on threads the caller makes: the
//! [`ThreadBuilder`] handed to a spawn handler
//! ([`Builder::spawn_handler`](crate::Builder::spawn_handler)), and the
//! count the pool's drop waits on in place of join handles.

use crate::pool::kernel::registry::Registry;
use crate::pool::kernel::worker::{Deques, WorkerThread};
use crate::sync::{thread, Arc, Condvar, Mutex};
use std::{fmt, io};

/// One worker of a pool being built, handed to the
/// [`spawn_handler`](crate::Builder::spawn_handler) to start on a thread of
/// the caller's making (rayon-core's `ThreadBuilder`).
///
/// The handler starts a thread, and that thread calls [`run`](ThreadBuilder::run),
/// which runs the worker until the pool shuts down. Dropping a
/// `ThreadBuilder` without running it leaves that worker out: the pool
/// runs on the others (with none, nothing it is given ever runs).
///
/// ```
/// use std::sync::Mutex;
///
/// let handles = Mutex::new(Vec::new());
/// let pool = stealpool::ThreadPool::builder()
///     .num_threads(2)
///     .thread_name(|i| format!("mine-{i}"))
///     .spawn_handler(|thread| {
///         assert!(thread.index() < 2);
///         let mut builder = std::thread::Builder::new();
///         if let Some(name) = thread.name() {
///             builder = builder.name(name.to_owned());
///         }
///         if let Some(bytes) = thread.stack_size() {
///             builder = builder.stack_size(bytes);
///         }
///         handles.lock().unwrap().push(builder.spawn(move || thread.run())?);
///         Ok(())
///     })
///     .build()
///     .unwrap();
/// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
/// assert!(name.unwrap().starts_with("mine-"));
/// drop(pool); // every worker's `run` has returned
/// for handle in handles.into_inner().unwrap() {
///     handle.join().unwrap();
/// }
/// ```
pub struct ThreadBuilder {
    index: usize,
    name: String,
    stack_size: Option<usize>,
    /// The worker's deques and its pool, `None` once `run` took them.
    worker: Option<(Deques, Arc<Registry>)>,
    /// With a spawn handler: counted down when this is dropped, after
    /// `run` or instead of it. The pool's own threads are joined instead.
    exits: Option<Arc<WorkerExits>>,
}

impl ThreadBuilder {
    pub(in crate::pool) fn new(
        index: usize,
        name: String,
        stack_size: Option<usize>,
        deques: Deques,
        registry: Arc<Registry>,
        exits: Option<Arc<WorkerExits>>,
    ) -> ThreadBuilder {
        if let Some(exits) = &exits {
            exits.add();
        }
        ThreadBuilder {
            index,
            name,
            stack_size,
            worker: Some((deques, registry)),
            exits,
        }
    }

    /// This worker's index, in `0..num_threads`: what
    /// [`current_thread_index`](crate::current_thread_index) answers on it.
    ///
    /// ```
    /// let mut indices = Vec::new();
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(3)
    ///     .spawn_handler(|thread| {
    ///         indices.push(thread.index());
    ///         std::thread::spawn(move || thread.run());
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(pool);
    /// assert_eq!(indices, [0, 1, 2]);
    /// ```
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name this worker's thread should take: the builder's
    /// [`thread_name`](crate::Builder::thread_name) for its index, or
    /// `stealpool-worker-INDEX` without one (the name the pool's own
    /// threads get). Always `Some` (rayon's is `None` without a
    /// `thread_name`); the pool names no thread itself: the handler does,
    /// or not.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(1)
    ///     .spawn_handler(|thread| {
    ///         assert_eq!(thread.name(), Some("stealpool-worker-0"));
    ///         std::thread::spawn(move || thread.run());
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// // The handler above started an unnamed thread.
    /// assert_eq!(pool.install(|| std::thread::current().name().map(str::to_owned)), None);
    /// ```
    pub fn name(&self) -> Option<&str> {
        Some(&self.name)
    }

    /// The builder's [`stack_size`](crate::Builder::stack_size), if set:
    /// the handler applies it, or not.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(1)
    ///     .stack_size(8 << 20)
    ///     .spawn_handler(|thread| {
    ///         assert_eq!(thread.stack_size(), Some(8 << 20));
    ///         let bytes = thread.stack_size().unwrap();
    ///         std::thread::Builder::new().stack_size(bytes).spawn(move || thread.run())?;
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| 1 + 1), 2);
    /// ```
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs the worker on the current thread: takes jobs until the pool
    /// shuts down and its queues are drained, then returns (rayon's
    /// `main_loop`). The start and exit handlers run at its start and end,
    /// and [`current_thread_index`](crate::current_thread_index) answers
    /// [`index`](ThreadBuilder::index) in between, `None` again after.
    ///
    /// # Panics
    ///
    /// On a thread that is already a worker or spare of a pool (inside
    /// another `run`, or a task): a thread runs one worker at a time.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(1)
    ///     .spawn_handler(|thread| {
    ///         std::thread::spawn(move || {
    ///             thread.run();
    ///             // Returns once the pool is dropped.
    ///             assert_eq!(stealpool::current_thread_index(), None);
    ///         });
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(stealpool::current_thread_index), Some(0));
    /// ```
    pub fn run(mut self) {
        assert!(
            WorkerThread::current().is_null(),
            "stealpool: ThreadBuilder::run on a thread that is already a pool's worker"
        );
        let (deques, registry) = self.worker.take().expect("a ThreadBuilder runs once");
        WorkerThread::run(self.index, deques, registry);
        // `self` drops here: the pool's drop may return.
    }
}

impl Drop for ThreadBuilder {
    fn drop(&mut self) {
        // After `run`, or in its place: the worker takes no more jobs.
        if let Some(exits) = &self.exits {
            exits.done();
        }
    }
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.index)
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

/// How many of a pool's workers started by a spawn handler have not
/// finished yet (their `ThreadBuilder` not dropped): the pool's drop waits
/// for none, in place of joining threads it has no handles of. A plain
/// count under a lock with a condition variable, no step of any protocol
/// of `proofs/`: a worker counts down after its last job, and the drop
/// waits only after `terminate`.
pub(in crate::pool) struct WorkerExits {
    running: Mutex<usize>,
    none_running: Condvar,
}

impl WorkerExits {
    pub(in crate::pool) fn new() -> WorkerExits {
        WorkerExits {
            running: Mutex::new(0),
            none_running: Condvar::new(),
        }
    }

    fn add(&self) {
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) += 1;
    }

    fn done(&self) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        *running -= 1;
        if *running == 0 {
            self.none_running.notify_all();
        }
    }

    /// Waits until every worker counted has finished.
    pub(in crate::pool) fn wait(&self) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        while *running > 0 {
            running = self.none_running.wait(running).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// How a builder starts its workers: on threads of its own (`DefaultSpawn`)
/// or through the caller's spawn handler (`CustomSpawn`). The trait and
/// both types cannot be named outside the crate (rayon-core's are likewise
/// private), so only these two exist; it appears as `Builder<S>`'s bound.
pub trait ThreadSpawn {
    /// Whether the caller starts the threads: then no join handles, and no
    /// spare threads unless asked for.
    #[doc(hidden)]
    const CUSTOM: bool;

    /// Starts `thread`'s worker; the pool's own threads return their handle.
    #[doc(hidden)]
    fn start(&mut self, thread: ThreadBuilder) -> io::Result<Option<thread::JoinHandle<()>>>;
}

/// The builder's own way: a thread per worker, with the worker's name and
/// the builder's stack size, joined by the pool's drop.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultSpawn;

impl ThreadSpawn for DefaultSpawn {
    const CUSTOM: bool = false;

    fn start(&mut self, thread: ThreadBuilder) -> io::Result<Option<thread::JoinHandle<()>>> {
        let mut builder = thread::Builder::new().name(thread.name.clone());
        if let Some(bytes) = thread.stack_size {
            builder = builder.stack_size(bytes);
        }
        builder.spawn(move || thread.run()).map(Some)
    }
}

/// The caller's spawn handler, from [`Builder::spawn_handler`](crate::Builder::spawn_handler).
pub struct CustomSpawn<F>(pub(in crate::pool) F);

impl<F> fmt::Debug for CustomSpawn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CustomSpawn")
    }
}

impl<F: FnMut(ThreadBuilder) -> io::Result<()>> ThreadSpawn for CustomSpawn<F> {
    const CUSTOM: bool = true;

    fn start(&mut self, thread: ThreadBuilder) -> io::Result<Option<thread::JoinHandle<()>>> {
        (self.0)(thread).map(|()| None)
    }
}
