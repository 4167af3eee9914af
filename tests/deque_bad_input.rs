#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The deque's public API at its edges: every input either works or panics
//! at the call that caused it, with a message naming the argument.
//!
//! Covered: capacities of 0, 1, non-powers of two, the largest and beyond
//! (refused by `with_capacity`, where they used to wrap to a 0-slot buffer
//! and fail at the first `push`), capacities the allocator refuses, growth
//! after the indices have wrapped around the buffer, the one-word values 0
//! and `usize::MAX`, a batch steal into the deque it steals from, and a
//! `Stealer` that outlives its `Worker`. Growth past the largest buffer
//! (2^59 elements on 64-bit) cannot be reached in a test.

use std::collections::VecDeque;
use std::panic;
use std::sync::Arc;
use stealpool::deque::{Steal, Worker};

/// The largest capacity `with_capacity` accepts: the largest power of two
/// whose 8- or 4-byte slots fit in `isize::MAX` bytes (2^59 on 64-bit).
const LARGEST: usize = 1 << (isize::MAX as usize / size_of::<usize>()).ilog2();

/// The text of a panic's payload.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// The message `with_capacity(capacity)` panics with; fails the test if it
/// returns.
fn with_capacity_panic(capacity: usize) -> String {
    let outcome = panic::catch_unwind(|| Worker::<usize>::with_capacity(capacity));
    match outcome {
        Ok(_) => panic!("with_capacity({capacity}) returned a deque"),
        Err(payload) => panic_message(payload),
    }
}

/// How every `with_capacity` panic message starts.
fn with_capacity_prefix(capacity: usize) -> String {
    format!("stealpool::deque::Worker::with_capacity: capacity {capacity} ")
}

/// Steals until the deque reports `Empty` (one thread, so never `Retry`).
fn steal_all(stealer: &stealpool::deque::Stealer<usize>) -> Vec<usize> {
    let mut stolen = Vec::new();
    loop {
        match stealer.steal() {
            Steal::Success(value) => stolen.push(value),
            Steal::Empty => return stolen,
            Steal::Retry => panic!("a steal with no other thread running must not need a retry"),
        }
    }
}

/// The known case, with the exact message: `usize::MAX` used to round up to
/// a capacity of 0 and fail at the first `push`, deep in `buffer.rs`.
#[test]
#[cfg(target_pointer_width = "64")]
#[should_panic(
    expected = "stealpool::deque::Worker::with_capacity: capacity 18446744073709551615 is larger than \
                the largest buffer a deque can allocate (576460752303423488 slots of 8 bytes)"
)]
fn usize_max_capacity_panics_in_with_capacity() {
    let worker = Worker::<usize>::with_capacity(usize::MAX);
    // Unreachable with the fix; without it, this is where it used to fail.
    worker.push(1);
}

/// Every capacity above the largest buffer is refused by `with_capacity`
/// itself, including those that do not wrap when rounded up.
#[test]
fn a_capacity_above_the_largest_buffer_panics_in_with_capacity() {
    let capacities = [
        usize::MAX,
        usize::MAX - 1,
        usize::MAX / 2 + 2,
        usize::MAX / 2 + 1, // the largest power of two: rounds to itself
        isize::MAX as usize,
        LARGEST * 2,
        LARGEST + 1, // the smallest refused
    ];
    for capacity in capacities {
        let message = with_capacity_panic(capacity);
        assert!(
            message.starts_with(&with_capacity_prefix(capacity))
                && message.contains("larger than the largest buffer a deque can allocate")
                && message.contains(&LARGEST.to_string()),
            "unclear message for capacity {capacity}: {message:?}"
        );
    }
}

/// A capacity within the limit that no allocator can provide (more than the
/// address space) panics in `with_capacity`, naming it, instead of aborting
/// the process.
///
/// Not under Miri: Miri stops the whole run with a resource-exhaustion
/// error when asked for an allocation this large, where the system allocator
/// returns null.
#[test]
#[cfg(all(target_pointer_width = "64", not(miri)))]
fn a_capacity_the_allocator_refuses_panics_in_with_capacity() {
    // 2^59 slots are 4 EiB, 2^58 + 1 rounds up to them, 2^58 are 2 EiB:
    // all beyond any 64-bit address space (at most 2^57 bytes today).
    for capacity in [LARGEST, LARGEST / 2 + 1, LARGEST / 2] {
        let message = with_capacity_panic(capacity);
        let slots = capacity.next_power_of_two();
        assert!(
            message.starts_with(&with_capacity_prefix(capacity))
                && message.contains(&format!("a buffer of {slots} slots ({} bytes)", slots * 8))
                && message.contains("the allocator refused it"),
            "unclear message for capacity {capacity}: {message:?}"
        );
    }
}

/// Capacities 0 and 1, non-powers of two and the default all hold, grow,
/// pop newest-first and give up oldest-first to thieves.
#[test]
fn small_and_odd_capacities_work() {
    for capacity in [0, 1, 2, 3, 5, 100] {
        let worker = Worker::with_capacity(capacity);
        let stealer = worker.stealer();
        assert!(worker.is_empty() && stealer.is_empty(), "capacity {capacity}");
        assert_eq!(worker.pop(), None, "capacity {capacity}");
        assert!(stealer.steal().is_empty(), "capacity {capacity}");
        for i in 0..300usize {
            worker.push(i);
        }
        assert_eq!(worker.len(), 300, "capacity {capacity}");
        assert_eq!(stealer.len(), 300, "capacity {capacity}");
        assert_eq!(stealer.steal(), Steal::Success(0), "capacity {capacity}");
        assert_eq!(worker.pop(), Some(299), "capacity {capacity}");
        let mut rest = Vec::new();
        while let Some(value) = worker.pop() {
            rest.push(value);
        }
        rest.reverse();
        assert_eq!(rest, (1..299).collect::<Vec<_>>(), "capacity {capacity}");
        assert!(stealer.steal().is_empty(), "capacity {capacity}");
        assert!(worker.is_empty(), "capacity {capacity}");
    }
}

/// A deque of capacity 0 or 1 holds exactly one element before it grows,
/// and that element comes back out both ways.
#[test]
fn capacity_0_and_1_hold_one_element_each_way() {
    for capacity in [0, 1] {
        let worker = Worker::with_capacity(capacity);
        let stealer = worker.stealer();
        for round in 0..3usize {
            worker.push(round);
            assert_eq!(worker.pop(), Some(round), "capacity {capacity}");
            worker.push(round + 10);
            assert_eq!(stealer.steal(), Steal::Success(round + 10), "capacity {capacity}");
            assert!(worker.is_empty(), "capacity {capacity}");
        }
    }
}

/// Interleaved pushes, pops and steals move `top` away from 0, so the
/// indices wrap around small buffers before each growth; the deque agrees
/// with a `VecDeque` at every step.
#[test]
fn growth_after_the_indices_wrap_keeps_every_element_in_order() {
    for capacity in [0, 1, 3, 6] {
        let worker = Worker::with_capacity(capacity);
        let stealer = worker.stealer();
        let mut model = VecDeque::new();
        for step in 0..500usize {
            worker.push(step);
            model.push_back(step);
            if step % 3 == 0 {
                assert_eq!(
                    stealer.steal().success(),
                    model.pop_front(),
                    "capacity {capacity}, step {step}"
                );
            }
            if step % 7 == 0 {
                assert_eq!(worker.pop(), model.pop_back(), "capacity {capacity}, step {step}");
            }
            assert_eq!(worker.len(), model.len(), "capacity {capacity}, step {step}");
        }
        assert_eq!(steal_all(&stealer), Vec::from(model), "capacity {capacity}");
    }
}

/// The words 0 (a null pointer) and `usize::MAX` (all ones) are ordinary
/// values, not markers.
#[test]
fn zero_and_usize_max_are_ordinary_values() {
    let worker = Worker::with_capacity(1);
    let stealer = worker.stealer();
    for value in [0, usize::MAX, 0, usize::MAX] {
        worker.push(value);
    }
    assert_eq!(worker.len(), 4);
    assert_eq!(stealer.steal(), Steal::Success(0));
    assert_eq!(worker.pop(), Some(usize::MAX));
    assert_eq!(stealer.steal(), Steal::Success(usize::MAX));
    assert_eq!(worker.pop(), Some(0));
    assert_eq!(worker.pop(), None);
}

/// A batch steal from and into deques of capacity 0 grows the thief's deque
/// and moves each element exactly once, oldest first, returning the newest.
#[test]
fn a_batch_steal_between_smallest_deques_moves_each_element_once() {
    let victim = Worker::with_capacity(0);
    for i in 0..10usize {
        victim.push(i);
    }
    let thief = Worker::with_capacity(0);
    // 10 elements: 0 is stolen, then 9 / 2 = 4 more; the newest of the five
    // is returned, the others move over.
    assert_eq!(victim.stealer().steal_batch_and_pop(&thief), Steal::Success(4));
    assert_eq!(thief.len(), 4);
    assert_eq!(victim.len(), 5);
    let mut moved = Vec::new();
    while let Some(value) = thief.pop() {
        moved.push(value);
    }
    assert_eq!(moved, [3, 2, 1, 0]);
    assert_eq!(steal_all(&victim.stealer()), [5, 6, 7, 8, 9]);
    assert_eq!(victim.stealer().steal_batch_and_pop(&thief), Steal::Empty);
}

/// A batch steal into the deque it steals from (possible: the owner holds
/// both the `Worker` and a `Stealer`) is a pop, not a corruption: the newest
/// element comes back, nothing moves, the rest stay in order.
#[test]
fn a_batch_steal_into_its_own_deque_pops() {
    let worker = Worker::with_capacity(4);
    let stealer = worker.stealer();
    assert_eq!(stealer.steal_batch_and_pop(&worker), Steal::Empty);
    for i in 0..4usize {
        worker.push(i);
    }
    assert_eq!(stealer.steal_batch_and_pop(&worker), Steal::Success(3));
    assert_eq!(worker.len(), 3);
    assert_eq!(stealer.steal_batch_and_pop(&worker), Steal::Success(2));
    assert_eq!(worker.pop(), Some(1));
    assert_eq!(stealer.steal(), Steal::Success(0));
    assert_eq!(stealer.steal_batch_and_pop(&worker), Steal::Empty);
    assert!(worker.is_empty());
}

/// A `Stealer` that outlives its `Worker` still steals what is left, and
/// whatever nobody took is dropped with the last handle, once.
#[test]
fn a_stealer_outlives_its_worker() {
    let value = Arc::new(());
    let worker = Worker::with_capacity(1);
    for _ in 0..5 {
        worker.push(Arc::clone(&value));
    }
    let stealer = worker.stealer();
    drop(worker);
    assert_eq!(stealer.len(), 5);
    assert!(stealer.steal().is_success());
    assert_eq!(Arc::strong_count(&value), 1 + 4);
    let other = stealer.clone();
    drop(stealer);
    assert!(other.steal().is_success());
    assert_eq!(other.len(), 3);
    drop(other);
    assert_eq!(
        Arc::strong_count(&value),
        1,
        "the 3 left were not dropped exactly once"
    );
}
