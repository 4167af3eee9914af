//! The outcome of a steal.

/// The outcome of a steal: from a [`Stealer`](super::Stealer) or an
/// [`Injector`](super::Injector).
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
    ///
    /// ```
    /// use stealpool::deque::Steal;
    ///
    /// assert!(Steal::<u8>::Empty.is_empty());
    /// assert!(!Steal::Success(1).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        matches!(self, Steal::Empty)
    }

    /// `true` for [`Steal::Success`].
    ///
    /// ```
    /// use stealpool::deque::Steal;
    ///
    /// assert!(Steal::Success(1).is_success());
    /// assert!(!Steal::<u8>::Retry.is_success());
    /// ```
    pub fn is_success(&self) -> bool {
        matches!(self, Steal::Success(_))
    }

    /// `true` for [`Steal::Retry`].
    ///
    /// ```
    /// use stealpool::deque::Steal;
    ///
    /// assert!(Steal::<u8>::Retry.is_retry());
    /// assert!(!Steal::<u8>::Empty.is_retry());
    /// ```
    pub fn is_retry(&self) -> bool {
        matches!(self, Steal::Retry)
    }

    /// The stolen element, if any.
    ///
    /// ```
    /// use stealpool::deque::Steal;
    ///
    /// assert_eq!(Steal::Success(1).success(), Some(1));
    /// assert_eq!(Steal::<u8>::Retry.success(), None);
    /// ```
    pub fn success(self) -> Option<T> {
        match self {
            Steal::Success(value) => Some(value),
            Steal::Empty | Steal::Retry => None,
        }
    }

    /// If no element was stolen, tries `f`, as crossbeam-deque's: an
    /// [`Empty`](Steal::Empty) gives way to `f()`'s outcome; a
    /// [`Retry`](Steal::Retry) to `f()`'s element if it stole one, and
    /// otherwise stays a `Retry` (some source may still hold elements);
    /// a [`Success`](Steal::Success) is kept and `f` is not called.
    ///
    /// ```
    /// use stealpool::deque::Steal::{self, Empty, Retry, Success};
    ///
    /// assert_eq!(Success(1).or_else(|| Success(2)), Success(1));
    /// assert_eq!(Retry.or_else(|| Success(2)), Success(2));
    /// assert_eq!(Retry.or_else(|| Empty), Retry::<i32>);
    /// assert_eq!(Empty.or_else(|| Retry), Retry::<i32>);
    /// assert_eq!(Empty.or_else(|| Empty), Empty::<i32>);
    /// ```
    pub fn or_else<F>(self, f: F) -> Steal<T>
    where
        F: FnOnce() -> Steal<T>,
    {
        match self {
            Steal::Empty => f(),
            Steal::Success(_) => self,
            Steal::Retry => match f() {
                Steal::Success(value) => Steal::Success(value),
                Steal::Empty | Steal::Retry => Steal::Retry,
            },
        }
    }
}

impl<T> FromIterator<Steal<T>> for Steal<T> {
    /// Takes outcomes until one is a [`Success`](Steal::Success) and returns
    /// it, consuming nothing after it; with no success, a
    /// [`Retry`](Steal::Retry) if any outcome was one, else
    /// [`Empty`](Steal::Empty). Crossbeam-deque's semantics: the way to
    /// steal from several sources in turn.
    ///
    /// ```
    /// use stealpool::deque::{Injector, Steal, Worker};
    ///
    /// let injector = Injector::new();
    /// let victims: Vec<Worker<u32>> = (0..3).map(|_| Worker::new()).collect();
    /// victims[2].push(7);
    /// let stealers: Vec<_> = victims.iter().map(Worker::stealer).collect();
    /// let outcome: Steal<u32> = std::iter::once(injector.steal())
    ///     .chain(stealers.iter().map(|s| s.steal()))
    ///     .collect();
    /// assert_eq!(outcome, Steal::Success(7));
    /// let none: Steal<u32> = [Steal::Empty, Steal::Retry, Steal::Empty].into_iter().collect();
    /// assert_eq!(none, Steal::Retry);
    /// ```
    fn from_iter<I>(iter: I) -> Steal<T>
    where
        I: IntoIterator<Item = Steal<T>>,
    {
        let mut retry = false;
        for outcome in iter {
            match outcome {
                Steal::Empty => {}
                Steal::Success(_) => return outcome,
                Steal::Retry => retry = true,
            }
        }
        if retry {
            Steal::Retry
        } else {
            Steal::Empty
        }
    }
}
