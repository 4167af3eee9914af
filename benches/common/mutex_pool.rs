//! The baseline every benchmark compares against: the pool a user writes in
//! ten minutes. One `Mutex<VecDeque>` of boxed closures shared by all
//! workers, one `Condvar` to wake them, one to wait for the queue to drain.
//!
//! Every submission and every take goes through the same lock, so it shows
//! what per-worker deques and stealing buy under contention. It has no
//! fork-join: a task that blocks on another task could deadlock it, so
//! recursive work is written as tasks that spawn tasks (see [`Spawner`]).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

type Job = Box<dyn FnOnce() + Send + 'static>;

struct State {
    queue: VecDeque<Job>,
    /// Jobs queued or running, for `wait_all`.
    pending: usize,
    shutdown: bool,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when a job is queued or at shutdown.
    work: Condvar,
    /// Signalled when `pending` drops to zero.
    drained: Condvar,
}

/// A fixed set of threads taking boxed closures from one locked queue.
pub struct MutexPool {
    shared: Arc<Shared>,
    threads: Vec<thread::JoinHandle<()>>,
}

/// A cloneable handle that queues jobs, for tasks that spawn more tasks.
#[derive(Clone)]
pub struct Spawner {
    shared: Arc<Shared>,
}

impl MutexPool {
    /// Starts `num_threads` workers.
    pub fn new(num_threads: usize) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                pending: 0,
                shutdown: false,
            }),
            work: Condvar::new(),
            drained: Condvar::new(),
        });
        let threads = (0..num_threads.max(1))
            .map(|_| {
                let shared = shared.clone();
                thread::spawn(move || worker(&shared))
            })
            .collect();
        MutexPool { shared, threads }
    }

    /// Queues `f`.
    pub fn spawn(&self, f: impl FnOnce() + Send + 'static) {
        self.spawner().spawn(f);
    }

    /// A handle for tasks to queue more tasks.
    pub fn spawner(&self) -> Spawner {
        Spawner {
            shared: self.shared.clone(),
        }
    }

    /// Blocks until every queued job, and every job those queued, has run.
    pub fn wait_all(&self) {
        let mut state = self.shared.state.lock().unwrap();
        while state.pending > 0 {
            state = self.shared.drained.wait(state).unwrap();
        }
    }
}

impl Spawner {
    /// Queues `f` and wakes one worker.
    pub fn spawn(&self, f: impl FnOnce() + Send + 'static) {
        let mut state = self.shared.state.lock().unwrap();
        state.queue.push_back(Box::new(f));
        state.pending += 1;
        drop(state);
        self.shared.work.notify_one();
    }
}

fn worker(shared: &Shared) {
    let mut state = shared.state.lock().unwrap();
    loop {
        if let Some(job) = state.queue.pop_front() {
            drop(state);
            job();
            state = shared.state.lock().unwrap();
            state.pending -= 1;
            if state.pending == 0 {
                shared.drained.notify_all();
            }
        } else if state.shutdown {
            return;
        } else {
            state = shared.work.wait(state).unwrap();
        }
    }
}

impl Drop for MutexPool {
    fn drop(&mut self) {
        self.shared.state.lock().unwrap().shutdown = true;
        self.shared.work.notify_all();
        for thread in self.threads.drain(..) {
            thread.join().unwrap();
        }
    }
}
