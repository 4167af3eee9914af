//! Configuring and starting a pool.

use crate::lockfree::Worker;
use crate::pool::api::spawn_handler::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn, WorkerExits};
use crate::pool::api::thread_pool::ThreadPool;
use crate::pool::kernel::registry::{PanicHandler, Registry, NO_PENDING_LIMIT};
use crate::pool::kernel::sleep::MAX_WORKERS;
use crate::pool::kernel::spares::{Slot, Spares};
use crate::pool::kernel::thread_hooks::ThreadHooks;
use crate::pool::kernel::worker::{BoundedDeques, Deques, BOUNDED_SLOTS};
use crate::pool::placement::topology::{self, Placement, Topology};
use crate::pool::queues::injector::SubmitQueues;
use crate::sync::Arc;
use std::any::Any;
use std::{error, fmt, io};

/// Each worker's deque starts with room for this many jobs and grows as
/// needed. Model checkers start small, so that growth is explored too (N3).
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
const DEQUE_CAPACITY: usize = 64;
#[cfg(any(feature = "loom", feature = "shuttle"))]
const DEQUE_CAPACITY: usize = 2;

/// A spare slot's deques start with room for this many jobs: most spare
/// slots are never held, and one that is grows its deques as a worker's do
/// (N3), so the slots a pool keeps in reserve cost little memory.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
const SPARE_DEQUE_CAPACITY: usize = 4;
#[cfg(any(feature = "loom", feature = "shuttle"))]
const SPARE_DEQUE_CAPACITY: usize = 2;

/// Spare slots per worker unless `max_blocking_threads` says otherwise,
/// and at least `DEFAULT_SPARES_AT_LEAST` in all: a program of waits that
/// each park a thread (a pipeline of handles across two pools) needs about
/// one slot per stage in flight, whatever the number of workers.
/// Under the model checkers none (`default_spares`). Under Miri no
/// minimum beyond the four per worker: Miri interprets every slot's setup
/// for each pool a test builds (its pool step took 518 s instead of
/// 207 s with the minimum), and the spare slots run the same code
/// whatever their number.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
const DEFAULT_SPARES_PER_WORKER: usize = 4;
#[cfg(not(any(feature = "loom", feature = "shuttle", miri)))]
const DEFAULT_SPARES_AT_LEAST: usize = 64;
#[cfg(all(miri, not(any(feature = "loom", feature = "shuttle"))))]
const DEFAULT_SPARES_AT_LEAST: usize = 0;

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
///
/// `S` says how the workers are started: by the builder itself (the
/// default), or by the caller's [`spawn_handler`](Builder::spawn_handler).
///
/// rayon-core's `use_current_thread` is left out: the building thread
/// would be worker 0 without running the worker loop, and the pool's sleep
/// protocol, shutdown and `broadcast` count on every worker running it
/// (the guide's page on pools says more).
#[must_use]
pub struct Builder<S = DefaultSpawn> {
    num_threads: usize,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    panic_handler: Option<PanicHandler>,
    /// `None`: the discovered layout.
    topology: Option<Topology>,
    pin_workers: bool,
    /// `None`: four times the workers, and at least 64.
    max_blocking_threads: Option<usize>,
    /// `None`: every `join` half is published (F1).
    max_pending_joins: Option<usize>,
    /// A bounded deque per slot for plain spawned tasks (G12).
    bounded_steals: bool,
    thread_hooks: ThreadHooks,
    spawn: S,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder {
            num_threads: 0,
            thread_name: None,
            stack_size: None,
            panic_handler: None,
            topology: None,
            pin_workers: false,
            max_blocking_threads: None,
            max_pending_joins: None,
            bounded_steals: false,
            thread_hooks: ThreadHooks::default(),
            spawn: DefaultSpawn,
        }
    }
}

impl<S> fmt::Debug for Builder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("num_threads", &self.num_threads)
            .field("stack_size", &self.stack_size)
            .field("topology", &self.topology)
            .field("pin_workers", &self.pin_workers)
            .field("max_blocking_threads", &self.max_blocking_threads)
            .field("max_pending_joins", &self.max_pending_joins)
            .field("bounded_steals", &self.bounded_steals)
            .finish_non_exhaustive()
    }
}

impl Builder {
    /// A builder with the defaults, as [`ThreadPool::builder`] gives (and
    /// rayon-core's `ThreadPoolBuilder::new`).
    ///
    /// ```
    /// let pool = stealpool::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 2);
    /// ```
    pub fn new() -> Builder {
        Builder::default()
    }
}

impl<S> Builder<S> {
    /// The number of worker threads; `0` (the default) means one per CPU
    /// of the [`topology`](Builder::topology) when one is given, otherwise
    /// one per available core ([`std::thread::available_parallelism`]).
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::builder().num_threads(3).build().unwrap();
    /// assert_eq!(pool.num_workers(), 3);
    /// ```
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.num_threads = num_threads;
        self
    }

    /// Names worker `i` `name(i)` (default: `stealpool-worker-i`).
    ///
    /// `name` is called once per worker, for `i` in `0..num_threads`, when
    /// the pool is built. A spare thread standing in for a blocked worker
    /// (see [`block_in_place`](crate::block_in_place)) answers
    /// [`current_thread_index`](crate::current_thread_index) as its slot
    /// modulo the worker count, and with a `thread_name` it takes that
    /// worker's name too, so every thread that runs the pool's tasks has
    /// a name from `name` (two may then share one). Without it, spares are
    /// named `stealpool-spare-N`.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(1)
    ///     .thread_name(|i| format!("io-{i}"))
    ///     .build()
    ///     .unwrap();
    /// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
    /// assert_eq!(name.as_deref(), Some("io-0"));
    /// ```
    pub fn thread_name(mut self, name: impl FnMut(usize) -> String + 'static) -> Self {
        self.thread_name = Some(Box::new(name));
        self
    }

    /// The stack size of each worker thread, in bytes (default: the
    /// platform's default for spawned threads).
    ///
    /// ```
    /// // Deep recursion on the workers: 16 MiB each.
    /// let pool = stealpool::ThreadPool::builder().stack_size(16 << 20).build().unwrap();
    /// assert_eq!(pool.install(|| 2 + 2), 4);
    /// ```
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes);
        self
    }

    /// Called with the payload of every panic in a [`ThreadPool::spawn`]ed
    /// task, on the worker that ran it. The default prints the message on
    /// stderr. Either way the panic is counted in [`ThreadPool::stats`] and
    /// the worker goes on.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use std::sync::Mutex;
    ///
    /// let (sender, receiver) = mpsc::channel();
    /// let sender = Mutex::new(sender);
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(1)
    ///     .panic_handler(move |payload| {
    ///         let message = payload.downcast_ref::<&str>().copied().unwrap_or("?");
    ///         sender.lock().unwrap().send(message.to_owned()).unwrap();
    ///     })
    ///     .build()
    ///     .unwrap();
    /// pool.spawn(|| panic!("task failed"));
    /// assert_eq!(receiver.recv().unwrap(), "task failed");
    /// pool.wait_all();
    /// assert_eq!(pool.stats().panicked, 1);
    /// ```
    pub fn panic_handler(mut self, handler: impl Fn(Box<dyn Any + Send>) + Send + Sync + 'static) -> Self {
        self.panic_handler = Some(Box::new(handler));
        self
    }

    /// The machine's layout, which places the workers and orders their
    /// victims (default: [`Topology::discover`], read once per process).
    ///
    /// Worker `i` belongs to CPU [`topology.worker_cpu(i)`](Topology::worker_cpu)
    /// (node-major order, wrapping when there are more workers than CPUs).
    /// A worker out of work tries to steal from the workers sharing its
    /// last-level cache first, then from the rest of its node, then from
    /// the other nodes, starting at a random worker within each of these
    /// rings and trying every worker in each round; [`Stats`](crate::Stats)
    /// counts the steals by distance. With one cache for the whole pool,
    /// victims are uniformly random, as without a layout.
    ///
    /// The layout need not be this machine's: a test can describe a large
    /// machine and run its pool here (without pinning, or with pinning that
    /// fails and is counted in [`Stats::pin_failures`](crate::Stats::pin_failures)).
    ///
    /// ```
    /// use stealpool::{ThreadPool, Topology};
    ///
    /// // 4 nodes × 16 CPUs: 64 workers, whatever this machine has.
    /// let pool = ThreadPool::builder()
    ///     .topology(Topology::uniform(4, 1, 16).unwrap())
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.num_workers(), 64);
    /// pool.scope(|s| {
    ///     for _ in 0..1000 {
    ///         s.spawn(|_| {});
    ///     }
    /// });
    /// let stats = pool.stats();
    /// println!(
    ///     "steals: {} same cache, {} same node, {} remote",
    ///     stats.steals_same_cache, stats.steals_same_node, stats.steals_remote
    /// );
    /// ```
    pub fn topology(mut self, topology: Topology) -> Self {
        self.topology = Some(topology);
        self
    }

    /// Pins worker `i` to its CPU, [`topology.worker_cpu(i)`](Topology::worker_cpu),
    /// when it starts (default: `false`).
    ///
    /// Linux only (`sched_setaffinity`); elsewhere nothing is pinned. A
    /// worker that cannot be pinned (no such CPU, a CPU outside the
    /// process's affinity mask or cgroup, another system) runs unpinned and
    /// is counted in [`Stats::pin_failures`](crate::Stats::pin_failures):
    /// the pool never fails to build because of it. With the discovered
    /// layout, which holds only the CPUs the process may use, pinning
    /// succeeds on Linux.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(2)
    ///     .pin_workers(true)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| 1 + 1), 2);
    /// // 0 where the system pins (Linux), 2 where it cannot.
    /// assert!(pool.stats().pin_failures <= 2);
    /// ```
    pub fn pin_workers(mut self, pin: bool) -> Self {
        self.pin_workers = pin;
        self
    }

    /// At most this many spare threads stand in for workers blocked in
    /// [`block_in_place`](crate::block_in_place) or park in one of the
    /// pool's waits at once (default: four times the workers and at least
    /// 64, at most what keeps the pool within 65 535 threads; in a mix
    /// where half the tasks block for twice as long as the others compute,
    /// twice the workers ran out of spares one call in four, four times
    /// almost never; a pipeline of handles alternating between two
    /// one-worker pools, each stage joining the one before, kept up to 18
    /// spares per pool busy at 50 stages). `0`: `block_in_place` never
    /// starts a spare. With a [`spawn_handler`](Builder::spawn_handler) the
    /// default is `0` (see there).
    ///
    /// Spares are started when first needed, not by `build`, and exit
    /// after ten idle seconds; each slot costs about 3 KiB up front (five
    /// small deques and its share of the pool's per-slot state), and idle
    /// workers look only at the slots spares have held, so a pool that
    /// never blocks pays nothing more for them. With every slot taken, a
    /// worker entering `block_in_place` simply blocks, as it would without
    /// it. Past the limit, waits that park a thread each can use up every
    /// thread: a [`JoinHandle::join`](crate::JoinHandle::join) that then
    /// could never return panics with a report naming the pools and this
    /// limit instead of parking forever (see its "Panics"), as does an
    /// `install` on another pool whose closure nobody started; a stall
    /// that a `join` or `scope` closes is reported by a handle join in it,
    /// and one of `join`s and `scope`s alone runs the work queued on the
    /// pool on top of one of them (the waits guide has the details). `wait_all`, which the pool
    /// cannot see through, is not reported, and may still hang.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(2)
    ///     .max_blocking_threads(1)
    ///     .build()
    ///     .unwrap();
    /// pool.install(|| stealpool::block_in_place(|| std::thread::sleep(std::time::Duration::from_millis(1))));
    /// assert!(pool.stats().spare_threads_started <= 1);
    /// ```
    pub fn max_blocking_threads(mut self, n: usize) -> Self {
        self.max_blocking_threads = Some(n);
        self
    }

    /// Lets a worker's [`join`](crate::ThreadPool::join) run both closures
    /// one after the other, as a plain call would, when `n` of its halves
    /// already wait where other workers can take them and no worker sleeps
    /// or asks for work (`proofs/fork.md`). Default: no limit, every
    /// half is published.
    ///
    /// Publishing a half (its slot, the deque's `bottom`, and taking it
    /// back) is most of what a `join` costs beyond its two calls; a deep
    /// recursion has idle workers take the oldest, largest halves anyway.
    /// With a limit, `join` costs about what a plain call does below the
    /// first `n` pending halves while every worker is busy, and publishes
    /// again as soon as one is idle (it sleeps, or asks this worker for
    /// work): fib with a `join` at every call runs about 1.4 times as fast
    /// with `max_pending_joins(3)` (`benches/README.md`).
    ///
    /// The price is a guarantee: a `join` that ran inline had no half for
    /// others to take, so its first closure must not depend on its second,
    /// through any chain: not wait for it outside the pool (a lock, a
    /// channel, a condition variable), nor join the handle of a task that
    /// waits, directly or not, for something the second closure does. Such
    /// a program deadlocks as it would in sequential code. Every program
    /// that keeps this contract finishes, as on an unlimited pool: `a` may
    /// join handles, `scope` and `join` freely (`tests/pool_waits.rs`). The halves that are published keep every guarantee of an
    /// unlimited pool, the first `n` pending among them (a task that forks
    /// once and then blocks, with `n >= 1`, is not stranded). The limit
    /// takes effect only where the pool's light barriers pair with heavy
    /// ones (Linux with `membarrier`); elsewhere every half is published.
    ///
    /// ```
    /// fn fib(pool: &stealpool::ThreadPool, n: u64) -> u64 {
    ///     if n < 2 {
    ///         return n;
    ///     }
    ///     let (a, b) = pool.join(|| fib(pool, n - 1), || fib(pool, n - 2));
    ///     a + b
    /// }
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(2)
    ///     .max_pending_joins(3)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| fib(&pool, 25)), 75_025);
    /// ```
    pub fn max_pending_joins(mut self, n: usize) -> Self {
        self.max_pending_joins = Some(n);
        self
    }

    /// Queues the plain tasks a worker [`spawn`](crate::ThreadPool::spawn)s
    /// (at [`Priority::Normal`](crate::Priority), from inside a task of this
    /// pool) on a deque of its own whose steals never retry:
    /// [`BoundedStealer`](crate::deque::BoundedStealer), every steal done
    /// within a bounded number of its own steps whatever other thieves do
    /// (`proofs/bounded.md`). Default: `false`, every task on the one
    /// lock-free deque per worker.
    ///
    /// Only those tasks move: `join` halves, [`scope`](crate::ThreadPool::scope)
    /// tasks, priorities other than `Normal`, continuations and
    /// [`submit`](crate::ThreadPool::submit)ted tasks stay where they are,
    /// since waits take some of them back by a condition, which a steal
    /// that serves other thieves' requests cannot test. Idle workers take
    /// the tasks from each other's bounded deques after the usual deques,
    /// and [`Stats::bounded_steals`](crate::Stats::bounded_steals) counts
    /// those steals.
    ///
    /// A pool with bounded deques has at most 16 threads, spare threads of
    /// [`block_in_place`](crate::block_in_place) included (each deque has
    /// 15 thieves' handles): without [`num_threads`](Builder::num_threads)
    /// it has one worker per CPU up to 16, the default spare threads are
    /// cut to fit, and [`build`](Builder::build) fails with more workers
    /// asked for, or workers and
    /// [`max_blocking_threads`](Builder::max_blocking_threads) together.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(2)
    ///     .bounded_steals(true)
    ///     .build()
    ///     .unwrap();
    /// let ran = Arc::new(AtomicUsize::new(0));
    /// let spawner = ran.clone();
    /// pool.spawn(move || {
    ///     for _ in 0..100 {
    ///         let ran = spawner.clone();
    ///         // From inside the pool: on this worker's bounded deque.
    ///         stealpool::spawn(move || {
    ///             ran.fetch_add(1, Ordering::Relaxed);
    ///         });
    ///     }
    /// });
    /// pool.wait_all();
    /// assert_eq!(ran.load(Ordering::Relaxed), 100);
    ///
    /// let error = stealpool::ThreadPool::builder()
    ///     .num_threads(17)
    ///     .bounded_steals(true)
    ///     .build()
    ///     .unwrap_err();
    /// assert!(error.to_string().contains("bounded"));
    /// ```
    pub fn bounded_steals(mut self, on: bool) -> Self {
        self.bounded_steals = on;
        self
    }

    /// Runs `handler` on each thread of the pool when it starts, before it
    /// takes a job, with the index it answers as
    /// [`current_thread_index`](crate::current_thread_index) (rayon's
    /// `start_handler`). Workers run it inside the pool (the index is
    /// `Some` there); spare threads, which stand in for blocked workers,
    /// run it too when they start, so per-thread set-up reaches every
    /// thread that runs the pool's tasks. A panic in it goes to the
    /// [`panic_handler`](Builder::panic_handler) and the thread goes on.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let counter = started.clone();
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(3)
    ///     .start_handler(move |_index| {
    ///         counter.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(pool); // joins the workers: each has started
    /// assert_eq!(started.load(Ordering::SeqCst), 3);
    /// ```
    pub fn start_handler(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.thread_hooks.start = Some(Box::new(handler));
        self
    }

    /// Runs `handler` on each thread of the pool when it takes no more
    /// jobs, before it exits, with the index it answers as
    /// [`current_thread_index`](crate::current_thread_index) (rayon's
    /// `exit_handler`): on workers at shutdown, on spare threads when they
    /// leave (at shutdown, or idle past their keep-alive). A panic in it
    /// goes to the [`panic_handler`](Builder::panic_handler).
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    ///
    /// let exited = Arc::new(Mutex::new(Vec::new()));
    /// let seen = exited.clone();
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(2)
    ///     .exit_handler(move |index| seen.lock().unwrap().push(index))
    ///     .build()
    ///     .unwrap();
    /// drop(pool);
    /// let mut exited = exited.lock().unwrap().clone();
    /// exited.sort();
    /// assert_eq!(exited, [0, 1]);
    /// ```
    pub fn exit_handler(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.thread_hooks.exit = Some(Box::new(handler));
        self
    }

    /// Starts each worker through `spawn` (rayon-core's `spawn_handler`):
    /// [`build`](Builder::build) calls it once per worker, in index order,
    /// with a [`ThreadBuilder`] that the thread it starts must
    /// [`run`](ThreadBuilder::run). The handler chooses the thread: its
    /// name and stack size ([`ThreadBuilder::name`] and
    /// [`stack_size`](ThreadBuilder::stack_size) say what the builder was
    /// given), a scoped thread (see [`build_scoped`](Builder::build_scoped)),
    /// set-up around `run`. `spawn` is called only during `build`, so it
    /// may borrow anything that outlives that call.
    ///
    /// An `Err` from `spawn` fails `build` with a [`BuildError`] that
    /// carries it (its `source`); the workers started before are stopped
    /// and their `run` has returned when `build` returns.
    ///
    /// Dropping the pool (or [`shutdown`](ThreadPool::shutdown)) runs every
    /// queued task, as always, then waits until every worker's `run` has
    /// returned (or its `ThreadBuilder` was dropped unrun); the pool has no
    /// handles of the threads, so what they do after `run` is theirs to
    /// wait for (rayon's drop waits for nothing). A `ThreadBuilder` kept
    /// neither run nor dropped keeps the drop waiting.
    ///
    /// **Spare threads.** Workers about to block
    /// ([`block_in_place`](crate::block_in_place), a parked wait) bring in
    /// spares, started later than `build`, when `spawn` can no longer be
    /// called. With a spawn handler the pool therefore has no spare slots
    /// unless [`max_blocking_threads`](Builder::max_blocking_threads) asks
    /// for them: every thread that runs the pool's tasks was started by
    /// `spawn`, as rayon promises, and the pool behaves as with
    /// `max_blocking_threads(0)` (a blocked worker blocks without a stand-in;
    /// see [`ThreadPool`]'s docs). With `max_blocking_threads(n)` set, the
    /// spares are the pool's own threads (named as with
    /// [`thread_name`](Builder::thread_name), with the builder's stack size,
    /// running the start and exit handlers), not started through `spawn`:
    /// a set-up that `spawn` makes around `run` is missing on them.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let calls = AtomicUsize::new(0);
    /// let pool = stealpool::ThreadPool::builder()
    ///     .num_threads(2)
    ///     .spawn_handler(|thread| {
    ///         calls.fetch_add(1, Ordering::Relaxed);
    ///         std::thread::Builder::new().spawn(move || thread.run())?;
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(calls.load(Ordering::Relaxed), 2);
    /// assert_eq!(pool.install(|| stealpool::join(|| 1, || 2)), (1, 2));
    ///
    /// let error = stealpool::ThreadPool::builder()
    ///     .num_threads(2)
    ///     .spawn_handler(|_thread| Err(std::io::Error::other("no threads today")))
    ///     .build()
    ///     .unwrap_err();
    /// assert!(error.to_string().contains("no threads today"));
    /// ```
    pub fn spawn_handler<F>(self, spawn: F) -> Builder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> io::Result<()>,
    {
        Builder {
            num_threads: self.num_threads,
            thread_name: self.thread_name,
            stack_size: self.stack_size,
            panic_handler: self.panic_handler,
            topology: self.topology,
            pin_workers: self.pin_workers,
            max_blocking_threads: self.max_blocking_threads,
            max_pending_joins: self.max_pending_joins,
            bounded_steals: self.bounded_steals,
            thread_hooks: self.thread_hooks,
            spawn: CustomSpawn(spawn),
        }
    }
}

impl Builder {
    /// Builds a pool whose workers run on [`std::thread::scope`] threads,
    /// each inside `wrapper`, calls `with_pool` with it, then drops the
    /// pool and joins its threads before returning `with_pool`'s result
    /// (rayon-core's `build_scoped`). `wrapper` is called on each worker's
    /// thread with its [`ThreadBuilder`] and must call
    /// [`run`](ThreadBuilder::run) on it; both closures may borrow from the
    /// caller's stack. The threads take the names and stack size the
    /// builder was given. Spare threads are as with
    /// [`spawn_handler`](Builder::spawn_handler): none unless
    /// [`max_blocking_threads`](Builder::max_blocking_threads) asks, and
    /// then outside `wrapper`.
    ///
    /// # Errors
    ///
    /// As [`build`](Builder::build), and if a thread cannot be started
    /// (its [`BuildError`] says why); `with_pool` is then not called and
    /// the threads started are joined.
    ///
    /// # Panics
    ///
    /// A panic in `with_pool` drops the pool (its queued tasks run), joins
    /// the threads and resumes; a panic in `wrapper` ends its thread, and
    /// `build_scoped` panics once the scope ends, as [`std::thread::scope`]
    /// does.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let entered = AtomicUsize::new(0); // borrowed by every worker
    /// let data = vec![1u64, 2, 3, 4];
    /// let sum = stealpool::ThreadPool::builder()
    ///     .num_threads(2)
    ///     .build_scoped(
    ///         |thread| {
    ///             entered.fetch_add(1, Ordering::Relaxed);
    ///             thread.run()
    ///         },
    ///         |pool| pool.install(|| data.iter().sum::<u64>()),
    ///     )
    ///     .unwrap();
    /// assert_eq!(sum, 10);
    /// // The threads are joined: each went through `wrapper`.
    /// assert_eq!(entered.load(Ordering::Relaxed), 2);
    /// ```
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, BuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        let wrapper = &wrapper;
        std::thread::scope(|scope| {
            let pool = self
                .spawn_handler(|thread| {
                    let mut builder = std::thread::Builder::new();
                    // Always `Some`: the worker's name.
                    if let Some(name) = thread.name() {
                        builder = builder.name(name.to_owned());
                    }
                    if let Some(bytes) = thread.stack_size() {
                        builder = builder.stack_size(bytes);
                    }
                    builder.spawn_scoped(scope, move || wrapper(thread)).map(drop)
                })
                .build()?;
            // Dropped before the scope joins the threads, on a panic too.
            Ok(with_pool(&pool))
        })
    }
}

impl<S: ThreadSpawn> Builder<S> {
    /// Starts the worker threads.
    ///
    /// # Errors
    ///
    /// [`BuildError`] if more than 65 535 threads are asked for (16 with
    /// [`bounded_steals`](Builder::bounded_steals)), if a name
    /// from [`thread_name`](Builder::thread_name) contains a NUL byte, or if
    /// a thread cannot be spawned (with a
    /// [`spawn_handler`](Builder::spawn_handler): if it returns an `Err`,
    /// the error's [`source`](std::error::Error::source)). The threads
    /// already started are stopped and joined first (with a handler: their
    /// `run` has returned). `thread_name` is called for every worker before
    /// any thread starts, so if it panics, no thread was started.
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
        let num_threads = match (self.num_threads, &self.topology) {
            (0, Some(topology)) => topology.num_cpus(),
            (0, None) => std::thread::available_parallelism().map_or(1, |n| n.get()),
            (n, _) => n,
        };
        // G12: a count the caller did not choose fits the bounded deques'
        // slots, so that the option builds on any machine.
        let num_threads = if self.bounded_steals && self.num_threads == 0 {
            num_threads.min(BOUNDED_SLOTS)
        } else {
            num_threads
        };
        if num_threads > MAX_WORKERS {
            return Err(BuildError(ErrorKind::TooManyThreads(num_threads)));
        }
        // Spare slots after the workers' (W1): the sleep word counts them too.
        let spare_slots = match self.max_blocking_threads {
            Some(n) if num_threads.saturating_add(n) > MAX_WORKERS => {
                return Err(BuildError(ErrorKind::TooManyThreads(
                    num_threads.saturating_add(n),
                )));
            }
            Some(n) => n,
            // A spawn handler starts every thread that runs the pool's
            // tasks: no spares unless asked for (see `spawn_handler`).
            None if S::CUSTOM => 0,
            // G12: with bounded deques, the default spares fit their slots.
            None if self.bounded_steals => {
                default_spares(num_threads).min(BOUNDED_SLOTS.saturating_sub(num_threads))
            }
            None => default_spares(num_threads).min(MAX_WORKERS - num_threads),
        };
        let slots = num_threads + spare_slots;
        if self.bounded_steals && slots > BOUNDED_SLOTS {
            return Err(BuildError(ErrorKind::TooManyBoundedSlots(slots)));
        }
        // G12: each slot's bounded deque with its handles on the others'.
        let (mut bounded, bounded_lens) = if self.bounded_steals {
            let (deques, lens) = BoundedDeques::for_slots(slots, DEQUE_CAPACITY);
            (
                deques.into_iter().map(|d| Some(Box::new(d))).collect(),
                Some(lens),
            )
        } else {
            ((0..slots).map(|_| None).collect::<Vec<_>>(), None)
        };
        // The workers' names, before anything is built: a NUL is reported
        // and a panicking `thread_name` unwinds with no thread started.
        let names = (0..num_threads)
            .map(|index| {
                let name = match &mut self.thread_name {
                    Some(name) => name(index),
                    None => format!("stealpool-worker-{index}"),
                };
                if name.contains('\0') {
                    return Err(BuildError(ErrorKind::ThreadName { index, name }));
                }
                Ok(name)
            })
            .collect::<Result<Vec<_>, _>>()?;
        // M1: before any worker starts, so every worker sees the result.
        crate::sync::register_barriers();
        // Each worker has two deques: the one thieves look in first, and the
        // owner-biased one holding its pending `join` halves (F1); and one
        // per level other than `Normal`, stolen from like the first (V2).
        let mut deques: Vec<Deques> = (0..slots)
            .map(|slot| {
                let capacity = if slot < num_threads {
                    DEQUE_CAPACITY
                } else {
                    SPARE_DEQUE_CAPACITY
                };
                (
                    Worker::with_capacity(capacity),
                    Worker::owner_biased_with_capacity(capacity),
                    std::array::from_fn(|_| Worker::with_capacity(capacity)),
                    None,
                )
            })
            .collect();
        let stealers = deques.iter().map(|(local, ..)| local.stealer()).collect();
        let join_stealers = deques.iter().map(|(_, joins, ..)| joins.stealer()).collect();
        let level_stealers = std::array::from_fn(|slot| {
            deques
                .iter()
                .map(|(_, _, levels, _)| levels[slot].stealer())
                .collect()
        });
        for (deques, bounded) in deques.iter_mut().zip(bounded.drain(..)) {
            deques.3 = bounded;
        }
        let spares = deques
            .drain(num_threads..)
            .enumerate()
            .map(|(spare, deques)| Slot::new(num_threads + spare, deques))
            .collect();
        // A spare standing in for worker `i`'s index answers
        // `current_thread_index` as slot modulo workers, and so carries that
        // worker's name when the caller names the threads: code that tells
        // the pool's threads by name sees every one of them named.
        let spare_names = self
            .thread_name
            .is_some()
            .then(|| names.clone().into_boxed_slice());
        let spares = Spares::new(spares, self.stack_size, spare_names);
        let mut registry = Registry::new(
            num_threads,
            spares,
            stealers,
            join_stealers,
            level_stealers,
            self.panic_handler.take(),
        );
        let topology = self.topology.take().unwrap_or_else(topology::discovered);
        registry.placement = Placement::new(&topology, num_threads, self.pin_workers);
        // Q10: an injector per node holding a worker.
        registry.injector = SubmitQueues::with_nodes(registry.placement.nodes());
        // V9: and a stage for each of them.
        registry.priority.place_nodes(registry.placement.nodes());
        registry.max_pending_joins = self.max_pending_joins.unwrap_or(NO_PENDING_LIMIT);
        registry.bounded = bounded_lens;
        registry.thread_hooks = std::mem::take(&mut self.thread_hooks);
        let registry = Arc::new(registry);
        // With a spawn handler, the drop waits on this count instead of
        // join handles.
        let exits = S::CUSTOM.then(|| Arc::new(WorkerExits::new()));
        // Dropped on every way out but success (a panicking handler too),
        // this pool stops the workers started so far and waits for them.
        let mut pool = ThreadPool {
            registry,
            threads: Vec::with_capacity(num_threads),
            exits: exits.clone(),
        };
        for ((index, deques), name) in deques.into_iter().enumerate().zip(names) {
            let thread = ThreadBuilder::new(
                index,
                name,
                self.stack_size,
                deques,
                pool.registry.clone(),
                exits.clone(),
            );
            match self.spawn.start(thread) {
                Ok(handle) => pool.threads.extend(handle),
                // The started workers find the registry terminating.
                // Workers that were never started leave their deques empty,
                // so `has_work` is unaffected.
                Err(error) => {
                    return Err(BuildError(ErrorKind::Spawn {
                        error,
                        index,
                        handler: S::CUSTOM,
                    }))
                }
            }
        }
        Ok(pool)
    }
}

/// Why [`Builder::build`] or [`Builder::build_global`] failed; its
/// `Display` says what happened.
///
/// ```
/// let error = stealpool::ThreadPool::builder().num_threads(100_000).build().unwrap_err();
/// assert!(error.to_string().contains("at most"));
/// ```
#[derive(Debug)]
pub struct BuildError(ErrorKind);

#[derive(Debug)]
enum ErrorKind {
    TooManyThreads(usize),
    /// G12: more slots than a bounded deque has thieves' handles for.
    TooManyBoundedSlots(usize),
    ThreadName {
        index: usize,
        name: String,
    },
    Spawn {
        error: io::Error,
        /// The worker that was not started.
        index: usize,
        /// Whether the caller's spawn handler returned the error.
        handler: bool,
    },
    GlobalExists,
}

/// The spare slots of a pool of `workers` workers when
/// `max_blocking_threads` is not set.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn default_spares(workers: usize) -> usize {
    (DEFAULT_SPARES_PER_WORKER * workers).max(DEFAULT_SPARES_AT_LEAST)
}

/// Under the model checkers none: every slot adds loads to each search
/// for work, which the models of the rest of the pool would explore for
/// nothing; the models of `block_in_place` ask for their slots.
#[cfg(any(feature = "loom", feature = "shuttle"))]
fn default_spares(_workers: usize) -> usize {
    0
}

impl BuildError {
    /// For [`Builder::build_global`] when the global pool exists already.
    pub(in crate::pool) fn global_exists() -> BuildError {
        BuildError(ErrorKind::GlobalExists)
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            ErrorKind::TooManyThreads(n) => {
                write!(
                    f,
                    "a pool has at most {MAX_WORKERS} threads and spare threads, {n} were asked for"
                )
            }
            ErrorKind::TooManyBoundedSlots(n) => write!(
                f,
                "a pool with bounded steals has at most {BOUNDED_SLOTS} threads and spare threads, {n} were asked for"
            ),
            ErrorKind::ThreadName { index, name } => {
                write!(f, "the name of worker {index} contains a NUL byte: {name:?}")
            }
            ErrorKind::Spawn {
                error,
                index,
                handler: false,
            } => write!(f, "could not spawn the thread of worker {index}: {error}"),
            ErrorKind::Spawn {
                error,
                index,
                handler: true,
            } => write!(f, "the spawn handler failed to start worker {index}: {error}"),
            ErrorKind::GlobalExists => write!(f, "the global pool was already built"),
        }
    }
}

impl error::Error for BuildError {
    fn source(&self) -> Option<&(dyn error::Error + 'static)> {
        match &self.0 {
            ErrorKind::TooManyThreads(_)
            | ErrorKind::TooManyBoundedSlots(_)
            | ErrorKind::ThreadName { .. }
            | ErrorKind::GlobalExists => None,
            ErrorKind::Spawn { error, .. } => Some(error),
        }
    }
}
