#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! FIFO spawns and scopes on real threads (E1-E3 in `proofs/fifo.md`):
//! the order on one worker, FIFO and plain spawns interleaved as rayon-core
//! orders them, every task run once on many workers, panics delivered, and
//! FIFO tasks of a waiting scope run with no spare to stand in.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::*};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use stealpool::ThreadPool;

/// A pool of one worker and no spare thread: the order is the worker's
/// alone, and a wait that needed a stand-in would hang instead.
fn one_worker() -> ThreadPool {
    ThreadPool::builder()
        .num_threads(1)
        .max_blocking_threads(0)
        .build()
        .unwrap()
}

#[test]
fn spawn_fifo_on_one_worker_starts_oldest_first() {
    let pool = one_worker();
    let (tx, rx) = mpsc::channel();
    pool.spawn(move || {
        for i in 0..20 {
            let tx = tx.clone();
            stealpool::spawn_fifo(move || tx.send(i).unwrap());
        }
    });
    pool.wait_all();
    assert_eq!(rx.iter().collect::<Vec<_>>(), (0..20).collect::<Vec<_>>());
}

#[test]
fn plain_spawn_on_one_worker_starts_newest_first() {
    // The contrast the test above relies on: without FIFO, the reverse.
    let pool = one_worker();
    let (tx, rx) = mpsc::channel();
    pool.spawn(move || {
        for i in 0..5 {
            let tx = tx.clone();
            stealpool::spawn(move || tx.send(i).unwrap());
        }
    });
    pool.wait_all();
    assert_eq!(rx.iter().collect::<Vec<_>>(), [4, 3, 2, 1, 0]);
}

#[test]
fn scope_fifo_on_one_worker_starts_oldest_first() {
    let pool = one_worker();
    let order = Mutex::new(Vec::new());
    pool.scope_fifo(|s| {
        for i in 0..20 {
            let order = &order;
            s.spawn_fifo(move |_| order.lock().unwrap().push(i));
        }
    });
    assert_eq!(order.into_inner().unwrap(), (0..20).collect::<Vec<_>>());
}

#[test]
fn nested_fifo_tasks_follow_their_parents() {
    // Each task spawns two children; breadth first, level by level.
    let pool = one_worker();
    let order = Mutex::new(Vec::new());
    fn visit<'s>(s: &stealpool::ScopeFifo<'s>, order: &'s Mutex<Vec<u32>>, node: u32) {
        order.lock().unwrap().push(node);
        if node < 8 {
            s.spawn_fifo(move |s| visit(s, order, 2 * node));
            s.spawn_fifo(move |s| visit(s, order, 2 * node + 1));
        }
    }
    let order_ref = &order;
    pool.scope_fifo(|s| s.spawn_fifo(move |s| visit(s, order_ref, 1)));
    assert_eq!(order.into_inner().unwrap(), (1..16).collect::<Vec<_>>());
}

#[test]
fn fifo_and_plain_spawns_interleave_as_rayon_orders_them() {
    // Plain spawns push their job, FIFO spawns a marker, on the one
    // deque: L0 m0 L1 m1 L2 m2. Popped newest first, each marker runs
    // the oldest FIFO task: F0 L2 F1 L1 F2 L0.
    let pool = one_worker();
    let (tx, rx) = mpsc::channel();
    pool.spawn(move || {
        for i in 0..3 {
            let lifo = tx.clone();
            stealpool::spawn(move || lifo.send(format!("L{i}")).unwrap());
            let fifo = tx.clone();
            stealpool::spawn_fifo(move || fifo.send(format!("F{i}")).unwrap());
        }
    });
    pool.wait_all();
    assert_eq!(
        rx.iter().collect::<Vec<_>>(),
        ["F0", "L2", "F1", "L1", "F2", "L0"]
    );
}

#[test]
fn fifo_tasks_in_a_waiting_scope_run_with_no_spare() {
    // A plain scope waits (H7) while FIFO scopes nest inside its tasks:
    // each FIFO scope's markers are its own scope tasks, so its waiting
    // worker runs them itself; the one worker has no stand-in.
    let pool = one_worker();
    let count = AtomicUsize::new(0);
    pool.scope(|outer| {
        for _ in 0..3 {
            outer.spawn(|_| {
                stealpool::scope_fifo(|s| {
                    for _ in 0..5 {
                        s.spawn_fifo(|_| {
                            count.fetch_add(1, Relaxed);
                        });
                    }
                });
            });
        }
    });
    assert_eq!(count.into_inner(), 15);
}

#[test]
fn pool_fifo_spawns_inside_a_waiting_scope_still_run() {
    // The pool's own FIFO markers are no scope's: a waiting scope hands
    // them to the injector, and they still find their task.
    let pool = ThreadPool::new(1);
    let count = Arc::new(AtomicUsize::new(0));
    pool.scope(|s| {
        for _ in 0..4 {
            let count = count.clone();
            s.spawn(move |_| {
                let count = count.clone();
                stealpool::spawn_fifo(move || {
                    count.fetch_add(1, Relaxed);
                });
            });
        }
    });
    pool.wait_all();
    assert_eq!(count.load(Relaxed), 4);
}

#[test]
fn every_fifo_task_runs_once_on_many_workers() {
    const TASKS: usize = 2_000;
    let pool = ThreadPool::new(4);
    let runs: Vec<AtomicUsize> = (0..TASKS).map(|_| AtomicUsize::new(0)).collect();
    pool.scope_fifo(|s| {
        for chunk in runs.chunks(100) {
            s.spawn_fifo(move |s| {
                for run in chunk {
                    s.spawn_fifo(move |_| {
                        run.fetch_add(1, Relaxed);
                    });
                }
            });
        }
    });
    assert!(runs.iter().all(|run| run.load(Relaxed) == 1));

    let done = Arc::new(AtomicUsize::new(0));
    let inner = done.clone();
    pool.spawn(move || {
        for _ in 0..TASKS {
            let done = inner.clone();
            stealpool::spawn_fifo(move || {
                done.fetch_add(1, Relaxed);
            });
        }
    });
    pool.wait_all();
    assert_eq!(done.load(Relaxed), TASKS);
}

#[test]
fn fifo_spawns_from_outside_the_pool_run() {
    let pool = ThreadPool::new(2);
    let done = Arc::new(AtomicUsize::new(0));
    for _ in 0..10 {
        let done = done.clone();
        pool.spawn_fifo(move || {
            done.fetch_add(1, Relaxed);
        });
    }
    pool.wait_all();
    assert_eq!(done.load(Relaxed), 10);
}

#[test]
fn a_panic_in_a_fifo_scope_task_reaches_the_scope_after_all_ran() {
    let pool = ThreadPool::new(2);
    let ran = AtomicUsize::new(0);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.scope_fifo(|s| {
            for i in 0..10 {
                let ran = &ran;
                s.spawn_fifo(move |_| {
                    ran.fetch_add(1, Relaxed);
                    if i == 3 {
                        panic!("task three");
                    }
                });
            }
        })
    }));
    let payload = outcome.expect_err("the task's panic was re-raised");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"task three"));
    assert_eq!(ran.into_inner(), 10);
}

#[test]
fn a_panic_in_a_fifo_spawn_reaches_the_handler() {
    let (tx, rx) = mpsc::channel::<String>();
    let tx = Mutex::new(tx);
    let pool = ThreadPool::builder()
        .num_threads(1)
        .panic_handler(move |payload| {
            let message = payload.downcast_ref::<&str>().copied().unwrap_or("?").to_owned();
            tx.lock().unwrap().send(message).unwrap();
        })
        .build()
        .unwrap();
    pool.spawn(|| stealpool::spawn_fifo(|| panic!("fifo task")));
    pool.wait_all();
    assert_eq!(rx.recv().unwrap(), "fifo task");
    // The worker survived it.
    assert_eq!(pool.install(|| 1 + 1), 2);
}

#[test]
fn in_place_scopes_run_on_the_calling_worker() {
    let pool = ThreadPool::new(2);
    let (caller, body) = pool.install(|| {
        let caller = std::thread::current().id();
        let body = stealpool::in_place_scope(|_| std::thread::current().id());
        (caller, body)
    });
    assert_eq!(caller, body);
    let order = Mutex::new(Vec::new());
    one_worker().install(|| {
        stealpool::in_place_scope_fifo(|s| {
            for i in 0..5 {
                let order = &order;
                s.spawn_fifo(move |_| order.lock().unwrap().push(i));
            }
        })
    });
    assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3, 4]);
}

#[test]
fn in_place_scope_outside_the_pool_runs_the_body_here() {
    // The body blocks on what a task sends: on the pool's only worker it
    // would wait forever; in place, the worker runs the task.
    let pool = one_worker();
    let here = std::thread::current().id();
    let not_send = std::rc::Rc::new(7);
    let (tx, rx) = mpsc::channel();
    let value = pool.in_place_scope(|s| {
        assert_eq!(std::thread::current().id(), here);
        s.spawn(move |_| tx.send(35).unwrap());
        rx.recv().unwrap() + *not_send
    });
    assert_eq!(value, 42);

    let (tx, rx) = mpsc::channel();
    let order = Mutex::new(Vec::new());
    pool.in_place_scope_fifo(|s| {
        for i in 0..5 {
            let order = &order;
            s.spawn_fifo(move |_| order.lock().unwrap().push(i));
        }
        s.spawn_fifo(move |_| tx.send(()).unwrap());
        rx.recv().unwrap();
    });
    assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3, 4]);
}

#[test]
fn in_place_scope_waits_for_every_task_and_reraises_a_panic() {
    let pool = ThreadPool::new(2);
    let ran = AtomicUsize::new(0);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.in_place_scope(|s| {
            for i in 0..50 {
                let ran = &ran;
                s.spawn(move |s| {
                    s.spawn(move |_| {
                        ran.fetch_add(1, Relaxed);
                    });
                    ran.fetch_add(1, Relaxed);
                    if i == 7 {
                        panic!("seven");
                    }
                });
            }
        })
    }));
    assert_eq!(outcome.unwrap_err().downcast_ref::<&str>(), Some(&"seven"));
    assert_eq!(ran.into_inner(), 100);
}

#[test]
fn in_place_scope_from_a_worker_of_another_pool_keeps_that_pool_going() {
    // Pool `a`'s only worker owns a scope of pool `b` whose task needs `a`:
    // a spare of `a` stands in while the worker blocks (E4).
    let a = Arc::new(ThreadPool::new(1));
    let b = ThreadPool::new(1);
    let inner = a.clone();
    let value = a.install(|| {
        b.in_place_scope(|s| {
            let (tx, rx) = mpsc::channel();
            s.spawn(move |_| tx.send(inner.submit(|| 9).join().unwrap()).unwrap());
            rx
        })
        .recv()
        .unwrap()
    });
    assert_eq!(value, 9);
}

#[test]
fn a_spare_standing_in_spawns_in_fifo_order_from_its_own_slot() {
    // The one worker blocks until every FIFO task has run; a spare stands
    // in, takes the task that spawns them, and queues them on its own
    // slot's FIFO queue (E5): they run, oldest first among themselves.
    let pool = Arc::new(ThreadPool::new(1));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let (order_tx, order_rx) = mpsc::channel();
    let inner = pool.clone();
    pool.spawn(move || {
        inner.spawn(move || {
            for i in 0..6 {
                let (order, done) = (order_tx.clone(), done_tx.clone());
                stealpool::spawn_fifo(move || {
                    order.send(i).unwrap();
                    if i == 5 {
                        done.send(()).unwrap();
                    }
                });
            }
        });
        stealpool::block_in_place(|| done_rx.recv().unwrap());
    });
    pool.wait_all();
    let order: Vec<i32> = order_rx.iter().collect();
    assert_eq!(order, [0, 1, 2, 3, 4, 5]);
    let stats = pool.stats();
    // The FIFO tasks ran on a spare: the worker was blocked meanwhile.
    assert!(stats.spare_threads_started >= 1);
    assert!(stats.spares.tasks_executed >= 6, "{stats:?}");
}
