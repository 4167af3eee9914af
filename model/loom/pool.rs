//! Loom models of the pool: every interleaving of a small pool, within a
//! preemption bound, under the C11 memory model.
//!
//! The pool's worker threads are loom threads here, so each model is a whole
//! pool's life: build, use through the public API, drop (which drains the
//! queues and joins every worker). What the models look for:
//!
//! * **lost wake-ups**: the thread that waits for the work (an outside
//!   caller blocked on a `JoinHandle`, `join`, `scope` or `wait_all`) blocks
//!   until a worker runs it, so a worker asleep with the work stranded in a
//!   queue leaves every thread blocked, which loom reports as a deadlock
//!   (`deadlock; threads = [...]`). Its panic then unwinds through the
//!   pool's frames, whose destructors call back into a loom execution that
//!   has ended, so the test binary aborts (SIGABRT) right after the message;
//!   each model prints its name before it starts, so the log says which one;
//! * **work run exactly once**: counters checked after the pool's drop;
//! * **publication**: results travel through loom `UnsafeCell`s, so a
//!   missing happens-before edge between the task that writes and the caller
//!   that reads (latches L1/L2, `wait_all` P1/P4, scopes C1) is a causality
//!   error;
//! * **leaks**: loom checks at the end of every execution that each of its
//!   `Arc`s (the registry, the handles' packets, the counters here) was
//!   freed, and that every thread finished.
//!
//! Every model:
//! * runs `loom::model::Builder` with a preemption bound set here, in code
//!   (it overrides `LOOM_MAX_PREEMPTIONS`), stated above the test with its
//!   floor;
//! * counts its executions with a plain `std` atomic (outside the facade) and
//!   fails below that floor, so a harness that explores next to nothing
//!   cannot pass; the floors are about half the executions observed.
//!
//! A pool of `n` workers is `n + 1` loom threads with the caller, so pools
//! have 1 or 2 workers (loom allows 5 threads). Under loom a worker looks
//! for work once before it sleeps (`IDLE_ROUNDS`), so its way to sleep is
//! short and the race with a producer is explored at every step of it.
//!
//! Loom treats SeqCst loads, stores and read-modify-writes as AcqRel but
//! handles `fence(SeqCst)`, and does not explore load buffering.
//!
//! Run with `cargo test --features loom --test loom_pool` (the quick bounds;
//! `STEALPOOL_MODEL_BOUNDS=full` for the bounds stated here, `support/bounds.rs`);
//! each model prints a line as it starts and one as it ends.

#[path = "../support/loom_run.rs"]
mod loom_run;
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom_run::{explore, explore_bounds, progress};
use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};
use stealpool::ThreadPool;
#[path = "../support/signal.rs"]
mod signal;
use signal::Signal;

/// A number written by one thread and read by another through loom-checked
/// memory: loom fails the read if the write does not happen before it.
struct Slot(UnsafeCell<usize>);

// SAFETY: the models only read a slot after the pool has said the write is
// done (a latch, `wait_all`, a scope's end); loom checks exactly that.
unsafe impl Sync for Slot {}

impl Slot {
    fn new() -> Self {
        Slot(UnsafeCell::new(0))
    }

    /// Adds one: a read and a write, so a second, unordered run of the same
    /// work is a data race as well as a wrong count.
    fn bump(&self) {
        // SAFETY: see `Sync`; loom reports any concurrent access.
        self.0.with_mut(|value| unsafe { *value += 1 });
    }

    fn get(&self) -> usize {
        // SAFETY: as above.
        self.0.with(|value| unsafe { *value })
    }
}

// Preemption bound 5, floor 35000 (78225 executions observed).
//
// Submit vs park, one worker: the caller submits while the worker is on its
// way to sleep (S1 registration, S2 fence, final check, wait), then blocks
// on the handle. If the worker's final check misses the job and the caller's
// S3/S4 misses the registration, both threads block: a loom deadlock. The
// second submission races the worker's second way to sleep, after it has
// been woken once and has run a job.
#[test]
fn submit_vs_park_1_worker() {
    explore_bounds("submit_vs_park_1_worker", (5, 35_000), (3, 1500), || {
        let pool = ThreadPool::new(1);
        let ran = Arc::new(AtomicUsize::new(0));
        for round in 1..=2 {
            let task_ran = ran.clone();
            let handle = pool.submit(move || task_ran.fetch_add(1, Ordering::Relaxed) + 10);
            assert_eq!(handle.join().unwrap(), 10 + round - 1);
        }
        drop(pool);
        assert_eq!(ran.load(Ordering::Relaxed), 2, "a task ran twice or never");
    });
}

// Preemption bound 2, floor 35000 (57867 executions observed with a lock
// per sleeper, S8-S9, and the sleepers word, S7). At bound 3 it explored 1073742 executions with the
// pool-wide sleep lock and about a quarter more with one lock per sleeper,
// some 300 s of CI; bound 2 still catches both fences of the pair it is
// about (`sleeper_fence`, `producer_fence` each deadlock it, checked with
// `MUTANT_MODELS=submit_vs_park_2_workers model/scripts/mutants.sh sleeper_fence
// producer_fence`); `block_after_spawn` keeps bound 3, which the S3 fence
// on local pushes needs.
//
// Submit vs park, two workers: at most one searches (S5), so the job may be
// pushed while one worker searches and the other sleeps; the producer wakes
// nobody then, and the searcher's own final check (S2 against S3) must find
// the job.
#[test]
fn submit_vs_park_2_workers() {
    explore_bounds("submit_vs_park_2_workers", (2, 35_000), (1, 870), || {
        let pool = ThreadPool::new(2);
        let ran = Arc::new(AtomicUsize::new(0));
        let task_ran = ran.clone();
        let handle = pool.submit(move || task_ran.fetch_add(1, Ordering::Relaxed) + 7);
        assert_eq!(handle.join().unwrap(), 7);
        drop(pool);
        assert_eq!(ran.load(Ordering::Relaxed), 1, "the task ran twice or never");
    });
}

// Preemption bound 1, floor 3800 (46348 executions observed, 25 s as
// typed). It was 2 under the full bounds (floor 75000; 380934 executions,
// then 1635630 in 325 s since V9, a job from outside being taken through
// its node's stage: a steal, or a refill under the stage's lock). That was
// a fifth of the whole loom step, for no check the bound-1 run lacks: the
// fences this model depends on (S2, S3) deadlock `submit_vs_park_2_workers`
// at bound 2 above, and the wake chain it reaches (S5) is a matter of
// latency alone (without it one worker runs both jobs in turn, and the
// model still ends).
//
// Two jobs for two workers: the first wakes a sleeper or finds a searcher;
// the second may land while that worker still counts as searching, so only
// wake chaining (S5, the last searcher to find work wakes a sleeper) or a
// final check gets it run.
#[test]
fn submit_two_vs_park_2_workers() {
    explore("submit_two_vs_park_2_workers", 1, 3800, || {
        let pool = ThreadPool::new(2);
        let ran = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..2)
            .map(|i| {
                let task_ran = ran.clone();
                pool.submit(move || {
                    task_ran.fetch_add(1, Ordering::Relaxed);
                    i
                })
            })
            .collect();
        for (i, handle) in handles.into_iter().enumerate() {
            assert_eq!(handle.join().unwrap(), i);
        }
        drop(pool);
        assert_eq!(ran.load(Ordering::Relaxed), 2, "a task ran twice or never");
    });
}

// Idle, one worker: preemption bound 6, floor 1 (4 executions observed:
// the drop's `wake_all` takes the worker's lock before or after the worker
// registers, and nothing else conflicts). Idle, two workers: bound 3, floor
// 8700 (12749 with the sleepers word, S7; with a lock per sleeping slot,
// bound 4 took 182 626, eleven times the 16 351 it took with one sleep
// lock, so the full bound is 3). Pending, one worker: bound 6, floor 140
// (703). Pending, two workers: bound 2, floor 9700 (56684; 19521 with one
// sleep lock).
//
// Shutdown vs park: the pool is dropped while its workers start, search or
// fall asleep, with nothing queued or with tasks still queued. Every queued
// task runs exactly once before the drop returns (X1: a worker leaves only
// when the pool is terminating and its final check, under the accounts
// lock, finds no work), and every worker thread ends, or the drop's join blocks
// forever.
#[test]
fn shutdown_vs_park() {
    explore("shutdown_vs_park_idle", 6, 1, || {
        drop(ThreadPool::new(1));
    });
    explore_bounds("shutdown_vs_park_idle_2_workers", (3, 8700), (3, 8700), || {
        drop(ThreadPool::new(2));
    });
    explore("shutdown_vs_park_pending", 6, 140, || {
        let pool = ThreadPool::new(1);
        let ran = Arc::new(AtomicUsize::new(0));
        let task_ran = ran.clone();
        pool.spawn(move || {
            task_ran.fetch_add(1, Ordering::Relaxed);
        });
        drop(pool);
        assert_eq!(
            ran.load(Ordering::Relaxed),
            1,
            "the pending task ran twice or never"
        );
    });
    explore_bounds("shutdown_vs_park_pending_2_workers", (2, 9700), (1, 550), || {
        let pool = ThreadPool::new(2);
        let ran = Arc::new(AtomicUsize::new(0));
        for _ in 0..2 {
            let task_ran = ran.clone();
            pool.spawn(move || {
                task_ran.fetch_add(1, Ordering::Relaxed);
            });
        }
        drop(pool);
        assert_eq!(
            ran.load(Ordering::Relaxed),
            2,
            "a pending task ran twice or never"
        );
    });
}

// Preemption bound 2, floor 39000 (95578 executions observed).
//
// A join latch set vs its waiter going to sleep. `join` from outside the
// pool installs `join(a, b)` on a worker, which pushes `b` on its deque and
// runs `a`. The other worker may steal `b`; the joiner then waits for `b`,
// finds nothing forked beneath it to help with, and parks on its latch
// alone (H6: SLEEPING under the sleep lock, S6) while the thief finishes
// `b` and sets the latch (L1), which must wake it; the model asserts that
// some execution parked. `--cfg stealpool_bug="park_unannounced"` parks
// without telling the latch: a deadlock. Both halves write borrowed stack slots, read after `join`
// returns: `b`'s write reaches the caller through L1/L2 and the install's
// lock latch.
#[test]
fn join_latch_vs_sleep() {
    let parked_before = stealpool::model_probes::WAITS_PARKED.count();
    // Quick bound 2 as well: at bound 1 the half is stolen in a dozen
    // executions and none parks, and the park is what the model is for.
    explore_bounds("join_latch_vs_sleep", (2, 39_000), (2, 39_000), || {
        let pool = ThreadPool::new(2);
        let (a, b) = (Slot::new(), Slot::new());
        let (ra, rb) = pool.join(
            || {
                a.bump();
                1
            },
            || {
                b.bump();
                2
            },
        );
        assert_eq!((ra, rb), (1, 2));
        assert_eq!(
            (a.get(), b.get()),
            (1, 1),
            "a half of the join ran twice or never"
        );
        drop(pool);
    });
    let parked = stealpool::model_probes::WAITS_PARKED.count() - parked_before;
    progress::line(format_args!(
        "join_latch_vs_sleep: the joiner parked on its latch in {parked} executions"
    ));
    assert!(
        parked > 0,
        "no execution parked a join on its latch: the model misses H6's park"
    );
}

// Preemption bound 2, floor 30000 (109151 executions observed).
//
// A scope's latch set vs its waiter going to sleep: the scope's task is
// pushed on the scope's worker's deque; the other worker may steal it and
// end the scope (C1, the last decrement sets the `WorkerLatch`) while the
// scope's worker parks on that latch (H7, as H6's park; the model asserts
// that some execution parked, and `park_unannounced` deadlocks it). The task writes a slot on the
// caller's stack, read after `scope` returns (C1 acquire-release chain).
#[test]
fn scope_latch_vs_sleep() {
    let parked_before = stealpool::model_probes::WAITS_PARKED.count();
    explore_bounds("scope_latch_vs_sleep", (2, 30_000), (1, 1700), || {
        let pool = ThreadPool::new(2);
        let slot = Slot::new();
        let slot_ref = &slot;
        pool.scope(|s| s.spawn(move |_| slot_ref.bump()));
        assert_eq!(slot.get(), 1, "the scope's task ran twice or never");
        drop(pool);
    });
    let parked = stealpool::model_probes::WAITS_PARKED.count() - parked_before;
    progress::line(format_args!(
        "scope_latch_vs_sleep: the scope parked on its latch in {parked} executions"
    ));
    assert!(
        parked > 0,
        "no execution parked a scope on its latch: the model misses H7's park"
    );
}

// Preemption bound 2, floor 50000 (109115 executions observed); quick
// bound 1, floor 1700 (3380).
//
// A FIFO scope's task behind its marker (E1-E3): the scope's worker pushes
// the task on its slot's FIFO queue, then the marker on its deque; the
// other worker may steal the marker and must then find the task in the
// queue (E1: the deque's publication orders the queue's push before the
// thief's steal; E2: the queue is never empty for a marker, else the
// marker panics and the process aborts), or the scope's worker runs its
// own marker while it waits (H7). The task writes a slot on the caller's
// stack, read after `scope_fifo` returns (C1); the scope's queues are
// freed only after the marker's steal is done (E3).
// `--cfg stealpool_bug="fifo_marker_first"` (the marker pushed before the
// task) aborts at the quick bounds: a thief runs the marker in between.
#[test]
fn fifo_marker_vs_thief() {
    explore_bounds("fifo_marker_vs_thief", (2, 50_000), (1, 1700), || {
        let pool = ThreadPool::new(2);
        let slot = Slot::new();
        let slot_ref = &slot;
        pool.scope_fifo(|s| s.spawn_fifo(move |_| slot_ref.bump()));
        assert_eq!(slot.get(), 1, "the FIFO task ran twice or never");
        drop(pool);
    });
}

// Preemption bound 2, floor 79000 (158377 executions observed); quick
// bound 1, floor 2500 (5153).
//
// A broadcast from outside the pool (U1-U3): `install` hands it to a
// worker, whose scope posts one part to each worker's mailbox and waits
// for them (H7), running its own part while it waits (U2). The other
// worker may be asleep, searching, or on its way to sleep when its part is
// posted. Each part writes a slot on the caller's stack, read after
// `broadcast` returns (C1). `--cfg stealpool_bug="wait_ignores_mail"`
// (waits leave posted parts for later) deadlocks it.
#[test]
fn broadcast_vs_sleep() {
    explore_bounds("broadcast_vs_sleep", (2, 79_000), (1, 2_500), || {
        let pool = ThreadPool::new(2);
        let slots = [Slot::new(), Slot::new()];
        let indices = pool.broadcast(|context| {
            slots[context.index()].bump();
            context.index()
        });
        assert_eq!(indices, [0, 1]);
        assert_eq!(
            (slots[0].get(), slots[1].get()),
            (1, 1),
            "a worker ran its part twice or never"
        );
        drop(pool);
    });
}

// Preemption bound 2, floor 15000 (30696 executions observed), at the
// quick bounds too: at bound 1 no post finds its worker asleep.
//
// Parts posted from outside the pool vs the workers going to sleep (U1,
// U2): `spawn_broadcast` posts a part to each worker's mailbox and wakes
// it under its slot's lock; a worker on its way to sleep looks in its
// mailbox under that lock, after its flag is up. Either the post finds the
// flag up and wakes it, or the final check finds the part; the model
// asserts that some execution woke a worker by a post. The drop drains
// both parts. `--cfg stealpool_bug="mail_unchecked"` (sleep and park skip
// the mailbox) deadlocks it.
#[test]
fn spawn_broadcast_vs_sleep() {
    let woke_before = stealpool::model_probes::POSTS_WOKE.count();
    explore_bounds("spawn_broadcast_vs_sleep", (2, 15_000), (2, 15_000), || {
        let pool = ThreadPool::new(2);
        let ran = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let parts = ran.clone();
        pool.spawn_broadcast(move |context| {
            parts[context.index()].fetch_add(1, Ordering::Relaxed);
        });
        drop(pool);
        let counts = (ran[0].load(Ordering::Relaxed), ran[1].load(Ordering::Relaxed));
        assert_eq!(counts, (1, 1), "a worker ran its part twice or never");
    });
    let woke = stealpool::model_probes::POSTS_WOKE.count() - woke_before;
    progress::line(format_args!(
        "spawn_broadcast_vs_sleep: a post woke its worker in {woke} executions"
    ));
    assert!(woke > 0, "no post woke a sleeping worker: the model misses U1");
}

// Preemption bound 2, floor 45000 (91409 executions observed).
//
// A handle joined on a worker (H3, H4): a task on a worker submits a
// subtask and joins its handle at once. The joiner claims the subtask and
// runs it in place, or the other worker claims it first from the injector
// and the joiner parks on a `LockLatch` registered in the packet, which
// the other worker sets under the packet's lock (H1, H2). Either way the
// subtask runs once; the loser of the claim only drops the queue's
// reference. `--cfg stealpool_bug="claim_ignored"` lets the queue's entry
// run a task its joiner ran in place: "a submitted task ran twice".
#[test]
fn handle_latch_vs_sleep() {
    explore_bounds("handle_latch_vs_sleep", (2, 45_000), (1, 1400), || {
        let pool = ThreadPool::new(2);
        let ran = Arc::new(AtomicUsize::new(0));
        let task_ran = ran.clone();
        let value = pool.install(|| {
            pool.submit(move || task_ran.fetch_add(1, Ordering::Relaxed) + 5)
                .join()
                .unwrap()
        });
        assert_eq!(value, 5);
        drop(pool);
        assert_eq!(ran.load(Ordering::Relaxed), 1, "the subtask ran twice or never");
    });
}

// One worker: preemption bound 6, floor 2400 (7480 executions observed).
// Two workers: bound 2, floor 15000 (55867).
//
// `wait_all` from outside with one task in flight: the caller registers as
// an idle waiter (P3) while the task ends (P1, then the completer's fence
// and its read of the waiters); either the caller sees the task done or the
// task sees the caller waiting and notifies it, or the caller blocks
// forever. The task's write must be visible once `wait_all` returns (P1
// release, P4 acquire).
#[test]
fn wait_all_outside() {
    explore("wait_all_outside", 6, 2400, || {
        let pool = ThreadPool::new(1);
        let slot = Arc::new(Slot::new());
        let task_slot = slot.clone();
        pool.spawn(move || task_slot.bump());
        pool.wait_all();
        assert_eq!(slot.get(), 1, "the task ran twice or never");
        assert_eq!(pool.pending_tasks(), 0);
        drop(pool);
    });
    explore_bounds("wait_all_outside_2_workers", (2, 15_000), (1, 860), || {
        let pool = ThreadPool::new(2);
        let slot = Arc::new(Slot::new());
        let task_slot = slot.clone();
        pool.spawn(move || task_slot.bump());
        pool.wait_all();
        assert_eq!(slot.get(), 1, "the task ran twice or never");
        drop(pool);
    });
}

// A task spawns a child and then blocks outside the pool until the child
// has run. The child must not be stranded on the blocked worker's deque
// while the other worker sleeps: local pushes pay the S3 fence too (see
// proofs/sleep.md, S3). Skipping that fence for a worker's own deque (the
// bug flag `local_push_unfenced`) makes this model deadlock at preemption
// bound 2 (bound 1 passes even then), as does `producer_fence`.
// Bound: 2. Floor: 28 000 executions (56 355 observed, 2026-11-26). At
// bound 3 it explored 1 517 586 executions, some 300 to 460 s of CI on
// its own, and catches nothing bound 2 misses: when the model was first
// written it needed bound 3 (and the pool's sleep had a pool-wide lock and
// a submitted task did not claim itself, H3, both of which added steps).
#[test]
fn block_after_spawn() {
    explore_bounds("block_after_spawn", (2, 28_000), (1, 600), || {
        let pool = std::sync::Arc::new(ThreadPool::new(2));
        let spawner = pool.clone();
        let handle = pool.submit(move || {
            let signal = Arc::new(Signal::new());
            let done = signal.clone();
            spawner.spawn(move || done.raise());
            signal.wait();
        });
        handle.join().unwrap();
        std::sync::Arc::try_unwrap(pool).ok().unwrap().shutdown();
    });
}

// As `block_after_spawn`, through `join`: a task joins two closures, the
// first of which blocks outside the pool until the second has run. The
// second sits on the blocked worker's deque and must not be stranded there
// while the other worker sleeps: `join`'s push announces it (S3) like any
// other, and the sleeper's final check (S2) sees it. Without S3 (or S2)
// the model deadlocks already at this bound; at bound 3 it runs 2 320 867
// executions in about five minutes, beyond CI's budget, and passes too.
// Bound: 2. Floor: 32 000 executions (61 977 observed with the sleepers
// word, S7; 42 796 with a count in every attention word, once the owner
// took its half back with `pop_biased`, with no fast-path load of `top`;
// 75 703 before; the `no_rescue` and
// `pending_unchecked` bugs are caught as before).
#[test]
fn join_then_block() {
    explore_bounds("join_then_block", (2, 32_000), (1, 720), || {
        let pool = std::sync::Arc::new(ThreadPool::new(2));
        let joiner = pool.clone();
        let handle = pool.submit(move || {
            let signal = Signal::new();
            joiner.join(|| signal.wait(), || signal.raise());
        });
        handle.join().unwrap();
        std::sync::Arc::try_unwrap(pool).ok().unwrap().shutdown();
    });
}

// Bound: 2. Floor: 32 000 executions (62 619 observed).
//
// `join_then_block` on a pool with `max_pending_joins(1)` (F6): the outer
// half is the first pending one, so it is published and must be taken by
// the other worker while its owner blocks; the `join` nested in the first
// half finds one half pending and runs inline when its attention word and
// the sleepers word are zero (nobody sleeps, nobody asks), or publishes as
// usual when they are not.
// Both halves of the inner `join` run exactly once either way, and over all
// executions some inner `join` ran inline, so the model covers that path.
// `--cfg stealpool_bug="pending_limit_ignored"` runs the outer `join`
// inline too: its first half then waits for its second forever (caught as
// a deadlock).
#[test]
fn limited_join_then_block() {
    explore_bounds("limited_join_then_block", (2, 32_000), (1, 720), || {
        let pool = std::sync::Arc::new(
            ThreadPool::builder()
                .num_threads(2)
                .max_pending_joins(1)
                .build()
                .unwrap(),
        );
        let joiner = pool.clone();
        let (x, y) = (Arc::new(Slot::new()), Arc::new(Slot::new()));
        let (x2, y2) = (x.clone(), y.clone());
        let handle = pool.submit(move || {
            let signal = Signal::new();
            joiner.join(
                || {
                    joiner.join(|| x2.bump(), || y2.bump());
                    signal.wait();
                },
                || signal.raise(),
            );
        });
        handle.join().unwrap();
        assert_eq!(
            (x.get(), y.get()),
            (1, 1),
            "a half of the inner join ran twice or never"
        );
        std::sync::Arc::try_unwrap(pool).ok().unwrap().shutdown();
    });
    assert!(
        stealpool::model_probes::INLINE_JOINS.count() > 0,
        "no execution ran a join inline: the model misses F6"
    );
}

/// Promotions seen over all executions of `join_promote_vs_take`.
static PROMOTIONS: StdAtomicUsize = StdAtomicUsize::new(0);

// Preemption bound 2, floor 29000 (105190 executions observed).
//
// Lazy promotion (`proofs/fork.md`): a worker runs a `join` whose first
// half joins again, while the other worker, out of work, asks it for work
// (F3) and, unanswered, takes the pending half directly (F4). The inner
// `join` polls the request and may promote the outer half to its shared
// deque, where the other worker steals it, or the owner finds it again
// (F2). Every half runs exactly once, its write reaches the caller, and no
// wake-up is lost; over all executions some promotion happened, so the
// model covers that path too.
#[test]
fn join_promote_vs_take() {
    explore("join_promote_vs_take", 2, 29_000, || {
        let pool = ThreadPool::new(2);
        let (a, b, c) = (Slot::new(), Slot::new(), Slot::new());
        pool.install(|| {
            pool.join(
                || {
                    pool.join(|| a.bump(), || b.bump());
                },
                || c.bump(),
            )
        });
        assert_eq!(
            (a.get(), b.get(), c.get()),
            (1, 1, 1),
            "a half of a join ran twice or never"
        );
        PROMOTIONS.fetch_add(pool.stats().joins_promoted as usize, StdOrdering::Relaxed);
        drop(pool);
    });
    assert!(
        PROMOTIONS.load(StdOrdering::Relaxed) > 0,
        "no execution promoted a pending join half: the model misses F3"
    );
}

loom::thread_local! {
    /// How many of a model's user closures are running on this loom
    /// thread, one inside another (`join_waits_run_no_unrelated_task`).
    static USER_DEPTH: std::cell::Cell<usize> = std::cell::Cell::new(0);
}

/// Runs `body` counted in this thread's `USER_DEPTH`.
fn counted<R>(body: impl FnOnce() -> R) -> R {
    USER_DEPTH.with(|depth| depth.set(depth.get() + 1));
    let value = body();
    USER_DEPTH.with(|depth| depth.set(depth.get() - 1));
    value
}

/// Spawned tasks that started on top of another user closure, in the
/// current execution of `join_waits_run_no_unrelated_task`.
static RAN_ON_A_WAIT: StdAtomicUsize = StdAtomicUsize::new(0);

// Preemption bound 2, floor 100000 (202161 executions observed, 58 s in
// release on a loaded 2-core machine). Quick bound 2 as well: at bound 1
// (3840 executions) no job is rerouted, and the old rule is not caught.
//
// H6's rule, against the rule it replaced (`join_wait_runs_any`): a
// `join` whose half another worker took runs on top of its frame only
// halves forked beneath that half. Two workers; the caller installs a
// `join` on one of them, whose first half spawns a task `t`. The other
// worker may take the second half (asked, F3, or taken unanswered, F4)
// and run it while the joiner finishes the first and finds `t` above
// where its half was: `t` is no half, so it goes to the injector (H6's
// search), and the joiner waits helping only beneath its half. Nothing
// awaits `t`, so it must start on a thread with no user closure running
// beneath it: each closure of the model counts itself in a loom
// thread-local depth, and `t` records a start at a depth above zero.
// `--cfg stealpool_bug="join_wait_runs_any"` (a waiting `join` runs any
// job) runs `t` on top of the joiner's wait when the thief has not
// finished yet (caught in execution 31919, 17 s). Over all executions
// some job was rerouted, so the model reaches the state the old rule
// went wrong in.
#[test]
fn join_waits_run_no_unrelated_task() {
    let rerouted_before = stealpool::model_probes::REROUTED.count();
    explore("join_waits_run_no_unrelated_task", 2, 100_000, || {
        RAN_ON_A_WAIT.store(0, StdOrdering::Relaxed);
        let pool = ThreadPool::new(2);
        let (a, b) = (Slot::new(), Slot::new());
        let spawned = Arc::new(AtomicUsize::new(0));
        let task_ran = spawned.clone();
        pool.install(|| {
            counted(|| {
                pool.join(
                    || {
                        counted(|| {
                            pool.spawn(move || {
                                if USER_DEPTH.with(std::cell::Cell::get) > 0 {
                                    RAN_ON_A_WAIT.fetch_add(1, StdOrdering::Relaxed);
                                }
                                task_ran.fetch_add(1, Ordering::Relaxed);
                            });
                            a.bump();
                        })
                    },
                    || counted(|| b.bump()),
                )
            })
        });
        drop(pool);
        assert_eq!(
            (a.get(), b.get(), spawned.load(Ordering::Relaxed)),
            (1, 1, 1),
            "a half of the join or the spawned task ran twice or never"
        );
        assert_eq!(
            RAN_ON_A_WAIT.load(StdOrdering::Relaxed),
            0,
            "a task nothing waits for ran on top of a waiting join (H6)"
        );
    });
    let rerouted = stealpool::model_probes::REROUTED.count() - rerouted_before;
    progress::line(format_args!(
        "join_waits_run_no_unrelated_task: {rerouted} jobs rerouted over all executions"
    ));
    assert!(
        rerouted > 0,
        "no execution rerouted the spawned task: the model misses the state H6 guards"
    );
}

// Preemption bound 3, floor 38000 (82900 executions observed; 159276 in
// 57 s since Z6: the job goes as a ticket with a claim, and the wait is
// recorded in the stall table).
//
// A wait that crosses pools, each pool with one worker: the caller installs
// on pool `a`, whose worker installs on pool `b` and so waits on a
// `CrossPoolLatch` of its own pool while `b`'s worker runs the job. Waiting,
// `a`'s worker parks on that latch, serving its mailbox (U2, Y1), while `b`'s worker finishes, takes its own reference to `a`'s
// registry (J3) and sets the latch (L1), which must wake it. Had the worker
// blocked outside its pool's protocol, nothing would change here; the model
// checks that sleeping inside it loses no wake-up and that the job's write
// reaches the caller (L1/L2, then the outer install's lock latch).
#[test]
fn cross_pool_install() {
    explore_bounds("cross_pool_install", (3, 38_000), (2, 3700), || {
        let a = ThreadPool::new(1);
        let b = ThreadPool::new(1);
        let slot = Slot::new();
        let value = a.install(|| {
            b.install(|| {
                slot.bump();
                7
            })
        });
        assert_eq!((value, slot.get()), (7, 1), "the job ran twice or never");
        drop(b);
        drop(a);
    });
}

// Preemption bound 2, floor 13000 (26840 executions observed, 7 s). It was
// 3 (floor 130000; 161547 executions since Y1, 193062 before) until Z6
// sent the job as a ticket whose claim the runner takes, and recorded the
// wait in the stall table: 692298 executions at bound 3, 234 s, a quarter
// of the loom step. Bound 2 still fails under `waiter_unserved`, in its
// first execution.
//
// The round trip of the review's first program, one worker per pool: `a`'s
// worker waits on `b`, whose worker joins on `a`: that job can only run on
// `a`'s worker, inside its cross-pool wait, where it is posted (Y1).
// Queuing it as any job of `a` (`waiter_unserved`) stalls here: the inner
// install, its job queued on `a` whose only thread waits on `b`, is
// reported (Z6) where it deadlocked before; a lost wake-up on either latch
// deadlocks.
#[test]
fn cross_pool_round_trip() {
    explore_bounds("cross_pool_round_trip", (2, 13_000), (1, 240), || {
        let a = ThreadPool::new(1);
        let b = ThreadPool::new(1);
        let value = a.install(|| b.install(|| a.join(|| 1, || 2)));
        assert_eq!(value, (1, 2));
        drop(b);
        drop(a);
    });
}

// Preemption bound 2, floor 10000 (20550 executions observed; bound 1: 487).
//
// Y3: `a`'s worker joins a handle of `b`'s task, which submits a task to
// `a` and joins it; one worker per pool and no spare. The task of `a` can
// only run on `a`'s worker, waiting inside its cross-pool join, and only
// if the need of `b`'s worker (the task of `a` it waits for) reaches it:
// `b`'s worker publishes its need and then looks for a waiter of its task
// under the task's packet lock, while `a`'s worker registers under that
// lock and then reads the need. Either order must get the task to `a`'s
// worker; one that lets both miss deadlocks here.
#[test]
fn cross_pool_handle_round_trip() {
    explore_bounds("cross_pool_handle_round_trip", (2, 10_000), (1, 240), || {
        let a = Arc::new(ThreadPool::new(1));
        let b = Arc::new(ThreadPool::new(1));
        let (inner_a, inner_b) = (a.clone(), b.clone());
        let value = a.install(move || {
            let back = inner_a.clone();
            inner_b
                .submit(move || back.submit(|| 5).join().unwrap() + 1)
                .join()
                .unwrap()
        });
        assert_eq!(value, 6);
        drop(b);
        drop(a);
    });
}

// Preemption bound 5, floor 8000 (23699 executions observed).
//
// K1: a continuation attached from outside while the worker completes its
// task: attached before the completion, `complete` delivers it; after, the
// attaching thread does and schedules the job through the injector (K3).
// Either way it runs once, on the worker, and sees the task's write (the
// packet mutex, then the push). Lost (the attach and the completion
// missing each other) the outside `join` blocks forever: a deadlock.
#[test]
fn then_attach_vs_complete() {
    explore_bounds("then_attach_vs_complete", (5, 8000), (4, 2200), || {
        let pool = ThreadPool::new(1);
        let slot = Arc::new(Slot::new());
        let task_slot = slot.clone();
        let head = pool.submit(move || {
            task_slot.bump();
            1
        });
        let then_slot = slot.clone();
        let next = head.then(move |x| {
            assert_eq!(then_slot.get(), 1, "the continuation ran before its task");
            then_slot.bump();
            x + 1
        });
        assert_eq!(next.join().unwrap(), 2);
        drop(pool);
        assert_eq!(slot.get(), 2, "the task or its continuation ran twice or never");
    });
}

// Preemption bound 2, floor 7500 (20559 executions observed).
//
// K2: `when_all` of two tasks of two one-worker pools, so the inputs may
// arrive at once from two workers (on one worker, or with the caller
// delivering, some mutex orders every arrival before the next). Each
// delivers its result into its own cell and counts down; exactly one sees
// the count reach zero and schedules the gathering job, which reads both
// cells: never twice, never lost (the join would block forever), each
// value in its place. Two pools are three loom threads with the caller, as
// one pool of two workers, with a fraction of the latter's executions.
// K2's acquire is what `when_all_arrivals_inline` checks: here the last
// arrival's push, whose S3 barrier is a SeqCst fence under loom, would
// acquire for it.
#[test]
fn when_all_arrivals() {
    explore_bounds("when_all_arrivals", (2, 7500), (1, 270), || {
        let here = ThreadPool::new(1);
        let there = ThreadPool::new(1);
        let handles = vec![here.submit(|| 10), there.submit(|| 20)];
        let all = here.when_all(handles);
        assert_eq!(all.join().unwrap(), [10, 20]);
        drop(there);
        drop(here);
    });
}

// Preemption bound 1, floor 1400 (4700 executions observed).
//
// K2 again, where the last arrival reads the inputs itself: the gathering
// pool shuts down while two tasks of two other pools finish, so the last
// arrival finds every worker gone (X2) and runs the job in place. On the
// way through a live pool the last arrival pushes the job, and the push's
// S3 barrier, a SeqCst fence under loom, would acquire for it (on hardware
// it is a compiler fence); here nothing but K2's acquire orders the other
// worker's cell before the read.
#[test]
fn when_all_arrivals_inline() {
    explore("when_all_arrivals_inline", 1, 1400, || {
        let gather = ThreadPool::new(1);
        let first = ThreadPool::new(1);
        let second = ThreadPool::new(1);
        let all = gather.when_all(vec![first.submit(|| 10), second.submit(|| 20)]);
        drop(gather);
        assert_eq!(all.join().unwrap(), [10, 20]);
        drop(first);
        drop(second);
    });
}

// Preemption bound 3, floor 4000 (16421 executions observed).
//
// K3, X2: a continuation attached to a finished task while the pool shuts
// down: either a worker is still there (it checks for work under the sleep
// lock before it leaves, so it finds the job) or every worker has left and
// the attaching thread runs it. Pushed after the last worker left, it
// would never run: the final `join` would block forever.
#[test]
fn then_vs_shutdown() {
    explore("then_vs_shutdown", 3, 4000, || {
        let pool = ThreadPool::new(1);
        let head = pool.submit(|| 3);
        pool.wait_all();
        let attach = loom::thread::spawn(move || head.then(|x| x * 2));
        drop(pool);
        let next = attach.join().unwrap();
        assert_eq!(next.join().unwrap(), 6);
    });
}

// Bound: 1. Floor: 4500 executions (8823 observed).
//
// H4: task A submits S and joins S's handle; task B, submitted after A,
// joins A's handle; two workers and no spare (pools under loom have none
// unless asked). A's worker runs S in place if nobody has started it (H3),
// or parks; B's worker parks on A. Under the rule H4 replaced (`--cfg
// stealpool_bug="wait_runs_any"`: a waiting worker runs any job), A's
// worker may take B on top of A's wait, and B then waits for A beneath it
// forever: the model fails (a spin loom stops at its branch limit).
#[test]
fn dependent_handles_on_two_workers() {
    explore("dependent_handles_on_two_workers", 1, 4500, || {
        let pool = std::sync::Arc::new(ThreadPool::new(2));
        let inner = pool.clone();
        let a = pool.submit(move || inner.submit(|| 1).join().unwrap() + 1);
        let b = pool.submit(move || a.join().unwrap() + 1);
        assert_eq!(b.join().unwrap(), 3);
        std::sync::Arc::try_unwrap(pool).ok().unwrap().shutdown();
    });
}

// Bound: 1. Floor: 380 executions (869 observed; 38 901 at bound 2, in
// over a minute, where `ready_load` is caught as at bound 1).
//
// K4: a `zip` of two tasks of two one-worker pools, joined by a task of the
// first pool, on its only worker: if both inputs are there, the joiner
// claims the continuation and runs it in place, reading the cell the other
// pool's worker wrote, ordered only by the arrivals count (K2's release,
// `READY_LOAD`'s acquire); if not, it parks (no spare) and the last
// arrival wakes it to run the job itself (`mark_ready`), since nobody else
// is left to take it from the queue. `--cfg stealpool_weaken="ready_load"`
// makes the read of the cell a causality violation.
#[test]
fn continuation_joined_in_place() {
    explore("continuation_joined_in_place", 1, 380, || {
        let here = ThreadPool::new(1);
        let there = ThreadPool::new(1);
        let both = here.submit(|| 10).zip(there.submit(|| 20));
        let sum = here.submit(move || {
            let (a, b) = both.join().unwrap();
            a + b
        });
        assert_eq!(sum.join().unwrap(), 30);
        drop(there);
        drop(here);
    });
}

// H8: on a pool of one worker and no spare slot, a task joins a `then`
// whose input nobody started. Nothing else can run the input: the joiner
// must run it in place, then the continuation. `--cfg
// stealpool_bug="inputs_not_in_place"` parks the joiner instead: a
// deadlock.
#[test]
fn continuation_inputs_run_in_place() {
    explore_bounds("continuation_inputs_run_in_place", (3, 100), (2, 37), || {
        let pool = one_worker_no_spare();
        let value = pool.install(|| pool.submit(|| 1u32).then(|x| x + 1).join().unwrap());
        assert_eq!(value, 2);
        drop(pool);
    });
}

#[path = "../support/stall_reports.rs"]
mod stall_reports;
use stall_reports::{is_stall_report, quiet_stall_reports};

/// Joins `handle`, counting in `reports` a stall report, which it turns
/// into the value 0; the other task's report reaches it as `Ok(0)`.
fn join_counting_reports(handle: stealpool::JoinHandle<u32>, reports: &AtomicUsize) -> u32 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle.join())) {
        Ok(Ok(value)) => value + 1,
        Ok(Err(_)) => panic!("the joined task panicked with something else than a report"),
        Err(payload) => {
            assert!(
                is_stall_report(&*payload),
                "join panicked, and not with a stall report"
            );
            reports.fetch_add(1, Ordering::SeqCst);
            0
        }
    }
}

/// A pool of one worker and no spare slot.
fn one_worker_no_spare() -> ThreadPool {
    ThreadPool::builder()
        .num_threads(1)
        .max_blocking_threads(0)
        .build()
        .expect("a pool builds")
}

/// The cycle of `stall_reported_for_a_cycle`: `y` (on `b`) waits until
/// it gets `x`'s handle, then joins it; `x` (on `a`) joins `y`, or, with
/// `through_then`, `y.then(..)`. Exactly one report.
fn cycle_of_two_pools(through_then: bool) {
    let a = one_worker_no_spare();
    let b = one_worker_no_spare();
    let reports = Arc::new(AtomicUsize::new(0));
    let slot: Arc<loom::sync::Mutex<Option<stealpool::JoinHandle<u32>>>> =
        Arc::new(loom::sync::Mutex::new(None));
    let (slot_y, reports_y) = (slot.clone(), reports.clone());
    let y = b.submit(move || {
        let x = loop {
            if let Some(x) = slot_y.lock().unwrap().take() {
                break x;
            }
            loom::thread::yield_now();
        };
        join_counting_reports(x, &reports_y)
    });
    let awaited = if through_then {
        y.then(|value| value + 10)
    } else {
        y
    };
    let reports_x = reports.clone();
    let x = a.submit(move || join_counting_reports(awaited, &reports_x));
    *slot.lock().unwrap() = Some(x);
    drop(a);
    drop(b);
    assert_eq!(
        reports.load(Ordering::SeqCst),
        1,
        "a cycle reported other than once"
    );
}

// Preemption bound 2, floor 9000 (18525 executions observed; bound 1: 576;
// 45760 and 1136 before Y6, which no longer posts `x` to its own waiting
// thread, under which it runs).
//
// Z1-Z4: a cycle of handles across two one-worker pools with no spare.
// Whichever wait parks second finds both blocked (each task claimed by
// the other's waiting thread) and is reported; the other then gets its
// value. Exactly one report in every execution; none (`stall_unchecked`)
// deadlocks here.
#[test]
fn stall_reported_for_a_cycle() {
    quiet_stall_reports();
    explore_bounds("stall_reported_for_a_cycle", (2, 9_000), (1, 280), || {
        cycle_of_two_pools(false)
    });
}

// Preemption bound 2, floor 7700 (15591 executions observed; bound 1: 520;
// 34520 and 956 before Y6).
//
// Z2 through a continuation's inputs (H8's references): as above, but
// `x` joins `y.then(..)`, a continuation on `b` whose input `y` joins `x`.
// The wait on the continuation is blocked through its input, claimed by
// `b`'s waiting worker: exactly one report in every execution.
// `stall_inputs_ignored` (a continuation whose inputs are missing is
// never blocked, as before Z2 followed them) deadlocks here.
#[test]
fn stall_reported_for_a_cycle_through_then() {
    quiet_stall_reports();
    explore_bounds(
        "stall_reported_for_a_cycle_through_then",
        (2, 7_700),
        (1, 250),
        || cycle_of_two_pools(true),
    );
}

// Preemption bound 4, floor 240 (477 executions observed; bound 1: 13).
//
// Z9: a blocked set none of whose waits may leave, ended by running the
// queued work on top of one. One worker, no spare. The caller's scope `a`
// (installed on the worker) runs an inner scope `b` whose body spawns
// `b`'s task, then `a`'s: `b`'s wait pops `a`'s task first and, not its to
// run (H7), hands it to the injector; it runs its own, and returns. `a`'s
// wait then finds no task of its own on any deque, parks with no spare to
// stand in, and is the whole blocked set. It may not leave (its task
// borrows its frame), and the pool's injector holds work: it runs it on
// top of itself. Both tasks run once in every execution, and some
// execution took this path (the probe). `stall_escape_off` (the set
// printed, as before Z9) deadlocks here.
#[test]
fn stall_of_a_scope_runs_its_rerouted_task() {
    quiet_stall_reports();
    let escaped_before = stealpool::model_probes::STALLS_ESCAPED.count();
    explore_bounds(
        "stall_of_a_scope_runs_its_rerouted_task",
        (4, 240),
        (1, 6),
        || {
            let pool = one_worker_no_spare();
            let (ran_a, ran_b) = (Slot::new(), Slot::new());
            let (ran_a, ran_b) = (&ran_a, &ran_b);
            pool.scope(|a| {
                stealpool::scope(|b| {
                    b.spawn(move |_| ran_b.bump());
                    a.spawn(move |_| ran_a.bump());
                });
            });
            assert_eq!((ran_a.get(), ran_b.get()), (1, 1), "a task ran twice or never");
            drop(pool);
        },
    );
    let escaped = stealpool::model_probes::STALLS_ESCAPED.count() - escaped_before;
    progress::line(format_args!(
        "stall_of_a_scope_runs_its_rerouted_task: the scope ran its task on top of its wait in {escaped} executions"
    ));
    assert!(
        escaped > 0,
        "no execution ended the stall by running queued work (Z9)"
    );
}

// Preemption bound 2, floor 80000 (173129 executions observed; bound 1: 2577).
//
// Z2, Z3: no report while a wait can still end. `x` (on `a`) joins `z`
// (on `b`); `w` (on `b`) joins `v` (on `a`, queued behind `x`); one
// worker per pool and no spare, nothing cyclic. When `b`'s worker parks in `w`, `a`'s worker may
// still be parked in `x` with `z` done and its latch set: that record is
// released, not blocked (`stall_released_ignored` reports it, and `w`,
// here). A detector that looks only at the waiter's own pool
// (`stall_awaits_ignored`) reports `x` while `b` runs `z`.
#[test]
fn stall_not_reported_while_a_wait_can_end() {
    explore_bounds(
        "stall_not_reported_while_a_wait_can_end",
        (2, 80_000),
        (1, 1200),
        || {
            let a = one_worker_no_spare();
            let b = one_worker_no_spare();
            let z = b.submit(|| 1);
            let x = a.submit(move || z.join().unwrap());
            let v = a.submit(|| 2);
            let w = b.submit(move || v.join().unwrap());
            assert_eq!((x.join().unwrap(), w.join().unwrap()), (1, 2));
            drop(b);
            drop(a);
        },
    );
}
