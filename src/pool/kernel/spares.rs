//! Spare threads: a worker about to block (`block_in_place`, a parked
//! wait) brings a spare thread in to run the pool's other work meanwhile
//! (compensation).
//!
//! A pool has slots beyond its workers' (`Builder::max_blocking_threads`),
//! each with deques of its own, in every array the workers' slots are in.
//! A worker entering `block_in_place` counts itself *blocked*; while fewer
//! spares hold a slot than threads are blocked, it hands a free slot to a
//! parked spare thread or starts one (W1). The spare runs jobs as a worker
//! does and joins the sleep protocol as one more member; out of work, it
//! leaves the protocol when no longer needed, and only then, even at
//! shutdown (W2). At a job boundary it gives its slot back if no longer
//! needed and its deques are empty (W3). A spare without a slot parks
//! until it gets one, or the pool shuts down, or a timeout (W4). The
//! counts of blocked threads and active spares are under the accounts lock,
//! where a spare decides to leave; slots and threads under the `Spares`
//! mutex, taken first.
//!
//! The blocked thread keeps its own slot all along: the frames above the
//! call (a `join` waiting for its second half, a `scope`) still use its
//! deques after `f` returns, so they are never handed over; while it
//! blocks, its jobs are stolen like any busy worker's (F4 for its pending
//! `join` halves). Proof: `proofs/blocking.md`.
//!
//! Spares are the pool's own threads, started after `build`. A pool whose
//! workers the caller's spawn handler started (`Builder::spawn_handler`,
//! `build_scoped`) has no spare slots unless `max_blocking_threads` asks
//! for them, so that every thread running its tasks went through the
//! handler: W1's claim then holds with no slot (`active >= min(blocked,
//! 0)`), and a blocking worker blocks, counted, as with the cap at `0`.

use super::registry::Registry;
use super::sleep::Compensation;
use super::worker::{Deques, WorkerThread};
use crate::sync::flags::bug;
use crate::sync::{thread, Arc, Condvar, Mutex, MutexGuard};

/// How long a parked spare waits for a slot before its thread exits.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(10);

/// A spare slot: its index in the pool's per-slot arrays, and its deques.
pub(crate) struct Slot {
    index: usize,
    deques: Deques,
}

impl Slot {
    pub(crate) fn new(index: usize, deques: Deques) -> Slot {
        Slot { index, deques }
    }
}

/// The spare threads of a pool and their slots (W1-W5), under one mutex
/// taken before the accounts lock, which holds the blocked and active counts.
pub(crate) struct Spares {
    state: Mutex<State>,
    /// Parked spare threads wait here for a slot or the shutdown.
    parked: Condvar,
    /// How many spare slots the pool has.
    slots: usize,
    stack_size: Option<usize>,
    /// The workers' names when the caller chose them: the spare in slot
    /// `s` takes the name of worker `s % workers`, whose index it answers.
    names: Option<Box<[String]>>,
}

/// The slots and threads; the counts of blocked threads and active spares
/// are under the accounts lock, where the spares' decision to leave is made
/// (W1, W2).
struct State {
    /// Slots no thread holds.
    free: Vec<Slot>,
    /// Slots handed to parked threads and not yet taken.
    handed: Vec<Slot>,
    /// Spare threads parked (waiting for a slot).
    parked: usize,
    /// Spares counted active by `enter` whose slot is still on its way
    /// back from a spare that left (W3): that spare runs it again.
    reclaims: usize,
    /// Set by the shutdown: parked spares exit (W4).
    closed: bool,
    /// Every spare thread started, for the shutdown to join.
    threads: Vec<thread::JoinHandle<()>>,
    counts: SpareCounts,
}

impl State {
    /// W5: the free slot with the lowest index, so that the slots ever
    /// held stay the first ones and searches look at no others.
    fn take_lowest_free(&mut self) -> Option<Slot> {
        let lowest = (0..self.free.len()).min_by_key(|&i| self.free[i].index)?;
        Some(self.free.swap_remove(lowest))
    }
}

/// What `Stats` reports of the spares.
#[derive(Clone, Copy, Default)]
pub(crate) struct SpareCounts {
    /// Slots handed to a spare thread (started or woken).
    pub(crate) activations: u64,
    /// `block_in_place` calls on a worker that found no free slot.
    pub(crate) uncompensated: u64,
}

impl Spares {
    pub(crate) fn new(slots: Vec<Slot>, stack_size: Option<usize>, names: Option<Box<[String]>>) -> Spares {
        Spares {
            slots: slots.len(),
            state: Mutex::new(State {
                free: slots,
                handed: Vec::new(),
                parked: 0,
                reclaims: 0,
                closed: false,
                threads: Vec::new(),
                counts: SpareCounts::default(),
            }),
            parked: Condvar::new(),
            stack_size,
            names,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding this lock; recover anyway.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many spare slots the pool has (`max_blocking_threads`).
    pub(crate) fn slot_count(&self) -> usize {
        self.slots
    }

    pub(crate) fn counts(&self) -> SpareCounts {
        self.lock().counts
    }

    /// W1: the current thread, a thread of `registry`'s pool, is about to
    /// block. If fewer spares hold a slot than threads block, a free slot
    /// goes to a parked spare or a new one; with none free, the call just
    /// blocks (counted). Returns whether the pool keeps its strength: a
    /// spare stands in, or enough did already.
    fn enter(&self, registry: &Arc<Registry>) -> bool {
        let mut state = self.lock();
        // Even after the shutdown began: the drain runs every queued task,
        // and those may block too (W1). `--cfg
        // stealpool_bug="drain_uncompensated"` brings no spare in once the
        // pool terminates (a first version's mistake).
        let slots = if bug!("drain_uncompensated") && registry.is_terminating() {
            0
        } else {
            self.slots
        };
        match registry.sleep.block(slots) {
            Compensation::Enough => return true,
            Compensation::NoSlot => {
                state.counts.uncompensated += 1;
                return false;
            }
            Compensation::Spare => {}
        }
        state.counts.activations += 1;
        // W3: no slot free although fewer spares are active than slots: a
        // spare has just left and is on its way to give its slot back; it
        // takes up the slot again instead (`spare_thread`).
        let Some(slot) = state.take_lowest_free() else {
            state.reclaims += 1;
            return true;
        };
        if state.parked > state.handed.len() {
            state.handed.push(slot);
            self.parked.notify_one();
            return true;
        }
        let index = slot.index;
        let spare_registry = Arc::clone(registry);
        let name = match &self.names {
            Some(names) => names[index % names.len()].clone(),
            None => format!("stealpool-spare-{index}"),
        };
        let mut builder = thread::Builder::new().name(name);
        if let Some(bytes) = self.stack_size {
            builder = builder.stack_size(bytes);
        }
        // The slot travels with the closure; a failed spawn drops the
        // closure unrun, and the slot comes back through `slot_back`.
        let (sender, slot_back) = SlotReturn::new(slot);
        match builder.spawn(move || spare_thread(spare_registry, sender.take())) {
            Ok(handle) => {
                state.threads.push(handle);
                true
            }
            Err(_) => {
                // Plain blocking, as with no free slot: not a panic.
                registry.sleep.spare_failed(|| registry.is_terminating());
                state.counts.activations -= 1;
                state.counts.uncompensated += 1;
                if let Some(slot) = slot_back.take_back() {
                    state.free.push(slot);
                }
                false
            }
        }
    }

    /// W3, at a job boundary of the spare in `worker`: the guard, when its
    /// deques are empty and the sleep protocol lets it go (more spares
    /// than blocked threads, not the last member); the spare then gives
    /// its slot back under this guard.
    fn retiring(&self, worker: &WorkerThread) -> Option<MutexGuard<'_, State>> {
        let state = self.lock();
        let registry = worker.registry();
        (worker.owns_no_work() && registry.sleep.retire_spare(|| registry.is_terminating())).then_some(state)
    }

    /// `closed`, read as the `park_unlocked` mutant reads it: in a critical
    /// section of its own, so it is stale by the time the caller waits.
    fn closed_unlocked(&self) -> bool {
        self.lock().closed
    }

    /// W4: shutdown. Parked spares exit; a spare started during the drain
    /// exits with the workers.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        self.parked.notify_all();
    }

    /// The spare threads started so far, for the shutdown to join: called
    /// until it returns none (a spare may start another while it runs).
    pub(crate) fn take_threads(&self) -> Vec<thread::JoinHandle<()>> {
        std::mem::take(&mut self.lock().threads)
    }
}

/// Hands a slot to a new thread's closure and takes it back if the spawn
/// failed and dropped the closure unrun.
/// (A `std` lock: nothing waits on it, so it is no part of any protocol.)
struct SlotReturn(std::sync::Arc<std::sync::Mutex<Option<Slot>>>);

impl SlotReturn {
    fn new(slot: Slot) -> (SlotReturn, SlotReturn) {
        let cell = std::sync::Arc::new(std::sync::Mutex::new(Some(slot)));
        (SlotReturn(std::sync::Arc::clone(&cell)), SlotReturn(cell))
    }

    fn take(self) -> Slot {
        let slot = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        slot.expect("a spare's slot is taken once")
    }

    fn take_back(self) -> Option<Slot> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// A spare thread: runs as a worker on its slot until it retires (W3),
/// parks until it gets another slot, and exits on shutdown or after
/// `KEEP_ALIVE` parked (W4).
fn spare_thread(registry: Arc<Registry>, mut slot: Slot) {
    // Spares are not pinned; started by a pinned worker, this thread
    // inherited its CPU.
    if registry.placement.pin() {
        crate::pool::placement::affinity::unpin_current_thread();
    }
    let spares = &registry.spares;
    // The builder's handlers, once per thread, with the slot it starts on
    // (a spare answers as a worker, `current_thread_index`).
    let first_slot = slot.index;
    registry.thread_started(first_slot);
    loop {
        let index = slot.index;
        // W5: counted as held before this thread's first push on it.
        registry.mark_slot_used(index);
        let worker = WorkerThread::new(index, slot.deques, Arc::clone(&registry));
        let (retired, deques) = worker.run_spare(|worker| spares.retiring(worker));
        // Retired at a job boundary (W3), or left the sleep protocol idle,
        // no longer needed or at shutdown (W2): either way no longer a
        // member, and the slot is free again.
        let mut state = retired.unwrap_or_else(|| spares.lock());
        if state.reclaims > 0 {
            // W3: counted active again while on its way here.
            state.reclaims -= 1;
            slot = Slot::new(index, deques);
            continue;
        }
        state.free.push(Slot::new(index, deques));
        state.parked += 1;
        let next = loop {
            if let Some(next) = state.handed.pop() {
                break Some(next);
            }
            // `--cfg stealpool_bug="park_unlocked"` reads `closed` before
            // it locks: the shutdown's notification may come between the
            // read and the wait, and the drop waits for this thread forever
            // (the mistake W4 rules out).
            let closed = if bug!("park_unlocked") {
                drop(state);
                let closed = spares.closed_unlocked();
                state = spares.lock();
                closed
            } else {
                state.closed
            };
            if closed {
                break None;
            }
            let timed_out;
            (state, timed_out) = wait(&spares.parked, state);
            if timed_out && state.handed.is_empty() {
                // W4: idle too long. Its handle is dropped (the thread
                // detached), so a long-lived pool does not keep one per
                // spare that ever ran; nothing of the pool runs on this
                // thread past this critical section.
                #[cfg(not(any(feature = "loom", feature = "shuttle")))]
                {
                    let me = std::thread::current().id();
                    state.threads.retain(|handle| handle.thread().id() != me);
                }
                break None;
            }
        };
        state.parked -= 1;
        match next {
            Some(next) => slot = next,
            None => {
                // Not under the lock: the handler is the user's code.
                drop(state);
                registry.thread_exiting(first_slot);
                return;
            }
        }
    }
}

/// Waits on `parked` up to `KEEP_ALIVE` (with no timeout under the model
/// checkers, where the shutdown ends every wait). Returns whether it
/// timed out.
fn wait<'a>(parked: &Condvar, state: MutexGuard<'a, State>) -> (MutexGuard<'a, State>, bool) {
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    {
        let (state, timeout) = parked
            .wait_timeout(state, KEEP_ALIVE)
            .unwrap_or_else(|e| e.into_inner());
        (state, timeout.timed_out())
    }
    #[cfg(any(feature = "loom", feature = "shuttle"))]
    {
        (parked.wait(state).unwrap_or_else(|e| e.into_inner()), false)
    }
}

/// A worker of a pool counted blocked (W1) until this is dropped, on every
/// way out, a panic included; a spare stands in for it if one can.
pub(crate) struct Blocked<'a> {
    /// `None` inside a `block_in_place` already: the outer one counts.
    worker: Option<&'a WorkerThread>,
    /// Whether the pool keeps its strength (a spare stands in for this
    /// thread, or enough do already, or the outer call's).
    pub(crate) stood_in: bool,
}

impl<'a> Blocked<'a> {
    /// W1: `worker`'s thread is about to block.
    pub(crate) fn enter(worker: &'a WorkerThread) -> Blocked<'a> {
        if worker.start_blocking() {
            return Blocked {
                worker: None,
                stood_in: true,
            };
        }
        let registry = worker.registry_arc();
        let stood_in = registry.spares.enter(registry);
        Blocked {
            worker: Some(worker),
            stood_in,
        }
    }
}

impl Drop for Blocked<'_> {
    fn drop(&mut self) {
        if let Some(worker) = self.worker {
            let registry = worker.registry();
            registry.sleep.unblock(|| registry.is_terminating());
            worker.stop_blocking();
        }
    }
}
