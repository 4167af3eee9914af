//! The surface: [`ThreadPool`](thread_pool::ThreadPool) and its
//! [`Builder`](builder::Builder), the global pool and the free functions,
//! handles with their continuations (`handle/`), and `block_in_place`.

pub(crate) mod block_in_place;
pub(crate) mod broadcast;
pub(crate) mod builder;
mod cross_pool;
pub(crate) mod current;
pub(crate) mod global;
pub(crate) mod handle;
pub(crate) mod spawn_handler;
pub(crate) mod thread_pool;
