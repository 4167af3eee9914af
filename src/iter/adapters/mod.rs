//! The adapters: each wraps a parallel iterator and changes its items
//! (`map`, `map_with`, `filter`, `fold`, ...) or their grouping or order
//! (`enumerate`, `zip`, `chain`, `rev`, `chunks`, `with_min_len`, `take`,
//! `skip`). One adapter per file, with the producer
//! and/or consumer it needs.

mod chain;
mod chunks;
mod enumerate;
mod filter;
mod flat_map;
mod flat_map_iter;
mod fold;
mod map;
mod map_with;
mod min_len;
mod rev;
mod take_skip;
mod while_some;
mod zip;

pub use chain::Chain;
pub use chunks::Chunks;
pub use enumerate::Enumerate;
pub use filter::{Filter, FilterMap};
pub use flat_map::FlatMap;
pub use flat_map_iter::FlatMapIter;
pub use fold::Fold;
pub use map::Map;
pub use map_with::{MapInit, MapWith};
pub use min_len::MinLen;
pub use rev::Rev;
pub use take_skip::{Skip, Take};
pub use while_some::WhileSome;
pub use zip::Zip;
