//! Continuations against the two other ways to build the same graph on this
//! pool, measured in the same run:
//!
//! * `chain/N`: N dependent steps (`x + 1`), each a task of its own.
//!   `then` attaches the whole chain at once and waits for the end;
//!   `blocking_join` submits each step from outside once the previous one
//!   is joined; `future_await` does the same in an `async` block, awaiting
//!   each handle (a minimal executor parks between polls).
//! * `fan_in/N`: N independent tasks whose results are summed.
//!   `when_all_then` gathers them with `when_all` and sums in a
//!   continuation; `blocking_join` joins each handle in turn from outside;
//!   `future_await` awaits each in turn.
//!
//! Throughput is per task. Run with `cargo bench --bench continuation`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::Duration;
use stealpool::ThreadPool;

const THREADS: usize = 2;

/// The smallest executor: polls on this thread, parking until woken.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => thread::park(),
        }
    }
}

fn chain(c: &mut Criterion) {
    const STEPS: u64 = 1000;
    let pool = ThreadPool::new(THREADS);
    let mut group = c.benchmark_group(format!("continuation/chain/{STEPS}"));
    group.throughput(Throughput::Elements(STEPS));
    group.bench_function("then", |b| {
        b.iter(|| {
            let mut handle = pool.submit(|| black_box(0u64));
            for _ in 1..STEPS {
                handle = handle.then(|x| black_box(x + 1));
            }
            assert_eq!(handle.join().unwrap(), STEPS - 1);
        })
    });
    group.bench_function("blocking_join", |b| {
        b.iter(|| {
            let mut x = pool.submit(|| black_box(0u64)).join().unwrap();
            for _ in 1..STEPS {
                x = pool.submit(move || black_box(x + 1)).join().unwrap();
            }
            assert_eq!(x, STEPS - 1);
        })
    });
    group.bench_function("future_await", |b| {
        b.iter(|| {
            let x = block_on(async {
                let mut x = pool.submit(|| black_box(0u64)).await.unwrap();
                for _ in 1..STEPS {
                    x = pool.submit(move || black_box(x + 1)).await.unwrap();
                }
                x
            });
            assert_eq!(x, STEPS - 1);
        })
    });
    group.finish();
}

fn fan_in(c: &mut Criterion) {
    const TASKS: u64 = 1000;
    let pool = ThreadPool::new(THREADS);
    let mut group = c.benchmark_group(format!("continuation/fan_in/{TASKS}"));
    group.throughput(Throughput::Elements(TASKS));
    let expected = TASKS * (TASKS - 1) / 2;
    group.bench_function("when_all_then", |b| {
        b.iter(|| {
            let handles: Vec<_> = (0..TASKS).map(|i| pool.submit(move || black_box(i))).collect();
            let sum = pool.when_all(handles).then(|values| values.iter().sum::<u64>());
            assert_eq!(sum.join().unwrap(), expected);
        })
    });
    group.bench_function("blocking_join", |b| {
        b.iter(|| {
            let handles: Vec<_> = (0..TASKS).map(|i| pool.submit(move || black_box(i))).collect();
            let sum: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
            assert_eq!(sum, expected);
        })
    });
    group.bench_function("future_await", |b| {
        b.iter(|| {
            let handles: Vec<_> = (0..TASKS).map(|i| pool.submit(move || black_box(i))).collect();
            let sum = block_on(async {
                let mut sum = 0;
                for handle in handles {
                    sum += handle.await.unwrap();
                }
                sum
            });
            assert_eq!(sum, expected);
        })
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = chain, fan_in
}
criterion_main!(benches);
