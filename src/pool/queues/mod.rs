//! Where jobs wait: the pool's injectors (one lock-free queue per node, in
//! front of the workers) and the priority levels (an injector and a deque
//! per worker for each level but `Normal`).

pub(crate) mod injector;
pub(crate) mod priority;

use crate::sync::Ordering;

/// V1 (`proofs/priority.md`): the used-levels word is read and raised with
/// relaxed accesses, each argued at its step; the levels' queues order
/// their jobs themselves (the deque's and the injector's steps).
pub(crate) const RELAXED: Ordering = Ordering::Relaxed;
