#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The pool under load on real threads: a million tasks from eight outside
//! threads each run once, batch steals racing the owner's pops, and tasks
//! that block outside the pool until a child (or the other half of a
//! `join`) has run, which another worker must take.
//!
//! Counts scale down under Miri.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::*};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use stealpool::deque::{Steal, Worker};
use stealpool::ThreadPool;

mod common;
use common::scaled;

// ---------------------------------------------------------------- a million tasks

#[test]
fn a_million_tasks_from_eight_outside_threads_each_run_once() {
    let (threads, per_thread) = (scaled(8, 2), scaled(125_000, 50));
    let tasks = threads * per_thread;
    let pool = Arc::new(ThreadPool::new(scaled(4, 2)));
    let seen: Arc<Vec<AtomicU8>> = Arc::new((0..tasks).map(|_| AtomicU8::new(0)).collect());
    let submitters: Vec<_> = (0..threads)
        .map(|t| {
            let (pool, seen) = (pool.clone(), seen.clone());
            thread::spawn(move || {
                for i in 0..per_thread {
                    let seen = seen.clone();
                    let task = t * per_thread + i;
                    pool.spawn(move || {
                        seen[task].fetch_add(1, Relaxed);
                    });
                }
            })
        })
        .collect();
    for submitter in submitters {
        submitter.join().unwrap();
    }
    pool.wait_all();
    for (task, count) in seen.iter().enumerate() {
        assert_eq!(count.load(Relaxed), 1, "task {task} ran {count:?} times");
    }
    let stats = pool.stats();
    assert_eq!(stats.tasks_executed, tasks as u64);
    assert_eq!(pool.pending_tasks(), 0);
    eprintln!(
        "{tasks} tasks: per worker {:?}, {} stolen in {} of {} steal attempts",
        stats
            .per_worker
            .iter()
            .map(|w| w.tasks_executed)
            .collect::<Vec<_>>(),
        stats.tasks_stolen,
        stats.successful_steals,
        stats.steal_attempts
    );
}

// ---------------------------------------------------------------- batch stealing

/// The pool's thieves take half a victim's deque with `steal_batch_and_pop`
/// while the victim pops its own newest jobs without a CAS. An element must
/// come out exactly once even when the owner pops several times between a
/// thief's read of `bottom` and its CAS on `top`: with three elements a
/// thief that read the old `bottom` claims two, while the owner takes the
/// two newest with no CAS. Duplicated jobs are a double execution (a
/// use-after-free for a heap job), lost ones a task that never runs.
///
/// The window is a preemption of the thief, so the test runs many short
/// rounds within a time budget and stops at the first element that comes
/// out twice or never.
#[test]
fn batch_steals_never_take_what_the_owner_popped() {
    const PER_ROUND: usize = 3;
    let budget = Duration::from_secs(if cfg!(miri) { 3600 } else { 3 });
    let max_rounds = scaled(3_000_000, 2_000);
    let owner: Worker<usize> = Worker::new();
    let stealer = owner.stealer();
    let seen: Arc<Vec<AtomicU8>> = Arc::new((0..max_rounds * PER_ROUND).map(|_| AtomicU8::new(0)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let thief = {
        let (seen, stop) = (seen.clone(), stop.clone());
        thread::spawn(move || {
            let dest = Worker::new();
            while !stop.load(Relaxed) {
                if let Steal::Success(element) = stealer.steal_batch_and_pop(&dest) {
                    seen[element].fetch_add(1, Relaxed);
                    while let Some(element) = dest.pop() {
                        seen[element].fetch_add(1, Relaxed);
                    }
                }
            }
        })
    };
    let start = Instant::now();
    let mut rounds = 0;
    let mut bad = None;
    while rounds < max_rounds && bad.is_none() {
        for i in 0..PER_ROUND {
            owner.push(rounds * PER_ROUND + i);
        }
        while let Some(element) = owner.pop() {
            seen[element].fetch_add(1, Relaxed);
        }
        rounds += 1;
        // Every so often, wait for the thief to drain what it took and
        // check the rounds so far; the deque is empty from the owner's view.
        if rounds % 1024 == 0 || rounds == max_rounds || start.elapsed() > budget {
            let checked = rounds.saturating_sub(2) * PER_ROUND;
            bad = seen[..checked].iter().position(|count| count.load(Relaxed) > 1);
            if start.elapsed() > budget {
                break;
            }
        }
    }
    stop.store(true, Relaxed);
    thief.join().unwrap();
    let checked = rounds * PER_ROUND;
    let duplicated = seen[..checked].iter().filter(|c| c.load(Relaxed) > 1).count();
    let lost = seen[..checked].iter().filter(|c| c.load(Relaxed) == 0).count();
    eprintln!("batch steals: {rounds} rounds, {duplicated} elements out twice, {lost} never");
    assert_eq!(
        (duplicated, lost),
        (0, 0),
        "elements duplicated and lost by batch steals"
    );
}

/// A task spawns a child and then blocks outside the pool until the child
/// has run (loom's `block_after_spawn`, on real threads, with the light and
/// heavy barriers of S3/S2 as they are on this machine: membarrier where
/// Linux offers it). The other worker must not sleep through the child.
#[test]
fn spawn_then_block_outside_the_pool() {
    spawn_then_block_rounds(std::sync::Arc::new(ThreadPool::new(2)));
}

/// As `spawn_then_block_outside_the_pool`, with the child on the spawning
/// worker's bounded deque (G12; loom's `bounded_pool_spawn_then_block`):
/// the other worker's final check must see it there.
#[test]
fn spawn_then_block_outside_the_pool_with_bounded_steals() {
    let pool = std::sync::Arc::new(
        ThreadPool::builder()
            .num_threads(2)
            .bounded_steals(true)
            .build()
            .unwrap(),
    );
    let rounds = spawn_then_block_rounds(pool.clone());
    // Every child was taken from the blocked worker's bounded deque.
    let steals = pool.stats().bounded_steals;
    assert!(steals >= rounds, "{steals} bounded steals in {rounds} rounds");
}

/// Returns the number of rounds it ran.
fn spawn_then_block_rounds(pool: std::sync::Arc<ThreadPool>) -> u64 {
    let rounds: u64 = if cfg!(miri) { 5 } else { 2_000 };
    for round in 0..rounds {
        let spawner = pool.clone();
        let (ran, child_ran) = std::sync::mpsc::channel();
        let handle = pool.submit(move || {
            spawner.spawn(move || {
                let _ = ran.send(());
            });
            child_ran.recv_timeout(std::time::Duration::from_secs(30)).is_ok()
        });
        assert!(
            handle.join().unwrap(),
            "round {round}: the child was stranded for 30 s"
        );
    }
    rounds
}

/// The same through `join` (loom's and shuttle's `join_then_block`): the
/// first half blocks outside the pool until the second has run, so the
/// second must be taken by the other worker, not left on the blocked
/// worker's deque.
#[test]
fn join_then_block_outside_the_pool() {
    let pool = std::sync::Arc::new(ThreadPool::new(2));
    let rounds = if cfg!(miri) { 5 } else { 2_000 };
    for round in 0..rounds {
        let joiner = pool.clone();
        let handle = pool.submit(move || {
            let (ran, second_ran) = std::sync::mpsc::channel();
            let (first, ()) = joiner.join(
                move || {
                    second_ran
                        .recv_timeout(std::time::Duration::from_secs(30))
                        .is_ok()
                },
                move || {
                    let _ = ran.send(());
                },
            );
            first
        });
        assert!(
            handle.join().unwrap(),
            "round {round}: the second half was stranded for 30 s"
        );
    }
}
