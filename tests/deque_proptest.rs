#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! Property tests: random operation sequences on the deque, each step
//! compared with the reference model (`model/support/reference.rs`).
//!
//! The check itself is `model/support/deque_ops.rs`, the same function the
//! `deque_ops` fuzz target runs on nightly; proptest drives it here on stable
//! so every `cargo test` runs it, and shrinks a failure to a short sequence.

#[path = "../model/support/deque_ops.rs"]
mod deque_ops;

use deque_ops::{check_ops, Op, Side};
use proptest::prelude::*;
use std::ops::Range;

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::A), Just(Side::B)]
}

/// Small values are readable when shrunk; `0` travels as a null word and
/// `usize::MAX` as an all-ones word, both worth having.
fn value() -> impl Strategy<Value = usize> {
    prop_oneof![
        6 => 0..100usize,
        1 => Just(0usize),
        1 => Just(usize::MAX),
        2 => any::<usize>(),
    ]
}

/// Operations weighted so that the deques mostly grow (pushes outnumber
/// removals) while still emptying now and then; dropping a worker is rare,
/// since it ends the owner's part of the sequence for that side.
fn op(push: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        push => (side(), value()).prop_map(|(side, value)| Op::Push(side, value)),
        20 => side().prop_map(Op::Pop),
        20 => side().prop_map(Op::Steal),
        30 => (side(), side()).prop_map(|(from, into)| Op::StealBatchAndPop { from, into }),
        1 => side().prop_map(Op::DropWorker),
    ]
}

/// `op`, with the batch steals with a limit (1 to 40, past the default cap
/// of 32) in a fifth of the batches.
fn op_with_limits(push: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => op(push),
        1 => (side(), side(), 1..=40usize, any::<bool>()).prop_map(|(from, into, limit, pop)| {
            Op::StealBatchWithLimit { from, into, limit, pop }
        }),
    ]
}

/// `cases` on real hardware; under Miri (about a thousand times slower, and
/// isolated from the file system where proptest keeps its regressions) a
/// couple of cases with no persistence.
fn config(cases: u32) -> ProptestConfig {
    if cfg!(miri) {
        ProptestConfig {
            failure_persistence: None,
            ..ProptestConfig::with_cases(2)
        }
    } else {
        ProptestConfig::with_cases(cases)
    }
}

/// Sequence lengths: `full` on real hardware, `miri` under Miri, where one
/// operation of `check_ops` costs about a tenth of a second (each runs on
/// three element types, and every atomic access is emulated).
fn length(full: Range<usize>, miri: Range<usize>) -> Range<usize> {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Short sequences from the tiniest capacities, where every few pushes
    /// grow a buffer and indices wrap around the ring.
    #[test]
    fn short_sequences_match_the_model(
        capacity in 0..=4usize,
        ops in prop::collection::vec(op(60), length(0..200, 0..40)),
    ) {
        check_ops(capacity, &ops);
    }
}

proptest! {
    #![proptest_config(config(48))]

    /// Long push-heavy sequences from capacity 1: buffers grow into the
    /// hundreds, and batches hit their cap of 32 (under Miri, shorter: buffers
    /// still grow several times over).
    #[test]
    fn long_sequences_from_capacity_one(ops in prop::collection::vec(op(150), length(500..1500, 60..100))) {
        check_ops(1, &ops);
    }

    /// Any capacity the check accepts, with a balanced mix.
    #[test]
    fn sequences_at_any_capacity(
        capacity in 0..=deque_ops::MAX_CAPACITY,
        ops in prop::collection::vec(op(70), length(0..400, 0..40)),
    ) {
        check_ops(capacity, &ops);
    }
}

proptest! {
    #![proptest_config(config(128))]

    /// Either deque FIFO (`Worker::fifo_with_capacity`, D19) or LIFO, from
    /// the tiniest capacities, with batch steals with and without a limit
    /// between them: the owners' pops, and the order batches hand their
    /// elements over in, against the reference model.
    #[test]
    fn fifo_and_lifo_sequences_match_the_model(
        capacity in 0..=4usize,
        fifo in any::<[bool; 2]>(),
        ops in prop::collection::vec(op_with_limits(60), length(0..300, 0..40)),
    ) {
        deque_ops::check_ops_with(capacity, fifo, &ops);
    }
}

use Op::{Pop, Push, Steal, StealBatchAndPop};
use Side::{A, B};

/// Capacity 2: `top` moves past the start, the next pushes wrap into slot 0,
/// and a push into the full ring grows it while the live range straddles the
/// wrap.
#[test]
fn growth_with_wrapped_indices() {
    let ops = [
        Push(A, 1),
        Push(A, 2),
        Steal(A),
        Push(A, 3),
        Push(A, 4),
        Push(A, 5),
        Steal(A),
        Pop(A),
        Steal(A),
        Steal(A),
    ];
    check_ops(2, &ops);
}

/// A batch into a full destination grows it mid-batch; the batch takes the
/// oldest half, and the thief pops the newest of it first.
#[test]
fn batch_grows_its_destination() {
    let mut ops: Vec<Op> = (0..9).map(|v| Push(A, v)).collect();
    ops.push(Push(B, 100));
    ops.extend([
        StealBatchAndPop { from: A, into: B },
        Pop(B),
        Pop(B),
        Steal(B),
        Steal(A),
    ]);
    check_ops(1, &ops);
}

/// Batches back and forth between the two deques until both are empty.
#[test]
fn batches_in_both_directions_drain_everything() {
    let mut ops: Vec<Op> = (0..40).map(|v| Push(A, v)).collect();
    for _ in 0..10 {
        ops.extend([
            StealBatchAndPop { from: A, into: B },
            StealBatchAndPop { from: B, into: A },
        ]);
    }
    ops.extend([
        StealBatchAndPop { from: A, into: A },
        StealBatchAndPop { from: B, into: B },
    ]);
    check_ops(1, &ops);
}

/// The owner leaves with elements inside: thieves take some, and the rest are
/// dropped with the last `Stealer`.
#[test]
fn stealer_outlives_worker() {
    let mut ops: Vec<Op> = (0..20).map(|v| Push(A, v)).collect();
    ops.extend([
        Op::DropWorker(A),
        Steal(A),
        StealBatchAndPop { from: A, into: B },
        Push(A, 7),
        Pop(A),
    ]);
    check_ops(1, &ops);
}

/// The check rejects capacities it was not meant for rather than allocating
/// without bound.
#[test]
#[should_panic(expected = "above")]
fn capacity_is_bounded() {
    check_ops(deque_ops::MAX_CAPACITY + 1, &[]);
}
