//! Schedule fuzzing: the input chooses the operations *and* every scheduling
//! decision.
//!
//! Two bodies, ordinary functions of a decoded input, run as shuttle threads
//! under [`ByteScheduler`], a shuttle `Scheduler` that reads its decisions
//! from input bytes:
//!
//! * [`deque_schedule`]: an owner and two thieves on one deque. The owner
//!   pushes and pops (and may drop its `Worker` early, leaving elements to
//!   the thieves and to the last `Stealer`); each thief steals or
//!   `steal_batch_and_pop`s into its own `Worker` and pops from it. Every
//!   pushed element comes out at most once, and exactly once unless the
//!   owner gave up its `Worker`. [`run_deque`] runs each input twice under
//!   the same schedule: elements as bare words (a misread slot is a clean,
//!   shrinkable failure), then as boxes that count their drops (each is
//!   dropped exactly once, inside the deque or after it came out).
//! * [`pool_schedule`]: a pool of two workers and an outside thread that
//!   spawns from outside and from inside, joins, submits and joins (from
//!   outside and from inside a task), opens scopes with nested spawns, calls
//!   `wait_all` (from outside and from a task) and ends by dropping the pool.
//!   Every piece of work runs exactly once, every join and handle returns
//!   the right value, and every closure handed to the pool is dropped.
//!
//! Two drivers share this file through `#[path]`: the fuzz targets
//! `deque_schedule` and `pool_schedule` (`fuzz/`, nightly, `--features
//! schedule`), and `model/shuttle/schedule.rs` (stable, `cargo test --features
//! shuttle --release --test shuttle_schedule`), which runs the bodies under
//! proptest and replays the committed crash corpus `fuzz/crashes/`. Both
//! decode raw inputs with [`DequeOps::decode`] and [`PoolOps::decode`], so a
//! file the fuzzer wrote replays on stable exactly as it ran.
//!
//! # Input layout
//!
//! `[header, count, op × count, schedule bytes…]`: the header selects a
//! variant (the deque's initial capacity; for the pool, whether handles are
//! joined before or after the shutdown), `count` how many of the following
//! bytes are operations (modulo the maximum plus one), and everything after
//! them feeds the scheduler. Short inputs simply have fewer operations and an
//! empty schedule.
//!
//! # Reproducing a failure
//!
//! A failing body panics inside shuttle, whose panic hook prints the failing
//! schedule (`failing schedule: "…"`) before the fuzzer aborts. Three ways
//! back to it:
//!
//! * run the input again: decoding and [`ByteScheduler`] are deterministic,
//!   so `cargo +nightly fuzz run --features schedule deque_schedule
//!   fuzz/artifacts/deque_schedule/crash-…` fails the same way, and `cargo
//!   +nightly fuzz fmt --features schedule deque_schedule <file>` prints the
//!   decoded operations and schedule bytes;
//! * keep it as a regression: copy the file into `fuzz/crashes/deque_schedule/`
//!   (or `pool_schedule/`); `shuttle_schedule`'s replay test runs it on
//!   stable;
//! * replay the printed schedule with shuttle's own replayer, under a
//!   debugger or with logging:
//!   `shuttle::replay(move || deque_schedule(&ops, Elements::Words), "<printed
//!   string>")` with `ops = DequeOps::decode(&bytes).0`, and `Elements::Boxes`
//!   if the failure was in the second run of [`run_deque`] (likewise
//!   `pool_schedule(&ops)` with `PoolOps`). The string records every context
//!   switch the execution made, so it replays without the schedule bytes.

// The checker's own `#![allow(dead_code)]` covers the parts unused here.
#[path = "../lin/linearizability.rs"]
mod linearizability;

use linearizability::{Action, Event, Stolen};
use shuttle::scheduler::{DataSource, RandomDataSource, Schedule, Scheduler, Task, TaskId};
use shuttle::thread;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use stealpool::deque::{Stealer, Worker};
use stealpool::{JoinHandle, ThreadPool};

/// The number of thieves of [`deque_schedule`].
pub const THIEVES: usize = 2;

/// The most operations a deque input holds: enough for growth from capacity
/// 1 and batches of several elements, few enough that a run stays at a few
/// hundred scheduling points.
pub const MAX_DEQUE_OPS: usize = 64;

/// The most operations a pool input holds: each is a whole task tree, and a
/// pool run is far more scheduling points per operation than the deque.
pub const MAX_POOL_OPS: usize = 8;

/// The number of workers of [`pool_schedule`]'s pool: two is the smallest
/// pool where workers steal from each other.
pub const POOL_WORKERS: usize = 2;

// ---------------------------------------------------------------------------
// The scheduler.

/// A shuttle [`Scheduler`] whose decisions are input bytes, for one
/// execution.
///
/// At each decision it picks `runnable[byte % runnable.len()]` with the next
/// byte. When the task asks to yield (a spin loop, a retry), the choice is
/// among the *other* runnable tasks if there are any: running a yielding
/// task again at once only repeats the check it is spinning on, so spending
/// a byte on it would waste the fuzzer's input. Once the bytes run out, it
/// goes round robin (the runnable task after the current one, by id), which
/// is fair, so every execution ends unless the code under test livelocks
/// (which shuttle's step limit reports as a failure).
///
/// Random values (`shuttle::rand`, which neither body nor the crate draws
/// today) come from shuttle's own generator seeded with a hash of the bytes:
/// shuttle's replayer regenerates them from the printed seed, so a printed
/// schedule replays exactly even if some code starts drawing them.
#[derive(Debug)]
pub struct ByteScheduler {
    bytes: Vec<u8>,
    /// The next byte to use.
    next: usize,
    started: bool,
    data: RandomDataSource,
}

impl ByteScheduler {
    /// A scheduler for one execution driven by `bytes`.
    pub fn new(bytes: &[u8]) -> ByteScheduler {
        ByteScheduler {
            bytes: bytes.to_vec(),
            next: 0,
            started: false,
            data: RandomDataSource::initialize(fnv1a(bytes)),
        }
    }
}

/// FNV-1a, 64 bits: every schedule byte moves the seed.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Scheduler for ByteScheduler {
    fn new_execution(&mut self) -> Option<Schedule> {
        if self.started {
            return None;
        }
        self.started = true;
        Some(Schedule::new(self.data.reinitialize()))
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        is_yielding: bool,
    ) -> Option<TaskId> {
        let Some(&byte) = self.bytes.get(self.next) else {
            count_decision(false);
            let after = current.and_then(|current| runnable.iter().find(|task| task.id() > current));
            return Some(after.unwrap_or(&runnable[0]).id());
        };
        self.next += 1;
        count_decision(true);
        let others = runnable
            .iter()
            .filter(|task| !is_yielding || Some(task.id()) != current);
        let choices = others.clone().count();
        let task = if choices == 0 {
            // Only the yielding task can run.
            runnable[0]
        } else {
            others
                .clone()
                .nth(usize::from(byte) % choices)
                .expect("index below the count")
        };
        Some(task.id())
    }

    fn next_u64(&mut self) -> u64 {
        self.data.next_u64()
    }
}

std::thread_local! {
    /// Scheduling decisions made by the [`ByteScheduler`]s run on this
    /// thread (shuttle consults the scheduler on the thread that called
    /// `Runner::run`), and how many of them a byte chose.
    static DECISIONS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// The scheduling decisions made on this thread so far, and how many of them
/// a schedule byte chose (the rest went round robin): tells a driver whether
/// the schedule bytes it generates cover a run.
pub fn decisions() -> (usize, usize) {
    DECISIONS.with(Cell::get)
}

fn count_decision(by_byte: bool) {
    DECISIONS.with(|count| {
        let (all, bytes) = count.get();
        count.set((all + 1, bytes + usize::from(by_byte)));
    });
}

/// Runs `body` once as a shuttle execution whose every scheduling decision
/// comes from `schedule` (see [`ByteScheduler`]), and returns the number of
/// executions run: 1.
///
/// A failure (a panic in any thread, a deadlock, a livelock past shuttle's
/// step limit) prints shuttle's replay string and panics here.
pub fn run_with_schedule(schedule: &[u8], body: impl Fn() + Send + Sync + 'static) -> usize {
    // Shuttle's defaults: failures print the schedule; an execution past a
    // million steps fails as a livelock.
    shuttle::Runner::new(ByteScheduler::new(schedule), shuttle::Config::new()).run(body)
}

/// Reads one byte or nothing.
struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    fn next(&mut self) -> Option<u8> {
        let (&first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(first)
    }

    /// The `count` bytes of the operations (fewer if the input ends), and
    /// the rest as the schedule.
    fn split(self, count: usize) -> (&'a [u8], &'a [u8]) {
        self.0.split_at(count.min(self.0.len()))
    }
}

// ---------------------------------------------------------------------------
// The deque body.

/// An operation of the deque's owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerOp {
    /// Push the next element (numbered in push order).
    Push,
    /// Pop from the bottom.
    Pop,
    /// Drop the `Worker` and stop: thieves take what they can of what is
    /// left, and the last `Stealer` drops the rest. Later owner operations
    /// are ignored.
    DropWorker,
}

/// An operation of a thief.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThiefOp {
    /// Steal one element from the top.
    Steal,
    /// Steal a batch into the thief's own `Worker` (capacity 1, so batches
    /// grow it) and return one element of it.
    StealBatchAndPop,
    /// Pop from the thief's own `Worker`.
    PopOwn,
}

/// A decoded deque input: the initial capacity and each thread's operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DequeOps {
    /// The owner's `Worker::with_capacity` argument.
    pub capacity: usize,
    /// The owner's operations, in order.
    pub owner: Vec<OwnerOp>,
    /// Each thief's operations, in order.
    pub thieves: [Vec<ThiefOp>; THIEVES],
}

/// The capacities a deque input starts from, by the header's low two bits:
/// mostly tiny, so that pushes grow the buffer while thieves read the old
/// one.
const CAPACITIES: [usize; 4] = [1, 1, 2, 8];

impl DequeOps {
    /// Decodes an input into operations and schedule bytes.
    ///
    /// An operation byte's low two bits pick the thread (0 and 1 the owner, 2
    /// and 3 a thief), its upper six the operation: for the owner 38/64 push,
    /// 24/64 pop, 2/64 drop the worker; for a thief 24/64 steal, 28/64 batch,
    /// 12/64 pop its own worker.
    pub fn decode(input: &[u8]) -> (DequeOps, &[u8]) {
        let mut bytes = Bytes(input);
        let capacity = CAPACITIES[usize::from(bytes.next().unwrap_or(0) & 3)];
        let count = usize::from(bytes.next().unwrap_or(0)) % (MAX_DEQUE_OPS + 1);
        let (ops, schedule) = bytes.split(count);
        let mut decoded = DequeOps {
            capacity,
            owner: Vec::new(),
            thieves: Default::default(),
        };
        for &byte in ops {
            let kind = byte >> 2;
            match byte & 3 {
                0 | 1 => decoded.owner.push(match kind {
                    0..=37 => OwnerOp::Push,
                    38..=61 => OwnerOp::Pop,
                    _ => OwnerOp::DropWorker,
                }),
                thief => decoded.thieves[usize::from(thief - 2)].push(match kind {
                    0..=23 => ThiefOp::Steal,
                    24..=51 => ThiefOp::StealBatchAndPop,
                    _ => ThiefOp::PopOwn,
                }),
            }
        }
        (decoded, schedule)
    }

    /// The input that [`decode`](DequeOps::decode)s to these operations and
    /// `schedule`, or `None` if there are more than [`MAX_DEQUE_OPS`]
    /// operations or the capacity is not one of the encodable ones. Used to
    /// turn a proptest failure into a file for `fuzz/crashes/`.
    pub fn encode(&self, schedule: &[u8]) -> Option<Vec<u8>> {
        let header = CAPACITIES.iter().position(|&c| c == self.capacity)?;
        let count = self.owner.len() + self.thieves.iter().map(Vec::len).sum::<usize>();
        if count > MAX_DEQUE_OPS {
            return None;
        }
        let mut input = vec![header as u8, count as u8];
        input.extend(self.owner.iter().map(|op| match op {
            OwnerOp::Push => 0,
            OwnerOp::Pop => 38 << 2,
            OwnerOp::DropWorker => 62 << 2,
        }));
        for (thief, ops) in self.thieves.iter().enumerate() {
            input.extend(ops.iter().map(|op| {
                let kind: u8 = match op {
                    ThiefOp::Steal => 0,
                    ThiefOp::StealBatchAndPop => 24,
                    ThiefOp::PopOwn => 52,
                };
                kind << 2 | (2 + thief as u8)
            }));
        }
        input.extend_from_slice(schedule);
        Some(input)
    }
}

/// What the deque holds in a run of [`deque_schedule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elements {
    /// Push numbers as bare words. A slot read from the wrong place shows as
    /// a duplicate or a number never pushed, a clean failure that proptest
    /// can shrink.
    Words,
    /// Boxes that count their drops: ownership through the deque, elements
    /// left inside when the last handle goes, and no double drop. A wrong
    /// slot here is a dangling box, which may crash the process (the
    /// fuzzer's sanitizer reports it); [`run_deque`] runs `Words` first so
    /// that such a bug is reported cleanly when it can be.
    Boxes,
}

/// Drop counts of the elements of one deque run, by push number. Plain `std`
/// atomics: bookkeeping of the harness, not code under test, so they add no
/// scheduling points (shuttle runs every thread on one OS thread, so they
/// need no ordering either).
struct DropLedger {
    drops: Vec<AtomicUsize>,
}

/// A boxed deque element: its push number, and a drop that counts itself.
struct Tracked {
    serial: usize,
    ledger: Arc<DropLedger>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        // Counted, not asserted: a panic in a drop during unwinding aborts
        // and would hide the first failure.
        self.ledger.drops[self.serial].fetch_add(1, Ordering::Relaxed);
    }
}

/// An element type of [`deque_schedule`].
trait Payload: Send + 'static {
    /// The element of the push numbered `serial`.
    fn make(serial: usize, ledger: &Arc<DropLedger>) -> Self;
    /// Its push number.
    fn serial(&self) -> usize;
}

impl Payload for usize {
    fn make(serial: usize, _: &Arc<DropLedger>) -> Self {
        serial
    }
    fn serial(&self) -> usize {
        *self
    }
}

impl Payload for Box<Tracked> {
    fn make(serial: usize, ledger: &Arc<DropLedger>) -> Self {
        Box::new(Tracked {
            serial,
            ledger: ledger.clone(),
        })
    }
    fn serial(&self) -> usize {
        self.serial
    }
}

/// Takes an element that came out of a deque: checks it names a push and
/// records it; the element is dropped here.
fn receive<P: Payload>(element: P, pushed_max: usize, out: &mut Vec<usize>) {
    let serial = element.serial();
    assert!(
        serial < pushed_max,
        "element {serial} came out, but only {pushed_max} push operations exist"
    );
    out.push(serial);
}

/// The timestamps of a deque run's history: a plain `std` counter, so that
/// taking one adds no scheduling point and the schedule bytes (and the
/// committed crash corpus) keep their meaning. Shuttle runs one thread at a
/// time, so its order is the execution's order; a switch between a
/// timestamp and the call's first step only widens the call's interval.
struct Clock(AtomicU64);

impl Clock {
    fn tick(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }
}

fn stolen_serial<P: Payload>(steal: &stealpool::deque::Steal<P>) -> Stolen {
    match steal {
        stealpool::deque::Steal::Success(element) => Stolen::Success(element.serial() as u64),
        stealpool::deque::Steal::Empty => Stolen::Empty,
        stealpool::deque::Steal::Retry => Stolen::Retry,
    }
}

/// One thief: runs its operations against `stealer` with its own `Worker`,
/// then drains that worker. Returns the push numbers it got, and its part
/// of the victim deque's history.
///
/// An element a batch moved to the thief's own worker is known only when it
/// comes out of it (a `PopOwn` or the final drain), and which batch moved it
/// is not known without asking the worker its length, a scheduling point
/// that would change what the schedule bytes mean. So it is recorded as a
/// steal somewhere between the first successful batch since the worker was
/// last seen empty and the last successful batch before it came out: a
/// wider interval than the batch's own, which can hide a violation but
/// never invent one.
fn thief<P: Payload>(
    stealer: Stealer<P>,
    ops: Vec<ThiefOp>,
    pushed_max: usize,
    thread: usize,
    clock: &Clock,
) -> (Vec<usize>, Vec<Event>) {
    let own = Worker::with_capacity(1);
    let mut out = Vec::new();
    let mut history = Vec::new();
    // The invoke of the first and the return of the last successful batch
    // whose moved elements may still be in `own`.
    let mut window: Option<(u64, u64)> = None;
    let moved = |history: &mut Vec<Event>, window: Option<(u64, u64)>, serial: usize| {
        let (invoke, ret) = window.expect("an element in the thief's own worker, moved by no batch");
        history.push(Event {
            thread,
            invoke,
            ret,
            action: Action::BatchMoved(serial as u64),
            part: 0,
        });
    };
    for op in ops {
        let got = match op {
            ThiefOp::Steal => {
                let invoke = clock.tick();
                let steal = stealer.steal();
                let ret = clock.tick();
                history.push(Event {
                    thread,
                    invoke,
                    ret,
                    action: Action::Steal(stolen_serial(&steal)),
                    part: 0,
                });
                steal.success()
            }
            ThiefOp::StealBatchAndPop => {
                let invoke = clock.tick();
                let steal = stealer.steal_batch_and_pop(&own);
                let ret = clock.tick();
                history.push(Event {
                    thread,
                    invoke,
                    ret,
                    action: Action::Batch(stolen_serial(&steal)),
                    part: 0,
                });
                if steal.is_success() {
                    window = Some((window.map_or(invoke, |(first, _)| first), ret));
                }
                steal.success()
            }
            ThiefOp::PopOwn => {
                let got = own.pop();
                match &got {
                    Some(element) => moved(&mut history, window, element.serial()),
                    None => window = None,
                }
                got
            }
        };
        if let Some(element) = got {
            receive(element, pushed_max, &mut out);
        }
    }
    while let Some(element) = own.pop() {
        moved(&mut history, window, element.serial());
        receive(element, pushed_max, &mut out);
    }
    (out, history)
}

/// The deque body: the owner (this thread) and [`THIEVES`] thieves (shuttle
/// threads) run `ops` on one deque of `elements` created with
/// `ops.capacity`.
///
/// Checks: an element that comes out is one that was pushed, and none comes
/// out twice; if the owner kept its `Worker`, it drains it (concurrently
/// with the thieves, whose own workers are drained by them) and every
/// pushed element came out; the deque is empty once everyone is done; and,
/// with [`Elements::Boxes`], every element is dropped exactly once, whether
/// it came out or was left inside when the last handle went.
///
/// # Panics
///
/// On any violation; must run inside a shuttle execution.
pub fn deque_schedule(ops: &DequeOps, elements: Elements) {
    match elements {
        Elements::Words => deque_run::<usize>(ops),
        Elements::Boxes => deque_run::<Box<Tracked>>(ops),
    }
}

fn deque_run<P: Payload>(ops: &DequeOps) {
    let pushes = ops.owner.iter().filter(|op| **op == OwnerOp::Push).count();
    let ledger = Arc::new(DropLedger {
        drops: (0..pushes).map(|_| AtomicUsize::new(0)).collect(),
    });
    let worker = Worker::<P>::with_capacity(ops.capacity);
    let clock = Arc::new(Clock(AtomicU64::new(1)));
    let thieves: Vec<_> = ops
        .thieves
        .iter()
        .enumerate()
        .map(|(i, thief_ops)| {
            let (stealer, thief_ops, clock) = (worker.stealer(), thief_ops.clone(), clock.clone());
            thread::spawn(move || thief(stealer, thief_ops, pushes, i + 1, &clock))
        })
        .collect();
    let mut history = Vec::new();
    let mut record = |invoke: u64, action: Action| {
        let ret = clock.tick();
        history.push(Event {
            thread: 0,
            invoke,
            ret,
            action,
            part: 0,
        });
    };

    let mut out = Vec::new();
    let mut pushed = 0;
    let mut worker = Some(worker);
    for op in &ops.owner {
        let Some(owner) = &worker else { break };
        match op {
            OwnerOp::Push => {
                let invoke = clock.tick();
                owner.push(P::make(pushed, &ledger));
                record(invoke, Action::Push(pushed as u64));
                pushed += 1;
            }
            OwnerOp::Pop => {
                let invoke = clock.tick();
                let popped = owner.pop();
                record(invoke, Action::Pop(popped.as_ref().map(|e| e.serial() as u64)));
                if let Some(element) = popped {
                    receive(element, pushes, &mut out);
                }
            }
            OwnerOp::DropWorker => worker = None,
        }
    }
    let kept_worker = worker.is_some();
    if let Some(owner) = &worker {
        // Only the owner pushes, so once its pop finds nothing the deque
        // stays empty, whatever the thieves are doing.
        loop {
            let invoke = clock.tick();
            let popped = owner.pop();
            record(invoke, Action::Pop(popped.as_ref().map(|e| e.serial() as u64)));
            let Some(element) = popped else { break };
            receive(element, pushes, &mut out);
        }
    }
    for handle in thieves {
        let (got, part) = handle.join().expect("a thief panicked");
        out.extend(got);
        history.extend(part);
    }
    // Linearizable with respect to the sequential deque (checked before the
    // exactly-once checks below, so that a violation prints the history).
    if let Err(failure) = linearizability::check(&history) {
        panic!("{failure}");
    }
    DEQUE_OVERLAP.add(&history);
    if let Some(owner) = &worker {
        assert!(
            owner.is_empty(),
            "the deque holds {} elements after the drain",
            owner.len()
        );
        assert!(
            owner.stealer().steal().is_empty(),
            "a steal succeeded after the drain"
        );
    }
    drop(worker);

    out.sort_unstable();
    if let Some(twice) = out.windows(2).find(|pair| pair[0] == pair[1]) {
        panic!("element {} came out twice (out: {out:?})", twice[0]);
    }
    if kept_worker {
        assert_eq!(
            out,
            (0..pushed).collect::<Vec<_>>(),
            "the elements that came out are not the {pushed} pushed"
        );
    }
    if std::mem::needs_drop::<P>() {
        for (serial, drops) in ledger.drops.iter().enumerate().take(pushed) {
            let drops = drops.load(Ordering::Relaxed);
            assert_eq!(
                drops,
                1,
                "element {serial} was dropped {drops} times (came out: {})",
                out.binary_search(&serial).is_ok()
            );
        }
    }
}

/// Runs [`deque_schedule`] under `schedule` twice, with [`Elements::Words`]
/// then [`Elements::Boxes`]; both runs make the same scheduling decisions,
/// since the element type changes no synchronization. Returns the
/// executions run: 2.
/// The overlap of every history the deque body checked in this process
/// (`shuttle/schedule.rs` prints it and asserts floors on it).
pub static DEQUE_OVERLAP: linearizability::OverlapTally = linearizability::OverlapTally::new();

pub fn run_deque(ops: DequeOps, schedule: &[u8]) -> usize {
    let ops = Arc::new(ops);
    [Elements::Words, Elements::Boxes]
        .into_iter()
        .map(|elements| {
            let ops = ops.clone();
            run_with_schedule(schedule, move || deque_schedule(&ops, elements))
        })
        .sum()
}

// ---------------------------------------------------------------------------
// The pool body.

/// An operation of the pool body's outside thread. The numbers of pieces of
/// work each creates are in [`PoolOp::pieces`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolOp {
    /// `spawn` from outside: onto the injector.
    SpawnOutside,
    /// `spawn` from inside a worker (through `install`): onto that worker's
    /// deque, where the other worker may steal it.
    SpawnInside,
    /// `spawn` a task that spawns a child from inside.
    SpawnWithChild,
    /// `join` from outside (through `install`, so on a worker).
    Join,
    /// `submit`; the handle is joined at the end.
    Submit,
    /// `submit` a task that submits a subtask and joins its handle on the
    /// worker (running other work while it waits); the outer handle is
    /// joined at the end.
    SubmitJoinInside,
    /// A scope with two tasks, one of which spawns a nested task in the
    /// scope; all three borrow from this thread's stack.
    Scope,
    /// `wait_all` from outside: everything spawned so far has run.
    WaitAll,
    /// `spawn` a task that calls `wait_all` from inside.
    WaitAllInside,
}

impl PoolOp {
    const ALL: [PoolOp; 9] = [
        PoolOp::SpawnOutside,
        PoolOp::SpawnInside,
        PoolOp::SpawnWithChild,
        PoolOp::Join,
        PoolOp::Submit,
        PoolOp::SubmitJoinInside,
        PoolOp::Scope,
        PoolOp::WaitAll,
        PoolOp::WaitAllInside,
    ];

    /// How many pieces of work (closures the pool runs) the operation makes.
    fn pieces(self) -> usize {
        match self {
            PoolOp::SpawnOutside | PoolOp::SpawnInside | PoolOp::Submit | PoolOp::WaitAllInside => 1,
            PoolOp::SpawnWithChild | PoolOp::Join | PoolOp::SubmitJoinInside => 2,
            PoolOp::Scope => 3,
            PoolOp::WaitAll => 0,
        }
    }
}

/// A decoded pool input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolOps {
    /// The outside thread's operations, in order.
    pub ops: Vec<PoolOp>,
    /// Whether the handles of `submit` are joined after the pool is dropped
    /// (the shutdown must still run their tasks) rather than before.
    pub join_after_shutdown: bool,
    /// Whether the pool runs `join`s past one pending half inline when
    /// nobody sleeps or asks (`Builder::max_pending_joins(1)`, F6).
    pub limit_pending_joins: bool,
}

impl PoolOps {
    /// Decodes an input into operations and schedule bytes: the header's
    /// low bit is `join_after_shutdown`, the next `limit_pending_joins`;
    /// each operation byte modulo 9 an index into the operations in
    /// declaration order.
    pub fn decode(input: &[u8]) -> (PoolOps, &[u8]) {
        let mut bytes = Bytes(input);
        let header = bytes.next().unwrap_or(0);
        let join_after_shutdown = header & 1 == 1;
        let limit_pending_joins = header & 2 == 2;
        let count = usize::from(bytes.next().unwrap_or(0)) % (MAX_POOL_OPS + 1);
        let (ops, schedule) = bytes.split(count);
        let ops = ops
            .iter()
            .map(|&byte| PoolOp::ALL[usize::from(byte) % PoolOp::ALL.len()])
            .collect();
        (
            PoolOps {
                ops,
                join_after_shutdown,
                limit_pending_joins,
            },
            schedule,
        )
    }

    /// The input that [`decode`](PoolOps::decode)s to these operations and
    /// `schedule`, or `None` with more than [`MAX_POOL_OPS`] operations.
    pub fn encode(&self, schedule: &[u8]) -> Option<Vec<u8>> {
        if self.ops.len() > MAX_POOL_OPS {
            return None;
        }
        let header = u8::from(self.join_after_shutdown) | u8::from(self.limit_pending_joins) << 1;
        let mut input = vec![header, self.ops.len() as u8];
        input.extend(self.ops.iter().map(|op| {
            PoolOp::ALL
                .iter()
                .position(|o| o == op)
                .expect("every op is listed") as u8
        }));
        input.extend_from_slice(schedule);
        Some(input)
    }
}

/// The record of one pool run: how often each piece of work ran, and the
/// tokens made and dropped. Plain `std` atomics, as in [`DropLedger`].
struct Ledger {
    runs: Vec<AtomicUsize>,
    made: AtomicUsize,
    dropped: AtomicUsize,
}

impl Ledger {
    /// Piece `i` runs; it must not have run before.
    fn run(&self, i: usize) {
        let before = self.runs[i].fetch_add(1, Ordering::Relaxed);
        assert_eq!(before, 0, "piece {i} ran twice");
    }

    fn assert_ran_once(&self, pieces: std::ops::Range<usize>, when: &str) {
        for i in pieces {
            let runs = self.runs[i].load(Ordering::Relaxed);
            assert_eq!(runs, 1, "piece {i} ran {runs} times {when}");
        }
    }

    fn token(self: &Arc<Self>) -> Token {
        self.made.fetch_add(1, Ordering::Relaxed);
        Token(self.clone())
    }
}

/// Captured by every closure handed to the pool: its drop is counted, so a
/// closure the pool leaks (or drops twice) shows at the end.
struct Token(Arc<Ledger>);

impl Drop for Token {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, Ordering::Relaxed);
    }
}

/// What piece `i` returns where a result is checked: distinct per piece.
fn value(i: usize) -> usize {
    i * 31 + 7
}

/// The pool body: runs `ops` from this (outside) thread against a pool of
/// [`POOL_WORKERS`] workers, joins the handles, drops the pool, and checks
/// that every piece of work ran exactly once, every join and handle gave its
/// piece's value, `wait_all` from outside returned only after everything
/// spawned before it had run, and every closure was dropped.
///
/// # Panics
///
/// On any violation; must run inside a shuttle execution.
pub fn pool_schedule(ops: &PoolOps) {
    let pieces = ops.ops.iter().map(|op| op.pieces()).sum();
    let ledger = Arc::new(Ledger {
        runs: (0..pieces).map(|_| AtomicUsize::new(0)).collect(),
        made: AtomicUsize::new(0),
        dropped: AtomicUsize::new(0),
    });
    let mut builder = ThreadPool::builder().num_threads(POOL_WORKERS);
    if ops.limit_pending_joins {
        builder = builder.max_pending_joins(1);
    }
    let pool = Arc::new(builder.build().expect("the pool starts"));
    let mut handles: Vec<(JoinHandle<usize>, usize)> = Vec::new();
    let mut first = 0;
    for &op in &ops.ops {
        let piece = first;
        first += op.pieces();
        match op {
            PoolOp::SpawnOutside => {
                let (ledger, token) = (ledger.clone(), ledger.token());
                pool.spawn(move || {
                    let _token = token;
                    ledger.run(piece);
                });
            }
            PoolOp::SpawnInside => {
                let (ledger, token) = (ledger.clone(), ledger.token());
                pool.install(|| {
                    pool.spawn(move || {
                        let _token = token;
                        ledger.run(piece);
                    })
                });
            }
            PoolOp::SpawnWithChild => {
                let (spawner, ledger, token) = (pool.clone(), ledger.clone(), ledger.token());
                pool.spawn(move || {
                    let _token = token;
                    ledger.run(piece);
                    let (child_ledger, token) = (ledger.clone(), ledger.token());
                    spawner.spawn(move || {
                        let _token = token;
                        child_ledger.run(piece + 1);
                    });
                });
            }
            PoolOp::Join => {
                // The first half joins again, so its owner polls for
                // requests with the second half pending and may promote it
                // (F3 in `proofs/fork.md`).
                let (a, b) = pool.join(
                    || {
                        let ((), a) = pool.join(|| ledger.run(piece), || value(piece));
                        a
                    },
                    || {
                        ledger.run(piece + 1);
                        value(piece + 1)
                    },
                );
                assert_eq!(
                    (a, b),
                    (value(piece), value(piece + 1)),
                    "join returned wrong results"
                );
                ledger.assert_ran_once(piece..piece + 2, "after join returned");
            }
            PoolOp::Submit => {
                let (ledger, token) = (ledger.clone(), ledger.token());
                let handle = pool.submit(move || {
                    let _token = token;
                    ledger.run(piece);
                    value(piece)
                });
                handles.push((handle, value(piece)));
            }
            PoolOp::SubmitJoinInside => {
                let (submitter, ledger, token) = (pool.clone(), ledger.clone(), ledger.token());
                let handle = pool.submit(move || {
                    let _token = token;
                    ledger.run(piece);
                    let (inner_ledger, token) = (ledger.clone(), ledger.token());
                    let inner = submitter.submit(move || {
                        let _token = token;
                        inner_ledger.run(piece + 1);
                        value(piece + 1)
                    });
                    inner.join().expect("the inner task panicked") + 1
                });
                handles.push((handle, value(piece + 1) + 1));
            }
            PoolOp::Scope => {
                let ledger = &*ledger;
                pool.scope(|s| {
                    s.spawn(move |s| {
                        ledger.run(piece);
                        s.spawn(move |_| ledger.run(piece + 1));
                    });
                    s.spawn(move |_| ledger.run(piece + 2));
                });
                ledger.assert_ran_once(piece..piece + 3, "after the scope returned");
            }
            PoolOp::WaitAll => {
                pool.wait_all();
                ledger.assert_ran_once(0..piece, "after wait_all returned");
                assert_eq!(pool.pending_tasks(), 0, "tasks pending after wait_all returned");
            }
            PoolOp::WaitAllInside => {
                let (waiter, ledger, token) = (pool.clone(), ledger.clone(), ledger.token());
                pool.spawn(move || {
                    let _token = token;
                    ledger.run(piece);
                    waiter.wait_all();
                });
            }
        }
    }

    let join = |handles: Vec<(JoinHandle<usize>, usize)>| {
        for (handle, expected) in handles {
            assert_eq!(handle.join().expect("a submitted task panicked"), expected);
        }
    };
    if !ops.join_after_shutdown {
        join(std::mem::take(&mut handles));
    }
    // The tasks that share the pool drop their clones as their closures end;
    // take it back then, whatever is still queued (children, subtasks), so
    // that this thread's drop is the shutdown, which runs all of it.
    let mut pool = pool;
    let pool = loop {
        match Arc::try_unwrap(pool) {
            Ok(pool) => break pool,
            Err(shared) => {
                pool = shared;
                thread::yield_now();
            }
        }
    };
    drop(pool);
    join(handles);

    ledger.assert_ran_once(0..pieces, "after the shutdown");
    let (made, dropped) = (
        ledger.made.load(Ordering::Relaxed),
        ledger.dropped.load(Ordering::Relaxed),
    );
    assert_eq!(
        dropped, made,
        "{made} closures made, {dropped} dropped: one leaked or dropped twice"
    );
}

/// Runs [`pool_schedule`] once under `schedule`; returns the executions run:
/// 1.
pub fn run_pool(ops: PoolOps, schedule: &[u8]) -> usize {
    let ops = Arc::new(ops);
    run_with_schedule(schedule, move || pool_schedule(&ops))
}
