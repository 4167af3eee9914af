//! What a `join` reads after its push, so that, when nobody sleeps and
//! nobody asks for work, telling the pool about a new half costs two loads
//! of lines no step of a busy pool writes, and one predicted branch. The
//! worker keeps the address of its slot's line, which holds its attention
//! word and the sleepers word's address (`Slot`).
//!
//! Two locations (S7 in `proofs/sleep.md`):
//!
//! * the *sleepers word*, one for the pool on a line of its own: how many
//!   threads sleep. A sleeper adds one when it registers, before its heavy
//!   barrier, and the sleep's end takes it off again, both under the
//!   sleeper's own lock: one write at each end of a sleep, whatever the
//!   number of workers. Seeing a sleeper, a `join` runs S3/S4 on the
//!   counters as any push does;
//! * each slot's *attention word*, on a line of its own, with two flags:
//!   * [`WANTED`]: an idle worker asks this slot's owner to promote its
//!     oldest pending half, or the owner asks itself when its search woke
//!     a sleeper (F3 in `proofs/fork.md`);
//!   * [`FALLBACK`]: set for good in every slot's word when light barriers
//!     are full fences (no membarrier): a `join` there always takes the slow
//!     path, S3/S4 as every push, and its take-back runs `pop_biased`, whose
//!     light barrier tests what it is (D15).
//!
//! Every access is relaxed: neither word carries data. What the sleepers
//! word orders is the store-buffering pair of S7, through the barriers
//! around it.

use super::ordering::RELAXED;
use crate::sync::flags::bug;
use crate::sync::{Arc, AtomicUsize};
use crossbeam_utils::CachePadded;

/// Some worker asks this slot's owner to promote a pending half (F3).
const WANTED: usize = 1;
/// Light barriers are full fences: always take the slow path (S7).
const FALLBACK: usize = 2;

/// The sleepers word and the attention word of every slot.
pub(crate) struct Attention {
    /// How many threads sleep (S7): written only by a sleep's start and
    /// end, read by every `join` after its push. On the heap, so that the
    /// address every slot's line keeps stays put (an `Arc`, whose moves
    /// claim no unique access to it, as a `Box`'s would).
    sleepers: Arc<CachePadded<AtomicUsize>>,
    /// Each slot's line: its flags (F3, S7), written by askers and by the
    /// slot's owner answering, read by the owner's `join`s, and the
    /// sleepers word's address.
    slots: Box<[CachePadded<Slot>]>,
}

/// One slot's line: its attention word and where the sleepers word is, so
/// that a `join` reaches both through the one address its worker keeps.
pub(crate) struct Slot {
    word: AtomicUsize,
    /// The owning `Attention`'s `sleepers`, which lives as long as this.
    sleepers: *const AtomicUsize,
}

// SAFETY: `sleepers` points to an `AtomicUsize` (`Sync`) on the heap, which
// the same `Attention` owns and never moves; it is freed only when the
// `Attention` is dropped, after every use of this slot (every reader holds
// the registry that owns the `Attention`).
unsafe impl Send for Slot {}
// SAFETY: as `Send`; the pointer is only read, and only to load through.
unsafe impl Sync for Slot {}

impl Slot {
    /// The slot's attention word.
    pub(crate) fn word(&self) -> &AtomicUsize {
        &self.word
    }

    /// S7's two relaxed loads after a push, or where F6 asks: the slot's
    /// attention word and the sleepers word. Both zero: nobody sleeps,
    /// nobody asks (F3), and light barriers pair.
    #[inline(always)]
    pub(crate) fn loads(&self) -> (usize, usize) {
        // SAFETY: see `Slot`'s `Send`: the word outlives every use of `self`.
        let sleepers = unsafe { &*self.sleepers };
        // S7: relaxed; after a push, S3 makes both recent enough.
        (self.word.load(RELAXED), sleepers.load(RELAXED))
    }
}

/// What a `join` whose two words were not both zero must do (S7).
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
    /// The words for `slots` slots, nobody asleep, nothing asked. `fast`
    /// says whether a `join`'s light barrier pairs with the sleepers' heavy
    /// one (M1); if not, every slot's word carries [`FALLBACK`] for good.
    pub(crate) fn new(slots: usize, fast: bool) -> Self {
        let initial = if fast { 0 } else { FALLBACK };
        let sleepers = Arc::new(CachePadded::new(AtomicUsize::new(0)));
        let address: *const AtomicUsize = &**sleepers;
        Attention {
            slots: (0..slots)
                .map(|_| {
                    CachePadded::new(Slot {
                        word: AtomicUsize::new(initial),
                        sleepers: address,
                    })
                })
                .collect(),
            sleepers,
        }
    }

    /// Slot `index`'s line, for its owner to read after each push (S7).
    pub(crate) fn slot(&self, index: usize) -> &Slot {
        &self.slots[index]
    }

    /// Slot `index`'s word.
    #[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
    pub(crate) fn word(&self, index: usize) -> &AtomicUsize {
        &self.slots[index].word
    }

    /// The sleepers word (S7).
    #[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
    pub(crate) fn sleepers(&self) -> &AtomicUsize {
        &self.sleepers
    }

    /// What a slot's `word` and the `sleepers` count a `join` read ask of
    /// it, when they are not both zero (the fast path tests that itself).
    pub(crate) fn needs(word: usize, sleepers: usize) -> Needs {
        Needs {
            announce: sleepers != 0 || word & FALLBACK != 0,
            promote: word & WANTED != 0,
            fallback: Self::fallback(word),
        }
    }

    /// Whether a slot's `word` says light barriers may not pair (S7).
    pub(crate) fn fallback(word: usize) -> bool {
        word & FALLBACK != 0
    }

    /// A worker (or spare) registers as sleeping: one more sleeper. Under
    /// the sleeper's own lock, after the counters' S1 and before the
    /// sleeper's heavy barrier (S7).
    pub(crate) fn sleeper_in(&self) {
        // `--cfg stealpool_bug="sleeper_unannounced"`: sleepers leave the
        // sleepers word alone, so a `join` that reads it never learns of
        // them (the mistake S7 rules out).
        if bug!("sleeper_unannounced") {
            return;
        }
        super::probes::ATTENTION_WRITES.hit();
        // S7: relaxed RMW; the heavy barrier that follows orders it.
        self.sleepers.fetch_add(1, RELAXED);
    }

    /// A sleep registered by `sleeper_in` ended (woken, cancelled, or the
    /// worker left): one sleeper less. Under the sleeper's lock.
    pub(crate) fn sleeper_out(&self) {
        if bug!("sleeper_unannounced") {
            return;
        }
        super::probes::ATTENTION_WRITES.hit();
        // S7: relaxed RMW; nothing is read through it.
        self.sleepers.fetch_sub(1, RELAXED);
    }

    /// Asks the owner of slot `victim` to promote a half (F3). Returns
    /// whether it had been asked already and has not answered.
    pub(crate) fn ask(&self, victim: usize) -> bool {
        let word = &self.slots[victim].word;
        // F3: relaxed, a hint; the check spares an RMW per round.
        if word.load(RELAXED) & WANTED != 0 {
            return true;
        }
        // F3: relaxed RMW, so that `FALLBACK` is kept.
        word.fetch_or(WANTED, RELAXED);
        false
    }

    /// The request to slot `index` is answered: its owner promoted a half,
    /// or an idle worker took one (F3, F4).
    pub(crate) fn answered(&self, index: usize) {
        // F3: relaxed RMW; a request made after it is served later or by F4.
        self.slots[index].word.fetch_and(!WANTED, RELAXED);
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

    /// What slot `index`'s `join` reads, as `push_join` reads it.
    fn needs(attention: &Attention, index: usize) -> Option<Needs> {
        let (word, sleepers) = attention.slot(index).loads();
        (word | sleepers != 0).then(|| Attention::needs(word, sleepers))
    }

    #[test]
    fn a_quiet_pool_asks_nothing_of_a_join() {
        let attention = Attention::new(3, true);
        assert_eq!(needs(&attention, 0), None);
        assert_eq!(needs(&attention, 2), None);
    }

    #[test]
    fn every_slot_announces_while_anyone_sleeps() {
        let attention = Attention::new(3, true);
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
    fn a_sleep_writes_one_word_whatever_the_slots() {
        let attention = Attention::new(64, true);
        attention.sleeper_in();
        for index in 0..64 {
            assert_eq!(
                attention.word(index).load(RELAXED),
                0,
                "slot {index}'s word written"
            );
        }
        assert_eq!(attention.sleepers().load(RELAXED), 1);
        attention.sleeper_out();
        assert_eq!(attention.sleepers().load(RELAXED), 0);
    }

    #[test]
    fn a_request_reaches_one_owner_beside_the_sleepers() {
        let attention = Attention::new(2, true);
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
        assert_eq!(
            needs(&attention, 1),
            Some(Needs {
                announce: false,
                promote: true,
                fallback: false,
            })
        );
    }

    #[test]
    fn without_paired_barriers_every_join_announces() {
        let attention = Attention::new(2, false);
        assert_eq!(needs(&attention, 0), Some(FALLING_BACK));
        assert!(Attention::fallback(attention.word(1).load(RELAXED)));
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
