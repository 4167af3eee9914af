//! Topology and pinning on real threads: explicit layouts larger than this
//! machine, pinning that works or is reported, steal counts by distance.

#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::thread;
use stealpool::{current_thread_index, ThreadPool, Topology};

/// Runs one task on every worker at once: `workers` tasks that each wait
/// for all the others at a barrier can only finish if each holds a thread
/// of its own. Returns what `f` gave on each worker, by worker index.
///
/// A spare thread that an earlier wait started (`block_in_place`'s, H4)
/// may still be searching and take one of the tasks (it answers one of
/// the workers' indices, but is not that worker), so a worker then runs
/// none. The round is run again until every task ran on a worker; a spare
/// retires after its keep-alive, so this ends.
fn on_every_worker<T: Send + 'static>(
    pool: &ThreadPool,
    f: impl Fn() -> T + Send + Sync + 'static,
) -> Vec<T> {
    const MAX_ROUNDS: usize = 1_000;
    let workers = pool.num_workers();
    let f = Arc::new(f);
    for _ in 0..MAX_ROUNDS {
        let barrier = Arc::new(Barrier::new(workers));
        let results = Arc::new(Mutex::new(std::collections::HashMap::new()));
        for _ in 0..workers {
            let (barrier, f, results) = (barrier.clone(), f.clone(), results.clone());
            pool.spawn(move || {
                let index = current_thread_index().unwrap();
                let on_spare = thread::current()
                    .name()
                    .is_some_and(|name| name.starts_with("stealpool-spare-"));
                let value = f();
                results
                    .lock()
                    .unwrap()
                    .insert(thread::current().id(), (on_spare, index, value));
                barrier.wait();
            });
        }
        pool.wait_all();
        let results = std::mem::take(&mut *results.lock().unwrap());
        assert_eq!(results.len(), workers, "two tasks ran on one thread at once");
        if results.values().all(|&(on_spare, _, _)| !on_spare) {
            let mut by_index: Vec<_> = results
                .into_values()
                .map(|(_, index, value)| (index, value))
                .collect();
            by_index.sort_by_key(|&(index, _)| index);
            return by_index.into_iter().map(|(_, value)| value).collect();
        }
    }
    panic!("a spare thread took one of the tasks in each of {MAX_ROUNDS} rounds");
}

/// The CPUs the calling thread may run on.
#[cfg(target_os = "linux")]
fn affinity() -> Vec<usize> {
    // SAFETY: `sched_getaffinity` writes only the set we pass.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
            0
        );
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| libc::CPU_ISSET(cpu, &set))
            .collect()
    }
}

/// Spawns a tree of `2^(depth+1) - 1` tasks from inside the pool, counting
/// each run.
fn spawn_tree(pool: &ThreadPool, depth: u32) -> usize {
    let ran = AtomicUsize::new(0);
    fn node<'s>(s: &stealpool::Scope<'s>, ran: &'s AtomicUsize, depth: u32) {
        ran.fetch_add(1, Ordering::Relaxed);
        if depth > 0 {
            s.spawn(move |s| node(s, ran, depth - 1));
            s.spawn(move |s| node(s, ran, depth - 1));
        }
    }
    pool.scope(|s| s.spawn(|s| node(s, &ran, depth)));
    ran.into_inner()
}

#[test]
fn pinning_to_the_discovered_layout_pins_or_reports() {
    let layout = Topology::discover();
    let workers = layout.num_cpus().min(4);
    let pool = ThreadPool::builder()
        .num_threads(workers)
        .pin_workers(true)
        .build()
        .unwrap();
    #[cfg(target_os = "linux")]
    {
        let masks = on_every_worker(&pool, affinity);
        let stats = pool.stats();
        for (worker, mask) in masks.iter().enumerate() {
            let failed = stats.per_worker[worker].pin_failures;
            assert!(failed <= 1);
            if failed == 0 {
                assert_eq!(mask, &[layout.worker_cpu(worker)], "worker {worker}");
            } else {
                eprintln!("worker {worker} could not be pinned here; it runs on {mask:?}");
            }
        }
    }
    assert_eq!(spawn_tree(&pool, 8), 511);
}

#[test]
fn pinning_to_cpus_that_do_not_exist_is_counted_not_fatal() {
    // CPUs 4000.. exist on no machine this runs on (and exceed `cpu_set_t`).
    let layout = Topology::from_caches(vec![vec![(4000..4003).collect()]]).unwrap();
    let pool = ThreadPool::builder()
        .topology(layout)
        .pin_workers(true)
        .build()
        .unwrap();
    assert_eq!(pool.num_workers(), 3);
    assert_eq!(spawn_tree(&pool, 8), 511);
    // Each worker counts its failure as it starts: once each has run a
    // task, all have started.
    on_every_worker(&pool, || ());
    let stats = pool.stats();
    assert_eq!(stats.pin_failures, 3);
    assert!(stats.per_worker.iter().all(|w| w.pin_failures == 1));
}

#[test]
fn unpinned_workers_report_no_failures() {
    let pool = ThreadPool::builder()
        .topology(Topology::from_caches(vec![vec![vec![4000]]]).unwrap())
        .num_threads(2)
        .build()
        .unwrap();
    assert_eq!(spawn_tree(&pool, 6), 127);
    on_every_worker(&pool, || ());
    assert_eq!(pool.stats().pin_failures, 0);
}

#[test]
fn explicit_layout_larger_than_the_machine() {
    // 4 nodes × 16 CPUs: 64 workers on however few cores this has.
    let layout = Topology::uniform(4, 1, 16).unwrap();
    let pool = ThreadPool::builder().topology(layout.clone()).build().unwrap();
    assert_eq!(pool.num_workers(), 64);
    for _ in 0..5 {
        assert_eq!(spawn_tree(&pool, 10), 2047);
    }
    // Spawns only (no `join`): every successful steal is counted at a
    // distance.
    let stats = pool.stats();
    assert_eq!(
        stats.steals_same_cache + stats.steals_same_node + stats.steals_remote,
        stats.successful_steals,
        "{stats:?}"
    );
    // One cache per node: nothing is "same node, other cache".
    assert_eq!(stats.steals_same_node, 0);
    for (worker, w) in stats.per_worker.iter().enumerate() {
        assert_eq!(
            w.steals_same_cache + w.steals_same_node + w.steals_remote,
            w.successful_steals,
            "worker {worker}"
        );
    }
    eprintln!(
        "4x16 layout on this machine: steals same cache {}, same node {}, remote {} (of {})",
        stats.steals_same_cache, stats.steals_same_node, stats.steals_remote, stats.successful_steals
    );
}

#[test]
fn more_workers_than_cpus_wrap_around_the_layout() {
    let layout = Topology::uniform(2, 2, 1).unwrap();
    let pool = ThreadPool::builder()
        .topology(layout)
        .num_threads(10)
        .build()
        .unwrap();
    assert_eq!(pool.num_workers(), 10);
    assert_eq!(spawn_tree(&pool, 9), 1023);
    let indices = on_every_worker(&pool, || current_thread_index().unwrap());
    assert_eq!(indices, (0..10).collect::<Vec<_>>());
    // Joins too: halves may be stolen at any distance; every call runs once.
    fn fib(pool: &ThreadPool, n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let (a, b) = pool.join(|| fib(pool, n - 1), || fib(pool, n - 2));
        a + b
    }
    assert_eq!(pool.install(|| fib(&pool, 20)), 6765);
    let stats = pool.stats();
    assert!(
        stats.steals_same_cache + stats.steals_same_node + stats.steals_remote == stats.successful_steals
    );
}

#[test]
fn one_cache_counts_every_steal_as_same_cache() {
    let pool = ThreadPool::builder()
        .topology(Topology::single_node(4))
        .build()
        .unwrap();
    assert_eq!(pool.num_workers(), 4);
    for _ in 0..5 {
        assert_eq!(spawn_tree(&pool, 10), 2047);
    }
    let stats = pool.stats();
    assert_eq!(stats.steals_same_cache, stats.successful_steals);
    assert_eq!(stats.steals_same_node + stats.steals_remote, 0);
}

#[test]
fn the_default_pool_uses_the_discovered_layout() {
    // Whatever the machine, a default pool builds, runs, and counts its
    // steals at some distance.
    let pool = ThreadPool::new(0);
    assert_eq!(spawn_tree(&pool, 10), 2047);
    let stats = pool.stats();
    assert_eq!(
        stats.steals_same_cache + stats.steals_same_node + stats.steals_remote,
        stats.successful_steals
    );
    let layout = Topology::discover();
    eprintln!("this machine:\n{layout}");
    if layout.num_caches() == 1 {
        assert_eq!(stats.steals_same_cache, stats.successful_steals);
    }
}

/// `Topology::discover` reads the process's CPUs, not the calling
/// thread's: on a worker pinned to one CPU it finds the same layout as
/// outside. (It read the caller's mask, and the first default pool built
/// on a pinned worker fixed a one-CPU layout for the whole process.)
#[cfg(target_os = "linux")]
#[test]
fn discovery_on_a_pinned_worker_sees_the_whole_process() {
    let outside = Topology::discover();
    let pool = ThreadPool::builder()
        .topology(outside.clone())
        .pin_workers(true)
        .build()
        .unwrap();
    if pool.stats().pin_failures > 0 {
        return; // this machine refuses pinning: nothing narrowed the mask
    }
    let inside = on_every_worker(&pool, Topology::discover);
    for (worker, layout) in inside.iter().enumerate() {
        assert_eq!(
            layout, &outside,
            "worker {worker}: discovery followed its pinned mask"
        );
    }
}

/// A spare thread started by a pinned worker runs on every CPU of the
/// process, not on that worker's one (threads inherit their parent's mask).
#[cfg(target_os = "linux")]
#[test]
fn spares_of_a_pinned_pool_are_not_pinned() {
    let process = affinity();
    let layout = Topology::discover();
    if layout.num_cpus() < 2 || process.len() < 2 {
        return; // one CPU: pinned or not is the same mask
    }
    // One worker, pinned to the layout's first CPU.
    let pool = ThreadPool::builder()
        .num_threads(1)
        .topology(layout)
        .pin_workers(true)
        .build()
        .unwrap();
    if pool.stats().pin_failures > 0 {
        return;
    }
    // The worker blocks in `block_in_place` until the probe has run, so
    // only a spare, started by the pinned worker, can run the probe.
    let entered = Arc::new(AtomicUsize::new(0));
    let gate = Arc::new(Barrier::new(2));
    let (inside, blocker_gate) = (entered.clone(), gate.clone());
    pool.spawn(move || {
        stealpool::block_in_place(|| {
            inside.fetch_add(1, Ordering::SeqCst);
            blocker_gate.wait();
        })
    });
    let start = std::time::Instant::now();
    while entered.load(Ordering::SeqCst) == 0 {
        assert!(start.elapsed().as_secs() < 30, "the worker never blocked");
        std::thread::yield_now();
    }
    let probe = pool.submit(|| (thread::current().name().map(str::to_owned), affinity()));
    let (name, mask) = probe.join().unwrap();
    gate.wait();
    pool.wait_all();
    assert!(
        name.unwrap().starts_with("stealpool-spare-"),
        "the probe ran on the blocked worker"
    );
    assert_eq!(mask, process, "a spare kept its pinned parent's CPU");
}
