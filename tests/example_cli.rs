//! The examples' shared command line (`examples/common/cli.rs`): declared
//! options parse, `--help` and anything undeclared are refused with the
//! reason, so a demo never silently ignores a mistyped flag.

#[path = "../examples/common/cli.rs"]
mod cli;

use cli::{Args, Error};

const OPTS: &[cli::Opt] = &[
    cli::THREADS,
    cli::opt("size", "N", "elements"),
    cli::switch("pin", "pin"),
];

fn parse(args: &[&str]) -> Result<Args, Error> {
    Args::parse_from("demo", OPTS, args.iter().map(|arg| arg.to_string()))
}

#[test]
fn declared_options_parse_in_both_spellings() {
    let args = parse(&["--size", "12", "--threads=3", "--pin"]).unwrap();
    assert_eq!(args.get("size", 0usize), 12);
    assert_eq!(args.threads(), 3);
    assert!(args.has("pin"));
    let none = parse(&[]).unwrap();
    assert_eq!(none.get("size", 7usize), 7);
    assert!(!none.has("pin"));
    assert_eq!(none.get_opt::<usize>("size"), None);
}

#[test]
fn help_and_undeclared_arguments_are_refused() {
    assert_eq!(parse(&["--help"]).unwrap_err(), Error::Help);
    assert_eq!(parse(&["--size", "1", "-h"]).unwrap_err(), Error::Help);
    assert_eq!(
        parse(&["--sizes", "1"]).unwrap_err(),
        Error::Unknown("--sizes".into())
    );
    assert_eq!(parse(&["12"]).unwrap_err(), Error::Unknown("12".into()));
    assert_eq!(
        parse(&["--size"]).unwrap_err(),
        Error::MissingValue("size".into())
    );
    assert_eq!(
        parse(&["--pin=yes"]).unwrap_err(),
        Error::UnexpectedValue("pin".into())
    );
}

#[test]
fn usage_lists_every_option_and_help() {
    let text = cli::usage("demo", "A demo.", OPTS);
    for line in ["--threads N", "--size N", "--pin", "-h, --help"] {
        assert!(text.contains(line), "{line:?} missing from:\n{text}");
    }
}

#[test]
fn figures_that_cannot_be_computed_print_as_n_a() {
    assert_eq!(cli::fixed(cli::ratio(1.0, 0.0), 2), "n/a");
    assert_eq!(cli::fixed(f64::INFINITY, 1), "n/a");
    assert_eq!(cli::fixed(cli::ratio(1.0, 4.0), 2), "0.25");
}
