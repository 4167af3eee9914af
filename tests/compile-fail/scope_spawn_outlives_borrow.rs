//! A scope task may only borrow what outlives the scope: `local` is dropped
//! at the end of the scope body, while the task may still be running.
fn main() {
    let pool = stealpool::ThreadPool::new(1);
    pool.scope(|s| {
        let local = vec![1, 2, 3];
        s.spawn(|_| println!("{local:?}"));
    });
}
