//! The op-sequence check: the real deque against the reference model.
//!
//! [`check_ops`] runs a sequence of deque operations on one thread, on the
//! real `stealpool::deque` and on [`ReferenceDeque`] side by side, and
//! panics at the first step where they disagree: a different element, a
//! different length, a `Retry` (which cannot happen without contention), an
//! element dropped twice or never.
//!
//! Two deques take part, [`Side::A`] and [`Side::B`], each with its `Worker`
//! and a `Stealer`, so that `steal_batch_and_pop` has a real destination
//! (whose model is checked too) and both directions of stealing are covered.
//! Starting from a tiny capacity (1 or 2), pushes and batches grow the
//! buffers, and interleaved steals and pops move `top` and `bottom` around the
//! ring, so growth happens with wrapped indices.
//!
//! The function is ordinary code so that two drivers can share it: the
//! proptest suite (`tests/deque_proptest.rs`, on stable, in every `cargo
//! test`) and the `deque_ops` fuzz target (`fuzz/`, on nightly). Both include
//! this file with `#[path]`; it brings `reference.rs` along itself.

#[path = "reference.rs"]
pub mod reference;

use reference::ReferenceDeque;
use std::fmt::Debug;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use stealpool::deque::{Steal, Stealer, Worker};

/// The largest capacity [`check_ops`] accepts: beyond it growth would be
/// rare in short sequences and each run would only allocate more.
pub const MAX_CAPACITY: usize = 64;

/// One of the two deques of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The first deque.
    A,
    /// The second deque.
    B,
}

impl Side {
    fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }
}

/// One operation of a sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// The owner of `side` pushes an element carrying the value.
    Push(Side, usize),
    /// The owner of `side` pops from the bottom.
    Pop(Side),
    /// A thief steals from the top of `side`.
    Steal(Side),
    /// A thief steals a batch from the top of `from` into the `Worker` of
    /// `into` and returns one element; with `from == into` the deque's own
    /// `Worker` is the destination, which pops.
    StealBatchAndPop {
        /// The victim.
        from: Side,
        /// The thief's own deque.
        into: Side,
    },
    /// A thief steals a batch of at most `limit` (at least 1) from the top
    /// of `from` into the `Worker` of `into`: `steal_batch_with_limit_and_pop`
    /// if `pop`, else `steal_batch_with_limit`, which moves every element.
    StealBatchWithLimit {
        /// The victim.
        from: Side,
        /// The thief's own deque.
        into: Side,
        /// The most elements taken.
        limit: usize,
        /// Whether one element is returned rather than moved.
        pop: bool,
    },
    /// The owner of `side` drops its `Worker` while the `Stealer` lives on:
    /// thieves may still take what is left, and whatever they leave must be
    /// dropped with the last `Stealer`. Later owner operations on `side`
    /// (and batches into it) are skipped.
    DropWorker(Side),
}

/// Runs `ops` on two real deques created with `capacity` and on two reference
/// deques, and panics at the first difference.
///
/// The sequence runs three times, with three element types: `usize` (values
/// travel as bare words, `0` included), `Box<usize>` (owning pointers), and a
/// box of a drop-counting type that checks every element is dropped exactly
/// once, whether it leaves through the API or is left inside when the
/// handles are dropped (stealers first, then workers; [`Op::DropWorker`]
/// covers the other order).
///
/// # Panics
///
/// On any disagreement with the model, and if `capacity > MAX_CAPACITY`.
#[allow(dead_code)] // the fuzz target calls `check_ops_with`
pub fn check_ops(capacity: usize, ops: &[Op]) {
    check_ops_with(capacity, [false, false], ops);
}

/// [`check_ops`] with the flavour of each deque: `fifo[0]` for [`Side::A`],
/// `fifo[1]` for [`Side::B`], `true` for a `Worker::fifo_with_capacity`
/// (D19), whose owner pops the oldest.
pub fn check_ops_with(capacity: usize, fifo: [bool; 2], ops: &[Op]) {
    assert!(
        capacity <= MAX_CAPACITY,
        "capacity {capacity} above {MAX_CAPACITY}"
    );
    Run::<usize>::new(capacity, fifo, ops).execute(ops);
    Run::<Box<usize>>::new(capacity, fifo, ops).execute(ops);
    Run::<Box<Tracked>>::new(capacity, fifo, ops).execute(ops);
}

/// Counts the drops of every element of a run, by serial number.
#[derive(Debug)]
struct Ledger {
    drops: Vec<AtomicUsize>,
    /// The sum of `drops`, kept as it goes so each step checks it in O(1).
    total: AtomicUsize,
}

impl Ledger {
    fn new(elements: usize) -> Self {
        Ledger {
            drops: (0..elements).map(|_| AtomicUsize::new(0)).collect(),
            total: AtomicUsize::new(0),
        }
    }

    fn drops_of(&self, serial: usize) -> usize {
        self.drops[serial].load(Ordering::Relaxed)
    }

    fn total(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }
}

/// An element that records its drop in the ledger of its run.
#[derive(Debug)]
struct Tracked {
    serial: usize,
    ledger: Arc<Ledger>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        // Counted rather than asserted: a panic inside a drop that runs
        // during unwinding would abort and hide the first failure.
        self.ledger.drops[self.serial].fetch_add(1, Ordering::Relaxed);
        self.ledger.total.fetch_add(1, Ordering::Relaxed);
    }
}

/// An element type a run can use.
trait Payload: Send + Debug {
    /// Whether the run checks drops through the ledger.
    const TRACKED: bool;
    /// The element for the `serial`-th push of the run, whose op carries
    /// `value`.
    fn make(serial: usize, value: usize, ledger: &Arc<Ledger>) -> Self;
    /// What the reference model holds for that element.
    fn expected(serial: usize, value: usize) -> usize;
    /// What the element shows; equals `expected` of the push that made it.
    fn observed(&self) -> usize;
}

impl Payload for usize {
    const TRACKED: bool = false;
    fn make(_: usize, value: usize, _: &Arc<Ledger>) -> Self {
        value
    }
    fn expected(_: usize, value: usize) -> usize {
        value
    }
    fn observed(&self) -> usize {
        *self
    }
}

impl Payload for Box<usize> {
    const TRACKED: bool = false;
    fn make(_: usize, value: usize, _: &Arc<Ledger>) -> Self {
        Box::new(value)
    }
    fn expected(_: usize, value: usize) -> usize {
        value
    }
    fn observed(&self) -> usize {
        **self
    }
}

impl Payload for Box<Tracked> {
    const TRACKED: bool = true;
    fn make(serial: usize, _: usize, ledger: &Arc<Ledger>) -> Self {
        Box::new(Tracked {
            serial,
            ledger: ledger.clone(),
        })
    }
    /// The serial number, unique in a run, so the model tells apart equal
    /// values and the ledger can be indexed by what an element shows.
    fn expected(serial: usize, _: usize) -> usize {
        serial
    }
    fn observed(&self) -> usize {
        self.serial
    }
}

/// One deque of a run: the real handles and the model.
struct Deque<P: Send> {
    worker: Option<Worker<P>>,
    stealer: Stealer<P>,
    model: ReferenceDeque<usize>,
}

/// The state of one run of a sequence with element type `P`.
struct Run<P: Send> {
    deques: [Deque<P>; 2],
    ledger: Arc<Ledger>,
    pushed: usize,
    removed: usize,
}

impl<P: Payload> Run<P> {
    fn new(capacity: usize, fifo: [bool; 2], ops: &[Op]) -> Self {
        let deque = |fifo: bool| {
            let (worker, model) = if fifo {
                (Worker::fifo_with_capacity(capacity), ReferenceDeque::new_fifo())
            } else {
                (Worker::with_capacity(capacity), ReferenceDeque::new())
            };
            Deque {
                stealer: worker.stealer(),
                worker: Some(worker),
                model,
            }
        };
        let pushes = ops.iter().filter(|op| matches!(op, Op::Push(..))).count();
        Run {
            deques: [deque(fifo[0]), deque(fifo[1])],
            ledger: Arc::new(Ledger::new(if P::TRACKED { pushes } else { 0 })),
            pushed: 0,
            removed: 0,
        }
    }

    fn execute(mut self, ops: &[Op]) {
        for (step, &op) in ops.iter().enumerate() {
            let at = At {
                step,
                op: Some(op),
                ty: std::any::type_name::<P>(),
            };
            self.apply(op, &at);
            self.check_lengths(&at);
        }
        self.finish(ops.len());
    }

    fn apply(&mut self, op: Op, at: &At) {
        match op {
            Op::Push(side, value) => {
                let deque = &mut self.deques[side.index()];
                if let Some(worker) = &deque.worker {
                    worker.push(P::make(self.pushed, value, &self.ledger));
                    deque.model.push(P::expected(self.pushed, value));
                    self.pushed += 1;
                }
            }
            Op::Pop(side) => {
                let deque = &mut self.deques[side.index()];
                if let Some(worker) = &deque.worker {
                    let got = worker.pop();
                    let want = deque.model.pop();
                    self.compare(got, want, at);
                }
            }
            Op::Steal(side) => {
                let deque = &mut self.deques[side.index()];
                let got = deque.stealer.steal();
                let want = deque.model.steal();
                self.compare_steal(got, want, at);
            }
            Op::StealBatchAndPop { from, into } if from == into => {
                let deque = &mut self.deques[from.index()];
                if let Some(worker) = &deque.worker {
                    let got = deque.stealer.steal_batch_and_pop(worker);
                    let want = deque.model.steal_batch_into_self();
                    self.compare_steal(got, want, at);
                }
            }
            Op::StealBatchAndPop { from, .. } => {
                let [a, b] = &mut self.deques;
                let (src, dst) = if from == Side::A { (a, b) } else { (b, a) };
                if let Some(worker) = &dst.worker {
                    let got = src.stealer.steal_batch_and_pop(worker);
                    let want = src.model.steal_batch_and_pop(&mut dst.model);
                    self.compare_steal(got, want, at);
                }
            }
            Op::StealBatchWithLimit {
                from,
                into,
                limit,
                pop,
            } if from == into => {
                let deque = &mut self.deques[from.index()];
                if let Some(worker) = &deque.worker {
                    if pop {
                        let got = deque.stealer.steal_batch_with_limit_and_pop(worker, limit);
                        let want = deque.model.steal_batch_into_self();
                        self.compare_steal(got, want, at);
                    } else {
                        // Nothing moves: `Success` if the deque holds one.
                        let got = deque.stealer.steal_batch_with_limit(worker, limit);
                        let want = !deque.model.is_empty();
                        assert_eq!(got.is_success(), want, "{at}: batch into its own deque");
                        assert_eq!(got.is_empty(), !want, "{at}: batch into its own deque");
                    }
                }
            }
            Op::StealBatchWithLimit { from, limit, pop, .. } => {
                let [a, b] = &mut self.deques;
                let (src, dst) = if from == Side::A { (a, b) } else { (b, a) };
                if let Some(worker) = &dst.worker {
                    if pop {
                        let got = src.stealer.steal_batch_with_limit_and_pop(worker, limit);
                        let want = src.model.steal_batch_with_limit_and_pop(&mut dst.model, limit);
                        self.compare_steal(got, want, at);
                    } else {
                        let got = src.stealer.steal_batch_with_limit(worker, limit);
                        let moved = src.model.steal_batch_with_limit(&mut dst.model, limit);
                        let want = if moved > 0 {
                            Steal::Success(())
                        } else {
                            Steal::Empty
                        };
                        assert_eq!(got, want, "{at}: batch of {moved} moved");
                    }
                }
            }
            Op::DropWorker(side) => {
                // Nothing leaves the deque: the stealer still holds it, and
                // the drop count checked after this step must not move.
                self.deques[side.index()].worker = None;
            }
        }
    }

    fn compare_steal(&mut self, got: Steal<P>, want: Option<usize>, at: &At) {
        let got = match got {
            Steal::Success(element) => Some(element),
            Steal::Empty => None,
            Steal::Retry => panic!("{at}: Retry without contention (model: {want:?})"),
        };
        self.compare(got, want, at);
    }

    /// Compares what the deque gave with what the model gave, then drops the
    /// element and checks that this was its one and only drop.
    fn compare(&mut self, got: Option<P>, want: Option<usize>, at: &At) {
        assert_eq!(
            got.as_ref().map(P::observed),
            want,
            "{at}: element differs from the model"
        );
        drop(got);
        if let Some(key) = want {
            self.removed += 1;
            if P::TRACKED {
                assert_eq!(
                    self.ledger.drops_of(key),
                    1,
                    "{at}: element {key} not dropped exactly once"
                );
            }
        }
    }

    fn check_lengths(&self, at: &At) {
        for (deque, side) in self.deques.iter().zip([Side::A, Side::B]) {
            let want = deque.model.len();
            let empty = deque.model.is_empty();
            assert_eq!(deque.stealer.len(), want, "{at}: Stealer::len of {side:?}");
            assert_eq!(
                deque.stealer.is_empty(),
                empty,
                "{at}: Stealer::is_empty of {side:?}"
            );
            if let Some(worker) = &deque.worker {
                assert_eq!(worker.len(), want, "{at}: Worker::len of {side:?}");
                assert_eq!(worker.is_empty(), empty, "{at}: Worker::is_empty of {side:?}");
            }
        }
        let inside: usize = self.deques.iter().map(|d| d.model.len()).sum();
        assert_eq!(
            self.pushed,
            self.removed + inside,
            "{at}: elements lost or duplicated by the model"
        );
        if P::TRACKED {
            assert_eq!(
                self.ledger.total(),
                self.removed,
                "{at}: drops differ from removals"
            );
        }
    }

    /// Checks what is left inside, then drops the handles.
    ///
    /// Untracked runs drain each deque through its `Stealer` and compare the
    /// whole remaining contents, top to bottom, with the model. Tracked runs
    /// leave the elements inside, so that dropping the handles must drop
    /// exactly those, once each.
    fn finish(mut self, steps: usize) {
        let at = At {
            step: steps,
            op: None,
            ty: std::any::type_name::<P>(),
        };
        if !P::TRACKED {
            for deque in &mut self.deques {
                loop {
                    let want = deque.model.steal();
                    let got = match deque.stealer.steal() {
                        Steal::Success(element) => Some(element.observed()),
                        Steal::Empty => None,
                        Steal::Retry => panic!("{at}: Retry without contention while draining"),
                    };
                    assert_eq!(got, want, "{at}: remaining contents differ from the model");
                    if want.is_none() {
                        break;
                    }
                }
            }
            return;
        }
        let mut left = vec![false; self.pushed];
        for serial in self.deques.iter().flat_map(|d| d.model.iter()) {
            left[*serial] = true;
        }
        for (serial, &inside) in left.iter().enumerate() {
            let want = usize::from(!inside);
            assert_eq!(
                self.ledger.drops_of(serial),
                want,
                "element {serial}: drops before the handles go"
            );
        }
        let (ledger, pushed) = (self.ledger.clone(), self.pushed);
        let [a, b] = self.deques;
        drop((a.stealer, b.stealer));
        drop((a.worker, b.worker));
        // Pushes skipped after a `DropWorker` made no element: their
        // serials stay at zero drops.
        for serial in 0..pushed {
            assert_eq!(
                ledger.drops_of(serial),
                1,
                "element {serial} not dropped exactly once in the end"
            );
        }
    }
}

/// Where a run is, for failure messages.
struct At {
    step: usize,
    /// `None` after the last step.
    op: Option<Op>,
    ty: &'static str,
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.op {
            Some(op) => write!(f, "step {} ({op:?}) with {}", self.step, self.ty),
            None => write!(f, "after the last step ({}) with {}", self.step, self.ty),
        }
    }
}
