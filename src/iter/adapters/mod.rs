//! The adapters: each wraps a parallel iterator and changes its items
//! (`map`, `map_with`, `filter`, `fold`, `try_fold`, `inspect`, ...) or
//! their grouping or order (`enumerate`, `zip`, `chain`, `rev`, `chunks`,
//! `with_min_len`, `take`, `skip`, `take_any`, `flatten`, `panic_fuse`). One adapter per file, with the producer
//! and/or consumer it needs.

/// `Debug` for an adapter over closures, as rayon's: the named fields
/// (the base iterator, a size, an initial value), the closures left out
/// (`..`), so that the adapter prints whatever its closures are.
macro_rules! debug_without_closures {
    ($name:ident<$($g:ident),*> { $($field:ident: $ty:ident),* }) => {
        impl<$($g),*> std::fmt::Debug for $name<$($g),*>
        where
            $($ty: std::fmt::Debug,)*
        {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    $(.field(stringify!($field), &self.$field))*
                    .finish_non_exhaustive()
            }
        }
    };
}

mod blocks;
mod chain;
mod chunks;
mod enumerate;
mod filter;
mod flat_map;
mod flat_map_iter;
mod flatten;
mod fold;
mod fold_chunks;
mod inspect;
mod interleave;
mod intersperse;
mod map;
mod map_with;
mod min_len;
mod panic_fuse;
mod positions;
mod rev;
mod step_by;
mod take_any;
mod take_skip;
mod try_fold;
mod while_some;
mod zip;

pub use blocks::{ExponentialBlocks, UniformBlocks};
pub use chain::Chain;
pub use chunks::Chunks;
pub use enumerate::Enumerate;
pub use filter::{Filter, FilterMap};
pub use flat_map::FlatMap;
pub use flat_map_iter::FlatMapIter;
pub use flatten::{Flatten, FlattenIter};
pub use fold::{Fold, FoldWith};
pub use fold_chunks::{FoldChunks, FoldChunksWith};
pub use inspect::{Inspect, Update};
pub use interleave::{Interleave, InterleaveShortest};
pub use intersperse::Intersperse;
pub use map::Map;
pub use map_with::{MapInit, MapWith};
pub use min_len::{MaxLen, MinLen};
pub use panic_fuse::PanicFuse;
pub use positions::Positions;
pub use rev::Rev;
pub use step_by::StepBy;
pub use take_any::{SkipAny, SkipAnyWhile, TakeAny, TakeAnyWhile};
pub use take_skip::{Skip, Take};
pub use try_fold::{TryFold, TryFoldWith};
pub use while_some::WhileSome;
pub use zip::{Zip, ZipEq};
