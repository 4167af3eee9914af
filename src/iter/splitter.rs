//! Adaptive splitting, shared by the parallel loops (`loops.rs`) and the
//! parallel iterators (`crate::iter`): a range is cut into about two pieces
//! per worker, and a piece that another worker steals is cut again.

use crate::pool::api::thread_pool::current_slot_index;

/// The split budget of a piece of work: how many more times it may be
/// halved. It starts at one split per worker and halves at each level, so
/// a balanced loop pays for a handful of `join`s.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Splitter {
    splits: usize,
    workers: usize,
}

/// The right half's budget, decided where that half runs (see
/// [`RightSplits::arrive`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RightSplits {
    half: usize,
    workers: usize,
    /// The worker that split: the right half is stolen if it runs elsewhere.
    home: Option<usize>,
}

impl Splitter {
    /// A fresh budget for a pool of `workers` workers: one split per worker.
    pub(crate) fn new(workers: usize) -> Splitter {
        Splitter {
            splits: workers,
            workers,
        }
    }

    /// If the budget allows another split: the left half's budget, and the
    /// right half's, to be settled by [`RightSplits::arrive`] on the thread
    /// that runs it. Call it on the thread that forks.
    pub(crate) fn split(self) -> Option<(Splitter, RightSplits)> {
        if self.splits == 0 {
            return None;
        }
        Some(self.split_anyway())
    }

    /// [`split`](Splitter::split) even when the budget is spent (the
    /// halves' budgets then spent too): for a piece longer than its
    /// producer's `max_len`.
    pub(crate) fn split_anyway(self) -> (Splitter, RightSplits) {
        let half = self.splits / 2;
        let left = Splitter {
            splits: half,
            workers: self.workers,
        };
        let right = RightSplits {
            half,
            workers: self.workers,
            home: current_slot_index(),
        };
        (left, right)
    }
}

impl RightSplits {
    /// The right half's budget, called where it runs: the halved budget if
    /// it runs where it was split, and a fresh one per worker if it was
    /// stolen. Work that moves is work some worker was starved of, so it is
    /// cut finer where it lands.
    pub(crate) fn arrive(self) -> Splitter {
        let splits = if current_slot_index() == self.home {
            self.half
        } else {
            self.half.max(self.workers)
        };
        Splitter {
            splits,
            workers: self.workers,
        }
    }
}
