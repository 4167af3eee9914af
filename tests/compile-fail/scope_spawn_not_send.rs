//! A scope task runs on another thread: an `Rc` cannot go there.
use std::rc::Rc;

fn main() {
    let pool = stealpool::ThreadPool::new(2);
    let shared = Rc::new(5);
    pool.scope(|s| {
        s.spawn(move |_| println!("{shared}"));
    });
}
