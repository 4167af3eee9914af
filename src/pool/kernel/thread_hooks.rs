//! The builder's `start_handler` and `exit_handler`: code of the user's
//! that runs on each thread of a pool when it starts and before it exits.

use super::registry::Registry;
use std::panic::{self, AssertUnwindSafe};

/// A start or exit handler, given the index the thread answers
/// (`current_thread_index`).
pub(crate) type ThreadHandler = Box<dyn Fn(usize) + Send + Sync>;

/// The handlers a pool's threads run; none by default.
#[derive(Default)]
pub(crate) struct ThreadHooks {
    pub(crate) start: Option<ThreadHandler>,
    pub(crate) exit: Option<ThreadHandler>,
}

impl Registry {
    /// Runs the start handler, if any, on a thread of this pool that is
    /// about to take jobs. A panic in it goes to the pool's panic handler
    /// (or is reported), as a spawned task's does: the thread lives on.
    pub(crate) fn thread_started(&self, slot: usize) {
        if let Some(handler) = &self.thread_hooks.start {
            self.run_handler(slot, handler);
        }
    }

    /// Runs the exit handler, if any, on a thread of this pool that takes
    /// no more jobs.
    pub(crate) fn thread_exiting(&self, slot: usize) {
        if let Some(handler) = &self.thread_hooks.exit {
            self.run_handler(slot, handler);
        }
    }

    fn run_handler(&self, slot: usize, handler: &ThreadHandler) {
        let index = slot % self.num_workers();
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| handler(index))) {
            self.handle_panic(slot, payload);
        }
    }
}
