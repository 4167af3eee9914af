//! Loom models of `block_in_place` (proofs/blocking.md, W1-W5): every
//! interleaving, within a preemption bound, of a one-worker pool whose
//! only worker blocks, its spare thread, and the caller.
//!
//! The blocking is real: `f` waits on a loom condition variable that only
//! another task of the pool (or the caller) opens. Without a spare taking
//! up the pool's work, a one-worker pool whose worker blocks on a task
//! queued behind it never finishes, and loom reports the deadlock. A pool
//! of one worker, its spare and the caller are 3 of loom's 5 threads.
//! Conventions (bounds and floors, what the counters check) as in
//! `loom/pool.rs`.
//!
//! Run with `cargo test --features loom --test loom_blocking` (the quick bounds;
//! `STEALPOOL_MODEL_BOUNDS=full` for the bounds stated here, `support/bounds.rs`);
//! each model prints a line as it starts and one as it ends.

#[path = "../support/loom_run.rs"]
mod loom_run;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Condvar, Mutex};
use loom_run::{explore, explore_bounds};
use stealpool::{block_in_place, JoinHandle, ThreadPool};

/// A gate one thread waits at until another opens it.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }

    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
    }
}

fn one_worker_one_spare() -> ThreadPool {
    ThreadPool::builder()
        .num_threads(1)
        .max_blocking_threads(1)
        .build()
        .unwrap()
}

/// A one-worker pool with one spare slot, running a task that blocks at
/// `gate` inside `block_in_place`, then counts itself in `ran`.
struct Blocked {
    pool: ThreadPool,
    gate: Arc<Gate>,
    ran: Arc<AtomicUsize>,
    waiter: JoinHandle<()>,
}

fn blocked_task() -> Blocked {
    let pool = one_worker_one_spare();
    let gate = Arc::new(Gate::default());
    let ran = Arc::new(AtomicUsize::new(0));
    let (task_gate, task_ran) = (gate.clone(), ran.clone());
    let waiter = pool.submit(move || {
        block_in_place(|| task_gate.wait());
        task_ran.fetch_add(1, Ordering::Relaxed);
    });
    Blocked {
        pool,
        gate,
        ran,
        waiter,
    }
}

// Preemption bound 2, floor 11000 (22519 executions observed with a lock
// per sleeping slot, 9400 with one sleep lock; bound 3 takes 170 000
// executions and a minute with one sleep lock).
//
// W1-W3: the worker blocks in a task while the task that would unblock it
// waits in a queue (its own deque or the injector, both orders explored):
// a spare must take it, whether the spare starts before or after the
// worker goes to sleep or the task is pushed, racing the worker's search
// and sleep. The spare steals from the blocked worker's deque (no job
// stranded there), joins the sleep protocol (a push that finds it asleep
// wakes it), and gives its slot back when the worker returns.
#[test]
fn blocked_worker_hands_work_to_spare() {
    explore_bounds("blocked_worker_hands_work_to_spare", (2, 11000), (1, 120), || {
        let Blocked {
            pool,
            gate,
            ran,
            waiter,
        } = blocked_task();
        let opener = gate.clone();
        pool.spawn(move || opener.open());
        waiter.join().unwrap();
        drop(pool);
        assert_eq!(ran.load(Ordering::Relaxed), 1);
    });
}

// Preemption bound 2, floor 1800 (3768 executions observed). With a lock per
// sleeping slot, bound 3 takes 120 619 executions (196 s on a loaded
// machine), six times what it took with one sleep lock (21 108): the full
// bound is 2, as the quick one, to keep the suite's time.
//
// W3, W4, X2: the blocked worker returns while the pool shuts down: the
// spare retires (and parks, until the shutdown ends its wait) or leaves
// with the workers, and a task queued while all this happens still runs
// before the drop returns. A spare parked with no wake-up, or leaving as
// the last member with the task queued, hangs the drop or loses the task.
#[test]
fn return_races_shutdown() {
    explore_bounds("return_races_shutdown", (2, 1800), (2, 1800), || {
        let Blocked { pool, gate, ran, .. } = blocked_task();
        let late = ran.clone();
        pool.spawn(move || {
            late.fetch_add(1, Ordering::Relaxed);
        });
        gate.open();
        drop(pool);
        assert_eq!(ran.load(Ordering::Relaxed), 2);
    });
}

// Preemption bound 2, floor 2900 (5811 executions observed). With a lock per
// sleeping slot, bound 3 takes 149 390 executions (309 s on a loaded
// machine), six times what it took with one sleep lock (24 472): the full
// bound is 2, as the quick one, to keep the suite's time.
//
// W1, W2 during the drain: the pool is dropped right after a task that
// blocks and the task it waits for are queued. The drain must still bring
// a spare in (shutdown or not), and a spare must not leave with the
// workers while a thread it stands in for blocks: the task that unblocks
// it may be in that thread's deque, or on its way there from the injector.
// Both mistakes were in a first version; shuttle `one_slot_taken_and_given_back`
// found them.
#[test]
fn blocked_during_drain() {
    explore_bounds("blocked_during_drain", (2, 2900), (2, 2900), || {
        let Blocked { pool, gate, ran, .. } = blocked_task();
        pool.spawn(move || gate.open());
        drop(pool);
        assert_eq!(ran.load(Ordering::Relaxed), 1);
    });
}

// Preemption bound 2, floor 14000 (29344 executions observed with a lock per
// sleeping slot, 13214 with one sleep lock).
//
// W2 at shutdown: the blocked thread makes work after the shutdown began
// (a continuation on a finished task, pushed where the pool's members find
// it, X2) and waits for it. Its spare saw no work and the pool
// terminating, and must still not leave: it sleeps until the work comes.
// Four threads: the caller, the worker, the spare, and the thread that
// lets the blocked task go on at any point of the shutdown.
#[test]
fn work_made_while_blocked_after_shutdown() {
    explore_bounds(
        "work_made_while_blocked_after_shutdown",
        (2, 14000),
        (1, 150),
        || {
            let pool = one_worker_one_spare();
            let finished = pool.submit(|| ());
            pool.wait_all();
            let (go_on, done) = (Arc::new(Gate::default()), Arc::new(Gate::default()));
            let ran = Arc::new(AtomicUsize::new(0));
            {
                let (go_on, done, ran) = (go_on.clone(), done.clone(), ran.clone());
                pool.spawn(move || {
                    block_in_place(move || {
                        go_on.wait();
                        let opener = done.clone();
                        let _next = finished.then(move |()| opener.open());
                        done.wait();
                    });
                    ran.fetch_add(1, Ordering::Relaxed);
                });
            }
            let opener = loom::thread::spawn(move || go_on.open());
            drop(pool);
            opener.join().unwrap();
            assert_eq!(ran.load(Ordering::Relaxed), 1);
        },
    );
}

// Preemption bound 2, floor 11000 (22746 executions observed with a lock
// per sleeping slot).
//
// W5: a spare's own jobs are seen by the others. A scope on the worker
// spawns a task and blocks; the spare takes that task, which queues a job
// on the spare's own deque, lets the worker go on, and blocks outside the
// pool until the job runs. Only the worker, back in the scope's wait, can
// run it: its search and its final check before sleeping must look at the
// spare's slot. A mark of the slots ever held that is not raised when the
// spare takes its slot (`slots_unmarked`) hides the job: deadlock.
#[test]
fn worker_runs_what_a_blocked_spare_queued() {
    explore("worker_runs_what_a_blocked_spare_queued", 2, 11000, || {
        let pool = one_worker_one_spare();
        let (go_on, queued_ran) = (Gate::default(), Gate::default());
        let ran = AtomicUsize::new(0);
        pool.scope(|s| {
            s.spawn(|s| {
                s.spawn(|_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    queued_ran.open();
                });
                go_on.open();
                queued_ran.wait();
                ran.fetch_add(1, Ordering::Relaxed);
            });
            block_in_place(|| go_on.wait());
        });
        drop(pool);
        assert_eq!(ran.load(Ordering::Relaxed), 2);
    });
}

// Preemption bound 2, floor 5400 (10946 executions observed with a lock per
// sleeping slot, 4533 with one sleep lock).
//
// W2 for the workers: at shutdown a spare still holding its slot may queue
// work on its own deque and then block on it; with one slot, no other
// spare can come, and only the worker can run that work. The worker ran
// the blocked task and is idle when the pool terminates: it must not
// leave while a spare holds a slot or a thread blocks, even though it
// finds no work (`--cfg stealpool_bug="workers_leave_while_blocking"`
// lets it: deadlock). Found by shuttle `one_slot_taken_and_given_back`
// (about one run in eight of 10 000 schedules).
#[test]
fn spare_blocks_on_its_own_work_at_shutdown() {
    explore("spare_blocks_on_its_own_work_at_shutdown", 2, 5400, || {
        let pool = one_worker_one_spare();
        let finished = pool.submit(|| ());
        pool.wait_all();
        let (first, done) = (Arc::new(Gate::default()), Arc::new(Gate::default()));
        let ran = Arc::new(AtomicUsize::new(0));
        {
            let (first, ran) = (first.clone(), ran.clone());
            pool.spawn(move || {
                block_in_place(|| first.wait());
                ran.fetch_add(1, Ordering::Relaxed);
            });
        }
        {
            let ran = ran.clone();
            pool.spawn(move || {
                first.open();
                let opener = done.clone();
                let _next = finished.then(move |()| opener.open());
                block_in_place(|| done.wait());
                ran.fetch_add(1, Ordering::Relaxed);
            });
        }
        drop(pool);
        assert_eq!(ran.load(Ordering::Relaxed), 2);
    });
}
