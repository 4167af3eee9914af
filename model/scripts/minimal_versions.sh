#!/usr/bin/env bash
# Cargo.toml's lower bounds: the library checked with every direct
# dependency at the lowest version Cargo.toml allows (and the rest of the
# graph at its newest), in a copy of the tree so that Cargo.lock stays as it
# is. Nightly cargo: `-Z direct-minimal-versions`.
#
# Only the library is checked here (a few seconds). The features and every
# target were checked the same way by hand (`cargo +nightly check
# --all-targets`, `cargo +nightly build --features loom` and `--features
# shuttle` on the same lock: minutes). Plain `-Z minimal-versions` also puts
# every transitive dependency at its floor; the library builds that way, but
# the loom and shuttle features do not, for reasons in their own
# dependencies (proc-macro2 1.0.52 under syn/serde_derive does not compile
# on current nightly; wyz 0.5.0 under bitvec needs a newer tap than it
# declares), which no bound of ours can raise.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
# The tracked files as they are in the work tree, edits included.
git ls-files -z | xargs -0 cp --parents -t "$copy"
cd "$copy"
cargo +nightly -Z direct-minimal-versions generate-lockfile
echo "direct dependencies at their floors:"
for dep in crossbeam-utils libc loom shuttle; do
    { grep -A1 "^name = \"$dep\"" Cargo.lock || true; } | sed -n 's/^version = "\(.*\)"/  '"$dep"' \1/p'
done
CARGO_TARGET_DIR="$root/target/minver" cargo +nightly check --lib
