#!/usr/bin/env bash
# Checks that STEALPOOL_WEAKEN / STEALPOOL_BUG reach only builds of stealpool
# itself (build.rs): with STEALPOOL_WEAKEN set,
#   - `cargo build` here compiles stealpool with --cfg stealpool_weaken;
#   - a throwaway crate depending on stealpool by path (in
#     target/flag-scope/) compiles stealpool without it.
# Each build is bounded by FLAG_SCOPE_TIMEOUT seconds (default 600).
set -euo pipefail
cd "$(dirname "$0")/../.."
TIMEOUT=${FLAG_SCOPE_TIMEOUT:-600}
ROOT=$PWD
DIR=target/flag-scope
FLAG='stealpool_weaken="steal_cas"'

# The rustc command line cargo ran for stealpool's library, from `cargo build -v`.
stealpool_rustc() {
    grep -E "Running .*rustc.* --crate-name stealpool .*--crate-type lib" || true
}

# A target directory of its own, cleaned of stealpool, so that stealpool is
# compiled, not fresh.
CARGO_TARGET_DIR=$DIR/primary cargo clean -p stealpool -q 2>/dev/null || true
mkdir -p "$DIR/src"
here=$(CARGO_TARGET_DIR=$DIR/primary STEALPOOL_WEAKEN=steal_cas timeout "$TIMEOUT" cargo build -v --lib 2>&1 | tee "$ROOT/$DIR/primary.log" | stealpool_rustc)
if ! grep -qF "$FLAG" <<<"$here"; then
    echo "FAIL: stealpool built as the primary package did not get $FLAG" >&2
    exit 1
fi
grep -q "warning: .*STEALPOOL_WEAKEN=steal_cas: built with" "$ROOT/$DIR/primary.log" || {
    echo "FAIL: no warning for the weakened primary build" >&2
    exit 1
}

cat > "$DIR/Cargo.toml" <<TOML
[package]
name = "flag-scope-dependent"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
stealpool = { path = "$ROOT" }

[workspace]
TOML
cat > "$DIR/src/main.rs" <<'RS'
fn main() {
    let (a, b) = stealpool::join(|| 1, || 2);
    assert_eq!(a + b, 3);
}
RS
# Start from a clean stealpool so that it is compiled, not fresh.
(cd "$DIR" && cargo clean -p stealpool -q 2>/dev/null || true)
dependent=$(cd "$DIR" && STEALPOOL_WEAKEN=steal_cas timeout "$TIMEOUT" cargo build -v 2>&1 | tee "$ROOT/$DIR/dependent.log" | stealpool_rustc)
if [ -z "$dependent" ]; then
    echo "FAIL: the dependent's build did not compile stealpool (see $DIR/dependent.log)" >&2
    exit 1
fi
if grep -qF "stealpool_weaken=" <<<"$dependent"; then
    echo "FAIL: a dependent built with STEALPOOL_WEAKEN set got a weakened stealpool" >&2
    exit 1
fi
grep -q "STEALPOOL_WEAKEN=steal_cas ignored" "$ROOT/$DIR/dependent.log" || {
    echo "FAIL: no warning that the variable was ignored" >&2
    exit 1
}
echo "ok: STEALPOOL_WEAKEN applies to stealpool's own builds only"
