//! A wait outside the pool, for the models: a flag under the checker's
//! `Mutex` and a `Condvar`, which the pool cannot see (a task blocked on
//! it blocks its worker, as a user's channel or lock would).

#[cfg(feature = "loom")]
use loom::sync::{Condvar, Mutex};
#[cfg(all(feature = "shuttle", not(feature = "loom")))]
use shuttle::sync::{Condvar, Mutex};

pub struct Signal(Mutex<bool>, Condvar);

impl Signal {
    pub fn new() -> Self {
        Signal(Mutex::new(false), Condvar::new())
    }

    /// Blocks until `raise` has run.
    pub fn wait(&self) {
        let mut raised = self.0.lock().unwrap();
        while !*raised {
            raised = self.1.wait(raised).unwrap();
        }
    }

    pub fn raise(&self) {
        *self.0.lock().unwrap() = true;
        self.1.notify_one();
    }
}
