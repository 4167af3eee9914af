//! Either half of the free `join` may run on another thread: an `Rc` cannot
//! go there.
use std::rc::Rc;

fn main() {
    let shared = Rc::new(5);
    let _ = stealpool::join(move || *shared + 1, || 2);
}
