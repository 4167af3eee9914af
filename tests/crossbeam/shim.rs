//! The shim that runs crossbeam-deque's own tests against this crate.
//!
//! A copied test file replaces `crossbeam_deque::` by `crate::shim::` in its
//! `use` lines and nothing else. This module offers what those tests name:
//! `Injector`, `Steal`, `Stealer` and `Worker` are this crate's own, with
//! no restriction on the element type. Crossbeam's workers come in two
//! flavors; this crate's `Worker` is crossbeam's LIFO one, so `new_lifo` is
//! `Worker::new`. There is no FIFO flavor: `new_fifo` also makes a LIFO
//! worker, which is what the tests that only count what they pop need; a
//! test whose assertions are about the FIFO flavor's order is marked
//! `#[ignore]` in its copy, with the reason.
//!
//! `rand` is the subset the copies call (`thread_rng().gen_range(a..b)`),
//! a xorshift with a fixed seed per call of `thread_rng` (no clock, which
//! Miri's isolation refuses), so the tests need no dependency.

#![allow(dead_code, unused_imports)]

pub use stealpool::deque::{Injector, Steal, Stealer, Worker};

/// Crossbeam's flavored constructors.
pub trait Flavors {
    /// Crossbeam's LIFO worker: this crate's `Worker`.
    fn new_lifo() -> Self;
    /// Crossbeam's FIFO worker, which this crate does not have: a LIFO one.
    fn new_fifo() -> Self;
}

impl<T> Flavors for Worker<T> {
    fn new_lifo() -> Self {
        Worker::new()
    }
    fn new_fifo() -> Self {
        Worker::new()
    }
}

pub mod rand {
    use std::cell::Cell;
    use std::ops::Range;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    static SEEDS: AtomicU64 = AtomicU64::new(0x9E37_79B9_7F4A_7C15);

    pub struct ThreadRng(Cell<u64>);

    pub fn thread_rng() -> ThreadRng {
        let seed = SEEDS.fetch_add(0x2545_F491_4F6C_DD1D, Relaxed) | 1;
        ThreadRng(Cell::new(seed))
    }

    impl ThreadRng {
        pub fn gen_range(&mut self, range: Range<usize>) -> usize {
            let mut x = self.0.get();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0.set(x);
            if range.is_empty() {
                return range.start;
            }
            range.start + (x % (range.end - range.start) as u64) as usize
        }
    }
}
