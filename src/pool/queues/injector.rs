//! The queues for jobs submitted from outside the pool: one per NUMA node
//! that holds a worker (Q10 in `proofs/injector.md`), a single one on one
//! node.
//!
//! Each is a lock-free, allocation-free FIFO per submitter
//! (`lockfree/injector/queue.rs`, proof in `proofs/injector.md`): a job is its own
//! node, linked through its `JobHeader`. A submitter's push is one CAS and
//! never waits for a worker. A worker takes every queued job of a node in
//! one swap into that node's stage (V8, V9 in `proofs/priority.md`) and
//! runs the oldest; every thread then takes the stage's jobs one at a
//! time, oldest first. No submitter ever blocks on a worker here, so no
//! hand-off goes through the kernel. A submitter always names the same
//! node (Q10), so its jobs are all in one queue; a worker takes from its
//! own node's queue first, then from the others'.

use crate::lockfree::injector::Queue;
use crate::lockfree::JobRef;
use crate::lockfree::Worker;
use crate::sync::flags::bug;
use crossbeam_utils::CachePadded;

pub(crate) struct SubmitQueues {
    /// Node 0's queue: the only one of a one-node pool (and of a priority
    /// level's injector).
    queue: Queue<JobRef>,
    /// Nodes 1 and up (empty with one node), a line each: submitters and
    /// takers of different nodes do not share one.
    rest: Box<[CachePadded<Queue<JobRef>>]>,
}

impl SubmitQueues {
    /// One queue: a one-node pool's, or a priority level's.
    pub(crate) fn new() -> Self {
        SubmitQueues::with_nodes(1)
    }

    /// One queue per node, for `nodes` nodes (at least one) (Q10).
    pub(crate) fn with_nodes(nodes: usize) -> Self {
        SubmitQueues {
            queue: Queue::new(),
            rest: (1..nodes).map(|_| CachePadded::new(Queue::new())).collect(),
        }
    }

    /// How many nodes, so queues, there are.
    pub(crate) fn nodes(&self) -> usize {
        1 + self.rest.len()
    }

    /// Node `node`'s queue.
    fn node(&self, node: usize) -> &Queue<JobRef> {
        match node.checked_sub(1) {
            None => &self.queue,
            Some(rest) => &self.rest[rest],
        }
    }

    /// Every node's queue, node 0's first.
    fn queues(&self) -> impl Iterator<Item = &Queue<JobRef>> {
        std::iter::once(&self.queue).chain(self.rest.iter().map(|queue| &**queue))
    }

    /// Appends a job on node 0's queue: for a job that no submitter's
    /// order ties to a node (a job a wait hands back, H6/H7; a
    /// continuation, K3), and for a priority level's injector. Any worker
    /// finds it (Q10). The caller then announces it (`Sleep::new_work`,
    /// S3): the push's CAS (Q2) is the store the sleepers' final check
    /// reads (Q4).
    pub(crate) fn push(&self, job: JobRef) {
        self.queue.push(job);
    }

    /// Appends a job on the queue of the node `node()` names, called only
    /// with several nodes (Q10: each submitter always names the same node,
    /// so Q5 holds per submitter). The caller then announces it (S3), as
    /// for `push`.
    #[inline]
    pub(crate) fn push_to(&self, node: impl FnOnce() -> usize, job: JobRef) {
        if self.rest.is_empty() {
            return self.queue.push(job);
        }
        self.node(node()).push(job);
    }

    /// Whether no job is queued on any node (Q4: relaxed snapshots, the
    /// sleep protocol's `has_work`; Q10: it reads every node's queue).
    /// `--cfg stealpool_bug="nodes_unchecked"` reads node 0's only, the
    /// mistake Q10 rules out: a job on another node's queue is stranded
    /// while the workers sleep.
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty() && (bug!("nodes_unchecked") || self.rest.iter().all(|queue| queue.is_empty()))
    }

    /// Whether node `node`'s queue holds no job (a relaxed snapshot, Q4).
    pub(crate) fn node_is_empty(&self, node: usize) -> bool {
        self.node(node).is_empty()
    }

    /// Takes every job of node `node`'s queue: returns the oldest, and
    /// pushes the rest on `dest` oldest first (Q7), for `Normal`'s stage
    /// of that node (V8, V9).
    pub(crate) fn pop_batch_in_order_at(&self, node: usize, dest: &Worker<JobRef>) -> Option<JobRef> {
        self.node(node).pop_batch_in_order(|job| dest.push(job))
    }

    /// Takes every job of node `node`'s queue and pushes them on `dest`
    /// oldest first (Q7), behind the jobs it holds; whether there was any.
    pub(crate) fn append_in_order_at(&self, node: usize, dest: &Worker<JobRef>) -> bool {
        let mut moved = false;
        for job in self.node(node).take_all_oldest_first() {
            dest.push(job);
            moved = true;
        }
        moved
    }

    /// Takes every job queued on one node's queue, for a worker of node
    /// `own()` (called only with several nodes): its own node's first, then
    /// the others' in ring order after it (Q10: the layout holds no
    /// distances between nodes, so each other node is as near; starting
    /// after `own` spreads the nodes' first remote takes). Returns the
    /// oldest, and pushes the rest on `dest` newest first, so that its
    /// owner pops them oldest first (Q5) and thieves take the newest. The
    /// owner then announces them (S3).
    ///
    /// The whole queue, not a share per worker: taking it is one swap, and
    /// the other workers steal half of it at a time, so it spreads as fast
    /// as a share would, with no job left in a queue that only this worker
    /// knows it emptied.
    #[inline]
    pub(crate) fn pop_batch(&self, own: impl FnOnce() -> usize, dest: &Worker<JobRef>) -> Option<JobRef> {
        if self.rest.is_empty() {
            return self.queue.pop_batch(|job| dest.push(job));
        }
        let (own, nodes) = (own(), self.nodes());
        (own..nodes)
            .chain(0..own)
            .find_map(|node| self.node(node).pop_batch(|job| dest.push(job)))
    }

    /// Takes every queued job: returns the oldest, and pushes the rest on
    /// `dest` oldest first (Q7), for a queue taken from its oldest end (a
    /// level's shared stage, V8 in `proofs/priority.md`): they come out in
    /// the order they were pushed here, after the jobs `dest` already
    /// held. The caller then announces them (S3). With several nodes
    /// (Q10): the oldest of the first node's queue that holds any, then
    /// every node's jobs, each queue's oldest first: each submitter's jobs
    /// are in one queue, so they keep their order.
    pub(crate) fn pop_batch_in_order(&self, dest: &Worker<JobRef>) -> Option<JobRef> {
        if self.rest.is_empty() {
            return self.queue.pop_batch_in_order(|job| dest.push(job));
        }
        let job = self
            .queues()
            .find_map(|queue| queue.pop_batch_in_order(|job| dest.push(job)))?;
        self.append_in_order(dest);
        Some(job)
    }

    /// Takes every queued job and pushes them all on `dest` oldest first
    /// (Q7), behind the jobs it holds; whether there was any. For a level's
    /// stage that is not empty (V8): the caller then takes its oldest job,
    /// and announces the rest (S3). With several nodes, node by node, each
    /// queue's oldest first (Q10).
    pub(crate) fn append_in_order(&self, dest: &Worker<JobRef>) -> bool {
        let mut moved = false;
        for queue in self.queues() {
            for job in queue.take_all_oldest_first() {
                dest.push(job);
                moved = true;
            }
        }
        moved
    }
}
