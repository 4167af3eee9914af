#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Small programs over every path where one thread ends a wait that another
//! thread's frames are part of: a scope task that is stolen while the scope's
//! owner spins, a `join` whose second half is stolen, `install` from outside,
//! `submit` then `join`, panics on each of those paths, and waits that cross
//! pools.
//!
//! They are sized for Miri, which CI runs over many seeds under both Stacked
//! Borrows and Tree Borrows (`model/scripts/verify.sh miri`): each seed is another
//! schedule, so a completion signalled while a frame still holds a protected
//! borrow of what the waiter frees shows up as undefined behaviour on some
//! seed. On real threads they are ordinary tests.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::thread;
use stealpool::ThreadPool;

mod common;
use common::{quiet_expected_panics, EXPECTED};

/// Spins (yielding) until `flag` is set: the owner of a scope or a join
/// keeps its worker busy, so the other worker must steal the task.
fn spin_until(flag: &AtomicBool) {
    while !flag.load(SeqCst) {
        thread::yield_now();
    }
}

/// The reported program: a scope task, stolen while the owner spins,
/// mutably borrows the owner's local, which the owner reads right after.
#[test]
fn stolen_scope_task_borrows_mutably() {
    let pool = ThreadPool::new(2);
    pool.install(|| {
        for _ in 0..2 {
            let mut a = 0u32;
            let started = AtomicBool::new(false);
            pool.scope(|s| {
                s.spawn(|_| {
                    started.store(true, SeqCst);
                    a += 1;
                });
                spin_until(&started);
            });
            assert_eq!(a, 1);
        }
    });
}

/// A stolen task spawns a nested task into the same scope; the last of the
/// two to finish, whichever it is, releases the owner.
#[test]
fn stolen_scope_task_spawns_nested() {
    let pool = ThreadPool::new(2);
    pool.install(|| {
        let mut outer = 0u32;
        let mut inner = 0u32;
        let started = AtomicBool::new(false);
        pool.scope(|s| {
            let inner = &mut inner;
            s.spawn(|s| {
                started.store(true, SeqCst);
                s.spawn(move |_| *inner += 2);
                outer += 1;
            });
            spin_until(&started);
        });
        assert_eq!((outer, inner), (1, 2));
    });
}

/// A stolen scope task panics; the owner re-raises the panic after it and
/// its borrow have ended, and the borrowed local is still usable.
#[test]
fn stolen_scope_task_panics() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    pool.install(|| {
        let mut a = vec![0u32];
        let started = AtomicBool::new(false);
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                s.spawn(|_| {
                    started.store(true, SeqCst);
                    a.push(1);
                    panic!("{EXPECTED}: scope task");
                });
                spin_until(&started);
            });
        }));
        assert!(caught.is_err());
        assert_eq!(a, [0, 1]);
    });
}

/// A scope run from outside the pool (through `install`) with a task that
/// borrows the caller's stack.
#[test]
fn scope_from_outside_borrows() {
    let pool = ThreadPool::new(2);
    let mut values = [0u32; 3];
    pool.scope(|s| {
        for (i, v) in values.iter_mut().enumerate() {
            s.spawn(move |_| *v = i as u32 + 1);
        }
    });
    assert_eq!(values, [1, 2, 3]);
}

/// `join` whose second half is stolen while the first spins, both halves
/// borrowing the caller's locals mutably.
#[test]
fn join_with_stolen_half() {
    let pool = ThreadPool::new(2);
    pool.install(|| {
        for _ in 0..2 {
            let (mut x, mut y) = (0u32, 0u32);
            let started = AtomicBool::new(false);
            pool.join(
                || {
                    spin_until(&started);
                    x += 1;
                },
                || {
                    started.store(true, SeqCst);
                    y += 1;
                },
            );
            assert_eq!((x, y), (1, 1));
        }
    });
}

/// H6: a `join` whose stolen half forks again, and keeps forking until
/// its own second half has started: the runner promotes that half when
/// asked, and the waiting `join` (or the spare standing in for it) takes
/// it from the runner's deque. Every half borrows mutably from the frame
/// that forked it.
#[test]
fn join_helps_beneath_its_stolen_half() {
    let pool = ThreadPool::new(2);
    pool.install(|| {
        let (mut x, mut y, mut z) = (0u32, 0u32, 0u32);
        let b_started = AtomicBool::new(false);
        let d_started = AtomicBool::new(false);
        pool.join(
            || {
                spin_until(&b_started);
                x += 1;
            },
            || {
                b_started.store(true, SeqCst);
                pool.join(
                    || {
                        while !d_started.load(SeqCst) {
                            pool.join(|| (), || ());
                            thread::yield_now();
                        }
                        y += 1;
                    },
                    || {
                        d_started.store(true, SeqCst);
                        z += 1;
                    },
                );
            },
        );
        assert_eq!((x, y, z), (1, 1, 1));
    });
}

/// H7: a scope whose body queues a detached task between two of its own:
/// its wait runs its own tasks and leaves the other to the injector.
#[test]
fn scope_leaves_what_is_not_its_own() {
    let pool = ThreadPool::new(2);
    let detached = Arc::new(AtomicBool::new(false));
    let mut parts = [0u32; 2];
    pool.install(|| {
        let [first, second] = &mut parts;
        pool.scope(|s| {
            s.spawn(|_| *first += 1);
            let ran = detached.clone();
            pool.spawn(move || ran.store(true, SeqCst));
            s.spawn(|_| *second += 1);
        });
    });
    pool.wait_all();
    assert_eq!(parts, [1, 1]);
    assert!(detached.load(SeqCst));
}

/// Both halves of a stolen `join` panic; the first half's panic is the one
/// re-raised, and the caller's locals are usable afterwards.
#[test]
fn join_with_stolen_half_both_panic() {
    quiet_expected_panics();
    let pool = ThreadPool::new(2);
    pool.install(|| {
        let mut y = 0u32;
        let started = AtomicBool::new(false);
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.join(
                || {
                    spin_until(&started);
                    panic!("{EXPECTED}: a")
                },
                || {
                    started.store(true, SeqCst);
                    y += 1;
                    panic!("{EXPECTED}: b")
                },
            )
        }));
        let payload = caught.expect_err("join re-raises a panic");
        assert_eq!(
            payload.downcast_ref::<String>().map(String::as_str),
            Some("expected panic: a")
        );
        assert_eq!(y, 1);
    });
}

/// `install` from outside the pool borrows the caller's stack mutably.
#[test]
fn install_from_outside_borrows() {
    let pool = ThreadPool::new(2);
    let mut local = vec![1u32];
    let len = pool.install(|| {
        local.push(2);
        local.len()
    });
    assert_eq!((len, local.as_slice()), (2, &[1, 2][..]));
}

/// `submit` from outside and from a task, then `join` on both kinds of
/// thread.
#[test]
fn submit_then_join() {
    let pool = Arc::new(ThreadPool::new(2));
    let outer = pool.submit(|| 6 * 7);
    let inner_pool = pool.clone();
    let nested = pool.submit(move || inner_pool.submit(|| 1).join().unwrap() + 1);
    assert_eq!(outer.join().unwrap(), 42);
    assert_eq!(nested.join().unwrap(), 2);
}

/// One-worker pools with the default spare slots, or none: with none, a
/// cross-pool waiter is handed what the awaited work needs (Y1, Y3) or
/// lends itself to the other pool (Y4).
fn one_worker_pools() -> Vec<(Arc<ThreadPool>, Arc<ThreadPool>)> {
    vec![
        (Arc::new(ThreadPool::new(1)), Arc::new(ThreadPool::new(1))),
        (common::one_worker_no_spare(), common::one_worker_no_spare()),
    ]
}

/// A task of one pool waits inside another pool (`install`, then a `join`
/// that comes back to the first): the job that comes back is posted to the
/// waiting worker (Y1), so even one worker per pool with no spare completes.
#[test]
fn install_across_two_pools() {
    for (a, b) in one_worker_pools() {
        let (a2, b2) = (a.clone(), b.clone());
        let sum = a.install(move || b2.install(move || a2.join(|| 1, || 2)));
        assert_eq!(sum, (1, 2));
        drop(b);
    }
}

/// A task of one pool joins a handle of another, whose task submits back
/// to the first and joins that: the waiter runs it (Y3), through the
/// counted reference of a posted job or of a need.
#[test]
fn handles_across_two_pools() {
    for (a, b) in one_worker_pools() {
        let (a2, b2) = (a.clone(), b.clone());
        let value = a
            .submit(move || {
                let a3 = a2.clone();
                b2.submit(move || a3.submit(|| 5).join().unwrap()).join().unwrap()
            })
            .join()
            .unwrap();
        assert_eq!(value, 5);
        let counter = Arc::new(AtomicUsize::new(0));
        let c = counter.clone();
        a.spawn(move || {
            c.fetch_add(1, SeqCst);
        });
        a.wait_all();
        assert_eq!(counter.load(SeqCst), 1);
    }
}

/// H3, H4: a task submitted and joined on a worker, while the other worker
/// may take it from the injector first: whichever wins the claim runs it,
/// and the loser drops only the queue's reference. Then the chain of
/// dependent handles: B joins A while A joins its own subtask.
#[test]
fn handles_claimed_in_place_or_by_a_thief() {
    let pool = Arc::new(ThreadPool::new(2));
    let inner = pool.clone();
    let sum = pool.install(|| {
        let handles: Vec<_> = (0..4u64).map(|i| inner.submit(move || i * 2)).collect();
        handles.into_iter().rev().map(|h| h.join().unwrap()).sum::<u64>()
    });
    assert_eq!(sum, 12);
    let inner = pool.clone();
    let a = pool.submit(move || inner.submit(|| vec![1u8; 3]).join().unwrap().len());
    let b = pool.submit(move || a.join().unwrap() + 1);
    assert_eq!(b.join().unwrap(), 4);
}

/// K4: a continuation joined on a worker of its pool runs there once its
/// inputs are in, reading an input another pool's worker wrote; and a
/// chain whose pool is gone runs link after link on the thread that
/// completes its input.
#[test]
fn continuations_joined_in_place_and_run_after_their_pool() {
    let here = ThreadPool::new(1);
    let there = ThreadPool::new(1);
    let both = here
        .submit(|| String::from("a"))
        .zip(there.submit(|| String::from("b")));
    let joined = here.submit(move || {
        let (a, b) = both.join().unwrap();
        a + &b
    });
    assert_eq!(joined.join().unwrap(), "ab");

    let chain_pool = ThreadPool::new(1);
    let release = Arc::new(AtomicBool::new(false));
    let held = release.clone();
    let late = there.submit(move || {
        spin_until(&held);
        1usize
    });
    let mut last = chain_pool.submit(|| 0usize).zip(late).then(|(a, b)| a + b);
    for _ in 0..8 {
        last = last.then(|x| x + 1);
    }
    drop(chain_pool);
    release.store(true, SeqCst);
    assert_eq!(last.join().unwrap(), 9);
}

/// H8: continuations whose inputs nobody started, joined on the one
/// worker of a pool with no spare: the inputs' references (cloned under
/// their packets' locks, dropped after), the claims and the inputs' cells,
/// through chains, `zip`, `when_all` and a panicking input.
#[test]
fn continuation_inputs_run_in_place() {
    common::quiet_expected_panics();
    let pool = common::one_worker_no_spare();
    let inner = pool.clone();
    let (sum, failed) = pool.install(move || {
        let chain = inner
            .submit(|| String::from("ab"))
            .then(|s| s.len())
            .then(|n| n + 1);
        let both = inner.submit(|| 4usize).zip(chain).then(|(a, b)| a * b);
        let all = inner.when_all([both, inner.submit(|| 5usize).then(|x| x + 1)]);
        let failed = inner
            .submit(|| -> usize { panic!("{}", common::EXPECTED) })
            .then(|x| x + 1)
            .join()
            .is_err();
        (all.join().unwrap().into_iter().sum::<usize>(), failed)
    });
    assert_eq!(sum, 4 * 3 + 6);
    assert!(failed);
}

/// J5: `a` panics and `b`, which borrows from the caller, still runs, on
/// a one-worker pool (taken back) and a limited pool (inline).
#[test]
fn join_runs_b_after_a_panicked() {
    quiet_expected_panics();
    let pools = [
        ThreadPool::new(1),
        ThreadPool::builder()
            .num_threads(1)
            .max_pending_joins(0)
            .build()
            .unwrap(),
    ];
    for pool in &pools {
        let mut ran = Vec::new();
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.join(|| panic!("{EXPECTED}"), || ran.push(1u8))
        }));
        assert!(outcome.is_err());
        assert_eq!(ran, [1]);
    }
}

/// A FIFO scope's marker stolen while the owner spins: the thief takes the
/// task from the scope's queue (E1, E2) and mutably borrows the owner's
/// local; the owner frees the scope's queues once the scope ends (E3).
#[test]
fn stolen_fifo_marker_borrows_mutably() {
    let pool = ThreadPool::new(2);
    pool.install(|| {
        for _ in 0..2 {
            let mut a = 0u32;
            let mut b = 0u32;
            let started = AtomicBool::new(false);
            pool.scope_fifo(|s| {
                let a = &mut a;
                let started = &started;
                let b_ref = &mut b;
                s.spawn_fifo(move |_| {
                    started.store(true, SeqCst);
                    *a += 1;
                });
                // A second push on the same queue while the first marker
                // holds a pointer to it (E5).
                s.spawn_fifo(move |_| *b_ref += 1);
                spin_until(started);
            });
            assert_eq!((a, b), (1, 1));
        }
    });
}

/// A scope owned by a thread outside the pool (E4): its body runs here,
/// its tasks on the workers, and the owner's frame (with the scope's
/// `LockLatch`) goes as soon as the last task sets it.
#[test]
fn in_place_scope_from_outside_borrows() {
    let pool = ThreadPool::new(2);
    for _ in 0..2 {
        let mut parts = [0u32; 2];
        let (left, right) = parts.split_at_mut(1);
        pool.in_place_scope(|s| {
            s.spawn(|_| left[0] += 1);
            s.spawn(|_| right[0] += 2);
        });
        assert_eq!(parts, [1, 2]);
        let mut b = 0u32;
        pool.in_place_scope_fifo(|s| s.spawn_fifo(|_| b += 1));
        assert_eq!(b, 1);
    }
}

/// Z1-Z4: a cycle of handles through two one-worker pools with no spare.
/// The second wait to park finds both blocked, takes its record back,
/// unregisters its latch and panics with the report (caught here); the
/// first then gets its value. The records' pointers (latches, claims,
/// registries) are read by the other pool's thread under the table's lock.
#[test]
fn a_cycle_of_handles_is_reported() {
    common::quiet_expected_panics_or(|payload| {
        common::message(payload).is_some_and(|m| m.contains("can never return"))
    });
    // Directly, and through a continuation whose input is the other task
    // (Z2 walks H8's references, cloned under the table's lock and
    // dropped after it).
    for through_then in [false, true] {
        a_cycle_is_reported(through_then);
    }
}

fn a_cycle_is_reported(through_then: bool) {
    let (a, b) = (common::one_worker_no_spare(), common::one_worker_no_spare());
    let slot = Arc::new(std::sync::Mutex::new(None::<stealpool::JoinHandle<u32>>));
    let reports = Arc::new(AtomicUsize::new(0));
    let join = |handle: stealpool::JoinHandle<u32>, reports: &AtomicUsize| match panic::catch_unwind(
        AssertUnwindSafe(|| handle.join()),
    ) {
        Ok(Ok(value)) => value + 1,
        Ok(Err(_)) => panic!("the other task panicked"),
        Err(_) => {
            reports.fetch_add(1, SeqCst);
            0
        }
    };
    let (slot_y, reports_y) = (slot.clone(), reports.clone());
    let y = b.submit(move || {
        let x = loop {
            if let Some(x) = slot_y.lock().unwrap().take() {
                break x;
            }
            thread::yield_now();
        };
        join(x, &reports_y)
    });
    let awaited = if through_then {
        y.then(|value| value + 10)
    } else {
        y
    };
    let reports_x = reports.clone();
    let x = a.submit(move || join(awaited, &reports_x));
    *slot.lock().unwrap() = Some(x);
    a.wait_all();
    b.wait_all();
    assert_eq!(reports.load(SeqCst), 1);
}

/// Z6: a stall closed through a cross-pool `install` (one worker per pool,
/// no spare): `z` on `b` joins `y`, queued on `a` behind `x`, which
/// installs into `b` behind `z`. Whichever wait parks last reports: `z`'s
/// join (then `x`'s job runs on `b`, reading `x`'s frame), or the install,
/// which takes its job's claim, never to run, and unwinds its frame while
/// the ticket that points into it is still queued on `b`; `b` runs the
/// ticket later and must touch nothing of the frame.
#[test]
fn a_stall_through_install_is_reported() {
    common::quiet_expected_panics_or(|payload| {
        common::message(payload).is_some_and(|m| m.contains("can never return"))
    });
    let (a, b) = (common::one_worker_no_spare(), common::one_worker_no_spare());
    let (go, z_started) = (
        Arc::new(std::sync::Barrier::new(2)),
        Arc::new(std::sync::Barrier::new(2)),
    );
    let x = {
        let (b, go) = (b.clone(), go.clone());
        a.submit(move || {
            let frame = [5u32; 4];
            go.wait();
            b.install(|| frame.iter().sum::<u32>())
        })
    };
    let y = a.submit(|| 1u32);
    let z = {
        let z_started = z_started.clone();
        b.submit(move || {
            z_started.wait();
            match panic::catch_unwind(AssertUnwindSafe(|| y.join())) {
                Ok(Ok(value)) => value + 1,
                Ok(Err(_)) => panic!("y panicked"),
                Err(_) => 0,
            }
        })
    };
    z_started.wait();
    go.wait();
    match (x.join(), z.join().unwrap()) {
        (Ok(20), 0) | (Err(_), 2) => {}
        (x, z) => panic!("x {:?}, z {z}: not one report", x.map_err(|_| "a panic")),
    }
    a.wait_all();
    b.wait_all();
}

/// Z7: a scope's wait recorded and let go. Two workers, no spare: a scope
/// task on the second thread joins the handle of the task that runs the
/// scope, a cycle the join reports (its task takes 0); the scope's frame,
/// which the record's latch lives in, then ends.
#[test]
fn a_cycle_through_a_scope_is_reported() {
    common::quiet_expected_panics_or(|payload| {
        common::message(payload).is_some_and(|m| m.contains("can never return"))
    });
    let pool = Arc::new(
        ThreadPool::builder()
            .num_threads(2)
            .max_blocking_threads(0)
            .build()
            .unwrap(),
    );
    let slot = Arc::new(std::sync::Mutex::new(None::<stealpool::JoinHandle<u32>>));
    let started = Arc::new(std::sync::Barrier::new(3));
    let reports = Arc::new(AtomicUsize::new(0));
    let (slot_x, started_x, reports_x) = (slot.clone(), started.clone(), reports.clone());
    let x = pool.submit(move || {
        let owner = stealpool::current_thread_index();
        stealpool::scope(|s| {
            for _ in 0..2 {
                let (slot, started, reports) = (&slot_x, &started_x, &reports_x);
                s.spawn(move |_| {
                    started.wait();
                    if stealpool::current_thread_index() != owner {
                        let x = slot.lock().unwrap().take().expect("x's handle");
                        if panic::catch_unwind(AssertUnwindSafe(|| x.join())).is_err() {
                            reports.fetch_add(1, SeqCst);
                        }
                    }
                });
            }
        });
        7
    });
    *slot.lock().unwrap() = Some(x);
    started.wait();
    pool.wait_all();
    assert_eq!(reports.load(SeqCst), 1);
}

/// Z9: a stall of a scope's wait alone, ended by running the queued task
/// on top of it. One worker, no spare: an inner scope's wait hands the
/// outer scope's task (which borrows the caller's stack) to the injector,
/// and the outer scope's wait, the whole blocked set, runs it from there.
#[test]
fn a_stall_of_a_scope_runs_its_rerouted_task() {
    let pool = ThreadPool::builder()
        .num_threads(1)
        .max_blocking_threads(0)
        .build()
        .unwrap();
    let mut ran = [0u32; 2];
    let (outer, inner) = ran.split_at_mut(1);
    pool.scope(|a| {
        stealpool::scope(|b| {
            b.spawn(|_| inner[0] += 1);
            a.spawn(|_| outer[0] += 1);
        });
    });
    assert_eq!(ran, [1, 1]);
}
