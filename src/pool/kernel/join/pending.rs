//! A worker's pending `join` halves: the push that publishes a half and
//! tells sleepers and askers of it (F1, S3, S7, F3), the take-back (F2),
//! the limit of `max_pending_joins` (F6), the promotion of the oldest half
//! to the shared deque (F3), and the marks of a stolen half a waiting
//! owner may help beneath (H6). Proofs: `proofs/fork.md`, `proofs/sleep.md`.

use crate::lockfree::JobRef;
use crate::lockfree::Worker;
use crate::pool::kernel::attention::Attention;
use crate::pool::kernel::ordering::{barrier_known, MARK_STORE, PRODUCER_FENCE, RELAXED};
use crate::pool::kernel::stats::Event;
use crate::pool::kernel::worker::WorkerThread;
use crate::sync::flags::bug;

/// Scheduling points a joining thread gives a thief under shuttle, at
/// most, before it runs `a` (`let_a_thief_in`). With two runnable threads
/// the random scheduler runs the thief about every other point; 16 finds
/// the planted races of `examples/model-your-code` as soon as 64 did
/// (schedules 17, 17, 17, 4, 40; 27, 27, 27, 4, 40 since the coin is
/// tossed only for a worker's one pending half), at a third less time in the pool's own
/// models (`limited_joins_then_block_2_workers`: 8.3 s with 64, 5.5 s
/// with 16, 2.7 s with no coin on a less loaded machine).
#[cfg(feature = "shuttle")]
const THIEF_STEPS: usize = 16;

impl WorkerThread {
    /// Whether a `join` may run its two closures inline, publishing nothing
    /// (F6): this worker has at least as many halves pending as the pool's
    /// limit, and nobody sleeps or asks for work. Only `join`s on pools
    /// with a limit ask (`ThreadPool::join`).
    #[inline(always)]
    pub(crate) fn runs_join_inline(&self) -> bool {
        if bug!("pending_limit_ignored") {
            // Runs every `join` inline, even the first with no half
            // pending: the mistake F6's count rules out.
            return true;
        }
        // F6: `len` is two relaxed loads (D12); a stale `top` only
        // overstates the count. Then S7's two relaxed loads: both zero
        // when nobody sleeps, nobody asks (F3) and light barriers pair.
        self.joins.len() >= self.max_pending_joins && {
            let (word, sleepers) = self.attention_and_sleepers();
            word | sleepers == 0
        }
    }

    /// Records a `join`'s second half (F1): on the owner-biased deque, with
    /// no barrier and no RMW, then tells sleepers (S3, S4) as any push does,
    /// and serves a pending request for work, or the sleeper it woke (F3).
    /// Returns what to give
    /// `take_back_join`: the half's index, or `Worker::NO_INDEX` where
    /// light barriers may not pair with heavy ones (S7).
    #[inline]
    pub(crate) fn push_join(&self, job: JobRef) -> i64 {
        let index = self.joins.push_indexed(job);
        // S3 here too: the task that forked may block outside the pool
        // until this half runs; a sleeper must then take it (F5). Known
        // light: a word without `FALLBACK` means light barriers pair (S7).
        barrier_known(PRODUCER_FENCE, true);
        // S7: the slot's word and the sleepers word, relaxed; S3 makes
        // them recent enough. Both zero: nobody sleeps, nobody asks (F3),
        // and light barriers pair. One branch for both.
        let (word, sleepers) = self.attention_and_sleepers();
        if word | sleepers != 0 {
            return self.attend(word, sleepers, index);
        }
        index
    }

    /// The words read after a push were not both zero (S7): announce the
    /// half to the counters as every push does (S3, S4) if a thread sleeps
    /// or the slot's word has `FALLBACK`, and promote one if asked, or if
    /// the announcement woke a sleeper (F3).
    /// Returns `index`, or
    /// `Worker::NO_INDEX` if the slot's word says light barriers may not
    /// pair, so that the take-back does not take it as known that they do
    /// (D15 through `pop_biased`).
    #[cold]
    #[inline(never)]
    fn attend(&self, word: usize, sleepers: usize, index: i64) -> i64 {
        let needs = Attention::needs(word, sleepers);
        // F3: a sleeper this wakes will look for the half: promoted, it is
        // on `local`, where a steal runs no heavy barrier (F4).
        let woke = needs.announce && self.registry.sleep.new_work();
        if needs.promote || woke {
            self.promote();
        }
        // `--cfg stealpool_bug="fallback_index_kept"`: the take-back trusts
        // light barriers where they are full fences only by luck (the
        // mistake S7's `FALLBACK` rules out; `take_back_join` asserts it).
        if needs.fallback && !bug!("fallback_index_kept") {
            Worker::<JobRef>::NO_INDEX
        } else {
            index
        }
    }

    /// Takes back the newest pending `join` half, or `None` if it (and so
    /// every older one) was promoted or taken (F2).
    #[inline]
    pub(crate) fn pop_join(&self) -> Option<JobRef> {
        self.joins.pop_biased()
    }

    /// Takes back the half `push_join` put at `index` (F1): `Ok(())` if it
    /// was still there, else `Err` of what `pop_join` finds (F2).
    ///
    /// # Safety
    ///
    /// As `Worker::take_back`: `index` is what `push_join` returned, for a
    /// half this thread has not popped since.
    #[inline]
    pub(crate) unsafe fn take_back_join(&self, index: i64) -> Result<(), Option<JobRef>> {
        debug_assert!(
            index == Worker::<JobRef>::NO_INDEX
                // S7: relaxed; `FALLBACK` never changes after the pool's build.
                || !Attention::fallback(self.attention().word().load(RELAXED)),
            "a take-back trusts light barriers in a slot whose word has FALLBACK"
        );
        // SAFETY: a `JobRef` needs no drop; the rest is the caller's. An
        // index other than `NO_INDEX` comes from a push that read its word
        // without `FALLBACK`, which a pool's build leaves only where light
        // barriers pair with heavy ones (S7).
        unsafe { self.joins.take_back(index, true) }
    }

    /// Puts back a job `pop_local` took: at the bottom, where it was.
    pub(crate) fn unpop_local(&self, job: JobRef) {
        self.local.push(job);
    }

    /// Puts back a half `pop_join` took: at the bottom, where it was.
    pub(crate) fn unpop_join(&self, job: JobRef) {
        self.joins.push(job);
    }

    /// Moves the oldest pending `join` half to the deque thieves look in
    /// first, and clears the request (F3). A half from below the mark of
    /// the stolen half this thread runs (H6) is not forked beneath that
    /// half: it goes without its kind, so that the half's owner, helping
    /// from this deque while it waits, leaves it to other thieves.
    fn promote(&self) {
        self.registry.sleep.attention.answered(self.index);
        if let Some((job, index)) = self.joins.pop_oldest_indexed() {
            self.registry.counters[self.index].record(Event::Promoted);
            let job = if index >= self.beneath_joins.get() {
                job
            } else {
                job.without_kind()
            };
            self.push(job);
        }
    }

    /// Under shuttle, makes "another worker steals the half just pushed and
    /// runs it beside `a`" a schedule its random scheduler reaches often
    /// (N2 in `proofs/model-build.md`).
    ///
    /// On real threads an idle worker asks for a half before the push, or
    /// sleeps and is woken by it (F3), and then races `a`. Under shuttle a
    /// worker's path to that point (its start, its search, its request or
    /// its sleep) is dozens of scheduling points, and a scheduler that
    /// picks a thread at random at each one lets the joining thread run
    /// `a` and take its half back first in nearly every schedule (99 of
    /// 100 pushes found no request and no sleeper, measured on a fresh
    /// two-worker pool): a race between the halves would go unseen. So, on
    /// a coin the scheduler tosses, this answers as if a request had come
    /// before the push: it promotes the oldest pending half (as `attend`
    /// does, which wakes a sleeper), then yields until the half is gone
    /// from the shared deque or [`THIEF_STEPS`] points have passed. Both
    /// are schedules real threads have (a request that came first, a
    /// joining thread that is slow to start `a`); the coin keeps the
    /// schedules where nothing is promoted. Loom needs none of this: it
    /// explores every schedule within its bound.
    #[cfg(feature = "shuttle")]
    pub(crate) fn let_a_thief_in(&self) {
        // Only outside every stolen half (H6's marks unset), where the
        // half just pushed is this worker's one pending half and its shared
        // deque is empty: the promoted half is then alone there. Tossed
        // inside stolen halves too, the coin led three-worker models of
        // nested `join`s to deadlocks not yet explained (N2, "What is
        // open" in `proofs/model-build.md`).
        let inside_a_stolen_half = self.beneath_joins.get() != i64::MIN;
        if inside_a_stolen_half
            || self.joins.len() != 1
            || !self.local.is_empty()
            || !crate::sync::schedule_coin()
        {
            return;
        }
        self.promote();
        for _ in 0..THIEF_STEPS {
            if self.local.is_empty() {
                break;
            }
            crate::sync::thread::yield_now();
        }
    }

    /// H6: this thread starts a `join` half another thread's `join` waits
    /// for. From here until `leave_stolen_half`, what it pushes on its
    /// deques is work forked beneath that half, and the owner may take the
    /// halves among it. Returns the marks to put back.
    pub(crate) fn enter_stolen_half(&self) -> (i64, i64) {
        let outer = (self.beneath_joins.get(), self.beneath_local.get());
        self.beneath_joins.set(self.joins.next_index());
        let mark = self.local.next_index();
        self.beneath_local.set(mark);
        // H6: release; the latch's `mark_running` that follows publishes
        // it too, and a later store (a nested half, or the mark put back)
        // carries what came before it.
        self.registry.beneath_marks[self.index].store(mark, MARK_STORE);
        outer
    }

    /// H6: the half `enter_stolen_half` started has ended, and its latch
    /// is set: the marks of the half it ran inside come back.
    pub(crate) fn leave_stolen_half(&self, (joins, local): (i64, i64)) {
        self.beneath_joins.set(joins);
        self.beneath_local.set(local);
        // H6: release, after the latch's set: an owner whose acquire reads
        // this sees its latch set, and runs nothing it took here.
        self.registry.beneath_marks[self.index].store(local, MARK_STORE);
    }
}
