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
