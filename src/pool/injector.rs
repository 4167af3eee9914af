//! The global queue for jobs submitted from outside the pool.
//!
//! A lock-free, allocation-free FIFO per submitter (`injector_queue.rs`,
//! proof in `proofs/injector.md`): a job is its own node, linked through its
//! `JobHeader`. A submitter's push is one CAS and never waits for a worker;
//! a worker takes every queued job in one swap, runs the oldest, and moves
//! the rest to its own deque, where it pops them oldest first and the other
//! workers steal them in halves. No submitter and no worker ever blocks on
//! another here, so no hand-off goes through the kernel.

use super::injector_queue::Queue;
use super::job::JobRef;
use crate::deque::Worker;
use crossbeam_utils::CachePadded;

pub(crate) struct Injector {
    queue: Queue<JobRef>,
}

impl Injector {
    pub(crate) fn new() -> Self {
        Injector { queue: Queue::new() }
    }

    /// Appends a job. The caller then announces it (`Sleep::new_work`, S3):
    /// the push's CAS (Q2) is the store the sleepers' final check reads (Q4).
    pub(crate) fn push(&self, job: JobRef) {
        self.queue.push(job);
    }

    /// Whether no job is queued (Q4: a relaxed snapshot, the sleep
    /// protocol's `has_work`).
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Takes every queued job: returns the oldest, and pushes the rest on
    /// `dest` newest first, so that its owner pops them oldest first (Q5)
    /// and thieves take the newest. The owner then announces them (S3).
    ///
    /// The whole list, not a share per worker: taking it is one swap, and
    /// the other workers steal half of it at a time, so it spreads as fast
    /// as a share would, with no job left in a queue that only this worker
    /// knows it emptied.
    pub(crate) fn pop_batch(&self, dest: &Worker<JobRef>) -> Option<JobRef> {
        self.queue.pop_batch(|job| dest.push(job))
    }

    /// Takes every queued job: returns the oldest, and pushes the rest on
    /// `dest` oldest first (Q7), for a queue taken from its oldest end (a
    /// level's shared stage, V8 in `proofs/priority.md`): they come out in
    /// the order they were pushed here, after the jobs `dest` already
    /// held. The caller then announces them (S3).
    pub(crate) fn pop_batch_in_order(&self, dest: &Worker<JobRef>) -> Option<JobRef> {
        self.queue.pop_batch_in_order(|job| dest.push(job))
    }

    /// Takes every queued job and pushes them all on `dest` oldest first
    /// (Q7), behind the jobs it holds; whether there was any. For a level's
    /// stage that is not empty (V8): the caller then takes its oldest job,
    /// and announces the rest (S3).
    pub(crate) fn append_in_order(&self, dest: &Worker<JobRef>) -> bool {
        let mut moved = false;
        for job in self.queue.take_all_oldest_first() {
            dest.push(job);
            moved = true;
        }
        moved
    }
}

/// The pool's injectors: one per node that holds a worker (Q10 in
/// `proofs/injector.md`). A submission goes to one node's; a worker takes
/// from its own node's first, then from the others'. With one node this is
/// the single `Injector` of before, and every method takes its one-node
/// path first.
pub(crate) struct NodeInjectors {
    /// Node 0's injector: the only one of a one-node pool.
    first: Injector,
    /// Nodes 1 and up (empty with one node), a line each: submitters and
    /// takers of different nodes do not share one.
    rest: Box<[CachePadded<Injector>]>,
}

impl NodeInjectors {
    /// One injector per node, for `nodes` nodes (at least one).
    pub(crate) fn new(nodes: usize) -> Self {
        NodeInjectors {
            first: Injector::new(),
            rest: (1..nodes).map(|_| CachePadded::new(Injector::new())).collect(),
        }
    }

    /// How many nodes, so injectors, there are.
    pub(crate) fn nodes(&self) -> usize {
        1 + self.rest.len()
    }

    /// Node `node`'s injector.
    fn node(&self, node: usize) -> &Injector {
        match node.checked_sub(1) {
            None => &self.first,
            Some(rest) => &self.rest[rest],
        }
    }

    /// Appends a job on node 0's injector: for a job that no submitter's
    /// order ties to a node (a job a wait hands back, H6/H7; a
    /// continuation, K3). Any worker finds it (Q10).
    pub(crate) fn push(&self, job: JobRef) {
        self.first.push(job);
    }

    /// Appends a job on the injector of the node `node()` names, called
    /// only with several nodes (Q10: each submitter always names the same
    /// node, so Q5 holds per submitter). The caller then announces it (S3),
    /// as for `Injector::push`.
    #[inline]
    pub(crate) fn push_to(&self, node: impl FnOnce() -> usize, job: JobRef) {
        if self.rest.is_empty() {
            return self.first.push(job);
        }
        self.node(node()).push(job);
    }

    /// Whether every node's injector is empty (Q4 on each, Q10: the
    /// sleepers' `has_work` looks at all of them after S2).
    /// `--cfg stealpool_bug="nodes_unchecked"` looks at node 0's only, the
    /// mistake Q10 rules out: a job on another node's is stranded while
    /// the workers sleep.
    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_empty()
            && (cfg!(stealpool_bug = "nodes_unchecked") || self.rest.iter().all(|node| node.is_empty()))
    }

    /// A batch for a worker of node `own()`, called only with several nodes (Q10): from its own node's
    /// injector first, then from the others' in ring order after it (the
    /// layout holds no distances between nodes, so every other node is as
    /// near; starting after `own` spreads the nodes' first remote takes).
    /// As `Injector::pop_batch` otherwise.
    #[inline]
    pub(crate) fn pop_batch(&self, own: impl FnOnce() -> usize, dest: &Worker<JobRef>) -> Option<JobRef> {
        if self.rest.is_empty() {
            return self.first.pop_batch(dest);
        }
        let (own, nodes) = (own(), self.nodes());
        (own..nodes)
            .chain(0..own)
            .find_map(|node| self.node(node).pop_batch(dest))
    }
}
