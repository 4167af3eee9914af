//! Fuzz target `deque_ops`: the fuzzer's bytes become a capacity and a
//! sequence of deque operations, which `check_ops` runs on the real deque and
//! on the reference model side by side (see `model/support/deque_ops.rs`; the
//! proptest suite in `tests/deque_proptest.rs` runs the same function on
//! stable).
//!
//! Decoding is compact (one byte per operation, plus the value of a push) so
//! that short inputs make long sequences, and biased towards what finds bugs:
//! tiny capacities (growth), more pushes than removals (long live ranges that
//! wrap around the ring), and rare worker drops (a dropped worker ends the
//! owner's part of the sequence for its side). Two bits of the first byte
//! make either deque a FIFO worker.

#![no_main]

#[path = "../../model/support/deque_ops.rs"]
mod deque_ops;

use arbitrary::{Arbitrary, Result, Unstructured};
use deque_ops::{check_ops_with, Op, Side, MAX_CAPACITY};
use libfuzzer_sys::fuzz_target;

/// Longer sequences only slow the fuzzer down; the interesting states are
/// reached in a few hundred operations from a tiny capacity.
const MAX_OPS: usize = 2048;

#[derive(Debug)]
struct Input {
    capacity: usize,
    /// Which deques are FIFO workers (D19).
    fifo: [bool; 2],
    ops: Vec<Op>,
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        // Three quarters of the inputs start at capacity 0..=3 (rounded up
        // to 1, 1, 2, 4), where every few pushes grow the buffer.
        let selector: u8 = u.arbitrary()?;
        let capacity = if selector < 0xC0 {
            usize::from(selector % 4)
        } else {
            usize::from(selector) % (MAX_CAPACITY + 1)
        };
        // Bits 2 and 3 of the same byte: each deque FIFO in half the inputs.
        let fifo = [selector & 4 != 0, selector & 8 != 0];
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < MAX_OPS {
            ops.push(op(u)?);
        }
        Ok(Input { capacity, fifo, ops })
    }
}

/// One operation from one byte: the low bit picks the deque, the other seven
/// the kind, in proportions out of 128.
fn op(u: &mut Unstructured<'_>) -> Result<Op> {
    let byte: u8 = u.arbitrary()?;
    let (side, other) = if byte & 1 == 0 {
        (Side::A, Side::B)
    } else {
        (Side::B, Side::A)
    };
    Ok(match byte >> 1 {
        // 48: small values, readable in a crash report.
        0..=47 => Op::Push(side, usize::from(u.arbitrary::<u8>()?)),
        // 8: whole words, so every bit pattern travels through a slot.
        48..=55 => Op::Push(side, u.arbitrary::<usize>()?),
        56..=79 => Op::Pop(side),
        80..=103 => Op::Steal(side),
        104..=119 => Op::StealBatchAndPop {
            from: side,
            into: other,
        },
        // Into the deque's own worker, which pops.
        120..=122 => Op::StealBatchAndPop {
            from: side,
            into: side,
        },
        // With a limit (1 to 64) from the next byte, whose low bit says
        // whether one element is returned, and the next whether the batch
        // goes into the deque's own worker.
        123..=125 => {
            let byte: u8 = u.arbitrary()?;
            Op::StealBatchWithLimit {
                from: side,
                into: if byte & 2 == 0 { other } else { side },
                limit: usize::from(byte >> 2) + 1,
                pop: byte & 1 == 1,
            }
        }
        _ => Op::DropWorker(side),
    })
}

fuzz_target!(|input: Input| {
    check_ops_with(input.capacity, input.fifo, &input.ops);
});
