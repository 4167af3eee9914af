//! The builder's `start_handler` and `exit_handler`: code of the user's
//! that runs on each thread of a pool when it starts and before it exits.

/// A start or exit handler, given the index the thread answers
/// (`current_thread_index`).
pub(crate) type ThreadHandler = Box<dyn Fn(usize) + Send + Sync>;

/// The handlers a pool's threads run; none by default.
#[derive(Default)]
pub(crate) struct ThreadHooks {
    pub(crate) start: Option<ThreadHandler>,
    pub(crate) exit: Option<ThreadHandler>,
}
