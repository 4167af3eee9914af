//! Schedule-fuzz bodies under proptest, and the committed crash corpus replayed.
