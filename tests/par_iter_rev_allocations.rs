#![cfg(not(any(feature = "loom", feature = "shuttle")))]
//! `rev` allocates nothing per item: each walk, forwards and backwards,
//! counted by a global allocator that counts each thread's allocations (the
//! pool's workers count their own).

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use stealpool::prelude::*;
use stealpool::ThreadPool;

mod common;
use common::par_iter::data;

thread_local! {
    /// This thread's allocations so far (see [`Counting`]).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// Counts each thread's allocations; the pool's workers count their own.
struct Counting;

// SAFETY: forwards to the system allocator unchanged; the count is a
// const-initialized thread-local without destructor, which does not
// allocate.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
        // SAFETY: forwarded.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
        // SAFETY: forwarded.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: forwarded.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// A name, a walk forwards, the same walk backwards.
type Walk<'a> = (&'a str, &'a dyn Fn(), &'a dyn Fn());

#[test]
fn rev_allocates_nothing_per_item() {
    // One worker: every piece runs on the thread that counts.
    ThreadPool::new(1).install(|| {
        let v = data(10_000);
        let w = data(9_000);
        let sink = AtomicUsize::new(0);
        let add = |x: u64| {
            sink.fetch_add(x as usize, SeqCst);
        };
        // Each backwards walk against the same walk forwards, which
        // allocates nothing: the same pieces, the same joins.
        let walks: [Walk; 6] = [
            (
                "enumerate().rev()",
                &|| v.par_iter().enumerate().for_each(|(i, x)| add(i as u64 + x)),
                &|| {
                    v.par_iter()
                        .enumerate()
                        .rev()
                        .for_each(|(i, x)| add(i as u64 + x))
                },
            ),
            (
                "rev().enumerate()",
                &|| v.par_iter().enumerate().for_each(|(i, x)| add(i as u64 + x)),
                &|| {
                    v.par_iter()
                        .rev()
                        .enumerate()
                        .for_each(|(i, x)| add(i as u64 + x))
                },
            ),
            (
                "zip().rev()",
                &|| v.par_iter().zip(&w).for_each(|(a, b)| add(a + b)),
                &|| v.par_iter().zip(&w).rev().for_each(|(a, b)| add(a + b)),
            ),
            (
                "skip().take().rev()",
                &|| v.par_iter().skip(10).take(5_000).for_each(|x| add(*x)),
                &|| v.par_iter().skip(10).take(5_000).rev().for_each(|x| add(*x)),
            ),
            (
                "chunks().rev()",
                &|| v.par_iter().chunks(100).for_each(|c| add(c.len() as u64)),
                &|| v.par_iter().chunks(100).rev().for_each(|c| add(c.len() as u64)),
            ),
            (
                "rev().chunks()",
                &|| v.par_iter().chunks(100).for_each(|c| add(c.len() as u64)),
                &|| v.par_iter().rev().chunks(100).for_each(|c| add(c.len() as u64)),
            ),
        ];
        for (name, forwards, backwards) in walks {
            forwards();
            backwards();
            let (f, b) = (allocations(forwards), allocations(backwards));
            assert_eq!(b, f, "{name}: {b} allocations backwards, {f} forwards");
        }
        assert!(sink.load(SeqCst) > 0);
    });
}
