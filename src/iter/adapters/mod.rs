//! The adapters: each wraps a parallel iterator and changes its items
//! (`map`, `filter`, `fold`, ...) or their grouping (`enumerate`, `zip`,
//! `chunks`, `with_min_len`, `take`, `skip`). One adapter per file, with the producer
//! and/or consumer it needs.

mod chunks;
mod enumerate;
mod filter;
mod flat_map;
mod flat_map_iter;
mod fold;
mod map;
mod min_len;
mod take_skip;
mod zip;

pub use chunks::Chunks;
pub use enumerate::Enumerate;
pub use filter::{Filter, FilterMap};
pub use flat_map::FlatMap;
pub use flat_map_iter::FlatMapIter;
pub use fold::Fold;
pub use map::Map;
pub use min_len::MinLen;
pub use take_skip::{Skip, Take};
pub use zip::Zip;
