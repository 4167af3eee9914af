//! A linearizability checker for the deque's concurrent histories.
//!
//! A *history* is a list of completed operations, each with the thread that
//! ran it, an invoke and a return timestamp, the operation and its result.
//! The timestamps come from one global counter that the driver increments
//! (`fetch_add`) just before the call and just after it returns, so two
//! operations are ordered in real time exactly when one's return timestamp
//! is below the other's invoke timestamp.
//!
//! The history is *linearizable* if some order of all its operations (a) is a
//! legal run of the sequential specification below and (b) puts `a` before
//! `b` whenever `a` returned before `b` was invoked. [`check`] decides this
//! with the search of Wing and Gong ("Testing and verifying concurrent
//! objects", JPDC 1993) in the form of Lowe ("Testing for linearizability",
//! CCPE 2017), as in the porcupine checker: walk the invoke and return events
//! in time order; at an invoke, try to linearize that operation *now* (just
//! in time); at a return whose operation is not yet linearized, backtrack.
//! Every (set of linearized operations, specification state) pair reached is
//! memoized, so a configuration is never explored twice.
//!
//! The sequential specification, state = a `VecDeque` of values, front =
//! top, back = bottom:
//!
//! * `push(v)`: appends `v` at the bottom.
//! * `pop()`: removes and returns the bottom value, or returns `None` if the
//!   deque is empty.
//! * `pop()` of a FIFO worker (`Worker::new_fifo`, [`Action::PopOldest`]):
//!   removes and returns the top value, or returns `None` if the deque is
//!   empty: judged as a `steal()` that cannot return `Retry`.
//! * `steal()`: `Success(v)` removes the top value `v`; `Empty` only if the
//!   deque is empty; `Retry` is legal in any state and changes nothing.
//!
//! `steal_batch_and_pop` is not one atomic operation (proof B1): it is a
//! sequence of steals. It is recorded as one event per element it took,
//! all with the call's interval ([`Action::Batch`] for the element it
//! returned, or its `Empty`/`Retry`, and [`Action::BatchMoved`] for each
//! element it pushed on the thief's own deque), each specified as a
//! `steal()` that took that element. A driver that knows the order of the
//! call's claims ranks the parts ([`Event::part`]): then part `k` is
//! linearized only after part `k - 1`, which is exactly the implementation
//! (its claims one after the other, the public method returning the last
//! one's element). Unranked parts (the schedule body's) are each a steal
//! somewhere inside the call, in any order: weaker, but still ruling out
//! every duplicated, lost, invented or out-of-order element. `len` and
//! `is_empty` are not in the specification: they are snapshots of two
//! loads. See `proofs/linearizability.md`.
//!
//! The file depends on nothing but `std`, so the real-thread test and the
//! shuttle harness include the same source with `#[path]`.

// Each includer uses a different part of the recording helpers.
#![allow(dead_code)]

use std::collections::{HashSet, VecDeque};
use std::fmt;

/// The most operations one history may hold (the width of the bitset of
/// linearized operations). The shuttle and real-thread drivers record a
/// few threads times a few operations; the schedule body's histories reach
/// about 200 events at most (64 operations, the owner's final pops and the
/// elements batches moved).
pub const MAX_OPS: usize = 256;

/// The outcome of a steal, as `stealpool::deque::Steal` with the value
/// copied out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stolen {
    Success(u64),
    Empty,
    Retry,
}

/// One operation together with its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// `Worker::push(v)`.
    Push(u64),
    /// `Worker::pop()` and what it returned.
    Pop(Option<u64>),
    /// `Worker::pop()` of a FIFO worker (`Worker::new_fifo`) and what it
    /// returned: the top value, as a steal takes it.
    PopOldest(Option<u64>),
    /// `Stealer::steal()` and what it returned.
    Steal(Stolen),
    /// `Stealer::steal_batch_and_pop(dest)` and what it returned; the
    /// elements it moved to `dest` are [`Action::BatchMoved`] events with the
    /// same thread and interval.
    Batch(Stolen),
    /// An element that a `steal_batch_and_pop` moved to the thief's own
    /// deque: a successful steal inside that call.
    BatchMoved(u64),
}

impl Action {
    /// The operation of the specification this action is judged as.
    fn spec(self) -> Action {
        match self {
            Action::Batch(stolen) => Action::Steal(stolen),
            Action::BatchMoved(v) => Action::Steal(Stolen::Success(v)),
            Action::PopOldest(Some(v)) => Action::Steal(Stolen::Success(v)),
            Action::PopOldest(None) => Action::Steal(Stolen::Empty),
            other => other,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Push(v) => write!(f, "push({v})"),
            Action::Pop(Some(v)) => write!(f, "pop() -> Some({v})"),
            Action::Pop(None) => write!(f, "pop() -> None"),
            Action::PopOldest(Some(v)) => write!(f, "pop() of a FIFO worker -> Some({v})"),
            Action::PopOldest(None) => write!(f, "pop() of a FIFO worker -> None"),
            Action::Steal(Stolen::Success(v)) => write!(f, "steal() -> Success({v})"),
            Action::Steal(Stolen::Empty) => write!(f, "steal() -> Empty"),
            Action::Steal(Stolen::Retry) => write!(f, "steal() -> Retry"),
            Action::Batch(Stolen::Success(v)) => write!(f, "steal_batch_and_pop() -> Success({v})"),
            Action::Batch(Stolen::Empty) => write!(f, "steal_batch_and_pop() -> Empty"),
            Action::Batch(Stolen::Retry) => write!(f, "steal_batch_and_pop() -> Retry"),
            Action::BatchMoved(v) => write!(f, "  (same batch) moved {v} to dest"),
        }
    }
}

/// One completed operation of a history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Which thread ran it (the drivers use 0 for the owner).
    pub thread: usize,
    /// The counter's value taken just before the call.
    pub invoke: u64,
    /// The counter's value taken just after the call returned; `> invoke`.
    pub ret: u64,
    pub action: Action,
    /// For a part of a `steal_batch_and_pop` ([`Action::Batch`],
    /// [`Action::BatchMoved`]) whose driver knows the order of the call's
    /// claims: the rank of this part's claim, 1 for the first; part `k > 1`
    /// linearizes only after part `k - 1` of the same call (same thread,
    /// invoke and return). 0 for every other event, and for parts whose
    /// order is not known (then they are unordered).
    pub part: u8,
}

/// Applies `action` to the specification state, if it is legal there.
/// Returns `false` (leaving `state` as it was) if it is not.
pub fn step(state: &mut VecDeque<u64>, action: Action) -> bool {
    match action.spec() {
        Action::Push(v) => {
            state.push_back(v);
            true
        }
        Action::Pop(result) => {
            if state.back().copied() == result {
                state.pop_back();
                true
            } else {
                false
            }
        }
        Action::Steal(Stolen::Success(v)) => {
            if state.front() == Some(&v) {
                state.pop_front();
                true
            } else {
                false
            }
        }
        Action::Steal(Stolen::Empty) => state.is_empty(),
        Action::Steal(Stolen::Retry) => true,
        Action::Batch(_) | Action::BatchMoved(_) | Action::PopOldest(_) => {
            unreachable!("spec() maps batches and FIFO pops to steals")
        }
    }
}

/// Undoes a successful [`step`] of `action`, restoring the state before it.
fn unstep(state: &mut VecDeque<u64>, action: Action) {
    match action.spec() {
        Action::Push(_) => {
            state.pop_back();
        }
        Action::Pop(Some(v)) => state.push_back(v),
        Action::Steal(Stolen::Success(v)) => state.push_front(v),
        Action::Pop(None)
        | Action::Steal(Stolen::Empty | Stolen::Retry)
        | Action::Batch(_)
        | Action::BatchMoved(_)
        | Action::PopOldest(_) => {}
    }
}

/// A history that is not linearizable, with what the search got furthest.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The history, as given.
    pub history: Vec<Event>,
    /// The longest sequence of operations (indices into `history`) that the
    /// search could linearize before every branch failed.
    pub longest_prefix: Vec<usize>,
    /// Configurations explored (memoized pairs).
    pub explored: usize,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "history of {} operations is NOT linearizable ({} configurations explored):",
            self.history.len(),
            self.explored
        )?;
        write!(f, "{}", Printed(&self.history))?;
        writeln!(
            f,
            "longest linearizable prefix ({} of {} operations):",
            self.longest_prefix.len(),
            self.history.len()
        )?;
        let mut state = VecDeque::new();
        for &i in &self.longest_prefix {
            let e = &self.history[i];
            step(&mut state, e.action);
            let action = e.action.to_string();
            writeln!(f, "    t{} {action:<40} then top..bottom = {state:?}", e.thread)?;
        }
        let stuck: Vec<String> = (0..self.history.len())
            .filter(|i| !self.longest_prefix.contains(i))
            .map(|i| {
                let e = &self.history[i];
                format!("t{} {} [{}, {}]", e.thread, e.action, e.invoke, e.ret)
            })
            .collect();
        writeln!(f, "not linearized: {}", stuck.join("; "))
    }
}

/// Prints a history one line per event, grouped per thread, each thread's
/// events in invoke order: `[invoke, return] operation -> result`.
pub struct Printed<'a>(pub &'a [Event]);

impl fmt::Display for Printed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut threads: Vec<usize> = self.0.iter().map(|e| e.thread).collect();
        threads.sort_unstable();
        threads.dedup();
        for thread in threads {
            let role = if thread == 0 { " (owner)" } else { " (thief)" };
            writeln!(f, "  thread {thread}{role}:")?;
            let mut events: Vec<&Event> = self.0.iter().filter(|e| e.thread == thread).collect();
            events.sort_by_key(|e| e.invoke);
            for e in events {
                writeln!(f, "    [{:>3}, {:>3}] {}", e.invoke, e.ret, e.action)?;
            }
        }
        Ok(())
    }
}

/// How much of a history ran concurrently: a check of a history whose
/// operations never overlapped is a check of a sequential run, which says
/// nothing about races. Each field counts pairs of calls of two different
/// threads whose intervals overlap (`a.invoke < b.ret && b.invoke < a.ret`);
/// the parts of one batch count as one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlap {
    /// Any two calls of different threads.
    pub cross_thread: usize,
    /// An owner's `pop` (thread 0) and a thief's `steal` or batch that
    /// succeeded: the race the deque's fences and CASes decide (D3/D6, D4
    /// against D9).
    pub pop_vs_steal: usize,
    /// Two thieves' steals or batches that both succeeded: the race of two
    /// D9 CASes.
    pub steal_vs_steal: usize,
}

/// Counts the overlapping pairs of calls of `history` (see [`Overlap`]).
pub fn overlap(history: &[Event]) -> Overlap {
    let calls: Vec<&Event> = history
        .iter()
        .filter(|e| !matches!(e.action, Action::BatchMoved(_)))
        .collect();
    let mut overlap = Overlap::default();
    for (i, a) in calls.iter().enumerate() {
        for b in &calls[i + 1..] {
            if a.thread == b.thread || !(a.invoke < b.ret && b.invoke < a.ret) {
                continue;
            }
            overlap.cross_thread += 1;
            let is_pop =
                |e: &Event| e.thread == 0 && matches!(e.action, Action::Pop(_) | Action::PopOldest(_));
            let took = |e: &Event| {
                matches!(
                    e.action,
                    Action::Steal(Stolen::Success(_)) | Action::Batch(Stolen::Success(_))
                )
            };
            if (is_pop(a) && took(b)) || (is_pop(b) && took(a)) {
                overlap.pop_vs_steal += 1;
            }
            if took(a) && took(b) {
                overlap.steal_vs_steal += 1;
            }
        }
    }
    overlap
}

/// The overlap of many histories, tallied by a driver (with `std` atomics,
/// outside any checker's facade) and asserted against floors at the end.
#[derive(Default)]
pub struct OverlapTally {
    histories: std::sync::atomic::AtomicUsize,
    cross_thread: std::sync::atomic::AtomicUsize,
    pop_vs_steal: std::sync::atomic::AtomicUsize,
    steal_vs_steal: std::sync::atomic::AtomicUsize,
}

/// What an [`OverlapTally`] counted: histories, and how many of them had
/// each kind of [`Overlap`] at least once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tallied {
    pub histories: usize,
    pub cross_thread: usize,
    pub pop_vs_steal: usize,
    pub steal_vs_steal: usize,
}

impl OverlapTally {
    /// An empty tally (`const`, for a `static` of a driver whose histories
    /// come from many places, as the schedule body's).
    pub const fn new() -> Self {
        use std::sync::atomic::AtomicUsize;
        OverlapTally {
            histories: AtomicUsize::new(0),
            cross_thread: AtomicUsize::new(0),
            pop_vs_steal: AtomicUsize::new(0),
            steal_vs_steal: AtomicUsize::new(0),
        }
    }

    /// Counts `history`: one more history, and whether it had each kind of
    /// overlap.
    pub fn add(&self, history: &[Event]) -> Overlap {
        use std::sync::atomic::Ordering::Relaxed;
        let o = overlap(history);
        self.histories.fetch_add(1, Relaxed);
        self.cross_thread
            .fetch_add(usize::from(o.cross_thread > 0), Relaxed);
        self.pop_vs_steal
            .fetch_add(usize::from(o.pop_vs_steal > 0), Relaxed);
        self.steal_vs_steal
            .fetch_add(usize::from(o.steal_vs_steal > 0), Relaxed);
        o
    }

    /// The counts so far.
    pub fn counts(&self) -> Tallied {
        use std::sync::atomic::Ordering::Relaxed;
        Tallied {
            histories: self.histories.load(Relaxed),
            cross_thread: self.cross_thread.load(Relaxed),
            pop_vs_steal: self.pop_vs_steal.load(Relaxed),
            steal_vs_steal: self.steal_vs_steal.load(Relaxed),
        }
    }

    /// The line a driver prints: `overlap: of N histories, X had calls of
    /// two threads overlapping, Y an owner's pop overlapping a successful
    /// steal, Z two successful steals overlapping`.
    pub fn summary(&self) -> String {
        let c = self.counts();
        let n = c.histories;
        format!(
            "overlap: of {n} histories, {} had calls of two threads overlapping ({}%), \
             {} an owner's pop overlapping a successful steal ({}%), \
             {} two successful steals overlapping ({}%)",
            c.cross_thread,
            percent(c.cross_thread, n),
            c.pop_vs_steal,
            percent(c.pop_vs_steal, n),
            c.steal_vs_steal,
            percent(c.steal_vs_steal, n)
        )
    }

    /// Fails unless at least `cross` % of the histories had calls of two
    /// threads overlapping, `pop` % an owner's pop overlapping a successful
    /// steal and `steals` % two successful steals overlapping: a check that
    /// saw no races is vacuous.
    pub fn assert_floors(&self, what: &str, cross: usize, pop: usize, steals: usize) {
        let c = self.counts();
        let n = c.histories;
        assert!(
            n > 0
                && 100 * c.cross_thread >= cross * n
                && 100 * c.pop_vs_steal >= pop * n
                && 100 * c.steal_vs_steal >= steals * n,
            "{what}: {} (floors {cross}%, {pop}% and {steals}%): too little concurrency to check",
            self.summary()
        );
    }
}

fn percent(part: usize, whole: usize) -> usize {
    (100 * part).checked_div(whole).unwrap_or(0)
}

/// A node of the doubly linked list of invoke and return events.
#[derive(Clone, Copy)]
struct Node {
    /// The operation (index into the history).
    op: usize,
    /// For an invoke node, the index of its return node; `None` for a
    /// return node.
    matching: Option<usize>,
    prev: usize,
    next: Option<usize>,
}

/// The part ranked just before `history[op]` in the same call, if it is a
/// ranked part of a batch other than the first ([`Event::part`]).
fn predecessor(history: &[Event], op: usize) -> Option<usize> {
    let e = &history[op];
    if e.part <= 1 {
        return None;
    }
    history
        .iter()
        .position(|p| p.thread == e.thread && p.invoke == e.invoke && p.ret == e.ret && p.part == e.part - 1)
}

/// Checks that `history` is one [`check`] takes: at most [`MAX_OPS`]
/// operations, each returning after it is invoked, no two events at the
/// same time except an [`Action::BatchMoved`], whose invoke and return
/// must be those of successful batches of its thread (one batch's, or, when
/// the driver cannot tell which batch moved it, the first and the last of
/// the batches that may have).
pub fn validate(history: &[Event]) -> Result<(), String> {
    if history.len() > MAX_OPS {
        return Err(format!("{} operations, at most {MAX_OPS}", history.len()));
    }
    // One entry per call: the parts of a batch count once.
    let mut calls: Vec<(u64, u64, usize)> = Vec::with_capacity(history.len());
    for (op, e) in history.iter().enumerate() {
        if e.invoke >= e.ret {
            return Err(format!(
                "operation {op} returns ({}) before it is invoked ({})",
                e.ret, e.invoke
            ));
        }
        if e.part > 1 && predecessor(history, op).is_none() {
            return Err(format!(
                "operation {op} is part {} of a batch with no part {}",
                e.part,
                e.part - 1
            ));
        }
        if e.part > 0 && !matches!(e.action, Action::Batch(_) | Action::BatchMoved(_)) {
            return Err(format!("operation {op} is ranked but not part of a batch"));
        }
        if let Action::BatchMoved(_) = e.action {
            let batch = |time: fn(&Event) -> u64| {
                history.iter().any(|b| {
                    matches!(b.action, Action::Batch(Stolen::Success(_)))
                        && b.thread == e.thread
                        && time(b) == time(e)
                })
            };
            if !batch(|b| b.invoke) || !batch(|b| b.ret) {
                return Err(format!("operation {op} moved an element for no successful batch"));
            }
            continue;
        }
        calls.push((e.invoke, e.ret, op));
    }
    let mut times: Vec<u64> = calls.iter().flat_map(|&(i, r, _)| [i, r]).collect();
    times.sort_unstable();
    match times.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(format!("two events at time {}: take them from one counter", w[0])),
        None => Ok(()),
    }
}

/// Decides whether `history` is linearizable with respect to the deque's
/// sequential specification, starting from an empty deque.
///
/// # Panics
///
/// If [`validate`] refuses the history.
pub fn check(history: &[Event]) -> Result<(), Box<Failure>> {
    if let Err(why) = validate(history) {
        panic!("not a history the checker takes: {why}");
    }
    let n = history.len();
    let after: Vec<Option<usize>> = (0..n).map(|op| predecessor(history, op)).collect();
    // The events in time order: (time, is_return, op).
    let mut times: Vec<(u64, bool, usize)> = Vec::with_capacity(2 * n);
    for (op, e) in history.iter().enumerate() {
        times.push((e.invoke, false, op));
        times.push((e.ret, true, op));
    }
    times.sort_unstable();
    // Node 0 is the list's head sentinel; event k is node k + 1.
    let mut nodes = vec![Node {
        op: usize::MAX,
        matching: None,
        prev: 0,
        next: if times.is_empty() { None } else { Some(1) },
    }];
    let mut return_node = vec![0; n];
    for (k, &(_, is_return, op)) in times.iter().enumerate() {
        if is_return {
            return_node[op] = k + 1;
        }
        nodes.push(Node {
            op,
            matching: None,
            prev: k,
            next: if k + 1 < times.len() { Some(k + 2) } else { None },
        });
    }
    for (k, &(_, is_return, op)) in times.iter().enumerate() {
        if !is_return {
            nodes[k + 1].matching = Some(return_node[op]);
        }
    }

    let unlink = |nodes: &mut Vec<Node>, i: usize| {
        let Node { prev, next, .. } = nodes[i];
        nodes[prev].next = next;
        if let Some(next) = next {
            nodes[next].prev = prev;
        }
    };
    let relink = |nodes: &mut Vec<Node>, i: usize| {
        let Node { prev, next, .. } = nodes[i];
        nodes[prev].next = Some(i);
        if let Some(next) = next {
            nodes[next].prev = i;
        }
    };

    let mut state: VecDeque<u64> = VecDeque::new();
    let mut linearized: [u64; MAX_OPS / 64] = [0; MAX_OPS / 64];
    let mut seen: HashSet<([u64; MAX_OPS / 64], VecDeque<u64>)> = HashSet::new();
    // The invoke nodes of the operations linearized so far, in order.
    let mut stack: Vec<usize> = Vec::new();
    let mut longest: Vec<usize> = Vec::new();
    let mut entry = nodes[0].next;
    while let Some(i) = entry {
        let node = nodes[i];
        match node.matching {
            Some(ret) => {
                // An invoke: try to linearize its operation here.
                let action = history[node.op].action;
                // A ranked part of a batch waits for the claim before it.
                let ready = after[node.op].is_none_or(|p| linearized[p / 64] & (1 << (p % 64)) != 0);
                if ready && step(&mut state, action) {
                    let mut bits = linearized;
                    bits[node.op / 64] |= 1 << (node.op % 64);
                    if seen.insert((bits, state.clone())) {
                        linearized = bits;
                        stack.push(i);
                        if stack.len() > longest.len() {
                            longest = stack.iter().map(|&s| nodes[s].op).collect();
                        }
                        // Lift the operation out of the list: both events.
                        unlink(&mut nodes, i);
                        unlink(&mut nodes, ret);
                        entry = nodes[0].next;
                        continue;
                    }
                    unstep(&mut state, action);
                }
                entry = node.next;
            }
            None => {
                // A return whose operation is not linearized yet: every
                // operation invoked before it has been tried. Backtrack.
                let Some(top) = stack.pop() else {
                    return Err(Box::new(Failure {
                        history: history.to_vec(),
                        longest_prefix: longest,
                        explored: seen.len(),
                    }));
                };
                let op = nodes[top].op;
                unstep(&mut state, history[op].action);
                linearized[op / 64] &= !(1 << (op % 64));
                let ret = nodes[top].matching.expect("an invoke node");
                relink(&mut nodes, ret);
                relink(&mut nodes, top);
                entry = nodes[top].next;
            }
        }
    }
    Ok(())
}

/// One thread's part of a history, recorded as the operations run.
pub struct Recorder {
    thread: usize,
    events: Vec<Event>,
}

impl Recorder {
    pub fn new(thread: usize) -> Self {
        Recorder {
            thread,
            events: Vec::new(),
        }
    }

    /// Runs `call` between two ticks of the shared counter (`tick` returns
    /// the counter's value before an increment) and records its action.
    pub fn record(&mut self, tick: impl Fn() -> u64, call: impl FnOnce() -> Action) -> Action {
        let invoke = tick();
        let action = call();
        let ret = tick();
        self.events.push(Event {
            thread: self.thread,
            invoke,
            ret,
            action,
            part: 0,
        });
        action
    }

    /// Runs a `steal_batch_and_pop` between two ticks, like [`record`]:
    /// `call` returns its result and the elements it moved to the thief's
    /// own deque, in the order it claimed them. The public
    /// `steal_batch_and_pop` claims the moved elements first and the one it
    /// returns last (the newest), so the events are ranked that way: each
    /// moved element a part of the call, in claim order, then the result
    /// (see [`Event::part`]).
    ///
    /// [`record`]: Recorder::record
    pub fn record_batch(
        &mut self,
        tick: impl Fn() -> u64,
        call: impl FnOnce() -> (Stolen, Vec<u64>),
    ) -> Stolen {
        self.record_batch_ranked(tick, call, false)
    }

    /// As [`record_batch`](Self::record_batch), for a batch from a FIFO
    /// deque: the element returned is the first claim, the moved ones
    /// (in the order claimed) come after it.
    pub fn record_fifo_batch(
        &mut self,
        tick: impl Fn() -> u64,
        call: impl FnOnce() -> (Stolen, Vec<u64>),
    ) -> Stolen {
        self.record_batch_ranked(tick, call, true)
    }

    fn record_batch_ranked(
        &mut self,
        tick: impl Fn() -> u64,
        call: impl FnOnce() -> (Stolen, Vec<u64>),
        returned_first: bool,
    ) -> Stolen {
        let invoke = tick();
        let (result, moved) = call();
        let ret = tick();
        let thread = self.thread;
        let (first_moved, last) = if returned_first {
            (2, 1)
        } else {
            (1, moved.len() as u8 + 1)
        };
        self.events
            .extend(moved.into_iter().zip(first_moved..).map(|(v, part)| Event {
                thread,
                invoke,
                ret,
                action: Action::BatchMoved(v),
                part,
            }));
        self.events.push(Event {
            thread,
            invoke,
            ret,
            action: Action::Batch(result),
            part: last,
        });
        result
    }

    pub fn into_events(self) -> Vec<Event> {
        self.events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(thread: usize, invoke: u64, ret: u64, action: Action) -> Event {
        Event {
            thread,
            invoke,
            ret,
            action,
            part: 0,
        }
    }

    /// `ev` for a part of a batch whose claims are ranked.
    fn part(thread: usize, invoke: u64, ret: u64, action: Action, part: u8) -> Event {
        Event {
            part,
            ..ev(thread, invoke, ret, action)
        }
    }

    #[test]
    fn overlap_counts_pairs_of_two_threads() {
        let h = [
            ev(0, 1, 2, Action::Push(1)),
            ev(0, 3, 4, Action::Push(2)),
            // Overlaps the steal of thread 1 and the batch of thread 2.
            ev(0, 5, 9, Action::Pop(Some(2))),
            ev(1, 6, 8, Action::Steal(Stolen::Success(1))),
            ev(2, 7, 10, Action::Batch(Stolen::Empty)),
            ev(2, 11, 14, Action::Batch(Stolen::Success(3))),
            ev(2, 11, 14, Action::BatchMoved(4)),
            ev(1, 12, 13, Action::Steal(Stolen::Success(5))),
            // Same thread as the pop: never counted.
            ev(0, 15, 16, Action::Pop(None)),
        ];
        let o = overlap(&h);
        // pop/steal, pop/batch, steal/batch, batch/steal (the moved part
        // is not a call of its own).
        assert_eq!(o.cross_thread, 4);
        assert_eq!(o.pop_vs_steal, 1);
        assert_eq!(o.steal_vs_steal, 1);
        let tally = OverlapTally::default();
        tally.add(&h);
        tally.add(&h[..2]);
        let c = tally.counts();
        assert_eq!(
            (c.histories, c.cross_thread, c.pop_vs_steal, c.steal_vs_steal),
            (2, 1, 1, 1)
        );
        tally.assert_floors("two histories", 50, 50, 50);
        let too_high = std::panic::catch_unwind(|| tally.assert_floors("two histories", 0, 0, 51));
        assert!(too_high.is_err());
    }

    #[test]
    fn empty_history_is_linearizable() {
        assert!(check(&[]).is_ok());
    }

    #[test]
    fn sequential_history_follows_the_spec() {
        let h = [
            ev(0, 1, 2, Action::Push(1)),
            ev(0, 3, 4, Action::Push(2)),
            ev(1, 5, 6, Action::Steal(Stolen::Success(1))),
            ev(0, 7, 8, Action::Pop(Some(2))),
            ev(0, 9, 10, Action::Pop(None)),
            ev(1, 11, 12, Action::Steal(Stolen::Empty)),
            ev(2, 13, 14, Action::Steal(Stolen::Retry)),
        ];
        assert!(check(&h).is_ok());
        // The same, but the pop takes the top: not LIFO at the bottom.
        let mut wrong = h;
        wrong[3].action = Action::Pop(Some(1));
        wrong[2].action = Action::Steal(Stolen::Success(2));
        assert!(check(&wrong).is_err());
    }

    #[test]
    fn overlapping_history_that_needs_reordering_passes() {
        // The steal is invoked before push(1) returns and returns Success(1)
        // while the owner's pop, overlapping it, returns 2: linearizable as
        // push 1, push 2, steal 1, pop 2 — or pop 2 before steal 1.
        // The second steal overlaps everything and returns Empty, which is
        // legal at its end.
        let h = [
            ev(0, 1, 3, Action::Push(1)),
            ev(1, 2, 9, Action::Steal(Stolen::Success(1))),
            ev(0, 4, 5, Action::Push(2)),
            ev(0, 6, 8, Action::Pop(Some(2))),
            ev(2, 7, 10, Action::Steal(Stolen::Empty)),
            ev(0, 11, 12, Action::Pop(None)),
        ];
        assert!(check(&h).is_ok(), "{}", check(&h).unwrap_err());
    }

    #[test]
    fn steal_empty_while_concurrent_with_the_only_push_passes() {
        // The steal overlaps the push, so it may linearize before it.
        let h = [
            ev(0, 1, 4, Action::Push(1)),
            ev(1, 2, 3, Action::Steal(Stolen::Empty)),
            ev(0, 5, 6, Action::Pop(Some(1))),
        ];
        assert!(check(&h).is_ok());
    }

    #[test]
    fn two_steals_of_the_same_element_fail() {
        let h = [
            ev(0, 1, 2, Action::Push(1)),
            ev(0, 3, 4, Action::Push(2)),
            ev(1, 5, 8, Action::Steal(Stolen::Success(1))),
            ev(2, 6, 7, Action::Steal(Stolen::Success(1))),
        ];
        let failure = check(&h).unwrap_err();
        let text = failure.to_string();
        assert!(text.contains("NOT linearizable"), "{text}");
        assert!(text.contains("thread 2 (thief):"), "{text}");
        assert!(text.contains("[  6,   7] steal() -> Success(1)"), "{text}");
        assert_eq!(failure.longest_prefix.len(), 3);
    }

    #[test]
    fn pop_and_steal_of_the_same_element_fail() {
        let h = [
            ev(0, 1, 2, Action::Push(1)),
            ev(0, 3, 6, Action::Pop(Some(1))),
            ev(1, 4, 5, Action::Steal(Stolen::Success(1))),
        ];
        assert!(check(&h).is_err());
    }

    #[test]
    fn steal_empty_after_a_completed_push_fails() {
        // push(1) returned (at 2) before the steal was invoked (at 3), nobody
        // ever took 1, and the steal says Empty.
        let h = [
            ev(0, 1, 2, Action::Push(1)),
            ev(1, 3, 4, Action::Steal(Stolen::Empty)),
            ev(0, 5, 6, Action::Pop(Some(1))),
        ];
        let failure = check(&h).unwrap_err();
        assert_eq!(failure.longest_prefix, vec![0]);
    }

    #[test]
    fn element_never_pushed_fails() {
        let h = [
            ev(0, 1, 4, Action::Push(1)),
            ev(1, 2, 3, Action::Steal(Stolen::Success(0))),
        ];
        assert!(check(&h).is_err());
    }

    #[test]
    fn retry_is_legal_anywhere() {
        let h = [
            ev(1, 1, 2, Action::Steal(Stolen::Retry)),
            ev(0, 3, 4, Action::Push(7)),
            ev(1, 5, 6, Action::Steal(Stolen::Retry)),
            ev(0, 7, 8, Action::Pop(Some(7))),
        ];
        assert!(check(&h).is_ok());
    }

    #[test]
    fn a_full_size_history_is_fast() {
        // 3 threads x 6 operations, each operation overlapping the other
        // threads' operations of the same rank: the owner pushes 1..=6, one
        // thief steals them in order, the other only gets Retry.
        let mut h = Vec::new();
        for k in 0..6u64 {
            let at = |thread: u64| (10 * k + thread + 1, 10 * k + thread + 6);
            let (i, r) = at(0);
            h.push(ev(0, i, r, Action::Push(k + 1)));
            let (i, r) = at(1);
            h.push(ev(1, i, r, Action::Steal(Stolen::Success(k + 1))));
            let (i, r) = at(2);
            h.push(ev(2, i, r, Action::Steal(Stolen::Retry)));
        }
        assert!(check(&h).is_ok());
        // The last steal returns a value never pushed: every branch fails.
        h[16].action = Action::Steal(Stolen::Success(7));
        let failure = check(&h).unwrap_err();
        assert_eq!(failure.longest_prefix.len(), 17, "{failure}");
        assert!(failure.explored < 10_000, "{}", failure.explored);
    }

    /// Linearizable or not, by trying every order of the operations that
    /// respects real time: the definition, for small histories.
    fn brute_force(history: &[Event], left: &mut Vec<usize>, state: &mut VecDeque<u64>) -> bool {
        if left.is_empty() {
            return true;
        }
        for k in 0..left.len() {
            let op = left[k];
            // `op` may come next unless another remaining operation returned
            // before it was invoked.
            if left.iter().any(|&o| history[o].ret < history[op].invoke) {
                continue;
            }
            let before = state.clone();
            if step(state, history[op].action) {
                left.remove(k);
                let ok = brute_force(history, left, state);
                left.insert(k, op);
                *state = before;
                if ok {
                    return true;
                }
            }
        }
        false
    }

    #[test]
    fn agrees_with_brute_force_on_random_histories() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut rand = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let (mut passed, mut failed) = (0, 0);
        for _ in 0..if cfg!(miri) { 30 } else { 3000 } {
            // A legal sequential run, one linearization point per operation
            // at 100 i + 50, widened into random overlapping intervals.
            let n = 1 + rand(7) as usize;
            let mut state = VecDeque::new();
            let mut next = 1;
            let mut h = Vec::new();
            for i in 0..n {
                let action = match rand(4) {
                    0 | 1 => {
                        next += 1;
                        Action::Push(next - 1)
                    }
                    2 => Action::Pop(state.back().copied()),
                    _ if rand(4) == 0 => Action::Steal(Stolen::Retry),
                    _ => Action::Steal(state.front().map_or(Stolen::Empty, |&v| Stolen::Success(v))),
                };
                assert!(step(&mut state, action));
                let point = 100 * i as u64 + 50;
                let invoke = (point - rand(150).min(point)) * 16 + i as u64;
                let ret = (point + 1 + rand(150)) * 16 + i as u64;
                h.push(ev(rand(3) as usize, invoke, ret, action));
            }
            // Half the time, a wrong result somewhere.
            if rand(2) == 0 {
                let i = rand(n as u64) as usize;
                h[i].action = match rand(5) {
                    0 => Action::Pop(None),
                    1 => Action::Pop(Some(1 + rand(next))),
                    2 => Action::Steal(Stolen::Empty),
                    3 => Action::Steal(Stolen::Success(1 + rand(next))),
                    _ => Action::Push(1 + rand(next)),
                };
            }
            let expected = brute_force(&h, &mut (0..n).collect(), &mut VecDeque::new());
            assert_eq!(check(&h).is_ok(), expected, "{}", Printed(&h));
            if expected {
                passed += 1;
            } else {
                failed += 1;
            }
        }
        // Both verdicts were exercised.
        assert!(passed > 0 && failed > 0, "{passed} linearizable, {failed} not");
    }

    #[test]
    fn batch_parts_linearize_inside_the_call() {
        // 1, 2, 3 pushed; a batch returns 1 and moves 2 while the owner's
        // overlapping pop takes 3.
        let h = [
            ev(0, 1, 2, Action::Push(1)),
            ev(0, 3, 4, Action::Push(2)),
            ev(0, 5, 6, Action::Push(3)),
            ev(1, 7, 10, Action::Batch(Stolen::Success(1))),
            ev(1, 7, 10, Action::BatchMoved(2)),
            ev(0, 8, 9, Action::Pop(Some(3))),
            ev(0, 11, 12, Action::Pop(None)),
        ];
        assert!(check(&h).is_ok(), "{}", check(&h).unwrap_err());
        // proofs/linearizability.md's example: not atomic, but each part
        // has its own point inside the call (1 taken first, 4 last).
        let h = [
            ev(0, 1, 2, Action::Push(1)),
            ev(0, 3, 4, Action::Push(2)),
            ev(0, 5, 6, Action::Push(3)),
            ev(1, 7, 20, Action::Batch(Stolen::Success(1))),
            ev(1, 7, 20, Action::BatchMoved(4)),
            ev(0, 8, 9, Action::Pop(Some(3))),
            ev(0, 10, 11, Action::Pop(Some(2))),
            ev(0, 12, 13, Action::Pop(None)),
            ev(0, 14, 15, Action::Push(4)),
        ];
        assert!(check(&h).is_ok(), "{}", check(&h).unwrap_err());
    }

    #[test]
    fn ranked_batch_parts_linearize_in_claim_order() {
        // 1, 2, 3 pushed; the batch claims 1, then 2, moves 1 and returns 2
        // (the newest, as the public `steal_batch_and_pop` does), while the
        // owner's overlapping pop takes 3.
        let pushes = [
            ev(0, 1, 2, Action::Push(1)),
            ev(0, 3, 4, Action::Push(2)),
            ev(0, 5, 6, Action::Push(3)),
        ];
        let rest = [
            ev(0, 8, 9, Action::Pop(Some(3))),
            ev(0, 11, 12, Action::Pop(None)),
        ];
        let h: Vec<Event> = pushes
            .iter()
            .copied()
            .chain([
                part(1, 7, 10, Action::BatchMoved(1), 1),
                part(1, 7, 10, Action::Batch(Stolen::Success(2)), 2),
            ])
            .chain(rest)
            .collect();
        assert!(check(&h).is_ok(), "{}", check(&h).unwrap_err());
        // The same elements with the result claimed first: "returns 1,
        // moves 2" is what the unranked parts allow, and not what the call
        // does; ranked, it needs 2 claimed while 1 was on top.
        let wrong: Vec<Event> = pushes
            .iter()
            .copied()
            .chain([
                part(1, 7, 10, Action::BatchMoved(2), 1),
                part(1, 7, 10, Action::Batch(Stolen::Success(1)), 2),
            ])
            .chain(rest)
            .collect();
        assert!(check(&wrong).is_err());
        let unranked: Vec<Event> = wrong.iter().map(|e| Event { part: 0, ..*e }).collect();
        assert!(check(&unranked).is_ok());
        // A rank with nothing before it is refused.
        let gap = [
            ev(0, 1, 2, Action::Push(1)),
            part(1, 3, 4, Action::Batch(Stolen::Success(1)), 2),
        ];
        assert!(validate(&gap).is_err());
    }

    #[test]
    fn batch_that_shares_an_element_with_a_pop_fails() {
        // The wide-CAS defect of B1: the owner pops 2 inside the range the
        // batch claimed, and the batch moves 2 as well.
        let h = [
            ev(0, 1, 2, Action::Push(1)),
            ev(0, 3, 4, Action::Push(2)),
            ev(0, 5, 6, Action::Push(3)),
            ev(1, 7, 12, Action::Batch(Stolen::Success(1))),
            ev(1, 7, 12, Action::BatchMoved(2)),
            ev(0, 8, 9, Action::Pop(Some(3))),
            ev(0, 10, 11, Action::Pop(Some(2))),
        ];
        let failure = check(&h).unwrap_err();
        let text = failure.to_string();
        assert!(
            text.contains("[  7,  12] steal_batch_and_pop() -> Success(1)"),
            "{text}"
        );
        assert!(text.contains("(same batch) moved 2 to dest"), "{text}");
    }

    #[test]
    fn batch_that_skips_an_element_fails() {
        // 1, 2, 3 pushed; the batch returns 1 and moves 3, but 2 stayed in
        // the deque until after the batch returned: 3 was never the top.
        let h = [
            ev(0, 1, 2, Action::Push(1)),
            ev(0, 3, 4, Action::Push(2)),
            ev(0, 5, 6, Action::Push(3)),
            ev(1, 7, 8, Action::Batch(Stolen::Success(1))),
            ev(1, 7, 8, Action::BatchMoved(3)),
            ev(0, 9, 10, Action::Pop(Some(2))),
            ev(0, 11, 12, Action::Pop(None)),
        ];
        assert!(check(&h).is_err());
    }

    #[test]
    fn batch_empty_after_a_completed_push_fails() {
        let h = [
            ev(0, 1, 2, Action::Push(1)),
            ev(1, 3, 4, Action::Batch(Stolen::Empty)),
            ev(0, 5, 6, Action::Pop(Some(1))),
        ];
        assert!(check(&h).is_err());
    }

    #[test]
    fn invalid_histories_are_refused() {
        let orphan = [ev(0, 1, 2, Action::Push(1)), ev(1, 3, 4, Action::BatchMoved(1))];
        assert!(validate(&orphan).is_err());
        let backwards = [ev(0, 2, 1, Action::Push(1))];
        assert!(validate(&backwards).is_err());
        let shared = [
            ev(0, 1, 2, Action::Push(1)),
            ev(1, 2, 3, Action::Steal(Stolen::Empty)),
        ];
        assert!(validate(&shared).is_err());
        let long: Vec<Event> = (0..=MAX_OPS as u64)
            .map(|i| ev(0, 2 * i + 1, 2 * i + 2, Action::Push(i)))
            .collect();
        assert!(validate(&long).is_err());
        assert!(validate(&long[1..]).is_ok());
    }
}
