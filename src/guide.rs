//! Guides: longer explanations of the pool's features, with examples.
//!
//! One page per topic; every example on them runs as a test.

#[doc = include_str!("../docs/guide/parallel-iterators.md")]
pub mod parallel_iterators {}

#[doc = include_str!("../docs/guide/loops-and-sorts.md")]
pub mod loops_and_sorts {}

#[doc = include_str!("../docs/guide/pools.md")]
pub mod pools {}

#[doc = include_str!("../docs/guide/max-pending-joins.md")]
pub mod max_pending_joins {}

#[doc = include_str!("../docs/guide/task-graphs.md")]
pub mod task_graphs {}

#[doc = include_str!("../docs/guide/topology.md")]
pub mod topology {}

#[doc = include_str!("../docs/guide/priorities.md")]
pub mod priorities {}

#[doc = include_str!("../docs/guide/block-in-place.md")]
pub mod block_in_place {}

#[doc = include_str!("../docs/guide/waits.md")]
pub mod waits {}

#[doc = include_str!("../docs/guide/deque.md")]
pub mod deque {}

#[doc = include_str!("../docs/guide/model-checking.md")]
pub mod model_checking {}
