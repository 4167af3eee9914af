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

mod placement;
mod sysfs;

pub(crate) use placement::{Distance, Placement};
use sysfs::format_list;
pub(crate) use sysfs::from_sysfs;
#[cfg(test)]
use sysfs::parse_list;

#[cfg(test)]
mod tests;
