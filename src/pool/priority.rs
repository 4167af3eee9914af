//! Task priorities.

/// How urgently a task started with
/// [`ThreadPool::spawn_with_priority`](crate::ThreadPool::spawn_with_priority)
/// or [`ThreadPool::submit_with_priority`](crate::ThreadPool::submit_with_priority)
/// should run. [`spawn`](crate::ThreadPool::spawn) and
/// [`submit`](crate::ThreadPool::submit) use [`Priority::Normal`].
///
/// ```
/// use stealpool::Priority;
/// assert!(Priority::Critical > Priority::High);
/// assert!(Priority::High > Priority::Normal);
/// assert!(Priority::Normal > Priority::Low);
/// assert_eq!(Priority::default(), Priority::Normal);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Priority {
    /// Background work: runs when nothing more urgent is ready.
    Low,
    /// The priority of `spawn`, `submit` and continuations.
    #[default]
    Normal,
    /// Runs before ready `Normal` and `Low` tasks.
    High,
    /// Runs before every other ready task.
    Critical,
}
