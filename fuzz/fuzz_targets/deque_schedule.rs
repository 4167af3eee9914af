//! Fuzz target `deque_schedule`: the fuzzer's bytes choose the operations of
//! a deque's owner and two thieves *and* every scheduling decision of the
//! shuttle execution that runs them (`model/support/schedule.rs`: the input layout,
//! the byte-fed scheduler, the checks, and how to replay a failure). The
//! same body runs on stable under proptest, and the committed crash corpus
//! `fuzz/crashes/deque_schedule/` is replayed there
//! (`model/shuttle/schedule.rs`).
//!
//! Needs the `schedule` feature, which builds stealpool against shuttle:
//! `cargo +nightly fuzz run --features schedule deque_schedule`.

#![no_main]

// The pool half of the shared file serves `pool_schedule`.
#[allow(dead_code)]
#[path = "../../model/support/schedule.rs"]
mod schedule;

use arbitrary::{Arbitrary, Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use schedule::{run_deque, DequeOps};

/// A decoded input, as `cargo fuzz fmt` prints it.
#[derive(Debug)]
struct Input {
    ops: DequeOps,
    schedule: Vec<u8>,
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        // All of it, through the decoder the replay test uses on corpus
        // files, so that a saved input means the same on both sides.
        let (ops, schedule) = DequeOps::decode(u.bytes(u.len())?);
        Ok(Input {
            ops,
            schedule: schedule.to_vec(),
        })
    }

    fn arbitrary_take_rest(mut u: Unstructured<'a>) -> Result<Self> {
        Self::arbitrary(&mut u)
    }
}

fuzz_target!(|input: Input| {
    run_deque(input.ops, &input.schedule);
});
