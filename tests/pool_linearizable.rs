#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The pool's handles and `when_all`/`zip` on real threads, judged by the
//! same sequential specification as the shuttle driver
//! (`model/lin/pool.rs`, `model/lin/handle_spec.rs`; `proofs/linearizability.md`,
//! "The pool's objects").
//!
//! Each call is bracketed by two ticks of one `SeqCst` counter. A call
//! whose return tick precedes another's invoke tick happened before it
//! (the two ticks are read-modify-writes of one location, so the later one
//! reads from a release sequence the earlier one heads), which is the
//! real-time order the search must respect. A task's body ticks as it
//! starts and as it ends; its completion is a step after its last tick,
//! with no return seen.
//!
//! Real threads choose their own interleavings, so each test runs rounds
//! until a floor of histories in which another thread's call overlapped a
//! task's run (the interesting ones), with a cap on rounds far above what
//! any run needed, and asserts the floor was reached: no round's timing
//! decides the verdict, every history is checked.

#[path = "../model/lin/handle_spec.rs"]
mod handle_spec;

use handle_spec::{Call, Op, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use stealpool::{current_thread_index, JoinHandle, ThreadPool};

/// Histories with an overlapping call each test collects.
const FLOOR: usize = 200;
/// Rounds after which a test gives up on its floor (and fails).
const MAX_ROUNDS: usize = 20_000;

/// Outside threads are 1, 2, …; a thread of the pool is `WORKER + n`, `n`
/// unique to it. Not its `current_thread_index()`: a spare answers as one
/// of the workers, and the V8 check must tell every thread apart.
const WORKER: usize = 100;

fn this_thread(outside: usize) -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static POOL_THREAD: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    match current_thread_index() {
        Some(_) => WORKER + POOL_THREAD.with(|n| *n),
        None => outside,
    }
}

/// One round's record: calls, and the (handle, start, end) of each body.
#[derive(Default)]
struct Recorder {
    clock: AtomicU64,
    /// Bit `handle` set once that handle's body has started.
    started: AtomicU64,
    calls: Mutex<Vec<Call>>,
    runs: Mutex<Vec<(usize, u64, u64)>>,
}

impl Recorder {
    fn new() -> Arc<Recorder> {
        Arc::new(Recorder {
            clock: AtomicU64::new(1),
            ..Recorder::default()
        })
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, SeqCst)
    }

    fn push(&self, thread: usize, invoke: u64, ret: u64, op: Op) {
        self.calls.lock().unwrap().push(Call {
            thread,
            invoke,
            ret,
            op,
        });
    }

    fn call<T>(&self, thread: usize, f: impl FnOnce() -> T, op: impl FnOnce(&T) -> Op) -> T {
        let invoke = self.tick();
        let result = f();
        let ret = self.tick();
        self.push(thread, invoke, ret, op(&result));
        result
    }

    /// A task body of `handle` ending with `value`, taking a little while
    /// so that other threads' calls can fall inside it.
    fn body(self: &Arc<Self>, handle: usize, value: u64) -> impl FnOnce() -> u64 + Send + 'static {
        let recorder = self.clone();
        move || {
            let start = recorder.tick();
            recorder.started.fetch_or(1 << handle, SeqCst);
            for _ in 0..200 {
                std::hint::spin_loop();
            }
            recorder.ended(handle, start, vec![value]);
            value
        }
    }

    fn ended(&self, handle: usize, start: u64, value: Value) {
        let end = self.tick();
        self.runs.lock().unwrap().push((handle, start, end));
        self.push(this_thread(0), end, u64::MAX, Op::Complete { handle, value });
    }

    /// `then` on `input` (handle `from`), the continuation's handle `to`.
    fn then(self: &Arc<Self>, input: JoinHandle<u64>, from: usize, to: usize) -> JoinHandle<u64> {
        let invoke = self.tick();
        let recorder = self.clone();
        input.then(move |value| {
            let start = recorder.tick();
            recorder.push(
                this_thread(0),
                invoke,
                start,
                Op::Deliver {
                    handle: from,
                    value: vec![value],
                },
            );
            recorder.ended(to, start, vec![value + 1]);
            value + 1
        })
    }

    fn is_finished<R: Send>(&self, thread: usize, handle: &JoinHandle<R>, number: usize) -> bool {
        self.call(
            thread,
            || handle.is_finished(),
            |&finished| Op::IsFinished {
                handle: number,
                finished,
            },
        )
    }

    fn join(&self, thread: usize, handle: JoinHandle<u64>, number: usize) -> u64 {
        self.call(
            thread,
            || handle.join().expect("the task did not panic"),
            |&value| Op::Join {
                handle: number,
                value: vec![value],
            },
        )
    }

    /// Checks the round's history; panics with it if no legal order exists.
    fn check(&self, handles: usize) {
        let calls = self.calls.lock().unwrap().clone();
        assert!(
            handle_spec::linearizable(&calls, handles),
            "the handles' history is NOT linearizable: {calls:#?}"
        );
    }

    /// Whether `is_finished` or `poll` on `handle` was called and answered
    /// inside a run of `body`.
    fn asked_while_running(&self, handle: usize, body: usize) -> bool {
        let calls = self.calls.lock().unwrap();
        let runs = self.runs.lock().unwrap();
        handle_spec::asked_while_running(&calls, &runs, handle, body)
    }

    /// Whether a call on `handle` overlapped a run of `body`.
    fn observed_while_running(&self, handle: usize, body: usize) -> bool {
        let calls = self.calls.lock().unwrap();
        let runs = self.runs.lock().unwrap();
        handle_spec::observed_while_running(&calls, &runs, handle, body)
    }
}

/// Polls `handle` as a future, recording each poll, up to three times
/// with a yield between (the search takes at most 64 calls a history);
/// joins it if it never was `Ready`.
fn poll_or_join(recorder: &Recorder, thread: usize, mut handle: JoinHandle<u64>, number: usize) {
    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    let waker = Waker::from(Arc::new(Noop));
    let mut context = Context::from_waker(&waker);
    for _ in 0..3 {
        let poll = recorder.call(
            thread,
            || Pin::new(&mut handle).poll(&mut context),
            |poll| Op::Poll {
                handle: number,
                ready: match poll {
                    Poll::Ready(value) => Some(vec![*value.as_ref().expect("the task did not panic")]),
                    Poll::Pending => None,
                },
            },
        );
        if poll.is_ready() {
            return;
        }
        thread::yield_now();
    }
    recorder.join(thread, handle, number);
}

/// Runs `round` until `FLOOR` of its histories overlapped in each of the
/// `K` ways it reports, at most `MAX_ROUNDS` times; returns the rounds.
fn until_floor<const K: usize>(name: &str, kinds: [&str; K], mut round: impl FnMut() -> [bool; K]) -> usize {
    let (mut rounds, mut overlapping) = (0, [0usize; K]);
    while overlapping.iter().any(|&count| count < FLOOR) && rounds < MAX_ROUNDS {
        rounds += 1;
        for (count, hit) in overlapping.iter_mut().zip(round()) {
            *count += usize::from(hit);
        }
    }
    for (kind, count) in kinds.iter().zip(overlapping) {
        println!("{name}: {count} histories with {kind} in {rounds} rounds, every one linearizable");
        assert!(
            count >= FLOOR,
            "{name}: only {count} of {rounds} histories had {kind}, below the floor of {FLOOR}"
        );
    }
    rounds
}

/// Three tasks on two workers: one outside thread waits for the first to
/// start, asks `is_finished` until it answers `true` (at most eight times)
/// and joins it,
/// another polls the second as a future, the main thread attaches a `then`
/// to the third and joins its handle. Every history is checked. Two
/// floors: histories where a call on the first or second task overlapped
/// its run, and histories where `is_finished` or `poll` was called and
/// answered while its task ran, the overlap that catches a handle saying
/// it is finished too early (`finished_early`, in every run).
#[test]
fn handles_are_linearizable_on_real_threads() {
    let pool = ThreadPool::new(2);
    let kinds = [
        "a call overlapping a run",
        "is_finished or poll answered inside a run",
    ];
    until_floor("handles", kinds, || {
        let recorder = Recorder::new();
        let a = pool.submit(recorder.body(0, 10));
        let b = pool.submit(recorder.body(1, 20));
        let c = pool.submit(recorder.body(2, 30));
        let watcher = {
            let recorder = recorder.clone();
            thread::spawn(move || {
                // The race gated: ask once the body has started (or the
                // handle says it is done), so that the answer usually
                // falls inside the run.
                while recorder.started.load(SeqCst) & 1 == 0 && !a.is_finished() {
                    std::hint::spin_loop();
                }
                for _ in 0..8 {
                    if recorder.is_finished(1, &a, 0) {
                        break;
                    }
                }
                recorder.join(1, a, 0);
            })
        };
        let poller = {
            let recorder = recorder.clone();
            thread::spawn(move || poll_or_join(&recorder, 2, b, 1))
        };
        let d = recorder.then(c, 2, 3);
        let _ = recorder.is_finished(3, &d, 3);
        assert_eq!(recorder.join(3, d, 3), 31);
        watcher.join().unwrap();
        poller.join().unwrap();
        recorder.check(4);
        [
            recorder.observed_while_running(0, 0) || recorder.observed_while_running(1, 1),
            recorder.asked_while_running(0, 0) || recorder.asked_while_running(1, 1),
        ]
    });
}

/// `when_all` of three tasks (values 1, 2, 3), watched by another thread
/// while they run and joined there; a `zip` of two (7, 8) whose `then`
/// makes 78, joined by the main thread. Counts toward the floor when the
/// `when_all` handle was asked `is_finished` while one of its inputs ran.
#[test]
fn when_all_and_zip_are_linearizable_on_real_threads() {
    let pool = ThreadPool::new(2);
    until_floor(
        "when_all and zip",
        ["is_finished of when_all while an input ran"],
        || {
            let recorder = Recorder::new();
            let inputs: Vec<_> = (0..3)
                .map(|i| pool.submit(recorder.body(i, i as u64 + 1)))
                .collect();
            let all = {
                let invoke = recorder.tick();
                let all = pool.when_all(inputs);
                // A combination's step is the pool's: nobody sees it return.
                recorder.push(
                    1,
                    invoke,
                    u64::MAX,
                    Op::Combine {
                        handle: 3,
                        inputs: vec![0, 1, 2],
                    },
                );
                all
            };
            let watcher = {
                let recorder = recorder.clone();
                thread::spawn(move || {
                    let _ = recorder.is_finished(1, &all, 3);
                    recorder.call(
                        1,
                        || all.join().expect("no input panicked"),
                        |values| Op::Join {
                            handle: 3,
                            value: values.clone(),
                        },
                    );
                })
            };
            let left = pool.submit(recorder.body(4, 7));
            let right = pool.submit(recorder.body(5, 8));
            let invoke = recorder.tick();
            let zipped = left.zip(right);
            recorder.push(
                3,
                invoke,
                u64::MAX,
                Op::Combine {
                    handle: 6,
                    inputs: vec![4, 5],
                },
            );
            let then_invoke = recorder.tick();
            let made = {
                let recorder = recorder.clone();
                zipped.then(move |pair| {
                    let start = recorder.tick();
                    let (l, r) = pair;
                    recorder.push(
                        this_thread(0),
                        then_invoke,
                        start,
                        Op::Deliver {
                            handle: 6,
                            value: vec![l, r],
                        },
                    );
                    recorder.ended(7, start, vec![l * 10 + r]);
                    l * 10 + r
                })
            };
            assert_eq!(recorder.join(3, made, 7), 78);
            watcher.join().unwrap();
            recorder.check(8);
            [(0..3).any(|input| recorder.observed_while_running(3, input))]
        },
    );
}
