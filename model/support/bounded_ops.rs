//! Operation sequences on the bounded deque (`deque::BoundedWorker` and
//! its stealers) checked against a `VecDeque` on one thread, included with
//! `#[path]` by the `bounded_ops` fuzz target and by
//! `tests/deque_bounded.rs` (which runs it on pseudo-random inputs on
//! stable). Each byte is one operation: push (with the byte as the value),
//! pop, a steal by one of three stealers, dropping a stealer and taking a
//! new one (its request slot reused), or a full batch of pushes that grows
//! the buffer.

use std::collections::VecDeque;
use stealpool::deque::{BoundedStealer, BoundedWorker, Steal};

/// Runs the operations `bytes` encode on a deque of `capacity` (0..=3
/// rounds up to 2 or 4) and on the reference, and panics at the first
/// difference; at the end, the deque is drained by steals and must hold
/// what the reference holds, oldest first.
pub fn check_bounded_ops(capacity: u8, bytes: &[u8]) {
    let worker = BoundedWorker::<Box<u32>>::with_capacity(usize::from(capacity % 4));
    let mut stealers: Vec<BoundedStealer<Box<u32>>> = (0..3).map(|_| worker.stealer()).collect();
    let mut reference: VecDeque<u32> = VecDeque::new();
    for (step, &byte) in bytes.iter().enumerate() {
        let value = u32::from(byte) << 16 | step as u32;
        match byte % 16 {
            0..=6 => {
                worker.push(Box::new(value));
                reference.push_back(value);
            }
            7..=9 => assert_eq!(
                worker.pop().map(|b| *b),
                reference.pop_back(),
                "pop at step {step}"
            ),
            10..=13 => {
                let thief = usize::from(byte / 16) % 3;
                let got = match stealers[thief].steal() {
                    Steal::Success(b) => Some(*b),
                    Steal::Empty => None,
                    Steal::Retry => panic!("a bounded steal returned Retry at step {step}"),
                };
                assert_eq!(got, reference.pop_front(), "steal at step {step}");
            }
            14 => {
                let thief = usize::from(byte / 16) % 3;
                stealers.swap_remove(thief);
                stealers.push(worker.stealer());
            }
            _ => {
                for i in 0..9 {
                    worker.push(Box::new(value + i));
                    reference.push_back(value + i);
                }
            }
        }
        assert_eq!(worker.len(), reference.len(), "len at step {step}");
    }
    while let Some(expected) = reference.pop_front() {
        assert_eq!(stealers[0].steal(), Steal::Success(Box::new(expected)), "drain");
    }
    assert_eq!(stealers[0].steal(), Steal::Empty);
    assert_eq!(worker.pop(), None);
}
