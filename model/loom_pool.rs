//! Loom models of the pool.
