#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The builder's thread handlers: `spawn_handler` with its `ThreadBuilder`,
//! `build_scoped`, and the spare threads of a pool whose workers the
//! caller starts.

use std::cell::Cell;
use std::error::Error as _;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use stealpool::{ThreadBuilder, ThreadPool, ThreadPoolBuilder};

thread_local! {
    /// Set on a thread by the handler's code before it runs its worker.
    static STARTED_BY_HANDLER: Cell<bool> = const { Cell::new(false) };
}

fn started_by_handler() -> bool {
    STARTED_BY_HANDLER.with(Cell::get)
}

/// Starts `thread` on a std thread named as it says, marked as started by
/// a handler; returns its handle.
fn start_marked(thread: ThreadBuilder) -> io::Result<thread::JoinHandle<()>> {
    let name = thread.name().expect("a worker always has a name").to_owned();
    thread::Builder::new().name(name).spawn(move || {
        STARTED_BY_HANDLER.with(|s| s.set(true));
        thread.run();
        // After `run` the thread is no pool's any more.
        assert_eq!(stealpool::current_thread_index(), None);
    })
}

/// A counter of calls, to hand to `start_handler` / `exit_handler`.
fn counter() -> (Arc<AtomicUsize>, impl Fn(usize) + Send + Sync + 'static) {
    let count = Arc::new(AtomicUsize::new(0));
    let inner = count.clone();
    (count, move |_index| {
        inner.fetch_add(1, SeqCst);
    })
}

#[test]
fn every_worker_is_started_by_the_handler_once_with_its_index_and_name() {
    let seen = Mutex::new(Vec::new());
    let handles = Mutex::new(Vec::new());
    let pool = ThreadPoolBuilder::new()
        .num_threads(4)
        .thread_name(|i| format!("handled-{i}"))
        .stack_size(1 << 20)
        .spawn_handler(|thread| {
            assert_eq!(thread.stack_size(), Some(1 << 20));
            seen.lock()
                .unwrap()
                .push((thread.index(), thread.name().map(str::to_owned)));
            handles.lock().unwrap().push(start_marked(thread)?);
            Ok(())
        })
        .build()
        .unwrap();
    let seen = seen.into_inner().unwrap();
    let expected: Vec<_> = (0..4).map(|i| (i, Some(format!("handled-{i}")))).collect();
    assert_eq!(seen, expected, "one call per worker, in index order");

    // Every worker runs on the thread its handler call started.
    let on_workers = pool.broadcast(|ctx| {
        (
            ctx.index(),
            stealpool::current_thread_index(),
            thread::current().name().map(str::to_owned),
            started_by_handler(),
        )
    });
    for (i, (index, current, name, marked)) in on_workers.into_iter().enumerate() {
        assert_eq!((index, current), (i, Some(i)));
        assert_eq!(name, Some(format!("handled-{i}")));
        assert!(marked, "worker {i} runs on a thread its handler started");
    }
    // No spare threads: every thread that runs the pool's tasks is a worker.
    let total: u64 = pool.install(|| {
        let data: Vec<u64> = (1..=1000).collect();
        fn sum(s: &[u64]) -> u64 {
            if s.len() <= 8 {
                return s.iter().sum();
            }
            let (a, b) = s.split_at(s.len() / 2);
            let (x, y) = stealpool::join(|| sum(a), || sum(b));
            assert!(STARTED_BY_HANDLER.with(Cell::get));
            x + y
        }
        sum(&data)
    });
    assert_eq!(total, 500_500);
    assert_eq!(pool.stats().spare_threads_started, 0);
    drop(pool);
    for handle in handles.into_inner().unwrap() {
        // The assertion after `run` held on every thread.
        handle.join().unwrap();
    }
}

#[test]
fn a_handler_error_fails_build_and_stops_the_workers_started() {
    let (started, on_start) = counter();
    let (exited, on_exit) = counter();
    let handles = Mutex::new(Vec::new());
    let calls = AtomicUsize::new(0);
    let error = ThreadPool::builder()
        .num_threads(4)
        .start_handler(on_start)
        .exit_handler(on_exit)
        .spawn_handler(|thread| {
            calls.fetch_add(1, SeqCst);
            if thread.index() == 2 {
                return Err(io::Error::other("out of threads"));
            }
            handles.lock().unwrap().push(start_marked(thread)?);
            Ok(())
        })
        .build()
        .unwrap_err();
    assert_eq!(calls.load(SeqCst), 3, "no call after the failing one");
    let message = error.to_string();
    assert!(message.contains("spawn handler"), "{message}");
    assert!(message.contains("worker 2"), "{message}");
    assert!(message.contains("out of threads"), "{message}");
    let source = error.source().expect("the handler's error is the source");
    assert_eq!(source.to_string(), "out of threads");
    // `build` returned only once the two started workers left their loop:
    // each ran its exit handler (inside `run`) already.
    assert_eq!(exited.load(SeqCst), 2);
    assert_eq!(started.load(SeqCst), 2);
    // And their threads end: no worker is left waiting for work.
    for handle in handles.into_inner().unwrap() {
        handle.join().unwrap();
    }
}

#[test]
fn a_handler_error_on_the_first_worker_starts_nothing() {
    let error = ThreadPool::builder()
        .num_threads(3)
        .spawn_handler(|_thread| Err(io::Error::new(io::ErrorKind::WouldBlock, "not now")))
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("worker 0"), "{error}");
    let source = error.source().and_then(|e| e.downcast_ref::<io::Error>());
    assert_eq!(source.map(io::Error::kind), Some(io::ErrorKind::WouldBlock));
}

#[test]
fn a_panicking_handler_unwinds_out_of_build_after_stopping_the_workers() {
    let (exited, on_exit) = counter();
    let handles = Mutex::new(Vec::new());
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        ThreadPool::builder()
            .num_threads(3)
            .exit_handler(on_exit)
            .spawn_handler(|thread| {
                if thread.index() == 1 {
                    panic!("handler gave up");
                }
                handles.lock().unwrap().push(start_marked(thread)?);
                Ok(())
            })
            .build()
    }));
    let payload = result.expect_err("the handler's panic goes through build");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"handler gave up"));
    // Worker 0 was stopped during the unwind, before it ended.
    assert_eq!(exited.load(SeqCst), 1);
    for handle in handles.into_inner().unwrap() {
        handle.join().unwrap();
    }
}

#[test]
fn a_thread_builder_dropped_unrun_leaves_its_worker_out() {
    let handles = Mutex::new(Vec::new());
    let pool = ThreadPool::builder()
        .num_threads(3)
        .spawn_handler(|thread| {
            if thread.index() != 1 {
                handles.lock().unwrap().push(start_marked(thread)?);
            }
            Ok(())
        })
        .build()
        .unwrap();
    let indices = Mutex::new(Vec::new());
    pool.scope(|s| {
        for _ in 0..100 {
            s.spawn(|_| indices.lock().unwrap().push(stealpool::current_thread_index()));
        }
    });
    let indices = indices.into_inner().unwrap();
    assert_eq!(indices.len(), 100);
    assert!(
        indices.iter().all(|&i| i == Some(0) || i == Some(2)),
        "{indices:?}"
    );
    // The drop does not wait for the worker that never ran.
    drop(pool);
    for handle in handles.into_inner().unwrap() {
        handle.join().unwrap();
    }
}

#[test]
fn run_refuses_a_thread_that_is_already_a_worker() {
    let (sender, receiver) = mpsc::channel();
    let other = ThreadPool::builder()
        .num_threads(1)
        .spawn_handler(|thread| {
            sender.send(thread).unwrap();
            Ok(())
        })
        .build()
        .unwrap();
    let thread = receiver.recv().unwrap();
    let pool = ThreadPool::new(1);
    let outcome = pool.install(|| panic::catch_unwind(AssertUnwindSafe(|| thread.run())));
    let payload = outcome.expect_err("run on a worker panics");
    let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
    assert!(message.contains("already a pool's worker"), "{message}");
    // The `ThreadBuilder` was dropped in the unwind: `other`'s drop returns.
    drop(other);
}

#[test]
fn build_scoped_borrows_from_the_callers_frame_and_joins_its_threads() {
    let (exited, on_exit) = counter();
    let wrapped = AtomicUsize::new(0);
    let label = String::from("scoped");
    let mut results = vec![0u64; 64];
    let names = ThreadPool::builder()
        .num_threads(3)
        .thread_name(|i| format!("sc-{i}"))
        .exit_handler(on_exit)
        .build_scoped(
            |thread| {
                // Borrowed from the frame above, on every worker.
                assert_eq!(label, "scoped");
                wrapped.fetch_add(1, SeqCst);
                STARTED_BY_HANDLER.with(|s| s.set(true));
                thread.run();
            },
            |pool| {
                pool.scope(|s| {
                    for (i, slot) in results.iter_mut().enumerate() {
                        s.spawn(move |_| {
                            assert!(started_by_handler());
                            *slot = i as u64 * 2;
                        });
                    }
                });
                let mut names = pool.broadcast(|_| thread::current().name().map(str::to_owned));
                names.sort();
                names
            },
        )
        .unwrap();
    assert_eq!(
        names,
        [Some("sc-0".into()), Some("sc-1".into()), Some("sc-2".into())]
    );
    assert_eq!(results.iter().sum::<u64>(), 2 * (0..64).sum::<u64>());
    // Joined before returning: every wrapper ran, every worker exited.
    assert_eq!(wrapped.load(SeqCst), 3);
    assert_eq!(exited.load(SeqCst), 3);
    drop(label); // no longer borrowed
}

#[test]
fn build_scoped_reports_build_errors_without_calling_with_pool() {
    let called = Cell::new(false);
    let error = ThreadPool::builder()
        .num_threads(2)
        .thread_name(|i| format!("bad\0{i}"))
        .build_scoped(|thread| thread.run(), |_pool| called.set(true))
        .unwrap_err();
    assert!(error.to_string().contains("NUL"), "{error}");
    assert!(!called.get());
}

#[test]
fn a_panic_in_with_pool_drains_the_pool_and_joins_before_resuming() {
    let (exited, on_exit) = counter();
    let ran = Arc::new(AtomicUsize::new(0));
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        ThreadPool::builder()
            .num_threads(2)
            .exit_handler(on_exit)
            .build_scoped(
                |thread| thread.run(),
                |pool| {
                    for _ in 0..50 {
                        let ran = ran.clone();
                        pool.spawn(move || {
                            ran.fetch_add(1, SeqCst);
                        });
                    }
                    panic!("with_pool failed");
                },
            )
    }));
    let payload = result.expect_err("the panic comes out of build_scoped");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"with_pool failed"));
    // The pool's drop ran the queued tasks, and the scope joined the threads.
    assert_eq!(ran.load(SeqCst), 50);
    assert_eq!(exited.load(SeqCst), 2);
}

#[test]
fn a_panic_in_the_wrapper_surfaces_once_the_scope_ends() {
    let answered = Cell::new(None);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        ThreadPool::builder().num_threads(2).build_scoped(
            |thread| {
                if thread.index() == 1 {
                    panic!("wrapper failed");
                }
                thread.run();
            },
            // Worker 0 still serves the pool.
            |pool| answered.set(Some(pool.install(stealpool::current_thread_index))),
        )
    }));
    assert!(result.is_err(), "std::thread::scope re-raises the thread's panic");
    assert_eq!(answered.get(), Some(Some(0)));
}

#[test]
fn spares_with_a_handler_only_when_asked_for() {
    // By default none: a blocked worker blocks without a stand-in.
    let pool = ThreadPool::builder()
        .num_threads(1)
        .spawn_handler(|thread| start_marked(thread).map(drop))
        .build()
        .unwrap();
    pool.install(|| stealpool::block_in_place(|| ()));
    assert_eq!(pool.stats().spare_threads_started, 0);
    drop(pool);

    // Asked for: the pool's own threads stand in. The one worker blocks
    // until a task queued behind it has run, which only a spare can do.
    let pool = ThreadPool::builder()
        .num_threads(1)
        .thread_name(|i| format!("asked-{i}"))
        .max_blocking_threads(1)
        .spawn_handler(|thread| start_marked(thread).map(drop))
        .build()
        .unwrap();
    let on_spare = pool.install(|| {
        let (sender, receiver) = mpsc::channel();
        stealpool::spawn(move || {
            let here = (started_by_handler(), thread::current().name().map(str::to_owned));
            sender.send(here).unwrap();
        });
        stealpool::block_in_place(|| receiver.recv().unwrap())
    });
    // Not started by the handler, but named as the worker it stands in for.
    assert_eq!(on_spare, (false, Some("asked-0".to_owned())));
    assert_eq!(pool.stats().spare_threads_started, 1);
}
