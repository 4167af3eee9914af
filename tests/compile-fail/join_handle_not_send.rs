//! A `JoinHandle<R>` is `Send` only when `R` is: joining it on another thread
//! would move the `R` there.
use std::rc::Rc;

fn require_send<T: Send>() {}

fn main() {
    require_send::<stealpool::JoinHandle<u32>>();
    require_send::<stealpool::JoinHandle<Rc<u32>>>();
}
