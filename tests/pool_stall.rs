#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The stall detector on real threads (Z1-Z4 in `proofs/waits.md`): a
//! `JoinHandle::join` that can never return panics with a report naming
//! the pools, instead of parking forever; a wait that can still end is
//! never reported.

mod common;

use common::{finishes, message};
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use stealpool::{JoinHandle, ThreadPool};

/// What every report says.
const STALL: &str = "can never return (a stall)";

fn is_report(payload: &(dyn Any + Send)) -> bool {
    message(payload).is_some_and(|text| text.contains(STALL))
}

fn pool(workers: usize, spares: Option<usize>) -> ThreadPool {
    let builder = ThreadPool::builder().num_threads(workers);
    let builder = match spares {
        Some(spares) => builder.max_blocking_threads(spares),
        None => builder,
    };
    builder.build().expect("a pool builds")
}

type Slot = Arc<Mutex<Option<JoinHandle<u32>>>>;

/// Joins the handle in `slot`: its value plus one, or 0 if this very join
/// was reported (the report's text kept in `reports`).
fn join_slot(slot: &Slot, reports: &Mutex<Vec<String>>) -> u32 {
    let handle = slot
        .lock()
        .unwrap()
        .take()
        .expect("the handle was put in its slot");
    match panic::catch_unwind(AssertUnwindSafe(|| handle.join())) {
        Ok(Ok(value)) => value + 1,
        Ok(Err(payload)) => panic::resume_unwind(payload),
        Err(payload) => {
            assert!(
                is_report(&*payload),
                "join panicked with {:?}",
                message(&*payload)
            );
            reports.lock().unwrap().push(message(&*payload).unwrap());
            0
        }
    }
}

/// Waits coming and going elsewhere in the process: on a pool of its own
/// (two workers, no spare), a task joins a continuation of a task that
/// runs on the other worker and ends only once the join has begun to
/// block, over and over, until `stop`. Each such join parks, so a record
/// is added to the stall table and removed again every few milliseconds
/// (tens in a debug build, whose looks before the park are slower): no
/// re-check of another wait finds the table still for a whole period
/// (Z5, Z8), as in a process whose other parts keep waiting. The join is
/// on the continuation, not on the task itself: a task that is ready is
/// looked at once more before its join parks (K4), and its join could
/// outlast the task in those looks, never parking; the continuation is
/// not ready until the task ends, so its join parks at its first block.
/// Its pool lends nothing (a join of its own pool's task), so no counted
/// look (Z5) is made for its sake.
struct Churn {
    pool: Arc<ThreadPool>,
    stopped: Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl Churn {
    fn start() -> Churn {
        let pool = Arc::new(pool(2, Some(0)));
        let stopped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let thread = {
            let (pool, stopped) = (pool.clone(), stopped.clone());
            std::thread::spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    let inner_pool = pool.clone();
                    pool.submit(move || {
                        let (started, has_started) = std::sync::mpsc::channel();
                        let blocked_before = inner_pool.stats().blocking_uncompensated;
                        let outer_pool = inner_pool.clone();
                        let inner = inner_pool.submit(move || {
                            started.send(()).unwrap();
                            // Ends only once the join below has begun to
                            // block (and a moment more, for its record):
                            // however long its looks before the park take
                            // on a loaded machine, it parks.
                            while outer_pool.stats().blocking_uncompensated == blocked_before {
                                std::thread::yield_now();
                            }
                            std::thread::sleep(std::time::Duration::from_millis(5));
                        });
                        // `inner` runs on the other worker: the join parks.
                        has_started.recv().unwrap();
                        inner.then(|()| ()).join().unwrap();
                    })
                    .join()
                    .unwrap();
                }
            })
        };
        Churn {
            pool,
            stopped,
            thread,
        }
    }

    /// Returns once the churn has parked a few waits: the table moves.
    fn until_moving(&self) {
        while self.pool.stats().blocking_uncompensated < 3 {
            std::thread::yield_now();
        }
    }

    fn stop(self) {
        self.stopped.store(true, Ordering::Relaxed);
        self.thread.join().unwrap();
    }
}

/// Two tasks, on `first` and `second`, each started before it joins the
/// other's handle (a barrier with the caller holds both until both
/// handles are in their slots): a cycle of handles across two threads.
/// With `through_then`, the first task joins a continuation of the
/// second's handle instead (on `second`'s pool). Returns the two tasks'
/// values, sorted, and the reports.
fn cycle_of_two(first: &ThreadPool, second: &ThreadPool, through_then: bool) -> (Vec<u32>, Vec<String>) {
    let (slot_x, slot_y): (Slot, Slot) = Default::default();
    let reports = Arc::new(Mutex::new(Vec::new()));
    let values = Arc::new(Mutex::new(Vec::new()));
    let start = Arc::new(Barrier::new(3));
    let task = |pool: &ThreadPool, other: &Slot| {
        let (other, reports, values, start) = (other.clone(), reports.clone(), values.clone(), start.clone());
        pool.submit(move || {
            start.wait();
            let value = join_slot(&other, &reports);
            values.lock().unwrap().push(value);
            value
        })
    };
    let x = task(first, &slot_y);
    let y = task(second, &slot_x);
    *slot_x.lock().unwrap() = Some(x);
    *slot_y.lock().unwrap() = Some(if through_then {
        y.then(|value| value + 10)
    } else {
        y
    });
    start.wait();
    first.wait_all();
    second.wait_all();
    let mut values = std::mem::take(&mut *values.lock().unwrap());
    values.sort_unstable();
    let reports = std::mem::take(&mut *reports.lock().unwrap());
    (values, reports)
}

/// The report names both waits of a cycle of two by the places in this
/// file where each task was submitted and joined, each task running
/// beneath the other's join.
fn assert_names_the_waits(report: &str) {
    let made = format!("waits for the task made at {}:", file!());
    let beneath = format!("which runs beneath the JoinHandle::join at {}:", file!());
    let joins = format!("the JoinHandle::join at {}:", file!());
    assert_eq!(report.matches(&made).count(), 2, "both tasks named: {report}");
    assert_eq!(
        report.matches(&beneath).count(),
        2,
        "both runners named: {report}"
    );
    assert_eq!(report.matches(&joins).count(), 4, "both joins named: {report}");
}

#[test]
fn a_cycle_of_handles_on_two_workers_is_reported_once() {
    common::quiet_expected_panics_or(is_report);
    for spares in [Some(0), None] {
        let pool = pool(2, spares);
        let (values, reports) = cycle_of_two(&pool, &pool, false);
        assert_eq!(reports.len(), 1, "spares {spares:?}: reports {reports:?}");
        // The reported join gives 0; the other gets that 0, plus one.
        assert_eq!(values, [0, 1]);
        assert!(
            reports[0].contains("Pool 0 (this wait's): workers 2, spare slots"),
            "the report names the pool: {}",
            reports[0]
        );
        assert_names_the_waits(&reports[0]);
    }
}

#[test]
fn a_cycle_of_handles_through_two_pools_is_reported_once() {
    common::quiet_expected_panics_or(is_report);
    for spares in [Some(0), None] {
        let (a, b) = (pool(1, spares), pool(1, spares));
        let (values, reports) = cycle_of_two(&a, &b, false);
        assert_eq!(reports.len(), 1, "spares {spares:?}: reports {reports:?}");
        assert_eq!(values, [0, 1]);
        assert!(
            reports[0].contains("Pool 1:"),
            "the report names both pools: {}",
            reports[0]
        );
        assert_names_the_waits(&reports[0]);
    }
}

/// A cycle through a continuation: `x` on `a` joins `y.then(..)`, a
/// continuation on `b` whose input `y` joins `x`. The wait on the
/// continuation is blocked through its input (H8's references), so the
/// cycle is reported once, naming the continuation's input; both tasks
/// then finish.
#[test]
fn a_cycle_through_then_is_reported_once_naming_the_input() {
    common::quiet_expected_panics_or(is_report);
    for spares in [Some(0), None] {
        let (a, b) = (pool(1, spares), pool(1, spares));
        let (_, reports) = cycle_of_two(&a, &b, true);
        assert_eq!(reports.len(), 1, "spares {spares:?}: reports {reports:?}");
        let input = format!(", whose input made at {}:", file!());
        assert_eq!(
            reports[0].matches(&input).count(),
            1,
            "the wait on the continuation names its input: {}",
            reports[0]
        );
        assert_eq!(
            reports[0]
                .matches("which runs beneath the JoinHandle::join at")
                .count(),
            2
        );
    }
}

/// A pipeline of `stages` handles alternating between two pools, each
/// stage joining the one before (its panic passed on as it is): the
/// final value, or the payload that ended it.
fn pipeline(
    pools: &Arc<[ThreadPool; 2]>,
    stages: u32,
    from_a_task: bool,
) -> Result<u32, Box<dyn Any + Send>> {
    let build = {
        let pools = pools.clone();
        move || {
            let mut previous: JoinHandle<u32> = pools[0].submit(|| 0);
            for stage in 1..stages {
                let before = previous;
                previous = pools[stage as usize % 2].submit(move || match before.join() {
                    Ok(value) => value + 1,
                    Err(payload) => panic::resume_unwind(payload),
                });
            }
            previous
        }
    };
    let last = if from_a_task {
        pools[1].submit(build).join().expect("the builder does not panic")
    } else {
        build()
    };
    last.join()
}

/// The two-pool pipeline, past what the spare slots hold, with
/// default settings: it finishes (a hang here is the test run's timeout).
/// Stages start oldest first (V9), and a thread waiting on the other
/// pool with no spare left runs only tasks that cannot wait for the
/// tasks beneath its wait: made before each of them, or inside it (Y5),
/// so the oldest unfinished stage always has a thread.
/// `--cfg stealpool_bug="lend_any"` (Y4 before Y5) ends it with a stall
/// report that the pool made.
#[test]
fn long_pipelines_finish() {
    let stages = if cfg!(debug_assertions) { 2_000 } else { 20_000 };
    for workers in [1, 2] {
        for from_a_task in [false, true] {
            let pools = Arc::new([pool(workers, None), pool(workers, None)]);
            match pipeline(&pools, stages, from_a_task) {
                Ok(value) => assert_eq!(value, stages - 1),
                Err(payload) => panic!(
                    "{workers} workers, from a task {from_a_task}: ended with {:?}",
                    message(&*payload)
                ),
            }
        }
    }
}

/// Z3 on real threads: `x` joins `z` of the other pool while `w` joins `v`
/// queued behind `x`; no spare, nothing cyclic, so nothing is reported,
/// however the waits interleave with the latches' setters.
#[test]
fn acyclic_cross_joins_are_never_reported() {
    let rounds = common::scaled(300, 3);
    let seen = AtomicUsize::new(0);
    for _ in 0..rounds {
        let (a, b) = (pool(1, Some(0)), pool(1, Some(0)));
        let z = b.submit(|| 1);
        let x = a.submit(move || z.join().unwrap());
        let v = a.submit(|| 2);
        let w = b.submit(move || v.join().unwrap());
        assert_eq!((x.join().unwrap(), w.join().unwrap()), (1, 2));
        seen.fetch_add(1, Ordering::Relaxed);
    }
    assert_eq!(seen.load(Ordering::Relaxed), rounds);
}

/// Z6: a stall closed through a cross-pool `install`. One worker each, no
/// spare. `z` on `b` has started (and holds `b`'s only thread) when `x`
/// on `a` installs into `b`: the install's job is queued behind `z`, and
/// `z` joins `y`, queued on `a` behind `x` and made after it, which `a`'s
/// thread, lent to `b` while it waits, may not be handed (Y5). Nothing can
/// end, and the wait that parks last reports it: `z`'s join (it gets 0,
/// and `x` then its job's 5), or the install, which withdraws its job,
/// never run, and panics with the report (`x` fails, and `z` gets `y`'s
/// 1, plus one). Either way once, naming the install.
/// `--cfg stealpool_bug="install_unwatched"` (the install's wait
/// unrecorded, as before Z6) leaves `a` with a thread that seems to run:
/// nothing is reported, and the watchdog fails the test.
#[test]
fn a_stall_through_install_is_reported_once() {
    common::quiet_expected_panics_or(is_report);
    let install = format!("the ThreadPool::install at {}:", file!());
    let mut by = [0; 2];
    for _ in 0..common::scaled(20, 4) {
        let (x, z, reports) = finishes("a stall through install", || {
            let (a, b) = (Arc::new(pool(1, Some(0))), Arc::new(pool(1, Some(0))));
            let reports = Arc::new(Mutex::new(Vec::new()));
            let (go, z_started) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
            let x = {
                let (b, go) = (b.clone(), go.clone());
                a.submit(move || {
                    go.wait();
                    b.install(|| 5)
                })
            };
            let y: Slot = Arc::new(Mutex::new(Some(a.submit(|| 1))));
            let z = {
                let (reports, z_started) = (reports.clone(), z_started.clone());
                b.submit(move || {
                    z_started.wait();
                    join_slot(&y, &reports)
                })
            };
            z_started.wait();
            go.wait();
            let x = x.join().map_err(|payload| message(&*payload));
            let z = z.join().unwrap();
            let reports = reports.lock().unwrap().clone();
            (x, z, reports)
        });
        let report = match x {
            Ok(5) => {
                assert_eq!((z, reports.len()), (0, 1), "z's join was reported: {reports:?}");
                by[0] += 1;
                reports[0].clone()
            }
            Err(Some(report)) => {
                assert!(reports.is_empty(), "one report: {reports:?}, and x's {report}");
                assert_eq!(z, 2, "x's job was withdrawn, so y ran");
                assert!(
                    report.contains("stealpool: ThreadPool::install can never return"),
                    "{report}"
                );
                by[1] += 1;
                report
            }
            other => panic!("x ended with {other:?}"),
        };
        assert!(
            report.contains(&install),
            "the report names the install: {report}"
        );
        assert_eq!(
            report.matches("which nobody has started;").count(),
            2,
            "the install's job and y are both queued: {report}"
        );
    }
    println!(
        "reported by z's join {} times, by the install {} times",
        by[0], by[1]
    );
}

/// Z7: a cycle through a scope's wait. Two workers, no spare. `x` runs a
/// scope of two tasks that meet at a barrier (with the caller, once it
/// has put `x`'s handle in the slot), so each runs on its own thread; the one not on `x`'s thread joins `x`'s own handle. `x`'s
/// thread then waits for the scope (its tasks run only on this pool's
/// threads), the other thread for `x`, which runs beneath that scope: a
/// cycle. `x`'s thread goes to the scope's wait only once the join has
/// begun its own (`Stats::blocking_uncompensated`), so the scope's wait is
/// the one that closes the set, and it cannot leave (its tasks borrow its
/// frame): the join reports it at its next look (Z6's hand-over, about
/// 0.2 s), naming the scope's wait; its task takes the report as its
/// value, and the scope ends.
/// `--cfg stealpool_bug="own_waits_unwatched"` (the scope's wait
/// unrecorded, as before Z7) leaves `x`'s thread seeming to run: nothing
/// is reported, and the watchdog fails the test.
#[test]
fn a_cycle_through_a_scope_is_reported_by_a_join() {
    cycle_through_a_scope(false);
}

/// As above, with waits coming and going on another pool all along
/// (`Churn`): the join's re-check never finds the table still, so only
/// the scope's hand-over (Z6's `due`) makes it look.
/// `--cfg stealpool_bug="stall_due_ignored"` (no hand-over: the set is
/// printed) leaves it unreported, and the watchdog fails the test.
#[test]
fn a_cycle_through_a_scope_is_reported_while_other_waits_come_and_go() {
    cycle_through_a_scope(true);
}

fn cycle_through_a_scope(churn: bool) {
    common::quiet_expected_panics_or(is_report);
    let (scope_ended, reports) = finishes("a cycle through a scope", move || {
        let churn = churn.then(Churn::start);
        let pool = Arc::new(pool(2, Some(0)));
        let this_pool = Arc::downgrade(&pool);
        let reports = Arc::new(Mutex::new(Vec::new()));
        let slot: Slot = Arc::new(Mutex::new(None));
        let started = Arc::new(Barrier::new(3));
        let (ended, scope_ended) = std::sync::mpsc::channel();
        let x = {
            let (slot, reports, started) = (slot.clone(), reports.clone(), started.clone());
            pool.submit(move || {
                let owner = stealpool::current_thread_index();
                let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                    stealpool::scope(|s| {
                        for _ in 0..2 {
                            let (slot, reports, started, this_pool) = (&slot, &reports, &started, &this_pool);
                            s.spawn(move |_| {
                                started.wait();
                                if stealpool::current_thread_index() != owner {
                                    join_slot(slot, reports);
                                } else {
                                    // The owner's thread goes to the scope's
                                    // wait once the join has begun its own,
                                    // and a moment more: the join's record
                                    // is then most often written first, so
                                    // the scope's wait closes the set and
                                    // the join is asked to report (Z6). In
                                    // the other order the join finds the
                                    // set as it parks (Z4); either way it
                                    // reports.
                                    let pool = this_pool.upgrade().expect("the caller holds the pool");
                                    while pool.stats().blocking_uncompensated == 0 {
                                        std::thread::yield_now();
                                    }
                                    std::thread::sleep(std::time::Duration::from_millis(20));
                                }
                            });
                        }
                    })
                }));
                let _ = ended.send(outcome.map_err(|payload| message(&*payload)));
                7
            })
        };
        // The tasks meet here at the barrier before either looks in the slot.
        *slot.lock().unwrap() = Some(x);
        if let Some(churn) = &churn {
            churn.until_moving();
        }
        started.wait();
        let begun = std::time::Instant::now();
        let scope_ended = scope_ended.recv().expect("x reports how its scope ended");
        println!("the scope ended {:?} after the barrier", begun.elapsed());
        let reports = reports.lock().unwrap().clone();
        if let Some(churn) = churn {
            churn.stop();
        }
        (scope_ended, reports)
    });
    assert_eq!(reports.len(), 1, "reports {reports:?}");
    assert!(
        reports[0].contains("a scope (waiting for its tasks) (on a thread of pool 0)"),
        "the report names the scope's wait: {}",
        reports[0]
    );
    assert!(
        reports[0].contains("which runs beneath a scope (waiting for its tasks);"),
        "x runs beneath the scope's wait: {}",
        reports[0]
    );
    // The reported join's task caught the report (0): the scope ends.
    assert_eq!(scope_ended, Ok(()));
}

/// Z8: a stall closed by a continuation's last input arriving, with no
/// wait parking then. One worker per pool, no spare on `a` and `b`. `w`
/// on `a` joins `x` on `b`; `x` joins `all`, a continuation on `a` of `y`,
/// which runs on a third pool and is held at a gate. `all` reaches `x`
/// through a slot, made after `w`, so `a`'s thread, lent to `b` while it
/// waits, may not be handed it (Y5). While `y` runs nothing is stuck;
/// once it ends, `all` is queued on `a`, whose only thread waits for `x`,
/// which waits for `all`. The gate opens once both waits have begun to
/// block (and 50 ms more, so they have parked: the order decides only
/// which look reports, not whether one does), and a re-check of the
/// still table, computed exactly, reports it: once, within a few
/// periods of 0.2 s. `--cfg stealpool_bug="exact_recheck_off"` (no such
/// look) hangs it until the watchdog fails it.
#[test]
fn a_stall_closed_by_a_continuation_is_reported() {
    stall_closed_by_a_continuation(false);
}

/// As above, with waits coming and going on another pool all along
/// (`Churn`): no re-check finds the table still, so the set is found by
/// the next wait that parks, outside it (Z4), which hands it over to its
/// members. `--cfg stealpool_bug="others_sets_ignored"` (such a wait
/// looks only for a set it is in) leaves it unreported, and the watchdog
/// fails the test.
#[test]
fn a_stall_closed_by_a_continuation_is_reported_while_other_waits_come_and_go() {
    stall_closed_by_a_continuation(true);
}

fn stall_closed_by_a_continuation(churn: bool) {
    common::quiet_expected_panics_or(is_report);
    let (reports, waited) = finishes("a stall closed by a continuation", move || {
        let churn = churn.then(Churn::start);
        let (a, b, c) = (pool(1, Some(0)), pool(1, Some(0)), pool(1, None));
        let reports = Arc::new(Mutex::new(Vec::new()));
        let gate = Arc::new(Barrier::new(2));
        let y = {
            let gate = gate.clone();
            c.submit(move || {
                gate.wait();
                3
            })
        };
        let slot_all: Arc<Mutex<Option<JoinHandle<Vec<u32>>>>> = Default::default();
        let slot_x: Slot = Default::default();
        let ready = Arc::new(Barrier::new(2));
        let x = {
            let (slot_all, ready, reports) = (slot_all.clone(), ready.clone(), reports.clone());
            b.submit(move || {
                ready.wait();
                let all = slot_all.lock().unwrap().take().expect("all is in its slot");
                match panic::catch_unwind(AssertUnwindSafe(|| all.join())) {
                    Ok(Ok(values)) => values[0],
                    Ok(Err(payload)) => panic::resume_unwind(payload),
                    Err(payload) => {
                        reports.lock().unwrap().push(message(&*payload).unwrap());
                        0
                    }
                }
            })
        };
        *slot_x.lock().unwrap() = Some(x);
        let w = {
            let (slot_x, reports) = (slot_x.clone(), reports.clone());
            a.submit(move || join_slot(&slot_x, &reports))
        };
        *slot_all.lock().unwrap() = Some(a.when_all(vec![y]));
        ready.wait();
        while a.stats().blocking_uncompensated == 0 || b.stats().blocking_uncompensated == 0 {
            std::thread::yield_now();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        if let Some(churn) = &churn {
            churn.until_moving();
        }
        let opened = std::time::Instant::now();
        gate.wait();
        let w = w.join().unwrap();
        let waited = opened.elapsed();
        let reports = reports.lock().unwrap().clone();
        if let Some(churn) = churn {
            churn.stop();
        }
        // The reported join gives 0; if it was `x`'s, `w` gets 0 + 1.
        assert!(w <= 1 || reports.is_empty(), "w {w}");
        (reports, waited)
    });
    println!("reported {waited:?} after the last input was let go");
    assert_eq!(reports.len(), 1, "reports {reports:?}");
    let made = format!("waits for the task made at {}:", file!());
    assert!(reports[0].contains(&made), "{}", reports[0]);
}

/// Z9: a blocked set none of whose waits may leave, ended by running the
/// work it waits for on top of one of them. One worker, no spare. A
/// scope's body, on the worker, spawns the scope's task from a thread
/// outside the pool, so the task is queued on the injector, where a
/// waiting scope does not look (H7). With no spare to stand in, the
/// scope's wait is the whole set; nothing can end it, and it may not
/// leave (its task borrows its frame). It runs the queued task on top of
/// itself. `--cfg stealpool_bug="stall_escape_off"` prints the set and
/// parks, until the watchdog fails the test.
#[test]
fn a_scope_alone_in_a_stall_runs_its_queued_task() {
    let (owner, ran_on, spares) = finishes("a scope whose task waits on the injector", || {
        let pool = pool(1, Some(0));
        let ran_on = Mutex::new(None);
        let owner = pool.scope(|s| {
            std::thread::scope(|outside| {
                outside.spawn(|| {
                    assert_eq!(stealpool::current_thread_index(), None);
                    s.spawn(|_| *ran_on.lock().unwrap() = stealpool::current_thread_index());
                });
            });
            stealpool::current_thread_index()
        });
        (
            owner,
            ran_on.into_inner().unwrap(),
            pool.stats().spare_threads_started,
        )
    });
    assert_eq!(owner, Some(0));
    assert_eq!(ran_on, Some(0), "the task ran on the scope's own thread");
    assert_eq!(spares, 0);
}

/// Z9, as the loom model `stall_of_a_scope_runs_its_rerouted_task` has
/// it: the queued task is one that an inner scope's wait popped and, not
/// its to run (H7), handed to the injector. One worker, no spare: the
/// outer scope's wait is the whole set, and runs it on top of itself.
/// `--cfg stealpool_bug="stall_escape_off"` hangs it until the watchdog
/// fails the test.
#[test]
fn a_scope_alone_in_a_stall_runs_its_rerouted_task() {
    let (ran, spares) = finishes("a scope whose task an inner scope rerouted", || {
        let pool = pool(1, Some(0));
        let ran = [AtomicUsize::new(0), AtomicUsize::new(0)];
        pool.scope(|a| {
            stealpool::scope(|b| {
                b.spawn(|_| {
                    ran[1].fetch_add(1, Ordering::Relaxed);
                });
                a.spawn(|_| {
                    ran[0].fetch_add(1, Ordering::Relaxed);
                });
            });
        });
        let ran = ran.map(AtomicUsize::into_inner);
        (ran, pool.stats().spare_threads_started)
    });
    assert_eq!(ran, [1, 1], "each task ran once");
    assert_eq!(spares, 0);
}

/// Z5 with Z9: a blocked set that only a thread asleep for want of work
/// closes, none of whose waits may leave, ended by running its queued
/// work on top of one of them (`examples/wait_programs.rs`'s seed 560
/// under `max_blocking_threads(0)`, made small). Pool `a` has two
/// workers, pool `b` three, no spares. On `a`, an `install` into `b`
/// runs a `b.scope` whose task is taken by a second thread of `b` and
/// installs into `a`; there a scope's task is spawned from a thread
/// outside the pool, so it is queued on `a`'s injector, where a waiting
/// scope does not look (H7). Every thread of `a` then waits (an install,
/// a scope), two of `b`'s wait (the scope, the install), and the third
/// sleeps: the exact look counts it as able to run the `b` scope's work,
/// so only Z5's counted look finds the set. No wait in it may leave
/// (both installs' jobs run; scopes never may), so the look hands it to
/// Z9, which runs the queued task. `--cfg
/// stealpool_bug="counted_look_leavers_only"` (only waits that may
/// leave make the counted look) hangs it in silence until the watchdog
/// fails the test.
#[test]
fn a_stall_a_sleeper_hides_runs_its_queued_task() {
    stall_a_sleeper_hides(false);
}

/// As above, with waits coming and going on another pool all along
/// (`Churn`): the table never stands still, but the set's pools do, and
/// the counted look asks only that of them. `--cfg
/// stealpool_bug="counted_look_still_only"` (the look made only at a
/// table that stood still for a period) leaves the set unfound, and the
/// watchdog fails the test.
#[test]
fn a_stall_a_sleeper_hides_runs_its_queued_task_while_other_waits_come_and_go() {
    stall_a_sleeper_hides(true);
}

fn stall_a_sleeper_hides(churn: bool) {
    let (ran_on, spares) = finishes("a stall of scopes and installs behind a sleeper", move || {
        let churn = churn.then(Churn::start);
        if let Some(churn) = &churn {
            churn.until_moving();
        }
        let a = Arc::new(pool(2, Some(0)));
        let b = Arc::new(pool(3, Some(0)));
        let ran_on = Arc::new(Mutex::new(Vec::new()));
        let (a2, b2, ran) = (a.clone(), b.clone(), ran_on.clone());
        a.install(move || {
            b2.install(|| {
                let stolen = std::sync::atomic::AtomicBool::new(false);
                b2.scope(|sb| {
                    sb.spawn(|_| {
                        stolen.store(true, Ordering::Release);
                        a2.install(|| {
                            a2.scope(|sa| {
                                std::thread::scope(|outside| {
                                    outside.spawn(|| {
                                        assert_eq!(stealpool::current_thread_index(), None);
                                        sa.spawn(|_| {
                                            ran.lock().unwrap().push(stealpool::current_thread_index())
                                        });
                                    });
                                });
                            })
                        })
                    });
                    // The task runs on another thread of `b`, so this
                    // scope's wait is for work of `b` on any thread.
                    while !stolen.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                });
            })
        });
        let ran_on = ran_on.lock().unwrap().clone();
        if let Some(churn) = churn {
            churn.stop();
        }
        (
            ran_on,
            [a.stats().spare_threads_started, b.stats().spare_threads_started],
        )
    });
    assert_eq!(ran_on.len(), 1, "the queued task ran once");
    assert!(ran_on[0].is_some(), "it ran on a worker of `a`");
    assert_eq!(spares, [0, 0], "no spare stood in");
}
