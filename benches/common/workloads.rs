//! The work the benchmarks and the report run on every peer: the same code,
//! forked through each peer's own mechanism, so that a difference in time is
//! a difference in the scheduler and not in the algorithm.

#![allow(dead_code)] // each bench and example uses a different subset

use super::mutex_pool::Spawner;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// xorshift64*: deterministic inputs without a dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..bound` (bias is irrelevant here).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i as u64 + 1) as usize);
        }
    }
}

/// `n` pseudo-random `u64`s, the same for a given seed.
pub fn random_u64s(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next_u64()).collect()
}

/// Burns the CPU for `duration`: a task of known length that, unlike
/// `sleep`, occupies its worker the whole time.
pub fn spin_for(duration: Duration) {
    let start = Instant::now();
    while start.elapsed() < duration {
        std::hint::spin_loop();
    }
}

/// The heterogeneous mix: `count` task lengths, 80% 1 µs, 15% 100 µs,
/// 5% 10 ms, in a shuffled order fixed by `seed`.
pub fn mix(count: usize, seed: u64) -> Vec<Duration> {
    let long = count * 5 / 100;
    let medium = count * 15 / 100;
    let mut tasks: Vec<Duration> = (0..count)
        .map(|i| match i {
            i if i < long => Duration::from_millis(10),
            i if i < long + medium => Duration::from_micros(100),
            _ => Duration::from_micros(1),
        })
        .collect();
    Rng::new(seed).shuffle(&mut tasks);
    tasks
}

/// Counts tasks down; the thread that waits blocks until all have run. Every
/// peer's "spawn N, wait for N" uses this same completion signal, so the
/// comparison is about spawning, not about each library's own waiting.
pub struct Countdown {
    left: AtomicUsize,
    lock: Mutex<bool>,
    done: Condvar,
}

impl Countdown {
    pub fn new(count: usize) -> Self {
        Countdown {
            left: AtomicUsize::new(count),
            lock: Mutex::new(count == 0),
            done: Condvar::new(),
        }
    }

    pub fn count_down(&self) {
        // AcqRel: the last task's decrement sees every other task's effects.
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            *self.lock.lock().unwrap() = true;
            self.done.notify_all();
        }
    }

    pub fn wait(&self) {
        let mut done = self.lock.lock().unwrap();
        while !*done {
            done = self.done.wait(done).unwrap();
        }
    }
}

/// Something that runs two closures, potentially in parallel: the one
/// primitive the fork-join workloads need. `a` and `b` receive the forker
/// to use below them (the thread forker counts its depth down).
pub trait Fork: Sync + Sized {
    fn fork<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&Self) -> RA + Send,
        B: FnOnce(&Self) -> RB + Send,
        RA: Send,
        RB: Send;
}

/// No parallelism: the sequential reference with the same code path.
pub struct Seq;

impl Fork for Seq {
    fn fork<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&Self) -> RA + Send,
        B: FnOnce(&Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        (a(self), b(self))
    }
}

impl Fork for stealpool::ThreadPool {
    fn fork<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&Self) -> RA + Send,
        B: FnOnce(&Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.join(|| a(self), || b(self))
    }
}

/// `rayon::join`; call the workload inside `rayon::ThreadPool::install` so
/// it runs on the pool under test, not on rayon's global pool.
pub struct Rayon;

impl Fork for Rayon {
    fn fork<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&Self) -> RA + Send,
        B: FnOnce(&Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        rayon::join(|| a(&Rayon), || b(&Rayon))
    }
}

/// One scoped `std::thread` per fork down to `depth` levels, sequential
/// below: the "batch it, a thread per chunk" way to use plain threads.
pub struct Threads {
    pub depth: u32,
}

impl Threads {
    /// Enough levels for `threads` leaves.
    pub fn for_threads(threads: usize) -> Self {
        Threads {
            depth: threads.next_power_of_two().trailing_zeros(),
        }
    }
}

impl Fork for Threads {
    fn fork<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&Self) -> RA + Send,
        B: FnOnce(&Self) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        if self.depth == 0 {
            return (a(self), b(self));
        }
        let below = Threads {
            depth: self.depth - 1,
        };
        std::thread::scope(|s| {
            let right = s.spawn(|| b(&below));
            let left = a(&below);
            (left, right.join().unwrap())
        })
    }
}

/// Fibonacci with a fork at every call: nothing but fork overhead.
pub fn fib<F: Fork>(fork: &F, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = fork.fork(|f| fib(f, n - 1), |f| fib(f, n - 2));
    a + b
}

/// A balanced binary tree, chili's own benchmark: the sum of its values,
/// with a `join` at every node.
///
/// Which child a traversal visits first matters more than the `join`: the
/// tree is allocated children before parents, left before right, so a
/// right-first traversal reads the nodes in descending address order, which
/// the hardware prefetcher follows, and a left-first one jumps about. With
/// no `join` at all the two differ by 2 to 3 times. chili's `join` runs its
/// *second* closure first, so chili's own benchmark (`join(left, right)`)
/// goes right-first where rayon and this pool, which run the first closure
/// first, go left-first. Each traversal here takes its order as
/// `RIGHT_FIRST`, and every peer is given the same one.
pub struct Node {
    value: u64,
    children: Option<Box<(Node, Node)>>,
}

impl Node {
    pub fn tree(layers: u32) -> Node {
        Node {
            value: 1,
            children: (layers > 1).then(|| Box::new((Node::tree(layers - 1), Node::tree(layers - 1)))),
        }
    }

    /// The children in visiting order.
    fn ordered<const RIGHT_FIRST: bool>(children: &(Node, Node)) -> (&Node, &Node) {
        if RIGHT_FIRST {
            (&children.1, &children.0)
        } else {
            (&children.0, &children.1)
        }
    }

    pub fn sum_seq<const RIGHT_FIRST: bool>(&self) -> u64 {
        self.value
            + self.children.as_ref().map_or(0, |c| {
                let (first, second) = Self::ordered::<RIGHT_FIRST>(c);
                let x = first.sum_seq::<RIGHT_FIRST>();
                x + second.sum_seq::<RIGHT_FIRST>()
            })
    }

    /// rayon's and this pool's `join` run their first closure first.
    pub fn sum<const RIGHT_FIRST: bool, F: Fork>(&self, fork: &F) -> u64 {
        self.value
            + self.children.as_ref().map_or(0, |c| {
                let (first, second) = Self::ordered::<RIGHT_FIRST>(c);
                let (x, y) = fork.fork(
                    |f| first.sum::<RIGHT_FIRST, F>(f),
                    |f| second.sum::<RIGHT_FIRST, F>(f),
                );
                x + y
            })
    }

    /// chili's `join` runs its second closure first.
    pub fn sum_chili<const RIGHT_FIRST: bool>(&self, scope: &mut chili::Scope<'_>) -> u64 {
        self.value
            + self.children.as_ref().map_or(0, |c| {
                let (first, second) = Self::ordered::<RIGHT_FIRST>(c);
                let (y, x) = scope.join(
                    |s| second.sum_chili::<RIGHT_FIRST>(s),
                    |s| first.sum_chili::<RIGHT_FIRST>(s),
                );
                x + y
            })
    }
}

/// `fib` on chili, whose `join` hands each half the scope (`&mut`), so it
/// cannot be a `Fork`.
pub fn fib_chili(scope: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = scope.join(|s| fib_chili(s, n - 1), |s| fib_chili(s, n - 2));
    a + b
}

/// The same recursion with no fork: the floor `fib` is measured against.
pub fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(std::hint::black_box(n - 1)) + fib_seq(n - 2)
}

/// Calls of `fib(n)`, i.e. forks plus leaves.
pub fn fib_calls(n: u64) -> u64 {
    2 * fib_seq(n + 1) - 1
}

/// Below this many elements the sorts call the sequential `sort_unstable`.
pub const SORT_LEAF: usize = 1 << 13;

/// Fork-join quicksort: a sequential partition, then both sides in
/// parallel. The simple textbook version, used to compare fork mechanisms;
/// the library's `ThreadPool::sort_unstable` also partitions in parallel.
pub fn quicksort<F: Fork>(fork: &F, v: &mut [u64]) {
    quicksort_traced(fork, v, &|_| {});
}

/// [`quicksort`], calling `on_leaf(len)` on the thread that sorts each
/// leaf, to see how the work was spread.
pub fn quicksort_traced<F: Fork>(fork: &F, v: &mut [u64], on_leaf: &(impl Fn(usize) + Sync)) {
    if v.len() <= SORT_LEAF {
        on_leaf(v.len());
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (left, right) = v.split_at_mut(mid);
    fork.fork(
        |f| quicksort_traced(f, left, on_leaf),
        |f| quicksort_traced(f, &mut right[1..], on_leaf),
    );
}

/// Partitions around a median-of-three pivot; returns the pivot's index.
fn partition(v: &mut [u64]) -> usize {
    let (a, b, c) = (0, v.len() / 2, v.len() - 1);
    let median = if (v[a] <= v[b]) == (v[b] <= v[c]) {
        b
    } else if (v[b] <= v[a]) == (v[a] <= v[c]) {
        a
    } else {
        c
    };
    v.swap(0, median);
    let pivot = v[0];
    // Branchless Lomuto: swap unconditionally, advance on "less".
    let mut lt = 1;
    for i in 1..v.len() {
        let less = v[i] < pivot;
        v.swap(lt, i);
        lt += less as usize;
    }
    v.swap(0, lt - 1);
    lt - 1
}

/// A slice handed to another thread's task. The mutex pool's tasks are
/// `'static`, so the quicksort below passes raw parts and the caller keeps
/// the slice borrowed until `wait_all` returns.
struct RawSlice(*mut u64, usize);
// SAFETY: each `RawSlice` covers a range no other task touches, and the
// caller of `quicksort_tasks` outlives every task (it waits for them).
unsafe impl Send for RawSlice {}

/// The same quicksort as tasks on the mutex pool, which has no join: each
/// partition spawns its two halves as tasks and returns.
///
/// # Safety
///
/// `v` must stay borrowed, untouched, until `MutexPool::wait_all` returns.
pub unsafe fn quicksort_tasks(spawner: &Spawner, v: &mut [u64]) {
    let raw = RawSlice(v.as_mut_ptr(), v.len());
    let spawner_for_task = spawner.clone();
    spawner.spawn(move || {
        let raw = raw;
        // SAFETY: see `RawSlice`; this task is the only user of the range.
        let v = unsafe { std::slice::from_raw_parts_mut(raw.0, raw.1) };
        if v.len() <= SORT_LEAF {
            v.sort_unstable();
            return;
        }
        let mid = partition(v);
        let (left, right) = v.split_at_mut(mid);
        // SAFETY: the halves are disjoint parts of the caller's slice.
        unsafe {
            quicksort_tasks(&spawner_for_task, left);
            quicksort_tasks(&spawner_for_task, &mut right[1..]);
        }
    });
}

/// Fork-join merge sort of `u64`s through a scratch buffer: halves in
/// parallel, then one sequential merge. With the top merge sequential, this
/// is the simple version; the library's `ThreadPool::sort` merges in
/// parallel too.
pub fn merge_sort<F: Fork>(fork: &F, v: &mut [u64], buf: &mut [u64]) {
    if v.len() <= SORT_LEAF {
        v.sort();
        return;
    }
    let mid = v.len() / 2;
    {
        let (vl, vr) = v.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        fork.fork(|f| merge_sort(f, vl, bl), |f| merge_sort(f, vr, br));
    }
    merge(&v[..mid], &v[mid..], buf);
    v.copy_from_slice(buf);
}

/// Merges two sorted runs into `out`.
pub fn merge(left: &[u64], right: &[u64], out: &mut [u64]) {
    let (mut l, mut r) = (0, 0);
    for slot in out.iter_mut() {
        let take_right = l == left.len() || (r < right.len() && right[r] < left[l]);
        *slot = if take_right { right[r] } else { left[l] };
        r += take_right as usize;
        l += !take_right as usize;
    }
}

/// Submit-to-start latency of an idle executor: waits `idle` (long enough
/// for every worker to go to sleep), then times from just before `submit`
/// to the first instruction of the task.
pub fn wake_latency_once(idle: Duration, submit: &dyn Fn(Box<dyn FnOnce() + Send>)) -> Duration {
    std::thread::sleep(idle);
    // The waiting thread blocks rather than spins, so it does not compete
    // for a core with the worker being woken.
    let (started, first_instruction) = std::sync::mpsc::sync_channel(1);
    let t0 = Instant::now();
    submit(Box::new(move || {
        let t1 = Instant::now();
        let _ = started.send(t1);
    }));
    let t1 = first_instruction.recv().expect("the task ran");
    t1 - t0
}

/// The `q`-quantile (0.0..=1.0) of sorted samples.
pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[index]
}
