//! Lets the mutation check weaken one ordering (or reintroduce one historical
//! bug) through an environment variable, so that only this crate is rebuilt
//! for each mutant, not every dependency as a change of RUSTFLAGS would.
//!
//! `STEALPOOL_WEAKEN=NAME` is the same as
//! `RUSTFLAGS='--cfg stealpool_weaken="NAME"'`, and `STEALPOOL_BUG=NAME` the
//! same as `--cfg stealpool_bug="NAME"`. See `proofs/orderings.md`.
//!
//! The variables apply only when stealpool is a package the user builds
//! (`cargo test` in this repository, `model/scripts/mutants.sh`), never when it is
//! built as a dependency of another crate: a variable left in the
//! environment must not hand a weakened deque to a program that depends on
//! stealpool. Cargo tells a build script nothing about that when it runs,
//! but it compiles the script with `CARGO_PRIMARY_PACKAGE` set exactly when
//! the package is primary, so the script reads it at compile time. The
//! `--cfg` flags in RUSTFLAGS stay as they are: they are explicit, and they
//! apply to whatever they are passed to. Every active flag is reported with
//! a `cargo:warning`.

/// Whether stealpool is a primary package of this build (see above).
const PRIMARY: bool = option_env!("CARGO_PRIMARY_PACKAGE").is_some();

fn main() {
    for (var, cfg) in [
        ("STEALPOOL_WEAKEN", "stealpool_weaken"),
        ("STEALPOOL_BUG", "stealpool_bug"),
    ] {
        println!("cargo:rerun-if-env-changed={var}");
        // A `--cfg` in RUSTFLAGS reaches the script as CARGO_CFG_<NAME>.
        if let Ok(names) = std::env::var(format!("CARGO_CFG_{}", cfg.to_uppercase())) {
            println!("cargo:warning=built with --cfg {cfg}=\"{names}\" (from RUSTFLAGS): a mutant for the models, not for use");
        }
        let Ok(name) = std::env::var(var) else { continue };
        if name.is_empty() {
            continue;
        }
        if PRIMARY {
            println!("cargo:rustc-cfg={cfg}=\"{name}\"");
            println!("cargo:warning={var}={name}: built with --cfg {cfg}=\"{name}\", a mutant for the models, not for use");
        } else {
            println!("cargo:warning={var}={name} ignored: stealpool is built as a dependency here");
        }
    }
}
