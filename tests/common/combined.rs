//! Helpers of the combined-feature tests (`pool_combined_cross`,
//! `pool_combined_drops`, `pool_combined_blocking`): the rounds' seeds, the
//! ledger of what a round made, ran and dropped, the tokens it counts, and
//! the pair of pools a round runs on.

use super::{message, scaled, EXPECTED};
use std::panic;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::sync::Arc;
use stealpool::prelude::*;
use stealpool::ThreadPool;

/// Rounds of each program (a fresh pair of pools each), and the seed of
/// the first: `STEALPOOL_COMBINED_ROUNDS` and `STEALPOOL_COMBINED_SEED`
/// run a longer hunt.
pub fn seeds() -> std::ops::Range<u64> {
    let var = |name: &str| std::env::var(name).ok().and_then(|s| s.parse().ok());
    let rounds = var("STEALPOOL_COMBINED_ROUNDS").unwrap_or(scaled(12, 1) as u64);
    let first = var("STEALPOOL_COMBINED_SEED").unwrap_or(0);
    first..first + rounds
}

/// What a round promised and what the pools did.
#[derive(Default)]
pub struct Ledger {
    /// Tokens made.
    pub made: AtomicUsize,
    /// Tokens dropped.
    pub dropped: AtomicUsize,
    /// Task bodies run.
    pub ran: AtomicUsize,
    /// Calls of either pool's panic handler.
    pub handled: AtomicUsize,
}

/// A value whose drop is counted, and may panic.
pub struct Token {
    pub ledger: Arc<Ledger>,
    pub bomb: bool,
    pub dropped: AtomicBool,
}

impl Token {
    pub fn new(ledger: &Arc<Ledger>, bomb: bool) -> Token {
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
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

pub fn pools(ledger: &Arc<Ledger>, rng: &mut Rng) -> (Arc<ThreadPool>, Arc<ThreadPool>) {
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
pub fn is_expected(payload: &(dyn std::any::Any + Send)) -> bool {
    message(payload).is_some_and(|m| m.contains(EXPECTED))
}

/// A sum over a parallel iterator on whatever pool the caller is on.
pub fn par_sum(n: u64) -> u64 {
    (0..n).into_par_iter().map(|x| x * 2).sum()
}

pub fn is_token(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.is::<Token>()
}

/// Counts per task: each must reach exactly one.
pub struct Runs {
    pub runs: Vec<AtomicUsize>,
}

impl Runs {
    pub fn new(n: usize) -> Arc<Runs> {
        Arc::new(Runs {
            runs: (0..n).map(|_| AtomicUsize::new(0)).collect(),
        })
    }
    pub fn run(&self, i: usize) {
        assert_eq!(self.runs[i].fetch_add(1, Relaxed), 0, "task {i} ran twice");
    }
    pub fn all_once(&self) -> bool {
        self.runs.iter().all(|r| r.load(Acquire) == 1)
    }
}
