//! Checks that batch steals hand out every element exactly once while the
//! owner keeps pushing and popping — on this crate's deque and, in the same
//! run, on `crossbeam-deque` — and prints what each lost or duplicated.
//!
//! The owner pushes 8 and pops 6, over and over (a worker's own work); one
//! thief takes `steal_batch_and_pop` batches. The window that matters is
//! between a thief's reads of the slots and its CAS on `top`: if the owner
//! pops into the batch's range meanwhile (its pops take no CAS while `top`
//! is below them), that CAS still succeeds.
//!
//! ```sh
//! cargo run --release --example steal_batch_check -- --rounds 20 --elements 2000000
//! ```
//!
//! Exits with status 1 if this crate's deque lost or duplicated an element.

#[path = "common/cli.rs"]
mod cli;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

/// The two deques behind one interface; `steal_batch` moves a batch into
/// `dest` and returns one element, `None` when the victim looked empty.
trait Deque: Sized + 'static {
    type Stealer: Send + 'static;
    fn new() -> Self;
    fn push(&self, value: usize);
    fn pop(&self) -> Option<usize>;
    fn stealer(&self) -> Self::Stealer;
    fn steal_batch(stealer: &Self::Stealer, dest: &Self) -> Option<usize>;
}

impl Deque for stealpool::deque::Worker<usize> {
    type Stealer = stealpool::deque::Stealer<usize>;
    fn new() -> Self {
        Self::new()
    }
    fn push(&self, value: usize) {
        self.push(value)
    }
    fn pop(&self) -> Option<usize> {
        self.pop()
    }
    fn stealer(&self) -> Self::Stealer {
        self.stealer()
    }
    fn steal_batch(stealer: &Self::Stealer, dest: &Self) -> Option<usize> {
        loop {
            match stealer.steal_batch_and_pop(dest) {
                stealpool::deque::Steal::Success(value) => return Some(value),
                stealpool::deque::Steal::Empty => return None,
                stealpool::deque::Steal::Retry => {}
            }
        }
    }
}

impl Deque for crossbeam_deque::Worker<usize> {
    type Stealer = crossbeam_deque::Stealer<usize>;
    fn new() -> Self {
        // LIFO owner, as in a work-stealing pool.
        Self::new_lifo()
    }
    fn push(&self, value: usize) {
        self.push(value)
    }
    fn pop(&self) -> Option<usize> {
        self.pop()
    }
    fn stealer(&self) -> Self::Stealer {
        self.stealer()
    }
    fn steal_batch(stealer: &Self::Stealer, dest: &Self) -> Option<usize> {
        loop {
            match stealer.steal_batch_and_pop(dest) {
                crossbeam_deque::Steal::Success(value) => return Some(value),
                crossbeam_deque::Steal::Empty => return None,
                crossbeam_deque::Steal::Retry => {}
            }
        }
    }
}

/// One round: `n` elements through an owner and one batch thief. Returns
/// (elements taken twice or more, elements never taken).
fn round<D: Deque>(n: usize) -> (usize, usize) {
    let owner = D::new();
    let stealer = owner.stealer();
    let done = Arc::new(AtomicBool::new(false));
    let thief_done = done.clone();
    let thief = thread::spawn(move || {
        let dest = D::new();
        let mut taken = Vec::new();
        loop {
            match D::steal_batch(&stealer, &dest) {
                Some(value) => {
                    taken.push(value);
                    while let Some(value) = dest.pop() {
                        taken.push(value);
                    }
                }
                None if thief_done.load(Ordering::Acquire) => return taken,
                None => std::hint::spin_loop(),
            }
        }
    });
    let mut taken = Vec::new();
    let mut next = 0;
    while next < n {
        for _ in 0..8 {
            owner.push(next);
            next += 1;
        }
        for _ in 0..6 {
            taken.extend(owner.pop());
        }
    }
    while let Some(value) = owner.pop() {
        taken.push(value);
    }
    done.store(true, Ordering::Release);
    taken.extend(thief.join().unwrap());
    let mut seen = vec![0u32; next];
    for value in taken {
        seen[value] += 1;
    }
    let duplicated = seen.iter().filter(|&&count| count > 1).count();
    let lost = seen.iter().filter(|&&count| count == 0).count();
    (duplicated, lost)
}

fn check<D: Deque>(name: &str, rounds: usize, n: usize) -> bool {
    let (mut duplicated, mut lost, mut bad_rounds) = (0, 0, 0);
    for _ in 0..rounds {
        let (d, l) = round::<D>(n);
        duplicated += d;
        lost += l;
        bad_rounds += usize::from(d + l > 0);
    }
    println!(
        "{name:>16}: {rounds} rounds of {n} elements: {duplicated} duplicated, {lost} lost \
         ({bad_rounds} rounds wrong)"
    );
    duplicated + lost == 0
}

fn main() -> ExitCode {
    let args = cli::Args::parse(
        "Checks that batch steals hand out every element exactly once while the owner pushes and \
         pops, on this crate's deque and on crossbeam-deque.",
        &[
            cli::opt("rounds", "N", "rounds per deque (default 20)"),
            cli::opt("elements", "N", "elements pushed per round (default 2000000)"),
        ],
    );
    let rounds = args.get("rounds", 20);
    let n = args.get("elements", 2_000_000);
    let ours = check::<stealpool::deque::Worker<usize>>("stealpool", rounds, n);
    check::<crossbeam_deque::Worker<usize>>("crossbeam-deque", rounds, n);
    if ours {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
