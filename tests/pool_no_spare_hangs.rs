#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Programs with no cycle of waits that hang on pools with no spare
//! thread to be had (`max_blocking_threads(0)`), where the pool's fallback
//! for waits on another pool (run this pool's own jobs meanwhile) is
//! missing or runs a job that waits for the frame beneath it. Both fail
//! today, after their 30 s bound.

mod common;

use common::{message, quiet_expected_panics, Gate};
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;
use stealpool::ThreadPool;

/// A worker that waits on another pool runs its own pool's jobs
/// meanwhile, on top of its wait. A job run there that joins a
/// continuation of the task beneath it (here `beneath.then(..)`) waits for
/// a frame that cannot go on until the join returns; the task beneath
/// never waits for the one on top. Joining the task beneath itself panics
/// with the cycle message (`tests/pool_waits.rs`,
/// `a_task_joining_its_own_handle_beneath_it_panics`); joining its
/// continuation should end the same way, or finish, rather than hang.
#[test]
fn joining_a_continuation_of_the_task_beneath_does_not_hang() {
    quiet_expected_panics();
    let pool = Arc::new(
        ThreadPool::builder()
            .num_threads(1)
            .max_blocking_threads(0)
            .build()
            .unwrap(),
    );
    let other = Arc::new(ThreadPool::new(1));
    let installed = Arc::new(AtomicBool::new(false));
    let gate = Arc::new(Gate::default());
    let (other_pool, started, held) = (other.clone(), installed.clone(), gate.clone());
    let beneath = pool.submit(move || {
        other_pool.install(|| {
            started.store(true, std::sync::atomic::Ordering::SeqCst);
            held.wait();
        })
    });
    assert!(common::wait_for(&installed), "the other pool's job never started");
    // Runs on the only worker, on top of `beneath`'s wait on `other`.
    let after = beneath.then(|()| 1);
    let on_top = pool.submit(move || after.join().map_err(drop));
    let (done, outcome) = mpsc::channel();
    thread::spawn(move || {
        let _ = done.send(on_top.join().map_err(|p| message(&*p).unwrap_or_default()));
    });
    let outcome = outcome.recv_timeout(Duration::from_secs(if cfg!(miri) { 600 } else { 30 }));
    gate.open();
    match outcome {
        Ok(Err(text)) => assert!(text.contains("beneath it on the same thread"), "{text}"),
        Ok(Ok(value)) => assert_eq!(value, Ok(1)),
        Err(_) => {
            // The pools' threads are stuck: leave them rather than wait.
            std::mem::forget(pool);
            std::mem::forget(other);
            panic!("the join of a continuation of the task beneath never returned: a hang");
        }
    }
}

/// `wait_all` of pool A on the only worker of pool B, while A's task joins
/// a task of B: `install`, `join`, `scope` and a handle of A waited for
/// there run B's jobs meanwhile (B's task runs, A's task finishes, the
/// wait ends), but `wait_all` just blocks B's worker, so B's task never
/// runs. The first list of waits on another pool in "Waiting on a worker"
/// (`ThreadPool`'s documentation) names `wait_all`; the list of those that
/// run their own pool's jobs past the spare limit does not.
#[test]
fn wait_all_on_another_pools_only_worker_runs_that_pools_jobs() {
    let no_spare = || {
        Arc::new(
            ThreadPool::builder()
                .num_threads(1)
                .max_blocking_threads(0)
                .build()
                .unwrap(),
        )
    };
    let (a, b) = (no_spare(), no_spare());
    let (a2, b2) = (a.clone(), b.clone());
    let (started, start) = mpsc::channel();
    a.spawn(move || {
        start.recv().unwrap();
        assert_eq!(b2.submit(|| 5).join().unwrap(), 5);
    });
    let (done, finished) = mpsc::channel();
    let waiter = b.clone();
    thread::spawn(move || {
        waiter.install(move || {
            started.send(()).unwrap();
            a2.wait_all();
        });
        let _ = done.send(());
    });
    if finished
        .recv_timeout(Duration::from_secs(if cfg!(miri) { 600 } else { 30 }))
        .is_err()
    {
        std::mem::forget(a);
        std::mem::forget(b);
        panic!("wait_all on the other pool's only worker never returned: a hang");
    }
}
