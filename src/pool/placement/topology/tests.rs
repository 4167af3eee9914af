//! Discovery from sysfs-like fixtures, the constructors' errors, and the
//! victim rings: a permutation of the other workers, nearest first, with
//! every position of every ring reachable as the first victim (fairness).

use super::*;
use std::collections::HashMap;

/// A sysfs tree as `path → contents`, paths under `/sys/devices/system/`.
fn fixture(files: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let files: HashMap<String, String> = files
        .iter()
        .map(|(k, v)| (k.to_string(), format!("{v}\n")))
        .collect();
    move |path| files.get(path).cloned()
}

/// The cache files of `cpu`: private L1d, L1i and L2, and an L3 shared by
/// `l3`.
fn cpu_caches(cpu: usize, l3: &str) -> Vec<(String, String)> {
    let own = cpu.to_string();
    [
        ("0", "1", "Data", own.as_str()),
        ("1", "1", "Instruction", own.as_str()),
        ("2", "2", "Unified", own.as_str()),
        ("3", "3", "Unified", l3),
    ]
    .iter()
    .flat_map(|(index, level, kind, shared)| {
        let dir = format!("cpu/cpu{cpu}/cache/index{index}");
        [
            (format!("{dir}/level"), level.to_string()),
            (format!("{dir}/type"), kind.to_string()),
            (format!("{dir}/shared_cpu_list"), shared.to_string()),
        ]
    })
    .collect()
}

/// Two nodes of 8 CPUs, each node with two L3s of 4 CPUs; CPU ids
/// interleaved across nodes the way many BIOSes number them.
fn two_node_machine() -> Vec<(String, String)> {
    let mut files = vec![
        ("cpu/online".to_string(), "0-15".to_string()),
        ("node/online".to_string(), "0-1".to_string()),
        ("node/node0/cpulist".to_string(), "0,2,4,6,8,10,12,14".to_string()),
        ("node/node1/cpulist".to_string(), "1,3,5,7,9,11,13,15".to_string()),
    ];
    for cpu in 0..16 {
        let l3 = match (cpu % 2, cpu < 8) {
            (0, true) => "0,2,4,6",
            (0, false) => "8,10,12,14",
            (_, true) => "1,3,5,7",
            (_, false) => "9,11,13,15",
        };
        files.extend(cpu_caches(cpu, l3));
    }
    files
}

fn read_of(files: &[(String, String)]) -> impl Fn(&str) -> Option<String> {
    let pairs: Vec<(&str, &str)> = files.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    fixture(&pairs)
}

#[test]
fn parse_list_reads_sysfs_lists() {
    assert_eq!(parse_list("0-3,8,10-11\n"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
    assert_eq!(parse_list("5"), Some(vec![5]));
    assert_eq!(parse_list("\n"), Some(vec![]));
    assert_eq!(parse_list("3-1"), None);
    assert_eq!(parse_list("a-b"), None);
    assert_eq!(parse_list("1,,2"), None);
    assert_eq!(format_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
}

#[test]
fn sysfs_nodes_and_last_level_caches() {
    let files = two_node_machine();
    let layout = from_sysfs(&read_of(&files), None).unwrap();
    assert_eq!(
        layout.nodes(),
        [
            vec![vec![0, 2, 4, 6], vec![8, 10, 12, 14]],
            vec![vec![1, 3, 5, 7], vec![9, 11, 13, 15]],
        ]
    );
    assert_eq!(
        layout.to_string(),
        "node 0: [0,2,4,6] [8,10,12,14]\nnode 1: [1,3,5,7] [9,11,13,15]"
    );
}

#[test]
fn sysfs_keeps_only_online_allowed_cpus() {
    let mut files = two_node_machine();
    files[0].1 = "0-14".to_string(); // CPU 15 offline
    let allowed: Vec<usize> = (0..16).filter(|&cpu| cpu != 0 && cpu != 1 && cpu != 3).collect();
    let layout = from_sysfs(&read_of(&files), Some(&allowed)).unwrap();
    assert_eq!(
        layout.nodes(),
        [
            vec![vec![2, 4, 6], vec![8, 10, 12, 14]],
            vec![vec![5, 7], vec![9, 11, 13]]
        ]
    );
    // A node with no usable CPU disappears.
    let only_node1: Vec<usize> = vec![1, 3, 9];
    let layout = from_sysfs(&read_of(&files), Some(&only_node1)).unwrap();
    assert_eq!(layout.nodes(), [vec![vec![1, 3], vec![9]]]);
    // No usable CPU at all: no layout.
    assert_eq!(from_sysfs(&read_of(&files), Some(&[40])), None);
}

#[test]
fn sysfs_without_node_or_cache_files() {
    // No NUMA in the kernel, no cache information: one node, one cache.
    let read = fixture(&[("cpu/online", "0-3")]);
    assert_eq!(from_sysfs(&read, None).unwrap(), Topology::single_node(4));
    // Caches but no nodes: one node, grouped by L3.
    let mut files = vec![("cpu/online".to_string(), "0-3".to_string())];
    for cpu in 0..4 {
        files.extend(cpu_caches(cpu, if cpu < 2 { "0-1" } else { "2-3" }));
    }
    let layout = from_sysfs(&read_of(&files), None).unwrap();
    assert_eq!(layout.nodes(), [vec![vec![0, 1], vec![2, 3]]]);
}

#[test]
fn sysfs_cpus_outside_every_node_form_their_own() {
    let read = fixture(&[
        ("cpu/online", "0-5"),
        ("node/online", "0,2"),
        ("node/node0/cpulist", "0-1"),
        ("node/node2/cpulist", "2-3"),
    ]);
    let layout = from_sysfs(&read, None).unwrap();
    assert_eq!(
        layout.nodes(),
        [vec![vec![0, 1]], vec![vec![2, 3]], vec![vec![4, 5]]]
    );
}

#[test]
fn sysfs_highest_data_level_wins_and_instruction_caches_do_not_count() {
    // A level-4 cache shared by all four CPUs beats the L3s; an instruction cache
    // shared by all at a higher level is ignored.
    let mut files = vec![("cpu/online".to_string(), "0-3".to_string())];
    for cpu in 0..4 {
        files.extend(cpu_caches(cpu, if cpu < 2 { "0-1" } else { "2-3" }));
        files.push((format!("cpu/cpu{cpu}/cache/index4/level"), "5".to_string()));
        files.push((
            format!("cpu/cpu{cpu}/cache/index4/type"),
            "Instruction".to_string(),
        ));
        files.push((
            format!("cpu/cpu{cpu}/cache/index4/shared_cpu_list"),
            "0-3".to_string(),
        ));
    }
    let layout = from_sysfs(&read_of(&files), None).unwrap();
    assert_eq!(layout.nodes(), [vec![vec![0, 1], vec![2, 3]]]);
    for cpu in 0..4 {
        files.push((format!("cpu/cpu{cpu}/cache/index5/level"), "4".to_string()));
        files.push((format!("cpu/cpu{cpu}/cache/index5/type"), "Unified".to_string()));
        files.push((
            format!("cpu/cpu{cpu}/cache/index5/shared_cpu_list"),
            "0-3".to_string(),
        ));
    }
    let layout = from_sysfs(&read_of(&files), None).unwrap();
    assert_eq!(layout.nodes(), [vec![vec![0, 1, 2, 3]]]);
}

#[test]
fn sysfs_malformed_cpu_list_gives_no_layout() {
    assert_eq!(from_sysfs(&fixture(&[("cpu/online", "zero")]), None), None);
    assert_eq!(from_sysfs(&fixture(&[]), None), None);
}

/// The real machine: whatever it is, the result is a valid layout of CPUs
/// this process may run on.
#[test]
fn discover_on_this_machine_is_well_formed() {
    let layout = Topology::discover();
    assert!(layout.num_cpus() >= 1);
    assert_eq!(
        Topology::from_caches(layout.nodes().to_vec()).as_ref(),
        Ok(&layout)
    );
    if let Some(allowed) = affinity::allowed_cpus() {
        assert!(layout.cpus().all(|cpu| allowed.contains(&cpu)), "{layout}");
    }
}

#[test]
fn constructors_refuse_bad_layouts() {
    assert_eq!(Topology::from_caches(vec![]), Err(TopologyError::NoNodes));
    assert_eq!(
        Topology::from_caches(vec![vec![vec![0]], vec![]]),
        Err(TopologyError::EmptyNode { node: 1 })
    );
    assert_eq!(
        Topology::from_caches(vec![vec![vec![0], vec![]]]),
        Err(TopologyError::EmptyCache { node: 0, cache: 1 })
    );
    assert_eq!(
        Topology::from_caches(vec![vec![vec![0, 1]], vec![vec![2, 0]]]),
        Err(TopologyError::DuplicateCpu { cpu: 0 })
    );
    assert_eq!(Topology::uniform(0, 1, 1), Err(TopologyError::NoNodes));
    assert_eq!(
        Topology::uniform(1, 0, 1),
        Err(TopologyError::EmptyNode { node: 0 })
    );
    assert_eq!(
        Topology::uniform(1, 1, 0),
        Err(TopologyError::EmptyCache { node: 0, cache: 0 })
    );
    for error in [
        TopologyError::NoNodes,
        TopologyError::EmptyNode { node: 1 },
        TopologyError::EmptyCache { node: 0, cache: 1 },
        TopologyError::DuplicateCpu { cpu: 0 },
    ] {
        assert!(!error.to_string().is_empty());
    }
}

#[test]
fn workers_fill_cpus_in_node_major_order_and_wrap() {
    let layout = Topology::from_caches(vec![vec![vec![7, 3]], vec![vec![5], vec![1]]]).unwrap();
    let cpus: Vec<usize> = (0..9).map(|w| layout.worker_cpu(w)).collect();
    assert_eq!(cpus, [7, 3, 5, 1, 7, 3, 5, 1, 7]);
}

/// The (node, cache) of each worker, straight from the layout.
fn places(layout: &Topology, workers: usize) -> Vec<(usize, usize)> {
    (0..workers)
        .map(|w| {
            let (node, cache, _) = layout.place(w % layout.num_cpus());
            (node, cache)
        })
        .collect()
}

/// Every worker's rings hold every other worker exactly once, ring by ring
/// at the right distance, itself only in the first ring.
fn check_rings(layout: &Topology, workers: usize) {
    let placement = Placement::new(layout, workers, false);
    let places = places(layout, workers);
    for w in 0..workers {
        let mut seen = vec![0usize; workers];
        for (distance, ring) in placement.rings(w) {
            let members: Vec<usize> = ring.starting_at(0).collect();
            assert_eq!(members.len(), ring.len());
            for &v in &members {
                seen[v] += 1;
                let expected = if places[v].1 == places[w].1 {
                    Distance::SameCache
                } else if places[v].0 == places[w].0 {
                    Distance::SameNode
                } else {
                    Distance::Remote
                };
                assert_eq!(distance, expected, "worker {w}, victim {v}");
            }
            // Any start goes round the ring once.
            for start in 0..ring.len() {
                let mut rotated: Vec<usize> = ring.starting_at(start).collect();
                assert_eq!(rotated[0], members[start]);
                rotated.sort_unstable();
                let mut sorted = members.clone();
                sorted.sort_unstable();
                assert_eq!(rotated, sorted);
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "worker {w}: {seen:?}");
        assert_eq!(placement.cpu(w), layout.worker_cpu(w));
    }
}

#[test]
fn rings_are_a_permutation_nearest_first() {
    let four_by_four = Topology::uniform(4, 1, 4).unwrap();
    let two_caches = Topology::uniform(2, 2, 3).unwrap();
    let uneven = Topology::from_caches(vec![vec![vec![0, 1, 2], vec![3]], vec![vec![4]]]).unwrap();
    for layout in [&four_by_four, &two_caches, &uneven] {
        for workers in [
            1,
            2,
            3,
            layout.num_cpus() - 1,
            layout.num_cpus(),
            2 * layout.num_cpus() + 1,
        ] {
            check_rings(layout, workers);
        }
    }
}

#[test]
fn one_cache_is_the_uniform_order() {
    // As without a layout: one ring of every worker in index order (the
    // thief included, skipped by `steal`), the other rings empty.
    for layout in [
        Topology::single_node(1),
        Topology::single_node(8),
        Topology::discover(),
    ] {
        if layout.num_caches() != 1 {
            continue;
        }
        for workers in [1, 2, 5, 8, 20] {
            let placement = Placement::new(&layout, workers, false);
            for w in 0..workers {
                let [(_, first), (_, node), (_, rest)] = placement.rings(w);
                assert_eq!(
                    first.starting_at(0).collect::<Vec<_>>(),
                    (0..workers).collect::<Vec<_>>()
                );
                assert_eq!((node.len(), rest.len()), (0, 0));
            }
        }
    }
}

/// Fairness: with starts drawn as `steal` draws them (xorshift64*, modulo
/// the ring's length), every member of every ring comes first in some
/// round, about equally often, and is tried in every round.
#[test]
fn every_victim_comes_first_about_equally_often() {
    let layout = Topology::uniform(4, 2, 2).unwrap();
    let workers = layout.num_cpus();
    let placement = Placement::new(&layout, workers, false);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    const ROUNDS: usize = 20_000;
    for w in [0, 5, workers - 1] {
        let rings = placement.rings(w);
        let mut first: Vec<HashMap<usize, usize>> = vec![HashMap::new(); 3];
        for _ in 0..ROUNDS {
            let mut tried = Vec::new();
            for (r, (_, ring)) in rings.iter().enumerate() {
                if ring.len() == 0 {
                    continue;
                }
                let start = (next() % ring.len() as u64) as usize;
                let order: Vec<usize> = ring.starting_at(start).filter(|&v| v != w).collect();
                if let Some(&v) = order.first() {
                    *first[r].entry(v).or_default() += 1;
                }
                tried.extend(order);
            }
            // Every round tries every other worker, nearest rings first.
            let mut sorted = tried.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..workers).filter(|&v| v != w).collect::<Vec<_>>());
        }
        // Rings 1 and 2 do not hold the thief: each member starts a round
        // with probability 1/len. Within 20% of that over 20 000 rounds.
        for r in 1..3 {
            let len = rings[r].1.len();
            assert_eq!(first[r].len(), len, "ring {r} of worker {w}: {:?}", first[r]);
            let expected = ROUNDS as f64 / len as f64;
            for (&v, &n) in &first[r] {
                assert!(
                    (n as f64 - expected).abs() < 0.2 * expected,
                    "ring {r}, victim {v}: {n} vs {expected}"
                );
            }
        }
        // Ring 0 holds the thief and its one cache-mate: the mate is first
        // every round.
        assert_eq!(first[0].values().sum::<usize>(), ROUNDS);
    }
}

/// Q10: one injector per node holding a worker, numbered in the layout's
/// order; a CPU of a node without workers, and a CPU outside the layout,
/// map to a fixed injector among them.
#[test]
fn injectors_are_the_nodes_holding_workers() {
    let layout = Topology::from_caches(vec![vec![vec![4, 5]], vec![vec![0, 1]], vec![vec![2, 3]]]).unwrap();
    // Three workers: two on node 0 (CPUs 4, 5), one on node 1 (CPU 0).
    let placement = Placement::new(&layout, 3, false);
    assert_eq!(placement.nodes(), 2);
    assert_eq!((0..3).map(|w| placement.node(w)).collect::<Vec<_>>(), [0, 0, 1]);
    assert_eq!([4, 5, 0, 1].map(|cpu| placement.cpu_node(cpu)), [0, 0, 1, 1]);
    // Node 2 holds no worker: its CPUs go to injector 2 % 2 = 0.
    assert_eq!([2, 3].map(|cpu| placement.cpu_node(cpu)), [0, 0]);
    // CPU 7 is outside the layout: 7 % 2.
    assert_eq!(placement.cpu_node(7), 1);
    // Every node holds a worker once there are as many workers as CPUs.
    let full = Placement::new(&layout, 6, false);
    assert_eq!(full.nodes(), 3);
    assert_eq!([4, 0, 2].map(|cpu| full.cpu_node(cpu)), [0, 1, 2]);
    // One node: one injector, every CPU on it.
    let one = Placement::new(&Topology::single_node(2), 4, false);
    assert_eq!((one.nodes(), one.cpu_node(1), one.cpu_node(9)), (1, 0, 0));
}
