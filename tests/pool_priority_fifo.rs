#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Task priorities on real threads (`proofs/priority.md`): first in, first
//! out per submitter at each level (V7, V8) on one and two workers, from
//! outside and from inside, a thief taking the oldest task of a level (and
//! one task, leaving the owner the next), and a worker's own and outside
//! tasks of a level taking turns in rounds. Every assertion counts tasks;
//! none measures time.
//!
//! Sized down under Miri.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use std::sync::Arc;
use stealpool::{Priority, ThreadPool};

mod common;
use common::priority::{block_worker, numbers, record, use_every_level, Starts, LEVELS};
use common::scaled;

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
    thief_takes_one_in(priority, from_inside, true);
}

/// `thief_takes_one`, in a pool that used every level first if
/// `levels_used`, else in a plain pool (V9: at `Normal` from outside, the
/// same take as a pool with levels).
fn thief_takes_one_in(priority: Priority, from_inside: bool, levels_used: bool) {
    let count = scaled(64, 8);
    let pool = Arc::new(ThreadPool::new(2));
    if levels_used {
        use_every_level(&pool);
    }
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

/// V9: in a pool that never used a level, `Normal` tasks from outside are
/// taken as in one that did, one at a time through the stage: the thief
/// takes the oldest task the owner left, never a half of its newest.
/// (`--cfg stealpool_bug="normal_batch_plain"`, the batch moved into the
/// owner's deque, fails it.)
#[test]
fn a_thief_takes_the_oldest_task_from_outside_in_a_plain_pool() {
    thief_takes_one_in(Priority::Normal, false, false);
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
