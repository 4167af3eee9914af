#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The stall detector on real threads (Z1-Z4 in `proofs/waits.md`): a
//! `JoinHandle::join` that can never return panics with a report naming
//! the pools, instead of parking forever; a wait that can still end is
//! never reported.

mod common;

use common::message;
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use stealpool::{JoinHandle, ThreadPool};

/// What every report says.
const STALL: &str = "JoinHandle::join can never return";

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
