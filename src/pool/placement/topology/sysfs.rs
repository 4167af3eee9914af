//! Reading the layout from sysfs: its list format, the nodes, and the CPUs
//! sharing each last-level cache.

use super::Topology;
use std::collections::BTreeSet;

/// CPU ids as sysfs writes them: `0-3,8,10-11`.
pub(super) fn format_list(cpus: &[usize]) -> String {
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
pub(super) fn parse_list(text: &str) -> Option<Vec<usize>> {
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
