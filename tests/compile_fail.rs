#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! The bounds users rely on for soundness, checked by the compiler: each
//! file in `tests/compile-fail/` must fail to compile with the error saved
//! beside it. Regenerate the `.stderr` files with `TRYBUILD=overwrite` after
//! a compiler upgrade, and check that each still fails for its stated
//! reason.

// Compiling the cases is slow and Miri cannot run the compiler.
#[cfg(not(miri))]
#[test]
fn soundness_bounds_are_enforced_by_the_compiler() {
    trybuild::TestCases::new().compile_fail("tests/compile-fail/*.rs");
}
