//! Either half of `join` may run on another thread: an `Rc` cannot go there.
use std::rc::Rc;

fn main() {
    let pool = stealpool::ThreadPool::new(2);
    let shared = Rc::new(5);
    let _ = pool.join(move || *shared + 1, || 2);
}
