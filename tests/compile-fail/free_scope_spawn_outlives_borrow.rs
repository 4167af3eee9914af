//! A task of the free `scope` may borrow only what outlives the scope.
fn main() {
    stealpool::scope(|s| {
        let local = vec![1, 2, 3];
        s.spawn(|_| println!("{local:?}"));
    });
}
