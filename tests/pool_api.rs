#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Every public path of the pool on real threads: `spawn`, `submit` and its
//! handle (blocking and as a `Future`), `join`, `scope`, `install`,
//! `wait_all`, the size and statistics queries, `current_thread_index`, the
//! builder's options and errors, and what drop and `shutdown` run.
//!
//! Counts scale down under Miri, which runs this file to check the pool for
//! undefined behaviour, data races and leaks.

use std::collections::HashSet;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant};
use stealpool::{current_thread_index, JoinHandle, ThreadPool};

mod common;
use common::Gate;

/// `full` on real hardware, `miri` under Miri (about a thousand times slower).
const fn scaled(full: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}

/// How long a test waits for something that must happen before it calls it
/// a hang. Generous: it only bounds a failure, it never measures speed.
const DEADLINE: Duration = Duration::from_secs(if cfg!(miri) { 600 } else { 30 });

/// Spins (yielding) until `flag` is set; fails the test after [`DEADLINE`].
fn await_flag(flag: &AtomicBool, what: &str) {
    let start = Instant::now();
    while !flag.load(Acquire) {
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        thread::yield_now();
    }
}

/// Every one of `n` callers arrives, then all leave; `false` if the others
/// did not all arrive before [`DEADLINE`] (so a test fails instead of
/// hanging a worker forever).
fn rendezvous(arrived: &AtomicUsize, n: usize) -> bool {
    arrived.fetch_add(1, AcqRel);
    let start = Instant::now();
    while arrived.load(Acquire) < n {
        if start.elapsed() > DEADLINE {
            return false;
        }
        thread::yield_now();
    }
    true
}

/// How many times each task ran, indexed by task.
struct Seen(Vec<AtomicU8>);

impl Seen {
    fn new(tasks: usize) -> Self {
        Seen((0..tasks).map(|_| AtomicU8::new(0)).collect())
    }

    fn record(&self, task: usize) {
        self.0[task].fetch_add(1, Relaxed);
    }

    fn assert_each_once(&self) {
        for (task, count) in self.0.iter().enumerate() {
            assert_eq!(count.load(Relaxed), 1, "task {task} ran {count:?} times");
        }
    }
}

/// Takes the pool back from an `Arc` once every task has released its clone
/// (a task's captures are dropped when it finishes), so that the drop at
/// the end of a test happens here and joins the workers.
fn unwrap_pool(pool: Arc<ThreadPool>) -> ThreadPool {
    Arc::try_unwrap(pool).expect("finished tasks still hold the pool")
}

// ---------------------------------------------------------------- spawn

#[test]
fn spawn_from_outside_runs_every_task_once() {
    let tasks = scaled(10_000, 50);
    let pool = ThreadPool::new(2);
    let seen = Arc::new(Seen::new(tasks));
    for task in 0..tasks {
        let seen = seen.clone();
        pool.spawn(move || {
            assert!(current_thread_index().is_some(), "a task ran outside the pool");
            seen.record(task);
        });
    }
    pool.wait_all();
    seen.assert_each_once();
    assert_eq!(pool.pending_tasks(), 0);
}

#[test]
fn spawn_from_inside_a_task_runs_every_task_once() {
    // Each outer task spawns inner ones from a worker, which go on that
    // worker's own deque rather than the injector.
    let (outer, inner) = (scaled(100, 4), scaled(100, 4));
    let pool = Arc::new(ThreadPool::new(2));
    let seen = Arc::new(Seen::new(outer * inner));
    for o in 0..outer {
        let (seen, spawner) = (seen.clone(), pool.clone());
        pool.spawn(move || {
            for i in 0..inner {
                let seen = seen.clone();
                spawner.spawn(move || seen.record(o * inner + i));
            }
        });
    }
    pool.wait_all();
    seen.assert_each_once();
    unwrap_pool(pool).shutdown();
}

// ---------------------------------------------------------------- submit

#[test]
fn submit_returns_each_value_through_its_handle() {
    let pool = ThreadPool::new(2);
    let handles: Vec<JoinHandle<u64>> = (0..scaled(1000, 20) as u64)
        .map(|i| pool.submit(move || i * i))
        .collect();
    for (i, handle) in handles.into_iter().enumerate() {
        assert_eq!(handle.join().unwrap(), (i * i) as u64);
    }
}

#[test]
fn join_handle_can_be_joined_on_another_thread() {
    fn assert_send<T: Send>(_: &T) {}
    let pool = ThreadPool::new(2);
    let handle = pool.submit(|| String::from("moved"));
    assert_send(&handle);
    let joined = thread::spawn(move || handle.join().unwrap()).join().unwrap();
    assert_eq!(joined, "moved");
}

#[test]
fn join_handle_inside_a_one_thread_pool_runs_the_task_while_waiting() {
    // With one worker the child can only run if the parent's `join` runs
    // it while waiting.
    let pool = Arc::new(ThreadPool::new(1));
    let inner = pool.clone();
    let outer = pool.submit(move || {
        let child = inner.submit(current_thread_index);
        (current_thread_index(), child.join().unwrap())
    });
    assert_eq!(outer.join().unwrap(), (Some(0), Some(0)));
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}

#[test]
fn is_finished_turns_true_once_the_task_has_run() {
    let pool = ThreadPool::new(1);
    let gate = Arc::new(Gate::default());
    let held = gate.clone();
    let handle = pool.submit(move || held.wait());
    assert!(
        !handle.is_finished(),
        "the task cannot finish before the gate opens"
    );
    gate.open();
    pool.wait_all();
    assert!(handle.is_finished());
    handle.join().unwrap();
}

/// Counts its drops, to see that a result nobody joins is still dropped once.
struct DropCount(Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, Relaxed);
    }
}

#[test]
fn dropping_a_join_handle_does_not_cancel_the_task() {
    let pool = ThreadPool::new(2);
    let gate = Arc::new(Gate::default());
    let (ran, drops) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)));
    let handle = {
        let (gate, ran, drops) = (gate.clone(), ran.clone(), drops.clone());
        pool.submit(move || {
            gate.wait();
            ran.store(true, Release);
            DropCount(drops)
        })
    };
    // Dropped while the task is certainly not finished: it waits on the gate.
    drop(handle);
    gate.open();
    pool.wait_all();
    assert!(ran.load(Acquire), "the task of a dropped handle did not run");
    drop(pool);
    assert_eq!(
        drops.load(Relaxed),
        1,
        "the unjoined result was not dropped exactly once"
    );
}

#[test]
fn join_handles_outlive_the_pool() {
    let pool = ThreadPool::new(2);
    let handles: Vec<_> = (0..scaled(100, 4)).map(|i| pool.submit(move || i + 1)).collect();
    pool.shutdown();
    for (i, handle) in handles.into_iter().enumerate() {
        assert!(handle.is_finished());
        assert_eq!(handle.join().unwrap(), i + 1);
    }
}

// ---------------------------------------------------------------- Future

/// Wakes the thread that blocks in [`block_on`].
struct ThreadWaker(thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// The smallest executor: polls `future` on this thread, parking between
/// polls until its waker is called. Returns the output and the number of
/// polls.
fn block_on<F: Future>(future: F) -> (F::Output, usize) {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut polls = 0;
    loop {
        polls += 1;
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return (output, polls),
            // Parking may wake spuriously; polling again is then harmless.
            Poll::Pending => thread::park(),
        }
    }
}

/// Wraps a future and runs `on_pending` the first time it returns
/// `Pending`, so a test can release the task only after the waker is
/// registered.
struct OnFirstPending<F, G> {
    future: F,
    on_pending: Option<G>,
}

impl<F: Future + Unpin, G: FnOnce() + Unpin> Future for OnFirstPending<F, G> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        let poll = Pin::new(&mut this.future).poll(cx);
        if poll.is_pending() {
            if let Some(on_pending) = this.on_pending.take() {
                on_pending();
            }
        }
        poll
    }
}

#[test]
fn join_handle_as_a_future_wakes_its_waker() {
    let pool = ThreadPool::new(2);
    let gate = Arc::new(Gate::default());
    let held = gate.clone();
    let handle = pool.submit(move || {
        held.wait();
        "awaited"
    });
    // The first poll must find no result (the task waits on the gate) and
    // register the waker; the task's completion must then wake us.
    let future = OnFirstPending {
        future: handle,
        on_pending: Some(move || gate.open()),
    };
    let (output, polls) = block_on(future);
    assert_eq!(output.unwrap(), "awaited");
    assert!(polls >= 2, "the handle was ready before the gate opened");
}

#[test]
fn join_handles_awaited_in_an_async_block() {
    let pool = ThreadPool::new(2);
    let handles: Vec<_> = (0..scaled(20, 3) as u64)
        .map(|i| pool.submit(move || i * 10))
        .collect();
    let (sum, _) = block_on(async move {
        let mut sum = 0;
        for handle in handles {
            sum += handle.await.unwrap();
        }
        sum
    });
    let n = scaled(20, 3) as u64;
    assert_eq!(sum, 10 * n * (n - 1) / 2);
}

#[test]
fn a_finished_task_is_ready_at_the_first_poll() {
    let pool = ThreadPool::new(1);
    let handle = pool.submit(|| 5);
    pool.wait_all();
    let (output, polls) = block_on(handle);
    assert_eq!(output.unwrap(), 5);
    assert_eq!(polls, 1);
}

// ---------------------------------------------------------------- join

#[test]
fn join_from_outside_borrows_from_the_stack() {
    let pool = ThreadPool::new(2);
    let data: Vec<u64> = (0..scaled(10_000, 100) as u64).collect();
    let mut left_out = 0;
    let mut right_out = 0;
    let (half_a, half_b) = data.split_at(data.len() / 2);
    let (ra, rb) = pool.join(
        || {
            left_out = half_a.iter().sum::<u64>();
            current_thread_index()
        },
        || {
            right_out = half_b.iter().sum::<u64>();
            current_thread_index()
        },
    );
    assert_eq!(left_out + right_out, data.iter().sum::<u64>());
    assert!(
        ra.is_some() && rb.is_some(),
        "join's closures ran outside the pool"
    );
}

#[test]
fn join_inside_a_task_nests() {
    fn sum(pool: &ThreadPool, slice: &[u64]) -> u64 {
        if slice.len() <= 8 {
            return slice.iter().sum();
        }
        let (a, b) = slice.split_at(slice.len() / 2);
        let (x, y) = pool.join(|| sum(pool, a), || sum(pool, b));
        x + y
    }
    let pool = Arc::new(ThreadPool::new(2));
    let data: Arc<Vec<u64>> = Arc::new((0..scaled(5_000, 64) as u64).collect());
    let (inner, shared) = (pool.clone(), data.clone());
    let total = pool.submit(move || sum(&inner, &shared)).join().unwrap();
    assert_eq!(total, data.iter().sum::<u64>());
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}

// ---------------------------------------------------------------- scope

#[test]
fn scope_tasks_borrow_and_write_the_stack() {
    let pool = ThreadPool::new(2);
    let input: Vec<u32> = (0..scaled(1000, 40) as u32).collect();
    let mut output = vec![0u32; input.len()];
    let chunk = 7;
    let returned = pool.scope(|s| {
        for (inputs, outputs) in input.chunks(chunk).zip(output.chunks_mut(chunk)) {
            s.spawn(move |_| {
                for (i, o) in inputs.iter().zip(outputs) {
                    *o = i * 3;
                }
            });
        }
        "body value"
    });
    assert_eq!(returned, "body value");
    assert!(input.iter().zip(&output).all(|(i, o)| *o == i * 3));
}

#[test]
fn scope_waits_for_tasks_spawned_by_its_tasks() {
    let pool = ThreadPool::new(2);
    let done = AtomicUsize::new(0);
    let fanout = scaled(10, 3);
    pool.scope(|s| {
        for _ in 0..fanout {
            s.spawn(|s| {
                for _ in 0..fanout {
                    s.spawn(|s| {
                        // The deepest level finishes last: give the scope a
                        // chance to return early if it could.
                        thread::yield_now();
                        s.spawn(|_| {
                            done.fetch_add(1, Relaxed);
                        });
                    });
                }
            });
        }
    });
    assert_eq!(done.load(Relaxed), fanout * fanout);
}

#[test]
fn nested_scopes_borrow_from_each_enclosing_frame() {
    let pool = ThreadPool::new(2);
    let outer_data: Vec<usize> = (0..scaled(16, 4)).collect();
    let total = AtomicUsize::new(0);
    pool.scope(|s| {
        for &x in &outer_data {
            let (pool, total) = (&pool, &total);
            s.spawn(move |_| {
                // A second scope inside a task, borrowing this task's frame.
                let inner_data: Vec<usize> = (0..x).collect();
                let inner_total = AtomicUsize::new(0);
                pool.scope(|inner| {
                    for y in &inner_data {
                        let inner_total = &inner_total;
                        inner.spawn(move |_| {
                            inner_total.fetch_add(*y, Relaxed);
                        });
                    }
                });
                // Every inner task has finished once the inner scope returns.
                let expected: usize = inner_data.iter().sum();
                assert_eq!(inner_total.load(Relaxed), expected);
                total.fetch_add(expected, Relaxed);
            });
        }
    });
    let expected: usize = outer_data.iter().map(|x| x * x.saturating_sub(1) / 2).sum();
    assert_eq!(total.load(Relaxed), expected);
}

#[test]
fn scope_from_inside_a_task_on_one_thread() {
    let pool = Arc::new(ThreadPool::new(1));
    let inner = pool.clone();
    let handle = pool.submit(move || {
        let mut parts = [0usize; 4];
        inner.scope(|s| {
            for (i, part) in parts.iter_mut().enumerate() {
                s.spawn(move |_| *part = i + 1);
            }
        });
        parts
    });
    assert_eq!(handle.join().unwrap(), [1, 2, 3, 4]);
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}

// ---------------------------------------------------------------- install

#[test]
fn install_runs_on_a_worker_and_returns_its_value() {
    let pool = ThreadPool::new(2);
    let local = [1, 2, 3];
    let (index, sum) = pool.install(|| (current_thread_index(), local.iter().sum::<i32>()));
    assert!(matches!(index, Some(0 | 1)));
    assert_eq!(sum, 6);
}

#[test]
fn install_inside_the_pool_runs_inline() {
    let pool = ThreadPool::new(2);
    let (outer, inner, thread_ids) = pool.install(|| {
        let outer = current_thread_index();
        let outer_thread = thread::current().id();
        let (inner, inner_thread) = pool.install(|| (current_thread_index(), thread::current().id()));
        (outer, inner, (outer_thread, inner_thread))
    });
    assert_eq!(outer, inner);
    assert_eq!(
        thread_ids.0, thread_ids.1,
        "a nested install moved to another thread"
    );
}

#[test]
fn install_on_another_pool_runs_there() {
    let small = ThreadPool::new(1);
    let other = ThreadPool::new(2);
    // A worker of `small` asks `other` for work: it blocks (it is not one of
    // `other`'s workers) and the closure sees `other`'s index.
    let seen = small
        .install(|| other.install(|| (current_thread_index(), thread::current().name().map(String::from))));
    assert!(matches!(seen.0, Some(0 | 1)));
    assert!(seen.1.unwrap().starts_with("stealpool-worker-"));
}

// ---------------------------------------------------------------- wait_all

#[test]
fn wait_all_from_outside_waits_for_tasks_spawned_by_tasks() {
    fn tree(pool: &Arc<ThreadPool>, depth: u32, done: &Arc<AtomicUsize>) {
        done.fetch_add(1, Relaxed);
        if depth == 0 {
            return;
        }
        for _ in 0..2 {
            let (spawner, done) = (pool.clone(), done.clone());
            pool.spawn(move || tree(&spawner, depth - 1, &done));
        }
    }
    let depth = scaled(10, 3) as u32;
    let pool = Arc::new(ThreadPool::new(2));
    let done = Arc::new(AtomicUsize::new(0));
    let (spawner, counter) = (pool.clone(), done.clone());
    pool.spawn(move || tree(&spawner, depth, &counter));
    pool.wait_all();
    assert_eq!(done.load(Relaxed), (1 << (depth + 1)) - 1);
    assert_eq!(pool.pending_tasks(), 0);
    unwrap_pool(pool).shutdown();
}

#[test]
fn wait_all_on_an_idle_pool_returns() {
    let pool = ThreadPool::new(2);
    pool.wait_all();
    pool.install(|| ());
    pool.wait_all();
    assert_eq!(pool.pending_tasks(), 0);
}

/// Observed semantics of `wait_all` inside a task: it runs other work while
/// it waits, and returns once every task except the caller has finished,
/// including tasks spawned before it from outside and tasks it spawned.
#[test]
fn wait_all_inside_a_task_waits_for_every_other_task() {
    let (outside, inside) = (scaled(50, 4), scaled(50, 4));
    let pool = Arc::new(ThreadPool::new(2));
    let done = Arc::new(AtomicUsize::new(0));
    for _ in 0..outside {
        let done = done.clone();
        pool.spawn(move || {
            thread::yield_now();
            done.fetch_add(1, Relaxed);
        });
    }
    let (inner, counter) = (pool.clone(), done.clone());
    let seen_after_wait = pool.submit(move || {
        for _ in 0..inside {
            let counter = counter.clone();
            inner.spawn(move || {
                counter.fetch_add(1, Relaxed);
            });
        }
        inner.wait_all();
        // Only the caller itself is unfinished now.
        (counter.load(Relaxed), inner.pending_tasks())
    });
    assert_eq!(seen_after_wait.join().unwrap(), (outside + inside, 1));
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}

#[test]
fn wait_all_inside_a_task_on_one_thread_runs_the_queued_tasks() {
    // The only worker is the one waiting: the queued tasks can only finish
    // if `wait_all` runs them itself.
    let pool = Arc::new(ThreadPool::new(1));
    let done = Arc::new(AtomicUsize::new(0));
    let (inner, counter) = (pool.clone(), done.clone());
    let handle = pool.submit(move || {
        for _ in 0..10 {
            let counter = counter.clone();
            inner.spawn(move || {
                counter.fetch_add(1, Relaxed);
            });
        }
        inner.wait_all();
        counter.load(Relaxed)
    });
    assert_eq!(handle.join().unwrap(), 10);
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}

/// Two tasks in `wait_all` at once, on different workers, must not wait for
/// each other: each returns once everything else has finished.
#[test]
fn two_tasks_in_wait_all_at_once_do_not_deadlock() {
    let children = scaled(20, 3);
    let pool = Arc::new(ThreadPool::new(2));
    let arrived = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let waiters: Vec<_> = (0..2)
        .map(|_| {
            let (inner, arrived, done) = (pool.clone(), arrived.clone(), done.clone());
            pool.submit(move || {
                // Both waiters run at the same time, one per worker.
                let met = rendezvous(&arrived, 2);
                for _ in 0..children {
                    let done = done.clone();
                    inner.spawn(move || {
                        done.fetch_add(1, Relaxed);
                    });
                }
                inner.wait_all();
                (met, done.load(Relaxed))
            })
        })
        .collect();
    for waiter in waiters {
        let (met, seen) = waiter.join().unwrap();
        assert!(met, "the two waiters never ran at the same time");
        // Each waiter spawned `children`; the other's may not all be spawned
        // when it returns, but its own have all finished.
        assert!(seen >= children, "wait_all returned before its own children ran");
    }
    pool.wait_all();
    assert_eq!(done.load(Relaxed), 2 * children);
    unwrap_pool(pool).shutdown();
}

/// A task in `wait_all` runs other tasks on its stack; when one of those
/// calls `wait_all` too, the inner call must still wait for every task that
/// is not on this thread's stack.
///
/// On one worker the order is fixed: A spawns D and C, then waits; its
/// `wait_all` pops C (newest first) and runs it; C's `wait_all` must run D
/// before returning, since D is neither A nor C.
#[test]
fn nested_wait_all_on_one_worker_still_waits_for_queued_tasks() {
    let pool = Arc::new(ThreadPool::new(1));
    let d_done = Arc::new(AtomicBool::new(false));
    // 0: C has not returned from wait_all; 1: D was done then; 2: it was not.
    let observed = Arc::new(AtomicU8::new(0));
    let (inner, d_flag, seen) = (pool.clone(), d_done.clone(), observed.clone());
    let a = pool.submit(move || {
        let flag = d_flag.clone();
        inner.spawn(move || flag.store(true, Release));
        let (c_pool, c_flag, c_seen) = (inner.clone(), d_flag, seen);
        inner.spawn(move || {
            c_pool.wait_all();
            c_seen.store(if c_flag.load(Acquire) { 1 } else { 2 }, Release);
        });
        inner.wait_all();
    });
    a.join().unwrap();
    pool.wait_all();
    assert_eq!(
        observed.load(Acquire),
        1,
        "wait_all in C (run on the stack of A, itself in wait_all) returned while D was still queued"
    );
    assert!(d_done.load(Acquire));
    unwrap_pool(pool).shutdown();
}

/// `wait_all` from outside the pool waits for every task, including one that
/// is itself blocked in `wait_all` inside the pool.
#[test]
fn wait_all_from_outside_waits_for_a_task_inside_wait_all() {
    let pool = Arc::new(ThreadPool::new(2));
    let gate = Arc::new(Gate::default());
    let (b_started, a_waiting, a_done) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    // B holds one worker until the gate opens.
    {
        let (gate, started) = (gate.clone(), b_started.clone());
        pool.spawn(move || {
            started.store(true, Release);
            gate.wait();
        });
    }
    await_flag(&b_started, "task B to start");
    // A, on the other worker, waits in `wait_all` for B, then works a little
    // longer before it finishes.
    {
        let (inner, waiting, done) = (pool.clone(), a_waiting.clone(), a_done.clone());
        pool.spawn(move || {
            waiting.store(true, Release);
            inner.wait_all();
            thread::sleep(Duration::from_millis(50));
            done.store(true, Release);
        });
    }
    await_flag(&a_waiting, "task A to call wait_all");
    // Let A get inside `wait_all` before B is released.
    thread::sleep(Duration::from_millis(20));
    gate.open();
    pool.wait_all();
    let pending = pool.pending_tasks();
    let a_finished = a_done.load(Acquire);
    // Let A finish either way before the asserts, so a failure does not
    // leave the pool held by a running task.
    await_flag(&a_done, "task A to finish");
    assert_eq!(
        pending, 0,
        "wait_all from outside returned with a task still running"
    );
    assert!(
        a_finished,
        "wait_all from outside returned before task A (inside wait_all) finished"
    );
    pool.wait_all();
    unwrap_pool(pool).shutdown();
}

// ---------------------------------------------------------------- sizes and counts

#[test]
fn num_workers_is_the_requested_size() {
    for n in [1, 2, 3, scaled(8, 3)] {
        assert_eq!(ThreadPool::new(n).num_workers(), n);
    }
}

#[test]
fn zero_threads_means_available_parallelism() {
    let expected = thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(ThreadPool::new(0).num_workers(), expected);
    let built = ThreadPool::builder().num_threads(0).build().unwrap();
    assert_eq!(built.num_workers(), expected);
}

#[test]
fn pending_tasks_counts_queued_and_running_tasks() {
    let pool = ThreadPool::new(1);
    let gate = Arc::new(Gate::default());
    let started = Arc::new(AtomicBool::new(false));
    {
        let (gate, started) = (gate.clone(), started.clone());
        pool.spawn(move || {
            started.store(true, Release);
            gate.wait();
        });
    }
    await_flag(&started, "the blocking task to start");
    // The only worker is held: nothing below can finish yet.
    let queued = 5;
    for _ in 0..queued {
        pool.spawn(|| {});
    }
    let handle = pool.submit(|| 1);
    assert_eq!(pool.pending_tasks(), 1 + queued + 1);
    gate.open();
    pool.wait_all();
    assert_eq!(pool.pending_tasks(), 0);
    assert_eq!(handle.join().unwrap(), 1);
}

#[test]
fn stats_after_wait_all_count_every_task_exactly() {
    let pool = Arc::new(ThreadPool::new(2));
    let (spawned, submitted, scoped) = (scaled(300, 10), scaled(200, 10), scaled(100, 5));
    for _ in 0..spawned {
        pool.spawn(|| {});
    }
    let handles: Vec<_> = (0..submitted).map(|i| pool.submit(move || i)).collect();
    pool.scope(|s| {
        for _ in 0..scoped {
            // Each scope task spawns one more: both count.
            s.spawn(|s| s.spawn(|_| {}));
        }
    });
    // Neither `join` halves nor `install` closures are tasks.
    pool.join(|| (), || ());
    pool.install(|| pool.join(|| (), || ()));
    // A task that spawns from inside: the inner one counts as well.
    let inner = pool.clone();
    pool.spawn(move || inner.spawn(|| {}));
    for handle in handles {
        handle.join().unwrap();
    }
    pool.wait_all();
    let stats = pool.stats();
    let tasks = (spawned + submitted + 2 * scoped + 2) as u64;
    assert_eq!(stats.tasks_executed, tasks, "{stats:?}");
    assert_eq!(stats.panicked, 0);
    assert_eq!(stats.per_worker.len(), 2);
    assert_eq!(
        stats.per_worker.iter().map(|w| w.tasks_executed).sum::<u64>(),
        tasks
    );
    assert_eq!(
        stats.per_worker.iter().map(|w| w.steal_attempts).sum::<u64>(),
        stats.steal_attempts
    );
    assert_eq!(
        stats.per_worker.iter().map(|w| w.tasks_stolen).sum::<u64>(),
        stats.tasks_stolen
    );
    assert_eq!(
        stats.per_worker.iter().map(|w| w.successful_steals).sum::<u64>(),
        stats.successful_steals
    );
    assert!(stats.successful_steals <= stats.steal_attempts, "{stats:?}");
    // A successful steal brings back at least one job.
    assert!(stats.tasks_stolen >= stats.successful_steals, "{stats:?}");
    unwrap_pool(pool).shutdown();
}

#[test]
fn a_fresh_pool_has_zeroed_stats() {
    let pool = ThreadPool::new(3);
    let stats = pool.stats();
    assert_eq!(stats.tasks_executed, 0);
    assert_eq!(stats.panicked, 0);
    assert_eq!(stats.per_worker.len(), 3);
    assert!(stats
        .per_worker
        .iter()
        .all(|w| w.tasks_executed == 0 && w.panicked == 0));
}

// ---------------------------------------------------------------- current_thread_index

#[test]
fn current_thread_index_is_none_outside_and_each_worker_inside() {
    assert_eq!(current_thread_index(), None);
    let workers = 2;
    let pool = ThreadPool::new(workers);
    let arrived = Arc::new(AtomicUsize::new(0));
    // One task per worker, held together so that every worker runs one.
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let arrived = arrived.clone();
            pool.submit(move || (rendezvous(&arrived, workers), current_thread_index()))
        })
        .collect();
    let mut indices = HashSet::new();
    for handle in handles {
        let (met, index) = handle.join().unwrap();
        assert!(met, "the workers never ran at the same time");
        indices.insert(index.expect("a task ran outside the pool"));
    }
    assert_eq!(indices, (0..workers).collect::<HashSet<_>>());
    // A plain thread is in no pool, even while a pool runs.
    assert_eq!(thread::spawn(current_thread_index).join().unwrap(), None);
}

#[test]
fn current_thread_index_in_every_kind_of_work() {
    let pool = ThreadPool::new(2);
    let in_range = |i: Option<usize>| matches!(i, Some(0 | 1));
    assert!(in_range(pool.submit(current_thread_index).join().unwrap()));
    let (a, b) = pool.join(current_thread_index, current_thread_index);
    assert!(in_range(a) && in_range(b));
    let mut in_scope = None;
    pool.scope(|s| s.spawn(|_| in_scope = current_thread_index()));
    assert!(in_range(in_scope));
    assert!(in_range(pool.install(current_thread_index)));
}

// ---------------------------------------------------------------- builder

#[test]
fn thread_names_are_visible_inside_tasks() {
    let workers = 2;
    let named = ThreadPool::builder()
        .num_threads(workers)
        .thread_name(|i| format!("api-test-{i}"))
        .build()
        .unwrap();
    let default = ThreadPool::new(workers);
    for (pool, prefix) in [(&named, "api-test-"), (&default, "stealpool-worker-")] {
        let arrived = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let arrived = arrived.clone();
                pool.submit(move || {
                    let met = rendezvous(&arrived, workers);
                    (
                        met,
                        thread::current().name().map(String::from),
                        current_thread_index(),
                    )
                })
            })
            .collect();
        for handle in handles {
            let (met, name, index) = handle.join().unwrap();
            assert!(met, "the workers never ran at the same time");
            assert_eq!(
                name.as_deref(),
                Some(format!("{prefix}{}", index.unwrap()).as_str())
            );
        }
    }
}

/// Touches `bytes` of stack in one frame; with the platform's default
/// thread stack (2 MiB on Linux), 8 MiB would overflow.
#[inline(never)]
fn use_stack(bytes_hint: usize) -> u8 {
    const BIG: usize = if cfg!(miri) { 64 << 10 } else { 8 << 20 };
    let mut buffer = [0u8; BIG];
    buffer[bytes_hint % BIG] = 1;
    std::hint::black_box(&mut buffer);
    buffer.iter().fold(0u8, |acc, b| acc.wrapping_add(*b))
}

#[test]
fn stack_size_applies_to_the_workers() {
    let pool = ThreadPool::builder()
        .num_threads(2)
        .stack_size(if cfg!(miri) { 1 << 20 } else { 32 << 20 })
        .build()
        .unwrap();
    let handles: Vec<_> = (0..2).map(|i| pool.submit(move || use_stack(i * 1000))).collect();
    for handle in handles {
        assert_eq!(handle.join().unwrap(), 1);
    }
}

#[test]
fn too_many_threads_is_a_build_error() {
    let error = ThreadPool::builder().num_threads(65_536).build().unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("65535") && message.contains("65536"),
        "{message}"
    );
    assert!(std::error::Error::source(&error).is_none());
    assert!(!format!("{error:?}").is_empty());
}

// ---------------------------------------------------------------- drop and shutdown

#[test]
fn drop_runs_every_task_queued_on_the_injector() {
    let tasks = scaled(5_000, 20);
    let pool = ThreadPool::new(2);
    let gate = Arc::new(Gate::default());
    // Hold both workers so that everything below is still queued.
    for _ in 0..2 {
        let gate = gate.clone();
        pool.spawn(move || gate.wait());
    }
    let seen = Arc::new(Seen::new(tasks));
    for task in 0..tasks {
        let seen = seen.clone();
        pool.spawn(move || seen.record(task));
    }
    gate.open();
    drop(pool);
    seen.assert_each_once();
}

#[test]
fn shutdown_runs_tasks_queued_on_the_workers_deques() {
    // One parent spawns every child from inside the pool, so the children
    // sit on workers' deques (not the injector) when the pool shuts down.
    let children = scaled(2_000, 20);
    let pool = Arc::new(ThreadPool::new(2));
    let gate = Arc::new(Gate::default());
    let seen = Arc::new(Seen::new(children));
    {
        let (spawner, gate, seen) = (pool.clone(), gate.clone(), seen.clone());
        pool.spawn(move || {
            for child in 0..children {
                let (gate, seen) = (gate.clone(), seen.clone());
                spawner.spawn(move || {
                    gate.wait();
                    seen.record(child);
                });
            }
        });
    }
    // The parent has returned (and dropped its clone of the pool) once this
    // is the last reference; the children are blocked behind the gate.
    let start = Instant::now();
    while Arc::strong_count(&pool) > 1 {
        assert!(start.elapsed() < DEADLINE, "the parent task never finished");
        thread::yield_now();
    }
    let pool = unwrap_pool(pool);
    assert!(pool.pending_tasks() > 0);
    gate.open();
    pool.shutdown();
    seen.assert_each_once();
}

/// Counts a worker thread's exit: a thread-local whose destructor runs when
/// the thread ends.
struct ExitSignal(Arc<AtomicUsize>);

impl Drop for ExitSignal {
    fn drop(&mut self) {
        self.0.fetch_add(1, Release);
    }
}

thread_local! {
    static ON_EXIT: std::cell::RefCell<Option<ExitSignal>> = const { std::cell::RefCell::new(None) };
}

/// Arms an [`ExitSignal`] on every worker of `pool` (one task per worker,
/// held together); the returned counter reaches `num_workers` once all of
/// them have exited.
fn watch_worker_exits(pool: &ThreadPool) -> Arc<AtomicUsize> {
    let exited = Arc::new(AtomicUsize::new(0));
    let arrived = Arc::new(AtomicUsize::new(0));
    let workers = pool.num_workers();
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (exited, arrived) = (exited.clone(), arrived.clone());
            pool.submit(move || {
                let met = rendezvous(&arrived, workers);
                ON_EXIT.with(|slot| *slot.borrow_mut() = Some(ExitSignal(exited)));
                met
            })
        })
        .collect();
    for handle in handles {
        assert!(handle.join().unwrap(), "the workers never ran at the same time");
    }
    exited
}

#[test]
fn drop_joins_every_worker_thread() {
    let pool = ThreadPool::new(2);
    let exited = watch_worker_exits(&pool);
    assert_eq!(exited.load(Acquire), 0);
    drop(pool);
    assert_eq!(
        exited.load(Acquire),
        2,
        "drop returned before every worker thread ended"
    );
}

#[test]
fn dropping_the_last_handle_inside_a_task_still_runs_queued_tasks() {
    // The last reference to the pool goes away on a worker, which cannot
    // join itself: the workers must still drain the queues and exit.
    let tasks = scaled(100, 5);
    let pool = Arc::new(ThreadPool::new(2));
    let exited = watch_worker_exits(&pool);
    let gate = Arc::new(Gate::default());
    let done = Arc::new(AtomicUsize::new(0));
    {
        let (owner, gate) = (pool.clone(), gate.clone());
        pool.spawn(move || {
            gate.wait();
            drop(owner);
        });
    }
    for _ in 0..tasks {
        let done = done.clone();
        pool.spawn(move || {
            done.fetch_add(1, Release);
        });
    }
    drop(pool);
    gate.open();
    // Both workers end on their own, after running every queued task (a
    // thread's exit happens after everything it did).
    let start = Instant::now();
    while exited.load(Acquire) < 2 {
        assert!(start.elapsed() < DEADLINE, "the workers never exited");
        thread::yield_now();
    }
    assert_eq!(done.load(Acquire), tasks);
}
