//! What every demo needs: its command line (`--name value` options and
//! `--name` switches, `--help`, unknown options refused), where it writes
//! files (under cargo's `target/`), and timing.
//!
//! A demo declares its options once; the same list checks the command line
//! and prints the help:
//!
//! ```ignore
//! let args = cli::Args::parse(
//!     "Sorts a random vector.",
//!     &[cli::THREADS, cli::opt("size", "N", "elements (default 10000000)")],
//! );
//! let size: usize = args.get("size", 10_000_000);
//! ```
//!
//! `--help` (or `-h`) prints the usage and exits with 0; an option the demo
//! does not declare, a missing value or one that does not parse prints an
//! error and exits with 2.

#![allow(dead_code)] // each demo uses a subset

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One declared option: `--name VALUE`, or a switch `--name` when `value`
/// is `None`.
#[derive(Clone, Copy)]
pub struct Opt {
    pub name: &'static str,
    pub value: Option<&'static str>,
    pub help: &'static str,
}

/// An option taking a value, shown in the help as `--name VALUE`.
pub const fn opt(name: &'static str, value: &'static str, help: &'static str) -> Opt {
    Opt {
        name,
        value: Some(value),
        help,
    }
}

/// A switch: `--name`, no value.
pub const fn switch(name: &'static str, help: &'static str) -> Opt {
    Opt {
        name,
        value: None,
        help,
    }
}

/// `--threads N`, read by [`Args::threads`].
pub const THREADS: Opt = opt(
    "threads",
    "N",
    "workers; 0 (the default) is one per available core",
);

/// `--size N` of the sorting demos.
pub const SIZE_10M: Opt = opt("size", "N", "elements to sort (default 10000000)");

/// Why a command line was refused.
#[derive(Debug, PartialEq)]
pub enum Error {
    /// `--help` or `-h`.
    Help,
    /// Something that is not a declared option.
    Unknown(String),
    /// A declared option that takes a value, at the end of the line.
    MissingValue(String),
    /// A switch given a value (`--switch=x`).
    UnexpectedValue(String),
}

/// A parsed command line.
#[derive(Debug)]
pub struct Args {
    program: String,
    /// The options given, by name; a switch maps to an empty string.
    given: HashMap<&'static str, String>,
}

impl Args {
    /// Parses this process's command line against `opts`; on `--help`
    /// prints `about` and the options and exits with 0; on an error prints
    /// it and exits with 2.
    pub fn parse(about: &str, opts: &[Opt]) -> Args {
        let mut args = std::env::args();
        let program = args.next().unwrap_or_default();
        let program = std::path::Path::new(&program)
            .file_name()
            .map_or(program.clone(), |name| name.to_string_lossy().into_owned());
        match Args::parse_from(&program, opts, args) {
            Ok(args) => args,
            Err(Error::Help) => {
                print!("{}", usage(&program, about, opts));
                std::process::exit(0)
            }
            Err(error) => {
                let what = match error {
                    Error::Unknown(arg) => format!("unknown argument {arg:?}"),
                    Error::MissingValue(name) => format!("--{name} needs a value"),
                    Error::UnexpectedValue(name) => format!("--{name} takes no value"),
                    Error::Help => unreachable!(),
                };
                eprintln!("{program}: {what}\nTry `{program} --help` for the options.");
                std::process::exit(2)
            }
        }
    }

    /// Parses `args` (without the program name) against `opts`.
    pub fn parse_from(
        program: &str,
        opts: &[Opt],
        args: impl IntoIterator<Item = String>,
    ) -> Result<Args, Error> {
        let mut given = HashMap::new();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            if arg == "--help" || arg == "-h" {
                return Err(Error::Help);
            }
            let Some(body) = arg.strip_prefix("--") else {
                return Err(Error::Unknown(arg));
            };
            let (name, inline) = match body.split_once('=') {
                Some((name, value)) => (name, Some(value.to_string())),
                None => (body, None),
            };
            let Some(opt) = opts.iter().find(|opt| opt.name == name) else {
                return Err(Error::Unknown(arg));
            };
            let value = match (opt.value, inline) {
                (None, None) => String::new(),
                (None, Some(_)) => return Err(Error::UnexpectedValue(opt.name.into())),
                (Some(_), Some(value)) => value,
                (Some(_), None) => args.next().ok_or_else(|| Error::MissingValue(opt.name.into()))?,
            };
            given.insert(opt.name, value);
        }
        Ok(Args {
            program: program.into(),
            given,
        })
    }

    /// The value of `--name`, or `default` if it was not given. Exits with 2
    /// if the value does not parse.
    pub fn get<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        self.get_opt(name).unwrap_or(default)
    }

    /// The value of `--name` if it was given. Exits with 2 if it does not
    /// parse.
    pub fn get_opt<T: std::str::FromStr>(&self, name: &str) -> Option<T> {
        let text = self.given.get(name)?;
        Some(text.parse().unwrap_or_else(|_| {
            eprintln!("{}: --{name}: cannot parse {text:?}", self.program);
            std::process::exit(2)
        }))
    }

    /// Whether the switch (or option) `--name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.given.contains_key(name)
    }

    /// `--threads`, 0 (the default) meaning one per available core.
    pub fn threads(&self) -> usize {
        self.threads_or(0)
    }

    /// `--threads`, `default` if not given, 0 meaning one per available core.
    pub fn threads_or(&self, default: usize) -> usize {
        match self.get("threads", default) {
            0 => cores(),
            n => n,
        }
    }
}

/// The text `--help` prints.
pub fn usage(program: &str, about: &str, opts: &[Opt]) -> String {
    let mut text = format!("{about}\n\nUsage: {program} [OPTIONS]\n\nOptions:\n");
    let left = |opt: &Opt| match opt.value {
        Some(value) => format!("--{} {value}", opt.name),
        None => format!("--{}", opt.name),
    };
    let width = opts.iter().map(|opt| left(opt).len()).max().unwrap_or(0).max(10);
    for opt in opts {
        text += &format!("  {:<width$}  {}\n", left(opt), opt.help);
    }
    text += &format!("  {:<width$}  {}\n", "-h, --help", "prints this and exits");
    text
}

/// The machine's available cores.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Where a demo writes `file`: cargo's target directory (the one this
/// executable was built into, so `CARGO_TARGET_DIR` is honoured), created if
/// need be.
pub fn output_path(file: &str) -> PathBuf {
    // The executable is `<target>/<profile>/examples/<name>` (or
    // `<target>/<triple>/<profile>/examples/<name>`).
    let target = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    let dir = target.join("stealpool-examples");
    if let Err(error) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot create {}: {error}", dir.display());
        std::process::exit(1);
    }
    dir.join(file)
}

/// Runs `f` once and returns its result and how long it took.
pub fn timed<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let result = f();
    (result, start.elapsed())
}

/// `x` with `precision` decimals, or `n/a` when it is not a finite number
/// (a ratio over a zero time, a figure that was not measured).
pub fn fixed(x: f64, precision: usize) -> String {
    if x.is_finite() {
        format!("{x:.precision$}")
    } else {
        "n/a".into()
    }
}

/// `a / b`, NaN (printed `n/a` by [`fixed`]) when `b` is zero.
pub fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        f64::NAN
    } else {
        a / b
    }
}

/// Prints the sequential and parallel times and the speedup.
pub fn report(what: &str, sequential: Duration, parallel: Duration, threads: usize) {
    println!("{what}");
    println!("  sequential      {:>10.1} ms", ms(sequential));
    println!("  {threads:>2} workers      {:>10.1} ms", ms(parallel));
    println!(
        "  speedup         {:>10}x",
        fixed(ratio(sequential.as_secs_f64(), parallel.as_secs_f64()), 2)
    );
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
