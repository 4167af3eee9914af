//! The code and `proofs/` name each other: every proof step (a heading such
//! as `### D3 — ...`) is cited in `src/`, every step `src/` cites exists,
//! and every atomic operation and barrier outside the sync facade and the
//! tests has a step cited on its line or in the eight lines above it (its
//! comment). A renamed step, a new atomic without its reason, or a proof
//! step the code no longer cites fails here; so does a weakening or bug
//! flag that `proofs/orderings.md` gives no row with a verdict.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// How far above an atomic operation its comment may start.
const COMMENT_WINDOW: usize = 8;

/// Operations whose ordering is a proof step's business.
const OPERATIONS: &[&str] = &[
    ".load(",
    ".store(",
    ".swap(",
    ".compare_exchange(",
    ".compare_exchange_weak(",
    ".fetch_add(",
    ".fetch_sub(",
    ".fetch_or(",
    ".fetch_and(",
    ".fetch_xor(",
    ".fetch_max(",
    ".fetch_min(",
    ".fetch_update(",
    "fence(",
    "barrier(",
    "barrier_known(",
];

/// The facade implements the orderings and barriers the rest cites; its
/// operations are the mechanism, not a use of it.
const FACADE: &[&str] = &["src/sync/mod.rs", "src/sync/flags.rs"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, extension: &str, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files(&path, extension, out);
        } else if path.extension().is_some_and(|e| e == extension) {
            out.push(path);
        }
    }
    out.sort();
}

/// Words shaped like a proof step: one capital letter and one or two
/// digits, except `C11`, the memory model's name (`proofs/README.md`).
fn step_ids(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|word| {
        let mut chars = word.chars();
        chars.next().is_some_and(|c| c.is_ascii_uppercase())
            && (2..=3).contains(&word.len())
            && chars.all(|c| c.is_ascii_digit())
            && *word != "C11"
    })
}

/// Steps defined by `proofs/`: the ID a heading starts with.
fn defined_steps() -> BTreeMap<String, PathBuf> {
    let mut proofs = Vec::new();
    files(&root().join("proofs"), "md", &mut proofs);
    let mut steps = BTreeMap::new();
    for path in proofs {
        let text = fs::read_to_string(&path).expect("a proof file");
        for line in text.lines().filter(|l| l.starts_with('#')) {
            let title = line.trim_start_matches('#').trim_start();
            let first = title.split(|c: char| !c.is_ascii_alphanumeric()).next();
            if let Some(id) = first.filter(|w| step_ids(w).next() == Some(*w)) {
                let before = steps.insert(id.to_string(), path.clone());
                assert!(
                    before.is_none(),
                    "step {id} has two headings: {} and {}",
                    before.unwrap().display(),
                    path.display()
                );
            }
        }
    }
    steps
}

/// The crate's source files, each with whether it is test code.
fn sources() -> Vec<(PathBuf, String)> {
    let mut paths = Vec::new();
    files(&root().join("src"), "rs", &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let text = fs::read_to_string(&p).expect("a source file");
            (p, text)
        })
        .collect()
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The part of a line that is a comment, if any.
fn comment(line: &str) -> Option<&str> {
    line.find("//").map(|at| &line[at..])
}

/// Lines of non-test code: a file named `tests.rs` is test code, and so is
/// everything from a `#[cfg(...test...)]` on a `mod` to the end of a file.
fn code_lines(text: &str, path: &Path) -> usize {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return 0;
    }
    let lines: Vec<&str> = text.lines().collect();
    for (i, pair) in lines.windows(2).enumerate() {
        let attribute = pair[0].trim_start();
        if attribute.starts_with("#[cfg(")
            && attribute.contains("test")
            && pair[1].trim_start().starts_with("mod ")
        {
            return i;
        }
    }
    lines.len()
}

#[test]
fn every_proof_step_is_cited_by_the_code() {
    let steps = defined_steps();
    assert!(
        steps.len() >= 50,
        "only {} steps found in proofs/: the heading format changed?",
        steps.len()
    );
    let mut cited = BTreeSet::new();
    for (_, text) in sources() {
        for line in text.lines() {
            if let Some(comment) = comment(line) {
                cited.extend(step_ids(comment).map(str::to_string));
            }
        }
    }
    let uncited: Vec<String> = steps
        .iter()
        .filter(|(id, _)| !cited.contains(*id))
        .map(|(id, file)| format!("{id} ({})", relative(file)))
        .collect();
    assert!(uncited.is_empty(), "proof steps no code cites: {uncited:?}");
}

#[test]
fn every_step_the_code_cites_exists() {
    let steps = defined_steps();
    let mut unknown = Vec::new();
    for (path, text) in sources() {
        for (number, line) in text.lines().enumerate() {
            for id in comment(line).into_iter().flat_map(step_ids) {
                if !steps.contains_key(id) {
                    unknown.push(format!("{}:{}: {id}", relative(&path), number + 1));
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "steps cited but defined nowhere in proofs/: {unknown:?}"
    );
}

#[test]
fn every_atomic_operation_cites_a_step() {
    let steps = defined_steps();
    let mut checked = 0;
    let mut bare = Vec::new();
    for (path, text) in sources() {
        let name = relative(&path);
        if FACADE.contains(&name.as_str()) {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        for number in 0..code_lines(&text, &path) {
            let code = lines[number].split("//").next().unwrap_or("");
            let is_atomic = OPERATIONS.iter().any(|op| {
                code.match_indices(op).any(|(at, _)| {
                    let preceded_by_word = code[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
                    // An ordering or barrier argument is a constant or a
                    // path (`RELAXED`, `Ordering::SeqCst`); a slice's
                    // `swap(i, j)` has neither.
                    let arguments = &code[at + op.len()..];
                    let names_a_constant = arguments
                        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .any(|w| w.starts_with(|c: char| c.is_ascii_uppercase()));
                    (op.starts_with('.') || !preceded_by_word) && names_a_constant
                })
            });
            if !is_atomic {
                continue;
            }
            checked += 1;
            let first = number.saturating_sub(COMMENT_WINDOW);
            let cites = lines[first..=number]
                .iter()
                .filter_map(|l| comment(l))
                .flat_map(step_ids)
                .any(|id| steps.contains_key(id));
            if !cites {
                bare.push(format!("{name}:{}: {}", number + 1, lines[number].trim()));
            }
        }
    }
    assert!(
        checked >= 100,
        "only {checked} atomic operations found in src/: the scan is broken?"
    );
    assert!(
        bare.is_empty(),
        "atomic operations with no proof step cited within {COMMENT_WINDOW} lines above:\n{}",
        bare.join("\n")
    );
}

/// The mutation switches the code declares: every `weakened "NAME"` of an
/// `orderings!` table and every name of `bug!` in `src/sync/flags.rs`.
fn declared_flags(sources: &[(PathBuf, String)]) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for (path, text) in sources {
        for line in text.lines().filter(|line| comment(line).is_none()) {
            if let Some(at) = line.find("weakened \"") {
                let name = &line[at + "weakened \"".len()..];
                flags.insert(name[..name.find('"').expect("a closed name")].to_owned());
            }
            if relative(path) == "src/sync/flags.rs" {
                if let Some(rest) = line.trim_start().strip_prefix("(\"") {
                    if let Some(end) = rest.find("\") =>") {
                        flags.insert(rest[..end].to_owned());
                    }
                }
            }
        }
    }
    flags
}

/// The flags of `declared` with no table row in `orderings` that names
/// the flag in its mutant column and gives a verdict.
fn flags_without_a_row(declared: &BTreeSet<String>, orderings: &str) -> Vec<String> {
    let mut rows = BTreeSet::new();
    for line in orderings.lines().filter(|line| line.starts_with('|')) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let verdict = cells
            .iter()
            .any(|cell| cell.contains("caught") || *cell == "timeout");
        if let (true, Some(name)) = (verdict, cells.get(2)) {
            rows.insert(name.trim_matches('`').to_owned());
        }
    }
    declared
        .iter()
        .filter(|flag| !rows.contains(*flag))
        .cloned()
        .collect()
}

#[test]
fn every_flag_has_a_row_with_a_verdict() {
    let sources = sources();
    let declared = declared_flags(&sources);
    assert!(
        declared.len() > 80,
        "only {} flags declared in src/: the scan is broken?",
        declared.len()
    );
    assert!(declared.contains("steal_cas") && declared.contains("finished_early"));
    let orderings = fs::read_to_string(root().join("proofs/orderings.md")).expect("proofs/orderings.md");
    let missing = flags_without_a_row(&declared, &orderings);
    assert!(
        missing.is_empty(),
        "flags with no row and verdict in proofs/orderings.md (run them: model/scripts/mutants.sh --write NAME, \
         or add a row for the checker that sees them): {missing:?}"
    );
    // The check has teeth: a flag whose row is gone, or has no verdict, is reported.
    let planted: BTreeSet<String> = ["steal_cas".to_owned()].into();
    assert_eq!(
        flags_without_a_row(&planted, "| D9 | `steal_cas` | weaken | Release | - |"),
        ["steal_cas"]
    );
    assert!(flags_without_a_row(&planted, "| D9 | `steal_cas` | weaken | Release | not caught |").is_empty());
}
