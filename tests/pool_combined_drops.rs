#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Features combined on real threads, where panics and drops meet: panics
//! whose payloads panic when dropped, pools dropped by their own workers
//! with everything still queued, and continuations attached while a pool
//! shuts down.
//!
//! Every value is dropped exactly once, every task runs exactly once, each
//! panic reaches the caller the API names, and the workers survive.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering::*};
use std::sync::Arc;
use std::thread;
use stealpool::prelude::*;
use stealpool::{block_in_place, JoinHandle, Priority, ThreadPool};

mod common;
use common::combined::{is_expected, is_token, pools, seeds, Ledger, Rng, Runs, Token};
use common::{quiet_expected_panics_or, scaled};

/// A panic whose payload is a token (whose own drop may panic).
fn throw(ledger: &Arc<Ledger>, bomb: bool) -> ! {
    panic::panic_any(Token::new(ledger, bomb))
}

/// Panics whose payloads panic when dropped, where two panics meet (both
/// halves of a join, two scope tasks, `zip` and `when_all` of two failed
/// handles, a parallel iterator failing twice, a dropped handle, the
/// default handler): each payload is dropped exactly once, the process
/// does not abort, and the workers go on.
fn payload_round(seed: u64) {
    let ledger = Arc::new(Ledger::default());
    let mut rng = Rng(seed * 0x2545_F491 + 7);
    let a = Arc::new(
        ThreadPool::builder()
            .num_threads(1 + rng.below(2) as usize)
            .bounded_steals(rng.below(2) == 0)
            .build()
            .unwrap(),
    );
    let b = Arc::new(
        ThreadPool::builder()
            .num_threads(1 + rng.below(2) as usize)
            .max_pending_joins(1)
            .panic_handler(|payload| {
                // The handler drops the payload, whose drop panics.
                drop(payload);
            })
            .build()
            .unwrap(),
    );
    let l = &ledger;
    let take = |r: thread::Result<()>| {
        let payload = r.expect_err("a panic was lost");
        assert!(is_token(&*payload) || is_expected(&*payload));
        let _ = panic::catch_unwind(AssertUnwindSafe(|| drop(payload)));
    };
    // Both halves of a join on `b`, run inside a task of `a`.
    let (a2, b2, l2) = (a.clone(), b.clone(), l.clone());
    let r = a.submit(move || {
        panic::catch_unwind(AssertUnwindSafe(|| {
            b2.join(
                || -> () { throw(&l2, true) },
                || -> () { a2.install(|| throw(&l2, true)) },
            );
        }))
    });
    take(r.join().unwrap());
    // Two scope tasks, on `a`, from inside `b.install`.
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        b.install(|| {
            a.scope(|s| {
                s.spawn(|_| throw(l, true));
                s.spawn(|_| block_in_place(|| throw(l, true)));
                s.spawn(|_| throw(l, false));
            })
        })
    }));
    take(r);
    // zip and when_all of failed handles of both pools.
    let (l3, l4) = (l.clone(), l.clone());
    let x = a.submit(move || -> u8 { throw(&l3, true) });
    let y = b.submit_with_priority(Priority::High, move || -> u8 { throw(&l4, true) });
    take(x.zip(y).join().map(|_| ()));
    let hs: Vec<JoinHandle<Token>> = (0..5)
        .map(|i| {
            let l = l.clone();
            let pool = if i % 2 == 0 { &a } else { &b };
            pool.submit(move || {
                if i % 2 == 0 {
                    throw(&l, true)
                }
                Token::new(&l, true)
            })
        })
        .collect();
    take(a.when_all(hs).join().map(|_| ()));
    // A parallel iterator that fails at many elements, inside a task.
    let l5 = l.clone();
    let r = b.submit(move || {
        (0..200u32).into_par_iter().for_each(|x| {
            if x % 50 == 7 {
                throw(&l5, true)
            }
        })
    });
    take(r.join());
    // Handles dropped unjoined, before or after their task failed.
    for i in 0..4 {
        let l = l.clone();
        let h = a.submit(move || -> () { throw(&l, true) });
        if i % 2 == 0 {
            a.wait_all();
        }
        drop(h);
    }
    // Spawned failures reach the default handler.
    for _ in 0..4 {
        let l = l.clone();
        b.spawn(move || throw(&l, true));
    }
    drop(a);
    drop(b);
    assert_eq!(
        ledger.made.load(Relaxed),
        ledger.dropped.load(Relaxed),
        "seed {seed}: a payload leaked or was dropped twice"
    );
}

#[test]
fn panics_whose_payloads_panic_when_dropped() {
    quiet_expected_panics_or(is_token);
    for seed in seeds() {
        payload_round(seed);
    }
}

/// Pools whose last handle is dropped where a worker runs: inside one of
/// its own tasks, in a continuation, in a token's drop on the other
/// pool's worker. Tasks of every kind are still queued then (bounded,
/// prioritized, submitted, continuations 20 000 deep, scope tasks in
/// flight): each runs exactly once and every token is dropped once.
fn drop_round(seed: u64) {
    let ledger = Arc::new(Ledger::default());
    let mut rng = Rng(seed * 0xD1B5_4A32 + 3);
    let (a, b) = pools(&ledger, &mut rng);
    let n = 64;
    let once = Runs::new(n + 2);
    let gate = Arc::new(AtomicBool::new(false));
    let chain_len = scaled(20_000, 50);

    // A chain on `b` behind a gated task, its end handle dropped unjoined:
    // its last link counts as task `n`.
    let g = gate.clone();
    let mut chain = b.submit(move || {
        while !g.load(Acquire) {
            thread::yield_now();
        }
        0usize
    });
    for _ in 0..chain_len {
        chain = chain.then(|x| x + 1);
    }
    let (o, l) = (once.clone(), ledger.clone());
    let t = Token::new(&l, false);
    drop(chain.then(move |x| {
        let _t = t;
        assert_eq!(x, chain_len);
        o.run(n);
    }));

    // From inside `a`: tasks of every kind on both pools.
    let (a2, b2, o, l) = (a.clone(), b.clone(), once.clone(), ledger.clone());
    a.spawn(move || {
        for i in 0..n {
            let (o, l) = (o.clone(), l.clone());
            let t = Token::new(&l, false);
            let b3 = b2.clone();
            let body = move || {
                let _t = t;
                o.run(i);
            };
            match i % 8 {
                0 => a2.spawn(body),
                1 => a2.spawn_with_priority(Priority::Critical, body),
                2 => b2.spawn_with_priority(Priority::Low, body),
                3 => drop(a2.submit(body)),
                4 => drop(b2.submit(|| 1).then(move |_| body())),
                5 => drop(a2.submit(|| 2).zip(b2.submit(|| 3)).then(move |_| body())),
                6 => a2.spawn(move || {
                    // A scope on the other pool from inside this one.
                    b3.scope(|s| {
                        s.spawn(|_| block_in_place(body));
                    })
                }),
                _ => drop(a2.when_all(vec![b2.submit(|| 4)]).then(move |_| body())),
            }
        }
    });

    // Who drops the last handles.
    let o = once.clone();
    match rng.below(3) {
        0 => {
            // `a` inside its own task, `b` in a continuation of `a`.
            let a2 = a.clone();
            a.spawn(move || drop(a2));
            let b2 = b.clone();
            drop(a.submit(|| 5).then(move |_| {
                drop(b2);
                o.run(n + 1);
            }));
        }
        1 => {
            // Both inside a task of `b`, one in a token's drop.
            let (a2, b2) = (a.clone(), b.clone());
            struct Dropper(Option<Arc<ThreadPool>>, Arc<Runs>, usize);
            impl Drop for Dropper {
                fn drop(&mut self) {
                    drop(self.0.take());
                    self.1.run(self.2);
                }
            }
            let d = Dropper(Some(a2), o, n + 1);
            b.spawn(move || {
                let _d = d;
                drop(b2);
            });
        }
        _ => {
            // `b` inside a task of `a` waiting on `b` itself.
            let b2 = b.clone();
            a.spawn(move || {
                let h = b2.submit(|| 6);
                drop(b2);
                assert_eq!(h.join().unwrap(), 6);
                o.run(n + 1);
            });
        }
    }
    // The gate opens while the pools are being dropped (the drop that
    // comes last from here waits for the chain).
    let opener = {
        let gate = gate.clone();
        thread::spawn(move || {
            for _ in 0..100 {
                thread::yield_now();
            }
            gate.store(true, Release);
        })
    };
    drop(a);
    drop(b);
    opener.join().unwrap();
    // The pools' threads finish on their own: count until everything ran.
    let start = std::time::Instant::now();
    while !once.all_once() || ledger.made.load(Acquire) != ledger.dropped.load(Acquire) {
        assert!(
            start.elapsed() < common::DEADLINE,
            "seed {seed}: tasks never ran: {:?}",
            once.runs.iter().map(|r| r.load(Relaxed)).collect::<Vec<_>>()
        );
        thread::yield_now();
    }
    // No task runs twice, even late.
    thread::yield_now();
    assert!(once.all_once());
}

#[test]
fn pools_dropped_by_their_own_workers_with_everything_queued() {
    quiet_expected_panics_or(is_token);
    for seed in seeds() {
        drop_round(seed);
    }
}

/// Continuations attached by an outside thread while the pool's last
/// handle is dropped inside one of its own tasks, so the workers drain and
/// leave on their own as the attaching goes on: each `then`, `zip` and
/// `when_all` runs exactly once, on a worker or on the attaching thread.
fn attach_round(seed: u64) {
    let mut rng = Rng(seed * 0x6C8E_9CF5 + 11);
    let ledger = Arc::new(Ledger::default());
    let (a, b) = pools(&ledger, &mut rng);
    let n = 40;
    let once = Runs::new(3 * n);
    let handles: Vec<JoinHandle<usize>> = (0..n).map(|i| a.submit(move || i)).collect();
    let others: Vec<JoinHandle<usize>> = (0..n).map(|i| b.submit(move || i)).collect();
    let a2 = a.clone();
    a.spawn(move || drop(a2));
    drop(a);
    let mut results = Vec::new();
    for (i, (h, o)) in handles.into_iter().zip(others).enumerate() {
        let once = once.clone();
        let t = Token::new(&ledger, false);
        match i % 3 {
            0 => results.push(h.then(move |x| {
                let _t = t;
                once.run(x);
                x
            })),
            1 => results.push(h.zip(o).then(move |(x, y)| {
                let _t = t;
                assert_eq!(x, y);
                once.run(x);
                x
            })),
            _ => results.push(b.when_all([h, o]).then(move |v| {
                let _t = t;
                assert_eq!(v[0], v[1]);
                once.run(v[0]);
                v[0]
            })),
        }
        if rng.below(4) == 0 {
            thread::yield_now();
        }
    }
    for (i, r) in results.into_iter().enumerate() {
        assert_eq!(r.join().unwrap(), i, "seed {seed}");
    }
    drop(b);
    for i in 0..n {
        assert_eq!(once.runs[i].load(Relaxed), 1, "seed {seed}");
    }
    assert_eq!(
        ledger.made.load(Relaxed),
        ledger.dropped.load(Relaxed),
        "seed {seed}"
    );
}

#[test]
fn continuations_attached_while_the_pool_leaves() {
    quiet_expected_panics_or(is_token);
    let seeds = seeds();
    for seed in 5 * seeds.start..5 * seeds.end {
        attach_round(seed);
    }
}
