#!/usr/bin/env bash
# The whole verification gauntlet in one command, with a summary table.
#
#   model/scripts/verify.sh            everything, with the bounds CI uses
#   model/scripts/verify.sh STEP...    only these steps (fmt clippy flags msrv minver test peers rayon_peers typed yours
#                              pinned stack loom shuttle lin lin_mutants thread_mutants fuzz miri tsan
#                              mutants_smoke mutants)
#
# Each step runs under `timeout`, logs to target/verify/STEP.log, and adds a
# row to the summary: property, checker, executions, time, result. Model
# suites are also checked for vacuity: every test the suite lists must have
# run and passed, and every model prints "... N executions in T" after
# asserting N against its floor; the summary adds them up.
#
# Bounds (seconds) can be overridden from the environment:
#   FUZZ_SECONDS (per fuzz target, default 60), MIRI_SEEDS (default 16),
#   MIRI_POOL_SEEDS (default 32).
#
# The loom and shuttle models run their full bounds here
# (STEALPOOL_MODEL_BOUNDS=full; model/support/bounds.rs): a plain
# `cargo test --features loom` runs the quick ones. Each model's line names
# the bounds it ran, and a model suite whose log shows a quick one fails.
# STEALPOOL_MODEL_BOUNDS=quick model/scripts/verify.sh loom shuttle is a short
# local pass, not a check of the full bounds.
set -uo pipefail
cd "$(dirname "$0")/../.."
export STEALPOOL_MODEL_BOUNDS=${STEALPOOL_MODEL_BOUNDS:-full}

LOGS=target/verify
mkdir -p "$LOGS"
SUMMARY="$LOGS/summary.txt"
: > "$SUMMARY"
FAILED=0
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
MIRI_SEEDS=${MIRI_SEEDS:-16}
MIRI_POOL_SEEDS=${MIRI_POOL_SEEDS:-32}
MIRI_ITER_SEEDS=${MIRI_ITER_SEEDS:-3}

row() { printf '| %-34s | %-22s | %-24s | %7s | %-6s |\n' "$@" | tee -a "$SUMMARY"; }

# run STEP LIMIT PROPERTY CHECKER -- command...
run() {
    local step=$1 limit=$2 property=$3 checker=$4
    shift 5
    local log="$LOGS/$step.log" start end status executions
    echo "==> [$step] $*" >&2
    start=$(date +%s)
    timeout --kill-after=30 "$limit" "$@" >"$log" 2>&1
    status=$?
    end=$(date +%s)
    # Every model prints "... N executions in T" (or "N schedules in T")
    # once it has asserted N against its floor.
    executions=$(grep -oE '[0-9]+ (executions|schedules) in ' "$log" | awk '{s += $1} END {if (NR) printf "%d in %d runs", s, NR}')
    if [ $status -eq 0 ]; then
        row "$property" "$checker" "${executions:--}" "$((end - start))s" "pass"
    else
        [ $status -eq 124 ] && echo "[$step] timed out after ${limit}s" >&2
        row "$property" "$checker" "${executions:--}" "$((end - start))s" "FAIL"
        tail -n 60 "$log" >&2
        FAILED=1
    fi
    return $status
}

# The model suites: the crate's unit tests and the checker's own harnesses
# (every other test file has no test under a checker), built with the
# `model` profile (Cargo.toml: release with fat LTO, which inlines the
# checker's bookkeeping into the models; about 20% less time per execution).
model_targets() {
    echo "--profile model --lib ${2:-}"
    sed -n "s/^name = \"\($1_[a-z_]*\)\"$/--test \1/p" Cargo.toml
}

# Every test a model suite lists must appear as passed in its log, and
# every model line must name the bounds asked for.
check_not_vacuous() {
    local step=$1 features=$2 listed missing other
    other=quick
    [ "$STEALPOOL_MODEL_BOUNDS" = quick ] && other=full
    if grep -q "$other bounds" "$LOGS/$step.log"; then
        row "$step: $STEALPOOL_MODEL_BOUNDS bounds only" "log" "$(grep -c "$other bounds" "$LOGS/$step.log") $other" "-" "FAIL"
        FAILED=1
    fi
    # shellcheck disable=SC2046
    listed=$(cargo test --features "$features" $(model_targets "$features" "${3:-}") -- --list 2>/dev/null | grep ': test$' | sed 's/: test$//' | sort -u)
    missing=""
    for t in $listed; do
        grep -qE "^test $t \.\.\. ok$" "$LOGS/$step.log" && continue
        # A same-bound model the loom step skipped: passed as typed.
        if [ "$step" = loom ] && [ "$TYPED_LOOM_PASSED" = 1 ] && [[ " $(echo $SAME_BOUND_LOOM) " == *" $t "* ]] &&
            grep -qE "^test $t \.\.\. ok$" "$LOGS/typed_loom.log"; then
            continue
        fi
        missing="$missing $t"
    done
    if [ -z "$listed" ]; then
        row "$step suite lists its tests" "cargo test --list" "0 listed" "-" "FAIL"
        FAILED=1
    elif [ -n "$missing" ]; then
        row "$step: every listed model ran" "log vs --list" "missing:$missing" "-" "FAIL"
        FAILED=1
    else
        row "$step: every listed model ran" "log vs --list" "$(echo "$listed" | wc -l) of $(echo "$listed" | wc -l)" "-" "pass"
    fi
}

step_fmt() { run fmt 300 "formatting" "rustfmt" -- cargo fmt --all -- --check; }

step_clippy() {
    # Rustdoc's own lints first (broken intra-doc links), as docs.rs builds,
    # then clippy on each backend.
    run clippy 1200 "lints, all backends; docs" "clippy, rustdoc -D warnings" -- bash -c '
        RUSTDOCFLAGS="-D warnings" cargo doc --no-deps &&
        cargo clippy --all-targets -- -D warnings &&
        cargo clippy --features loom --release --all-targets -- -D warnings &&
        cargo clippy --features shuttle --release --all-targets -- -D warnings'
}

step_test() { run test 1200 "API, stress, proptest, doc" "cargo test (real threads)" -- cargo test; }

# crossbeam-deque's own tests, taken from the cargo registry when this runs
# (never copied into the tree), against stealpool::deque; every test runs
# (a cut would be listed in the log with its reason).
step_peers() {
    run peers 900 "crossbeam-deque's own tests" "cargo test (registry)" -- bash model/scripts/crossbeam_tests.sh
}

step_rayon_peers() {
    # rayon's and rayon-core's own tests against stealpool's rayon names,
    # with every cut listed and checked (rayon_tests.sh); in the target
    # directory of the peers step, so stealpool is built once for both.
    run rayon_peers 1200 "rayon's and rayon-core's own tests" "cargo test (registry)" -- \
        env PEER_TESTS_SECONDS=1100 bash model/scripts/rayon_tests.sh
    grep -E "^rayon [0-9.]+'s and rayon-core" "$LOGS/rayon_peers.log" | tail -n 1 >&2
}

# The commands the README and CONTRIBUTING.md give users, exactly as typed:
# every test target runs under the feature or is compiled out there, and
# the models run their quick bounds (no STEALPOOL_MODEL_BOUNDS in the
# environment). The full bounds run in the loom and shuttle steps. On a
# fresh clone on 2026-11-28: loom 211 s, shuttle 87 s, builds included.
TYPED_LOOM_PASSED=0
step_typed() {
    run typed_loom 1500 "as typed: cargo test --features loom" "loom, quick bounds" -- \
        env -u STEALPOOL_MODEL_BOUNDS cargo test --features loom && TYPED_LOOM_PASSED=1
    run typed_shuttle 1500 "as typed: cargo test --features shuttle" "shuttle, quick bounds" -- \
        env -u STEALPOOL_MODEL_BOUNDS cargo test --features shuttle
}

step_yours() {
    # A user's crate that model-checks its own code on stealpool
    # (examples/model-your-code, docs/guide/model-checking.md): plain
    # build, then each planted race found and each fixed twin passing
    # under shuttle (3 000 schedules each), then each planted race found
    # by loom at preemption bound 2 (about 30 s in release).
    run yours 1200 "your program, model-checked" "shuttle 3000, loom bound 2" -- \
        bash -c "cd examples/model-your-code &&
            cargo test &&
            cargo test --features shuttle &&
            cargo test --release --features loom"
}

# loom models whose full bounds are their quick ones (one preemption bound
# and floor for both, `explore`, or the same pair twice): once the typed
# step has passed, they have been explored at exactly these bounds, and the
# loom step skips them (about 190 s of the step's two test threads; the
# typed step's log must show each one passed). Run alone, the loom step
# runs them all.
SAME_BOUND_LOOM="join_waits_run_no_unrelated_task public_injector_refill_handover join_promote_vs_take
    evicting_a_delivered_element join_latch_vs_sleep spawn_broadcast_vs_sleep
    dependent_handles_on_two_workers submit_two_vs_park_2_workers"

step_loom() {
    # About 12 minutes here until 2026-11-26 (653 s and 713 s, 2 cores,
    # build included), more than half of it one model: `block_after_spawn`
    # at bound 3 (1 517 586 executions, 310 s alone, 455 s beside the
    # others). It runs at bound 2 now (56 355 executions), where it still
    # catches what it is for (`local_push_unfenced`, `producer_fence`).
    # libtest runs a binary's tests on two threads, in name order.
    # `submit_vs_park_2_workers` went to bound 2 (see its comment).
    # The limit only stops a hang, with room for a slower machine.
    local skip=() name
    if [ "$TYPED_LOOM_PASSED" = 1 ]; then
        for name in $SAME_BOUND_LOOM; do skip+=(--skip "$name"); done
    fi
    # shellcheck disable=SC2046
    run loom 2100 "deque, pool, injector: C11" "loom (exhaustive, bounded)" -- \
        cargo test --features loom $(model_targets loom) -- --show-output --exact "${skip[@]}"
    check_not_vacuous loom loom
}

step_shuttle() {
    # shellcheck disable=SC2046
    run shuttle 900 "deque, pool, injector: schedules" "shuttle (random + PCT)" -- \
        cargo test --features shuttle $(model_targets shuttle "--test lin_deque") -- --show-output
    check_not_vacuous shuttle shuttle "--test lin_deque"
}

step_lin() {
    # Linearizability of the deque (proofs/linearizability.md): every
    # recorded history judged against the sequential specification, under
    # shuttle schedules and on real threads. The shuttle binary is already
    # built by the shuttle step; the real-thread test runs in release, where
    # its race test catches a missing D3 fence (in debug it does not), and
    # needs only this crate rebuilt (the stack step built the release
    # dependencies).
    run lin_shuttle 600 "deque linearizable (shuttle)" "lin checker, random+PCT" -- \
        cargo test --features shuttle --profile model --test lin_deque -- --nocapture
    run lin_threads 600 "deque linearizable (threads)" "lin checker, threads, release" -- \
        cargo test --release --test deque_linearizable -- --nocapture
    # The pool's objects (proofs/linearizability.md, "The pool's objects"):
    # handles, when_all and zip, FIFO per submitter per level (V8),
    # wait_all as quiescence. In the plain test profile: its build is
    # incremental, so the lin_mutants step rebuilds it in seconds per bug
    # flag, where a fat-LTO `model` build takes about a minute.
    run lin_pool 600 "pool objects: histories (shuttle)" "history checks, random+PCT" -- \
        cargo test --features shuttle --test lin_pool -- --nocapture
}

step_lin_mutants() {
    # Expected-failure mutants through the history checkers: the bug flags
    # stale_buffer (R2) and batch_wide_cas (B1) built into lin_deque,
    # batch_newest_first (Q7) into shuttle_injector's queue check,
    # finished_early, when_all_reversed, stage_newest_first,
    # level_steal_half (V8) and wait_all_queues_only into lin_pool, and
    # normal_batch_plain (V9) into shuttle_priority's start-order model,
    # each required to fail its named test with the checker's report
    # (model/scripts/lin_mutants.sh; the seeds are fixed, so each is caught at the
    # same schedule every run). Runs after the lin step, whose builds it
    # rebuilds only this crate of; no later step uses them.
    run lin_mutants 900 "lin mutants: deque, queue, pool, start order" "history checkers, shuttle" -- model/scripts/lin_mutants.sh
    grep '^mutant ' "$LOGS/lin_mutants.log" >&2
}

step_thread_mutants() {
    # Bug flags that only real threads see, each required to fail the
    # test proofs/orderings.md names for it (model/scripts/thread_mutants.sh):
    # posts and lending out of Y5's order (H5's report instead of the
    # detector's), a level's sources out of turn (V8), and the stall
    # detector's rules (Z6-Z9), whose mutants hang their test until its
    # watchdog, shortened to 20 s here. Incremental rebuilds of the test
    # profile `cargo test` built: a few seconds each.
    run thread_mutants 1200 "real-thread mutants: waits, stalls, levels" "tests on mutants, threads" -- model/scripts/thread_mutants.sh
    grep '^mutant ' "$LOGS/thread_mutants.log" >&2
}

step_fuzz() {
    # New inputs go to a scratch corpus; the committed seeds are read only.
    local scratch=target/verify/corpus
    run fuzz_deque_ops $((FUZZ_SECONDS + 900)) "deque vs reference model" "cargo fuzz ${FUZZ_SECONDS}s" -- \
        bash -c "mkdir -p $scratch/deque_ops && cd fuzz && cargo +nightly fuzz run deque_ops \
            ../$scratch/deque_ops corpus/deque_ops -- -max_total_time=$FUZZ_SECONDS"
    for target in deque_schedule pool_schedule; do
        [ -f "fuzz/fuzz_targets/$target.rs" ] || continue
        run "fuzz_$target" $((FUZZ_SECONDS + 900)) "fuzzed schedules: $target" "cargo fuzz + shuttle ${FUZZ_SECONDS}s" -- \
            bash -c "mkdir -p $scratch/$target && cd fuzz && cargo +nightly fuzz run --features schedule $target \
                ../$scratch/$target corpus/$target -- -max_total_time=$FUZZ_SECONDS"
    done
}

step_miri() {
    # Deque tests over many seeds (each seed another schedule and weak-memory
    # choice), under both aliasing models; the pool's API, panic and edge
    # tests once; and the pool's cross-thread waits (tests/pool_miri.rs:
    # stolen scope tasks and join halves, install, handles, two pools) over
    # many seeds under both models, where a completion signalled while a
    # frame still holds a protected borrow shows up. Counts are scaled down
    # under cfg(miri) in the tests themselves.
    run miri_deque 1500 "deque: UB, races, leaks" "Miri SB, ${MIRI_SEEDS} seeds" -- \
        env MIRIFLAGS="-Zmiri-many-seeds=0..${MIRI_SEEDS}" CARGO_TARGET_DIR=target/miri \
        cargo +nightly miri test --test deque_threads
    run miri_deque_tb 1500 "deque: UB under Tree Borrows" "Miri TB, $((MIRI_SEEDS / 2)) seeds" -- \
        env MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-many-seeds=0..$((MIRI_SEEDS / 2))" CARGO_TARGET_DIR=target/miri \
        cargo +nightly miri test --test deque_threads
    # The bounded deque (tests/deque_bounded.rs, proofs/bounded.md):
    # requesters' slot reads, growth, drops of what is left in slots or
    # delivered, claims and requests; one seed in eight of the deque's, at
    # least two, under each aliasing model (CI's MIRI_SEEDS=8 gives two:
    # 57 s in a full local run, 75 s with one seed each before). Miri runs
    # the seeds of -Zmiri-many-seeds side by side, one per CPU, so on two
    # CPUs a second seed costs little. Its unit tests
    # (src/lockfree/bounded/tests.rs) drive a delivery and an eviction (G10) by
    # hand, under Stacked Borrows once.
    local bounded_seeds=$((MIRI_SEEDS / 8 > 2 ? MIRI_SEEDS / 8 : 2))
    run miri_bounded 900 "bounded deque: UB, races, leaks" "Miri SB+TB, ${bounded_seeds} seeds each" -- \
        bash -c "MIRIFLAGS='-Zmiri-many-seeds=0..${bounded_seeds}' CARGO_TARGET_DIR=target/miri \
            cargo +nightly miri test --test deque_bounded &&
            CARGO_TARGET_DIR=target/miri cargo +nightly miri test --lib deque::bounded &&
            MIRIFLAGS='-Zmiri-tree-borrows -Zmiri-many-seeds=0..${bounded_seeds}' CARGO_TARGET_DIR=target/miri \
            cargo +nightly miri test --test deque_bounded"
    run miri_deque_model 1500 "deque vs reference model" "Miri" -- \
        env CARGO_TARGET_DIR=target/miri cargo +nightly miri test --test deque_proptest
    # The pool's API, panic, edge, priority and bounded-deque tests: two
    # seeds, side by side (as for the bounded deque above: 207 s for both in
    # a full local run, 201 s for one before).
    run miri_pool 1500 "pool: UB, races, leaks" "Miri, 2 seeds" -- \
        env MIRIFLAGS="-Zmiri-many-seeds=0..2" CARGO_TARGET_DIR=target/miri \
        cargo +nightly miri test --test pool_spawn_submit --test pool_join_scope \
        --test pool_install_wait_all --test pool_config_stats --test pool_shutdown \
        --test pool_panics --test pool_edges --test pool_priority_order \
        --test pool_priority_starvation --test pool_priority_fifo \
        --test pool_priority_stats --test pool_bounded --test pool_broadcast
    run miri_pool_waits_sb 1500 "pool waits: protected borrows" "Miri SB, ${MIRI_POOL_SEEDS} seeds" -- \
        env MIRIFLAGS="-Zmiri-many-seeds=0..${MIRI_POOL_SEEDS}" CARGO_TARGET_DIR=target/miri \
        cargo +nightly miri test --test pool_miri
    run miri_pool_waits_tb 1500 "pool waits: protected borrows" "Miri TB, ${MIRI_POOL_SEEDS} seeds" -- \
        env MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-many-seeds=0..${MIRI_POOL_SEEDS}" CARGO_TARGET_DIR=target/miri \
        cargo +nightly miri test --test pool_miri
    # Continuations (tests/pool_continuation.rs): a result handed from the
    # worker that finishes a task to the one that runs its continuation,
    # arrivals of `when_all` from two threads, chains run in place after
    # shutdown; a quarter of the pool's seeds under each aliasing model.
    run miri_continuation 1500 "continuations: UB, races, leaks" "Miri SB+TB, $((MIRI_POOL_SEEDS / 4)) seeds each" -- \
        bash -c "MIRIFLAGS='-Zmiri-many-seeds=0..$((MIRI_POOL_SEEDS / 4))' CARGO_TARGET_DIR=target/miri \
            cargo +nightly miri test --test pool_continuation &&
            MIRIFLAGS='-Zmiri-tree-borrows -Zmiri-many-seeds=0..$((MIRI_POOL_SEEDS / 4))' CARGO_TARGET_DIR=target/miri \
            cargo +nightly miri test --test pool_continuation"
    # block_in_place (tests/pool_blocking.rs): spare threads taking slots
    # and giving them back, the current-worker pointer set and cleared on
    # a spare's stack, panics in `f`, the drop while a task blocks; a
    # quarter of the pool's seeds under each aliasing model.
    run miri_blocking 1500 "block_in_place: UB, races, leaks" "Miri SB+TB, $((MIRI_POOL_SEEDS / 4)) seeds each" -- \
        bash -c "MIRIFLAGS='-Zmiri-many-seeds=0..$((MIRI_POOL_SEEDS / 4))' CARGO_TARGET_DIR=target/miri \
            cargo +nightly miri test --test pool_blocking &&
            MIRIFLAGS='-Zmiri-tree-borrows -Zmiri-many-seeds=0..$((MIRI_POOL_SEEDS / 4))' CARGO_TARGET_DIR=target/miri \
            cargo +nightly miri test --test pool_blocking"
    # The injector's queue and the pool's outside submissions through it
    # (tests/injector_queue.rs): races on the links, the exposed provenance
    # of a batch's older jobs, leaks; a quarter of the deque's seeds under
    # each aliasing model.
    run miri_injector 1500 "injector: UB, races, leaks" "Miri SB+TB, $((MIRI_SEEDS / 4)) seeds each" -- \
        bash -c "MIRIFLAGS='-Zmiri-many-seeds=0..$((MIRI_SEEDS / 4))' CARGO_TARGET_DIR=target/miri \
            cargo +nightly miri test --test injector_queue &&
            MIRIFLAGS='-Zmiri-tree-borrows -Zmiri-many-seeds=0..$((MIRI_SEEDS / 4))' CARGO_TARGET_DIR=target/miri \
            cargo +nightly miri test --test injector_queue"
    # The parallel iterators' ownership (tests/par_iter_miri.rs,
    # proofs/iter.md I1-I8): Vec::into_par_iter's drain walked both ways,
    # the indexed collect into spare capacity, chain, find_first/last,
    # map_with, collect into Result and par_bridge, finishing, stopping
    # early and panicking; about 9 s a seed, under each aliasing model.
    run miri_iter 600 "parallel iterators: UB, leaks, double drops" "Miri SB+TB, ${MIRI_ITER_SEEDS} seeds each" -- \
        bash -c "MIRIFLAGS='-Zmiri-many-seeds=0..${MIRI_ITER_SEEDS}' CARGO_TARGET_DIR=target/miri \
            cargo +nightly miri test --test par_iter_miri &&
            MIRIFLAGS='-Zmiri-tree-borrows -Zmiri-many-seeds=0..${MIRI_ITER_SEEDS}' CARGO_TARGET_DIR=target/miri \
            cargo +nightly miri test --test par_iter_miri"
}

step_tsan() {
    # Every real-thread test but compile_fail (it runs cargo itself) and
    # allocations (the sanitizer's runtime allocates on its own). A refused
    # allocation returns null, as without the sanitizer.
    # Shorter runs where a round costs ten times more under the sanitizer:
    # the deque's linearizability rounds (500 rounds and 1000 pop-vs-steal
    # races, overlap floors unchanged: 38 s -> 10 s; the release-build step
    # `lin_threads` runs the full count), the soak (10 s of its 20) and the
    # combined programs (3 rounds of their 12).
    # It looks for races in the code the rounds run, which a few hundred
    # overlapping rounds exercise.
    # Nor the tests that start no thread (a sanitizer of races finds none
    # there; 20 s of runs and their builds): the deque's property tests and
    # edge cases, the citation check, the examples' helpers, and the check
    # of the wait-program generator (std threads only, no pool).
    local tests=()
    for f in tests/*.rs; do
        name=$(basename "$f" .rs)
        case $name in
        compile_fail | allocations | deque_proptest | deque_bad_input | proof_citations | example_common | wait_programs_generator) ;;
        *) tests+=(--test "$name") ;;
        esac
    done
    # Built once, so without incremental state (half of a debug build's
    # disk).
    run tsan 1800 "real-thread tests: data races" "ThreadSanitizer" -- \
        env CARGO_INCREMENTAL=0 RUSTFLAGS="-Zsanitizer=thread" RUSTDOCFLAGS="-Zsanitizer=thread" CARGO_TARGET_DIR=target/tsan \
        TSAN_OPTIONS="allocator_may_return_null=1" \
        STEALPOOL_LIN_ROUNDS=500 STEALPOOL_LIN_RACES=1000 STEALPOOL_SOAK_SECONDS=10 STEALPOOL_COMBINED_ROUNDS=3 \
        cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu --no-fail-fast "${tests[@]}"
}

step_flags() {
    # Bug and weakening flags reach stealpool's own builds only, never a
    # dependent's (build.rs; model/scripts/flag_scope.sh builds one in target/).
    run flags 900 "flags stay out of dependents" "flag_scope.sh" -- model/scripts/flag_scope.sh
}

step_msrv() {
    # The library builds on the rust-version Cargo.toml declares (the
    # tests' dev-dependencies need newer ones).
    local msrv
    msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
    run msrv 900 "library builds on rust $msrv" "cargo +$msrv check" -- \
        env CARGO_TARGET_DIR=target/msrv cargo "+$msrv" check --lib
}

step_minver() {
    # Cargo.toml's lower bounds: the library with every direct dependency
    # at its floor (-Z direct-minimal-versions), in a copy of the tree.
    run minver 300 "builds at minimal dep versions" "-Z direct-minimal" -- model/scripts/minimal_versions.sh
}

step_pinned() {
    # rayon-core's `panic_b_still_executes` on a pool of one worker per
    # CPU, with the process pinned to one CPU: nobody can steal `b`.
    run pinned 600 "join runs b when a panics, 1 CPU" "taskset -c 0" -- \
        taskset -c 0 cargo test --test pool_waits rayon_core_panic_b_still_executes
}

step_stack() {
    # join recursion 10 000 deep on 2 workers with the default worker stack,
    # and no more stack per level than rayon (examples/join_stack.rs).
    run stack 900 "join depth 10000, stack vs rayon" "release run" -- \
        cargo run --release --example join_stack -- --check 10000
}

step_mutants() { run mutants 3000 "each ordering is needed" "loom on mutants" -- model/scripts/mutants.sh; }

# A bounded sample of the mutation check for CI: the two historical bugs,
# the producer's fence of the sleep protocol (on every push, and on a
# worker's own deque alone) and the injector's publishing CAS must each be
# caught.
SMOKE_MUTANTS="stale_buffer relaxed_buffer_publish producer_fence local_push_unfenced injector_push"
# And the newest rule of the waits, a cross-pool waiter served the jobs
# its awaited work needs (Y1), through the cross-pool models alone (31 s).
SMOKE_POOL_MUTANTS="waiter_unserved"
# And the stall detector's subtler way to report a wait that can still
# end (Z3: a released wait counted as parked), through the model that
# must see no report (about 70 s; stall_awaits_ignored, caught by the
# same model, is in the full table).
SMOKE_STALL_MUTANTS="stall_released_ignored"
# And a continuation's unstarted inputs run by the worker that joins it
# (H8), and followed by the stall detector (Z2), through their two models
# (about 30 s).
SMOKE_INPUTS_MUTANTS="inputs_not_in_place stall_inputs_ignored"
# And a stall of waits that may not leave ended by running the queued
# work on top of one (Z9), through its own model (one rebuild, about
# 80 s).
SMOKE_ESCAPE_MUTANTS="stall_escape_off"
step_mutants_smoke() {
    # Each run of mutants.sh writes target/mutants/table.md anew: each
    # set is checked right after its run.
    run mutants_smoke 1800 "mutants caught: ${SMOKE_MUTANTS// /, }, $SMOKE_POOL_MUTANTS, ${SMOKE_STALL_MUTANTS// /, }, ${SMOKE_INPUTS_MUTANTS// /, }, $SMOKE_ESCAPE_MUTANTS" "loom on mutants" -- bash -c "
        caught() { for m in \"\$@\"; do
            grep -F \"\\\`\$m\\\`\" target/mutants/table.md | grep -qF '**caught**' || { echo \"not caught: \$m\"; exit 1; }
        done; }
        model/scripts/mutants.sh $SMOKE_MUTANTS && caught $SMOKE_MUTANTS &&
        MUTANT_MODELS=cross_pool model/scripts/mutants.sh $SMOKE_POOL_MUTANTS && caught $SMOKE_POOL_MUTANTS &&
        MUTANT_MODELS=stall_not model/scripts/mutants.sh $SMOKE_STALL_MUTANTS && caught $SMOKE_STALL_MUTANTS &&
        MUTANT_MODELS='continuation_inputs through_then' model/scripts/mutants.sh $SMOKE_INPUTS_MUTANTS && caught $SMOKE_INPUTS_MUTANTS &&
        MUTANT_MODELS=stall_of_a_scope model/scripts/mutants.sh $SMOKE_ESCAPE_MUTANTS && caught $SMOKE_ESCAPE_MUTANTS"
}

# With VERIFY_PRUNE=1 (.ci/run), each build directory is removed once no
# later step of the whole run reads it: a full run here left 22 GB of
# builds behind (target/debug 9.1 GB, ThreadSanitizer's 7.3 GB, the
# peers' 2.1 GB), and a CI machine with less free disk failed at the
# peers' link ("No space left on device"). The logs stay. A run of
# chosen steps removes nothing unless asked to.
prune_after() {
    [ "${VERIFY_PRUNE:-0}" = 1 ] || return 0
    local dirs=()
    case $1 in
    flags) dirs=(target/flag-scope/primary target/flag-scope/target) ;;
    msrv) dirs=(target/msrv) ;;
    minver) dirs=(target/minver) ;;
    rayon_peers) dirs=(target/peer-tests/target) ;;
    yours) dirs=(examples/model-your-code/target) ;;
    # The last steps to read the model and debug builds (lin_mutants
    # rebuilds lin_deque in `model`, and thread_mutants the test
    # profile's files); the mutant smoke builds in target/release.
    lin_mutants) dirs=(target/model) ;;
    thread_mutants) dirs=(target/debug) ;;
    fuzz) dirs=(fuzz/target) ;;
    miri) dirs=(target/miri) ;;
    tsan) dirs=(target/tsan) ;;
    esac
    [ ${#dirs[@]} -eq 0 ] || rm -rf "${dirs[@]}"
}

# What each step left on disk, for the record: the size of target/ after
# the step (and its pruning) and the free space left.
disk_after() {
    printf '%-16s target %6s, free %6s\n' "$1" "$(du -sh target 2>/dev/null | cut -f1)" \
        "$(df -h . | awk 'NR == 2 {print $4}')" >>"$LOGS/disk.txt"
}

STEPS=("$@")
[ ${#STEPS[@]} -eq 0 ] && STEPS=(fmt clippy flags msrv minver test peers rayon_peers typed yours pinned stack loom shuttle lin lin_mutants thread_mutants fuzz miri tsan mutants_smoke)

printf '| %-34s | %-22s | %-24s | %7s | %-6s |\n' property checker executions time result | tee -a "$SUMMARY"
printf '|%s|%s|%s|%s|%s|\n' ------------------------------------ ------------------------ -------------------------- --------- -------- | tee -a "$SUMMARY"
: >"$LOGS/disk.txt"
disk_after start
for step in "${STEPS[@]}"; do
    "step_$step" || true
    prune_after "$step"
    disk_after "$step"
done
echo
cat "$SUMMARY"
passed=$(grep -c '| pass   |' "$SUMMARY")
failed=$(grep -c '| FAIL   |' "$SUMMARY")
echo
cat "$LOGS/disk.txt"
echo
echo "verify: $passed passed, $failed failed"
exit $FAILED
