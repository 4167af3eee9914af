//! A blocked matrix product as a task graph: one task per block product
//! `A[i][k] * B[k][j]`, a `when_all` + `then` per block of `C` that sums its
//! products, and one `when_all` that assembles `C`. Nothing blocks between
//! the tasks: each sum runs when its last product is ready. The result is
//! checked against a sequential product.
//!
//! ```sh
//! cargo run --release --example task_graph -- --threads 2 --size 384 --block 64
//! ```

#[path = "common/cli.rs"]
mod cli;

use std::sync::Arc;
use stealpool::ThreadPool;

/// A square matrix of `i64`, row-major.
#[derive(Clone, PartialEq, Debug)]
struct Matrix {
    n: usize,
    values: Vec<i64>,
}

impl Matrix {
    fn random(n: usize, mut x: u64) -> Matrix {
        let values = (0..n * n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 201) as i64 - 100
            })
            .collect();
        Matrix { n, values }
    }

    /// The `b × b` block at block row `i`, block column `j`.
    fn block(&self, i: usize, j: usize, b: usize) -> Vec<i64> {
        let mut block = Vec::with_capacity(b * b);
        for row in i * b..(i + 1) * b {
            block.extend_from_slice(&self.values[row * self.n + j * b..row * self.n + (j + 1) * b]);
        }
        block
    }

    fn product(&self, other: &Matrix) -> Matrix {
        let n = self.n;
        let mut values = vec![0; n * n];
        for i in 0..n {
            for k in 0..n {
                let a = self.values[i * n + k];
                for j in 0..n {
                    values[i * n + j] += a * other.values[k * n + j];
                }
            }
        }
        Matrix { n, values }
    }
}

/// `a * b` for two `b × b` blocks.
fn block_product(a: &[i64], b: &[i64], size: usize) -> Vec<i64> {
    let mut out = vec![0; size * size];
    for i in 0..size {
        for k in 0..size {
            let x = a[i * size + k];
            for j in 0..size {
                out[i * size + j] += x * b[k * size + j];
            }
        }
    }
    out
}

/// The product as a task graph on `pool`.
fn graph_product(pool: &ThreadPool, a: &Arc<Matrix>, b: &Arc<Matrix>, block: usize) -> Matrix {
    let n = a.n;
    let blocks = n / block;
    let mut c_blocks = Vec::with_capacity(blocks * blocks);
    for i in 0..blocks {
        for j in 0..blocks {
            let products: Vec<_> = (0..blocks)
                .map(|k| {
                    let (a, b) = (a.clone(), b.clone());
                    pool.submit(move || block_product(&a.block(i, k, block), &b.block(k, j, block), block))
                })
                .collect();
            // Runs when the last product of block (i, j) is ready.
            c_blocks.push(pool.when_all(products).then(move |products| {
                let mut sum = vec![0; block * block];
                for product in products {
                    for (s, p) in sum.iter_mut().zip(product) {
                        *s += p;
                    }
                }
                sum
            }));
        }
    }
    let assembled = pool.when_all(c_blocks).then(move |c_blocks| {
        let mut values = vec![0; n * n];
        for (index, c) in c_blocks.iter().enumerate() {
            let (i, j) = (index / blocks, index % blocks);
            for row in 0..block {
                let start = (i * block + row) * n + j * block;
                values[start..start + block].copy_from_slice(&c[row * block..(row + 1) * block]);
            }
        }
        Matrix { n, values }
    });
    assembled.join().expect("a block task panicked")
}

fn main() {
    let args = cli::Args::parse(
        "A blocked matrix product as a task graph (when_all + then), checked against a sequential \
         product.",
        &[
            cli::THREADS,
            cli::opt("size", "N", "the matrices are N x N (default 384)"),
            cli::opt("block", "N", "blocks are N x N (default 64)"),
        ],
    );
    let threads = args.threads();
    let size: usize = args.get("size", 384);
    let block: usize = args.get("block", 64);
    if block == 0 || size % block != 0 {
        eprintln!("--size must be a multiple of --block");
        std::process::exit(2);
    }
    let pool = ThreadPool::new(threads);
    let a = Arc::new(Matrix::random(size, 0x5EED));
    let b = Arc::new(Matrix::random(size, 0xBEEF));

    let (expected, sequential) = cli::timed(|| a.product(&b));
    let (c, parallel) = cli::timed(|| graph_product(&pool, &a, &b, block));
    assert!(
        c == expected,
        "the task graph's product differs from the sequential one"
    );

    let blocks = size / block;
    cli::report(
        &format!(
            "{size}x{size} matrix product as a task graph: {} block products, {} sums, 1 assembly \
             (when_all + then, nothing blocks): same result as the sequential product",
            blocks * blocks * blocks,
            blocks * blocks
        ),
        sequential,
        parallel,
        threads,
    );
}
