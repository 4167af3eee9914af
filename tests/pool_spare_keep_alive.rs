//! A spare thread of `block_in_place` that has had nothing to stand in for
//! during its keep-alive (10 s) exits, and the pool still brings a spare
//! in afterwards. Alone in its test binary: it counts the process's spare
//! threads by name, which other tests' pools would disturb.
#![cfg(all(
    target_os = "linux",
    not(miri),
    not(any(feature = "loom", feature = "shuttle"))
))]

use std::sync::mpsc;
use std::time::{Duration, Instant};
use stealpool::{block_in_place, ThreadPool};

/// Threads of this process whose name starts as the pool names spares
/// (`/proc` keeps the first 15 bytes of a name).
fn spare_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("stealpool-spare"))
        .count()
}

/// Waits up to `limit` for `done`, polling.
fn eventually(limit: Duration, done: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

#[test]
fn an_idle_spare_exits_after_its_keep_alive_and_a_new_one_comes_when_needed() {
    let pool = ThreadPool::builder()
        .num_threads(1)
        .max_blocking_threads(1)
        .build()
        .unwrap();
    pool.install(|| block_in_place(|| ()));
    assert_eq!(pool.stats().spare_threads_started, 1);
    assert!(eventually(Duration::from_secs(5), || spare_threads() == 1));
    // The keep-alive is 10 s; the spare must be gone well before 30.
    assert!(eventually(Duration::from_secs(30), || spare_threads() == 0));
    // The slot is free again: the next blocking call brings a new spare.
    let (sender, receiver) = mpsc::channel();
    let waiter = pool.submit(move || block_in_place(|| receiver.recv_timeout(Duration::from_secs(60))));
    pool.spawn(move || sender.send(1).unwrap());
    assert_eq!(waiter.join().unwrap(), Ok(1));
    assert_eq!(pool.stats().spare_threads_started, 2);
    assert_eq!(pool.stats().blocking_uncompensated, 0);
}
