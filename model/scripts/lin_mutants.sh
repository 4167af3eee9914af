#!/usr/bin/env bash
# Expected-failure mutants through the history checkers: each bug flag below
# is built into the shuttle harness named beside it, and the test named must
# fail with the checker's report (a history not linearizable, a start order
# V8 forbids, a wait_all that was not quiescent). The harnesses' schedules
# come from fixed seeds, so whether a mutant is caught, and at which
# schedule, is the same on every run (proofs/linearizability.md, "What it
# catches" and "The pool's objects").
#
#   model/scripts/lin_mutants.sh            every row below
#   model/scripts/lin_mutants.sh NAME...    only these mutants
#
# Each mutant rebuilds only this crate and the harness (STEALPOOL_BUG is
# read by build.rs): lin_deque's in the `model` profile that
# model/scripts/verify.sh's lin step has built; lin_pool's and shuttle_injector's
# in the `test` profile (plain `cargo test`) the lin step's lin_pool run
# has built, where a rebuild is incremental: seconds, against about a
# minute for a fat-LTO `model` build. The fixed seeds give the same
# schedules in both profiles (lin_pool's overlap counts are identical). The logs go to
# target/lin-mutants/NAME.log. Prints "mutant NAME caught by HARNESS TEST
# (...)" for each; exits non-zero if one was not caught, or failed in any
# other way (a build error, a test that failed without the report).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=target/lin-mutants
mkdir -p "$OUT"
export CARGO_TERM_COLOR=never

# mutant, harness, profile, test that must catch it, the report it must
# print (an extended regular expression), tab-separated.
PAIRS=$(printf '%s\t%s\t%s\t%s\t%s\n' \
    stale_buffer lin_deque model owner_and_two_thieves_random 'history of [0-9]+ operations is NOT linearizable' \
    batch_wide_cas lin_deque model owner_and_two_batching_thieves_random 'history of [0-9]+ operations is NOT linearizable' \
    oldest_stale_word lin_deque model fifo_owner_and_two_thieves_pct 'history of [0-9]+ operations is NOT linearizable' \
    batch_newest_first shuttle_injector test queue_linearizable "the queue's history is not linearizable" \
    finished_early lin_pool test handles_linearizable "the handles' history is NOT linearizable" \
    when_all_reversed lin_pool test when_all_and_zip_linearizable "the handles' history is NOT linearizable" \
    stage_newest_first lin_pool test fifo_and_wait_all 'the start order is NOT FIFO per submitter \(V8\)' \
    level_steal_half lin_pool test fifo_and_wait_all 'the start order is NOT FIFO per submitter \(V8\)' \
    wait_all_queues_only lin_pool test wait_all_quiescent 'wait_all is NOT quiescent' \
    normal_batch_plain shuttle_priority test fifo_two_workers 'a task started before an older one of its submitter')

status=0
while IFS=$'\t' read -r mutant harness profile test report; do
    if [ $# -gt 0 ] && [[ " $* " != *" $mutant "* ]]; then continue; fi
    log="$OUT/$mutant.log"
    start=$(date +%s)
    STEALPOOL_BUG=$mutant timeout --kill-after=30 600 \
        cargo test --features shuttle --profile "$profile" --test "$harness" -- --exact "$test" >"$log" 2>&1
    code=$?
    secs=$(($(date +%s) - start))
    where=$(grep -m1 -oE '\([^()]*\): FAILED in schedule [0-9]+' "$log")
    found=$(grep -m1 -oE "$report" "$log")
    if [ $code -ne 0 ] && grep -qE "^test $test \.\.\. FAILED$" "$log" && [ -n "$found" ]; then
        echo "mutant $mutant caught by $harness $test (shuttle, fixed seed $where; $found; ${secs}s with its build)"
    else
        echo "mutant $mutant NOT caught by $harness $test (exit $code, ${secs}s; see $log)"
        tail -n 30 "$log"
        status=1
    fi
done <<<"$PAIRS"
exit $status
