//! Helpers the real-thread test files share: `mod common;` in each.
//!
//! Not every file uses every helper, hence the `dead_code` allowance.
#![allow(dead_code)]

pub mod combined;
pub mod par_iter;
pub mod pool;
pub mod priority;
pub mod stress;

use std::any::Any;
use std::future::Future;
use std::panic;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering::Acquire};
use std::sync::{Arc, Once};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant};

/// Every panic the tests cause on purpose carries this text.
pub const EXPECTED: &str = "expected panic";

/// Bounds a wait that must end, so a bug fails the test instead of hanging
/// it (Miri runs thousands of times slower).
pub const DEADLINE: Duration = Duration::from_secs(if cfg!(miri) { 600 } else { 30 });

/// `full` on real hardware, `miri` under Miri.
pub const fn scaled(full: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}

/// Runs `f` on a thread of its own and fails the test if it has not
/// returned within the watchdog's bound: 300 s, far past any run that is
/// not stuck (a stall's report comes within a re-check period or two,
/// 200 ms each), or `STEALPOOL_WATCHDOG_SECONDS`, which
/// `model/scripts/thread_mutants.sh` shortens for builds that must hang.
pub fn finishes<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let seconds = std::env::var("STEALPOOL_WATCHDOG_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let (done, result) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let _ = done.send(f());
    });
    match result.recv_timeout(Duration::from_secs(seconds)) {
        Ok(value) => value,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: no result after {seconds} s: a stall nobody reported, or a deadlock")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            panic!("{what}: the run panicked (its message is above)")
        }
    }
}

/// A pool of one worker with no spare slot: its waits get no stand-in.
pub fn one_worker_no_spare() -> Arc<stealpool::ThreadPool> {
    Arc::new(
        stealpool::ThreadPool::builder()
            .num_threads(1)
            .max_blocking_threads(0)
            .build()
            .unwrap(),
    )
}

/// The text of a string panic payload, or `None`.
pub fn message(payload: &(dyn Any + Send)) -> Option<String> {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
}

/// Keeps the panics caused on purpose (their message contains [`EXPECTED`])
/// off stderr, so that a real failure is not buried; other panics, such as
/// failed assertions, are reported as usual.
pub fn quiet_expected_panics() {
    quiet_expected_panics_or(|_| false);
}

/// As [`quiet_expected_panics`], also keeping quiet the payloads `also`
/// accepts (a test's own payload types). The first call in a test binary
/// installs the hook.
pub fn quiet_expected_panics_or(also: fn(&(dyn Any + Send)) -> bool) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let expected = message(payload).is_some_and(|m| m.contains(EXPECTED)) || also(payload);
            if !expected {
                default(info);
            }
        }));
    });
}

/// The smallest executor: polls on this thread, parking until woken.
pub fn block_on<F: Future>(future: F) -> F::Output {
    struct ThreadWaker(thread::Thread);
    impl Wake for ThreadWaker {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => thread::park(),
        }
    }
}

/// Spins (yielding) until `flag` is set or [`DEADLINE`] passes; returns
/// whether it was set.
pub fn wait_for(flag: &AtomicBool) -> bool {
    let start = Instant::now();
    while !flag.load(Acquire) {
        if start.elapsed() > DEADLINE {
            return false;
        }
        thread::yield_now();
    }
    true
}

/// A xorshift generator: cheap, and a different fixed seed per thread.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// `true` once in `n` calls on average.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.next() % n == 0
    }
}

/// fib(`n`) with a `join` at every call and no cutoff.
pub fn fib(pool: &stealpool::ThreadPool, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = pool.join(|| fib(pool, n - 1), || fib(pool, n - 2));
    a + b
}

/// A one-shot gate: tasks block on it until the test opens it, which holds
/// them in a known state (queued, running) while the test looks.
#[derive(Default)]
pub struct Gate {
    open: std::sync::Mutex<bool>,
    opened: std::sync::Condvar,
}

impl Gate {
    pub fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }

    pub fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
    }
}
