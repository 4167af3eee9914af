//! Runs a generated program on the pool: each node with the API call its
//! kind names, on `pools`. Shared by `examples/wait_programs.rs` (each
//! program in a child process under a watchdog) and `tests/wait_programs.rs`
//! (the programs that must finish with default settings).

use crate::gen::{mix, Block, Kind, Part, BLOCK_K};
use std::sync::{Arc, Mutex};
use stealpool::{JoinHandle, ThreadPool};

/// Runs `block` on `pools` here, on the calling thread, and returns its
/// value: the program's value when `block` is its main block.
pub fn run_block(block: &Block, pools: &Arc<[ThreadPool]>) -> u32 {
    pool_block(block, pools)
}

/// A node's result on the pool: a handle, a value, or consumed.
enum Slot {
    Handle(JoinHandle<u32>),
    Value(u32),
    Taken,
}

impl Slot {
    fn take(slot: &mut Slot) -> Slot {
        std::mem::replace(slot, Slot::Taken)
    }

    fn get(self) -> u32 {
        match self {
            Slot::Handle(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Slot::Value(v) => v,
            Slot::Taken => unreachable!("a node consumed twice"),
        }
    }

    fn handle(self) -> JoinHandle<u32> {
        match self {
            Slot::Handle(h) => h,
            _ => unreachable!("a handle input that is not a handle"),
        }
    }
}

/// A part as a closure to run anywhere: it joins its inputs there, then
/// runs its block.
fn pool_part(
    part: &Part,
    slots: &mut [Slot],
    pools: &Arc<[ThreadPool]>,
) -> impl FnOnce() -> u32 + Send + 'static {
    let inputs: Vec<Slot> = part.inputs.iter().map(|&i| Slot::take(&mut slots[i])).collect();
    let body = part.body.clone();
    let pools = pools.clone();
    let k = part.k;
    move || {
        let mut xs: Vec<u32> = inputs.into_iter().map(Slot::get).collect();
        xs.push(pool_block(&body, &pools));
        mix(k, &xs)
    }
}

fn pool_block(block: &Block, pools: &Arc<[ThreadPool]>) -> u32 {
    let mut slots: Vec<Slot> = Vec::with_capacity(block.nodes.len());
    for node in &block.nodes {
        let k = node.k;
        let slot = match &node.kind {
            Kind::Const => Slot::Value(k),
            Kind::Submit { pool, part } => {
                Slot::Handle(pools[*pool].submit(pool_part(part, &mut slots, pools)))
            }
            Kind::Then { input } => {
                let h = Slot::take(&mut slots[*input]).handle();
                Slot::Handle(h.then(move |x| mix(k, &[x])))
            }
            Kind::Zip { a, b } => {
                let a = Slot::take(&mut slots[*a]).handle();
                let b = Slot::take(&mut slots[*b]).handle();
                Slot::Handle(a.zip(b).then(move |(x, y)| mix(k, &[x, y])))
            }
            Kind::WhenAll { pool, inputs } => {
                let hs: Vec<_> = inputs
                    .iter()
                    .map(|&i| Slot::take(&mut slots[i]).handle())
                    .collect();
                Slot::Handle(pools[*pool].when_all(hs).then(move |xs| mix(k, &xs)))
            }
            Kind::Await { input } => Slot::Value(mix(k, &[Slot::take(&mut slots[*input]).get()])),
            Kind::Join { pool, left, right } => {
                let left = pool_part(left, &mut slots, pools);
                let right = pool_part(right, &mut slots, pools);
                let (l, r) = pools[*pool].join(left, right);
                Slot::Value(mix(k, &[l, r]))
            }
            Kind::Scope { pool, fifo, children } => {
                let children: Vec<_> = children.iter().map(|c| pool_part(c, &mut slots, pools)).collect();
                let results: Vec<Mutex<u32>> = children.iter().map(|_| Mutex::new(0)).collect();
                let results_ref = &results;
                if *fifo {
                    pools[*pool].scope_fifo(move |s| {
                        for (child, out) in children.into_iter().zip(results_ref) {
                            s.spawn_fifo(move |_| *out.lock().unwrap() = child());
                        }
                    });
                } else {
                    pools[*pool].scope(move |s| {
                        for (child, out) in children.into_iter().zip(results_ref) {
                            s.spawn(move |_| *out.lock().unwrap() = child());
                        }
                    });
                }
                let xs: Vec<u32> = results.into_iter().map(|m| m.into_inner().unwrap()).collect();
                Slot::Value(mix(k, &xs))
            }
            Kind::Install { pool, part } => {
                let body = pool_part(part, &mut slots, pools);
                Slot::Value(mix(k, &[pools[*pool].install(body)]))
            }
            Kind::BlockInPlace { part } => {
                let body = pool_part(part, &mut slots, pools);
                Slot::Value(mix(k, &[stealpool::block_in_place(body)]))
            }
            Kind::Pipeline { first, stages, input } => {
                let input = input.map(|i| Slot::take(&mut slots[i]));
                let mut prev = pools[*first % pools.len()].submit(move || input.map_or(k, Slot::get));
                for stage in 1..*stages {
                    let before = prev;
                    let pool = &pools[(*first + stage) % pools.len()];
                    prev = pool.submit(move || Slot::Handle(before).get().wrapping_add(1));
                }
                Slot::Handle(prev)
            }
        };
        slots.push(slot);
    }
    let rest: Vec<u32> = block
        .leftovers()
        .into_iter()
        .map(|i| Slot::take(&mut slots[i]).get())
        .collect();
    mix(BLOCK_K, &rest)
}
