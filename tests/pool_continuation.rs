//! Continuations: `JoinHandle::then`, `JoinHandle::zip`, `ThreadPool::when_all`
//! on real threads, attached before, while and after their antecedents
//! finish; panics through chains; shutdown; two pools.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

mod common;

use common::{block_on, message, quiet_expected_panics, scaled, wait_for, EXPECTED};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::{Arc, Mutex};
use std::thread;
use stealpool::{current_thread_index, JoinHandle, ThreadPool};

/// A task that waits until the gate opens, so a test can attach to it
/// while it surely has not finished.
fn gated(pool: &ThreadPool, gate: &Arc<AtomicBool>, value: u64) -> JoinHandle<u64> {
    let gate = gate.clone();
    pool.submit(move || {
        assert!(wait_for(&gate), "the gate never opened");
        value
    })
}

#[test]
fn then_attached_before_the_task_finishes_runs_after_it_on_a_worker() {
    let pool = ThreadPool::new(2);
    let gate = Arc::new(AtomicBool::new(false));
    let finished = Arc::new(AtomicBool::new(false));
    let task_finished = finished.clone();
    let task_gate = gate.clone();
    let head = pool.submit(move || {
        assert!(wait_for(&task_gate));
        task_finished.store(true, Release);
        20
    });
    let seen = finished.clone();
    let next = head.then(move |x| {
        assert!(seen.load(Acquire), "the continuation ran before its task");
        (x + 1, current_thread_index())
    });
    assert!(!next.is_finished());
    gate.store(true, Release);
    let (value, worker) = next.join().unwrap();
    assert_eq!(value, 21);
    assert!(worker.is_some(), "the continuation ran off the pool");
}

#[test]
fn then_attached_after_the_task_finished_still_runs_on_a_worker() {
    let pool = ThreadPool::new(2);
    let head = pool.submit(|| 5);
    pool.wait_all();
    assert!(head.is_finished());
    let next = head.then(|x| (x * 3, current_thread_index()));
    let (value, worker) = next.join().unwrap();
    assert_eq!(value, 15);
    assert!(worker.is_some(), "the continuation ran on the attaching thread");
}

#[test]
fn then_attached_inside_a_task() {
    let pool = Arc::new(ThreadPool::new(1));
    let inner = pool.clone();
    // On a one-worker pool: the task attaches and returns the new handle;
    // nothing waits inside the pool.
    let chained = pool
        .submit(move || inner.submit(|| 2).then(|x| x + 40))
        .join()
        .unwrap();
    assert_eq!(chained.join().unwrap(), 42);
}

#[test]
fn every_continuation_runs_exactly_once() {
    let pool = ThreadPool::new(2);
    let runs = Arc::new(AtomicUsize::new(0));
    let count = scaled(2000, 20);
    let handles: Vec<_> = (0..count)
        .map(|i| {
            let runs = runs.clone();
            pool.submit(move || i).then(move |i| {
                runs.fetch_add(1, Relaxed);
                i
            })
        })
        .collect();
    let values: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(values, (0..count).collect::<Vec<_>>());
    pool.wait_all();
    assert_eq!(runs.load(Relaxed), count);
    // Each continuation is a task of its own.
    assert_eq!(pool.stats().tasks_executed, 2 * count as u64);
}

#[test]
fn wait_all_waits_for_continuations_of_finished_tasks() {
    let pool = ThreadPool::new(2);
    let done = Arc::new(AtomicUsize::new(0));
    for _ in 0..scaled(200, 10) {
        let done = done.clone();
        // The handle is dropped at once: the chain runs anyway.
        drop(pool.submit(|| 1).then(move |x| done.fetch_add(x, Relaxed)));
    }
    pool.wait_all();
    assert_eq!(done.load(Relaxed), scaled(200, 10));
}

#[test]
fn a_long_chain_attached_before_its_head_runs_uses_no_stack() {
    let pool = ThreadPool::new(2);
    let gate = Arc::new(AtomicBool::new(false));
    let length = scaled(100_000, 50) as u64;
    let mut handle = gated(&pool, &gate, 0);
    for _ in 0..length {
        handle = handle.then(|x| x + 1);
    }
    gate.store(true, Release);
    assert_eq!(handle.join().unwrap(), length);
}

#[test]
fn a_panic_skips_the_rest_of_the_chain_and_reaches_the_last_handle() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let skipped = Arc::new(AtomicBool::new(true));
    let flag = skipped.clone();
    let last = pool
        .submit(|| -> u32 { panic!("{EXPECTED}: in the task") })
        .then(move |x| {
            flag.store(false, Relaxed);
            x + 1
        })
        .then(|x| x * 2);
    let payload = last.join().unwrap_err();
    assert_eq!(message(&*payload).unwrap(), format!("{EXPECTED}: in the task"));
    assert!(skipped.load(Relaxed), "a continuation of a panicked task ran");

    let last = pool
        .submit(|| 1u32)
        .then(|_| -> u32 { panic!("{EXPECTED}: in a continuation") })
        .then(|x| x + 1);
    let payload = last.join().unwrap_err();
    assert_eq!(
        message(&*payload).unwrap(),
        format!("{EXPECTED}: in a continuation")
    );
    pool.wait_all();
    // Each panic is counted once, where it happened; the workers survive.
    assert_eq!(pool.stats().panicked, 2);
    assert_eq!(pool.submit(|| 7).join().unwrap(), 7);
}

#[test]
fn when_all_keeps_the_handles_order_whatever_order_they_finish_in() {
    let pool = ThreadPool::new(2);
    let gates: Vec<_> = (0..4).map(|_| Arc::new(AtomicBool::new(false))).collect();
    let handles: Vec<_> = gates
        .iter()
        .zip(10..)
        .map(|(gate, v)| gated(&pool, gate, v))
        .collect();
    let all = pool.when_all(handles);
    for gate in gates.iter().rev() {
        assert!(!all.is_finished());
        gate.store(true, Release);
    }
    assert_eq!(all.join().unwrap(), [10, 11, 12, 13]);
}

#[test]
fn when_all_of_nothing_is_finished_at_once() {
    let pool = ThreadPool::new(1);
    let all = pool.when_all(std::iter::empty::<JoinHandle<String>>());
    assert!(all.is_finished());
    assert!(all.join().unwrap().is_empty());
    assert_eq!(
        pool.when_all(Vec::<JoinHandle<u8>>::new())
            .then(|v| v.len())
            .join()
            .unwrap(),
        0
    );
}

#[test]
fn when_all_reports_the_first_panic_in_handle_order() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let handles = vec![
        pool.submit(|| 1),
        pool.submit(|| -> i32 { panic!("{EXPECTED}: second") }),
        pool.submit(|| -> i32 { panic!("{EXPECTED}: third") }),
    ];
    let payload = pool.when_all(handles).join().unwrap_err();
    assert_eq!(message(&*payload).unwrap(), format!("{EXPECTED}: second"));
}

#[test]
fn zip_pairs_results_and_passes_panics_on() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    let gate = Arc::new(AtomicBool::new(false));
    let slow = gated(&pool, &gate, 3);
    let pair = pool.submit(|| "x").zip(slow).then(|(s, n)| s.repeat(n as usize));
    gate.store(true, Release);
    assert_eq!(pair.join().unwrap(), "xxx");

    let failed = pool
        .submit(|| 1)
        .zip(pool.submit(|| -> u8 { panic!("{EXPECTED}: zip") }));
    let payload = failed.join().unwrap_err();
    assert_eq!(message(&*payload).unwrap(), format!("{EXPECTED}: zip"));
}

#[test]
fn a_branching_chain_runs_in_dependency_order() {
    let pool = ThreadPool::new(2);
    let log = Arc::new(Mutex::new(Vec::new()));
    let record = |name: &'static str| {
        let log = log.clone();
        move |x: u64| {
            log.lock().unwrap().push(name);
            x
        }
    };
    let a = pool.submit(|| 1).then(record("a"));
    // A handle feeds one continuation, so `a`'s value reaches both
    // branches as a pair, and `d` waits for both.
    let shared = a.then(|x| (x, x));
    let (b_log, c_log) = (record("b"), record("c"));
    let b_and_c = shared.then(move |(x, y)| (b_log(x + 1), c_log(y + 2)));
    let d = b_and_c.then(|(b, c)| b * c).then(record("d"));
    assert_eq!(d.join().unwrap(), 6);
    assert_eq!(*log.lock().unwrap(), ["a", "b", "c", "d"]);
}

#[test]
fn handles_of_another_pool_are_gathered_and_finished_on_this_one() {
    let here = ThreadPool::builder()
        .num_threads(1)
        .thread_name(|i| format!("here-{i}"))
        .build()
        .unwrap();
    let there = ThreadPool::new(2);
    let handles: Vec<_> = (0..8u32).map(|i| there.submit(move || i)).collect();
    let sum = here.when_all(handles).then(|values| {
        (
            values.iter().sum::<u32>(),
            thread::current().name().map(str::to_string),
        )
    });
    let (total, name) = sum.join().unwrap();
    assert_eq!(total, 28);
    assert_eq!(name.as_deref(), Some("here-0"));
}

#[test]
fn shutdown_runs_every_chain_already_attached() {
    let done = Arc::new(AtomicUsize::new(0));
    let pool = ThreadPool::new(2);
    let count = scaled(500, 10);
    for i in 0..count {
        let done = done.clone();
        let step = pool.submit(move || i).then(|i| i + 1).then(|i| i * 2);
        drop(step.then(move |_| done.fetch_add(1, Relaxed)));
    }
    drop(pool);
    assert_eq!(done.load(Relaxed), count);
}

#[test]
fn then_on_a_finished_task_of_a_pool_that_is_gone_runs_here() {
    let pool = ThreadPool::new(2);
    let head = pool.submit(|| 9);
    drop(pool);
    let here = thread::current().id();
    let next = head.then(move |x| (x + 1, thread::current().id() == here));
    assert!(
        next.is_finished(),
        "with no worker left, the continuation runs before `then` returns"
    );
    assert_eq!(next.join().unwrap(), (10, true));
}

#[test]
fn a_continuation_handle_is_a_future() {
    let pool = ThreadPool::new(2);
    let gate = Arc::new(AtomicBool::new(false));
    let next = gated(&pool, &gate, 1).then(|x| x + 1);
    let opener = thread::spawn(move || gate.store(true, Release));
    assert_eq!(block_on(next).unwrap(), 2);
    opener.join().unwrap();
}

#[test]
fn then_on_a_handle_polled_to_completion_panics_with_a_message() {
    let pool = ThreadPool::new(1);
    let mut handle = pool.submit(|| 1);
    assert_eq!(block_on(&mut handle).unwrap(), 1);
    let payload = panic::catch_unwind(AssertUnwindSafe(move || handle.then(|x| x + 1))).unwrap_err();
    assert!(message(&*payload).unwrap().contains("polled"));
}

#[test]
fn concurrent_completions_trigger_when_all_once() {
    let pool = ThreadPool::new(2);
    let triggered = Arc::new(AtomicUsize::new(0));
    let rounds = scaled(500, 5);
    for round in 0..rounds {
        let triggered = triggered.clone();
        let pair = vec![pool.submit(move || round), pool.submit(move || round + 1)];
        let all = pool.when_all(pair).then(move |values| {
            triggered.fetch_add(1, Relaxed);
            values
        });
        assert_eq!(all.join().unwrap(), [round, round + 1]);
    }
    pool.wait_all();
    assert_eq!(triggered.load(Relaxed), rounds);
}

/// The README's example of a task graph, as written there.
#[test]
fn readme_task_graph() {
    let pool = ThreadPool::new(2);
    let parts: Vec<_> = (1..=4u64).map(|i| pool.submit(move || i * i)).collect();
    let report = pool
        .when_all(parts) // [1, 4, 9, 16], once all are done
        .then(|squares| squares.iter().sum::<u64>())
        .zip(pool.submit(|| "sum of squares"))
        .then(|(sum, label)| format!("{label}: {sum}"));
    assert_eq!(report.join().unwrap(), "sum of squares: 30");
}
