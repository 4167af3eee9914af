//! A deque's `Worker` is the owner's end: it moves between threads but is
//! never shared, or two threads could push and pop at once.
fn require_sync<T: Sync>() {}

fn main() {
    require_sync::<stealpool::deque::Worker<Box<u32>>>();
}
