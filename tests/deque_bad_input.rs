#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The deque's public API at its edges: every input either works or panics
//! at the call that caused it, with a message naming the argument.

use std::panic;
use stealpool::deque::{Steal, Worker};

/// The text of a panic's payload.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// A capacity no buffer can have is refused by `with_capacity` itself, not
/// by the first `push` deep inside.
#[test]
fn an_impossible_capacity_panics_in_with_capacity() {
    for capacity in [usize::MAX, usize::MAX / 2 + 1, isize::MAX as usize, 1 << 60] {
        let outcome = panic::catch_unwind(|| Worker::<usize>::with_capacity(capacity));
        let message = panic_message(outcome.expect_err("an impossible capacity is refused"));
        assert!(
            message.contains("with_capacity") && message.contains(&capacity.to_string()),
            "unclear message for {capacity}: {message}"
        );
    }
}

/// Small and odd capacities work, and grow as needed.
#[test]
fn small_and_odd_capacities_work() {
    for capacity in [0, 1, 2, 3, 5, 100] {
        let worker = Worker::with_capacity(capacity);
        let stealer = worker.stealer();
        for i in 0..300usize {
            worker.push(i);
        }
        assert_eq!(worker.len(), 300);
        assert!(matches!(stealer.steal(), Steal::Success(0)));
        assert_eq!(worker.pop(), Some(299));
        let mut rest = Vec::new();
        while let Some(value) = worker.pop() {
            rest.push(value);
        }
        rest.reverse();
        assert_eq!(rest, (1..299).collect::<Vec<_>>(), "capacity {capacity}");
        assert!(matches!(stealer.steal(), Steal::Empty));
    }
}

/// A batch steal into the deque it steals from is a pop, not a corruption.
#[test]
fn a_batch_steal_into_its_own_deque_pops() {
    let worker = Worker::with_capacity(4);
    for i in 0..4usize {
        worker.push(i);
    }
    let stealer = worker.stealer();
    assert!(matches!(stealer.steal_batch_and_pop(&worker), Steal::Success(3)));
    assert_eq!(worker.len(), 3);
}
