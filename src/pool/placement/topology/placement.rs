//! The pool's placement of its workers on a [`Topology`]: each worker's CPU
//! and its victim rings, nearest first (`proofs/topology.md`).

use super::Topology;

/// How far a victim is from its thief: the ring it was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Distance {
    /// Shares the thief's last-level cache.
    SameCache,
    /// Shares the thief's node, not its cache.
    SameNode,
    /// On another node.
    Remote,
}

/// The distances of the three rings, nearest first.
const RINGS: [Distance; 3] = [Distance::SameCache, Distance::SameNode, Distance::Remote];

/// The pool's placement of its workers: their CPUs, whether to pin them,
/// and their victim rings. Built once, read-only afterwards.
pub(crate) struct Placement {
    /// Pin each worker to its CPU when it starts.
    pin: bool,
    /// `cpus[w]`: worker `w`'s CPU.
    cpus: Box<[usize]>,
    /// Every worker, sorted by (node, cache, index): each cache's workers
    /// and each node's workers are a contiguous span of it.
    order: Box<[usize]>,
    /// `spans[w]`: worker `w`'s cache span and node span in `order`.
    spans: Box<[Spans]>,
    /// `worker_node[w]`: the injector of worker `w`'s node (Q10): the
    /// nodes that hold a worker, numbered from 0 in the layout's order.
    worker_node: Box<[usize]>,
    /// `cpu_node[c]`: the injector a thread on CPU `c` submits to (Q10):
    /// its node's, or for a node without a worker, a fixed one.
    cpu_node: Box<[usize]>,
    /// How many nodes hold a worker: the number of injectors.
    nodes: usize,
}

/// A worker's cache span `cache.0..cache.1` inside its node span
/// `node.0..node.1`, positions in `Placement::order`.
#[derive(Clone, Copy)]
struct Spans {
    cache: (usize, usize),
    node: (usize, usize),
}

/// One ring: `base` with `base[gap.0..gap.1]` left out, seen as a cycle.
#[derive(Clone, Copy)]
pub(crate) struct Ring<'a> {
    base: &'a [usize],
    gap: (usize, usize),
}

impl<'a> Ring<'a> {
    /// The number of workers in the ring.
    pub(crate) fn len(&self) -> usize {
        self.base.len() - (self.gap.1 - self.gap.0)
    }

    /// The ring's workers, starting at position `start < len()` and going
    /// round once.
    pub(crate) fn starting_at(self, start: usize) -> impl Iterator<Item = usize> + 'a {
        let (gap_start, gap_len) = (self.gap.0, self.gap.1 - self.gap.0);
        let base = self.base;
        (start..self.len())
            .chain(0..start)
            .map(move |i| base[if i < gap_start { i } else { i + gap_len }])
    }
}

impl Placement {
    /// Places `workers` workers on `topology` (worker `w` on
    /// `topology.worker_cpu(w)`).
    pub(crate) fn new(topology: &Topology, workers: usize, pin: bool) -> Placement {
        let cpus_total = topology.num_cpus();
        // (node, global cache) of each worker, and its CPU.
        let places: Vec<(usize, usize, usize)> =
            (0..workers).map(|w| topology.place(w % cpus_total)).collect();
        let mut order: Vec<usize> = (0..workers).collect();
        order.sort_by_key(|&w| (places[w].0, places[w].1, w));
        // The runs of equal keys in `order`, found in one pass (a pool may
        // have tens of thousands of workers).
        let runs = |key: &dyn Fn(usize) -> usize| {
            let mut run_of = vec![(0, 0); workers];
            let mut start = 0;
            for end in 1..=workers {
                if end == workers || key(order[end]) != key(order[start]) {
                    for &w in &order[start..end] {
                        run_of[w] = (start, end);
                    }
                    start = end;
                }
            }
            run_of
        };
        let caches = runs(&|w| places[w].1);
        let nodes = runs(&|w| places[w].0);
        let spans: Vec<Spans> = (0..workers)
            .map(|w| Spans {
                cache: caches[w],
                node: nodes[w],
            })
            .collect();
        // The nodes holding a worker, numbered in the layout's order; a
        // node without one sends its CPUs' submissions to a fixed one.
        let mut held = vec![false; topology.num_nodes()];
        for place in &places {
            held[place.0] = true;
        }
        let nodes = held.iter().filter(|&&held| held).count().max(1);
        let mut next = 0;
        let injector_of: Vec<usize> = held
            .iter()
            .enumerate()
            .map(|(node, &held)| {
                if held {
                    next += 1;
                    next - 1
                } else {
                    node % nodes
                }
            })
            .collect();
        let max_cpu = topology.cpus().max().unwrap_or(0);
        let mut cpu_node = vec![0; max_cpu + 1];
        for (node, caches) in topology.nodes().iter().enumerate() {
            for &cpu in caches.iter().flatten() {
                cpu_node[cpu] = injector_of[node];
            }
        }
        Placement {
            pin,
            cpus: places.iter().map(|p| p.2).collect(),
            order: order.into(),
            spans: spans.into(),
            worker_node: places.iter().map(|p| injector_of[p.0]).collect(),
            cpu_node: cpu_node.into(),
            nodes,
        }
    }

    /// How many nodes hold a worker: the pool's injectors (Q10).
    pub(crate) fn nodes(&self) -> usize {
        self.nodes
    }

    /// The injector of worker `worker`'s node (Q10).
    pub(crate) fn node(&self, worker: usize) -> usize {
        self.worker_node[worker]
    }

    /// The injector a thread standing for CPU `cpu` submits to (Q10): its
    /// node's; a CPU outside the layout, a fixed one of them.
    pub(crate) fn cpu_node(&self, cpu: usize) -> usize {
        match self.cpu_node.get(cpu) {
            Some(&node) => node,
            None => cpu % self.nodes,
        }
    }

    /// Whether workers pin themselves to their CPUs.
    pub(crate) fn pin(&self) -> bool {
        self.pin
    }

    /// Worker `worker`'s CPU.
    pub(crate) fn cpu(&self, worker: usize) -> usize {
        self.cpus[worker]
    }

    /// How far `victim` is from `thief`: the ring of `thief`'s it is in.
    pub(crate) fn distance(&self, thief: usize, victim: usize) -> Distance {
        let (thief, victim) = (self.spans[thief], self.spans[victim]);
        if thief.cache == victim.cache {
            Distance::SameCache
        } else if thief.node == victim.node {
            Distance::SameNode
        } else {
            Distance::Remote
        }
    }

    /// Worker `worker`'s victim rings, nearest first, with their distances:
    /// its cache's workers (itself included, for the caller to skip: with
    /// one cache for the whole pool this ring is every worker in index
    /// order, the uniform order of a pool without a layout), the rest of
    /// its node, the other nodes. Rings may be empty.
    pub(crate) fn rings(&self, worker: usize) -> [(Distance, Ring<'_>); 3] {
        let Spans { cache, node } = self.spans[worker];
        let order = &self.order[..];
        let rings = [
            Ring {
                base: &order[cache.0..cache.1],
                gap: (0, 0),
            },
            Ring {
                base: &order[node.0..node.1],
                gap: (cache.0 - node.0, cache.1 - node.0),
            },
            Ring {
                base: order,
                gap: node,
            },
        ];
        [(RINGS[0], rings[0]), (RINGS[1], rings[1]), (RINGS[2], rings[2])]
    }
}
