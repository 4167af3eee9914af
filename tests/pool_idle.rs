#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Idle workers sleep, and sleeping workers wake for new work.
//!
//! * An idle pool uses about no CPU: measured with `getrusage` over a second
//!   of sleep after a burst of work.
//! * No lost wake-up: work submitted after the pool has gone (or is going)
//!   to sleep runs without any further submission, many times over, from
//!   outside and from inside the pool.
//!
//! CPU time is per process, so the tests of this file run one at a time.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};
use stealpool::ThreadPool;

mod common;
use common::{fib, scaled, wait_for, DEADLINE};

/// Serializes this file's tests: the CPU measurement is process-wide.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A xorshift64* generator.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// User plus system CPU time of the whole process so far.
#[cfg(not(miri))]
fn process_cpu_time() -> Duration {
    // SAFETY: `getrusage` fills the zeroed struct we pass and reads nothing.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, &mut usage), 0);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// Some of every kind of work, so that every worker has been busy, has
/// searched, and has gone back to sleep afterwards.
fn burst(pool: &ThreadPool) {
    let done = Arc::new(AtomicUsize::new(0));
    for _ in 0..10_000 {
        let done = done.clone();
        pool.spawn(move || {
            done.fetch_add(1, Relaxed);
        });
    }
    assert_eq!(fib(pool, 18), 2584);
    let mut parts = [0u64; 8];
    pool.scope(|s| {
        for (i, part) in parts.iter_mut().enumerate() {
            s.spawn(move |_| *part = i as u64);
        }
    });
    pool.wait_all();
    assert_eq!(done.load(Relaxed), 10_000);
    assert_eq!(parts.iter().sum::<u64>(), 28);
}

/// Resource measurement, not speed: after `wait_all`, the workers' spinning
/// and yielding must wind down into sleep, leaving the process near 0% CPU
/// while the main thread sleeps for a second.
#[cfg(not(miri))]
#[test]
fn an_idle_pool_uses_almost_no_cpu() {
    let _serial = serial();
    let pool = ThreadPool::new(2);
    burst(&pool);
    let (cpu_before, wall) = (process_cpu_time(), Instant::now());
    thread::sleep(Duration::from_secs(1));
    let (cpu, wall) = (process_cpu_time() - cpu_before, wall.elapsed());
    let share = cpu.as_secs_f64() / wall.as_secs_f64();
    eprintln!(
        "idle pool of 2 workers: {:?} of CPU over {wall:.2?} of sleep = {:.3}% of one core",
        cpu,
        share * 100.0
    );
    assert!(share < 0.02, "an idle pool used {:.2}% of a core", share * 100.0);
    // Asleep, not gone: the pool still runs work.
    assert_eq!(pool.submit(|| 7).join().unwrap(), 7);
}

/// Waits for `n` completions on `done`, failing on a stranded task.
fn expect_completions(done: &mpsc::Receiver<()>, n: usize, what: &str) {
    for i in 0..n {
        assert!(
            done.recv_timeout(DEADLINE).is_ok(),
            "{what}: only {i} of {n} tasks ran (lost wake-up?)"
        );
    }
}

#[test]
fn work_submitted_to_a_sleeping_pool_always_runs() {
    let _serial = serial();
    let mut rng = Rng(0x1D1E_5EED);
    for workers in 1..=3 {
        let pool = Arc::new(ThreadPool::new(workers));
        let (tx, done) = mpsc::channel::<()>();
        for round in 0..scaled(150, 4) {
            // Pauses from none (workers still spinning, or on their way to
            // sleep: the race window) to long enough to be fully asleep.
            let pause = match rng.below(4) {
                0 => 0,
                1 => rng.below(200),
                2 => 1_000 + rng.below(2_000),
                _ => 5_000 + rng.below(10_000),
            };
            thread::sleep(Duration::from_micros(pause));
            let what = format!("{workers} workers, round {round}, after {pause} µs idle");
            match rng.below(4) {
                // One task from outside.
                0 => {
                    let tx = tx.clone();
                    pool.spawn(move || tx.send(()).unwrap());
                    expect_completions(&done, 1, &what);
                }
                // A burst from outside.
                1 => {
                    let n = 1 + rng.below(20) as usize;
                    for _ in 0..n {
                        let tx = tx.clone();
                        pool.spawn(move || tx.send(()).unwrap());
                    }
                    expect_completions(&done, n, &what);
                }
                // A blocking join from outside.
                2 => assert_eq!(pool.submit(move || round).join().unwrap(), round, "{what}"),
                // A task spawns a child onto its own deque and waits for it
                // without running it: another worker, asleep, must be woken
                // by that push and take the child.
                _ if workers >= 2 => {
                    let (inner, tx) = (pool.clone(), tx.clone());
                    pool.spawn(move || {
                        let child_ran = Arc::new(AtomicBool::new(false));
                        let flag = child_ran.clone();
                        inner.spawn(move || flag.store(true, Release));
                        if wait_for(&child_ran) {
                            tx.send(()).unwrap();
                        }
                    });
                    expect_completions(&done, 1, &what);
                }
                _ => {}
            }
        }
        pool.wait_all();
        drop(tx);
        Arc::try_unwrap(pool)
            .expect("finished tasks still hold the pool")
            .shutdown();
    }
}

#[test]
fn a_pool_sleeping_since_it_started_runs_its_first_task() {
    let _serial = serial();
    for _ in 0..scaled(20, 2) {
        let pool = ThreadPool::new(2);
        // Long enough for both workers to have gone to sleep.
        thread::sleep(Duration::from_millis(if cfg!(miri) { 1 } else { 20 }));
        let handle = pool.submit(|| 1);
        let (tx, rx) = mpsc::channel();
        pool.spawn(move || tx.send(()).unwrap());
        expect_completions(&rx, 1, "first task of a sleeping pool");
        assert_eq!(handle.join().unwrap(), 1);
    }
}
