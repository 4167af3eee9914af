//! Fuzz target `bounded_ops`: the fuzzer's bytes become a capacity and a
//! sequence of operations on the bounded deque (`deque::BoundedWorker`,
//! three `BoundedStealer`s), checked against a `VecDeque` by
//! `model/support/bounded_ops.rs` (which `tests/deque_bounded.rs` also runs on
//! pseudo-random inputs on stable).
//!
//!     cargo +nightly fuzz run bounded_ops

#![no_main]

#[path = "../../model/support/bounded_ops.rs"]
mod bounded_ops;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((&capacity, ops)) = data.split_first() {
        bounded_ops::check_bounded_ops(capacity, &ops[..ops.len().min(4096)]);
    }
});
