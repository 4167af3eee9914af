//! Sorts random `u64`s with the pool's parallel quicksort
//! (`ThreadPool::sort_unstable`, parallel partitions) and checks the result
//! against `slice::sort_unstable`.
//!
//! ```sh
//! cargo run --release --example quicksort -- --threads 2 --size 10000000
//! ```

#[path = "common/cli.rs"]
mod cli;

use stealpool::ThreadPool;

const ABOUT: &str = "Sorts random u64s with ThreadPool::sort_unstable (parallel quicksort) and checks \
the result against slice::sort_unstable.";

fn random(n: usize, mut x: u64) -> Vec<u64> {
    (0..n)
        .map(|_| {
            // xorshift64*
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        })
        .collect()
}

fn main() {
    let args = cli::Args::parse(ABOUT, &[cli::THREADS, cli::SIZE_10M]);
    let threads = args.threads();
    let size: usize = args.get("size", 10_000_000);
    let pool = ThreadPool::new(threads);
    let input = random(size, 0x5EED);

    let mut expected = input.clone();
    let ((), sequential) = cli::timed(|| expected.sort_unstable());
    let mut v = input;
    let ((), parallel) = cli::timed(|| pool.sort_unstable(&mut v));
    assert!(
        v == expected,
        "the parallel sort differs from slice::sort_unstable"
    );

    cli::report(
        &format!("quicksort of {size} random u64: same result as slice::sort_unstable"),
        sequential,
        parallel,
        threads,
    );
}
