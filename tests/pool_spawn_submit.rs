#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! `spawn` and `submit` on real threads: every task runs once, from outside
//! the pool and from inside a task, and a `submit` handle gives its value
//! back, joined on any thread, polled as a `Future`, or dropped without
//! cancelling the task.
//!
//! Counts scale down under Miri, which runs this file to check the pool for
//! undefined behaviour, data races and leaks.

use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use stealpool::{current_thread_index, JoinHandle, ThreadPool};

mod common;
use common::pool::{unwrap_pool, Seen};
use common::{scaled, Gate};

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
