//! Recording helpers shared by the linearizability drivers (`lin/deque.rs`
//! under shuttle, `tests/deque_linearizable.rs` on real threads), included
//! with `#[path]` beside `linearizability.rs`, which depends on `std` alone.

use super::linearizability::Stolen;
use stealpool::deque::{Steal, Stealer, Worker};

/// A steal's outcome with the value copied out, as the checker records it.
pub fn stolen(steal: Steal<usize>) -> Stolen {
    match steal {
        Steal::Success(v) => Stolen::Success(v as u64),
        Steal::Empty => Stolen::Empty,
        Steal::Retry => Stolen::Retry,
    }
}

/// A `steal_batch_and_pop` into `dest` (empty, private to this thief), and
/// what it moved there, emptied back out: `dest` pops newest first, so the
/// order the batch stole them in is the reverse.
pub fn batch(stealer: &Stealer<usize>, dest: &Worker<usize>) -> (Stolen, Vec<u64>) {
    let first = stolen(stealer.steal_batch_and_pop(dest));
    let mut moved: Vec<u64> = std::iter::from_fn(|| dest.pop()).map(|v| v as u64).collect();
    moved.reverse();
    (first, moved)
}

/// A `steal_batch_and_pop` from a FIFO deque into `dest` (an empty FIFO
/// worker, private to this thief), and what it moved there, emptied back
/// out: the call returns the oldest it took and `dest` pops the others
/// oldest first, so in the order the batch stole them.
#[allow(dead_code)] // shuttle's `lin_deque` only; the real-thread driver has LIFO workers
pub fn fifo_batch(stealer: &Stealer<usize>, dest: &Worker<usize>) -> (Stolen, Vec<u64>) {
    let first = stolen(stealer.steal_batch_and_pop(dest));
    let moved: Vec<u64> = std::iter::from_fn(|| dest.pop()).map(|v| v as u64).collect();
    (first, moved)
}
