//! Helpers of the parallel iterator tests (`par_iter_adapters`,
//! `par_iter_sources`, `par_iter_adapter_panics`, `par_iter_rev_allocations`).

use stealpool::ThreadPool;

/// Runs `check` on a 1-worker and a 2-worker pool.
pub fn on_pools(check: impl Fn() + Sync) {
    for workers in [1, 2] {
        ThreadPool::new(workers).install(&check);
    }
}

pub fn data(n: u64) -> Vec<u64> {
    (0..n).map(|i| i.wrapping_mul(2_654_435_761) % 1_000).collect()
}

pub const SIZES: [u64; 6] = [0, 1, 2, 7, 1_000, 3_001];
