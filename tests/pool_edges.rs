#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Edge paths where a user closure, a `Drop` or a misuse meets the pool's
//! own bookkeeping: a panic handler that waits, a handle used after a poll
//! took its result, a `thread_name` callback that panics or returns a name
//! std cannot use, and panic payloads whose `Drop` panics. Each of these
//! hung, leaked threads or aborted the process before it was fixed.

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::{mpsc, Arc, OnceLock, Weak};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::Instant;
use stealpool::ThreadPool;

mod common;
use common::{block_on, message, wait_for, DEADLINE, EXPECTED};

/// Keeps this file's deliberate panics quiet, `PanicsOnDrop` payloads
/// included.
fn quiet_expected_panics() {
    common::quiet_expected_panics_or(|payload| payload.is::<PanicsOnDrop>());
}

/// A value (and a panic payload) whose `Drop` panics; counts its drops.
#[derive(Debug)]
struct PanicsOnDrop(Arc<AtomicUsize>);

impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
        panic!("{EXPECTED}: a Drop that panics");
    }
}

/// The panic handler is part of the task it handles: its `wait_all`
/// exempts that task instead of waiting for it (which never ends).
#[test]
fn a_panic_handler_may_call_wait_all() {
    quiet_expected_panics();
    let slot: Arc<OnceLock<Weak<ThreadPool>>> = Arc::new(OnceLock::new());
    let (returned, returns) = mpsc::channel();
    let handler_slot = slot.clone();
    let pool = Arc::new(
        ThreadPool::builder()
            .num_threads(2)
            .panic_handler(move |_payload| {
                if let Some(pool) = handler_slot.get().and_then(Weak::upgrade) {
                    pool.wait_all();
                    let _ = returned.send(pool.pending_tasks());
                }
            })
            .build()
            .unwrap(),
    );
    slot.set(Arc::downgrade(&pool)).unwrap();
    pool.spawn(|| panic!("{EXPECTED}: spawned"));
    match returns.recv_timeout(DEADLINE) {
        // Only the handler's own task may still be counted.
        Ok(pending) => assert!(pending <= 1, "{pending} tasks pending after wait_all"),
        Err(error) => {
            // The worker is stuck; do not hang the test binary joining it.
            std::mem::forget(pool);
            panic!("the handler's wait_all did not return: {error}");
        }
    }
    pool.wait_all();
    assert_eq!(pool.pending_tasks(), 0);
}

/// After a poll returned `Ready`, the handle says it is finished, and
/// `join` or another poll panic with a message instead of hanging.
#[test]
fn a_handle_polled_to_completion_reports_it() {
    let pool = ThreadPool::new(1);
    let mut handle = pool.submit(|| 7);
    assert_eq!(block_on(&mut handle).unwrap(), 7);
    assert!(handle.is_finished());

    let waker = Waker::from(Arc::new(NoWake));
    let polled_again = panic::catch_unwind(AssertUnwindSafe(|| {
        let _ = pin!(&mut handle).poll(&mut Context::from_waker(&waker));
    }));
    let payload = polled_again.expect_err("a second poll after Ready panics");
    assert!(message(&*payload).unwrap().contains("polled to completion"));

    let joined = panic::catch_unwind(AssertUnwindSafe(|| handle.join()));
    let payload = joined.expect_err("join after Ready panics");
    assert!(message(&*payload).unwrap().contains("polled to completion"));
}

struct NoWake;
impl Wake for NoWake {
    fn wake(self: Arc<Self>) {}
}

/// The same on a worker, where a hang would also wedge the worker. The
/// other worker runs the task while this one polls.
#[test]
fn a_handle_polled_to_completion_on_a_worker_reports_it() {
    let pool = Arc::new(ThreadPool::new(2));
    let inner = pool.clone();
    let outcome = pool.install(move || {
        let mut handle = inner.submit(|| 1);
        assert_eq!(poll_until_ready(&mut handle).unwrap(), 1);
        assert!(handle.is_finished());
        panic::catch_unwind(AssertUnwindSafe(|| handle.join())).is_err()
    });
    assert!(outcome, "join after Ready did not panic");
}

/// Polls without parking (a worker must not park outside the pool's
/// protocol) until `future` is ready.
fn poll_until_ready<F: Future + Unpin>(future: &mut F) -> F::Output {
    let waker = Waker::from(Arc::new(NoWake));
    let mut cx = Context::from_waker(&waker);
    let start = Instant::now();
    loop {
        if let Poll::Ready(output) = pin!(&mut *future).poll(&mut cx) {
            return output;
        }
        assert!(start.elapsed() < DEADLINE, "the submitted task never ran");
        thread::yield_now();
    }
}

/// A `thread_name` callback that panics: the workers started before it are
/// stopped and joined, not left asleep forever. A worker holds the pool's
/// shared state, and with it the panic handler, until it exits: the
/// handler's captured value is dropped only once every worker has gone.
#[test]
fn a_panicking_thread_name_leaks_no_worker() {
    quiet_expected_panics();
    for _ in 0..3 {
        let dropped = Arc::new(AtomicBool::new(false));
        let guard = SetOnDrop(dropped.clone());
        let built = panic::catch_unwind(AssertUnwindSafe(|| {
            ThreadPool::builder()
                .num_threads(3)
                .panic_handler(move |_| {
                    let _ = &guard;
                })
                .thread_name(|i| {
                    assert!(i < 2, "{EXPECTED}: no name for worker {i}");
                    format!("edge-leak-{i}")
                })
                .build()
        }));
        assert!(built.is_err(), "the callback's panic reaches the caller");
        assert!(
            dropped.load(SeqCst),
            "workers of the failed build are still alive"
        );
    }
}

/// Sets its flag when dropped.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, SeqCst);
    }
}

/// Threads of this process whose name starts with `prefix` (Linux; none
/// elsewhere, nor under Miri, which isolates the file system).
fn threads_named(prefix: &str) -> usize {
    if cfg!(miri) {
        return 0;
    }
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with(prefix))
        .count()
}

/// A name std cannot give a thread is a `BuildError`, not a panic.
#[test]
fn a_thread_name_with_a_nul_byte_is_a_build_error() {
    let error = ThreadPool::builder()
        .num_threads(2)
        .thread_name(|i| format!("edge-nul\0{i}"))
        .build()
        .expect_err("a NUL byte in a thread name is an error");
    let text = error.to_string();
    assert!(
        text.contains("NUL") && text.contains("worker 0"),
        "unclear error: {text}"
    );
    assert_eq!(threads_named("edge-nul"), 0);
}

/// Both halves of a `join` panic after `b` was stolen, and `b`'s payload
/// panics when dropped: `a`'s panic reaches the caller, `b`'s payload is
/// dropped once, and the process survives.
#[test]
fn join_drops_a_second_payload_that_panics_on_drop() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let drops = Arc::new(AtomicUsize::new(0));
    for round in 1..=3 {
        let b_started = AtomicBool::new(false);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.join(
                || -> () {
                    assert!(wait_for(&b_started), "b was never stolen");
                    panic!("{EXPECTED} in a")
                },
                || -> () {
                    b_started.store(true, Release);
                    panic::panic_any(PanicsOnDrop(drops.clone()))
                },
            )
        }));
        assert_eq!(
            message(&*result.unwrap_err()).unwrap(),
            format!("{EXPECTED} in a")
        );
        assert_eq!(drops.load(SeqCst), round, "b's payload is dropped once");
    }
}

/// `a` panics and `b` was never stolen (one worker): `b` still runs (J5),
/// and its captures' `Drop`, which panics when `b` ends, does not abort.
#[test]
fn join_runs_b_whose_capture_panics_on_drop_after_a_panicked() {
    quiet_expected_panics();
    let pool = ThreadPool::new(1);
    let drops = Arc::new(AtomicUsize::new(0));
    let capture = PanicsOnDrop(drops.clone());
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.join(
            || -> () { panic!("{EXPECTED} in a") },
            move || {
                let _keep = &capture;
            },
        )
    }));
    assert_eq!(
        message(&*result.unwrap_err()).unwrap(),
        format!("{EXPECTED} in a")
    );
    assert_eq!(drops.load(SeqCst), 1, "b's capture is dropped once");
}

/// A scope's body and one of its tasks both panic, the task's payload
/// panicking on drop: whichever panic the scope keeps reaches the caller,
/// the other is dropped without unwinding, and the process survives.
#[test]
fn scope_drops_extra_payloads_that_panic_on_drop() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let drops = Arc::new(AtomicUsize::new(0));
    for _ in 0..3 {
        let before = drops.load(SeqCst);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                let drops = drops.clone();
                s.spawn(move |_| panic::panic_any(PanicsOnDrop(drops)));
                panic!("{EXPECTED} in the body")
            })
        }));
        let payload = result.unwrap_err();
        // The kept payload is ours to drop; if it is the one that panics on
        // drop, that panic is expected here.
        let _ = panic::catch_unwind(AssertUnwindSafe(|| drop(payload)));
        assert_eq!(
            drops.load(SeqCst),
            before + 1,
            "the task's payload is dropped once"
        );
    }
}

/// Joins `handle` on another thread; `None` if it has not finished after
/// [`DEADLINE`] (the handle never completes).
fn join_within_deadline<R: Send + 'static>(handle: stealpool::JoinHandle<R>) -> Option<thread::Result<R>> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let _ = sender.send(handle.join());
    });
    receiver.recv_timeout(DEADLINE).ok()
}

/// `zip` of a panicked input and one whose value panics on drop: the
/// handle gets the panic, the value is dropped once, quietly. (The value's
/// panic unwound past the packet's completion: the handle never completed.)
#[test]
fn zip_drops_the_other_input_quietly_when_one_panicked() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    for value_first in [false, true] {
        let drops = Arc::new(AtomicUsize::new(0));
        let panicked = pool.submit(|| -> u32 { panic!("{EXPECTED}: an input") });
        let value_drops = drops.clone();
        let value = pool.submit(move || PanicsOnDrop(value_drops));
        let outcome = if value_first {
            join_within_deadline(value.zip(panicked).then(|_| ()))
        } else {
            join_within_deadline(panicked.zip(value).then(|_| ()))
        };
        let payload = outcome
            .expect("the zipped handle never completed")
            .expect_err("the input's panic reaches the last handle");
        assert_eq!(message(&*payload).unwrap(), format!("{EXPECTED}: an input"));
        assert_eq!(drops.load(SeqCst), 1, "the other input's value is dropped once");
    }
    pool.wait_all();
    assert_eq!(pool.pending_tasks(), 0);
}

/// `when_all` with a panicked input among values (and payloads) that
/// panic on drop: the first panic reaches the handle, everything else is
/// dropped once, quietly. (Two such drops in one `Vec` aborted the process.)
#[test]
fn when_all_drops_the_other_inputs_quietly_when_one_panicked() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let drops = Arc::new(AtomicUsize::new(0));
    let value = |drops: &Arc<AtomicUsize>| {
        let drops = drops.clone();
        pool.submit(move || Some(PanicsOnDrop(drops)))
    };
    let second_payload = drops.clone();
    let handles = vec![
        value(&drops),
        pool.submit(|| -> Option<PanicsOnDrop> { panic!("{EXPECTED}: the first panic") }),
        value(&drops),
        pool.submit(move || -> Option<PanicsOnDrop> { panic::panic_any(PanicsOnDrop(second_payload)) }),
        value(&drops),
    ];
    let payload = join_within_deadline(pool.when_all(handles))
        .expect("the gathered handle never completed")
        .expect_err("the first input's panic reaches the handle");
    assert_eq!(
        message(&*payload).unwrap(),
        format!("{EXPECTED}: the first panic")
    );
    assert_eq!(
        drops.load(SeqCst),
        4,
        "three values and one payload, each dropped once"
    );
    pool.wait_all();
}

/// `b` panics while `a`'s value panics on drop, with `b` run inline and
/// with `b` stolen: `b`'s panic reaches the caller, `a`'s value is dropped
/// once, quietly. (Dropped by the unwinding, it aborted the process.)
#[test]
fn join_drops_the_first_value_quietly_when_the_second_half_panics() {
    quiet_expected_panics();
    let limited = ThreadPool::builder()
        .num_threads(1)
        .max_pending_joins(0)
        .build()
        .unwrap();
    for (pool, steal) in [
        (&ThreadPool::new(1), false),
        (&ThreadPool::new(2), true),
        (&limited, false),
    ] {
        let drops = Arc::new(AtomicUsize::new(0));
        let b_started = AtomicBool::new(false);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                pool.join(
                    || {
                        // With two workers, wait until the other one took `b`.
                        if steal {
                            assert!(wait_for(&b_started), "nobody took the second half");
                        }
                        PanicsOnDrop(drops.clone())
                    },
                    || -> () {
                        b_started.store(true, Release);
                        panic!("{EXPECTED}: b")
                    },
                )
            })
        }));
        let payload = result.expect_err("b's panic reaches the caller");
        assert_eq!(message(&*payload).unwrap(), format!("{EXPECTED}: b"));
        assert_eq!(drops.load(SeqCst), 1, "a's value is dropped once");
    }
}

/// A scope's body returns a value that panics on drop while one of its
/// tasks panics: the task's panic reaches the caller, the value is
/// dropped once, quietly.
#[test]
fn scope_drops_the_body_value_quietly_when_a_task_panicked() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let drops = Arc::new(AtomicUsize::new(0));
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            s.spawn(|_| panic!("{EXPECTED}: a scope task"));
            PanicsOnDrop(drops.clone())
        })
    }));
    let payload = result.expect_err("the task's panic reaches the caller");
    assert_eq!(message(&*payload).unwrap(), format!("{EXPECTED}: a scope task"));
    assert_eq!(drops.load(SeqCst), 1, "the body's value is dropped once");
}

/// A submitted task's panic whose payload panics on drop, with its handle
/// dropped: counted once, and not handed to the panic handler (which is
/// for `spawn`ed tasks). It was counted twice, the payload's own panic
/// reported as a second one.
#[test]
fn an_untaken_payload_that_panics_on_drop_is_one_panic() {
    quiet_expected_panics();
    let handled = Arc::new(AtomicUsize::new(0));
    let counter = handled.clone();
    let pool = ThreadPool::builder()
        .num_threads(1)
        .panic_handler(move |_| {
            counter.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    let drops = Arc::new(AtomicUsize::new(0));
    let payload_drops = drops.clone();
    drop(pool.submit(move || -> () { panic::panic_any(PanicsOnDrop(payload_drops)) }));
    pool.wait_all();
    let stats = pool.stats();
    assert_eq!((stats.tasks_executed, stats.panicked), (1, 1), "{stats:?}");
    assert_eq!(
        handled.load(SeqCst),
        0,
        "a submitted task's panic went to the panic handler"
    );
    assert_eq!(drops.load(SeqCst), 1, "the payload is dropped once");
}

/// A scope's body is not a task: its panic goes back to the caller and is
/// not counted in `Stats::panicked`, as `join`'s and `install`'s are not.
#[test]
fn a_scope_body_panic_is_not_a_task_panic() {
    quiet_expected_panics();
    let pool = ThreadPool::new(1);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|_| -> () { panic!("{EXPECTED}: body") })
    }));
    assert!(result.is_err());
    pool.wait_all();
    let stats = pool.stats();
    assert_eq!((stats.tasks_executed, stats.panicked), (0, 0), "{stats:?}");
}
