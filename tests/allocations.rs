//! Heap allocations per operation, counted by a global allocator, after a
//! warm-up (deques and the injector keep the capacity they grew to).
//!
//! The targets: no allocation per `join`, at most one per `spawn` and
//! `submit`. Run with `--nocapture` to see the counts, rayon's beside them:
//!
//! ```sh
//! cargo test --release --test allocations -- --nocapture
//! ```
//!
//! Counts are amortized: a run that reaches a new peak of queued jobs grows a
//! deque or the injector once, which shows up as a few allocations over
//! thousands of operations. `AMORTIZED` is that allowance: 1 in 1 000, far
//! below what one more allocation per operation (1.0) would add.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use stealpool::ThreadPool;

/// Counts every allocation and reallocation, on every thread: a worker
/// that allocates on the operation's behalf counts too.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Slack for amortized buffer growth, per operation (see the module doc).
const AMORTIZED: f64 = 0.001;

/// The counter is global: tests of this file take turns.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Allocations per operation while `f` runs `ops` operations.
fn per_op(ops: usize, f: impl FnOnce()) -> f64 {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    f();
    (ALLOCATIONS.load(Ordering::Relaxed) - before) as f64 / ops as f64
}

fn fib(pool: &ThreadPool, n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = pool.join(|| fib(pool, n - 1), || fib(pool, n - 2));
    a + b
}

fn fib_rayon(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

/// Joins in `fib(20)`.
const FIB_JOINS: usize = 10_945;

#[test]
fn join_allocates_nothing() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let pool = ThreadPool::new(2);
    let rayon = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    // Warm-up: deques grow to their working size, stealing included.
    for _ in 0..20 {
        pool.install(|| fib(&pool, 20));
        rayon.install(|| fib_rayon(20));
    }
    let ours = per_op(50 * FIB_JOINS, || {
        for _ in 0..50 {
            black_box(pool.install(|| fib(&pool, 20)));
        }
    });
    let theirs = per_op(50 * FIB_JOINS, || {
        for _ in 0..50 {
            black_box(rayon.install(|| fib_rayon(20)));
        }
    });
    // `join` from outside the pool goes through `install`, with its job and
    // latch on the caller's stack.
    let outside = per_op(1000, || {
        for i in 0..1000 {
            black_box(pool.join(|| black_box(i), || black_box(i + 1)));
        }
    });
    println!("allocations per join: stealpool {ours:.5} (from outside: {outside:.3}), rayon {theirs:.5}");
    assert!(ours <= AMORTIZED, "join allocated: {ours} per join");
    assert!(
        outside <= AMORTIZED,
        "join from outside the pool allocated: {outside} per join"
    );
}

#[test]
fn spawn_allocates_once() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    const TASKS: usize = 10_000;
    let pool = ThreadPool::new(2);
    let rayon = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let spawn_all = || {
        for i in 0..TASKS {
            pool.spawn(move || {
                black_box(i);
            });
        }
        pool.wait_all();
    };
    let scope_all = || {
        pool.scope(|s| {
            for i in 0..TASKS {
                s.spawn(move |_| {
                    black_box(i);
                });
            }
        })
    };
    let rayon_all = || {
        rayon.scope(|s| {
            for i in 0..TASKS {
                s.spawn(move |_| {
                    black_box(i);
                });
            }
        })
    };
    for _ in 0..5 {
        spawn_all();
        scope_all();
        rayon_all();
    }
    let outside = per_op(TASKS, spawn_all);
    let scoped = per_op(TASKS, scope_all);
    let theirs = per_op(TASKS, rayon_all);
    println!(
        "allocations per spawn: stealpool {outside:.4} (from outside), {scoped:.4} (Scope::spawn); \
         rayon Scope::spawn {theirs:.4}"
    );
    assert!(
        outside <= 1.0 + AMORTIZED,
        "spawn from outside: {outside} allocations per task"
    );
    // A scope's tasks pile up on the deques of the 2 workers (the owner's,
    // and a thief's through batch steals), and a round that reaches a new
    // peak doubles a deque's buffer: at most log2(TASKS) times per deque
    // over the pool's life, whichever round it falls in. One allocation more
    // per task would be TASKS more.
    let growth = 2.0 * (TASKS as f64).log2().ceil() / TASKS as f64;
    assert!(
        scoped <= 1.0 + growth,
        "Scope::spawn: {scoped} allocations per task"
    );
}

/// Allocations per `submit` (and `join` of its handle), from outside.
fn submit_allocations() -> f64 {
    const TASKS: usize = 10_000;
    let pool = ThreadPool::new(2);
    let mut handles = Vec::with_capacity(TASKS);
    let mut submit_all = || {
        handles.extend((0..TASKS).map(|i| pool.submit(move || black_box(i))));
        for handle in handles.drain(..) {
            black_box(handle.join().unwrap());
        }
    };
    for _ in 0..5 {
        submit_all();
    }
    let ours = per_op(TASKS, submit_all);
    println!("allocations per submit: stealpool {ours:.4}");
    ours
}

/// The task and its result slot share one allocation, which the queue and
/// the handle each hold a reference to.
#[test]
fn submit_allocates_once() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let ours = submit_allocations();
    assert!(ours <= 1.0 + AMORTIZED, "submit: {ours} allocations per task");
}
