#!/usr/bin/env bash
# The ordering-necessity matrix: weaken one named ordering at a time (or
# reintroduce one historical bug), run the loom models against the mutant,
# and rewrite the generated table in proofs/orderings.md.
#
#   model/scripts/mutants.sh              every mutant; rewrites the table in
#                                 proofs/orderings.md
#   model/scripts/mutants.sh NAME...      only these (names as in `weakened "NAME"`);
#                                 the table is left alone
#   model/scripts/mutants.sh --write NAME...
#                                 only these, and their rows of the table are
#                                 replaced (added if new); the other rows stay
#
# Deque orderings are checked by model/loom/deque.rs (the bounded deque's,
# src/lockfree/bounded/mod.rs, by model/loom/bounded.rs), pool orderings by
# model/loom/pool.rs, the injector's queue's by model/loom/injector.rs. Each mutant rebuilds only this crate (STEALPOOL_WEAKEN
# is read by build.rs). A mutant passes the models -> "not caught"; the
# hand-written part of proofs/orderings.md must then explain why, or the
# ordering must be weakened in the code.
#
# MUTANT_MODELS, if set, is the test-name filter passed to the suite (the
# models that exercise the mutants named), instead of every model.
# MUTANT_TIMEOUT bounds each mutant's run (seconds, default 900); a mutant
# that hits it is reported as "timeout" (a hang under loom is usually a
# deadlock the model could not report).
set -uo pipefail
cd "$(dirname "$0")/../.."
TIMEOUT=${MUTANT_TIMEOUT:-900}
OUT=target/mutants
mkdir -p "$OUT"
export CARGO_TERM_COLOR=never
# The table records what the full bounds catch (model/support/bounds.rs); the quick
# ones of a plain `cargo test --features loom` may miss a mutant.
export STEALPOOL_MODEL_BOUNDS=full

# name<TAB>suite<TAB>kind<TAB>id<TAB>strong<TAB>weak
list_mutants() {
    for file in src/lockfree/deque/ordering.rs src/lockfree/bounded/mod.rs src/pool/kernel/ordering.rs src/lockfree/injector/ordering.rs; do
        case $file in
            src/lockfree/bounded/mod.rs) suite=loom_bounded ;;
            src/lockfree/injector/ordering.rs) suite=loom_injector ;;
            src/lockfree/deque/ordering.rs) suite=loom_deque ;;
            *) suite=loom_pool ;;
        esac
        awk -v suite="$suite" '
            /^ *\/\/\/ [A-Z][0-9]+:/ && !id { match($0, /[A-Z][0-9]+/); id = substr($0, RSTART, RLENGTH) }
            /weakened "/ {
                match($0, /weakened "[a-z_]+"/); name = substr($0, RSTART + 10, RLENGTH - 11)
                strong = $0; sub(/^[^=]*= */, "", strong); sub(/, weakened.*/, "", strong)
                weak = $0; sub(/.*=> */, "", weak); sub(/;.*/, "", weak)
                # The orderings of the public injector sit with those of
                # the deque, but the injector models check them.
                s = (name ~ /^injector_/) ? "loom_injector" : suite
                printf "%s\t%s\tweaken\t%s\t%s\t%s\n", name, s, id, strong, weak
                id = ""
            }' "$file"
    done
    printf 'stale_buffer\tloom_deque\tbug\tR2\tbuffer loaded after bottom\tloaded before top\n'
    printf 'relaxed_buffer_publish\tloom_deque\tbug\tD8/D10\tRelease/Acquire\tRelaxed/Relaxed\n'
    printf 'batch_wide_cas\tloom_deque\tbug\tB1\tone steal per element\tone CAS for the batch\n'
    printf 'oldest_store\tloom_deque\tbug\tD17\tCAS on top\tplain store of top\n'
    printf 'oldest_stale_word\tloom_deque\tbug\tD19\ta retry reads the next index'"'"'s slot\tit keeps the word read before\n'
    printf 'no_rescue\tloom_pool\tbug\tF4\tidle workers take unanswered halves\tthey only ask\n'
    printf 'join_wait_runs_any\tloom_pool\tbug\tH6\tjoin and scope waits run only work they await\tany job of the pool\n'
    printf 'park_unannounced\tloom_pool\tbug\tH6\ta parked waiter tells its latch under the sleep lock\tit only checks it\n'
    printf 'local_push_unfenced\tloom_pool\tbug\tS3\ta worker pays S3 on its own deque too\tonly on others\n'
    printf 'pending_unchecked\tloom_pool\tbug\tF5\tfinal check sees pending halves\tit does not\n'
    printf 'bounded_unchecked_help\tloom_bounded\tbug\tG4\ta helper looks at top again before it delivers a claim for another slot\tit delivers at once\n'
    printf 'bounded_unchecked\tloom_bounded\tbug\tG12\thas-work checks (final check, V5) see the bounded deques\tthey do not\n'
    printf 'sleeper_unannounced\tloom_pool\tbug\tS7\tsleepers count themselves in the sleepers word\tthey do not\n'
    printf 'pending_limit_ignored\tloom_pool\tbug\tF6\tinline only past the limit of pending halves\tevery join inline\n'
    printf 'then_unlocked\tloom_pool\tbug\tK1\tlook and attach under one lock\tunder two\n'
    printf 'closed_unlocked\tloom_pool\tbug\tX2\texit count read under the accounts lock\tbefore it\n'
    printf 'flag_after_check\tloom_pool\tbug\tS8\ta sleeper raises its flag before its barrier\tafter its final check\n'
    printf 'wake_unlocked\tloom_pool\tbug\tS9\ta waker lowers the flag and signals under the sleeper lock\twithout it\n'
    printf 'exit_unchecked\tloom_pool\tbug\tS9\ta thread that may leave makes its final check under the accounts lock\tbefore it\n'
    printf 'levels_unchecked\tloom_priority\tbug\tV4\tfinal check sees every used level\tit does not\n'
    printf 'batch_newest_first\tloom_priority\tbug\tQ7\ta level batch handed on oldest first\tnewest first\n'
    printf 'level_newest_first\tloom_priority\tbug\tV7\tthe owner takes the oldest of a level\tthe newest\n'
    printf 'overdue_newest\tloom_priority\tbug\tV7\tthe turn of V5 takes the oldest of a level\tthe newest\n'
    printf 'stage_newest_first\tloom_priority\tbug\tV8\ta take from the stage of a level takes its oldest\tits newest\n'
    printf 'no_spare\tloom_blocking\tbug\tW1\ta blocked worker brings a spare in\tnone comes\n'
    printf 'park_unlocked\tloom_blocking\tbug\tW4\tparked spares read the shutdown under the lock they wait with\tbefore it\n'
    printf 'workers_leave_while_blocking\tloom_blocking\tbug\tW2\tworkers stay at shutdown while a spare holds a slot\tthey leave\n'
    printf 'spare_leaves_at_shutdown\tloom_blocking\tbug\tW2\ta needed spare stays at shutdown\tit leaves with the workers\n'
    printf 'slots_unmarked\tloom_blocking\tbug\tW5\tsearches see the spare slots ever held\tthe mark is never raised\n'
    printf 'drain_uncompensated\tloom_blocking\tbug\tW1\tspares come in during the drain\tnot once terminating\n'
    printf 'claim_ignored\tloom_pool\tbug\tH3\tthe claim decides who runs a task\ta claimed task runs again\n'
    printf 'wait_runs_any\tloom_pool\tbug\tH4\ta waiting worker runs only the awaited task\tit runs any job\n'
    printf 'mail_unchecked\tloom_pool\tbug\tE2\ta worker looks in its mailbox under its slot lock before it sleeps or parks\tit does not\n'
    printf 'wait_ignores_mail\tloom_pool\tbug\tE2\ta waiting worker runs the jobs posted to it\tit leaves them for after the wait\n'
    printf 'wait_not_in_place\tloom_pool\tbug\tH4\tan unstarted awaited task runs in place\tthe waiter always parks\n'
    printf 'inputs_not_in_place\tloom_pool\tbug\tH8\ta continuation joined on a worker runs its unstarted inputs in place\tthe waiter parks\n'
    printf 'need_unread\tloom_pool\tbug\tY3\ta waiter that registers reads the need of its task'"'"'s runner\tit does not\n'
    printf 'stall_unchecked\tloom_pool\tbug\tZ1\ta handle join that can never return is reported\tit parks\n'
    printf 'stall_awaits_ignored\tloom_pool\tbug\tZ2\ta wait is blocked only if what it awaits cannot run\tif every thread of its own pool waits\n'
    printf 'stall_inputs_ignored\tloom_pool\tbug\tZ2\ta wait on a continuation is blocked through its stuck inputs\tit never is\n'
    printf 'stall_released_ignored\tloom_pool\tbug\tZ3\ta wait whose latch is set or that has mail is not blocked\tit still counts\n'
    printf 'stall_escape_off\tloom_pool\tbug\tZ9\ta stall of waits that may not leave runs queued work of its pool on top of one\tit is printed, and stays\n'
    printf 'waiter_unserved\tloom_pool\tbug\tY1\twork a cross-pool waiter awaits hands it the jobs it needs of its pool\tthey are queued as any job\n'
}

run_mutant() {
    local name=$1 suite=$2 kind=$3 log="$OUT/$1.log" var start status
    var=STEALPOOL_WEAKEN
    [ "$kind" = bug ] && var=STEALPOOL_BUG
    start=$(date +%s)
    env "$var=$name" timeout --kill-after=30 "$TIMEOUT" \
        cargo test --features loom --release --test "$suite" -- --test-threads=1 --nocapture ${MUTANT_MODELS:-} >"$log" 2>&1
    status=$?
    echo "$status $(( $(date +%s) - start ))" > "$OUT/$name.status"
}

# One table row from a mutant's log.
row() {
    local name=$1 suite=$2 kind=$3 id=$4 strong=$5 weak=$6 log="$OUT/$1.log" status secs failed assertion execs verdict
    read -r status secs < "$OUT/$name.status"
    failed=$(grep -oE '^test [a-z_0-9]+ \.\.\. FAILED' "$log" | awk '{print $2}' | paste -sd, -)
    # With --nocapture a failing test's name and its FAILED are apart; the
    # runner's own line names the model (support/loom_run.rs).
    [ -n "$failed" ] || failed=$(grep -oE 'model [a-z_0-9/]+: FAILED' "$log" | awk '{print $2}' | sed 's/[:/].*//' | sort -u | paste -sd, -)
    assertion=$(grep -A1 -m1 'panicked at' "$log" | tail -n1 | cut -c1-90 | tr '|' '/')
    # The failing model's execution count when a model failed (support/loom_run.rs
    # prints "model NAME: FAILED in execution N"), else the first model's.
    execs=$(grep -m1 -oE 'FAILED in execution [0-9]+' "$log" | awk '{print $4 " (failing)"}')
    [ -n "$execs" ] || execs=$(grep -oE 'model [a-z_0-9]+: [0-9]+ executions' "$log" | head -n1 | awk '{print $3}')
    # A model that deadlocks makes loom abort the test binary (no FAILED
    # line): that is a caught mutant too, as is a causality error, and a
    # panic the pool's abort-on-unwind guard stopped (the model's check
    # fired inside a job), and a model whose failure loom's teardown turned
    # into an abort.
    if [ -z "$failed" ] && grep -qE 'deadlock;|Causality violation|a panic escaped a job|panicked at model/loom/|panic in a destructor during cleanup' "$log"; then
        failed=$(grep -oE 'model [a-z_0-9]+: exploring' "$log" | tail -n1 | awk '{print $2}' | tr -d :)
        failed=${failed:-aborted}
        assertion=$(grep -m1 -oE 'deadlock; threads = .{0,60}|Causality violation.{0,60}' "$log" | tr '|' '/')
        # A model's own check, failed in its closure before loom aborted.
        [ -n "$assertion" ] || assertion=$(grep -A1 -m1 'panicked at model/loom/' "$log" | tail -n1 | cut -c1-90 | tr '|' '/')
        [ -n "$assertion" ] || assertion=$(grep -A1 -m1 'panicked at' "$log" | tail -n1 | cut -c1-90 | tr '|' '/')
    fi
    # What loom's own message hides: a read of a cell whose object loom
    # already freed is an element taken twice (its second taker reads it
    # after the first dropped it); the allocator's abort is a double free.
    if grep -q 'unexpected object stored at reference' "$log"; then
        assertion="an element taken twice: a freed element read (loom: unexpected object stored at reference)"
    fi
    if grep -q 'double free detected' "$log"; then
        local freed
        freed=$(grep -B3 -m1 'double free detected' "$log" | grep -oE 'model [a-z_0-9]+: exploring' | tail -n1 | awk '{print $2}' | tr -d :)
        assertion="${assertion:+$assertion; }${freed:-a model} aborted on a double free"
        # The abort ends the run at that model: it is the one that caught it.
        [ -n "$failed" ] || failed=${freed:-aborted}
    fi
    if [ -n "$failed" ]; then
        verdict="**caught**"
    elif [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        verdict="timeout (${secs}s)"
    elif [ "$status" -ne 0 ]; then
        verdict="build/run error $status"
    else
        verdict="not caught"
    fi
    printf '| %s | `%s` | %s | %s → %s | %s | %s | %s | %s |\n' \
        "$id" "$name" "$kind" "$strong" "$weak" "$verdict" "${failed:--}" "${execs:--}" "${assertion:--}"
}

WRITE=all
if [ "${1:-}" = --write ]; then
    WRITE=rows
    shift
elif [ $# -gt 0 ]; then
    WRITE=none
fi
FILTER=" $* "
mapfile -t MUTANTS < <(list_mutants)
for line in "${MUTANTS[@]}"; do
    IFS=$'\t' read -r name suite kind id strong weak <<<"$line"
    if [ $# -gt 0 ] && [[ $FILTER != *" $name "* ]]; then continue; fi
    echo "==> $name ($kind, $suite)" >&2
    run_mutant "$name" "$suite" "$kind"
done

TABLE="$OUT/table.md"
{
    echo "| ID | mutant | kind | ordering | verdict | failing models | executions (first model) | failing assertion |"
    echo "|---|---|---|---|---|---|---|---|"
    for line in "${MUTANTS[@]}"; do
        IFS=$'\t' read -r name suite kind id strong weak <<<"$line"
        if [ $# -gt 0 ] && [[ $FILTER != *" $name "* ]]; then continue; fi
        [ -f "$OUT/$name.status" ] && row "$name" "$suite" "$kind" "$id" "$strong" "$weak"
    done
} > "$TABLE"
cat "$TABLE"
[ "$WRITE" = none ] && exit 0

# Replace the generated block of proofs/orderings.md, keep the rest; with
# --write, only the rows of the mutants run (a new one goes last).
DOC=proofs/orderings.md
if [ "$WRITE" = rows ] && [ -f "$DOC" ]; then
    awk -v table="$TABLE" '
        BEGIN { while ((getline l < table) > 0) if (l ~ /^\| [A-Z]/) { split(l, f, "`"); rows[f[2]] = l } }
        /<!-- mutants:end -->/ { for (n in rows) if (!(n in done)) print rows[n] }
        /^\| [A-Z]/ { split($0, f, "`"); if (f[2] in rows) { print rows[f[2]]; done[f[2]] = 1; next } }
        { print }' "$DOC" > "$DOC.tmp" && mv "$DOC.tmp" "$DOC"
    echo "updated the rows of $* in $DOC" >&2
elif [ -f "$DOC" ] && grep -q '<!-- mutants:begin -->' "$DOC"; then
    awk -v table="$TABLE" '
        /<!-- mutants:begin -->/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
        /<!-- mutants:end -->/ { skip = 0 }
        !skip' "$DOC" > "$DOC.tmp" && mv "$DOC.tmp" "$DOC"
    echo "updated $DOC" >&2
fi
