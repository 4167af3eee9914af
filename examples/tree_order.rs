//! What one more store, load or instruction per node costs in each
//! order of the report's tree sum, with no pool at all: the sequential sum
//! of a 2^22 − 1-node tree, each node doing `STORES` stores to its stack
//! frame or `NOPS` no-ops before it recurses, CPU ns per node-pair (a
//! `join`'s worth of work), the fastest of 9, configurations alternating.
//!
//! ```sh
//! cargo run --release --example tree_order
//! ```
//!
//! The tree is allocated children before parents, left before right, so
//! the right-child-first order reads descending addresses, a stream the
//! prefetcher follows, and the left-child-first order waits on a cache
//! miss at nearly every node. There, how far the core can run ahead of the
//! oldest miss decides how many misses overlap, and stores fill the store
//! buffer that bounds it. So the same few stores cost several times more
//! per node in the left-first order: the reason a `join`'s stores that
//! publish its half show up more in that order's ratios to chili (see
//! `benches/README.md`, "The tree sum's orders").

use std::hint::black_box;

struct Node {
    value: u64,
    children: Option<Box<(Node, Node)>>,
}

fn tree(layers: u32) -> Node {
    Node {
        value: 1,
        children: (layers > 1).then(|| Box::new((tree(layers - 1), tree(layers - 1)))),
    }
}

/// The sum, right child first or left child first, each node doing
/// `NOPS` no-ops, `STORES` (at most 16) stores and `LOADS` (at most 16)
/// loads before recursing.
#[inline(never)]
fn sum<const RIGHT_FIRST: bool, const NOPS: usize, const STORES: usize, const LOADS: usize>(
    node: &Node,
) -> u64 {
    node.value
        + node.children.as_ref().map_or(0, |c| {
            let (first, second) = if RIGHT_FIRST { (&c.1, &c.0) } else { (&c.0, &c.1) };
            for _ in 0..NOPS / 8 {
                // SAFETY: no-ops touch neither memory nor the stack.
                unsafe {
                    std::arch::asm!(
                        "nop",
                        "nop",
                        "nop",
                        "nop",
                        "nop",
                        "nop",
                        "nop",
                        "nop",
                        options(nomem, nostack)
                    )
                }
            }
            let mut frame = [0u64; 16];
            for (i, slot) in frame.iter_mut().enumerate().take(STORES) {
                // SAFETY: a valid, aligned slot of a local array.
                unsafe { std::ptr::write_volatile(slot, i as u64) }
            }
            for slot in frame.iter().take(LOADS) {
                // SAFETY: a valid, aligned slot of a local array. Nothing
                // depends on the value: the loads are independent.
                unsafe { std::ptr::read_volatile(slot) };
            }
            let x = sum::<RIGHT_FIRST, NOPS, STORES, LOADS>(first);
            x + sum::<RIGHT_FIRST, NOPS, STORES, LOADS>(second)
        })
}

/// CPU time of the process, in ns.
fn cpu_ns() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` only writes the struct we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

const LAYERS: u32 = 22;

/// CPU ns per node-pair of one traversal.
fn per_join(f: impl FnOnce() -> u64) -> f64 {
    let start = cpu_ns();
    assert_eq!(black_box(f()), (1 << LAYERS) - 1);
    (cpu_ns() - start) / (1u64 << (LAYERS - 1)) as f64
}

macro_rules! configs {
    ($tree:expr; $(($nops:literal, $stores:literal, $loads:literal)),*) => {{
        let mut best = vec![[f64::INFINITY; 2]; [$($nops),*].len()];
        for _ in 0..9 {
            let mut i = 0;
            $(
                best[i][0] = best[i][0].min(per_join(|| sum::<false, $nops, $stores, $loads>($tree)));
                best[i][1] = best[i][1].min(per_join(|| sum::<true, $nops, $stores, $loads>($tree)));
                i += 1;
            )*
            let _ = i;
        }
        let mut i = 0;
        println!("{:>5} {:>7} {:>6} {:>13} {:>14}", "nops", "stores", "loads", "left first ns", "right first ns");
        $(
            println!("{:>5} {:>7} {:>6} {:>13.2} {:>14.2}", $nops, $stores, $loads, best[i][0], best[i][1]);
            i += 1;
        )*
        let _ = i;
        best
    }};
}

fn main() {
    let tree = tree(LAYERS);
    let best =
        configs!(&tree; (0, 0, 0), (0, 4, 0), (0, 8, 0), (0, 16, 0), (64, 0, 0), (128, 0, 0), (0, 0, 16));
    let [left0, right0] = best[0];
    println!(
        "per store (16 stores): left first +{:.3} ns, right first +{:.3} ns; per no-op (128): left first +{:.4} ns, \
         right first +{:.4} ns; per load (16): left first +{:.3} ns, right first +{:.3} ns",
        (best[3][0] - left0) / 16.0,
        (best[3][1] - right0) / 16.0,
        (best[5][0] - left0) / 128.0,
        (best[5][1] - right0) / 128.0,
        (best[6][0] - left0) / 16.0,
        (best[6][1] - right0) / 16.0
    );
}
