//! The sequential specification of the handles, and a search for an order
//! of a history's calls that respects real time and is a legal run of it.
//!
//! Shared by the shuttle driver (`lin/pool.rs`) and the real-thread one
//! (`tests/pool_linearizable.rs`).

use std::collections::HashSet;

/// A task's value; `when_all` and `zip` concatenate their inputs'.
pub type Value = Vec<u64>;

/// One call on a handle, or a step of the pool on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// The task (or continuation) of `handle` ended with `value`; its
    /// completion is one step after that.
    Complete {
        handle: usize,
        value: Value,
    },
    /// `handle` is a `when_all` or a `zip` of `inputs`: it completes,
    /// in one step after all of them, with their values in input
    /// order, and takes them.
    Combine {
        handle: usize,
        inputs: Vec<usize>,
    },
    IsFinished {
        handle: usize,
        finished: bool,
    },
    /// A poll as a future: `None` for `Pending`.
    Poll {
        handle: usize,
        ready: Option<Value>,
    },
    Join {
        handle: usize,
        value: Value,
    },
    /// A `then` continuation of `handle` received `value`.
    Deliver {
        handle: usize,
        value: Value,
    },
}

/// One call: thread, invoke and return ticks (`u64::MAX` if nobody saw
/// it return), and what it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub thread: usize,
    pub invoke: u64,
    pub ret: u64,
    pub op: Op,
}

/// A handle's state in the specification.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum State {
    /// The task has not completed.
    Pending,
    /// Completed; the value waits to be taken.
    Done(Value),
    /// A join, a `Ready` poll, a continuation or a combination took it.
    Taken,
}

/// Applies `op` to `states` if the specification allows it there.
fn step(op: &Op, states: &mut [State]) -> bool {
    let take = |states: &mut [State], handle: usize, value: &Value| {
        if states[handle] == State::Done(value.clone()) {
            states[handle] = State::Taken;
            true
        } else {
            false
        }
    };
    match op {
        Op::Complete { handle, value } => {
            if states[*handle] != State::Pending {
                return false;
            }
            states[*handle] = State::Done(value.clone());
            true
        }
        Op::Combine { handle, inputs } => {
            if states[*handle] != State::Pending {
                return false;
            }
            let mut value = Vec::new();
            for &input in inputs {
                match &states[input] {
                    State::Done(v) => value.extend_from_slice(v),
                    _ => return false,
                }
            }
            for &input in inputs {
                states[input] = State::Taken;
            }
            states[*handle] = State::Done(value);
            true
        }
        Op::IsFinished { handle, finished } => *finished == (states[*handle] != State::Pending),
        Op::Poll { handle, ready: None } => states[*handle] == State::Pending,
        Op::Poll {
            handle,
            ready: Some(value),
        }
        | Op::Join { handle, value }
        | Op::Deliver { handle, value } => take(states, *handle, value),
    }
}

/// Whether some order of `history` that respects real time (`a` before
/// `b` when `a.ret < b.invoke`) is a legal run from every one of
/// `handles` handles pending. A depth-first search over (calls placed,
/// states), each pair visited once; at most 64 calls.
pub fn linearizable(history: &[Call], handles: usize) -> bool {
    assert!(history.len() <= 64, "at most 64 calls");
    let mut seen = HashSet::new();
    search(history, 0, &mut vec![State::Pending; handles], &mut seen)
}

fn search(
    history: &[Call],
    placed: u64,
    states: &mut Vec<State>,
    seen: &mut HashSet<(u64, Vec<State>)>,
) -> bool {
    let left = |i: usize| placed & (1 << i) == 0;
    let Some(first_return) = (0..history.len())
        .filter(|&i| left(i))
        .map(|i| history[i].ret)
        .min()
    else {
        return true;
    };
    if !seen.insert((placed, states.clone())) {
        return false;
    }
    for i in (0..history.len()).filter(|&i| left(i) && history[i].invoke < first_return) {
        let before = states.clone();
        if step(&history[i].op, states) && search(history, placed | 1 << i, states, seen) {
            return true;
        }
        *states = before;
    }
    false
}

/// Whether a call on `handle` (a look at it, a poll, a join or a delivery)
/// overlapped a run of `body`'s task; `runs` holds (handle, start, end)
/// of each body, in ticks. What the drivers count toward their overlap
/// floors.
pub fn observed_while_running(
    calls: &[Call],
    runs: &[(usize, u64, u64)],
    handle: usize,
    body: usize,
) -> bool {
    let handle_of = |op: &Op| match op {
        Op::IsFinished { handle, .. }
        | Op::Poll { handle, .. }
        | Op::Join { handle, .. }
        | Op::Deliver { handle, .. } => Some(*handle),
        Op::Complete { .. } | Op::Combine { .. } => None,
    };
    runs.iter().filter(|run| run.0 == body).any(|&(_, start, end)| {
        calls
            .iter()
            .any(|call| handle_of(&call.op) == Some(handle) && call.invoke < end && start < call.ret)
    })
}

/// Whether `is_finished` or `poll` on `handle` was called and returned
/// inside a run of `body`: the overlap that shows a handle claiming to be
/// finished before its result is there (the `finished_early` mutant),
/// which a call that merely overlaps the run's start or end cannot show.
#[allow(dead_code)] // tests/pool_linearizable.rs; not the shuttle driver
pub fn asked_while_running(calls: &[Call], runs: &[(usize, u64, u64)], handle: usize, body: usize) -> bool {
    runs.iter().filter(|run| run.0 == body).any(|&(_, start, end)| {
        calls.iter().any(|call| {
            matches!(call.op, Op::IsFinished { handle: h, .. } | Op::Poll { handle: h, .. } if h == handle)
                && start < call.invoke
                && call.ret < end
        })
    })
}
