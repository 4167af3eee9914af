#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Task priorities on real threads (`proofs/priority.md`): the order on one
//! worker, the no-starvation bound under a flood of `Critical` tasks,
//! statistics per level, shutdown draining every level, and panics in
//! priority tasks. Every assertion counts tasks; none measures time.
//! Sized down under Miri.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use stealpool::{Priority, ThreadPool};

mod common;
use common::{scaled, EXPECTED};

const LEVELS: [Priority; 4] = [
    Priority::Low,
    Priority::Normal,
    Priority::High,
    Priority::Critical,
];

/// How many tasks of level `high` one worker runs in a row while a task of
/// the lower level `low` waits (`Priority::run_ahead`, V5 in
/// `proofs/priority.md`): 8 for adjacent levels, 16 two apart, 32 three
/// apart.
fn run_ahead(high: Priority, low: Priority) -> usize {
    [8, 16, 32][high as usize - low as usize - 1]
}

/// Occupies `pool`'s only worker until the returned sender is used: the
/// task has started when this returns, so whatever is queued next waits
/// for one search that sees all of it.
fn block_worker(pool: &ThreadPool) -> Sender<()> {
    let (started_tx, started) = mpsc::channel();
    let (open, gate) = mpsc::channel::<()>();
    pool.spawn(move || {
        started_tx.send(()).unwrap();
        gate.recv().unwrap();
    });
    started.recv().unwrap();
    open
}

/// The order one worker runs one queued task of each level in.
const MOST_URGENT_FIRST: [Priority; 4] = [
    Priority::Critical,
    Priority::High,
    Priority::Normal,
    Priority::Low,
];
#[test]
fn one_worker_runs_queued_tasks_most_urgent_first_from_outside() {
    let pool = ThreadPool::new(1);
    let open = block_worker(&pool);
    let order = Arc::new(Mutex::new(Vec::new()));
    for priority in LEVELS {
        let order = order.clone();
        pool.spawn_with_priority(priority, move || order.lock().unwrap().push(priority));
    }
    open.send(()).unwrap();
    pool.wait_all();
    assert_eq!(*order.lock().unwrap(), MOST_URGENT_FIRST);
}

#[test]
fn one_worker_runs_queued_tasks_most_urgent_first_from_inside() {
    let pool = Arc::new(ThreadPool::new(1));
    let order = Arc::new(Mutex::new(Vec::new()));
    let (inner_pool, inner_order) = (pool.clone(), order.clone());
    // Queued by a task on the worker: on its own deques, one per level.
    pool.spawn(move || {
        for priority in LEVELS {
            let order = inner_order.clone();
            inner_pool.spawn_with_priority(priority, move || order.lock().unwrap().push(priority));
        }
    });
    pool.wait_all();
    assert_eq!(*order.lock().unwrap(), MOST_URGENT_FIRST);
}

#[test]
fn submitted_tasks_follow_the_same_order() {
    let pool = ThreadPool::new(1);
    let open = block_worker(&pool);
    let ran = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = LEVELS
        .iter()
        .map(|&priority| {
            let ran = ran.clone();
            (
                priority,
                pool.submit_with_priority(priority, move || ran.fetch_add(1, SeqCst)),
            )
        })
        .collect();
    open.send(()).unwrap();
    for (priority, handle) in handles {
        // The position each task ran at: Critical first, Low last.
        let expected = 3 - priority as usize;
        assert_eq!(handle.join().unwrap(), expected, "{priority:?} ran out of turn");
    }
}

/// One worker flooded with `Critical` tasks that respawn themselves until
/// every `Low` task has run: the `k`-th `Low` task starts after at most
/// `k * 32` `Critical` tasks (V5's bound on one worker, exact: every task
/// either is `Critical` or is the `Low` task the count makes due).
#[test]
fn low_tasks_are_served_within_the_bound_under_a_critical_flood() {
    let lows = scaled(64, 4);
    let pool = Arc::new(ThreadPool::new(1));
    let open = block_worker(&pool);
    let criticals = Arc::new(AtomicUsize::new(0));
    let low_done = Arc::new(AtomicUsize::new(0));
    // For each `Low` task in the order they started: `Critical` tasks
    // started before it.
    let seen = Arc::new(Mutex::new(Vec::new()));
    for _ in 0..lows {
        let (criticals, low_done, seen) = (criticals.clone(), low_done.clone(), seen.clone());
        pool.spawn_with_priority(Priority::Low, move || {
            seen.lock().unwrap().push(criticals.load(SeqCst));
            low_done.fetch_add(1, SeqCst);
        });
    }
    fn flood(pool: Arc<ThreadPool>, criticals: Arc<AtomicUsize>, low_done: Arc<AtomicUsize>, lows: usize) {
        criticals.fetch_add(1, SeqCst);
        if low_done.load(SeqCst) < lows {
            let inner = pool.clone();
            inner.spawn_with_priority(Priority::Critical, move || flood(pool, criticals, low_done, lows));
        }
    }
    for _ in 0..2 {
        let (inner, criticals, low_done) = (pool.clone(), criticals.clone(), low_done.clone());
        pool.spawn_with_priority(Priority::Critical, move || {
            flood(inner, criticals, low_done, lows)
        });
    }
    open.send(()).unwrap();
    pool.wait_all();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), lows, "a Low task ran twice or never");
    let limit = run_ahead(Priority::Critical, Priority::Low);
    for (k, &before) in seen.iter().enumerate() {
        assert!(
            before <= (k + 1) * limit,
            "Low task {} started after {before} Critical tasks, more than {} (all: {seen:?})",
            k + 1,
            (k + 1) * limit
        );
    }
    // The flood was real: Critical tasks ran between the Low ones.
    assert!(criticals.load(SeqCst) >= lows * limit);
    assert_eq!(pool.stats().tasks_executed_at(Priority::Low), lows as u64);
}

/// Two workers flooded with `Critical` tasks that respawn themselves until
/// every `Low` task has run, some of them queued from inside the pool on a
/// worker's own `Low` deque: the flood ends only because every `Low` task
/// runs. (The count bound is asserted on one worker above: across workers
/// it also depends on how the OS schedules them, V5.)
#[test]
fn low_tasks_finish_under_a_critical_flood_on_two_workers() {
    let lows = scaled(200, 4);
    let pool = Arc::new(ThreadPool::new(2));
    let low_done = Arc::new(AtomicUsize::new(0));
    fn flood(pool: Arc<ThreadPool>, low_done: Arc<AtomicUsize>, lows: usize) {
        if low_done.load(SeqCst) < lows {
            let inner = pool.clone();
            inner.spawn_with_priority(Priority::Critical, move || flood(pool, low_done, lows));
        }
    }
    let chains = scaled(4, 2);
    for _ in 0..chains {
        let (inner, low_done) = (pool.clone(), low_done.clone());
        pool.spawn_with_priority(Priority::Critical, move || flood(inner, low_done, lows));
    }
    for i in 0..lows {
        let low_done = low_done.clone();
        let task = move || {
            low_done.fetch_add(1, SeqCst);
        };
        if i % 2 == 0 {
            pool.spawn_with_priority(Priority::Low, task);
        } else {
            let inner = pool.clone();
            pool.spawn_with_priority(Priority::Critical, move || {
                inner.spawn_with_priority(Priority::Low, task)
            });
        }
    }
    pool.wait_all();
    assert_eq!(low_done.load(SeqCst), lows);
    let stats = pool.stats();
    assert_eq!(stats.tasks_executed_at(Priority::Low), lows as u64);
    assert!(stats.tasks_executed_at(Priority::Critical) >= (chains + lows / 2) as u64);
}

#[test]
fn statistics_count_tasks_per_level() {
    let pool = ThreadPool::new(2);
    let per_level = scaled(25, 2);
    for (i, &priority) in LEVELS.iter().enumerate() {
        for _ in 0..per_level * (i + 1) {
            pool.spawn_with_priority(priority, || {});
        }
    }
    let handle = pool.submit_with_priority(Priority::High, || 1);
    assert_eq!(handle.join().unwrap(), 1);
    // Plain `spawn` and scope tasks count as `Normal`, even inside a
    // priority task.
    pool.spawn_with_priority(Priority::Critical, || {});
    pool.wait_all();
    pool.install(|| pool.scope(|s| s.spawn(|_| {})));
    let stats = pool.stats();
    let expected = [
        per_level as u64,
        2 * per_level as u64 + 1,
        3 * per_level as u64 + 1,
        4 * per_level as u64 + 1,
    ];
    assert_eq!(stats.tasks_by_priority, expected);
    assert_eq!(stats.tasks_executed, expected.iter().sum::<u64>());
    for priority in LEVELS {
        let by_workers: u64 = stats
            .per_worker
            .iter()
            .map(|w| w.tasks_by_priority[priority as usize])
            .sum();
        assert_eq!(by_workers, stats.tasks_executed_at(priority));
    }
    for worker in &stats.per_worker {
        assert_eq!(
            worker.tasks_by_priority.iter().sum::<u64>(),
            worker.tasks_executed
        );
    }
}

#[test]
fn tasks_inside_a_priority_task_count_at_their_own_level() {
    let pool = Arc::new(ThreadPool::new(2));
    let inner = pool.clone();
    let sum = pool
        .submit_with_priority(Priority::Critical, move || {
            // join, scope and plain spawn inside a Critical task stay Normal.
            let (a, b) = inner.join(|| 1, || 2);
            inner.scope(|s| s.spawn(|_| {}));
            inner.spawn(|| {});
            inner.spawn_with_priority(Priority::Low, || {});
            a + b
        })
        .join()
        .unwrap();
    assert_eq!(sum, 3);
    pool.wait_all();
    let stats = pool.stats();
    assert_eq!(stats.tasks_by_priority, [1, 2, 0, 1]);
}

/// Both workers queue tasks at every level on their own deques and block;
/// more are queued from outside; then the pool is shut down at once:
/// every one of them runs before `shutdown` returns.
#[test]
fn shutdown_drains_every_level() {
    let ran = Arc::new(AtomicUsize::new(0));
    let per_level = scaled(100, 2);
    let pool = Arc::new(ThreadPool::new(2));
    let (started_tx, started) = mpsc::channel();
    let (open, gate) = mpsc::channel::<()>();
    let gate = Arc::new(Mutex::new(gate));
    let queue_all = move |pool: &ThreadPool, ran: &Arc<AtomicUsize>| {
        for priority in LEVELS {
            for _ in 0..per_level {
                let ran = ran.clone();
                pool.spawn_with_priority(priority, move || {
                    ran.fetch_add(1, SeqCst);
                });
            }
        }
    };
    for _ in 0..2 {
        let (started_tx, gate, weak, ran) = (
            started_tx.clone(),
            gate.clone(),
            Arc::downgrade(&pool),
            ran.clone(),
        );
        pool.spawn(move || {
            let pool = weak.upgrade().unwrap();
            queue_all(&pool, &ran);
            // The test thread must hold the last reference to shut down.
            drop(pool);
            started_tx.send(()).unwrap();
            gate.lock().unwrap().recv().unwrap();
        });
    }
    for _ in 0..2 {
        started.recv().unwrap();
    }
    queue_all(&pool, &ran);
    for _ in 0..2 {
        open.send(()).unwrap();
    }
    Arc::try_unwrap(pool).expect("tasks hold no pool").shutdown();
    assert_eq!(ran.load(SeqCst), 3 * 4 * per_level);
}

#[test]
fn panics_in_priority_tasks_are_counted_and_handled() {
    common::quiet_expected_panics();
    let handled = Arc::new(AtomicUsize::new(0));
    let counter = handled.clone();
    let pool = ThreadPool::builder()
        .num_threads(2)
        .panic_handler(move |payload| {
            assert!(common::message(&*payload).is_some_and(|m| m.contains(EXPECTED)));
            counter.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    for priority in LEVELS {
        pool.spawn_with_priority(priority, || panic!("{EXPECTED}"));
        let handle = pool.submit_with_priority(priority, || -> u8 { panic!("{EXPECTED}") });
        let payload = handle.join().unwrap_err();
        assert!(common::message(&*payload).is_some_and(|m| m.contains(EXPECTED)));
    }
    pool.wait_all();
    assert_eq!(handled.load(SeqCst), 4, "spawned panics go to the handler");
    let stats = pool.stats();
    assert_eq!(stats.panicked, 8);
    assert_eq!(stats.tasks_by_priority, [2, 2, 2, 2]);
    // The workers survived: every level still runs.
    for priority in LEVELS {
        assert_eq!(
            pool.submit_with_priority(priority, move || priority)
                .join()
                .unwrap(),
            priority
        );
    }
    // A panic escaping `join` inside a priority task reaches its handle.
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.submit_with_priority(Priority::High, || {
            stealpool::current_thread_index().unwrap();
            panic!("{EXPECTED}")
        })
        .join()
        .unwrap()
    }));
    assert!(outcome.is_err());
}

/// Runs one task at every level, so that the searches that follow are the
/// per-level ones (V1): the order below must hold after other levels were
/// used, not only in a fresh pool.
fn use_every_level(pool: &ThreadPool) {
    for priority in LEVELS {
        pool.spawn_with_priority(priority, || {});
    }
    pool.wait_all();
}

/// Where each task of a test ran, in the order they started: (its number,
/// the worker).
type Starts = Arc<Mutex<Vec<(usize, usize)>>>;

fn record(starts: &Starts, number: usize) {
    let worker = stealpool::current_thread_index().unwrap();
    starts.lock().unwrap().push((number, worker));
}

fn numbers(starts: &Starts) -> Vec<usize> {
    starts.lock().unwrap().iter().map(|&(number, _)| number).collect()
}

/// Blocks until `count` holds at least `floor`, or fails the test at
/// `common::DEADLINE`.
fn wait_for(count: &AtomicUsize, floor: usize) {
    let deadline = std::time::Instant::now() + common::DEADLINE;
    while count.load(SeqCst) < floor {
        assert!(
            std::time::Instant::now() < deadline,
            "waited too long for {floor}"
        );
        std::thread::yield_now();
    }
}

/// V7, one worker, from outside, at `priority`, after every level was
/// used: task 0 of a first batch holds the worker while a second batch
/// is queued, so the worker's deque of the level holds the rest of the
/// first batch while the second waits in the injector, and the tasks the
/// worker takes from its deque make the level count as passed (the old
/// rule) until its turn fires. Every task still starts in the order it
/// was queued.
fn two_batches_keep_order(priority: Priority) {
    let batch = scaled(50, 6);
    let pool = ThreadPool::new(1);
    use_every_level(&pool);
    let starts: Starts = Default::default();
    let first_started = Arc::new(AtomicUsize::new(0));
    let second_queued = Arc::new(AtomicUsize::new(0));
    let open = block_worker(&pool);
    for number in 0..2 * batch {
        let (starts, started, queued) = (starts.clone(), first_started.clone(), second_queued.clone());
        pool.spawn_with_priority(priority, move || {
            record(&starts, number);
            if number == 0 {
                started.store(1, SeqCst);
                wait_for(&queued, 1);
            }
        });
        if number + 1 == batch {
            // The first batch is queued: let the worker take it.
            open.send(()).unwrap();
            wait_for(&first_started, 1);
        }
    }
    second_queued.store(1, SeqCst);
    pool.wait_all();
    assert_eq!(
        numbers(&starts),
        (0..2 * batch).collect::<Vec<_>>(),
        "{priority:?} tasks from one submitter out of order"
    );
}

#[test]
fn one_worker_keeps_each_submitters_order_from_outside_at_every_level() {
    for priority in LEVELS {
        two_batches_keep_order(priority);
    }
}

/// V7, one worker, from inside, at each level with queues of its own: a
/// task queues many at the level, and they start in the order queued.
/// (`Normal` keeps the pool's order: a worker's own tasks newest first.)
#[test]
fn one_worker_keeps_a_tasks_order_from_inside() {
    let count = scaled(100, 6);
    for priority in [Priority::Low, Priority::High, Priority::Critical] {
        let pool = Arc::new(ThreadPool::new(1));
        use_every_level(&pool);
        let starts: Starts = Default::default();
        let (inner, inner_starts) = (pool.clone(), starts.clone());
        pool.spawn(move || {
            for number in 0..count {
                let starts = inner_starts.clone();
                inner.spawn_with_priority(priority, move || record(&starts, number));
            }
        });
        pool.wait_all();
        assert_eq!(
            numbers(&starts),
            (0..count).collect::<Vec<_>>(),
            "{priority:?} tasks queued from inside out of order"
        );
    }
}

/// V7, two workers: a thief takes the oldest tasks of a level first. Both
/// workers are held; tasks of the level are queued (from outside, or from
/// inside by the task holding worker Y); Y then holds task 0 (outside: Y
/// took the batch, ran its oldest, and queued the rest on its deque of
/// the level) until every other task has run, so they all run on the
/// thief X, which takes them from Y's deque: in the order queued.
fn thief_takes_the_oldest(priority: Priority, from_inside: bool) {
    let count = scaled(200, 8);
    let pool = Arc::new(ThreadPool::new(2));
    use_every_level(&pool);
    let starts: Starts = Default::default();
    let done = Arc::new(AtomicUsize::new(0));
    let open_x = block_worker(&pool);
    let task = {
        let (starts, done) = (starts.clone(), done.clone());
        move |number: usize| {
            let (starts, done) = (starts.clone(), done.clone());
            move || {
                record(&starts, number);
                if number == 0 {
                    // Y holds this until the thief has run the others.
                    wait_for(&done, count - 1);
                } else {
                    done.fetch_add(1, SeqCst);
                }
            }
        }
    };
    if from_inside {
        let (started_tx, started) = mpsc::channel();
        let inner = pool.clone();
        pool.spawn(move || {
            for number in 1..count {
                inner.spawn_with_priority(priority, task(number));
            }
            started_tx.send(()).unwrap();
            wait_for(&done, count - 1);
        });
        started.recv().unwrap();
        open_x.send(()).unwrap();
        pool.wait_all();
        assert_eq!(numbers(&starts), (1..count).collect::<Vec<_>>());
    } else {
        let open_y = block_worker(&pool);
        for number in 0..count {
            pool.spawn_with_priority(priority, task(number));
        }
        open_y.send(()).unwrap();
        // Y took the batch and holds task 0.
        let deadline = std::time::Instant::now() + common::DEADLINE;
        while starts.lock().unwrap().is_empty() {
            assert!(std::time::Instant::now() < deadline);
            std::thread::yield_now();
        }
        open_x.send(()).unwrap();
        pool.wait_all();
        assert_eq!(numbers(&starts), (0..count).collect::<Vec<_>>());
    }
    let starts = starts.lock().unwrap();
    let thief = starts.last().unwrap().1;
    assert!(
        starts
            .iter()
            .filter(|&&(number, _)| number != 0)
            .all(|&(_, worker)| worker == thief),
        "a task ran on the worker held"
    );
}

#[test]
fn a_thief_takes_the_oldest_tasks_of_a_level_first() {
    for priority in [Priority::Low, Priority::High, Priority::Critical] {
        thief_takes_the_oldest(priority, false);
        thief_takes_the_oldest(priority, true);
    }
}

/// A stream of `Normal` tasks from one outside thread on one worker, after
/// a `Low` task has run (so every search is the per-level one, V1): they
/// start in the order queued, however the stream and the worker
/// interleave (the two-batch case above forces the interleaving that the
/// old count turned into starvation).
#[test]
fn a_normal_stream_keeps_order_after_a_low_task() {
    let count = scaled(20_000, 20);
    let pool = ThreadPool::new(1);
    pool.spawn_with_priority(Priority::Low, || {});
    pool.wait_all();
    let starts: Starts = Default::default();
    for number in 0..count {
        let starts = starts.clone();
        pool.spawn(move || record(&starts, number));
    }
    pool.wait_all();
    assert_eq!(numbers(&starts), (0..count).collect::<Vec<_>>());
}

/// V5's share by distance: ten `Critical` tasks queued together by a task
/// run together, ahead of a `Normal` and a `Low` task queued before them
/// (`Critical` may run 16 in a row over `Normal`, 32 over `Low`).
#[test]
fn a_burst_of_critical_tasks_runs_together() {
    let pool = Arc::new(ThreadPool::new(1));
    use_every_level(&pool);
    let order = Arc::new(Mutex::new(Vec::new()));
    let open = block_worker(&pool);
    let (inner, inner_order) = (pool.clone(), order.clone());
    pool.spawn(move || {
        for i in 0..10 {
            let order = inner_order.clone();
            inner.spawn_with_priority(Priority::Critical, move || {
                order.lock().unwrap().push((Priority::Critical, i))
            });
        }
    });
    for priority in [Priority::Normal, Priority::Low] {
        let order = order.clone();
        pool.spawn_with_priority(priority, move || order.lock().unwrap().push((priority, 0)));
    }
    open.send(()).unwrap();
    pool.wait_all();
    let mut expected: Vec<_> = (0..10).map(|i| (Priority::Critical, i)).collect();
    expected.extend([(Priority::Normal, 0), (Priority::Low, 0)]);
    assert_eq!(*order.lock().unwrap(), expected);
}

/// V5's bound on one worker, exact, for `High` over `Low` (16 in a row):
/// 100 `High` tasks queued behind 100 `Low` ones: the `k`-th `Low` task
/// starts after exactly `min(16 k, 100)` `High` tasks.
#[test]
fn high_runs_sixteen_to_one_over_low() {
    let each = scaled(100, 20);
    let limit = run_ahead(Priority::High, Priority::Low);
    let pool = ThreadPool::new(1);
    use_every_level(&pool);
    let highs = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let open = block_worker(&pool);
    for _ in 0..each {
        let (highs, seen) = (highs.clone(), seen.clone());
        pool.spawn_with_priority(Priority::Low, move || {
            seen.lock().unwrap().push(highs.load(SeqCst))
        });
    }
    for _ in 0..each {
        let highs = highs.clone();
        pool.spawn_with_priority(Priority::High, move || {
            highs.fetch_add(1, SeqCst);
        });
    }
    open.send(()).unwrap();
    pool.wait_all();
    let expected: Vec<usize> = (1..=each).map(|k| (k * limit).min(each)).collect();
    assert_eq!(*seen.lock().unwrap(), expected);
}

/// V8, two workers, gated: a thief takes one task of a level, the oldest,
/// so the worker it took it from goes on with the next one. Worker X is
/// held while worker Y comes to hold a level's tasks (queued from
/// outside: in the level's stage; from a task on Y: on Y's deque of the
/// level) and holds task 0; X then takes and holds task 1; Y goes on with
/// the rest. The log's order is
/// the global start sequence: every task starts in the order queued. (The
/// old rule, a thief taking half of Y's tasks, made Y start the first
/// task X had not taken while X still held the ones before it.)
fn thief_takes_one(priority: Priority, from_inside: bool) {
    let count = scaled(64, 8);
    let pool = Arc::new(ThreadPool::new(2));
    use_every_level(&pool);
    let starts: Starts = Default::default();
    let started = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(AtomicUsize::new(0));
    let open_x = block_worker(&pool);
    let task = {
        let (starts, started, done, release) =
            (starts.clone(), started.clone(), done.clone(), release.clone());
        move |number: usize| {
            let (starts, started, done, release) =
                (starts.clone(), started.clone(), done.clone(), release.clone());
            move || {
                record(&starts, number);
                started.fetch_add(1, SeqCst);
                match number {
                    // Y holds task 0 until X holds task 1.
                    0 => wait_for(&release, 1),
                    // X holds task 1 until Y ran all the others.
                    1 => wait_for(&done, count - 2),
                    _ => {
                        done.fetch_add(1, SeqCst);
                    }
                }
            }
        }
    };
    if from_inside {
        let inner = pool.clone();
        // On Y (X is held): queued on Y's deque of the level; Y then takes
        // its oldest, task 0.
        pool.spawn(move || {
            for number in 0..count {
                inner.spawn_with_priority(priority, task(number));
            }
        });
    } else {
        let open_y = block_worker(&pool);
        for number in 0..count {
            pool.spawn_with_priority(priority, task(number));
        }
        // Y takes the batch, runs task 0 and queues the rest on its deque.
        open_y.send(()).unwrap();
    }
    wait_for(&started, 1);
    open_x.send(()).unwrap();
    wait_for(&started, 2);
    release.store(1, SeqCst);
    pool.wait_all();
    assert_eq!(
        numbers(&starts),
        (0..count).collect::<Vec<_>>(),
        "{priority:?} tasks {} started out of order",
        if from_inside {
            "from inside"
        } else {
            "from outside"
        }
    );
    let starts = starts.lock().unwrap();
    let (y, x) = (starts[0].1, starts[1].1);
    assert_ne!(x, y, "task 1 did not run on the thief");
    assert!(
        starts[2..].iter().all(|&(_, worker)| worker == y),
        "a task ran on the thief while it was held"
    );
}

#[test]
fn a_thief_takes_one_task_of_a_level_and_the_owner_the_next() {
    for priority in [Priority::Low, Priority::High, Priority::Critical] {
        thief_takes_one(priority, false);
        thief_takes_one(priority, true);
    }
    // `Normal` from outside, in a pool that used a level: through
    // `Normal`'s stage, one task at a time (V8).
    thief_takes_one(Priority::Normal, false);
}

/// V8 on 1 and 2 workers, free running: the caller and a task on a worker
/// each queue tasks at every level with queues of its own, interleaved,
/// and the caller at `Normal` too (from outside, in a pool that used a
/// level, `Normal` goes through its stage, V8). Each task's first step
/// takes a number from a global start sequence and marks itself started,
/// then counts the tasks of its submitter and level queued before it
/// that have not started. Those were taken before it (V8), so each is in
/// another worker's hands between its take and its first step: at most
/// one per other worker (0 on one worker, where the start sequence is
/// the queueing order).
#[test]
fn each_submitters_tasks_start_in_order_per_level_on_one_and_two_workers() {
    const OWN: [Priority; 3] = [Priority::Low, Priority::High, Priority::Critical];
    let count = scaled(400, 12);
    for threads in [1, 2] {
        let pool = Arc::new(ThreadPool::new(threads));
        use_every_level(&pool);
        // started[submitter][level][number]: its start sequence number + 1.
        let started: Arc<Vec<Vec<Vec<AtomicUsize>>>> = Arc::new(
            (0..2)
                .map(|_| {
                    (0..Priority::Critical as usize + 1)
                        .map(|_| (0..count).map(|_| AtomicUsize::new(0)).collect())
                        .collect()
                })
                .collect(),
        );
        let sequence = Arc::new(AtomicUsize::new(0));
        let most_unstarted = Arc::new(AtomicUsize::new(0));
        let queue = {
            let (started, sequence, most) = (started.clone(), sequence.clone(), most_unstarted.clone());
            move |pool: &ThreadPool, submitter: usize, levels: &[Priority]| {
                for number in 0..count {
                    for &priority in levels {
                        let (started, sequence, most) = (started.clone(), sequence.clone(), most.clone());
                        pool.spawn_with_priority(priority, move || {
                            let mine = &started[submitter][priority as usize];
                            mine[number].store(sequence.fetch_add(1, SeqCst) + 1, SeqCst);
                            let unstarted = mine[..number].iter().filter(|s| s.load(SeqCst) == 0).count();
                            most.fetch_max(unstarted, SeqCst);
                        });
                    }
                }
            }
        };
        let (inner, inner_queue) = (pool.clone(), queue.clone());
        pool.spawn(move || inner_queue(&inner, 1, &OWN));
        queue(&pool, 0, &LEVELS);
        pool.wait_all();
        let most = most_unstarted.load(SeqCst);
        assert!(
            most < threads,
            "{threads} workers: a task started while {most} older ones of its submitter and level had not"
        );
        if threads == 1 {
            for per_level in started.iter() {
                for mine in per_level {
                    let order: Vec<usize> = mine.iter().map(|s| s.load(SeqCst)).collect();
                    assert!(
                        order.iter().all(|&s| s == 0) || order.windows(2).all(|w| w[0] < w[1]),
                        "one worker: out of order"
                    );
                }
            }
        }
    }
}

/// V8's rounds, one worker, gated: a task on the worker queues `Critical`
/// tasks on its own deque of the level, and the caller queues as many from
/// outside, while the worker is held. Each source's tasks queued before
/// its round began run in that round: the start order is all the tasks of
/// one source, then all of the other's, each in the order queued (which
/// source goes first depends on where the worker's last round ended).
/// Then a task that keeps queueing its successor at the level from inside
/// does not hold back the tasks queued from outside: it stops only once
/// they all ran.
#[test]
fn own_and_outside_tasks_of_a_level_take_turns_in_rounds() {
    let each = scaled(40, 6);
    let pool = Arc::new(ThreadPool::new(1));
    use_every_level(&pool);
    let starts: Starts = Default::default();
    let (queued_tx, queued) = mpsc::channel();
    let (open, gate) = mpsc::channel::<()>();
    let (inner, inner_starts) = (pool.clone(), starts.clone());
    pool.spawn(move || {
        for number in 0..each {
            let starts = inner_starts.clone();
            inner.spawn_with_priority(Priority::Critical, move || record(&starts, number));
        }
        queued_tx.send(()).unwrap();
        gate.recv().unwrap();
    });
    queued.recv().unwrap();
    for number in each..2 * each {
        let starts = starts.clone();
        pool.spawn_with_priority(Priority::Critical, move || record(&starts, number));
    }
    open.send(()).unwrap();
    pool.wait_all();
    let order = numbers(&starts);
    let (inside, outside): (Vec<usize>, Vec<usize>) = ((0..each).collect(), (each..2 * each).collect());
    assert!(
        order == [inside.clone(), outside.clone()].concat() || order == [outside, inside].concat(),
        "the two sources' tasks did not run in two rounds: {order:?}"
    );

    // A chain from inside against tasks from outside: the chain ends once
    // every task from outside has run (or after 1000 steps, so that a rule
    // that holds them back fails the test instead of running for ever).
    fn chain(pool: Arc<ThreadPool>, done: Arc<AtomicUsize>, total: usize, steps: Arc<AtomicUsize>) {
        let step = steps.fetch_add(1, SeqCst) + 1;
        if done.load(SeqCst) < total && step < 1000 {
            let inner = pool.clone();
            inner.spawn_with_priority(Priority::Critical, move || chain(pool, done, total, steps));
        }
    }
    let done = Arc::new(AtomicUsize::new(0));
    let steps = Arc::new(AtomicUsize::new(0));
    let open = block_worker(&pool);
    {
        let (inner, done, steps) = (pool.clone(), done.clone(), steps.clone());
        pool.spawn_with_priority(Priority::Critical, move || chain(inner, done, each, steps));
    }
    for _ in 0..each {
        let done = done.clone();
        pool.spawn_with_priority(Priority::Critical, move || {
            done.fetch_add(1, SeqCst);
        });
    }
    open.send(()).unwrap();
    pool.wait_all();
    assert_eq!(done.load(SeqCst), each);
    // The chain's first task is queued from outside, ahead of the others,
    // in one round with them: it queues its successor on the worker's
    // deque, which waits for the rest of the round, then sees every task
    // from outside done. (Alternating job by job, it would run `each`
    // steps; serving the worker's deque first, 1000.)
    assert_eq!(steps.load(SeqCst), 2, "the chain's steps");
}
