//! The body of a scope called from outside the pool runs on a worker: it
//! cannot capture an `Rc`.
use std::rc::Rc;

fn main() {
    let pool = stealpool::ThreadPool::new(2);
    let shared = Rc::new(5);
    pool.scope(move |_| println!("{shared}"));
}
