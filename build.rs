//! Lets the mutation check weaken one ordering (or reintroduce one historical
//! bug) through an environment variable, so that only this crate is rebuilt
//! for each mutant, not every dependency as a change of RUSTFLAGS would.
//!
//! `STEALPOOL_WEAKEN=NAME` is the same as
//! `RUSTFLAGS='--cfg stealpool_weaken="NAME"'`, and `STEALPOOL_BUG=NAME` the
//! same as `--cfg stealpool_bug="NAME"`. See `proofs/orderings.md`.

fn main() {
    for (var, cfg) in [
        ("STEALPOOL_WEAKEN", "stealpool_weaken"),
        ("STEALPOOL_BUG", "stealpool_bug"),
    ] {
        println!("cargo:rerun-if-env-changed={var}");
        if let Ok(name) = std::env::var(var) {
            if !name.is_empty() {
                println!("cargo:rustc-cfg={cfg}=\"{name}\"");
            }
        }
    }
}
