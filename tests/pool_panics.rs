#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Panics on every path: a `spawn`ed task's panic goes to the panic handler
//! and is counted; `submit` gives it back through the handle (blocking or
//! awaited); `join`, `scope` and `install` re-raise it in the caller once the
//! borrowed work has finished. Whatever panics, every worker survives and the
//! pool keeps running.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};
use stealpool::{current_thread_index, ThreadPool};

mod common;
use common::{block_on, message, scaled, wait_for, DEADLINE, EXPECTED};

/// Keeps this file's deliberate panics quiet, `Code` payloads included.
fn quiet_expected_panics() {
    common::quiet_expected_panics_or(|payload| payload.is::<Code>());
}

/// A non-string panic payload.
#[derive(Debug, PartialEq)]
struct Code(u32);

/// Every one of `n` callers arrives, then all leave; `false` after
/// [`DEADLINE`].
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

/// Fails unless every worker of `pool` can run a task at the same time as
/// all the others: a worker that died with a panic could not.
fn assert_every_worker_alive(pool: &ThreadPool) {
    let workers = pool.num_workers();
    let arrived = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let arrived = arrived.clone();
            pool.submit(move || rendezvous(&arrived, workers))
        })
        .collect();
    for handle in handles {
        assert!(handle.join().unwrap(), "not every worker is still running tasks");
    }
}

// ---------------------------------------------------------------- spawn

#[test]
fn spawn_panics_go_to_the_handler_and_the_pool_keeps_running() {
    quiet_expected_panics();
    type Seen = Vec<(Option<String>, Option<Code>, Option<usize>)>;
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let handler_seen = seen.clone();
    let pool = ThreadPool::builder()
        .num_threads(2)
        .panic_handler(move |payload| {
            let code = payload.downcast_ref::<Code>().map(|c| Code(c.0));
            handler_seen
                .lock()
                .unwrap()
                .push((message(&*payload), code, current_thread_index()));
        })
        .build()
        .unwrap();
    let (panicking, fine) = (scaled(20, 3), scaled(20, 3));
    for i in 0..panicking {
        pool.spawn(move || panic!("{EXPECTED} {i}"));
    }
    pool.spawn(|| panic!("{}", EXPECTED));
    pool.spawn(|| panic::panic_any(Code(7)));
    let ran = Arc::new(AtomicUsize::new(0));
    for _ in 0..fine {
        let ran = ran.clone();
        pool.spawn(move || {
            ran.fetch_add(1, Relaxed);
        });
    }
    pool.wait_all();

    let mut seen = std::mem::take(&mut *seen.lock().unwrap());
    assert_eq!(
        seen.len(),
        panicking + 2,
        "the handler was not called once per panic"
    );
    assert!(
        seen.iter().all(|(_, _, index)| matches!(index, Some(0 | 1))),
        "the handler ran off the workers"
    );
    let codes: Vec<_> = seen.iter_mut().filter_map(|(_, code, _)| code.take()).collect();
    assert_eq!(
        codes,
        [Code(7)],
        "the non-string payload did not reach the handler intact"
    );
    let mut messages: Vec<String> = seen.into_iter().filter_map(|(message, _, _)| message).collect();
    messages.sort();
    let mut expected: Vec<String> = (0..panicking).map(|i| format!("{EXPECTED} {i}")).collect();
    expected.push(EXPECTED.to_string());
    expected.sort();
    assert_eq!(messages, expected);

    assert_eq!(ran.load(Relaxed), fine);
    let stats = pool.stats();
    assert_eq!(stats.panicked, (panicking + 2) as u64, "{stats:?}");
    assert_eq!(stats.tasks_executed, (panicking + 2 + fine) as u64, "{stats:?}");
    assert_eq!(
        stats.per_worker.iter().map(|w| w.panicked).sum::<u64>(),
        stats.panicked
    );
    assert_eq!(pool.pending_tasks(), 0);
    assert_every_worker_alive(&pool);
    assert_eq!(pool.submit(|| 41 + 1).join().unwrap(), 42);
}

#[test]
fn the_default_handler_counts_panics_and_the_pool_goes_on() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let panics = scaled(10, 2);
    for i in 0..panics {
        pool.spawn(move || panic!("{EXPECTED} {i} (reported by the default handler)"));
    }
    pool.wait_all();
    assert_eq!(pool.stats().panicked, panics as u64);
    assert_every_worker_alive(&pool);
}

#[test]
fn a_panicking_panic_handler_does_not_kill_a_worker() {
    quiet_expected_panics();
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let pool = ThreadPool::builder()
        .num_threads(2)
        .panic_handler(move |_| {
            counted.fetch_add(1, Relaxed);
            panic!("{EXPECTED} in the panic handler");
        })
        .build()
        .unwrap();
    let panics = scaled(10, 2);
    for _ in 0..panics {
        pool.spawn(|| panic!("{EXPECTED} in a task"));
    }
    pool.wait_all();
    assert_eq!(calls.load(Relaxed), panics);
    assert_eq!(pool.stats().panicked, panics as u64);
    assert_every_worker_alive(&pool);
}

#[test]
fn workers_survive_a_storm_of_panics() {
    quiet_expected_panics();
    let pool = ThreadPool::builder()
        .num_threads(2)
        .panic_handler(|_| {})
        .build()
        .unwrap();
    let (spawned, submitted) = (scaled(2_000, 10), scaled(1_000, 10));
    for _ in 0..spawned {
        pool.spawn(|| panic!("{EXPECTED}"));
    }
    let handles: Vec<_> = (0..submitted)
        .map(|i| pool.submit(move || -> usize { panic!("{EXPECTED} {i}") }))
        .collect();
    for (i, handle) in handles.into_iter().enumerate() {
        let payload = handle.join().unwrap_err();
        assert_eq!(message(&*payload), Some(format!("{EXPECTED} {i}")));
    }
    pool.wait_all();
    let stats = pool.stats();
    assert_eq!(stats.panicked, (spawned + submitted) as u64);
    assert_eq!(stats.tasks_executed, (spawned + submitted) as u64);
    assert_every_worker_alive(&pool);
}

// ---------------------------------------------------------------- submit

#[test]
fn a_submitted_panic_comes_back_through_the_handle() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let string = pool.submit(|| -> u8 { panic!("{EXPECTED}: a String payload") });
    let static_str = pool.submit(|| -> u8 { panic!("{}", EXPECTED) });
    let code = pool.submit(|| -> u8 { panic::panic_any(Code(3)) });
    let awaited = pool.submit(|| -> u8 { panic!("{EXPECTED}: awaited") });
    let fine = pool.submit(|| 9u8);

    let payload = string.join().unwrap_err();
    assert_eq!(
        message(&*payload).unwrap(),
        format!("{EXPECTED}: a String payload")
    );
    let payload = static_str.join().unwrap_err();
    assert_eq!(message(&*payload).unwrap(), EXPECTED);
    let payload = code.join().unwrap_err();
    assert_eq!(payload.downcast_ref::<Code>(), Some(&Code(3)));
    let payload = block_on(awaited).unwrap_err();
    assert_eq!(message(&*payload).unwrap(), format!("{EXPECTED}: awaited"));
    assert_eq!(fine.join().unwrap(), 9);

    pool.wait_all();
    assert_eq!(pool.stats().panicked, 4);
    assert_every_worker_alive(&pool);
}

#[test]
fn a_submitted_panic_comes_back_to_a_task_that_joins_it() {
    quiet_expected_panics();
    let pool = Arc::new(ThreadPool::new(1));
    let inner = pool.clone();
    let outer = pool.submit(move || {
        let child = inner.submit(|| -> u8 { panic!("{EXPECTED} in a child") });
        message(&*child.join().unwrap_err())
    });
    assert_eq!(outer.join().unwrap(), Some(format!("{EXPECTED} in a child")));
    pool.wait_all();
    assert_eq!(pool.stats().panicked, 1);
    Arc::try_unwrap(pool)
        .expect("finished tasks still hold the pool")
        .shutdown();
}

// ---------------------------------------------------------------- join

/// What one half of a `join` did, for the other half's panic to be checked
/// against.
#[derive(Default)]
struct Half {
    started: AtomicBool,
    finished: AtomicBool,
}

impl Half {
    /// Runs slowly (so a premature re-raise would be seen), then finishes.
    fn run(&self) {
        self.started.store(true, Release);
        thread::sleep(Duration::from_millis(if cfg!(miri) { 1 } else { 20 }));
        self.finished.store(true, Release);
    }
}

/// `a` panics once `b` has been stolen by the other worker; the panic must
/// reach the caller only after `b` has run to completion.
fn join_a_panics_after_b_is_stolen(pool: &ThreadPool) {
    let b = Half::default();
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.join(
            || {
                let stolen = wait_for(&b.started);
                panic!("{EXPECTED} in a (b stolen: {stolen})");
            },
            || b.run(),
        )
    }));
    let payload = result.unwrap_err();
    assert_eq!(
        message(&*payload).unwrap(),
        format!("{EXPECTED} in a (b stolen: true)")
    );
    assert!(
        b.finished.load(Acquire),
        "join re-raised a's panic while b was still running"
    );
}

#[test]
fn join_reraises_a_panic_of_a_after_a_stolen_b_finished() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    for _ in 0..scaled(10, 2) {
        // From outside (through `install`) and from a worker.
        join_a_panics_after_b_is_stolen(&pool);
        pool.install(|| join_a_panics_after_b_is_stolen(&pool));
    }
    assert_every_worker_alive(&pool);
}

#[test]
fn join_reraises_a_panic_of_b_after_a_finished() {
    quiet_expected_panics();
    for workers in [1, 2] {
        let pool = ThreadPool::new(workers);
        for _ in 0..scaled(10, 2) {
            let a = Half::default();
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.join(|| a.run(), || -> () { panic!("{EXPECTED} in b") })
            }));
            let payload = result.unwrap_err();
            assert_eq!(message(&*payload).unwrap(), format!("{EXPECTED} in b"));
            assert!(
                a.finished.load(Acquire),
                "join re-raised b's panic before a finished"
            );
        }
        assert_every_worker_alive(&pool);
    }
}

#[test]
fn join_with_both_halves_panicking_reraises_a() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    for _ in 0..scaled(10, 2) {
        let b_started = AtomicBool::new(false);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.join(
                || -> () {
                    wait_for(&b_started);
                    panic!("{EXPECTED} in a")
                },
                || -> () {
                    b_started.store(true, Release);
                    panic!("{EXPECTED} in b")
                },
            )
        }));
        assert_eq!(
            message(&*result.unwrap_err()).unwrap(),
            format!("{EXPECTED} in a")
        );
    }
    assert_every_worker_alive(&pool);
}

#[test]
fn join_on_one_thread_never_leaves_b_half_done() {
    // With one worker nobody can steal `b`: when `a` panics, `b` either ran
    // to completion before the panic reached the caller or never started.
    quiet_expected_panics();
    let pool = ThreadPool::new(1);
    let b = Half::default();
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.join(|| -> () { panic!("{EXPECTED} in a") }, || b.run())
    }));
    assert_eq!(
        message(&*result.unwrap_err()).unwrap(),
        format!("{EXPECTED} in a")
    );
    let (started, finished) = (b.started.load(Acquire), b.finished.load(Acquire));
    assert!(!started || finished, "b was cut short by a's panic");
    eprintln!("join on one thread, a panicked: b started = {started}, finished = {finished}");
    assert_every_worker_alive(&pool);
}

#[test]
fn a_spawned_panic_run_by_a_waiting_join_goes_to_the_handler() {
    // `a` spawns panicking tasks onto the worker's deque above `b`; the join
    // runs them while it takes `b` back. Their panics belong to the handler,
    // not to the join.
    quiet_expected_panics();
    let handled = Arc::new(AtomicUsize::new(0));
    let counted = handled.clone();
    let pool = Arc::new(
        ThreadPool::builder()
            .num_threads(1)
            .panic_handler(move |_| {
                counted.fetch_add(1, Relaxed);
            })
            .build()
            .unwrap(),
    );
    let inner = pool.clone();
    let joined = pool.install(|| {
        inner.join(
            || {
                for _ in 0..3 {
                    inner.spawn(|| panic!("{EXPECTED} in a task spawned by a"));
                }
                1
            },
            || 2,
        )
    });
    assert_eq!(joined, (1, 2));
    pool.wait_all();
    assert_eq!(handled.load(Relaxed), 3);
    assert_eq!(pool.stats().panicked, 3);
    drop(inner);
    Arc::try_unwrap(pool)
        .expect("finished tasks still hold the pool")
        .shutdown();
}

// ---------------------------------------------------------------- scope

#[test]
fn scope_reraises_a_task_panic_after_every_task_finished() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let slow = scaled(8, 2);
    let finished = AtomicUsize::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            for _ in 0..slow {
                s.spawn(|s| {
                    thread::sleep(Duration::from_millis(if cfg!(miri) { 1 } else { 10 }));
                    // A task spawned by a task, still running when the panic
                    // below has long happened.
                    s.spawn(|_| {
                        thread::sleep(Duration::from_millis(if cfg!(miri) { 1 } else { 10 }));
                        finished.fetch_add(1, Relaxed);
                    });
                    finished.fetch_add(1, Relaxed);
                });
            }
            s.spawn(|_| panic!("{EXPECTED} in a scope task"));
        })
    }));
    assert_eq!(
        message(&*result.unwrap_err()).unwrap(),
        format!("{EXPECTED} in a scope task")
    );
    assert_eq!(
        finished.load(Relaxed),
        2 * slow,
        "scope re-raised before its tasks finished"
    );
    pool.wait_all();
    assert_eq!(pool.stats().panicked, 1);
    assert_every_worker_alive(&pool);
}

#[test]
fn scope_reraises_a_body_panic_after_every_task_finished() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let tasks = scaled(8, 2);
    let finished = AtomicUsize::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            for _ in 0..tasks {
                s.spawn(|_| {
                    thread::sleep(Duration::from_millis(if cfg!(miri) { 1 } else { 10 }));
                    finished.fetch_add(1, Relaxed);
                });
            }
            panic!("{EXPECTED} in a scope body");
        })
    }));
    assert_eq!(
        message(&*result.unwrap_err()).unwrap(),
        format!("{EXPECTED} in a scope body")
    );
    assert_eq!(
        finished.load(Relaxed),
        tasks,
        "scope re-raised before its tasks finished"
    );
    assert_every_worker_alive(&pool);
}

#[test]
fn scope_inside_a_task_reraises_in_that_task() {
    quiet_expected_panics();
    let pool = Arc::new(ThreadPool::new(2));
    let inner = pool.clone();
    let handle = pool.submit(move || {
        let done = AtomicUsize::new(0);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            inner.scope(|s| {
                s.spawn(|_| {
                    done.fetch_add(1, Relaxed);
                });
                s.spawn(|_| panic!("{EXPECTED} in a nested scope"));
                s.spawn(|_| {
                    done.fetch_add(1, Relaxed);
                });
            })
        }));
        (result.map_err(|payload| message(&*payload)), done.load(Relaxed))
    });
    let (result, done) = handle.join().unwrap();
    assert_eq!(result.unwrap_err(), Some(format!("{EXPECTED} in a nested scope")));
    assert_eq!(done, 2);
    pool.wait_all();
    Arc::try_unwrap(pool)
        .expect("finished tasks still hold the pool")
        .shutdown();
}

// ---------------------------------------------------------------- install

#[test]
fn install_reraises_and_the_pool_goes_on() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    for _ in 0..scaled(10, 2) {
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| -> () { panic!("{EXPECTED} in install") })
        }));
        assert_eq!(
            message(&*result.unwrap_err()).unwrap(),
            format!("{EXPECTED} in install")
        );
    }
    assert_eq!(pool.install(|| 5), 5);
    assert_every_worker_alive(&pool);
}

/// Panics in `join` and `install` reach their caller and are not tasks, so
/// `Stats::panicked` (tasks that panicked) does not count them; panics in
/// `spawn`ed, `submit`ted and scope work are counted once each.
#[test]
fn stats_count_each_task_panic_once() {
    quiet_expected_panics();
    let pool = ThreadPool::builder()
        .num_threads(2)
        .panic_handler(|_| {})
        .build()
        .unwrap();
    pool.spawn(|| panic!("{EXPECTED}"));
    let _ = pool.submit(|| panic!("{EXPECTED}")).join();
    let _ = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| s.spawn(|_| panic!("{EXPECTED}")))
    }));
    let _ = panic::catch_unwind(AssertUnwindSafe(|| pool.join(|| panic!("{EXPECTED}"), || ())));
    let _ = panic::catch_unwind(AssertUnwindSafe(|| pool.install(|| panic!("{EXPECTED}"))));
    pool.wait_all();
    let stats = pool.stats();
    assert_eq!(stats.panicked, 3, "{stats:?}");
    assert_eq!(stats.tasks_executed, 3, "{stats:?}");
}
