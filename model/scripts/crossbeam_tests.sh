#!/usr/bin/env bash
# crossbeam-deque's own tests, run against stealpool::deque.
#
#   bash model/scripts/crossbeam_tests.sh      (from the repository root)
#
# stealpool::deque keeps crossbeam-deque 0.8's names and semantics, so
# crossbeam-deque's own test suite is a check written by someone else. This
# repository holds only code written for it, so those tests are never
# copied into the tree: this script takes them from the crossbeam-deque
# package in the cargo registry (the dev-dependency of Cargo.toml, found
# through `cargo metadata`), and builds at run time, under
# target/peer-tests/crossbeam-deque/, a scratch crate named crossbeam-deque
# whose library only re-exports stealpool::deque's types. crossbeam's
# tests/*.rs are copied there unchanged, so their `use crossbeam_deque::...`
# lines name stealpool's types, with crossbeam's dev-dependencies at
# crossbeam's versions; `cargo test` runs them there, with its own target
# directory.
#
# Nothing is left out: stealpool::deque has crossbeam's FIFO flavour
# (`Worker::new_fifo`) and the `*_with_limit` batch steals, so every test of
# every file runs. The cut lists below stay for a test that a future
# crossbeam-deque adds and stealpool cannot run yet: each entry names the
# test and the reason; the script fails if an entry is not a test of that
# crossbeam-deque, so that a new version cannot silently change what runs.
# Every cut is printed with its reason. Every other test must pass, and at
# least one must run.
#
# Environment: PEER_TESTS_SECONDS bounds the build and run (default 800).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
LIMIT=${PEER_TESTS_SECONDS:-800}
SCRATCH=target/peer-tests/crossbeam-deque
export CARGO_TARGET_DIR=$ROOT/target/peer-tests/target
LOG=target/peer-tests/metadata.log
START=$(date +%s)

# Whole files of crossbeam's tests/ to leave out, as FILE:REASON.
CUT_FILES=()
# Tests of the other files to leave out, as FILE:TEST:REASON.
CUT_TESTS=()

die() {
    echo "crossbeam_tests: $*" >&2
    exit 1
}

# --- crossbeam-deque's package, as this repository resolves it -------------
# The package the root's `crossbeam_deque` dependency resolves to, and its
# dev-dependencies (name and requirement); with jq, or python3 without it.
metadata() { timeout 300 cargo metadata --format-version 1 2>>"$LOG"; }
peer_info() {
    if command -v jq >/dev/null; then
        jq -r '
            .resolve.root as $root
            | ([.resolve.nodes[] | select(.id == $root) | .deps[]
                | select(.name == "crossbeam_deque") | .pkg] | first) as $id
            | .packages[] | select(.id == $id)
            | "manifest \(.manifest_path)", "version \(.version)",
              (.dependencies[] | "dep \(.kind // "normal") \(.name) \(.req)")'
    elif command -v python3 >/dev/null; then
        python3 -c '
import json, sys
m = json.load(sys.stdin)
root = m["resolve"]["root"]
node = next(n for n in m["resolve"]["nodes"] if n["id"] == root)
pid = next(d["pkg"] for d in node["deps"] if d["name"] == "crossbeam_deque")
p = next(p for p in m["packages"] if p["id"] == pid)
print("manifest", p["manifest_path"])
print("version", p["version"])
for d in p["dependencies"]:
    print("dep", d["kind"] or "normal", d["name"], d["req"])'
    else
        die "needs jq or python3 to read cargo metadata"
    fi
}

mkdir -p target/peer-tests
: >"$LOG"
INFO=$(metadata | peer_info) || die "cargo metadata found no crossbeam-deque dependency (see $LOG)"
MANIFEST=$(sed -n 's/^manifest //p' <<<"$INFO")
VERSION=$(sed -n 's/^version //p' <<<"$INFO")
[ -n "$MANIFEST" ] || die "cargo metadata names no crossbeam-deque package"
if [ ! -f "$MANIFEST" ]; then
    timeout 600 cargo fetch >>"$LOG" 2>&1 || die "cargo fetch failed (see $LOG)"
    [ -f "$MANIFEST" ] || die "no $MANIFEST after cargo fetch"
fi
PEER=$(dirname "$MANIFEST")
[ -d "$PEER/tests" ] || die "crossbeam-deque $VERSION has no tests/ in $PEER"

# --- the cuts ----------------------------------------------------------------
# Top-level functions of a rustfmt-formatted file: NAME, then 1 if it is a
# #[test]. A function starts at `fn NAME` in column 0 and ends at the next
# `}` in column 0.
functions() {
    awk '
        /^#\[test\]/ { test = 1 }
        /^fn [A-Za-z0-9_]+[(<]/ {
            name = $2; sub(/[(<].*/, "", name); infn = 1
        }
        infn && /^}/ { print name, test; infn = 0; test = 0 }
    ' "$1"
}

# strip_functions FILE OUT NAMES: in peer_lib.sh.
. model/scripts/peer_lib.sh

cut_names() {
    for entry in ${CUT_FILES[@]+"${CUT_FILES[@]}"}; do echo "${entry%%:*}"; done
    for entry in ${CUT_TESTS[@]+"${CUT_TESTS[@]}"}; do
        rest=${entry#*:}
        echo "${entry%%:*}:${rest%%:*}"
    done
}
dups=$(cut_names | sort | uniq -d)
[ -z "$dups" ] || die "named twice in the cut lists: $dups"

rm -rf "$SCRATCH"
mkdir -p "$SCRATCH/src" "$SCRATCH/tests"
echo "crossbeam-deque $VERSION's tests against stealpool::deque ($PEER/tests)"
cut_count=0
for entry in ${CUT_FILES[@]+"${CUT_FILES[@]}"}; do
    f=${entry%%:*}
    [ -f "$PEER/tests/$f" ] || die "tests/$f, to be cut whole, is not in crossbeam-deque $VERSION"
    tests=$(functions "$PEER/tests/$f" | awk '$2 == 1')
    [ -n "$tests" ] || die "tests/$f has no tests"
    n=$(wc -l <<<"$tests")
    cut_count=$((cut_count + n))
    echo "  cut: tests/$f, the whole file ($n tests: ${entry#*:}): $(awk '{ printf "%s ", $1 }' <<<"$tests")"
done
for path in "$PEER"/tests/*.rs; do
    f=$(basename "$path")
    whole=0
    for entry in ${CUT_FILES[@]+"${CUT_FILES[@]}"}; do [ "${entry%%:*}" = "$f" ] && whole=1; done
    [ "$whole" = 1 ] && continue
    names=""
    for entry in ${CUT_TESTS[@]+"${CUT_TESTS[@]}"}; do
        [ "${entry%%:*}" = "$f" ] || continue
        rest=${entry#*:}
        t=${rest%%:*}
        functions "$path" | awk -v t="$t" '$1 == t && $2 == 1 { ok = 1 } END { exit !ok }' ||
            die "tests/$f: $t, to be cut, is not a test there"
        names="$names $t"
        cut_count=$((cut_count + 1))
        echo "  cut: tests/$f: $t (${rest#*:})"
    done
    strip_functions "$path" "$SCRATCH/tests/$f" "$names" || die "tests/$f: the cut list does not match crossbeam-deque $VERSION"
done
for entry in ${CUT_TESTS[@]+"${CUT_TESTS[@]}"}; do
    f=${entry%%:*}
    [ -f "$PEER/tests/$f" ] || die "tests/$f, named in CUT_TESTS, is not in crossbeam-deque $VERSION"
done
echo "  $cut_count tests cut in all"

# --- the scratch crate -------------------------------------------------------
# crossbeam's dev-dependencies, and those of its own dependencies that its
# tests name (crossbeam-utils: thread::scope), at crossbeam's requirements,
# with default features on as crossbeam's default `std` feature has them.
devdeps=""
while read -r _ kind name req; do
    if [ "$kind" = dev ] || grep -qw "${name//-/_}" "$SCRATCH"/tests/*.rs; then
        devdeps="$devdeps$name = \"$req\""$'\n'
    fi
done < <(grep '^dep ' <<<"$INFO")
cat >"$SCRATCH/Cargo.toml" <<TOML
# Generated by model/scripts/crossbeam_tests.sh: crossbeam-deque $VERSION's
# tests, run against stealpool::deque.
[package]
name = "crossbeam-deque"
version = "$VERSION"
edition = "2021"
publish = false

[lib]
name = "crossbeam_deque"
path = "src/lib.rs"

[dependencies]
stealpool = { path = "$ROOT" }

[dev-dependencies]
$devdeps
[workspace]
TOML
cat >"$SCRATCH/src/lib.rs" <<'RUST'
//! Generated by model/scripts/crossbeam_tests.sh: crossbeam-deque's names,
//! which are stealpool::deque's own.
pub use stealpool::deque::{Injector, Steal, Stealer, Worker};
RUST
# The repository's lock file, so that what the two share resolves alike.
cp Cargo.lock "$SCRATCH/Cargo.lock"

# --- the run -----------------------------------------------------------------
# The whole output goes to $OUT; the log shows which file runs and each
# test's result (and, on a failure, the end of $OUT).
OUT=target/peer-tests/cargo-test.log
echo "cargo test in $SCRATCH (whole output: $OUT)"
set +e
(cd "$SCRATCH" && timeout --kill-after=30 "$LIMIT" cargo test --no-fail-fast --tests 2>&1) | tee "$OUT" |
    grep -E '^ +Running |^test |^test result'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
    [ "$status" -eq 124 ] && echo "crossbeam_tests: timed out after ${LIMIT}s" >&2
    tail -n 60 "$OUT" >&2
fi
read -r passed failed ignored < <(awk '/^test result:/ {
    for (i = 1; i <= NF; i++) {
        if ($(i + 1) ~ /^passed/) p += $i
        if ($(i + 1) ~ /^failed/) f += $i
        if ($(i + 1) ~ /^ignored/) g += $i
    } } END { print p + 0, f + 0, g + 0 }' "$OUT")
echo "crossbeam-deque $VERSION's tests: $((passed + failed)) run, $passed passed, $failed failed, $ignored ignored, $cut_count cut; $(($(date +%s) - START))s"
[ "$status" -eq 0 ] || die "cargo test failed (status $status)"
[ $((passed + failed)) -gt 0 ] || die "no test ran"
