//! Shuttle tests of the deque.
