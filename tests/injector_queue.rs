//! The injector's queue (`src/lockfree/injector/queue.rs`) on real threads, and
//! under Miri: the order of a take, FIFO per submitter, no loss, no
//! duplicate, every value dropped exactly once, many submitters against
//! several consumers. The file is compiled here from its own source, on the
//! `std` side of the sync facade, as the crate compiles it. Counts are
//! scaled down under Miri.
//!
//! Through the pool: a one-worker pool runs each outside submitter's tasks
//! in the order they were spawned, and every task spawned from outside runs
//! exactly once, also when the pool is dropped with tasks still queued.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

#[allow(dead_code)]
#[path = "../model/support/injector_harness.rs"]
mod injector_harness;
#[allow(dead_code)]
#[path = "../src/lockfree/injector/queue.rs"]
mod injector_queue;
#[allow(dead_code)]
#[path = "../src/lockfree/injector/ordering.rs"]
mod ordering;
#[allow(dead_code, unused_imports, unused_macros, clippy::all)]
#[path = "../src/sync/mod.rs"]
mod sync;

use injector_harness::{pop_batch_in_run_order, FifoCheck, Item};
use injector_queue::Queue;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use stealpool::ThreadPool;

const SUBMITTERS: usize = if cfg!(miri) { 3 } else { 8 };
const PER_SUBMITTER: usize = if cfg!(miri) { 40 } else { 20_000 };

fn ids(items: &[Box<Item>]) -> Vec<usize> {
    items.iter().map(|item| item.sequence).collect()
}

/// One thread: a take yields newest first; `pop_batch` returns the oldest
/// and hands the rest on newest first; a push after a take starts a new
/// list.
#[test]
fn the_order_of_a_take_and_of_a_batch() {
    let drops = Arc::new(AtomicUsize::new(0));
    let queue = Queue::new();
    assert!(queue.is_empty());
    assert_eq!(queue.take_all().count(), 0);
    assert!(queue.pop_batch(|_| panic!("nothing to hand on")).is_none());
    for sequence in 0..5 {
        queue.push(Item::boxed(0, sequence, &drops));
    }
    assert!(!queue.is_empty());
    let mut taken = queue.take_all();
    assert!(queue.is_empty());
    assert_eq!(taken.next().map(|item| item.sequence), Some(4));
    queue.push(Item::boxed(0, 5, &drops));
    assert_eq!(ids(&taken.collect::<Vec<_>>()), [3, 2, 1, 0]);
    for sequence in 6..9 {
        queue.push(Item::boxed(0, sequence, &drops));
    }
    let mut handed_on = Vec::new();
    let oldest = queue.pop_batch(|item| handed_on.push(item)).unwrap();
    assert_eq!(oldest.sequence, 5);
    assert_eq!(ids(&handed_on), [8, 7, 6]);
    assert!(queue.is_empty());
    drop((oldest, handed_on));
    assert_eq!(drops.load(Ordering::Relaxed), 9);
}

/// Values left in a take or in the queue are dropped with it, once.
#[test]
fn drops_what_is_left() {
    let drops = Arc::new(AtomicUsize::new(0));
    let queue = Queue::new();
    for sequence in 0..5 {
        queue.push(Item::boxed(0, sequence, &drops));
    }
    // A take dropped half-read drops the rest of its values.
    let mut taken = queue.take_all();
    assert_eq!(taken.next().map(|item| item.sequence), Some(4));
    assert_eq!(drops.load(Ordering::Relaxed), 1);
    drop(taken);
    assert_eq!(drops.load(Ordering::Relaxed), 5);
    for sequence in 0..3 {
        queue.push(Item::boxed(0, sequence, &drops));
    }
    drop(queue);
    assert_eq!(drops.load(Ordering::Relaxed), 8);
}

/// Many submitters, two consumers running batches as workers do: each value
/// taken once, each consumer's run order FIFO per submitter across all its
/// batches.
#[test]
fn many_submitters_fifo_no_loss() {
    let drops = Arc::new(AtomicUsize::new(0));
    let queue = Arc::new(Queue::<Box<Item>>::new());
    let done = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Mutex::new(vec![0u8; SUBMITTERS * PER_SUBMITTER]));
    let consumers: Vec<_> = (0..2)
        .map(|_| {
            let (queue, done, counts) = (queue.clone(), done.clone(), counts.clone());
            thread::spawn(move || {
                let mut fifo = FifoCheck::new(SUBMITTERS);
                let mut mine = Vec::new();
                let mut batches = 0usize;
                loop {
                    let finished = done.load(Ordering::Acquire);
                    let batch = pop_batch_in_run_order(&queue);
                    batches += !batch.is_empty() as usize;
                    for item in batch {
                        fifo.saw(item.submitter, item.sequence);
                        mine.push(item.submitter * PER_SUBMITTER + item.sequence);
                    }
                    if finished {
                        break;
                    }
                    thread::yield_now();
                }
                let mut counts = counts.lock().unwrap();
                for index in mine {
                    counts[index] += 1;
                }
                batches
            })
        })
        .collect();
    let submitters: Vec<_> = (0..SUBMITTERS)
        .map(|submitter| {
            let (queue, drops) = (queue.clone(), drops.clone());
            thread::spawn(move || {
                for sequence in 0..PER_SUBMITTER {
                    queue.push(Item::boxed(submitter, sequence, &drops));
                }
            })
        })
        .collect();
    for s in submitters {
        s.join().unwrap();
    }
    done.store(true, Ordering::Release);
    let batches: usize = consumers.into_iter().map(|c| c.join().unwrap()).sum();
    assert!(queue.is_empty());
    assert!(batches >= 1);
    let counts = counts.lock().unwrap();
    let wrong: Vec<_> = counts
        .iter()
        .enumerate()
        .filter(|(_, &n)| n != 1)
        .take(5)
        .collect();
    assert!(
        wrong.is_empty(),
        "values lost or taken twice (index, count): {wrong:?}"
    );
    assert_eq!(drops.load(Ordering::Relaxed), SUBMITTERS * PER_SUBMITTER);
}

/// Through the pool: with one worker, every outside submitter's tasks run
/// in the order it spawned them (the worker runs a batch's oldest job, then
/// pops the rest oldest first before it takes the next batch), and none is
/// lost or run twice.
#[test]
fn one_worker_runs_each_submitters_tasks_in_order() {
    let per = if cfg!(miri) { 10 } else { 5_000 };
    let pool = ThreadPool::new(1);
    let log = Arc::new(Mutex::new(Vec::with_capacity(SUBMITTERS * per)));
    thread::scope(|s| {
        for submitter in 0..SUBMITTERS {
            let (pool, log) = (&pool, log.clone());
            s.spawn(move || {
                for sequence in 0..per {
                    let log = log.clone();
                    pool.spawn(move || log.lock().unwrap().push((submitter, sequence)));
                }
            });
        }
    });
    pool.wait_all();
    let log = log.lock().unwrap();
    assert_eq!(log.len(), SUBMITTERS * per, "tasks lost or run twice");
    let mut fifo = FifoCheck::new(SUBMITTERS);
    for &(submitter, sequence) in log.iter() {
        fifo.saw(submitter, sequence);
    }
}

/// Through the pool: many outside submitters, then the pool is dropped
/// with tasks still queued; the drop runs every one of them exactly once.
#[test]
fn many_outside_submitters_then_shutdown() {
    let per = if cfg!(miri) { 10 } else { 5_000 };
    let pool = ThreadPool::new(2);
    let runs: Arc<Vec<AtomicUsize>> = Arc::new((0..SUBMITTERS * per).map(|_| AtomicUsize::new(0)).collect());
    thread::scope(|s| {
        for submitter in 0..SUBMITTERS {
            let (pool, runs) = (&pool, runs.clone());
            s.spawn(move || {
                for i in 0..per {
                    let runs = runs.clone();
                    pool.spawn(move || {
                        runs[submitter * per + i].fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        }
    });
    drop(pool);
    let wrong: Vec<_> = runs
        .iter()
        .enumerate()
        .map(|(i, n)| (i, n.load(Ordering::Relaxed)))
        .filter(|&(_, n)| n != 1)
        .take(5)
        .collect();
    assert!(
        wrong.is_empty(),
        "tasks lost or run twice (index, runs): {wrong:?}"
    );
}
