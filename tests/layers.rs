//! The layers of `src/` are kept, not only declared: every path that names
//! another module of the crate (a `use`, or a `crate::`/`super::` path in
//! code) points to the same layer or one below, and no file outside the
//! facade takes a concurrency type from `std` (so loom and shuttle see
//! every atomic, lock, cell and thread the crate uses). The cycles that
//! stay inside one layer are listed below; a new one fails until it is
//! listed here with its reason.
//!
//! The layers, bottom up (`CONTRIBUTING.md`, "Layers"):
//!
//! 1. `src/sync/`: the facade and the registry of bug and weakening flags;
//! 2. `src/lockfree/` (and `src/deque.rs`, its public face): the deques,
//!    the injector queue, the job word;
//! 3. `src/pool/placement/`: topology, affinity;
//! 4. `src/pool/queues/`: the injectors, the priority levels;
//! 5. `src/pool/kernel/`: registry, workers, waits, sleep, jobs, join,
//!    scope, spares, counters;
//! 6. `src/pool/api/`: `ThreadPool`, builder, global pool, handles,
//!    `block_in_place`;
//! 7. `src/iter/`: the data-parallel API.
//!
//! `src/lib.rs` and `src/pool/mod.rs` only declare modules and re-export;
//! `src/guide.rs` holds documentation pages.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Path prefixes of `src/`, each with its layer: the longest match wins.
const LAYERS: &[(&str, u8, &str)] = &[
    ("src/sync/", 1, "sync"),
    ("src/lockfree/", 2, "lockfree"),
    ("src/deque.rs", 2, "lockfree"),
    ("src/pool/placement/", 3, "placement"),
    ("src/pool/queues/", 4, "queues"),
    ("src/pool/kernel/", 5, "kernel"),
    ("src/pool/api/", 6, "api"),
    ("src/iter/", 7, "iter"),
    ("src/lib.rs", 8, "root"),
    ("src/pool/mod.rs", 8, "root"),
    ("src/guide.rs", 8, "root"),
];

/// Module paths of the crate, each with its layer: the longest match wins.
/// A name re-exported at the crate root takes the layer of the path
/// `src/lib.rs` re-exports it from (see `root_names`).
const MODULES: &[(&str, u8)] = &[
    ("sync", 1),
    ("lockfree", 2),
    ("deque", 2),
    ("pool::placement", 3),
    ("pool::queues", 4),
    ("pool::kernel", 5),
    ("pool::api", 6),
    ("iter", 7),
    ("prelude", 7),
];

/// Concurrency types that only the facade may take from `std`: each of
/// them has a loom and a shuttle twin in `crate::sync`.
const FACADE_ONLY: &[&str] = &[
    "std::sync::atomic",
    "core::sync::atomic",
    "std::sync::Arc",
    "std::sync::Mutex",
    "std::sync::MutexGuard",
    "std::sync::Condvar",
    "std::sync::RwLock",
    "std::sync::Barrier",
    "std::cell::UnsafeCell",
    "std::thread::spawn",
    "std::thread::park",
    "std::thread::yield_now",
    "std::thread::Builder",
    "std::thread_local",
    "std::hint::spin_loop",
];

/// Uses of those types outside the facade that are deliberate, each with
/// why no checker needs to see it: (file, the text, the reason).
const FACADE_EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "src/pool/kernel/spares.rs",
        "std::sync::Mutex",
        "SlotReturn hands a slot back from a spawn that failed: nothing ever waits on it, so it is no step of any protocol",
    ),
    ("src/pool/kernel/spares.rs", "std::sync::Arc", "SlotReturn's two ends, as above"),
    (
        "src/pool/kernel/stall.rs",
        "std::sync::Arc",
        "the stall table's sharing between pools: a reference count no protocol reads (its lock is the facade's); under loom the table lives in a thread-local dropped with its thread's locals, where a modelled count is a step after the model's end (loom: unexpected exploration state)",
    ),
    ("src/pool/kernel/registry.rs", "std::sync::Arc", "the registry's reference to that table, as above"),
    (
        "src/pool/kernel/stall.rs",
        "std::sync::atomic",
        "Y5's counter of tasks made: a number that orders the making of tasks and synchronizes nothing (coherence of its one RMW location is the whole argument), read by no protocol step; modelled, every submit in every model would be one more RMW to explore. Likewise Z5's pool stamps, read and written under the stall table's lock only",
    ),
    (
        "src/pool/api/builder.rs",
        "std::thread::Builder",
        "build_scoped starts the workers on std::thread::scope threads, as the caller's own spawn handler would: threads a handler makes are the caller's, outside every model (the models' pools start their workers with the builder's own threads, from the facade)",
    ),
];

/// Import cycles between files of one layer, allowed and stated: each is a
/// set of files that name each other.
const ALLOWED_CYCLES: &[(&[&str], &str)] = &[
    (
        &[
            "src/pool/kernel/job.rs",
            "src/pool/kernel/latch.rs",
            "src/pool/kernel/registry.rs",
            "src/pool/kernel/serving.rs",
            "src/pool/kernel/sleep/mod.rs",
            "src/pool/kernel/spares.rs",
            "src/pool/kernel/stall.rs",
            "src/pool/kernel/stats.rs",
            "src/pool/kernel/worker/mod.rs",
        ],
        "the kernel's shared state and its threads: a worker holds its registry, the registry \
         starts, counts and wakes workers and spares, latches wake through the registry's sleep \
         state and jobs set latches (as in rayon-core, registry <-> worker); the registry holds \
         per slot what a waiting worker needs run, which serving.rs reads and posts to workers; \
         it holds the stall table, which a parking wait writes and reads through its registry",
    ),
    (
        &[
            "src/lockfree/deque/mod.rs",
            "src/lockfree/element.rs",
            "src/lockfree/injector/mod.rs",
        ],
        "the deque stores words through element.rs, whose list of types that travel as one word \
         names the public injector's node, which the injector keeps on a deque",
    ),
    (
        &["src/pool/api/builder.rs", "src/pool/api/thread_pool.rs"],
        "ThreadPool::builder returns a Builder, whose build returns a ThreadPool",
    ),
    (
        &["src/iter/sort/guards.rs", "src/iter/sort/merge_sort.rs"],
        "the merge sort's unwind guard restores a run with the merge sort's own copy routine",
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/...` with forward slashes.
fn relative(path: &Path) -> String {
    let relative = path.strip_prefix(root()).expect("a path under the crate");
    relative.to_string_lossy().replace('\\', "/")
}

fn file_layer(file: &str) -> (u8, &'static str) {
    LAYERS
        .iter()
        .filter(|(prefix, _, _)| file.starts_with(prefix))
        .max_by_key(|(prefix, _, _)| prefix.len())
        .map(|&(_, layer, name)| (layer, name))
        .unwrap_or_else(|| panic!("{file} is in no layer: add its folder to LAYERS"))
}

/// The module path of a file: `src/pool/kernel/worker/mod.rs` is
/// `pool::kernel::worker`.
fn module_of(file: &str) -> Vec<String> {
    let inner = file.strip_prefix("src/").unwrap().strip_suffix(".rs").unwrap();
    let mut parts: Vec<String> = inner.split('/').map(str::to_owned).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The text with comments and string literals blanked out, so a doc link
/// or a message naming a module is not taken for an import.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            let end = text[i + 2..].find("*/").map_or(bytes.len(), |at| i + 2 + at + 2);
            out.extend(text[i..end].chars().filter(|&c| c == '\n'));
            i = end;
        } else if bytes[i] == b'"' && !text[..i].ends_with('\'') {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                if bytes[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Every path a `use` declaration names, its groups expanded.
fn use_paths(code: &str) -> Vec<String> {
    fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let base = tree[..open].trim().trim_end_matches("::");
            let joined = if prefix.is_empty() {
                base.to_owned()
            } else {
                format!("{prefix}::{base}")
            };
            let inner = &tree[open + 1..tree.rfind('}').expect("a closed use group")];
            let (mut depth, mut start) = (0, 0);
            for (at, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&joined, &inner[start..at], out);
                        start = at + 1;
                    }
                    _ => {}
                }
            }
            expand(&joined, &inner[start..], out);
        } else if !tree.is_empty() {
            let name = tree.split(" as ").next().unwrap().trim();
            let path = if name == "self" {
                prefix.to_owned()
            } else if prefix.is_empty() {
                name.to_owned()
            } else {
                format!("{prefix}::{name}")
            };
            out.push(path);
        }
    }
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest.find(';').unwrap_or(rest.len());
        expand("", &rest[..end], &mut out);
        rest = &rest[end..];
    }
    out
}

/// Every `crate::`, `super::` or `self::` path written in code outside a
/// `use` (a call, a type, a macro), but not in a `pub(in ...)`.
fn inline_paths(code: &str) -> Vec<String> {
    let code = &without_uses(code);
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        for (at, _) in code.match_indices(start) {
            let before = code[..at].trim_end();
            if before.ends_with("pub(in")
                || code[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|&c| c.is_alphanumeric() || c == '_' || c == ':')
                .collect();
            out.push(path.trim_end_matches(':').to_owned());
        }
    }
    out
}

/// `code` with its `use` declarations blanked out.
fn without_uses(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let word_before = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..at + 4]);
        rest = &rest[at + 4..];
        if !word_before {
            let end = rest.find(';').unwrap_or(rest.len());
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

/// The crate-absolute form of `path` written in `module`, or `None` for a
/// path into another crate.
fn absolute(module: &[String], path: &str) -> Option<Vec<String>> {
    let mut parts = path.split("::").filter(|p| !p.is_empty());
    let first = parts.next()?;
    let mut base: Vec<String> = match first {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module[..module.len().saturating_sub(1)].to_vec(),
        _ => return None,
    };
    for part in parts {
        if part == "super" {
            base.pop();
        } else {
            base.push(part.to_owned());
        }
    }
    Some(base)
}

/// The layer of each name `src/lib.rs` re-exports, from where it is taken.
fn root_names() -> BTreeMap<String, u8> {
    let text = fs::read_to_string(root().join("src/lib.rs")).expect("src/lib.rs");
    let mut names = BTreeMap::new();
    for path in use_paths(&code_only(&text)) {
        let parts: Vec<String> = path.split("::").map(str::to_owned).collect();
        if let Some(layer) = module_layer(&parts, &BTreeMap::new()) {
            names.insert(parts.last().unwrap().clone(), layer);
        }
    }
    names
}

/// The layer of the module or item at `path` (crate-absolute).
fn module_layer(path: &[String], roots: &BTreeMap<String, u8>) -> Option<u8> {
    let joined = path.join("::");
    let by_module = MODULES
        .iter()
        .filter(|(prefix, _)| joined == *prefix || joined.starts_with(&format!("{prefix}::")))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|&(_, layer)| layer);
    by_module.or_else(|| (path.len() == 1).then(|| roots.get(&path[0]).copied()).flatten())
}

/// A path that runs up a layer: (file, its layer, the path, the path's layer).
type Violation = (String, String, String, u8);

/// The upward paths of one file, given its text.
fn upward_paths(file: &str, text: &str, roots: &BTreeMap<String, u8>) -> Vec<Violation> {
    let (layer, name) = file_layer(file);
    let module = module_of(file);
    let code = code_only(text);
    let mut found = Vec::new();
    for path in use_paths(&code).into_iter().chain(inline_paths(&code)) {
        let Some(target) = absolute(&module, &path) else {
            continue;
        };
        if let Some(target_layer) = module_layer(&target, roots) {
            if target_layer > layer {
                found.push((file.to_owned(), name.to_owned(), path, target_layer));
            }
        }
    }
    found
}

/// The uses of facade-only types in one file that no exception allows.
fn facade_breaches(file: &str, text: &str) -> Vec<String> {
    if file.starts_with("src/sync/") {
        return Vec::new();
    }
    let code = code_only(text);
    let mut named: Vec<String> = use_paths(&code);
    // Paths written in full in code, as `std::sync::Arc::new(..)`.
    for root in ["std::", "core::"] {
        for (at, _) in code.match_indices(root) {
            if code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            {
                continue;
            }
            named.push(
                code[at..]
                    .chars()
                    .take_while(|&c| c.is_alphanumeric() || c == '_' || c == ':')
                    .collect(),
            );
        }
    }
    let mut breaches = Vec::new();
    for path in named {
        for banned in FACADE_ONLY {
            let hit = path == *banned || path.starts_with(&format!("{banned}::"));
            let excused = FACADE_EXCEPTIONS
                .iter()
                .any(|(f, t, _)| *f == file && path.starts_with(t));
            if hit && !excused {
                breaches.push(format!("{file}: `{path}` (take it from `crate::sync`)"));
            }
        }
    }
    breaches.sort();
    breaches.dedup();
    breaches
}

fn sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    files.sort();
    files
        .iter()
        .map(|path| (relative(path), fs::read_to_string(path).expect("a source file")))
        .collect()
}

/// The file that defines module `path` (crate-absolute), if any: the
/// longest prefix of it that is a file.
fn file_of(path: &[String], files: &BTreeSet<String>) -> Option<String> {
    (1..=path.len()).rev().find_map(|n| {
        let stem = format!("src/{}", path[..n].join("/"));
        [format!("{stem}.rs"), format!("{stem}/mod.rs")]
            .into_iter()
            .find(|f| files.contains(f))
    })
}

#[test]
fn no_path_runs_up_a_layer() {
    let roots = root_names();
    assert!(
        roots.len() >= 10,
        "src/lib.rs re-exports {} names: is the parser broken?",
        roots.len()
    );
    let mut checked = 0;
    let mut violations = Vec::new();
    for (file, text) in sources() {
        checked += use_paths(&code_only(&text)).len();
        violations.extend(upward_paths(&file, &text, &roots));
    }
    assert!(
        checked > 300,
        "only {checked} use paths found in src/: the scan is broken?"
    );
    assert!(
        violations.is_empty(),
        "paths that run up a layer:\n{}",
        violations
            .iter()
            .map(|(file, layer, path, to)| format!("  {file} ({layer}) names `{path}` (layer {to})"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn no_concurrency_type_outside_the_facade() {
    let breaches: Vec<String> = sources()
        .iter()
        .flat_map(|(file, text)| facade_breaches(file, text))
        .collect();
    assert!(
        breaches.is_empty(),
        "concurrency types taken from std outside src/sync/:\n  {}",
        breaches.join("\n  ")
    );
    for (file, text, _) in FACADE_EXCEPTIONS {
        let source = fs::read_to_string(root().join(file)).unwrap_or_default();
        assert!(
            source.contains(text),
            "the exception for `{text}` in {file} is stale: remove it"
        );
    }
}

#[test]
fn cycles_inside_a_layer_are_the_listed_ones() {
    let sources = sources();
    let files: BTreeSet<String> = sources.iter().map(|(file, _)| file.clone()).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in &sources {
        let module = module_of(file);
        let code = code_only(text);
        for path in use_paths(&code).into_iter().chain(inline_paths(&code)) {
            let Some(target) = absolute(&module, &path) else {
                continue;
            };
            if let Some(to) = file_of(&target, &files) {
                // A module's own file and its parent's declaration are not imports.
                if &to != file && !module_of(file).starts_with(&module_of(&to)) {
                    edges.entry(file.clone()).or_default().insert(to);
                }
            }
        }
    }
    let found = strongly_connected(&edges);
    let allowed: BTreeSet<BTreeSet<String>> = ALLOWED_CYCLES
        .iter()
        .map(|(files, _)| files.iter().map(|f| f.to_string()).collect())
        .collect();
    for cycle in &found {
        let layers: BTreeSet<u8> = cycle.iter().map(|f| file_layer(f).0).collect();
        assert_eq!(layers.len(), 1, "an import cycle crosses layers: {cycle:?}");
    }
    assert_eq!(
        found, allowed,
        "the import cycles inside layers changed: list each (with why) in ALLOWED_CYCLES, or break it"
    );
}

/// Tarjan's strongly connected components with more than one file.
fn strongly_connected(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<BTreeSet<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        next: usize,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: BTreeSet<BTreeSet<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a str) {
        state.index.insert(node, state.next);
        state.low.insert(node, state.next);
        state.next += 1;
        state.stack.push(node);
        state.on_stack.insert(node);
        if let Some(targets) = state.edges.get(node) {
            for target in targets {
                if !state.index.contains_key(target.as_str()) {
                    visit(state, target);
                    let low = state.low[target.as_str()].min(state.low[node]);
                    state.low.insert(node, low);
                } else if state.on_stack.contains(target.as_str()) {
                    let low = state.index[target.as_str()].min(state.low[node]);
                    state.low.insert(node, low);
                }
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = BTreeSet::new();
            loop {
                let member = state.stack.pop().unwrap();
                state.on_stack.remove(member);
                component.insert(member.to_owned());
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                state.found.insert(component);
            }
        }
    }
    let mut state = State {
        edges,
        next: 0,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: BTreeSet::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.found
}

/// The checks have teeth: an upward import, a relative one, a grouped one,
/// a path in code and a std concurrency type are each reported; downward
/// ones, doc links and comments are not.
#[test]
fn the_checks_catch_planted_violations() {
    let roots = root_names();
    let planted = [
        (
            "src/lockfree/deque/worker.rs",
            "use crate::pool::kernel::registry::Registry;\n",
        ),
        (
            "src/pool/kernel/latch.rs",
            "use super::super::api::thread_pool::ThreadPool;\n",
        ),
        (
            "src/pool/queues/priority.rs",
            "use crate::pool::{kernel::job::JobResult, placement::affinity};\n",
        ),
        (
            "src/sync/mod.rs",
            "fn f() { crate::lockfree::Worker::<u8>::new(); }\n",
        ),
        ("src/pool/kernel/worker/mod.rs", "use crate::ThreadPool;\n"),
        (
            "src/pool/placement/affinity.rs",
            "use crate::iter::splitter::Splitter;\n",
        ),
    ];
    for (file, text) in planted {
        assert_eq!(
            upward_paths(file, text, &roots).len(),
            1,
            "{file}: `{text}` not reported"
        );
    }
    let fine = [
        (
            "src/pool/kernel/latch.rs",
            "use crate::lockfree::JobRef;\nuse super::registry::Registry;\n",
        ),
        (
            "src/pool/api/thread_pool.rs",
            "/// [`x`](crate::iter::ParallelIterator)\n// crate::iter\nuse crate::Priority;\n",
        ),
        (
            "src/iter/mod.rs",
            "use crate::ThreadPool;\npub(in crate::iter) fn f() {}\n",
        ),
        ("src/pool/kernel/job.rs", "let s = \"crate::iter::x\";\n"),
    ];
    for (file, text) in fine {
        assert_eq!(
            upward_paths(file, text, &roots),
            Vec::new(),
            "{file}: `{text}` reported"
        );
    }
    for text in [
        "use std::sync::atomic::AtomicUsize;\n",
        "use std::sync::{Arc, Mutex};\n",
        "let cell = std::cell::UnsafeCell::new(0);\n",
        "std::thread::spawn(|| ());\n",
    ] {
        assert!(
            !facade_breaches("src/pool/kernel/latch.rs", text).is_empty(),
            "`{text}` not reported"
        );
        assert!(
            facade_breaches("src/sync/mod.rs", text).is_empty(),
            "the facade itself reported for `{text}`"
        );
    }
    for text in [
        "use std::sync::OnceLock;\n",
        "use std::thread;\nthread::Result::<()>::Ok(());\n",
        "use std::cell::Cell;\n",
    ] {
        assert!(
            facade_breaches("src/pool/kernel/latch.rs", text).is_empty(),
            "`{text}` reported"
        );
    }
}
