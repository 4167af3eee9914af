#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Features combined on real threads, as a demanding program combines
//! them, across two pools that call into each other: `install`, handles of
//! one joined inside tasks of the other, continuations, priorities beside
//! plain tasks, bounded deques, a limit on pending joins, parallel iterators
//! inside tasks and scopes, `wait_all`, sorts whose comparison panics inside
//! tasks of the other pool, and handles awaited by an executor polling on
//! the pools.
//!
//! Every value is dropped exactly once, every task runs exactly once, each
//! panic reaches the caller the API names, and the workers survive.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::thread;
use stealpool::prelude::*;
use stealpool::{block_in_place, JoinHandle, Priority, ThreadPool};

mod common;
use common::combined::{is_expected, is_token, par_sum, pools, seeds, Ledger, Rng, Runs, Token};
use common::{quiet_expected_panics_or, scaled, EXPECTED};

fn seq_sum(n: u64) -> u64 {
    (0..n).map(|x| x * 2).sum()
}

/// One round of the cross-pool program.
fn cross_round(seed: u64) {
    let ledger = Arc::new(Ledger::default());
    let mut rng = Rng(seed * 0x9E37_79B9 + 1);
    let (a, b) = pools(&ledger, &mut rng);
    let mut expected_runs = 0usize;
    let mut expected_handled = 0usize;
    let mut caught = 0usize;

    // Spawned tasks on `a` from inside (its bounded deques), at mixed
    // priorities, some panicking in the body, some in a captured drop.
    {
        let (l, a2, b2) = (ledger.clone(), a.clone(), b.clone());
        let kinds: Vec<u64> = (0..16).map(|_| rng.below(4)).collect();
        for &k in &kinds {
            expected_runs += 1;
            if k != 0 {
                expected_handled += 1;
            }
        }
        a.install(move || {
            for (i, k) in kinds.into_iter().enumerate() {
                let token = Token::new(&l, k == 2);
                let l2 = l.clone();
                let b3 = b2.clone();
                let body = move || {
                    let _token = token;
                    l2.ran.fetch_add(1, Relaxed);
                    // Joins a handle of the other pool from inside.
                    let h = b3.submit(|| par_sum(50));
                    assert_eq!(h.join().unwrap(), seq_sum(50));
                    if k == 1 {
                        panic!("{EXPECTED} in a spawned task");
                    }
                    if k == 3 {
                        let _bomb = Token::new(&l2, true);
                    }
                };
                match i % 3 {
                    0 => stealpool::spawn(body),
                    1 => a2.spawn_with_priority(Priority::High, body),
                    _ => a2.spawn_with_priority(Priority::Low, body),
                }
            }
        });
    }

    // `b`'s task joins on `a`, with `block_in_place` in the join's halves,
    // while `a`'s worker waits in `b.install`.
    {
        let (a2, b2, l) = (a.clone(), b.clone(), ledger.clone());
        let got = a.install(move || {
            b2.install(|| {
                let (x, y) = a2.join(
                    || block_in_place(|| par_sum(100)),
                    || {
                        let h = a2.submit_with_priority(Priority::Critical, || par_sum(10));
                        h.join().unwrap()
                    },
                );
                l.ran.fetch_add(1, Relaxed);
                x + y
            })
        });
        expected_runs += 1;
        assert_eq!(got, seq_sum(100) + seq_sum(10));
    }

    // A scope on `b` whose tasks borrow, submit to `a` and join, block in
    // place, run parallel iterators, and one panics: the scope re-raises
    // after every task ran.
    {
        let mut slots = vec![0u64; 8];
        let panicking = rng.below(8) as usize;
        let l = ledger.clone();
        let a2 = a.clone();
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            b.scope(|s| {
                for (i, slot) in slots.iter_mut().enumerate() {
                    let (l, a2) = (&l, &a2);
                    s.spawn(move |s| {
                        let token = Token::new(l, false);
                        l.ran.fetch_add(1, Relaxed);
                        *slot = match i % 4 {
                            0 => a2.submit(move || par_sum(20)).join().unwrap(),
                            1 => block_in_place(|| a2.install(|| par_sum(20))),
                            2 => {
                                let mut v: Vec<u64> = (0..20).rev().collect();
                                v.par_sort();
                                v.par_iter().map(|x| x * 2).sum()
                            }
                            _ => {
                                s.spawn(move |_| drop(token));
                                seq_sum(20)
                            }
                        };
                        if i == panicking {
                            panic!("{EXPECTED} in a scope task");
                        }
                    });
                }
            })
        }));
        expected_runs += 8;
        let payload = result.expect_err("the scope's panic was lost");
        assert!(is_expected(&*payload));
        for slot in slots {
            assert_eq!(slot, seq_sum(20));
        }
    }

    // Continuations across the pools: a zip of one handle of each, a chain,
    // `when_all` of mixed handles with one panic and values whose drop
    // panics, and a `then` skipped by a panic whose captured token is
    // dropped unrun.
    {
        let l = ledger.clone();
        let ha = a.submit(|| 3u64);
        let hb = b.submit_with_priority(Priority::Low, || 4u64);
        let mut chain = ha.zip(hb).then(|(x, y)| x * y);
        for _ in 0..100 {
            chain = chain.then(|x| x + 1);
        }
        assert_eq!(chain.join().unwrap(), 112);

        let mut handles: Vec<JoinHandle<Token>> = Vec::new();
        let bad = rng.below(6) as usize;
        for i in 0..6 {
            let l = l.clone();
            let pool = if i % 2 == 0 { &a } else { &b };
            handles.push(pool.submit(move || {
                l.ran.fetch_add(1, Relaxed);
                if i == bad {
                    panic!("{EXPECTED} in a gathered task");
                }
                Token::new(&l, i % 3 == 1)
            }));
        }
        expected_runs += 6;
        let skipped = Token::new(&l, true);
        let gathered = b.when_all(handles).then(move |v| {
            drop(skipped);
            v.len()
        });
        let payload = gathered.join().expect_err("the gathered panic was lost");
        assert!(is_expected(&*payload));

        // Results dropped with their handles, their drops panicking.
        for i in 0..4 {
            let l2 = l.clone();
            let pool = if i % 2 == 0 { &a } else { &b };
            let h = pool.submit(move || Token::new(&l2, true)).then(|t| t);
            if panic::catch_unwind(AssertUnwindSafe(|| drop(h))).is_err() {
                caught += 1;
            }
        }
    }

    // A join on `a` whose first half panics inside `b.install`: the panic
    // reaches `install`'s caller, after the second half ran.
    {
        let (a2, b2, l) = (a.clone(), b.clone(), ledger.clone());
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            a2.install(|| {
                b2.install(|| {
                    a2.join(
                        || -> Token {
                            let _t = Token::new(&l, false);
                            panic!("{EXPECTED} in a join half")
                        },
                        || {
                            l.ran.fetch_add(1, Relaxed);
                            Token::new(&l, true)
                        },
                    )
                })
            })
        }));
        expected_runs += 1;
        assert!(is_expected(
            &*result.map(|_| ()).expect_err("the join's panic was lost")
        ));
    }

    // A parallel iterator that panics inside a task of `a` whose handle a
    // task of `b` joins.
    {
        let a2 = a.clone();
        let h = b.submit(move || {
            a2.submit(|| {
                (0..1000u64).into_par_iter().for_each(|x| {
                    if x == 777 {
                        panic!("{EXPECTED} in a parallel iterator");
                    }
                })
            })
            .join()
        });
        let inner = h.join().expect("the outer task panicked");
        assert!(is_expected(&*inner.expect_err("the iterator's panic was lost")));
    }

    a.wait_all();
    b.wait_all();
    assert_eq!(ledger.ran.load(Relaxed), expected_runs, "seed {seed}");
    // Drop the pools in either order, a long chain on a gated task of one
    // pool waiting: the drop runs it.
    let gate = Arc::new(AtomicBool::new(false));
    let g = gate.clone();
    let (first, second) = if rng.below(2) == 0 { (a, b) } else { (b, a) };
    let head = second.submit(move || {
        while !g.load(Acquire) {
            thread::yield_now();
        }
        0u64
    });
    let mut chain = head;
    for _ in 0..scaled(20_000, 50) {
        chain = chain.then(|x| x + 1);
    }
    let l = ledger.clone();
    let last = chain.then(move |x| {
        let _t = Token::new(&l, false);
        x
    });
    drop(first);
    gate.store(true, Release);
    drop(second);
    assert_eq!(last.join().unwrap(), scaled(20_000, 50) as u64);
    // The four results dropped with their handles panicked in the pool's
    // handler, or here if their continuation finished first.
    assert_eq!(
        ledger.handled.load(Relaxed) + caught,
        expected_handled + 4,
        "seed {seed}"
    );
    assert_eq!(
        ledger.made.load(Relaxed),
        ledger.dropped.load(Relaxed),
        "seed {seed}: a token leaked or was dropped twice"
    );
}

#[test]
fn two_pools_with_everything_at_once() {
    quiet_expected_panics_or(is_token);
    for seed in seeds() {
        cross_round(seed);
    }
}

/// An element that counts its drops by its number.
struct Counted {
    key: u32,
    id: usize,
    drops: Arc<Vec<AtomicUsize>>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops[self.id].fetch_add(1, Relaxed);
    }
}

/// Parallel sorts whose comparison panics from some call on (so both
/// halves of the sort's joins fail at once), run inside a task of one
/// pool on the other pool's workers, bounded deques and a join limit
/// included: the slice keeps every element exactly once, and each is
/// dropped once.
fn sort_round(seed: u64) {
    let mut rng = Rng(seed * 0x8CB9_2BA7 + 17);
    let ledger = Arc::new(Ledger::default());
    let (a, b) = pools(&ledger, &mut rng);
    let n = scaled(20_000, 300);
    let drops = Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect::<Vec<_>>());
    let mut v: Vec<Counted> = (0..n)
        .map(|id| Counted {
            key: rng.below(1000) as u32,
            id,
            drops: drops.clone(),
        })
        .collect();
    let limit = match rng.below(4) {
        0 => usize::MAX,
        _ => rng.below(16 * n as u64) as usize,
    };
    let stable = rng.below(2) == 0;
    let (on, other) = if rng.below(2) == 0 { (a, b) } else { (b, a) };
    let r = other.submit(move || {
        let calls = AtomicUsize::new(0);
        let compare = |x: &Counted, y: &Counted| {
            if calls.fetch_add(1, Relaxed) >= limit {
                panic!("{EXPECTED} in a comparison");
            }
            x.key.cmp(&y.key)
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            on.install(|| {
                if stable {
                    v.par_sort_by(compare);
                } else {
                    v.par_sort_unstable_by(compare);
                }
            })
        }));
        (v, result.is_err())
    });
    let (v, failed) = r.join().unwrap();
    let mut ids: Vec<usize> = v.iter().map(|e| e.id).collect();
    if !failed {
        assert!(
            v.windows(2).all(|w| w[0].key <= w[1].key),
            "seed {seed}: not sorted"
        );
    }
    ids.sort_unstable();
    assert!(
        ids.iter().copied().eq(0..n),
        "seed {seed}: elements lost or duplicated"
    );
    assert!(
        drops.iter().all(|d| d.load(Relaxed) == 0),
        "seed {seed}: dropped in the sort"
    );
    drop(v);
    assert!(drops.iter().all(|d| d.load(Relaxed) == 1), "seed {seed}");
}

#[test]
fn sorts_whose_comparison_fails_inside_tasks_of_the_other_pool() {
    quiet_expected_panics_or(is_token);
    for seed in seeds() {
        sort_round(seed);
    }
}

/// A future of the small executor below.
type Fut = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// A task of a small executor that polls on a pool: its waker spawns a
/// poll there, and polls take turns on the mutex (a wake during a poll
/// leads to one more poll, never to a lost one).
struct AsyncTask {
    future: std::sync::Mutex<Option<Fut>>,
    pool: Arc<ThreadPool>,
}

impl AsyncTask {
    fn poll(self: &Arc<Self>) {
        let mut slot = self.future.lock().unwrap();
        if let Some(mut future) = slot.take() {
            let waker = std::task::Waker::from(self.clone());
            let mut cx = std::task::Context::from_waker(&waker);
            if future.as_mut().poll(&mut cx).is_pending() {
                *slot = Some(future);
            }
        }
    }
}

impl std::task::Wake for AsyncTask {
    fn wake(self: Arc<Self>) {
        let pool = self.pool.clone();
        pool.spawn(move || self.poll());
    }
}

/// Handles awaited (as futures) by tasks of an executor that polls on the
/// pools themselves: a `zip` across the pools and a `then`, a `when_all`,
/// a panic through a chain, and a handle whose task joins one of the
/// other pool. Every future finishes and every token is dropped once.
fn async_round(seed: u64) {
    let mut rng = Rng(seed * 0x27D4_EB2F + 19);
    let ledger = Arc::new(Ledger::default());
    let (a, b) = pools(&ledger, &mut rng);
    let futures = 8;
    let once = Runs::new(futures);
    for f in 0..futures {
        let (a2, b2, o, l) = (a.clone(), b.clone(), once.clone(), ledger.clone());
        let future: Fut = Box::pin(async move {
            let t = Token::new(&l, false);
            let x = a2.submit(move || f as u64);
            let y = b2.submit_with_priority(Priority::High, || 10u64);
            let sum = x.zip(y).then(|(x, y)| x + y).await.unwrap();
            let parts: Vec<JoinHandle<u64>> = (0..4u64)
                .map(|i| {
                    if i % 2 == 0 {
                        a2.submit(move || i)
                    } else {
                        b2.submit(move || i)
                    }
                })
                .collect();
            let all: u64 = b2.when_all(parts).await.unwrap().iter().sum();
            let failed = a2
                .submit(|| -> u64 { panic!("{EXPECTED} in an awaited task") })
                .then(|v| v + 1)
                .await;
            assert!(is_expected(&*failed.expect_err("the awaited panic was lost")));
            let inner = a2.clone();
            let nested = b2
                .submit(move || inner.submit(|| par_sum(10)).join().unwrap())
                .await
                .unwrap();
            assert_eq!(sum + all + nested, f as u64 + 10 + 6 + seq_sum(10));
            drop(t);
            o.run(f);
        });
        let pool = if f % 2 == 0 { a.clone() } else { b.clone() };
        let task = Arc::new(AsyncTask {
            future: std::sync::Mutex::new(Some(future)),
            pool: pool.clone(),
        });
        pool.spawn(move || task.poll());
    }
    // A poll still queued after its future finished finds nothing to poll;
    // the pools' drops run it.
    let start = std::time::Instant::now();
    while !once.all_once() {
        assert!(
            start.elapsed() < common::DEADLINE,
            "seed {seed}: a future never finished"
        );
        thread::yield_now();
    }
    drop(a);
    drop(b);
    assert_eq!(
        ledger.made.load(Relaxed),
        ledger.dropped.load(Relaxed),
        "seed {seed}"
    );
}

#[test]
fn handles_awaited_by_an_executor_polling_on_the_pools() {
    quiet_expected_panics_or(is_token);
    for seed in seeds() {
        async_round(seed);
    }
}
