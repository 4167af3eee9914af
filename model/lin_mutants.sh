#!/usr/bin/env bash
# Expected-failure mutants through the linearizability checker: each bug
# flag below is built into the shuttle harness model/lin_deque.rs, and the
# test named beside it must fail with a history the checker reports as not
# linearizable. lin_deque's schedules come from fixed seeds, so whether a
# mutant is caught, and at which schedule, is the same on every run
# (proofs/linearizability.md, "What it catches").
#
#   model/lin_mutants.sh            every pair below
#   model/lin_mutants.sh NAME...    only these mutants
#
# Each mutant rebuilds only this crate and the harness (STEALPOOL_BUG is
# read by build.rs), in the `model` profile that model/verify.sh's lin step
# has built. The logs go to target/lin-mutants/NAME.log. Prints
# "mutant NAME caught by lin_deque TEST (...)" for each; exits non-zero if
# one was not caught, or failed in any other way (a build error, a test
# that failed without a non-linearizable history).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=target/lin-mutants
mkdir -p "$OUT"
export CARGO_TERM_COLOR=never

# mutant<TAB>test that must catch it
PAIRS=$(printf '%s\t%s\n' \
    stale_buffer owner_and_two_thieves_random \
    batch_wide_cas owner_and_two_batching_thieves_random)

status=0
while IFS=$'\t' read -r mutant test; do
    if [ $# -gt 0 ] && [[ " $* " != *" $mutant "* ]]; then continue; fi
    log="$OUT/$mutant.log"
    start=$(date +%s)
    STEALPOOL_BUG=$mutant timeout --kill-after=30 600 \
        cargo test --features shuttle --profile model --test lin_deque -- --exact "$test" >"$log" 2>&1
    code=$?
    secs=$(($(date +%s) - start))
    where=$(grep -m1 -oE 'FAILED in schedule [0-9]+' "$log")
    history=$(grep -m1 -oE 'history of [0-9]+ operations is NOT linearizable' "$log")
    if [ $code -ne 0 ] && grep -qE "^test $test \.\.\. FAILED$" "$log" && [ -n "$history" ]; then
        echo "mutant $mutant caught by lin_deque $test (shuttle, fixed seed: $where; $history; ${secs}s with its build)"
    else
        echo "mutant $mutant NOT caught by lin_deque $test (exit $code, ${secs}s; see $log)"
        tail -n 30 "$log"
        status=1
    fi
done <<<"$PAIRS"
exit $status
