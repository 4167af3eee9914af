//! Shuttle tests of the pool.
