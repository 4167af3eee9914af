//! The mutation switch: every memory ordering that a proof argues for is
//! declared through [`orderings!`], which also declares its one-step-weaker
//! mutant, selected at build time with
//! `RUSTFLAGS='--cfg stealpool_weaken="NAME"'` (or `STEALPOOL_WEAKEN=NAME`,
//! see `build.rs`). `model/mutants.sh` builds each mutant and runs the loom
//! models against it; `proofs/orderings.md` records what they find.

/// Declares ordering constants and their mutants:
/// `NAME: Type = strong, weakened "flag" => weak;`
macro_rules! orderings {
    ($( $(#[$doc:meta])* $name:ident: $ty:ty = $strong:expr, weakened $flag:literal => $weak:expr; )*) => {
        $(
            $(#[$doc])*
            #[cfg(not(stealpool_weaken = $flag))]
            pub(crate) const $name: $ty = $strong;
            $(#[$doc])*
            #[cfg(stealpool_weaken = $flag)]
            pub(crate) const $name: $ty = $weak;
        )*
    };
}

pub(crate) use orderings;

/// Runs a fence if the ordering table asks for one (a weakened fence is
/// `None`: no fence at all).
#[inline(always)]
pub(crate) fn fence(order: Option<crate::sync::Ordering>) {
    if let Some(order) = order {
        crate::sync::fence(order);
    }
}

/// Which side of an asymmetric pair a barrier is (M1 in `proofs/sleep.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Barrier {
    /// The hot side: pairs only with a heavy barrier.
    Light,
    /// The rare side.
    Heavy,
}

/// Runs a barrier if the ordering table asks for one (a weakened barrier is
/// `None`: no barrier at all).
#[inline(always)]
pub(crate) fn barrier(barrier: Option<Barrier>) {
    match barrier {
        Some(Barrier::Light) => crate::sync::light_barrier(),
        Some(Barrier::Heavy) => crate::sync::heavy_barrier(),
        None => {}
    }
}

/// As [`barrier`], for a caller that read `crate::sync::barriers_expedited()`
/// when it was made: its light barriers test that field, which it has at
/// hand, rather than a global whose address the compiler would otherwise
/// keep in a register across the user's code.
#[inline(always)]
pub(crate) fn barrier_known(barrier: Option<Barrier>, expedited: bool) {
    match barrier {
        Some(Barrier::Light) => crate::sync::light_barrier_known(expedited),
        Some(Barrier::Heavy) => crate::sync::heavy_barrier(),
        None => {}
    }
}
