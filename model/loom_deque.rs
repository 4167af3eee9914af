//! Loom models of the deque (see the harnesses below).
