//! Word frequency over generated text, with the parallel iterators:
//! `par_split_whitespace().fold(HashMap::new, ...).reduce(HashMap::new, ...)`,
//! checked against the sequential count.
//!
//! ```sh
//! cargo run --release --example word_freq
//! cargo run --release --example word_freq -- --words 5000000 --threads 2 --top 5
//! ```

// The parallel iterators need the global pool, which the model checkers'
// builds leave out.
#![cfg_attr(any(feature = "loom", feature = "shuttle"), allow(dead_code, unused_imports))]

#[path = "common/text.rs"]
mod text;

use std::collections::HashMap;
use std::process::exit;
use std::time::{Duration, Instant};
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
use stealpool::prelude::*;
use stealpool::ThreadPool;

const USAGE: &str = "usage: word_freq [--words N] [--threads N] [--top N] [--seed N]

Counts word frequencies in N generated words (default 2000000) on a pool of
--threads workers (default: one per core) and prints the --top (default 10)
most frequent words, and the best of three times taken, in parallel and
sequentially.";

struct Options {
    words: usize,
    threads: usize,
    top: usize,
    seed: u64,
}

fn parse_options() -> Options {
    let mut options = Options {
        words: 2_000_000,
        threads: 0,
        top: 10,
        seed: 42,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--help" || arg == "-h" {
            println!("{USAGE}");
            exit(0);
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) => (name.to_string(), Some(value.to_string())),
            None => (arg.clone(), None),
        };
        if !["--words", "--threads", "--top", "--seed"].contains(&name.as_str()) {
            eprintln!("word_freq: unknown argument {arg:?}\n\n{USAGE}");
            exit(2);
        }
        let value = inline.or_else(|| args.next()).unwrap_or_default();
        let Ok(n) = value.parse::<u64>() else {
            eprintln!("word_freq: {name} needs a whole number, not {value:?}\n\n{USAGE}");
            exit(2);
        };
        match name.as_str() {
            "--words" => options.words = n as usize,
            "--threads" => options.threads = n as usize,
            "--top" => options.top = n as usize,
            _ => options.seed = n,
        }
    }
    options
}

/// Adds `b`'s counts to `a`'s.
fn merge<'a>(mut a: HashMap<&'a str, usize>, b: HashMap<&'a str, usize>) -> HashMap<&'a str, usize> {
    for (word, count) in b {
        *a.entry(word).or_insert(0) += count;
    }
    a
}

#[cfg(any(feature = "loom", feature = "shuttle"))]
fn main() {
    eprintln!("word_freq: not built under a model checker");
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn main() {
    let options = parse_options();
    let text = text::generate(options.words, options.seed);
    let pool = ThreadPool::new(options.threads);

    let parallel_count = || {
        pool.install(|| {
            text.par_split_whitespace()
                .fold(HashMap::new, |mut counts, word| {
                    *counts.entry(word).or_insert(0) += 1;
                    counts
                })
                .reduce(HashMap::new, merge)
        })
    };
    let sequential_count = || {
        let mut counts = HashMap::new();
        for word in text.split_whitespace() {
            *counts.entry(word).or_insert(0) += 1;
        }
        counts
    };
    // Best of three, taking turns, so neither side alone pays for the
    // first touch of memory.
    let (mut parallel, mut sequential) = (Duration::MAX, Duration::MAX);
    let (mut counts, mut sequential_counts) = (HashMap::new(), HashMap::new());
    for _ in 0..3 {
        let start = Instant::now();
        counts = parallel_count();
        parallel = parallel.min(start.elapsed());
        let start = Instant::now();
        sequential_counts = sequential_count();
        sequential = sequential.min(start.elapsed());
    }
    assert_eq!(
        counts, sequential_counts,
        "the parallel count differs from the sequential one"
    );

    let mut ranked: Vec<(&str, usize)> = counts.into_iter().collect();
    ranked.par_sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    println!(
        "{} words ({:.1} MB), {} distinct, on {} workers",
        options.words,
        text.len() as f64 / 1e6,
        ranked.len(),
        pool.num_workers()
    );
    for (word, count) in ranked.iter().take(options.top) {
        println!("  {count:>9}  {word}");
    }
    println!(
        "parallel {:.1} ms, sequential {:.1} ms, speedup {:.2}x",
        parallel.as_secs_f64() * 1e3,
        sequential.as_secs_f64() * 1e3,
        sequential.as_secs_f64() / parallel.as_secs_f64()
    );
}
