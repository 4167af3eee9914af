//! `ThreadPool`: the pool's handle, and every operation users call on it.

use super::broadcast;
use super::builder::Builder;
use super::current::Yield;
use super::handle;
use super::handle::JoinHandle;
use super::spawn_handler::WorkerExits;
use crate::pool::api::handle::continuation;
use crate::pool::kernel::broadcast::BroadcastContext;
use crate::pool::kernel::join;
use crate::pool::kernel::registry::Registry;
use crate::pool::kernel::scope;
use crate::pool::kernel::scope::{Scope, ScopeFifo};
use crate::pool::kernel::stats::Stats;
use crate::pool::kernel::worker::WorkerThread;
use crate::pool::queues::priority::Priority;
use crate::sync::{thread, Arc};
use std::fmt;

/// A work-stealing thread pool.
///
/// ```
/// use stealpool::ThreadPool;
///
/// let pool = ThreadPool::new(2);
/// // Fire and forget.
/// pool.spawn(|| println!("hello from a worker"));
/// // A result, through a handle.
/// let answer = pool.submit(|| 6 * 7);
/// // Fork-join, borrowing from the stack.
/// let data = vec![1u64; 1000];
/// let (left, right) = pool.join(|| data[..500].iter().sum::<u64>(), || data[500..].iter().sum::<u64>());
/// assert_eq!(left + right, 1000);
/// assert_eq!(answer.join().unwrap(), 42);
/// pool.wait_all();
/// ```
///
/// Dropping the pool (or [`shutdown`](ThreadPool::shutdown)) runs every task
/// already queued, and everything those tasks spawn, then joins the threads
/// (workers started by a [`spawn_handler`](Builder::spawn_handler): until
/// each one's `run` has returned); on a worker thread it does not wait for
/// that (see `shutdown`).
///
/// # Waiting on a worker
///
/// Waits compose: a program built from the pool's own waits finishes on
/// any number of workers unless its waits form a cycle (T waits for U and
/// U for T), which no scheduler could finish.
///
/// * [`join`](ThreadPool::join) and [`scope`](ThreadPool::scope) wait only
///   for work they started. Meanwhile a `join` runs only work forked
///   beneath the half it waits for, and a `scope` only its own tasks;
///   never an unrelated task, which could wait (through handles) for the
///   very task that waits beneath it. With nothing of theirs to run, they
///   park while a spare thread stands in.
/// * [`JoinHandle::join`] on a worker of the task's pool runs the task
///   right there if nobody has started it yet, as a call would; otherwise
///   the worker parks while a spare thread stands in for it, so the pool
///   keeps its strength. It never runs unrelated tasks on top of its wait,
///   so tasks may join each other's handles in any order, and a pipeline
///   of handles thousands of stages long nests no waits on one stack.
///   Tasks that are [`submit`](ThreadPool::submit)ted start oldest first,
///   even when submitted by a task.
/// * A wait on another pool (`install`, `join`, `scope`, a handle or
///   `wait_all` of pool B called on a worker of pool A) parks A's worker
///   with a spare of A standing in, so pools may call into each other in
///   any direction:
///
/// ```
/// use std::sync::Arc;
/// use stealpool::ThreadPool;
///
/// let a = Arc::new(ThreadPool::new(1));
/// let b = Arc::new(ThreadPool::new(1));
/// let (inner_a, inner_b) = (a.clone(), b.clone());
/// // a's only worker waits on b, whose task needs a's worker again.
/// let value = a
///     .submit(move || {
///         inner_b
///             .submit(move || inner_a.submit(|| 5).join().unwrap())
///             .join()
///             .unwrap()
///     })
///     .join()
///     .unwrap();
/// assert_eq!(value, 5);
/// ```
///
/// Spares are limited by [`Builder::max_blocking_threads`] (four per
/// worker and at least 64 by default). Past that limit a handle's wait
/// blocks its worker without a stand-in, as a worker of a fixed-size pool
/// would, and the pool runs with one thread fewer until it returns. A
/// wait on another pool (`install`, `join`, `scope`, a handle) parks, and
/// runs there only what the awaited work needs of its own pool: a call
/// back into it (`install`, `join`, `scope`), a task of it that the
/// awaited work joins, or one a thread of the other pool joins while this
/// one waits for that pool, if it was made before every task beneath this
/// wait or inside one of them (so it cannot wait for them). So pools with
/// no spares may still call into each other, and a pipeline of handles
/// alternating between two pools finishes past every spare. A `JoinHandle::join` that finds its task running beneath
/// it on its own thread panics with a message rather than wait forever: a
/// cycle of the program's waits, or of waits and the pools' limits. So
/// does one that would park while its task can never finish: it runs
/// beneath, or is queued behind, handle joins that all wait on one
/// another, with every thread that could run it parked in one (a cycle
/// of handles across threads or pools, or more such waits at once than
/// the limit lets spares stand in for); the message names the pools, their
/// limits and what they wait on. Past the limit a program can still stop
/// unreported with every thread parked in a wait the pool cannot see
/// through (a `join` half, a scope, an `install` from another pool, a
/// continuation whose inputs are not there yet, `wait_all`): a pool whose
/// tasks wait on other pools should have spares.
///
/// What the pool cannot see, it cannot help with: a task that blocks on a
/// plain `Mutex`, a channel or I/O blocks its worker, and if what it waits
/// for needs that worker, it deadlocks. Wrap such waits in
/// [`block_in_place`](crate::block_in_place), or attach the rest of the
/// work with [`JoinHandle::then`], which waits on no thread.
pub struct ThreadPool {
    pub(in crate::pool) registry: Arc<Registry>,
    pub(in crate::pool) threads: Vec<thread::JoinHandle<()>>,
    /// With a spawn handler: the workers still running, for the drop to
    /// wait on (it has no handles of their threads).
    pub(in crate::pool) exits: Option<Arc<WorkerExits>>,
}

impl ThreadPool {
    /// Starts a pool of `num_threads` workers (`0`: one per available core).
    ///
    /// # Panics
    ///
    /// If the threads cannot be started; use [`ThreadPool::builder`] to get
    /// that as an error instead.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(3);
    /// assert_eq!(pool.num_workers(), 3);
    /// ```
    pub fn new(num_threads: usize) -> ThreadPool {
        match Self::builder().num_threads(num_threads).build() {
            Ok(pool) => pool,
            Err(error) => panic!("stealpool: {error}"),
        }
    }

    /// A [`Builder`] to configure threads, names, stack size and the panic
    /// handler.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::builder().num_threads(2).build().unwrap();
    /// assert_eq!(pool.num_workers(), 2);
    /// ```
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// Runs `f` on the pool, without waiting for it.
    ///
    /// From one of the pool's workers, `f` goes on that worker's own deque
    /// (where other workers may steal it); from any other thread, on the
    /// pool's injector. A panic in `f` goes to the panic handler (see
    /// [`Builder::panic_handler`]); the worker survives it.
    ///
    /// `f` is `'static`, so it cannot borrow the pool; inside it, the free
    /// functions [`join`](crate::join), [`scope`](crate::scope) and
    /// [`spawn`](crate::spawn) run on this same pool, with no handle:
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let (sender, receiver) = std::sync::mpsc::channel();
    /// pool.spawn(move || {
    ///     let (a, b) = stealpool::join(|| 1 + 1, || 2 + 2);
    ///     sender.send(a + b).unwrap();
    /// });
    /// assert_eq!(receiver.recv().unwrap(), 6);
    /// ```
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let done = Arc::new(AtomicUsize::new(0));
    /// for _ in 0..100 {
    ///     let done = done.clone();
    ///     pool.spawn(move || {
    ///         done.fetch_add(1, Ordering::Relaxed);
    ///     });
    /// }
    /// pool.wait_all();
    /// assert_eq!(done.load(Ordering::Relaxed), 100);
    /// ```
    pub fn spawn<F: FnOnce() + Send + 'static>(&self, f: F) {
        self.registry.spawn_task(Priority::Normal, f);
    }

    /// Runs `f` on the pool and returns a handle to its result: block on it
    /// with [`JoinHandle::join`], or `.await` it.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let handles: Vec<_> = (0..4u64).map(|i| pool.submit(move || i * i)).collect();
    /// let squares: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    /// assert_eq!(squares, [0, 1, 4, 9]);
    /// ```
    #[track_caller]
    pub fn submit<R, F>(&self, f: F) -> JoinHandle<R>
    where
        R: Send + 'static,
        F: FnOnce() -> R + Send + 'static,
    {
        handle::submit(&self.registry, Priority::Normal, f)
    }

    /// Runs `op` once on every worker of the pool, each call with a
    /// [`BroadcastContext`] naming the worker, and returns the results in
    /// worker order. A panic of any call is re-raised here once all have
    /// ended.
    ///
    /// Each worker runs its call itself: when it next looks for work, or
    /// while it waits in a `join` or `scope` of its own (on top of that
    /// wait, as a job only it may run). A worker blocked outside the pool's
    /// waits (in [`block_in_place`](crate::block_in_place), a
    /// [`JoinHandle::join`], a lock or a channel) runs its call when it
    /// returns, so a broadcast that such a blocked worker waits for does
    /// not end. Called outside the pool, this waits as
    /// [`install`](ThreadPool::install) does.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(3);
    /// let names = pool.broadcast(|context| {
    ///     let name = std::thread::current().name().map(str::to_owned);
    ///     (context.index(), name.unwrap())
    /// });
    /// assert_eq!(names[2], (2, "stealpool-worker-2".to_owned()));
    /// ```
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        match self.registry.current_worker() {
            Some(worker) => broadcast::broadcast_on_worker(worker, &op),
            None => {
                let op = &op;
                self.install(move || {
                    let worker = self.registry.current_worker();
                    broadcast::broadcast_on_worker(
                        worker.expect("`install` runs on a worker of the pool"),
                        op,
                    )
                })
            }
        }
    }

    /// Queues `op` to run once on every worker of the pool, each call with a
    /// [`BroadcastContext`] naming the worker, and returns at once. Each
    /// call is a task: [`wait_all`](ThreadPool::wait_all) waits for it, and
    /// its panic goes to the panic handler. When each worker runs its call
    /// is as for [`broadcast`](ThreadPool::broadcast).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    /// use std::sync::Arc;
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let ran = Arc::new(AtomicUsize::new(0));
    /// let counter = ran.clone();
    /// pool.spawn_broadcast(move |_| {
    ///     counter.fetch_add(1, Relaxed);
    /// });
    /// pool.wait_all();
    /// assert_eq!(ran.load(Relaxed), 2);
    /// ```
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        broadcast::spawn_broadcast(&self.registry, op);
    }

    /// [`spawn`](ThreadPool::spawn) at the given [`Priority`].
    ///
    /// ```
    /// use stealpool::{Priority, ThreadPool};
    ///
    /// let pool = ThreadPool::new(2);
    /// pool.spawn_with_priority(Priority::Low, || println!("when nothing else is ready"));
    /// pool.wait_all();
    /// ```
    pub fn spawn_with_priority<F: FnOnce() + Send + 'static>(&self, priority: Priority, f: F) {
        self.registry.spawn_task(priority, f);
    }

    /// [`submit`](ThreadPool::submit) at the given [`Priority`].
    ///
    /// ```
    /// use stealpool::{Priority, ThreadPool};
    ///
    /// let pool = ThreadPool::new(2);
    /// let urgent = pool.submit_with_priority(Priority::Critical, || 1 + 1);
    /// assert_eq!(urgent.join().unwrap(), 2);
    /// ```
    #[track_caller]
    pub fn submit_with_priority<R, F>(&self, priority: Priority, f: F) -> JoinHandle<R>
    where
        R: Send + 'static,
        F: FnOnce() -> R + Send + 'static,
    {
        handle::submit(&self.registry, priority, f)
    }

    /// A handle to the results of every handle in `handles`, in their
    /// order, once all of them have finished; no thread waits for them.
    /// Chain it with [`JoinHandle::then`] to run a function of all the
    /// results on the pool.
    ///
    /// With no handles, the returned handle is finished at once. If any
    /// task panicked, the returned handle holds the panic of the first such
    /// handle (in `handles`' order) and the other results are dropped.
    /// Handles of other pools are welcome: their results are gathered
    /// where their tasks finish, and the vector is put together on this
    /// pool.
    ///
    /// # Panics
    ///
    /// If a handle was already polled (as a `Future`) to completion.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let parts: Vec<_> = (1..=4u64).map(|i| pool.submit(move || i * 10)).collect();
    /// let total = pool.when_all(parts).then(|values| values.iter().sum::<u64>());
    /// assert_eq!(total.join().unwrap(), 100);
    ///
    /// let nothing = pool.when_all(Vec::<stealpool::JoinHandle<u8>>::new());
    /// assert!(nothing.is_finished());
    /// ```
    #[track_caller]
    pub fn when_all<R: Send + 'static>(
        &self,
        handles: impl IntoIterator<Item = JoinHandle<R>>,
    ) -> JoinHandle<Vec<R>> {
        continuation::when_all(&self.registry, handles)
    }

    /// Runs `a` and `b`, potentially in parallel, and returns both results.
    ///
    /// Both closures may borrow from the caller's stack. On a worker, `join`
    /// allocates nothing. If another thread took `b`, the caller waits for
    /// it running only work forked beneath `b`, never an unrelated task
    /// that could wait for the caller's own, and otherwise sleeps while a
    /// spare thread keeps the pool at full strength. Both closures
    /// always run, whatever panics (as rayon's `join` promises): if `a`
    /// panics, `b` still runs (here, or on the worker that took it), and
    /// `a`'s panic is re-raised once nothing runs any more that borrows from
    /// the caller; if both panic, `a`'s panic is the one re-raised and
    /// `b`'s is dropped.
    ///
    /// `b` is published while `a` runs, so an idle worker can take it even
    /// if `a` blocks outside the pool waiting for it; on a pool built with
    /// [`Builder::max_pending_joins`], a `join` past that limit may instead
    /// run `a` and then `b` inline, as a plain call would.
    ///
    /// ```
    /// fn fib(pool: &stealpool::ThreadPool, n: u64) -> u64 {
    ///     if n < 2 {
    ///         return n;
    ///     }
    ///     let (a, b) = pool.join(|| fib(pool, n - 1), || fib(pool, n - 2));
    ///     a + b
    /// }
    /// let pool = stealpool::ThreadPool::new(2);
    /// assert_eq!(fib(&pool, 20), 6765);
    /// ```
    #[track_caller]
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        // A pool without `max_pending_joins`: one compare, as before F6.
        if let Some(worker) = self.registry.current_publishing_worker() {
            return join::join_on_worker(worker, a, b);
        }
        match self.registry.current_worker() {
            Some(worker) => join::join_on_worker_limited(worker, a, b),
            None => self.install(|| self.join(a, b)),
        }
    }

    /// Creates a [`Scope`] whose tasks may borrow from the caller's stack;
    /// returns once `op` and every task spawned in the scope have finished.
    ///
    /// On a worker, while tasks of the scope run on other threads, the
    /// caller runs only the scope's own tasks from its queue (never an
    /// unrelated task that could wait for the caller's own), and otherwise
    /// sleeps while a spare thread keeps the pool at full strength. So the
    /// order in which tasks start differs from rayon's where scopes nest:
    /// rayon's waiting inner scope runs an outer scope's task queued
    /// beneath it (rayon-core's `mixed_lifo_order` test counts on that, and
    /// its FIFO variants, `mixed_fifo_order` and the like, too);
    /// here that task waits for the inner scope to end, or for another
    /// thread (H6 in `proofs/waits.md`).
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let words = ["work", "stealing", "pool"];
    /// let mut lengths = vec![0; words.len()];
    /// pool.scope(|s| {
    ///     for (word, length) in words.iter().zip(lengths.iter_mut()) {
    ///         s.spawn(move |_| *length = word.len());
    ///     }
    /// });
    /// assert_eq!(lengths, [4, 8, 4]);
    /// ```
    #[track_caller]
    pub fn scope<'s, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'s>) -> R + Send,
        R: Send,
    {
        match self.registry.current_worker() {
            // SAFETY of the lifetime: `scope_on_worker` waits for all tasks
            // before returning, so `'s` borrows outlive them (C2).
            Some(worker) => scope::scope_on_worker(extend_worker(worker), op),
            None => self.install(|| self.scope(op)),
        }
    }

    /// Runs `f` on the pool without waiting for it, in FIFO order: from one
    /// of the pool's workers, the tasks it spawns this way start oldest
    /// first among themselves, where [`spawn`](ThreadPool::spawn)'s start
    /// newest first (rayon-core's `spawn_fifo`). Each waits behind a small
    /// marker on the worker's deque, so FIFO and plain spawns interleave as
    /// in rayon: whoever takes a marker runs the oldest FIFO task of the
    /// worker that pushed it (E1 in `proofs/fifo.md`). From any other
    /// thread, `f` goes on the pool's injector, as `spawn`'s does.
    ///
    /// A panic in `f` goes to the panic handler, as `spawn`'s.
    ///
    /// ```
    /// use std::sync::mpsc;
    ///
    /// let pool = stealpool::ThreadPool::new(1);
    /// let (tx, rx) = mpsc::channel();
    /// let inner = tx.clone();
    /// pool.spawn(move || {
    ///     // On the one worker: these start in the order spawned.
    ///     for i in 0..4 {
    ///         let tx = inner.clone();
    ///         stealpool::spawn_fifo(move || tx.send(i).unwrap());
    ///     }
    /// });
    /// drop(tx);
    /// pool.wait_all();
    /// assert_eq!(rx.iter().collect::<Vec<_>>(), [0, 1, 2, 3]);
    /// ```
    pub fn spawn_fifo<F: FnOnce() + Send + 'static>(&self, f: F) {
        self.registry.spawn_fifo_task(f);
    }

    /// Creates a [`ScopeFifo`], whose tasks may borrow from the caller's
    /// stack and start in FIFO order among those one thread spawns; returns
    /// once `op` and every task spawned in the scope have finished. Waits
    /// as [`scope`](ThreadPool::scope) does.
    ///
    /// ```
    /// use std::sync::Mutex;
    ///
    /// let pool = stealpool::ThreadPool::new(1);
    /// let order = Mutex::new(Vec::new());
    /// pool.scope_fifo(|s| {
    ///     for i in 0..3 {
    ///         let order = &order;
    ///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
    ///     }
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2]);
    /// ```
    pub fn scope_fifo<'s, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'s>) -> R + Send,
        R: Send,
    {
        match self.registry.current_worker() {
            // As `scope`: the scope waits for all its tasks (C2).
            Some(worker) => scope::scope_fifo_on_worker(extend_worker(worker), op),
            None => self.install(|| self.scope_fifo(op)),
        }
    }

    /// [`scope`](ThreadPool::scope) with `op` run right where it is called,
    /// on any thread (rayon-core's `in_place_scope`): neither `op` nor its
    /// result need be `Send`.
    ///
    /// On a worker of this pool it is `scope`. On any other thread the
    /// scope's tasks go on the pool's injector, and once `op` has returned
    /// the caller blocks until they have finished; a worker of another pool
    /// blocks with a spare of its own pool standing in, as in
    /// [`block_in_place`](crate::block_in_place) (E4 in `proofs/fifo.md`).
    ///
    /// ```
    /// use std::rc::Rc;
    ///
    /// let pool = stealpool::ThreadPool::new(1);
    /// let here = Rc::new(5); // not `Send`: stays on this thread
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let doubled = pool.in_place_scope(|s| {
    ///     // The pool's only worker runs this while `op` waits for it.
    ///     s.spawn(move |_| tx.send(21).unwrap());
    ///     rx.recv().unwrap() * 2 + *here - 5
    /// });
    /// assert_eq!(doubled, 42);
    /// ```
    pub fn in_place_scope<'s, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'s>) -> R,
    {
        match self.registry.current_worker() {
            // As `scope`: the scope waits for all its tasks (C2).
            Some(worker) => scope::scope_on_worker(extend_worker(worker), op),
            None => scope::scope_in_place(extend_registry(&self.registry), op),
        }
    }

    /// [`scope_fifo`](ThreadPool::scope_fifo) with `op` run right where it
    /// is called, on any thread, as [`in_place_scope`](ThreadPool::in_place_scope)
    /// does. From a thread that is no worker of this pool, the tasks go on
    /// its injector, which starts them oldest first.
    ///
    /// ```
    /// use std::sync::Mutex;
    ///
    /// let pool = stealpool::ThreadPool::new(1);
    /// let order = Mutex::new(Vec::new());
    /// pool.in_place_scope_fifo(|s| {
    ///     s.spawn_fifo(|_| order.lock().unwrap().push(1));
    ///     s.spawn_fifo(|_| order.lock().unwrap().push(2));
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [1, 2]);
    /// ```
    pub fn in_place_scope_fifo<'s, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'s>) -> R,
    {
        match self.registry.current_worker() {
            // As `scope_fifo`: the scope waits for all its tasks (C2).
            Some(worker) => scope::scope_fifo_on_worker(extend_worker(worker), op),
            None => scope::scope_fifo_in_place(extend_registry(&self.registry), op),
        }
    }

    /// Runs `f` on one of the pool's workers and returns its result; a
    /// panic in `f` is re-raised here. Called on a worker of this pool, runs
    /// `f` directly.
    ///
    /// Called on a worker of *another* pool, that worker parks until `f` is
    /// done, with a spare of its own pool standing in for it (see "Waiting
    /// on a worker"), and runs meanwhile what `f` calls back into its pool
    /// (an `install`, a `join`, a task `f` joins), so pools may call into
    /// each other, in any direction and any depth, with no spare at all. A
    /// thread that is no pool's worker blocks.
    ///
    /// # Panics
    ///
    /// Re-raises a panic of `f`. Called on a worker of another pool, if
    /// nobody has started `f` and nobody ever can (every thread of this
    /// pool is parked in waits that all wait on one another, a *stall*,
    /// as [`JoinHandle::join`]'s "Panics" describes), `f` is withdrawn,
    /// never to run, and `install` panics with the report.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let index = pool.install(stealpool::current_thread_index);
    /// assert!(index.unwrap() < 2);
    ///
    /// // A one-worker pool calls into another one, which calls back.
    /// let a = std::sync::Arc::new(stealpool::ThreadPool::new(1));
    /// let b = stealpool::ThreadPool::new(1);
    /// let inner_a = a.clone();
    /// let sum = a.install(|| b.install(|| inner_a.join(|| 1, || 2)));
    /// assert_eq!(sum, (1, 2));
    /// ```
    #[track_caller]
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        if self.registry.current_worker().is_some() {
            return f();
        }
        // SAFETY: the thread-local pointer is null or this thread's worker.
        match unsafe { WorkerThread::current().as_ref() } {
            Some(worker) => self.install_from_other_pool(worker, f),
            None => self.install_from_outside(f),
        }
    }

    /// Waits until every task spawned with [`spawn`](ThreadPool::spawn),
    /// [`submit`](ThreadPool::submit) or [`Scope::spawn`] has finished.
    ///
    /// From a thread outside the pool, it blocks without spinning until no
    /// task is queued or running.
    ///
    /// From inside a task (on one of the pool's workers), it runs other
    /// tasks while it waits, and returns once every task has finished
    /// except those on the stacks of threads that are themselves inside
    /// `wait_all` — the calling task first of all, which cannot finish
    /// before `wait_all` returns. So two tasks calling `wait_all` at once do
    /// not deadlock: each returns once everything else has finished. Called
    /// from a task that another running task waits for (a task spawned in a
    /// scope, a half of a `join`, a task whose handle another joins), it
    /// waits for that waiter, which waits for it: a cycle, which never
    /// ends. Call it from outside the pool, or from tasks nothing waits for.
    ///
    /// On a worker of *another* pool it blocks that worker with a spare of
    /// its own pool standing in (see "Waiting on a worker"), so that pool
    /// keeps running what this one's tasks may need from it; with no spare
    /// to be had, that worker runs its own pool's jobs while it waits, as
    /// `install` does there, yielding between looks when it finds none.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let done = Arc::new(AtomicUsize::new(0));
    /// for _ in 0..10 {
    ///     let done = done.clone();
    ///     pool.spawn(move || {
    ///         done.fetch_add(1, Ordering::Relaxed);
    ///     });
    /// }
    /// pool.wait_all();
    /// assert_eq!(done.load(Ordering::Relaxed), 10);
    /// assert_eq!(pool.pending_tasks(), 0);
    /// ```
    pub fn wait_all(&self) {
        if self.registry.current_worker().is_some() {
            return self.registry.wait_all();
        }
        // SAFETY: the thread-local pointer is null or this thread's worker.
        match unsafe { WorkerThread::current().as_ref() } {
            Some(worker) => self.wait_all_from_other_pool(worker),
            None => self.registry.wait_all(),
        }
    }

    /// The number of worker threads.
    ///
    /// ```
    /// assert_eq!(stealpool::ThreadPool::new(3).num_workers(), 3);
    /// ```
    pub fn num_workers(&self) -> usize {
        self.registry.num_workers()
    }

    /// rayon's name for [`num_workers`](ThreadPool::num_workers).
    ///
    /// ```
    /// assert_eq!(stealpool::ThreadPool::new(3).current_num_threads(), 3);
    /// ```
    pub fn current_num_threads(&self) -> usize {
        self.num_workers()
    }

    /// The index the current thread answers in this pool
    /// ([`current_thread_index`](crate::current_thread_index)), or `None`
    /// on a thread that is not this pool's.
    ///
    /// ```
    /// let (pool, other) = (stealpool::ThreadPool::new(2), stealpool::ThreadPool::new(2));
    /// assert!(matches!(pool.install(|| pool.current_thread_index()), Some(0 | 1)));
    /// assert_eq!(pool.install(|| other.current_thread_index()), None);
    /// ```
    pub fn current_thread_index(&self) -> Option<usize> {
        let worker = self.registry.current_worker()?;
        Some(worker.index() % self.num_workers())
    }

    /// Whether the current thread, a thread of this pool, has jobs in its
    /// own queues that nobody took yet
    /// ([`current_thread_has_pending_tasks`](crate::current_thread_has_pending_tasks));
    /// `None` on a thread that is not this pool's.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(1);
    /// assert_eq!(pool.current_thread_has_pending_tasks(), None);
    /// assert_eq!(pool.install(|| pool.current_thread_has_pending_tasks()), Some(false));
    /// ```
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        self.registry.current_worker().map(WorkerThread::has_own_jobs)
    }

    /// [`yield_now`](crate::yield_now) if the current thread is this
    /// pool's, else `None`.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(1);
    /// assert_eq!(pool.yield_now(), None);
    /// assert_eq!(pool.install(|| pool.yield_now()), Some(stealpool::Yield::Idle));
    /// ```
    pub fn yield_now(&self) -> Option<Yield> {
        self.registry.current_worker()?;
        crate::yield_now()
    }

    /// [`yield_local`](crate::yield_local) if the current thread is this
    /// pool's, else `None`.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(1);
    /// assert_eq!(pool.install(|| pool.yield_local()), Some(stealpool::Yield::Idle));
    /// ```
    pub fn yield_local(&self) -> Option<Yield> {
        self.registry.current_worker()?;
        crate::yield_local()
    }

    /// The number of tasks spawned or submitted that have not finished yet
    /// (queued or running); a snapshot.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(1);
    /// let (sender, receiver) = std::sync::mpsc::channel::<()>();
    /// pool.spawn(move || receiver.recv().unwrap()); // waits for the send
    /// assert_eq!(pool.pending_tasks(), 1);
    /// sender.send(()).unwrap();
    /// pool.wait_all();
    /// assert_eq!(pool.pending_tasks(), 0);
    /// ```
    pub fn pending_tasks(&self) -> usize {
        self.registry.pending_tasks()
    }

    /// A snapshot of the pool's statistics (see [`Stats`]).
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// pool.scope(|s| (0..10).for_each(|_| s.spawn(|_| {})));
    /// assert_eq!(pool.stats().tasks_executed, 10);
    /// ```
    pub fn stats(&self) -> Stats {
        self.registry.stats()
    }

    /// Runs every queued task (and what they spawn), then stops and joins
    /// the worker threads. Dropping the pool does the same.
    ///
    /// On a worker thread of any pool (a task of this pool or another one),
    /// it returns at once, before the queued tasks have run: the workers
    /// still run every one of them, and what they spawn, and exit on their
    /// own. Waiting there could deadlock, as one of them may wait for the
    /// calling thread itself (rayon never waits for its threads). Use
    /// [`wait_all`](ThreadPool::wait_all) first where the caller needs the
    /// work done.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let done = Arc::new(AtomicUsize::new(0));
    /// for _ in 0..1000 {
    ///     let done = done.clone();
    ///     pool.spawn(move || {
    ///         done.fetch_add(1, Ordering::Relaxed);
    ///     });
    /// }
    /// pool.shutdown();
    /// assert_eq!(done.load(Ordering::Relaxed), 1000);
    /// ```
    pub fn shutdown(self) {
        drop(self);
    }
}

/// Widens a worker borrow to the scope's lifetime. The worker lives for the
/// whole thread body, which outlives any scope running on it.
pub(in crate::pool) fn extend_worker<'s>(worker: &WorkerThread) -> &'s WorkerThread {
    // SAFETY: see above; the pointer is the thread's own `WorkerThread`.
    unsafe { &*(worker as *const WorkerThread) }
}

/// Widens a borrow of a pool's registry to a scope's lifetime, for a scope
/// owned by a thread outside the pool (E4): the scope is a local of a call
/// that borrows the pool, and waits for all its tasks before returning, so
/// no use of the reference outlives the borrow.
pub(in crate::pool) fn extend_registry<'s>(registry: &Registry) -> &'s Registry {
    // SAFETY: see above.
    unsafe { &*(registry as *const Registry) }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.registry.terminate();
        // A worker cannot join itself: if the last handle is dropped by a
        // task of this pool, the workers still drain the queues and exit on
        // their own. Nor may a worker of another pool wait for them: one of
        // them may be waiting for that very thread (a task of this pool
        // blocked in the other pool's `install`, or waiting on a handle
        // whose task is queued behind the caller), so the drop would never
        // end. The threads are left to finish, as from inside.
        if !WorkerThread::current().is_null() {
            return;
        }
        for thread in self.threads.drain(..) {
            // Tasks' panics are caught; a worker never ends by panicking.
            let _ = thread.join();
        }
        // Workers started by a spawn handler: until each `run` returned.
        if let Some(exits) = &self.exits {
            exits.wait();
        }
        // W4: then the spares, including those started while joining.
        loop {
            let spares = self.registry.spares.take_threads();
            if spares.is_empty() {
                break;
            }
            for thread in spares {
                let _ = thread.join();
            }
        }
    }
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_workers", &self.num_workers())
            .field("pending_tasks", &self.pending_tasks())
            .finish_non_exhaustive()
    }
}

/// The index of the pool worker running on the current thread, or `None`
/// outside every pool; when `Some`, always below
/// [`current_num_threads()`](crate::current_num_threads), as rayon promises.
///
/// Workers have the indices `0..num_workers()`. A spare thread that runs
/// the pool's tasks while workers are blocked (in
/// [`block_in_place`](crate::block_in_place), or parked in a wait) answers
/// as one of the workers: the index of its spare slot, counted from
/// `num_workers()`, modulo `num_workers()`. So code that keeps per-thread
/// state in `vec![..; current_num_threads()]` indexed by this never indexes
/// past the end. While spares stand in, two running threads can answer the
/// same index; state indexed by it is shared between threads anyway, so it
/// is behind a `Mutex` or atomic already, and a shared entry is only
/// contention.
///
/// ```
/// let pool = stealpool::ThreadPool::new(2);
/// assert_eq!(stealpool::current_thread_index(), None);
/// let inside = pool.install(stealpool::current_thread_index);
/// assert!(matches!(inside, Some(0 | 1)));
/// ```
pub fn current_thread_index() -> Option<usize> {
    // SAFETY: the thread-local pointer is null or the thread's own worker.
    let worker = unsafe { WorkerThread::current().as_ref() }?;
    Some(worker.index() % worker.registry().num_workers())
}

/// The current thread's slot in its pool, unique among the pool's threads
/// at any time: a worker's index, or past them a spare's slot. `None`
/// outside every pool. For the splitter, which must tell a piece that
/// moved to another thread from one that stayed.
pub(crate) fn current_slot_index() -> Option<usize> {
    // SAFETY: the thread-local pointer is null or the thread's own worker.
    unsafe { WorkerThread::current().as_ref() }.map(WorkerThread::index)
}
