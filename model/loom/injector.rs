//! Loom models of the injector's queue (`src/lockfree/injector/queue.rs`): every
//! interleaving, within a preemption bound, under the C11 memory model.
//!
//! The queue's own source, its ordering table and the sync facade are
//! compiled into this model as they are into the crate (`#[path]` below), so
//! loom checks the same code on loom's atomics and cells. The queued values
//! are boxed items that carry their link, as jobs do (`model/support/injector_harness.rs`).
//! What the models look for:
//!
//! * **publication** (Q2, Q3): a link lives in a loom `UnsafeCell` written by
//!   the pusher and read by the taker, so a missing happens-before edge is a
//!   causality error;
//! * **no loss, no duplicate, FIFO per submitter** (Q5): consumers run
//!   batches as workers do (`pop_batch`, then a LIFO); every value run is
//!   logged, and after the threads join the log holds each value once, and
//!   each consumer's values in each submitter's push order;
//! * **hand-on** (Q6): a batch's values go on a real deque (`stealpool::deque`),
//!   from which a thief steals them and pushes them on another queue,
//!   rewriting their links: a link read after its value was handed on would
//!   race with that write;
//! * **nothing lost at shutdown** (Q6): every item carries a loom leak tracker
//!   and a drop counter, so an item never dropped, or dropped twice, fails
//!   the execution, including when the queue is dropped with items inside by
//!   whichever thread lets go of it last;
//! * **the sleep protocol's check** (Q4 with S2/S3): a producer pushes, runs
//!   an SC fence and reads a "sleeping" flag; a sleeper sets the flag, runs
//!   an SC fence and checks `is_empty`: never both miss.
//!
//! Each model states its preemption bound (set in code; it overrides
//! `LOOM_MAX_PREEMPTIONS`) and a floor, about half the executions observed;
//! a model below its floor fails as vacuous. Each prints "N executions in T".
//!
//! Run with `cargo test --features loom --test loom_injector` (the quick bounds;
//! `STEALPOOL_MODEL_BOUNDS=full` for the bounds stated here, `support/bounds.rs`);
//! each model prints a line as it starts and one as it ends.

#[path = "../support/loom_run.rs"]
mod loom_run;
use loom_run::{explore, explore_bounds};
#[allow(dead_code)]
#[path = "../support/injector_harness.rs"]
mod injector_harness;
#[allow(dead_code)]
#[path = "../../src/lockfree/injector/queue.rs"]
mod injector_queue;
#[allow(dead_code)]
#[path = "../../src/lockfree/injector/ordering.rs"]
mod ordering;
#[allow(dead_code, unused_imports, clippy::all, unused_macros)]
#[path = "../../src/sync/mod.rs"]
mod sync;

use injector_harness::{pop_batch_in_run_order, FifoCheck, Item};
use injector_queue::Queue;
use loom::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;
use stealpool::deque::{Steal, Worker};

/// Runs one batch as a worker would, checking FIFO per submitter against
/// what this consumer ran before, and logs `(submitter, sequence)` of each
/// value run. The items are dropped here.
fn run_batch(queue: &Queue<Box<Item>>, fifo: &mut FifoCheck, log: &Mutex<Vec<(usize, usize)>>) {
    for item in pop_batch_in_run_order(queue) {
        fifo.saw(item.submitter, item.sequence);
        log.lock().unwrap().push((item.submitter, item.sequence));
    }
}

/// Asserts that `log` holds exactly the values `expected`, once each.
fn assert_each_once(log: &[(usize, usize)], expected: &[(usize, usize)]) {
    let mut sorted = log.to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, expected, "values lost or run twice: {log:?}");
}

// Preemption bound 3, floor 50 000 (104 657 executions observed).
//
// Push vs batch pop: two submitters push two values each while a consumer
// runs two batches; the main thread runs what is left after the joins.
// Every value runs exactly once, the consumer's in push order per
// submitter, and every item is dropped once.
#[test]
fn push_vs_batch_pop() {
    explore_bounds("push_vs_batch_pop", (3, 50_000), (2, 5700), || {
        let drops = Arc::new(AtomicUsize::new(0));
        let queue = Arc::new(Queue::new());
        let log = Arc::new(Mutex::new(Vec::new()));
        let submitters: Vec<_> = (0..2)
            .map(|s| {
                let (queue, drops) = (queue.clone(), drops.clone());
                thread::spawn(move || {
                    for i in 0..2 {
                        queue.push(Item::boxed(s, i, &drops));
                    }
                })
            })
            .collect();
        let consumer = {
            let (queue, log) = (queue.clone(), log.clone());
            thread::spawn(move || {
                let mut fifo = FifoCheck::new(2);
                run_batch(&queue, &mut fifo, &log);
                run_batch(&queue, &mut fifo, &log);
            })
        };
        for s in submitters {
            s.join().unwrap();
        }
        consumer.join().unwrap();
        run_batch(&queue, &mut FifoCheck::new(2), &log);
        assert_each_once(&log.lock().unwrap(), &[(0, 0), (0, 1), (1, 0), (1, 1)]);
        assert!(queue.is_empty());
        assert_eq!(drops.load(Ordering::Relaxed), 4);
    });
}

// Preemption bound 3, floor 27 000 (54 386 executions observed).
//
// Batch pop vs batch pop: two consumers race to take what one submitter
// pushes (three values), as workers race in `pop_batch`: each value runs on
// exactly one of them, each consumer's share in push order.
#[test]
fn batch_pop_vs_batch_pop() {
    explore_bounds("batch_pop_vs_batch_pop", (3, 27_000), (2, 3000), || {
        let drops = Arc::new(AtomicUsize::new(0));
        let queue = Arc::new(Queue::new());
        let log = Arc::new(Mutex::new(Vec::new()));
        let consumers: Vec<_> = (0..2)
            .map(|_| {
                let (queue, log) = (queue.clone(), log.clone());
                thread::spawn(move || {
                    let mut fifo = FifoCheck::new(1);
                    run_batch(&queue, &mut fifo, &log);
                    run_batch(&queue, &mut fifo, &log);
                })
            })
            .collect();
        for i in 0..3 {
            queue.push(Item::boxed(0, i, &drops));
        }
        for c in consumers {
            c.join().unwrap();
        }
        run_batch(&queue, &mut FifoCheck::new(1), &log);
        assert_each_once(&log.lock().unwrap(), &[(0, 0), (0, 1), (0, 2)]);
        assert_eq!(drops.load(Ordering::Relaxed), 3);
    });
}

// Preemption bound 4, floor 2 000 (4 029 executions observed).
//
// Hand-on, as the pool's `pop_batch` does it: a consumer takes a batch of
// three values, keeps the oldest and pushes the others on its deque; a thief
// steals from that deque and pushes what it steals on a second queue, which
// rewrites the stolen values' links. The consumer reads each link before it
// hands the value on (Q6), so the thief's writes never race with it. Every
// value ends up run once: by the consumer, or drained from the second queue.
#[test]
fn batch_hand_on_vs_thief() {
    explore("batch_hand_on_vs_thief", 4, 2_000, || {
        let drops = Arc::new(AtomicUsize::new(0));
        let queue = Arc::new(Queue::new());
        let requeued = Arc::new(Queue::new());
        for i in 0..3 {
            queue.push(Item::boxed(0, i, &drops));
        }
        let deque = Worker::new();
        let stealer = deque.stealer();
        let consumer = {
            let queue = queue.clone();
            thread::spawn(move || {
                let mut ran = Vec::new();
                if let Some(first) = queue.pop_batch(|item| deque.push(item)) {
                    ran.push(first.sequence);
                }
                while let Some(item) = deque.pop() {
                    ran.push(item.sequence);
                }
                ran
            })
        };
        let thief = {
            let requeued = requeued.clone();
            thread::spawn(move || {
                for _ in 0..2 {
                    if let Steal::Success(item) = stealer.steal() {
                        requeued.push(item);
                    }
                }
            })
        };
        let mut ran = consumer.join().unwrap();
        thief.join().unwrap();
        // The consumer ran the oldest first, then what it popped back in
        // push order.
        assert!(ran.windows(2).all(|w| w[0] < w[1]), "out of order: {ran:?}");
        ran.extend(requeued.take_all().map(|item| item.sequence));
        ran.sort_unstable();
        assert_eq!(ran, [0, 1, 2], "values lost or run twice");
        assert_eq!(drops.load(Ordering::Relaxed), 3);
    });
}

// Preemption bound 4, floor 480 (964 executions observed).
//
// Shutdown: a submitter pushes two values and lets go of the queue while a
// consumer runs a batch and lets go too; whoever drops the last reference
// drops the queue with what is left in it. Every item is dropped exactly
// once (run, or with the queue) and none leaks (loom's leak check).
#[test]
fn push_vs_batch_pop_vs_drop() {
    explore("push_vs_batch_pop_vs_drop", 4, 480, || {
        let drops = Arc::new(AtomicUsize::new(0));
        let queue = Arc::new(Queue::new());
        let submitter = {
            let (queue, drops) = (queue.clone(), drops.clone());
            thread::spawn(move || {
                queue.push(Item::boxed(0, 0, &drops));
                queue.push(Item::boxed(0, 1, &drops));
                drop(queue);
            })
        };
        let consumer = {
            let queue = queue.clone();
            thread::spawn(move || {
                let mut fifo = FifoCheck::new(1);
                for item in pop_batch_in_run_order(&queue) {
                    fifo.saw(item.submitter, item.sequence);
                }
                drop(queue);
            })
        };
        drop(queue);
        submitter.join().unwrap();
        consumer.join().unwrap();
        assert_eq!(drops.load(Ordering::Relaxed), 2);
    });
}

// Preemption bound 4, floor 230 (477 executions observed).
//
// The sleep protocol's store-buffering pair around the queue (S2, S3, Q4):
// the producer pushes, fences (S3) and reads the sleeper's flag (S4); the
// sleeper sets its flag (S1), fences (S2) and checks `is_empty` (Q4). If the
// sleeper found the queue empty, the value was taken or the producer saw the
// sleeper; never both missed. A third thread takes concurrently, as a
// worker's `pop_batch` does.
#[test]
fn push_vs_sleeper_check() {
    explore("push_vs_sleeper_check", 4, 230, || {
        let drops = Arc::new(AtomicUsize::new(0));
        let queue = Arc::new(Queue::new());
        let sleeping = Arc::new(AtomicBool::new(false));
        let taken = Arc::new(AtomicBool::new(false));
        let producer = {
            let (queue, sleeping, drops) = (queue.clone(), sleeping.clone(), drops.clone());
            thread::spawn(move || {
                queue.push(Item::boxed(0, 0, &drops));
                fence(Ordering::SeqCst);
                sleeping.load(Ordering::Relaxed)
            })
        };
        let consumer = {
            let (queue, taken) = (queue.clone(), taken.clone());
            thread::spawn(move || {
                if queue.take_all().count() > 0 {
                    taken.store(true, Ordering::Relaxed);
                }
            })
        };
        sleeping.store(true, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        let saw_work = !queue.is_empty();
        let producer_saw_sleeper = producer.join().unwrap();
        consumer.join().unwrap();
        // Neither saw the other: only a consumer that took the value may
        // have emptied the queue the sleeper checked.
        if !saw_work && !producer_saw_sleeper {
            assert!(
                taken.load(Ordering::Relaxed),
                "stranded: the sleeper saw an empty queue and the producer no sleeper"
            );
        }
        drop(queue);
        assert_eq!(drops.load(Ordering::Relaxed), 1);
    });
}

/// A value of the public injector that counts its drops.
struct Counted(usize, Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::Relaxed);
    }
}

// Preemption bound 2, floor 150 000 (304 818 executions observed).
//
// The public `deque::Injector` (Q8, Q9): one producer pushes 0, 1, 2 while
// two thieves steal twice each. A steal that finds the deque empty claims
// its owner end, takes the intake and pushes onto the deque; the two thieves
// take that role in turn, so each must see the other's `bottom` and slots
// through the claim's acquire (Q8), or an element is overwritten or lost.
// Each thief's values come in push order (FIFO per producer); after the
// joins the main thread steals the rest, every value once, and drops the
// injector with one value pushed after, which its drop must free.
#[test]
fn public_injector_refill_handover() {
    explore("public_injector_refill_handover", 2, 150_000, || {
        let drops = Arc::new(AtomicUsize::new(0));
        let injector = Arc::new(stealpool::deque::Injector::new());
        let producer = {
            let (injector, drops) = (injector.clone(), drops.clone());
            thread::spawn(move || {
                for i in 0..3 {
                    injector.push(Counted(i, drops.clone()));
                }
            })
        };
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let injector = injector.clone();
                thread::spawn(move || {
                    let mut got = Vec::new();
                    for _ in 0..2 {
                        if let Steal::Success(value) = injector.steal() {
                            got.push(value.0);
                        }
                    }
                    assert!(got.windows(2).all(|w| w[0] < w[1]), "out of order: {got:?}");
                    got
                })
            })
            .collect();
        producer.join().unwrap();
        let mut all: Vec<usize> = thieves.into_iter().flat_map(|t| t.join().unwrap()).collect();
        loop {
            match injector.steal() {
                Steal::Success(value) => all.push(value.0),
                Steal::Retry => continue,
                Steal::Empty => break,
            }
        }
        all.sort_unstable();
        assert_eq!(all, [0, 1, 2], "values lost or stolen twice");
        assert!(injector.is_empty());
        assert_eq!(drops.load(Ordering::Relaxed), 3);
        injector.push(Counted(3, drops.clone()));
        drop(injector);
        assert_eq!(drops.load(Ordering::Relaxed), 4);
    });
}

// Preemption bound 3, floor 120 (248 executions observed).
//
// Q9: a steal answers `Empty` only if the injector was empty at some point
// during the call. The main thread pushes 0 and 1, then two thieves steal
// once each: two elements, two single steals, so the injector holds an
// element all through both calls and neither may answer `Empty` (`Retry`
// is allowed). The thief that finds the deque empty moves the intake onto
// it and uncounts the moved elements (Q9's release); the other, reading
// the smaller count, must also see the pushes that count stood for (Q9's
// acquire), or it finds the deque empty too and answers `Empty` beside an
// element.
#[test]
fn public_injector_no_false_empty() {
    explore("public_injector_no_false_empty", 3, 120, || {
        let injector = Arc::new(stealpool::deque::Injector::new());
        injector.push(0usize);
        injector.push(1usize);
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let injector = injector.clone();
                thread::spawn(move || injector.steal())
            })
            .collect();
        let mut all = Vec::new();
        for thief in thieves {
            match thief.join().unwrap() {
                Steal::Success(value) => all.push(value),
                Steal::Retry => {}
                Steal::Empty => panic!("a steal answered Empty beside an element"),
            }
        }
        loop {
            match injector.steal() {
                Steal::Success(value) => all.push(value),
                Steal::Retry => continue,
                Steal::Empty => break,
            }
        }
        all.sort_unstable();
        assert_eq!(all, [0, 1], "values lost or stolen twice");
    });
}
