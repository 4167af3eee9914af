//! The mutation switches, all in this file: every memory ordering that a
//! proof argues for is declared through [`orderings!`], which also declares
//! its one-step-weaker mutant, selected at build time with
//! `RUSTFLAGS='--cfg stealpool_weaken="NAME"'` (or `STEALPOOL_WEAKEN=NAME`,
//! see `build.rs`); every protocol mistake put back on purpose is a name
//! of [`bug!`], selected with `--cfg stealpool_bug="NAME"`. `model/scripts/mutants.sh` builds each mutant and runs the loom
//! models against it; `proofs/orderings.md` records what they find.

/// Declares ordering constants and their mutants:
/// `NAME: Type = strong, weakened "flag" => weak;`
macro_rules! orderings {
    ($( $(#[$doc:meta])* $name:ident: $ty:ty = $strong:expr, weakened $flag:literal => $weak:expr; )*) => {
        $(
            $(#[$doc])*
            #[cfg(not(stealpool_weaken = $flag))]
            pub(crate) const $name: $ty = $strong;
            $(#[$doc])*
            #[cfg(stealpool_weaken = $flag)]
            pub(crate) const $name: $ty = $weak;
        )*
    };
}

pub(crate) use orderings;

/// The bug flags, all of them: each puts back one mistake that a proof
/// rules out (a historical bug, a step left out, a rule broken), so that a
/// checker can show it catches it. A build turns one on with
/// `--cfg stealpool_bug="NAME"` or `STEALPOOL_BUG=NAME` (`build.rs`);
/// `proofs/orderings.md` has a row for each, naming the checker that
/// catches it. `bug!("NAME")` is a constant, `true` in that build only, so
/// the fixed code and the mutant are both compiled in every build and the
/// optimiser drops the one not taken; a name that is not listed here does
/// not compile. Grouped by the file that uses each.
macro_rules! bug {
    // lockfree/bounded/shared.rs
    ("bounded_unchecked_help") => {
        cfg!(stealpool_bug = "bounded_unchecked_help")
    };
    // lockfree/deque/ordering.rs
    ("relaxed_buffer_publish") => {
        cfg!(stealpool_bug = "relaxed_buffer_publish")
    };
    // lockfree/deque/stealer.rs
    ("batch_wide_cas") => {
        cfg!(stealpool_bug = "batch_wide_cas")
    };
    ("stale_buffer") => {
        cfg!(stealpool_bug = "stale_buffer")
    };
    // lockfree/deque/worker.rs
    ("oldest_store") => {
        cfg!(stealpool_bug = "oldest_store")
    };
    ("oldest_stale_word") => {
        cfg!(stealpool_bug = "oldest_stale_word")
    };
    // lockfree/injector/queue.rs
    ("batch_newest_first") => {
        cfg!(stealpool_bug = "batch_newest_first")
    };
    // pool/api/handle/continuation.rs
    ("when_all_reversed") => {
        cfg!(stealpool_bug = "when_all_reversed")
    };
    // pool/api/handle/mod.rs
    ("claim_ignored") => {
        cfg!(stealpool_bug = "claim_ignored")
    };
    ("finished_early") => {
        cfg!(stealpool_bug = "finished_early")
    };
    ("then_unlocked") => {
        cfg!(stealpool_bug = "then_unlocked")
    };
    ("wait_not_in_place") => {
        cfg!(stealpool_bug = "wait_not_in_place")
    };
    ("inputs_not_in_place") => {
        cfg!(stealpool_bug = "inputs_not_in_place")
    };
    ("wait_runs_any") => {
        cfg!(stealpool_bug = "wait_runs_any")
    };
    // pool/kernel/attention.rs
    ("sleeper_unannounced") => {
        cfg!(stealpool_bug = "sleeper_unannounced")
    };
    // pool/kernel/join/pending.rs
    ("fallback_index_kept") => {
        cfg!(stealpool_bug = "fallback_index_kept")
    };
    ("pending_limit_ignored") => {
        cfg!(stealpool_bug = "pending_limit_ignored")
    };
    // pool/kernel/registry.rs
    ("bounded_unchecked") => {
        cfg!(stealpool_bug = "bounded_unchecked")
    };
    ("pending_unchecked") => {
        cfg!(stealpool_bug = "pending_unchecked")
    };
    ("slots_unmarked") => {
        cfg!(stealpool_bug = "slots_unmarked")
    };
    ("wait_all_queues_only") => {
        cfg!(stealpool_bug = "wait_all_queues_only")
    };
    // pool/kernel/sleep/accounts.rs
    ("closed_unlocked") => {
        cfg!(stealpool_bug = "closed_unlocked")
    };
    ("no_spare") => {
        cfg!(stealpool_bug = "no_spare")
    };
    // pool/kernel/sleep/mod.rs
    ("exit_unchecked") => {
        cfg!(stealpool_bug = "exit_unchecked")
    };
    ("flag_after_check") => {
        cfg!(stealpool_bug = "flag_after_check")
    };
    ("local_push_unfenced") => {
        cfg!(stealpool_bug = "local_push_unfenced")
    };
    ("park_unannounced") => {
        cfg!(stealpool_bug = "park_unannounced")
    };
    ("spare_leaves_at_shutdown") => {
        cfg!(stealpool_bug = "spare_leaves_at_shutdown")
    };
    ("wake_unlocked") => {
        cfg!(stealpool_bug = "wake_unlocked")
    };
    ("workers_leave_while_blocking") => {
        cfg!(stealpool_bug = "workers_leave_while_blocking")
    };
    // pool/kernel/spares.rs
    ("drain_uncompensated") => {
        cfg!(stealpool_bug = "drain_uncompensated")
    };
    ("park_unlocked") => {
        cfg!(stealpool_bug = "park_unlocked")
    };
    // pool/kernel/worker/levels.rs
    ("level_newest_first") => {
        cfg!(stealpool_bug = "level_newest_first")
    };
    ("level_steal_half") => {
        cfg!(stealpool_bug = "level_steal_half")
    };
    ("normal_batch_plain") => {
        cfg!(stealpool_bug = "normal_batch_plain")
    };
    ("overdue_newest") => {
        cfg!(stealpool_bug = "overdue_newest")
    };
    ("sources_alternate") => {
        cfg!(stealpool_bug = "sources_alternate")
    };
    // pool/kernel/worker/search.rs
    ("mail_unchecked") => {
        cfg!(stealpool_bug = "mail_unchecked")
    };
    ("no_rescue") => {
        cfg!(stealpool_bug = "no_rescue")
    };
    // pool/kernel/worker/waits.rs
    ("join_wait_runs_any") => {
        cfg!(stealpool_bug = "join_wait_runs_any")
    };
    ("wait_ignores_mail") => {
        cfg!(stealpool_bug = "wait_ignores_mail")
    };
    // pool/kernel/serving.rs
    ("waiter_unserved") => {
        cfg!(stealpool_bug = "waiter_unserved")
    };
    ("lend_any") => {
        cfg!(stealpool_bug = "lend_any")
    };
    ("posts_unfiltered") => {
        cfg!(stealpool_bug = "posts_unfiltered")
    };
    // pool/api/cross_pool.rs
    ("install_unwatched") => {
        cfg!(stealpool_bug = "install_unwatched")
    };
    // pool/kernel/worker/waits.rs
    ("own_waits_unwatched") => {
        cfg!(stealpool_bug = "own_waits_unwatched")
    };
    // pool/kernel/stall.rs
    ("stall_due_ignored") => {
        cfg!(stealpool_bug = "stall_due_ignored")
    };
    ("exact_recheck_off") => {
        cfg!(stealpool_bug = "exact_recheck_off")
    };
    ("stall_escape_off") => {
        cfg!(stealpool_bug = "stall_escape_off")
    };
    ("counted_look_still_only") => {
        cfg!(stealpool_bug = "counted_look_still_only")
    };
    ("counted_look_leavers_only") => {
        cfg!(stealpool_bug = "counted_look_leavers_only")
    };
    ("others_sets_ignored") => {
        cfg!(stealpool_bug = "others_sets_ignored")
    };
    ("stall_unchecked") => {
        cfg!(stealpool_bug = "stall_unchecked")
    };
    ("stall_inputs_ignored") => {
        cfg!(stealpool_bug = "stall_inputs_ignored")
    };
    ("stall_released_ignored") => {
        cfg!(stealpool_bug = "stall_released_ignored")
    };
    ("stall_awaits_ignored") => {
        cfg!(stealpool_bug = "stall_awaits_ignored")
    };
    // pool/api/handle/mod.rs
    ("need_unread") => {
        cfg!(stealpool_bug = "need_unread")
    };
    // pool/kernel/fifo.rs
    ("fifo_marker_first") => {
        cfg!(stealpool_bug = "fifo_marker_first")
    };
    // pool/queues/injector.rs
    ("nodes_unchecked") => {
        cfg!(stealpool_bug = "nodes_unchecked")
    };
    // pool/queues/priority.rs
    ("levels_unchecked") => {
        cfg!(stealpool_bug = "levels_unchecked")
    };
    ("stage_newest_first") => {
        cfg!(stealpool_bug = "stage_newest_first")
    };
}

pub(crate) use bug;

/// Runs a fence if the ordering table asks for one (a weakened fence is
/// `None`: no fence at all).
#[inline(always)]
pub(crate) fn fence(order: Option<crate::sync::Ordering>) {
    if let Some(order) = order {
        crate::sync::fence(order);
    }
}

/// Which side of an asymmetric pair a barrier is (M1 in `proofs/sleep.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Barrier {
    /// The hot side: pairs only with a heavy barrier.
    Light,
    /// The rare side.
    Heavy,
}

/// Runs a barrier if the ordering table asks for one (a weakened barrier is
/// `None`: no barrier at all).
#[inline(always)]
pub(crate) fn barrier(barrier: Option<Barrier>) {
    match barrier {
        Some(Barrier::Light) => crate::sync::light_barrier(),
        Some(Barrier::Heavy) => crate::sync::heavy_barrier(),
        None => {}
    }
}

/// As [`barrier`], for a caller that read `crate::sync::barriers_expedited()`
/// when it was made: its light barriers test that field, which it has at
/// hand, rather than a global whose address the compiler would otherwise
/// keep in a register across the user's code.
#[inline(always)]
pub(crate) fn barrier_known(barrier: Option<Barrier>, expedited: bool) {
    match barrier {
        Some(Barrier::Light) => crate::sync::light_barrier_known(expedited),
        Some(Barrier::Heavy) => crate::sync::heavy_barrier(),
        None => {}
    }
}
