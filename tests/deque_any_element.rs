//! The deque and the injector with elements of any type: closures as
//! `Box<dyn FnOnce() + Send>` run by a small work-stealing scheduler, and
//! values that travel boxed (tuples, `Option<Box<_>>`, `String`s, drop-counted
//! structs) or as themselves (integers, zero-sized types), each dropped
//! exactly once whichever way it leaves: popped, stolen, stolen in a batch,
//! lost to a race, or left inside when the last handle goes.
//!
//! Small enough for Miri, which checks the boxed paths for leaks, double
//! frees and data races (`cargo +nightly miri test --test deque_any_element`).
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;
use std::thread;
use stealpool::deque::{Injector, Steal, Stealer, Worker};

const fn scaled(full: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// A scheduler on the crate's deque: one `Worker<Job>` per thread, a
/// shared `Injector<Job>` for the roots, steals in batches. Each job
/// spawns children into the injector until a depth, and counts itself.
#[test]
fn a_scheduler_runs_boxed_closures() {
    const THREADS: usize = 3;
    let depth = scaled(9, 4);
    let injector: Arc<Injector<Job>> = Arc::new(Injector::new());
    let ran = Arc::new(AtomicUsize::new(0));
    let expected = (1usize << (depth + 1)) - 1;

    fn job(depth: usize, injector: Arc<Injector<Job>>, ran: Arc<AtomicUsize>) -> Job {
        Box::new(move || {
            if depth > 0 {
                for _ in 0..2 {
                    injector.push(job(depth - 1, injector.clone(), ran.clone()));
                }
            }
            ran.fetch_add(1, SeqCst);
        })
    }

    injector.push(job(depth, injector.clone(), ran.clone()));
    let workers: Vec<Worker<Job>> = (0..THREADS).map(|_| Worker::new()).collect();
    let stealers: Arc<Vec<Stealer<Job>>> = Arc::new(workers.iter().map(Worker::stealer).collect());
    let handles: Vec<_> = workers
        .into_iter()
        .enumerate()
        .map(|(me, local)| {
            let (injector, stealers, ran) = (injector.clone(), stealers.clone(), ran.clone());
            thread::spawn(move || {
                while ran.load(SeqCst) < expected {
                    let next = local.pop().or_else(|| {
                        std::iter::repeat_with(|| {
                            injector.steal_batch_and_pop(&local).or_else(|| {
                                stealers
                                    .iter()
                                    .enumerate()
                                    .filter(|&(i, _)| i != me)
                                    .map(|(_, s)| s.steal_batch_and_pop(&local))
                                    .collect()
                            })
                        })
                        .find(|s| !s.is_retry())
                        .and_then(Steal::success)
                    });
                    match next {
                        Some(job) => job(),
                        None => thread::yield_now(),
                    }
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(ran.load(SeqCst), expected);
    assert!(injector.is_empty());
}

/// A value that counts its drops.
struct Counted(Arc<AtomicUsize>, #[allow(dead_code)] u64);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// The element types that did not compile before: each goes through push,
/// pop, steal and a batch steal unchanged.
#[test]
fn values_of_any_type_come_out_as_they_went_in() {
    fn check<T: Clone + PartialEq + std::fmt::Debug + Send>(values: [T; 6]) {
        let worker = Worker::with_capacity(2);
        for value in values.iter().cloned() {
            worker.push(value);
        }
        assert_eq!(worker.pop().as_ref(), Some(&values[5]));
        assert_eq!(worker.stealer().steal(), Steal::Success(values[0].clone()));
        let thief = Worker::new();
        // 1, 2, 3, 4 left: 1 and 2 stolen, 2 returned.
        assert_eq!(
            worker.stealer().steal_batch_and_pop(&thief),
            Steal::Success(values[2].clone())
        );
        assert_eq!(thief.pop().as_ref(), Some(&values[1]));
        let injector = Injector::new();
        for value in values.iter().cloned() {
            injector.push(value);
        }
        assert_eq!(injector.steal(), Steal::Success(values[0].clone()));
        assert_eq!(
            injector.steal_batch_and_pop(&thief),
            Steal::Success(values[1].clone())
        );
        assert_eq!(thief.pop().as_ref(), Some(&values[2]));
    }
    check([1u64, 2, 3, u64::MAX, 5, 6]);
    check([(1usize, 2usize), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12)]);
    check([
        Some(Box::new(1)),
        None,
        Some(Box::new(3)),
        None,
        Some(Box::new(5)),
        None,
    ]);
    check(["a", "b", "c", "d", "e", "f"].map(String::from));
    check([(), (), (), (), (), ()]);
    check([-1i8, 2, -3, 4, -5, 6]);
    check(['a', 'é', '€', '𝄞', 'x', 'y']);
    check([true, false, true, false, true, false]);
    check([0.5f64, 1.5, -2.5, 3.5, 4.5, 5.5]);
    check([[1u8; 3], [2; 3], [3; 3], [4; 3], [5; 3], [6; 3]]);
    check([1u128, 2, 3, 4, 5, u128::MAX]);
}

/// Boxed elements are dropped exactly once on every way out, and the ones
/// left inside with the last handle.
#[test]
fn boxed_elements_are_dropped_exactly_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let make = |i| Counted(drops.clone(), i);
    let worker = Worker::with_capacity(1);
    for i in 0..10 {
        worker.push(make(i)); // grows four times
    }
    drop(worker.pop());
    drop(worker.stealer().steal());
    let thief = Worker::new();
    drop(worker.stealer().steal_batch_and_pop(&thief));
    assert_eq!(worker.stealer().steal_batch(&thief), Steal::Success(()));
    assert_eq!(drops.load(SeqCst), 3);
    let stealer = worker.stealer();
    drop(worker);
    drop(thief);
    // The thief's five elements went with it; the victim's two wait for its
    // stealer.
    assert_eq!(drops.load(SeqCst), 8);
    drop(stealer);
    assert_eq!(drops.load(SeqCst), 10);

    drops.store(0, SeqCst);
    let injector = Injector::new();
    for i in 0..10 {
        injector.push(make(i));
    }
    drop(injector.steal()); // moves the rest onto its deque
    for i in 10..13 {
        injector.push(make(i)); // and these stay in the intake
    }
    let dest = Worker::new();
    drop(injector.steal_batch_and_pop(&dest));
    assert_eq!(drops.load(SeqCst), 2);
    drop(dest);
    let moved = drops.load(SeqCst) - 2;
    drop(injector);
    assert_eq!(drops.load(SeqCst), 13, "{moved} moved to the worker");
}

/// Thieves racing for boxed elements: the losers' CASes fail after they
/// read the slot, and the element they read must not be dropped by them.
#[test]
fn racing_thieves_drop_each_boxed_element_once() {
    let count = scaled(2000, 60);
    let drops = Arc::new(AtomicUsize::new(0));
    let taken = Arc::new(AtomicUsize::new(0));
    let worker = Worker::new();
    let injector = Arc::new(Injector::new());
    for i in 0..count {
        worker.push(Counted(drops.clone(), i as u64));
        injector.push(Counted(drops.clone(), i as u64));
    }
    let thieves: Vec<_> = (0..3)
        .map(|_| {
            let (stealer, injector, taken) = (worker.stealer(), injector.clone(), taken.clone());
            thread::spawn(move || {
                let own = Worker::new();
                loop {
                    let got = [
                        stealer.steal(),
                        stealer.steal_batch_and_pop(&own),
                        injector.steal(),
                    ]
                    .into_iter()
                    .chain(std::iter::once(injector.steal_batch_and_pop(&own)))
                    .filter(Steal::is_success)
                    .count();
                    let mut popped = 0;
                    while own.pop().is_some() {
                        popped += 1;
                    }
                    taken.fetch_add(got + popped, SeqCst);
                    if got + popped == 0 && stealer.is_empty() && injector.is_empty() {
                        break;
                    }
                }
            })
        })
        .collect();
    let mut mine = 0;
    while worker.pop().is_some() {
        mine += 1;
    }
    for thief in thieves {
        thief.join().unwrap();
    }
    assert_eq!(taken.load(SeqCst) + mine, 2 * count);
    assert_eq!(drops.load(SeqCst), 2 * count);
}
