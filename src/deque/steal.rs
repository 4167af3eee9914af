//! The outcome of a steal.

/// The outcome of [`Stealer::steal`](super::Stealer::steal) and
/// [`Stealer::steal_batch_and_pop`](super::Stealer::steal_batch_and_pop).
///
/// ```
/// use stealpool::deque::{Steal, Worker};
///
/// let worker: Worker<usize> = Worker::new();
/// assert!(worker.stealer().steal().is_empty());
/// worker.push(1);
/// assert_eq!(worker.stealer().steal().success(), Some(1));
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Steal<T> {
    /// The deque was empty.
    Empty,
    /// An element was stolen.
    Success(T),
    /// Lost a race with another thread for the element; trying again may
    /// succeed.
    Retry,
}

impl<T> Steal<T> {
    /// `true` for [`Steal::Empty`].
    pub fn is_empty(&self) -> bool {
        matches!(self, Steal::Empty)
    }

    /// `true` for [`Steal::Success`].
    pub fn is_success(&self) -> bool {
        matches!(self, Steal::Success(_))
    }

    /// `true` for [`Steal::Retry`].
    pub fn is_retry(&self) -> bool {
        matches!(self, Steal::Retry)
    }

    /// The stolen element, if any.
    pub fn success(self) -> Option<T> {
        match self {
            Steal::Success(value) => Some(value),
            Steal::Empty | Steal::Retry => None,
        }
    }
}
