//! Each slot's attention word: the one location a `join` reads after its
//! push, so that, when nobody sleeps and nobody asks for work, telling the
//! pool about a new half costs one load and one predicted branch.
//!
//! The word gathers what a `join` must act on (S7 in `proofs/sleep.md`):
//!
//! * how many workers sleep: every sleeper adds [`ONE_SLEEPER`] to every
//!   worker's word when it registers, before its heavy barrier, and the
//!   sleep's end takes it off again, all under the sleeper's own lock. Seeing a
//!   sleeper, a `join` runs S3/S4 on the counters as any push does;
//! * [`WANTED`]: an idle worker asks this slot's owner to promote its
//!   oldest pending half (F3 in `proofs/fork.md`);
//! * [`FALLBACK`]: set for good in every word when light barriers are
//!   full fences (no membarrier), and in the spare threads' slots always
//!   (so that a sleep writes only the workers' words): a `join` there
//!   always takes the slow path, S3/S4 as every push, and its take-back
//!   runs `pop_biased`, whose light barrier tests what it is (D15).
//!
//! Every access is relaxed: the word carries no data. What it orders is the
//! store-buffering pair of S7, through the barriers around it.

use super::ordering::RELAXED;
use crate::sync::AtomicUsize;
use crossbeam_utils::CachePadded;

/// Some worker asks this slot's owner to promote a pending half (F3).
const WANTED: usize = 1;
/// Light barriers are full fences: always take the slow path (S7).
const FALLBACK: usize = 2;
/// One sleeping worker (S7); the count takes the bits above the flags.
const ONE_SLEEPER: usize = 4;

/// The attention words of every slot.
pub(crate) struct Attention {
    words: Box<[CachePadded<AtomicUsize>]>,
    /// The first `workers` words are the workers', raised by sleepers; the
    /// spare slots' carry `FALLBACK`.
    workers: usize,
}

/// What a `join` whose word was not zero must do (S7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Needs {
    /// Run S3/S4 on the counters, as every other push does.
    pub(crate) announce: bool,
    /// Promote the oldest pending half (F3).
    pub(crate) promote: bool,
    /// Light barriers may not pair with heavy ones here (`FALLBACK`): the
    /// half's take-back must not take it as known that they do (S7).
    pub(crate) fallback: bool,
}

impl Attention {
    /// Words for `slots` slots, of which the first `workers` are the
    /// workers', nobody asleep, nothing asked. `fast` says whether a
    /// `join`'s light barrier pairs with the sleepers' heavy one (M1); if
    /// not, every word carries [`FALLBACK`] for good, and the spare slots'
    /// words always do.
    pub(crate) fn new(slots: usize, workers: usize, fast: bool) -> Self {
        let initial = |slot| if fast && slot < workers { 0 } else { FALLBACK };
        Attention {
            words: (0..slots)
                .map(|slot| CachePadded::new(AtomicUsize::new(initial(slot))))
                .collect(),
            workers,
        }
    }

    /// The words sleepers keep: the workers'.
    fn workers_words(&self) -> &[CachePadded<AtomicUsize>] {
        &self.words[..self.workers]
    }

    /// Slot `index`'s word, for its owner to read after each push (S7).
    pub(crate) fn word(&self, index: usize) -> &AtomicUsize {
        &self.words[index]
    }

    /// What a word a `join` read asks of it, when it is not zero (the
    /// fast path tests that itself).
    pub(crate) fn needs(word: usize) -> Needs {
        Needs {
            announce: word & !WANTED != 0,
            promote: word & WANTED != 0,
            fallback: word & FALLBACK != 0,
        }
    }

    /// A worker (or spare) registers as sleeping: raise every worker's
    /// word. Under the sleeper's own lock, after the counters' S1 and before the
    /// sleeper's heavy barrier (S7).
    pub(crate) fn sleeper_in(&self) {
        // `--cfg stealpool_bug="sleeper_unannounced"`: sleepers leave the
        // words alone, so a `join` that reads its word never learns of
        // them (the mistake S7 rules out).
        if cfg!(stealpool_bug = "sleeper_unannounced") {
            return;
        }
        for word in self.workers_words() {
            super::probes::ATTENTION_WRITES.hit();
            // S7: relaxed RMW; the heavy barrier that follows orders it.
            word.fetch_add(ONE_SLEEPER, RELAXED);
        }
    }

    /// A sleep registered by `sleeper_in` ended (woken, cancelled, or the
    /// worker left): lower every worker's word. Under the sleeper's lock.
    pub(crate) fn sleeper_out(&self) {
        if cfg!(stealpool_bug = "sleeper_unannounced") {
            return;
        }
        for word in self.workers_words() {
            super::probes::ATTENTION_WRITES.hit();
            // S7: relaxed RMW; nothing is read through it.
            word.fetch_sub(ONE_SLEEPER, RELAXED);
        }
    }

    /// Asks the owner of slot `victim` to promote a half (F3). Returns
    /// whether it had been asked already and has not answered.
    pub(crate) fn ask(&self, victim: usize) -> bool {
        let word = &self.words[victim];
        // F3: relaxed, a hint; the check spares an RMW per round.
        if word.load(RELAXED) & WANTED != 0 {
            return true;
        }
        // F3: relaxed RMW, so that the sleepers' counts are kept.
        word.fetch_or(WANTED, RELAXED);
        false
    }

    /// The request to slot `index` is answered: its owner promoted a half,
    /// or an idle worker took one (F3, F4).
    pub(crate) fn answered(&self, index: usize) {
        // F3: relaxed RMW; a request made after it is served later or by F4.
        self.words[index].fetch_and(!WANTED, RELAXED);
    }
}

#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::*;

    const ANNOUNCE: Needs = Needs {
        announce: true,
        promote: false,
        fallback: false,
    };
    const BOTH: Needs = Needs {
        announce: true,
        promote: true,
        fallback: false,
    };
    const FALLING_BACK: Needs = Needs {
        announce: true,
        promote: false,
        fallback: true,
    };

    fn needs(attention: &Attention, index: usize) -> Option<Needs> {
        let word = attention.word(index).load(RELAXED);
        (word != 0).then(|| Attention::needs(word))
    }

    #[test]
    fn a_quiet_pool_asks_nothing_of_a_join() {
        let attention = Attention::new(3, 3, true);
        assert_eq!(needs(&attention, 0), None);
        assert_eq!(needs(&attention, 2), None);
    }

    #[test]
    fn every_word_announces_while_anyone_sleeps() {
        let attention = Attention::new(3, 3, true);
        attention.sleeper_in();
        attention.sleeper_in();
        for index in 0..3 {
            assert_eq!(needs(&attention, index), Some(ANNOUNCE));
        }
        attention.sleeper_out();
        assert_eq!(needs(&attention, 1), Some(ANNOUNCE));
        attention.sleeper_out();
        assert_eq!(needs(&attention, 1), None);
    }

    #[test]
    fn a_request_reaches_one_owner_and_keeps_the_sleepers() {
        let attention = Attention::new(2, 2, true);
        attention.sleeper_in();
        assert!(!attention.ask(1), "the first ask is new");
        assert!(attention.ask(1), "the second sees the first unanswered");
        assert_eq!(needs(&attention, 1), Some(BOTH));
        assert_eq!(needs(&attention, 0), Some(ANNOUNCE));
        attention.answered(1);
        assert_eq!(needs(&attention, 1), Some(ANNOUNCE));
        attention.sleeper_out();
        assert_eq!(needs(&attention, 1), None);
        assert!(!attention.ask(1), "answered, so asking is new again");
    }

    #[test]
    fn spare_slots_always_announce_and_sleepers_leave_them_alone() {
        let attention = Attention::new(3, 1, true);
        assert_eq!(needs(&attention, 0), None);
        assert_eq!(needs(&attention, 2), Some(FALLING_BACK));
        attention.sleeper_in();
        assert_eq!(needs(&attention, 0), Some(ANNOUNCE));
        assert_eq!(needs(&attention, 2), Some(FALLING_BACK));
        attention.sleeper_out();
        assert_eq!(attention.word(1).load(RELAXED), FALLBACK);
        assert_eq!(needs(&attention, 0), None);
    }

    #[test]
    fn without_paired_barriers_every_join_announces() {
        let attention = Attention::new(2, 2, false);
        assert_eq!(needs(&attention, 0), Some(FALLING_BACK));
        attention.ask(0);
        assert_eq!(
            needs(&attention, 0),
            Some(Needs {
                promote: true,
                ..FALLING_BACK
            })
        );
        attention.answered(0);
        assert_eq!(needs(&attention, 0), Some(FALLING_BACK));
    }
}
