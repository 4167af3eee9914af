//! The free `spawn` runs its closure on a pool's thread: an `Rc` cannot go
//! there.
use std::rc::Rc;

fn main() {
    let shared = Rc::new(5);
    stealpool::spawn(move || println!("{shared}"));
}
