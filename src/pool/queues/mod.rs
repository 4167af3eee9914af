//! Where jobs wait: the pool's injectors (one lock-free queue per node, in
//! front of the workers) and the priority levels (an injector and a deque
//! per worker for each level but `Normal`).

pub(crate) mod injector;
pub(crate) mod priority;
