//! A scope task borrowing a local of a task of the same scope: that task's
//! frame ends before the scope does.
fn main() {
    let pool = stealpool::ThreadPool::new(1);
    pool.scope(|s| {
        s.spawn(|s| {
            let counter = std::sync::atomic::AtomicUsize::new(0);
            s.spawn(|_| {
                counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            });
        });
    });
}
