#!/usr/bin/env bash
# Bug flags that no model checker sees, each required to fail the
# real-thread test that proofs/orderings.md ("Flags checked outside the
# loom table") names for it, with the failure that test is written to
# give.
#
#   model/scripts/thread_mutants.sh            every row below
#   model/scripts/thread_mutants.sh NAME...    only these mutants
#
# Each mutant rebuilds only this crate and the one test file (STEALPOOL_BUG
# is read by build.rs), in the `test` profile `cargo test` has built, where
# the rebuild is incremental. Two kinds of failure:
#   - a wrong result: the test's own assertion (a cycle report where the
#     program has a stall, a start order out of its rounds);
#   - a stall nobody reports: the test's watchdog (tests/common/mod.rs,
#     `finishes`) fails it. The watchdog waits 300 s in `cargo test`; here
#     it waits STEALPOOL_WATCHDOG_SECONDS (default 20), since the mutant
#     must hang and the right build reports within a second. A mutant that
#     only slowed the report past 20 s would pass as caught: these rows
#     check that the rule is needed, and `cargo test` checks the report.
# The logs go to target/thread-mutants/NAME.log. Prints "mutant NAME
# caught by FILE TEST (...)" for each; exits non-zero if one was not
# caught, or failed in any other way (a build error, another failure).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=target/thread-mutants
mkdir -p "$OUT"
export CARGO_TERM_COLOR=never
export STEALPOOL_WATCHDOG_SECONDS=${STEALPOOL_WATCHDOG_SECONDS:-20}
HANG="no result after $STEALPOOL_WATCHDOG_SECONDS s: a stall nobody reported"
# A mutant that the test catches only while other waits keep the stall
# table moving (the `..._while_other_waits_come_and_go` tests) can slip
# through once if the machine stalls those waits for a whole re-check
# period: it is caught if any of ATTEMPTS runs fails as its row says.
ATTEMPTS=${THREAD_MUTANT_ATTEMPTS:-5}

# mutant, test file, test, the failure it must print (an extended regular
# expression), tab-separated.
ROWS=$(printf '%s\t%s\t%s\t%s\n' \
    posts_unfiltered pool_waits a_cycle_through_an_install_is_reported_not_posted_beneath 'the join returned' \
    lend_any pool_waits a_cycle_through_an_install_is_reported_not_posted_beneath 'the join returned' \
    sources_alternate pool_priority_fifo own_and_outside_tasks_of_a_level_take_turns_in_rounds 'did not run in two rounds' \
    install_unwatched pool_stall a_stall_through_install_is_reported_once "$HANG" \
    stall_due_ignored pool_stall a_cycle_through_a_scope_is_reported_while_other_waits_come_and_go "$HANG" \
    others_sets_ignored pool_stall a_stall_closed_by_a_continuation_is_reported_while_other_waits_come_and_go "$HANG" \
    own_waits_unwatched pool_stall a_cycle_through_a_scope_is_reported_by_a_join "$HANG" \
    exact_recheck_off pool_stall a_stall_closed_by_a_continuation_is_reported "$HANG" \
    stall_escape_off pool_stall a_scope_alone_in_a_stall_runs_its_queued_task "$HANG" \
    counted_look_leavers_only pool_stall a_stall_a_sleeper_hides_runs_its_queued_task "$HANG" \
    counted_look_still_only pool_stall a_stall_a_sleeper_hides_runs_its_queued_task_while_other_waits_come_and_go "$HANG")

status=0
while IFS=$'\t' read -r mutant file test failure; do
    if [ $# -gt 0 ] && [[ " $* " != *" $mutant "* ]]; then continue; fi
    log="$OUT/$mutant.log"
    start=$(date +%s)
    for attempt in $(seq 1 "$ATTEMPTS"); do
        STEALPOOL_BUG=$mutant timeout --kill-after=30 600 \
            cargo test --test "$file" -- --exact "$test" >"$log" 2>&1
        code=$?
        found=$(grep -m1 -oE "$failure" "$log")
        [ -n "$found" ] && break
    done
    secs=$(($(date +%s) - start))
    if [ $code -ne 0 ] && grep -qE "^test $test \.\.\. FAILED$" "$log" && [ -n "$found" ]; then
        echo "mutant $mutant caught by $file $test ($found; attempt $attempt; ${secs}s with its build)"
    else
        echo "mutant $mutant NOT caught by $file $test (exit $code, ${secs}s; see $log)"
        tail -n 30 "$log"
        status=1
    fi
done <<<"$ROWS"
exit $status
