//! The machine's layout (NUMA nodes, and the CPUs sharing a last-level
//! cache), which CPU each worker runs on, and each worker's victim order.
//!
//! A thief tries its victims ring by ring: the workers sharing its cache,
//! then the rest of its node, then the other nodes, from a random place in
//! each ring, so nearby work is taken first and every worker is still tried
//! in every round (`proofs/topology.md`). Everything here is computed once
//! when the pool is built and only read afterwards: no atomics.

use super::affinity;
use std::collections::BTreeSet;
use std::{error, fmt};

/// A machine's layout: NUMA nodes, each a list of last-level caches, each a
/// list of the CPU ids that share it.
///
/// A pool uses it to place its workers and to order their victims (see
/// [`Builder::topology`](crate::Builder::topology)). Worker `i` belongs to
/// CPU [`worker_cpu(i)`](Topology::worker_cpu): the `i`-th CPU in
/// node-major order (node 0's first cache's CPUs, then its next cache's,
/// ..., then node 1's), wrapping around when there are more workers than
/// CPUs. So a pool smaller than the machine fills the first node first, and
/// workers that share a CPU share its cache and node.
///
/// ```
/// use stealpool::Topology;
///
/// // Two nodes, each with two caches of two CPUs.
/// let layout = Topology::from_caches(vec![
///     vec![vec![0, 1], vec![2, 3]],
///     vec![vec![4, 5], vec![6, 7]],
/// ])
/// .unwrap();
/// assert_eq!((layout.num_nodes(), layout.num_caches(), layout.num_cpus()), (2, 4, 8));
/// assert_eq!(layout.worker_cpu(5), 5);
/// assert_eq!(layout.worker_cpu(9), 1); // more workers than CPUs: wraps
/// assert_eq!(layout, Topology::uniform(2, 2, 2).unwrap());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Topology {
    /// Node → cache → CPU ids; no level empty, no CPU twice.
    nodes: Vec<Vec<Vec<usize>>>,
}

/// Why [`Topology::from_caches`] or [`Topology::uniform`] refused a layout.
///
/// ```
/// use stealpool::{Topology, TopologyError};
///
/// let error = Topology::from_caches(vec![vec![vec![0, 1]], vec![vec![1]]]).unwrap_err();
/// assert_eq!(error, TopologyError::DuplicateCpu { cpu: 1 });
/// assert!(error.to_string().contains("CPU 1"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TopologyError {
    /// The layout has no node at all.
    NoNodes,
    /// A node has no cache.
    EmptyNode {
        /// The node's position in the layout.
        node: usize,
    },
    /// A cache has no CPU.
    EmptyCache {
        /// The node's position in the layout.
        node: usize,
        /// The cache's position in its node.
        cache: usize,
    },
    /// A CPU id appears twice.
    DuplicateCpu {
        /// The repeated CPU id.
        cpu: usize,
    },
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TopologyError::NoNodes => write!(f, "a topology needs at least one node"),
            TopologyError::EmptyNode { node } => write!(f, "node {node} of the topology has no cache"),
            TopologyError::EmptyCache { node, cache } => {
                write!(f, "cache {cache} of node {node} of the topology has no CPU")
            }
            TopologyError::DuplicateCpu { cpu } => write!(f, "CPU {cpu} appears twice in the topology"),
        }
    }
}

impl error::Error for TopologyError {}

impl Topology {
    /// The layout of the machine this runs on, as far as this process may
    /// use it.
    ///
    /// On Linux: the online CPUs in the process's affinity mask, grouped by
    /// NUMA node (`/sys/devices/system/node`) and by the CPUs sharing their
    /// highest-level data or unified cache (`/sys/devices/system/cpu/cpuN/cache`).
    /// Elsewhere, or when sysfs cannot be read (a container without it,
    /// Miri, the model checkers): one node with one cache, holding the
    /// allowed CPUs, or CPUs `0..n` for the
    /// [`available_parallelism`](std::thread::available_parallelism) `n`.
    ///
    /// ```
    /// let layout = stealpool::Topology::discover();
    /// assert!(layout.num_cpus() >= 1);
    /// println!("{layout}");
    /// ```
    pub fn discover() -> Topology {
        // Only Linux has sysfs; Miri and the model checkers run no real
        // threads on real CPUs, so they get the fallback.
        let real_linux = cfg!(all(
            target_os = "linux",
            not(any(miri, feature = "loom", feature = "shuttle"))
        ));
        let read = |path: &str| {
            real_linux
                .then(|| std::fs::read_to_string(format!("/sys/devices/system/{path}")).ok())
                .flatten()
        };
        let allowed = affinity::allowed_cpus();
        if let Some(layout) = from_sysfs(&read, allowed.as_deref()) {
            return layout;
        }
        match allowed {
            Some(cpus) => Topology {
                nodes: vec![vec![cpus]],
            },
            None => Topology::single_node(std::thread::available_parallelism().map_or(1, |n| n.get())),
        }
    }

    /// One node with one cache holding CPUs `0..cpus` (at least one): the
    /// layout under which stealing is uniformly random, as in a pool built
    /// without a topology on a machine with one shared cache.
    ///
    /// ```
    /// let layout = stealpool::Topology::single_node(4);
    /// assert_eq!((layout.num_nodes(), layout.num_caches(), layout.num_cpus()), (1, 1, 4));
    /// assert_eq!(stealpool::Topology::single_node(0).num_cpus(), 1);
    /// ```
    pub fn single_node(cpus: usize) -> Topology {
        Topology {
            nodes: vec![vec![(0..cpus.max(1)).collect()]],
        }
    }

    /// `nodes` nodes of `caches_per_node` caches of `cpus_per_cache` CPUs,
    /// numbered from 0 in node-major order: the shape of most machines, and
    /// the easy way to describe one a test does not run on.
    ///
    /// # Errors
    ///
    /// [`TopologyError`] if any count is zero.
    ///
    /// ```
    /// // A 4-node machine with 16 CPUs per node, one L3 per node.
    /// let layout = stealpool::Topology::uniform(4, 1, 16).unwrap();
    /// assert_eq!(layout.num_cpus(), 64);
    /// assert_eq!(layout.nodes()[1][0][0], 16);
    /// assert!(stealpool::Topology::uniform(4, 0, 16).is_err());
    /// ```
    pub fn uniform(
        nodes: usize,
        caches_per_node: usize,
        cpus_per_cache: usize,
    ) -> Result<Topology, TopologyError> {
        let mut next = 0..;
        let layout = (0..nodes)
            .map(|_| {
                (0..caches_per_node)
                    .map(|_| next.by_ref().take(cpus_per_cache).collect())
                    .collect()
            })
            .collect();
        Topology::from_caches(layout)
    }

    /// The layout `nodes[n][c]` = the CPU ids sharing cache `c` of node `n`.
    ///
    /// # Errors
    ///
    /// [`TopologyError`] if there is no node, a node has no cache, a cache
    /// has no CPU, or a CPU id appears twice.
    ///
    /// ```
    /// use stealpool::{Topology, TopologyError};
    ///
    /// let layout = Topology::from_caches(vec![vec![vec![0, 2], vec![1, 3]]]).unwrap();
    /// assert_eq!(layout.cpus().collect::<Vec<_>>(), [0, 2, 1, 3]);
    /// assert_eq!(Topology::from_caches(vec![]), Err(TopologyError::NoNodes));
    /// assert_eq!(
    ///     Topology::from_caches(vec![vec![vec![0]], vec![]]),
    ///     Err(TopologyError::EmptyNode { node: 1 })
    /// );
    /// ```
    pub fn from_caches(nodes: Vec<Vec<Vec<usize>>>) -> Result<Topology, TopologyError> {
        if nodes.is_empty() {
            return Err(TopologyError::NoNodes);
        }
        let mut seen = BTreeSet::new();
        for (n, node) in nodes.iter().enumerate() {
            if node.is_empty() {
                return Err(TopologyError::EmptyNode { node: n });
            }
            for (c, cache) in node.iter().enumerate() {
                if cache.is_empty() {
                    return Err(TopologyError::EmptyCache { node: n, cache: c });
                }
                for &cpu in cache {
                    if !seen.insert(cpu) {
                        return Err(TopologyError::DuplicateCpu { cpu });
                    }
                }
            }
        }
        Ok(Topology { nodes })
    }

    /// The layout: node → cache → CPU ids.
    ///
    /// ```
    /// let layout = stealpool::Topology::uniform(2, 1, 2).unwrap();
    /// assert_eq!(layout.nodes(), [vec![vec![0, 1]], vec![vec![2, 3]]]);
    /// ```
    pub fn nodes(&self) -> &[Vec<Vec<usize>>] {
        &self.nodes
    }

    /// The number of NUMA nodes.
    ///
    /// ```
    /// assert_eq!(stealpool::Topology::uniform(3, 2, 2).unwrap().num_nodes(), 3);
    /// ```
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// The number of last-level caches, over all nodes.
    ///
    /// ```
    /// assert_eq!(stealpool::Topology::uniform(3, 2, 2).unwrap().num_caches(), 6);
    /// ```
    pub fn num_caches(&self) -> usize {
        self.nodes.iter().map(Vec::len).sum()
    }

    /// The number of CPUs.
    ///
    /// ```
    /// assert_eq!(stealpool::Topology::uniform(3, 2, 2).unwrap().num_cpus(), 12);
    /// ```
    pub fn num_cpus(&self) -> usize {
        self.nodes.iter().flatten().map(Vec::len).sum()
    }

    /// Every CPU id, in node-major order: the order workers are placed in.
    ///
    /// ```
    /// let layout = stealpool::Topology::from_caches(vec![vec![vec![3]], vec![vec![1, 2]]]).unwrap();
    /// assert_eq!(layout.cpus().collect::<Vec<_>>(), [3, 1, 2]);
    /// ```
    pub fn cpus(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes.iter().flatten().flatten().copied()
    }

    /// The CPU of worker `worker`: the `worker`-th CPU in node-major order,
    /// modulo the number of CPUs. [`Builder::pin_workers`](crate::Builder::pin_workers)
    /// pins the worker there.
    ///
    /// ```
    /// let layout = stealpool::Topology::uniform(2, 1, 2).unwrap();
    /// let cpus: Vec<usize> = (0..6).map(|w| layout.worker_cpu(w)).collect();
    /// assert_eq!(cpus, [0, 1, 2, 3, 0, 1]);
    /// ```
    pub fn worker_cpu(&self, worker: usize) -> usize {
        self.place(worker % self.num_cpus()).2
    }

    /// The `(node, global cache index, CPU)` of the `k`-th CPU in
    /// node-major order, `k < num_cpus()`.
    fn place(&self, mut k: usize) -> (usize, usize, usize) {
        let mut cache_index = 0;
        for (n, node) in self.nodes.iter().enumerate() {
            for cache in node {
                if k < cache.len() {
                    return (n, cache_index, cache[k]);
                }
                k -= cache.len();
                cache_index += 1;
            }
        }
        unreachable!("a CPU position beyond the layout")
    }
}

impl fmt::Display for Topology {
    /// One line per node: `node 0: [0-1] [2-3]`, a bracket per cache.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, node) in self.nodes.iter().enumerate() {
            if n > 0 {
                writeln!(f)?;
            }
            write!(f, "node {n}:")?;
            for cache in node {
                write!(f, " [{}]", format_list(cache))?;
            }
        }
        Ok(())
    }
}

/// The layout a pool uses when none is given: [`Topology::discover`], read
/// once per process on real threads, since a large machine has thousands of
/// sysfs files to read and pools may be built often. Later changes (CPUs
/// taken offline, a new affinity mask) need an explicit
/// `Builder::topology(Topology::discover())`.
pub(crate) fn discovered() -> Topology {
    #[cfg(not(any(miri, feature = "loom", feature = "shuttle")))]
    {
        static DISCOVERED: std::sync::OnceLock<Topology> = std::sync::OnceLock::new();
        DISCOVERED.get_or_init(Topology::discover).clone()
    }
    // Nothing to read there, and no `std` synchronization under the model
    // checkers: discover afresh.
    #[cfg(any(miri, feature = "loom", feature = "shuttle"))]
    Topology::discover()
}

/// CPU ids as sysfs writes them: `0-3,8,10-11`.
fn format_list(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", cpus[i], cpus[j])
        } else {
            cpus[i].to_string()
        });
        i = j + 1;
    }
    parts.join(",")
}

/// Parses sysfs's list format (`0-3,8,10-11`, possibly empty); `None` if
/// malformed.
fn parse_list(text: &str) -> Option<Vec<usize>> {
    let text = text.trim();
    if text.is_empty() {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    for part in text.split(',') {
        match part.split_once('-') {
            Some((low, high)) => {
                let (low, high): (usize, usize) = (low.trim().parse().ok()?, high.trim().parse().ok()?);
                if low > high {
                    return None;
                }
                out.extend(low..=high);
            }
            None => out.push(part.trim().parse().ok()?),
        }
    }
    Some(out)
}

/// Caches listed per CPU in sysfs (`index0`, `index1`, ...) read at most;
/// real CPUs have four or five.
const MAX_CACHE_INDICES: usize = 16;

/// The layout described by a sysfs tree, read through `read(path)` with
/// paths under `/sys/devices/system/` (`cpu/online`, `node/online`,
/// `node/node0/cpulist`, `cpu/cpu0/cache/index3/shared_cpu_list`, ...),
/// restricted to `allowed` CPUs when known. `None` when the CPU list cannot
/// be read or no usable CPU is left. Missing node files mean one node;
/// missing cache files mean one cache per node; online CPUs in no node
/// form a node of their own.
pub(crate) fn from_sysfs(
    read: &dyn Fn(&str) -> Option<String>,
    allowed: Option<&[usize]>,
) -> Option<Topology> {
    let allowed: Option<BTreeSet<usize>> = allowed.map(|cpus| cpus.iter().copied().collect());
    let usable: BTreeSet<usize> = parse_list(&read("cpu/online")?)?
        .into_iter()
        .filter(|cpu| allowed.as_ref().is_none_or(|allowed| allowed.contains(cpu)))
        .collect();
    if usable.is_empty() {
        return None;
    }
    // Node → its usable CPUs, ascending, each CPU in one node only.
    let mut assigned = BTreeSet::new();
    let mut node_cpus: Vec<Vec<usize>> = Vec::new();
    if let Some(ids) = read("node/online").and_then(|text| parse_list(&text)) {
        for id in ids {
            let listed = read(&format!("node/node{id}/cpulist"))
                .and_then(|text| parse_list(&text))
                .unwrap_or_default();
            let cpus: BTreeSet<usize> = listed
                .into_iter()
                .filter(|cpu| usable.contains(cpu) && !assigned.contains(cpu))
                .collect();
            assigned.extend(cpus.iter().copied());
            if !cpus.is_empty() {
                node_cpus.push(cpus.into_iter().collect());
            }
        }
    }
    let rest: Vec<usize> = usable.difference(&assigned).copied().collect();
    if !rest.is_empty() {
        node_cpus.push(rest);
    }
    let nodes = node_cpus
        .into_iter()
        .map(|cpus| {
            // Caches in the order of their lowest CPU; CPUs without cache
            // information share one group.
            let mut caches: Vec<(Option<Vec<usize>>, Vec<usize>)> = Vec::new();
            for cpu in cpus {
                let key = last_level_cache(read, cpu);
                match caches.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, members)) => members.push(cpu),
                    None => caches.push((key, vec![cpu])),
                }
            }
            caches.into_iter().map(|(_, members)| members).collect()
        })
        .collect();
    Topology::from_caches(nodes).ok()
}

/// The CPUs sharing `cpu`'s highest-level data or unified cache, as sysfs
/// lists them; `None` without cache information.
fn last_level_cache(read: &dyn Fn(&str) -> Option<String>, cpu: usize) -> Option<Vec<usize>> {
    let mut best: Option<(u32, Vec<usize>)> = None;
    for index in 0..MAX_CACHE_INDICES {
        let dir = format!("cpu/cpu{cpu}/cache/index{index}");
        let Some(level) = read(&format!("{dir}/level")) else {
            break;
        };
        let Ok(level) = level.trim().parse::<u32>() else {
            continue;
        };
        if read(&format!("{dir}/type")).is_some_and(|kind| kind.trim() == "Instruction") {
            continue;
        }
        let Some(shared) = read(&format!("{dir}/shared_cpu_list")).and_then(|text| parse_list(&text)) else {
            continue;
        };
        if best.as_ref().is_none_or(|(best_level, _)| level > *best_level) {
            best = Some((level, shared));
        }
    }
    best.map(|(_, shared)| shared)
}

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
        Placement {
            pin,
            cpus: places.iter().map(|p| p.2).collect(),
            order: order.into(),
            spans: spans.into(),
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

#[cfg(test)]
mod tests;
