#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! rayon-core's names on stealpool: the builder's aliases and handlers,
//! the pool's and the free queries, yielding, `join_context`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use stealpool::{FnContext, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Yield};

#[test]
fn rayon_builder_names_build_and_report_errors() {
    let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    assert_eq!(pool.current_num_threads(), 3);
    let error: ThreadPoolBuildError = ThreadPoolBuilder::new()
        .num_threads(stealpool::max_num_threads() + 1)
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("at most"), "{error}");
}

#[test]
fn start_and_exit_handlers_run_once_on_each_worker_inside_the_pool() {
    let started = Arc::new(Mutex::new(Vec::new()));
    let exited = Arc::new(Mutex::new(Vec::new()));
    let (on_start, on_exit) = (started.clone(), exited.clone());
    let pool = ThreadPoolBuilder::new()
        .num_threads(3)
        .max_blocking_threads(0)
        .start_handler(move |index| {
            // Inside the worker: its index answers already.
            on_start
                .lock()
                .unwrap()
                .push((index, stealpool::current_thread_index()));
        })
        .exit_handler(move |index| on_exit.lock().unwrap().push(index))
        .build()
        .unwrap();
    assert_eq!(pool.install(|| 1 + 1), 2);
    drop(pool);
    let mut started = started.lock().unwrap().clone();
    started.sort_unstable();
    assert_eq!(started, [(0, Some(0)), (1, Some(1)), (2, Some(2))]);
    let mut exited = exited.lock().unwrap().clone();
    exited.sort_unstable();
    assert_eq!(exited, [0, 1, 2]);
}

#[test]
fn a_panicking_start_handler_goes_to_the_panic_handler_and_the_worker_lives() {
    let panics = Arc::new(AtomicUsize::new(0));
    let counted = panics.clone();
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .start_handler(|index| panic!("start handler of {index}"))
        .panic_handler(move |_| {
            counted.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    // Both workers still run tasks.
    let sum: usize = (0..100)
        .map(|i| pool.submit(move || i))
        .map(|h| h.join().unwrap())
        .sum();
    assert_eq!(sum, 4950);
    drop(pool);
    assert_eq!(panics.load(SeqCst), 2);
}

#[test]
fn spares_run_the_handlers_and_answer_a_workers_index() {
    let started = Arc::new(Mutex::new(Vec::new()));
    let on_start = started.clone();
    let exits = Arc::new(AtomicUsize::new(0));
    let on_exit = exits.clone();
    let pool = ThreadPoolBuilder::new()
        .num_threads(1)
        .max_blocking_threads(1)
        .start_handler(move |index| on_start.lock().unwrap().push(index))
        .exit_handler(move |_| {
            on_exit.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    let (sender, receiver) = mpsc::channel();
    let waiter =
        pool.submit(move || stealpool::block_in_place(|| receiver.recv_timeout(Duration::from_secs(60))));
    // Runs on the spare: the only worker is blocked until it sends.
    pool.spawn(move || sender.send(stealpool::current_thread_index()).unwrap());
    assert_eq!(waiter.join().unwrap(), Ok(Some(0)));
    let spares = pool.stats().spare_threads_started;
    assert_eq!(spares, 1);
    drop(pool);
    // The worker and the spare each started and exited once, both as 0.
    assert_eq!(*started.lock().unwrap(), [0, 0]);
    assert_eq!(exits.load(SeqCst), 2);
}

#[test]
fn yield_runs_one_queued_job_and_reports_idle_after() {
    assert_eq!(stealpool::yield_now(), None);
    assert_eq!(stealpool::yield_local(), None);
    let pool = ThreadPool::new(1);
    let ran = Arc::new(AtomicUsize::new(0));
    let counted = ran.clone();
    let (now, local, idle, pending) = pool.install(move || {
        let counted2 = counted.clone();
        stealpool::spawn(move || {
            counted.fetch_add(1, SeqCst);
        });
        stealpool::spawn(move || {
            counted2.fetch_add(1, SeqCst);
        });
        let pending = stealpool::current_thread_has_pending_tasks();
        (
            stealpool::yield_now(),
            stealpool::yield_local(),
            stealpool::yield_local(),
            pending,
        )
    });
    assert_eq!(
        (now, local, idle, pending),
        (
            Some(Yield::Executed),
            Some(Yield::Executed),
            Some(Yield::Idle),
            Some(true)
        )
    );
    assert_eq!(ran.load(SeqCst), 2);
    // Another pool's queries answer `None` on this pool's worker.
    let other = ThreadPool::new(1);
    assert_eq!(
        pool.install(|| (other.yield_now(), other.current_thread_index())),
        (None, None)
    );
}

#[test]
fn join_context_says_when_the_second_closure_was_stolen() {
    let pool = ThreadPool::new(2);
    let mut stolen_seen = false;
    // Rounds until a steal, not a fixed few: a round steals only if the
    // other worker asks for `b` while `a` spins, which a loaded machine
    // can delay for many rounds (it took more than 1 000 once).
    for _ in 0..200_000 {
        let b_ran = AtomicBool::new(false);
        let (a, b) = pool.install(|| {
            stealpool::join_context(
                |ctx: FnContext| {
                    // Give the other worker time to take `b`: wait for it a
                    // while (it may also come back here, not stolen).
                    for _ in 0..10_000 {
                        if b_ran.load(SeqCst) {
                            break;
                        }
                        std::hint::spin_loop();
                    }
                    ctx.migrated()
                },
                |ctx: FnContext| {
                    b_ran.store(true, SeqCst);
                    ctx.migrated()
                },
            )
        });
        assert!(!a, "the first closure runs on the caller");
        if b {
            stolen_seen = true;
            break;
        }
    }
    assert!(stolen_seen, "no round's second closure was stolen");
}
