//! `broadcast` and `spawn_broadcast`: a closure run once on every worker of
//! a pool, through the workers' mailboxes (U1-U3 in
//! `proofs/broadcast.md`).

use crate::pool::kernel::broadcast::BroadcastContext;
use crate::pool::kernel::job::HeapJob;
use crate::pool::kernel::registry::Registry;
use crate::pool::kernel::scope::scope_on_worker;
use crate::pool::kernel::worker::WorkerThread;
use crate::sync::{Arc, Mutex};

/// Runs `op` once on every worker of `worker`'s pool and returns the
/// results in worker order. A scope (C1, C2) whose tasks are posted one to
/// each worker's mailbox (U3): it waits for all of them, running its own
/// part, and any other worker's post to it, while it waits (U2). A panic
/// of any part is re-raised once all have ended.
pub(crate) fn broadcast_on_worker<OP, R>(worker: &WorkerThread, op: &OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let workers = worker.registry().num_workers();
    let results: Vec<Mutex<Option<R>>> = (0..workers).map(|_| Mutex::new(None)).collect();
    // The scope waits for every part before it returns, so the parts'
    // borrows of `op` and `results` outlive them (C2).
    scope_on_worker(worker, |scope| {
        for (index, result) in results.iter().enumerate() {
            scope.post(index, move |_| {
                let value = op(BroadcastContext::new(index, workers));
                *result.lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
            });
        }
    });
    results
        .into_iter()
        .map(|result| {
            result
                .into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("the scope returned, so every part ran")
        })
        .collect()
}

/// Queues `op` once for every worker of `registry`'s pool, each part a task
/// (counted for `wait_all`; a panic goes to the panic handler) posted to
/// that worker's mailbox (U1). If a worker already left (the pool shuts
/// down), the caller, a thread of the pool, runs its part (U3).
pub(crate) fn spawn_broadcast<OP>(registry: &Registry, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let op = Arc::new(op);
    let workers = registry.num_workers();
    for index in 0..workers {
        let op = Arc::clone(&op);
        registry.count_task();
        let job = HeapJob::into_job_ref(move || {
            // SAFETY: a posted job runs on its worker, or on the thread of
            // the pool that posted it (U3); either has its thread-local set.
            let worker = unsafe { &*WorkerThread::current() };
            worker.run_task(|| op(BroadcastContext::new(index, workers)));
        });
        if let Some(job) = registry.post(index, job) {
            // U3: a worker left, so the pool shuts down, and only a thread
            // of the pool can still queue work.
            // SAFETY: as above.
            let worker = unsafe { WorkerThread::current().as_ref() };
            match worker {
                Some(worker) => worker.execute(job),
                None => unreachable!("a pool's workers left while a thread outside it still queues work"),
            }
        }
    }
}
