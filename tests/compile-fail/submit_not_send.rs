//! `submit` runs its closure on another thread: an `Rc` cannot go there.
use std::rc::Rc;

fn main() {
    let pool = stealpool::ThreadPool::new(1);
    let shared = Rc::new(5);
    let handle = pool.submit(move || *shared + 1);
    let _ = handle.join();
}
