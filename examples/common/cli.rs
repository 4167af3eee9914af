//! What every demo needs: `--name value` options and timing.

#![allow(dead_code)] // each demo uses a subset

use std::time::{Duration, Instant};

/// The value of `--name value` (or `--name=value`) on the command line, or
/// `default`. Exits with a message if the value does not parse.
pub fn option<T: std::str::FromStr>(name: &str, default: T) -> T {
    let flag = format!("--{name}");
    let args: Vec<String> = std::env::args().collect();
    let value = args.iter().enumerate().find_map(|(i, arg)| {
        if *arg == flag {
            Some(args.get(i + 1).cloned().unwrap_or_default())
        } else {
            arg.strip_prefix(&format!("{flag}=")).map(str::to_string)
        }
    });
    match value {
        None => default,
        Some(text) => text.parse().unwrap_or_else(|_| {
            eprintln!("{flag}: cannot parse {text:?}");
            std::process::exit(2)
        }),
    }
}

/// `--threads`, 0 (the default) meaning one per available core.
pub fn threads() -> usize {
    match option("threads", 0usize) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Runs `f` once and returns its result and how long it took.
pub fn timed<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let result = f();
    (result, start.elapsed())
}

/// Prints the sequential and parallel times and the speedup.
pub fn report(what: &str, sequential: Duration, parallel: Duration, threads: usize) {
    println!("{what}");
    println!("  sequential      {:>10.1} ms", ms(sequential));
    println!("  {threads:>2} workers      {:>10.1} ms", ms(parallel));
    println!(
        "  speedup         {:>10.2}x",
        sequential.as_secs_f64() / parallel.as_secs_f64()
    );
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
