#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Features combined on real threads, as a demanding program combines
//! them: two pools that call into each other (`install`, handles of one
//! joined inside tasks of the other), continuations across them, priorities
//! beside plain tasks, bounded deques, a limit on pending joins,
//! `block_in_place` inside joins and scopes, parallel iterators inside
//! tasks and scopes, `wait_all`, and panics at every point where a user
//! closure or a `Drop` runs. Every value is dropped exactly once, every
//! task runs exactly once, each panic reaches the caller the API names,
//! and the workers survive.

mod common;

use common::{message, quiet_expected_panics_or, scaled, EXPECTED};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::thread;
use stealpool::prelude::*;
use stealpool::{block_in_place, JoinHandle, Priority, ThreadPool};

/// Rounds of each program (a fresh pair of pools each), and the seed of
/// the first: `STEALPOOL_COMBINED_ROUNDS` and `STEALPOOL_COMBINED_SEED`
/// run a longer hunt.
fn seeds() -> std::ops::Range<u64> {
    let var = |name: &str| std::env::var(name).ok().and_then(|s| s.parse().ok());
    let rounds = var("STEALPOOL_COMBINED_ROUNDS").unwrap_or(scaled(12, 1) as u64);
    let first = var("STEALPOOL_COMBINED_SEED").unwrap_or(0);
    first..first + rounds
}

/// What a round promised and what the pools did.
#[derive(Default)]
struct Ledger {
    /// Tokens made.
    made: AtomicUsize,
    /// Tokens dropped.
    dropped: AtomicUsize,
    /// Task bodies run.
    ran: AtomicUsize,
    /// Calls of either pool's panic handler.
    handled: AtomicUsize,
}

/// A value whose drop is counted, and may panic.
struct Token {
    ledger: Arc<Ledger>,
    bomb: bool,
    dropped: AtomicBool,
}

impl Token {
    fn new(ledger: &Arc<Ledger>, bomb: bool) -> Token {
        ledger.made.fetch_add(1, Relaxed);
        Token {
            ledger: ledger.clone(),
            bomb,
            dropped: AtomicBool::new(false),
        }
    }
}

impl Drop for Token {
    fn drop(&mut self) {
        assert!(!self.dropped.swap(true, Relaxed), "a token dropped twice");
        self.ledger.dropped.fetch_add(1, Relaxed);
        if self.bomb {
            panic!("{EXPECTED} in a token's drop");
        }
    }
}

/// A small xorshift, so each round draws its own combination.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn pools(ledger: &Arc<Ledger>, rng: &mut Rng) -> (Arc<ThreadPool>, Arc<ThreadPool>) {
    let (ha, hb) = (ledger.clone(), ledger.clone());
    let a = ThreadPool::builder()
        .num_threads(1 + rng.below(2) as usize)
        .bounded_steals(true)
        .max_blocking_threads(2)
        .panic_handler(move |_| {
            ha.handled.fetch_add(1, Relaxed);
        })
        .build()
        .unwrap();
    let b = ThreadPool::builder()
        .num_threads(1 + rng.below(2) as usize)
        .max_pending_joins(1 + rng.below(2) as usize)
        .panic_handler(move |_| {
            hb.handled.fetch_add(1, Relaxed);
        })
        .build()
        .unwrap();
    (Arc::new(a), Arc::new(b))
}

/// The expected panic's message, whatever layer re-raised it.
fn is_expected(payload: &(dyn std::any::Any + Send)) -> bool {
    message(payload).is_some_and(|m| m.contains(EXPECTED))
}

/// A sum over a parallel iterator on whatever pool the caller is on.
fn par_sum(n: u64) -> u64 {
    (0..n).into_par_iter().map(|x| x * 2).sum()
}

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

/// A panic whose payload is a token (whose own drop may panic).
fn throw(ledger: &Arc<Ledger>, bomb: bool) -> ! {
    panic::panic_any(Token::new(ledger, bomb))
}

fn is_token(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.is::<Token>()
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

/// Counts per task: each must reach exactly one.
struct Runs {
    runs: Vec<AtomicUsize>,
}

impl Runs {
    fn new(n: usize) -> Arc<Runs> {
        Arc::new(Runs {
            runs: (0..n).map(|_| AtomicUsize::new(0)).collect(),
        })
    }
    fn run(&self, i: usize) {
        assert_eq!(self.runs[i].fetch_add(1, Relaxed), 0, "task {i} ran twice");
    }
    fn all_once(&self) -> bool {
        self.runs.iter().all(|r| r.load(Acquire) == 1)
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

/// Tasks spawned, at every priority, from inside `block_in_place` on a
/// pool with bounded deques (the spare holds the worker's place), joined
/// and scoped there too, then more after it returns; a panic inside `f`
/// reaches the caller. Every task runs once.
fn blocking_spawn_round(seed: u64) {
    let mut rng = Rng(seed * 0x94D0_49BB + 5);
    let ledger = Arc::new(Ledger::default());
    let (a, b) = pools(&ledger, &mut rng);
    let n = 48;
    let once = Runs::new(n);
    let (o, a2, b2) = (once.clone(), a.clone(), b.clone());
    let levels = [
        Priority::Low,
        Priority::Normal,
        Priority::High,
        Priority::Critical,
    ];
    let h = a.submit(move || {
        let spawn = |i: usize| {
            let o = o.clone();
            let body = move || o.run(i);
            match i % 5 {
                4 => stealpool::spawn(body),
                k => a2.spawn_with_priority(levels[k], body),
            }
        };
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            block_in_place(|| {
                for i in 0..n / 2 {
                    spawn(i);
                }
                let (x, y) = stealpool::join(|| par_sum(30), || b2.install(|| par_sum(30)));
                assert_eq!(x, y);
                stealpool::scope(|s| {
                    s.spawn(|_| block_in_place(|| spawn(n / 2)));
                });
                panic!("{EXPECTED} inside block_in_place");
            })
        }));
        assert!(is_expected(&*r.expect_err("the panic was lost")));
        for i in n / 2 + 1..n {
            spawn(i);
        }
    });
    h.join().unwrap();
    a.wait_all();
    assert!(once.all_once(), "seed {seed}");
    drop(a);
    drop(b);
}

#[test]
fn spawns_from_inside_block_in_place_on_bounded_deques() {
    quiet_expected_panics_or(is_token);
    let seeds = seeds();
    for seed in 5 * seeds.start..5 * seeds.end {
        blocking_spawn_round(seed);
    }
}

/// Waits with no spare to be had (`max_blocking_threads(0)`, one worker
/// per pool), of the kinds that need none: a task joins handles of its own
/// pool still queued at every priority (they run in place) and waits on
/// the other pool (it runs its own pool's jobs meanwhile) while that pool's
/// task joins a task queued here; continuations and `when_all` of both
/// pools gathered meanwhile; bounded deques on one pool, a join limit on
/// the other.
fn no_spare_round(seed: u64) {
    let mut rng = Rng(seed * 0xBF58_476D + 13);
    let bounded = rng.below(2) == 0;
    let a = Arc::new(
        ThreadPool::builder()
            .num_threads(1)
            .bounded_steals(bounded)
            .max_blocking_threads(0)
            .build()
            .unwrap(),
    );
    let b = Arc::new(
        ThreadPool::builder()
            .num_threads(1)
            .max_pending_joins(1)
            .max_blocking_threads(0)
            .build()
            .unwrap(),
    );
    let (a2, b2) = (a.clone(), b.clone());
    let levels = [
        Priority::Low,
        Priority::Normal,
        Priority::High,
        Priority::Critical,
    ];
    let total = a.submit(move || {
        let mut sum = 0;
        let mut gathered = Vec::new();
        for (k, &level) in levels.iter().enumerate() {
            // Queued behind this task on the only worker: joined, it runs
            // in place.
            let own = a2.submit_with_priority(level, move || k as u64);
            sum += own.join().unwrap();
            let h = a2.submit_with_priority(level, move || k as u64);
            let c = a2
                .submit_with_priority(levels[3 - k], move || 10u64)
                .then(|x| x + 1);
            let a3 = a2.clone();
            // A wait on `a` from `b`'s worker, then one on `b` from here:
            // each pool runs its own jobs meanwhile.
            let across = b2.submit(move || a3.submit(|| 100u64).join().unwrap());
            gathered.push(a2.when_all([h, c, across]).then(|v| v.iter().sum::<u64>()));
            let (x, y) = b2.join(|| par_sum(10), || a2.install(|| par_sum(10)));
            assert_eq!(x, y);
        }
        (sum, gathered)
    });
    let (sum, gathered) = total.join().unwrap();
    assert_eq!(sum, 1 + 2 + 3, "seed {seed}");
    for (k, all) in gathered.into_iter().enumerate() {
        assert_eq!(all.join().unwrap(), k as u64 + 111, "seed {seed}");
    }
}

#[test]
fn waits_with_no_spare_thread() {
    let seeds = seeds();
    for seed in 5 * seeds.start..5 * seeds.end {
        no_spare_round(seed);
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
