//! What the examples share (`examples/common/`): the command line, where
//! declared options parse and `--help` and anything undeclared are refused
//! with the reason, so a demo never silently ignores a mistyped flag; and the
//! report's summary, whose verdicts, CSV and chart are checked here on
//! figures given to it.

#[path = "../examples/common/cli.rs"]
mod cli;
#[path = "../examples/common/summary.rs"]
mod summary;

use cli::{Args, Error};
use summary::{verdict, Kind, Summary};

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

#[test]
fn verdicts_follow_the_noise_band() {
    let noise = 0.03;
    assert_eq!(
        verdict(0.41, noise, "rayon", Kind::Time),
        "faster than rayon (0.41x)"
    );
    assert_eq!(
        verdict(1.02, noise, "rayon", Kind::Time),
        "within noise of rayon (1.02x)"
    );
    assert_eq!(
        verdict(0.98, noise, "rayon", Kind::Time),
        "within noise of rayon (0.98x)"
    );
    assert_eq!(
        verdict(1.30, noise, "chili", Kind::Time),
        "slower than chili (1.30x)"
    );
    let cpu = Kind::Cpu { floor: 0.05 };
    assert_eq!(verdict(0.5, noise, "rayon", cpu), "less CPU than rayon (0.50x)");
    assert_eq!(verdict(f64::NAN, noise, "rayon", Kind::Time), "n/a");
}

fn sample() -> Summary {
    let mut summary = Summary::new(0.03);
    summary.section("[1]");
    summary.row("spawn, 2 workers", "stealpool, spawn", 2, "wall", 10.0, "ms");
    summary.row("spawn, 2 workers", "rayon, spawn", 2, "wall", 20.0, "ms");
    summary.compare("spawn, 2 workers", "rayon", 10.0, 20.0, "ms", Kind::Time);
    summary.compare("latency", "chili", 3.0, f64::NAN, "us", Kind::Time);
    summary.compare("idle CPU", "rayon", 0.0, 0.0, "% core", Kind::Cpu { floor: 0.05 });
    summary.compare(
        "busy CPU",
        "rayon",
        0.04,
        0.9,
        "% core",
        Kind::Cpu { floor: 0.05 },
    );
    summary
}

#[test]
fn the_table_has_a_verdict_per_comparison_and_no_nan() {
    let table = sample().table();
    assert!(table.contains("faster than rayon (0.50x)"), "{table}");
    assert!(
        table.contains("level with rayon: both at most 0.05 % core"),
        "{table}"
    );
    assert!(table.contains("less CPU than rayon (0.04x)"), "{table}");
    assert!(
        table.contains("0.97x to 1.03x"),
        "the thresholds are stated:\n{table}"
    );
    assert!(table.contains("n/a"), "{table}");
    assert!(!table.to_lowercase().contains("nan"), "{table}");
}

#[test]
fn the_csv_holds_every_row_and_comparison() {
    let csv = sample().csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "section,scenario,peer,workers,metric,value,unit,verdict"
    );
    // 2 measured rows, 4 comparisons.
    assert_eq!(lines.len(), 1 + 2 + 4, "{csv}");
    assert_eq!(
        lines[1],
        "[1],\"spawn, 2 workers\",\"stealpool, spawn\",2,wall,10,ms,"
    );
    assert!(
        lines[3].ends_with(",0.5,ratio,faster than rayon (0.50x)"),
        "{}",
        lines[3]
    );
    assert!(lines[4].contains(",n/a,ratio,n/a"), "{}", lines[4]);
    // Eight fields on every line: commas inside quotes do not separate.
    for line in &lines {
        let mut quoted = false;
        let separators = line
            .chars()
            .filter(|&c| {
                if c == '"' {
                    quoted = !quoted;
                }
                c == ',' && !quoted
            })
            .count();
        assert_eq!(separators, 7, "{line}");
    }
}

#[test]
fn the_chart_is_an_svg_with_a_bar_per_finite_ratio() {
    let path = std::env::temp_dir().join(format!("stealpool-chart-{}.svg", std::process::id()));
    sample().chart(&path).expect("the chart is drawn");
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.contains("spawn, 2 workers vs rayon: 0.50"));
    assert!(svg.contains("latency vs chili: n/a"));
    let empty = Summary::new(0.03);
    assert!(
        empty.chart(&path).is_err(),
        "nothing to chart is an error, not an empty file"
    );
}
