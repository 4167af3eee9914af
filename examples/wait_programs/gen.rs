//! Random acyclic wait programs: their shape, their text, and two
//! evaluations that need no pool (sequential, and one thread per task).
//! The pool's own evaluation lives with the runner
//! (`examples/wait_programs.rs`); this module is shared with
//! `tests/wait_programs_generator.rs`.
//!
//! A program is a [`Block`]: a list of nodes, each a `u32` computed from
//! its inputs by [`mix`] (order-sensitive, wrapping). A node's inputs are
//! nodes of the same block created before it, each consumed once (a
//! handle is joined once); whatever no node consumed is consumed by the
//! end of the block, in creation order. A node with a body (a task, a
//! `join` half, a `scope` child, an `install`, a `block_in_place`) holds a
//! nested block, evaluated where that body runs, and the handles it took
//! as inputs are joined there first. So every wait is for something
//! created before the waiter: acyclic by construction.

#![allow(dead_code)] // the test uses the evaluations, the runner the rest

use std::fmt::{self, Write as _};
use std::sync::Arc;

/// The order-sensitive combination every node computes: `k`, then each
/// input in order, mod 2^32.
pub fn mix(k: u32, inputs: &[u32]) -> u32 {
    let mut a = k;
    for &x in inputs {
        a = (a.wrapping_mul(0x9E37_79B1) ^ (a >> 15)).wrapping_add(x);
    }
    a.wrapping_add(1)
}

/// A seeded generator (splitmix64): the same seed, the same program.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5EED_F00D_A11C_0DE5)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A whole program: how many pools, how many workers each, and the
/// top-level block (run by `main`, outside every pool).
#[derive(Clone, Debug)]
pub struct Program {
    pub pools: usize,
    pub workers: usize,
    pub main: Arc<Block>,
}

/// Nodes, in creation order.
#[derive(Clone, Debug, Default)]
pub struct Block {
    pub nodes: Vec<Node>,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub k: u32,
    pub kind: Kind,
}

/// A body run elsewhere: the inputs it takes (indices of earlier nodes of
/// the enclosing block, joined where the body runs) and its own block.
#[derive(Clone, Debug)]
pub struct Part {
    pub k: u32,
    pub inputs: Vec<usize>,
    pub body: Arc<Block>,
}

/// What a node is. `Handle` kinds leave a `JoinHandle` (or a thread's
/// handle) in the block; the others a plain value, computed where the
/// block runs.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A constant: the node's `k`.
    Const,
    /// `pools[pool].submit(part)`. Handle.
    Submit { pool: usize, part: Part },
    /// `input.then(|x| mix(k, [x]))`. Handle; `input` is a handle.
    Then { input: usize },
    /// `a.zip(b).then(|(x, y)| mix(k, [x, y]))`. Handle; both handles.
    Zip { a: usize, b: usize },
    /// `pools[pool].when_all(inputs).then(|xs| mix(k, xs))`. Handle.
    WhenAll { pool: usize, inputs: Vec<usize> },
    /// `input.join().unwrap()` right here, then `mix(k, [x])`. Value.
    Await { input: usize },
    /// `pools[pool].join(left, right)`, then `mix(k, [l, r])`. Value.
    Join { pool: usize, left: Part, right: Part },
    /// `pools[pool].scope(|s| s.spawn(child)...)` (or `scope_fifo` and
    /// `spawn_fifo`), then `mix(k, children)`. Value.
    Scope {
        pool: usize,
        fifo: bool,
        children: Vec<Part>,
    },
    /// `pools[pool].install(part)`, then `mix(k, [x])`. Value.
    Install { pool: usize, part: Part },
    /// `block_in_place(part)`, then `mix(k, [x])`. Value.
    BlockInPlace { part: Part },
    /// `stages` tasks, stage `i` submitted to `pools[(first + i) % pools]`,
    /// each `prev.join().unwrap() + 1`; stage 0 yields its input (joined)
    /// or `k`. Handle of the last stage.
    Pipeline {
        first: usize,
        stages: usize,
        input: Option<usize>,
    },
}

impl Kind {
    /// Whether the node leaves a handle (rather than a value).
    pub fn is_handle(&self) -> bool {
        matches!(
            self,
            Kind::Submit { .. }
                | Kind::Then { .. }
                | Kind::Zip { .. }
                | Kind::WhenAll { .. }
                | Kind::Pipeline { .. }
        )
    }

    /// The indices of the enclosing block this node consumes.
    pub fn consumed(&self) -> Vec<usize> {
        match self {
            Kind::Const => vec![],
            Kind::Submit { part, .. } | Kind::Install { part, .. } | Kind::BlockInPlace { part } => {
                part.inputs.clone()
            }
            Kind::Then { input } | Kind::Await { input } => vec![*input],
            Kind::Zip { a, b } => vec![*a, *b],
            Kind::WhenAll { inputs, .. } => inputs.clone(),
            Kind::Join { left, right, .. } => left.inputs.iter().chain(&right.inputs).copied().collect(),
            Kind::Scope { children, .. } => children.iter().flat_map(|c| c.inputs.iter().copied()).collect(),
            Kind::Pipeline { input, .. } => input.iter().copied().collect(),
        }
    }
}

impl Block {
    /// The nodes nothing in the block consumed, in creation order: the
    /// block's end consumes them.
    pub fn leftovers(&self) -> Vec<usize> {
        let mut used = vec![false; self.nodes.len()];
        for node in &self.nodes {
            for i in node.kind.consumed() {
                used[i] = true;
            }
        }
        (0..self.nodes.len()).filter(|&i| !used[i]).collect()
    }

    /// Nodes in this block and every nested one.
    pub fn size(&self) -> usize {
        self.nodes
            .iter()
            .map(|n| {
                1 + match &n.kind {
                    Kind::Submit { part, .. } | Kind::Install { part, .. } | Kind::BlockInPlace { part } => {
                        part.body.size()
                    }
                    Kind::Join { left, right, .. } => left.body.size() + right.body.size(),
                    Kind::Scope { children, .. } => children.iter().map(|c| c.body.size()).sum(),
                    _ => 0,
                }
            })
            .sum()
    }
}

impl Program {
    /// The class a random program is counted in: one pool, or two pools
    /// with or without a pipeline of 15 or more stages alternating
    /// between them (the first shape that hung).
    pub fn class(&self) -> String {
        let class = if self.pools == 1 {
            "1 pool"
        } else if self.main.longest_pipeline() >= 15 {
            "2 pools, pipeline >= 15"
        } else {
            "2 pools, pipelines < 15"
        };
        format!("{class}, {}w", self.workers)
    }
}

impl Block {
    /// The most stages of any pipeline in the block or nested in it.
    pub fn longest_pipeline(&self) -> usize {
        self.nodes
            .iter()
            .map(|n| match &n.kind {
                Kind::Pipeline { stages, .. } => *stages,
                Kind::Submit { part, .. } | Kind::Install { part, .. } | Kind::BlockInPlace { part } => {
                    part.body.longest_pipeline()
                }
                Kind::Join { left, right, .. } => {
                    left.body.longest_pipeline().max(right.body.longest_pipeline())
                }
                Kind::Scope { children, .. } => children
                    .iter()
                    .map(|c| c.body.longest_pipeline())
                    .max()
                    .unwrap_or(0),
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }
}

/// The block's value: `mix` of its leftovers.
pub const BLOCK_K: u32 = 0xB10C;

// ---------------------------------------------------------------- generation

/// What the generator tracks per block: which earlier nodes are still
/// unconsumed, and whether each is a handle.
struct Open {
    free: Vec<(usize, bool)>,
}

impl Open {
    fn take_any(&mut self, rng: &mut Rng, max: usize) -> Vec<usize> {
        let n = rng.range(0, max.min(self.free.len()));
        (0..n)
            .map(|_| {
                let at = rng.range(0, self.free.len() - 1);
                self.free.remove(at).0
            })
            .collect()
    }

    fn handles(&self) -> Vec<usize> {
        (0..self.free.len()).filter(|&i| self.free[i].1).collect()
    }

    fn take_handles(&mut self, rng: &mut Rng, lo: usize, max: usize) -> Option<Vec<usize>> {
        let mut positions = self.handles();
        if positions.len() < lo {
            return None;
        }
        let n = rng.range(lo, max.min(positions.len()));
        let mut chosen = Vec::new();
        for _ in 0..n {
            let at = rng.range(0, positions.len() - 1);
            chosen.push(positions.remove(at));
        }
        // Remove from the free list from the back so positions stay valid;
        // the inputs keep the random order chosen.
        let indices: Vec<usize> = chosen.iter().map(|&p| self.free[p].0).collect();
        chosen.sort_unstable_by(|a, b| b.cmp(a));
        for p in chosen {
            self.free.remove(p);
        }
        Some(indices)
    }
}

/// What every block of one program is drawn within.
#[derive(Clone, Copy)]
struct Limits {
    pools: usize,
    max_stages: usize,
}

/// Generates the program of `seed`: 1 or 2 pools of 1 to 3 workers, a
/// top-level block of 3 to 8 nodes, nesting to depth 3, pipelines of 2 to
/// 12 or 2 to 30 stages (longer ones are named shapes).
pub fn generate(seed: u64) -> Program {
    let mut rng = Rng::new(seed);
    let pools = rng.range(1, 2);
    let workers = rng.range(1, 3);
    // Half the programs keep their pipelines under 15 stages, where the
    // two-pool pipelines first finished, so the other waits are seen
    // apart from the pipelines'.
    let max_stages = if rng.chance(50) { 12 } else { 30 };
    let main = gen_block(&mut rng, 0, Limits { pools, max_stages });
    Program {
        pools,
        workers,
        main: Arc::new(main),
    }
}

fn gen_part(rng: &mut Rng, open: &mut Open, depth: usize, lim: Limits) -> Part {
    Part {
        k: rng.next() as u32,
        inputs: open.take_any(rng, 3),
        body: Arc::new(gen_block(rng, depth + 1, lim)),
    }
}

fn gen_block(rng: &mut Rng, depth: usize, lim: Limits) -> Block {
    let count = match depth {
        0 => rng.range(3, 8),
        1 => rng.range(1, 4),
        2 => rng.range(1, 2),
        _ => 1,
    };
    let nest = depth < 3;
    let mut open = Open { free: Vec::new() };
    let mut nodes = Vec::with_capacity(count);
    while nodes.len() < count {
        let k = rng.next() as u32;
        let pool = rng.range(0, lim.pools - 1);
        let kind = match rng.range(0, 14) {
            0 => Kind::Const,
            1..=3 if nest => Kind::Submit {
                pool,
                part: gen_part(rng, &mut open, depth, lim),
            },
            4 => match open.take_handles(rng, 1, 1) {
                Some(h) => Kind::Then { input: h[0] },
                None => continue,
            },
            5 => match open.take_handles(rng, 2, 2) {
                Some(h) => Kind::Zip { a: h[0], b: h[1] },
                None => continue,
            },
            6 => match open.take_handles(rng, 0, 4) {
                Some(inputs) => Kind::WhenAll { pool, inputs },
                None => continue,
            },
            7 => match open.take_handles(rng, 1, 1) {
                Some(h) => Kind::Await { input: h[0] },
                None => continue,
            },
            8 if nest => Kind::Join {
                pool,
                left: gen_part(rng, &mut open, depth, lim),
                right: gen_part(rng, &mut open, depth, lim),
            },
            9 if nest => {
                let n = rng.range(1, 3);
                Kind::Scope {
                    pool,
                    fifo: rng.chance(30),
                    children: (0..n).map(|_| gen_part(rng, &mut open, depth, lim)).collect(),
                }
            }
            10 if nest => Kind::Install {
                pool,
                part: gen_part(rng, &mut open, depth, lim),
            },
            11 if nest => Kind::BlockInPlace {
                part: gen_part(rng, &mut open, depth, lim),
            },
            12 => {
                let input = open.take_handles(rng, 0, 1).and_then(|h| h.first().copied());
                Kind::Pipeline {
                    first: pool,
                    stages: rng.range(2, lim.max_stages),
                    input,
                }
            }
            _ => continue,
        };
        let handle = kind.is_handle();
        open.free.push((nodes.len(), handle));
        nodes.push(Node { k, kind });
    }
    Block { nodes }
}

// --------------------------------------------------------------- fixed shapes

/// The named shapes (the waits that first hung or aborted), as programs.
pub const SHAPES: &[&str] = &[
    "pipeline-main-15-w1",
    "pipeline-main-20-w1",
    "pipeline-main-50-w1",
    "pipeline-main-2000-w1",
    "pipeline-main-20000-w1",
    "pipeline-task-15-w1",
    "pipeline-task-20-w1",
    "pipeline-task-50-w1",
    "pipeline-task-2000-w1",
    "pipeline-task-20000-w1",
    "pipeline-main-15-w2",
    "pipeline-main-20-w2",
    "pipeline-main-50-w2",
    "pipeline-main-2000-w2",
    "pipeline-main-20000-w2",
    "pipeline-task-15-w2",
    "pipeline-task-20-w2",
    "pipeline-task-50-w2",
    "pipeline-task-2000-w2",
    "pipeline-task-20000-w2",
    "joins-earlier-40-w1",
    "joins-task-40-w1",
    "install-then-w1",
];

fn node(k: u32, kind: Kind) -> Node {
    Node { k, kind }
}

fn part(k: u32, inputs: Vec<usize>, nodes: Vec<Node>) -> Part {
    Part {
        k,
        inputs,
        body: Arc::new(Block { nodes }),
    }
}

/// The program of a named shape, or `None` for an unknown name.
///
/// * `pipeline-{main,task}-N-wW`: two pools of `W` workers; `N` stages
///   alternating between them, built by `main` or inside a task of pool 0
///   (which then joins the last stage);
/// * `joins-earlier-N-w1`: one pool of one worker, `N` tasks submitted from
///   `main`, each joining 0 to 3 handles of earlier tasks; `joins-task-N-w1`
///   the same tasks submitted from inside a task (which joins the
///   handles nothing joined);
/// * `install-then-w1`: one pool of one worker,
///   `install(|| submit(..).then(..).join())`.
pub fn shape(name: &str) -> Option<Program> {
    let words: Vec<&str> = name.split('-').collect();
    let workers = words.last()?.strip_prefix('w')?.parse().ok()?;
    match words.as_slice() {
        ["pipeline", from, stages, _] => {
            let stages: usize = stages.parse().ok()?;
            let pipeline = node(
                7,
                Kind::Pipeline {
                    first: 0,
                    stages,
                    input: None,
                },
            );
            let nodes = match *from {
                "main" => vec![pipeline],
                "task" => vec![node(
                    11,
                    Kind::Submit {
                        pool: 0,
                        part: part(13, vec![], vec![pipeline]),
                    },
                )],
                _ => return None,
            };
            Some(Program {
                pools: 2,
                workers,
                main: Arc::new(Block { nodes }),
            })
        }
        ["joins", from @ ("earlier" | "task"), count, _] => {
            let count: usize = count.parse().ok()?;
            let mut rng = Rng::new(48);
            let mut open = Open { free: Vec::new() };
            let mut nodes = Vec::new();
            for i in 0..count {
                let inputs = open.take_handles(&mut rng, 0, 3).unwrap_or_default();
                nodes.push(node(
                    i as u32,
                    Kind::Submit {
                        pool: 0,
                        part: part(i as u32, inputs, vec![]),
                    },
                ));
                open.free.push((i, true));
            }
            if *from == "task" {
                nodes = vec![node(
                    99,
                    Kind::Submit {
                        pool: 0,
                        part: part(98, vec![], nodes),
                    },
                )];
            }
            Some(Program {
                pools: 1,
                workers,
                main: Arc::new(Block { nodes }),
            })
        }
        ["install", "then", _] => {
            let inner = vec![
                node(
                    1,
                    Kind::Submit {
                        pool: 0,
                        part: part(1, vec![], vec![]),
                    },
                ),
                node(2, Kind::Then { input: 0 }),
                node(3, Kind::Await { input: 1 }),
            ];
            Some(Program {
                pools: 1,
                workers,
                main: Arc::new(Block {
                    nodes: vec![node(
                        4,
                        Kind::Install {
                            pool: 0,
                            part: part(5, vec![], inner),
                        },
                    )],
                }),
            })
        }
        _ => None,
    }
}

// ---------------------------------------------------------------- evaluation

/// The program's value, computed in order on this thread.
pub fn eval_sequential(program: &Program) -> u32 {
    seq_block(&program.main, &[])
}

fn seq_part(part: &Part, values: &[u32]) -> u32 {
    let mut inputs: Vec<u32> = part.inputs.iter().map(|&i| values[i]).collect();
    inputs.push(seq_block(&part.body, &[]));
    mix(part.k, &inputs)
}

fn seq_block(block: &Block, _outer: &[u32]) -> u32 {
    let mut values: Vec<u32> = Vec::with_capacity(block.nodes.len());
    for node in &block.nodes {
        let k = node.k;
        let v = match &node.kind {
            Kind::Const => k,
            Kind::Submit { part, .. } => seq_part(part, &values),
            Kind::Then { input } | Kind::Await { input } => mix(k, &[values[*input]]),
            Kind::Zip { a, b } => mix(k, &[values[*a], values[*b]]),
            Kind::WhenAll { inputs, .. } => mix(k, &inputs.iter().map(|&i| values[i]).collect::<Vec<_>>()),
            Kind::Join { left, right, .. } => mix(k, &[seq_part(left, &values), seq_part(right, &values)]),
            Kind::Scope { children, .. } => {
                let xs: Vec<u32> = children.iter().map(|c| seq_part(c, &values)).collect();
                mix(k, &xs)
            }
            Kind::Install { part, .. } | Kind::BlockInPlace { part } => mix(k, &[seq_part(part, &values)]),
            Kind::Pipeline { stages, input, .. } => {
                let start = input.map_or(k, |i| values[i]);
                start.wrapping_add(*stages as u32 - 1)
            }
        };
        values.push(v);
    }
    let rest: Vec<u32> = block.leftovers().into_iter().map(|i| values[i]).collect();
    mix(BLOCK_K, &rest)
}

/// The program's value with one std thread per task (submit, `then`,
/// `zip`, `when_all`, pipeline stage, `join` half, scope child): a
/// stand-in with no pool, where every wait has a thread of its own.
pub fn eval_threads(program: &Program) -> u32 {
    thread_block(&program.main)
}

/// A node's result in the thread evaluation.
enum TSlot {
    Handle(std::thread::JoinHandle<u32>),
    Value(u32),
    Taken,
}

impl TSlot {
    fn take(slot: &mut TSlot) -> TSlot {
        std::mem::replace(slot, TSlot::Taken)
    }

    fn get(self) -> u32 {
        match self {
            TSlot::Handle(h) => h.join().expect("a thread of the stand-in panicked"),
            TSlot::Value(v) => v,
            TSlot::Taken => unreachable!("a node consumed twice"),
        }
    }

    fn handle(self) -> std::thread::JoinHandle<u32> {
        match self {
            TSlot::Handle(h) => h,
            _ => unreachable!("a handle input that is not a handle"),
        }
    }
}

fn thread_part(part: &Part, slots: &mut [TSlot]) -> impl FnOnce() -> u32 + Send + 'static {
    let inputs: Vec<TSlot> = part.inputs.iter().map(|&i| TSlot::take(&mut slots[i])).collect();
    let body = part.body.clone();
    let k = part.k;
    move || {
        let mut xs: Vec<u32> = inputs.into_iter().map(TSlot::get).collect();
        xs.push(thread_block(&body));
        mix(k, &xs)
    }
}

fn thread_block(block: &Block) -> u32 {
    use std::thread;
    let mut slots: Vec<TSlot> = Vec::with_capacity(block.nodes.len());
    for node in &block.nodes {
        let k = node.k;
        let slot = match &node.kind {
            Kind::Const => TSlot::Value(k),
            Kind::Submit { part, .. } => TSlot::Handle(thread::spawn(thread_part(part, &mut slots))),
            Kind::Then { input } => {
                let h = TSlot::take(&mut slots[*input]).handle();
                TSlot::Handle(thread::spawn(move || mix(k, &[h.join().unwrap()])))
            }
            Kind::Zip { a, b } => {
                let a = TSlot::take(&mut slots[*a]).handle();
                let b = TSlot::take(&mut slots[*b]).handle();
                TSlot::Handle(thread::spawn(move || {
                    mix(k, &[a.join().unwrap(), b.join().unwrap()])
                }))
            }
            Kind::WhenAll { inputs, .. } => {
                let hs: Vec<_> = inputs
                    .iter()
                    .map(|&i| TSlot::take(&mut slots[i]).handle())
                    .collect();
                TSlot::Handle(thread::spawn(move || {
                    let xs: Vec<u32> = hs.into_iter().map(|h| h.join().unwrap()).collect();
                    mix(k, &xs)
                }))
            }
            Kind::Await { input } => TSlot::Value(mix(k, &[TSlot::take(&mut slots[*input]).get()])),
            Kind::Join { left, right, .. } => {
                let left = thread_part(left, &mut slots);
                let right = thread_part(right, &mut slots);
                let (l, r) = thread::scope(|s| {
                    let r = s.spawn(right);
                    let l = left();
                    (l, r.join().unwrap())
                });
                TSlot::Value(mix(k, &[l, r]))
            }
            Kind::Scope { children, .. } => {
                let children: Vec<_> = children.iter().map(|c| thread_part(c, &mut slots)).collect();
                let xs: Vec<u32> = thread::scope(|s| {
                    let hs: Vec<_> = children.into_iter().map(|c| s.spawn(c)).collect();
                    hs.into_iter().map(|h| h.join().unwrap()).collect()
                });
                TSlot::Value(mix(k, &xs))
            }
            Kind::Install { part, .. } | Kind::BlockInPlace { part } => {
                TSlot::Value(mix(k, &[thread_part(part, &mut slots)()]))
            }
            Kind::Pipeline { stages, input, .. } => {
                let input = input.map(|i| TSlot::take(&mut slots[i]));
                let mut prev = thread::spawn(move || input.map_or(k, TSlot::get));
                for _ in 1..*stages {
                    let before = prev;
                    prev = thread::spawn(move || before.join().unwrap().wrapping_add(1));
                }
                TSlot::Handle(prev)
            }
        };
        slots.push(slot);
    }
    let rest: Vec<u32> = block
        .leftovers()
        .into_iter()
        .map(|i| TSlot::take(&mut slots[i]).get())
        .collect();
    mix(BLOCK_K, &rest)
}

// ------------------------------------------------------------------- display

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} pool(s) of {} worker(s), {} nodes; main:",
            self.pools,
            self.workers,
            self.main.size()
        )?;
        let mut out = String::new();
        show_block(&self.main, 1, &mut out);
        f.write_str(&out)
    }
}

fn names(inputs: &[usize]) -> String {
    inputs
        .iter()
        .map(|i| format!("n{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn show_part(label: &str, part: &Part, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    let _ = writeln!(
        out,
        "{pad}{label} (k {:#x}) joins outer [{}] then runs:",
        part.k,
        names(&part.inputs)
    );
    show_block(&part.body, depth + 1, out);
}

fn show_block(block: &Block, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for (i, node) in block.nodes.iter().enumerate() {
        let k = node.k;
        let _ = match &node.kind {
            Kind::Const => writeln!(out, "{pad}n{i} = {k:#x}"),
            Kind::Submit { pool, part } => {
                let _ = writeln!(out, "{pad}n{i} = pool{pool}.submit:");
                show_part("task", part, depth + 1, out);
                Ok(())
            }
            Kind::Then { input } => writeln!(out, "{pad}n{i} = n{input}.then(mix {k:#x})"),
            Kind::Zip { a, b } => writeln!(out, "{pad}n{i} = n{a}.zip(n{b}).then(mix {k:#x})"),
            Kind::WhenAll { pool, inputs } => {
                writeln!(
                    out,
                    "{pad}n{i} = pool{pool}.when_all([{}]).then(mix {k:#x})",
                    names(inputs)
                )
            }
            Kind::Await { input } => writeln!(out, "{pad}n{i} = mix {k:#x} of n{input}.join()"),
            Kind::Join { pool, left, right } => {
                let _ = writeln!(out, "{pad}n{i} = pool{pool}.join(left, right), mix {k:#x}:");
                show_part("left", left, depth + 1, out);
                show_part("right", right, depth + 1, out);
                Ok(())
            }
            Kind::Scope { pool, fifo, children } => {
                let which = if *fifo { "scope_fifo" } else { "scope" };
                let _ = writeln!(out, "{pad}n{i} = pool{pool}.{which}, mix {k:#x}:");
                for child in children {
                    show_part("spawn", child, depth + 1, out);
                }
                Ok(())
            }
            Kind::Install { pool, part } => {
                let _ = writeln!(out, "{pad}n{i} = pool{pool}.install, mix {k:#x}:");
                show_part("body", part, depth + 1, out);
                Ok(())
            }
            Kind::BlockInPlace { part } => {
                let _ = writeln!(out, "{pad}n{i} = block_in_place, mix {k:#x}:");
                show_part("body", part, depth + 1, out);
                Ok(())
            }
            Kind::Pipeline { first, stages, input } => {
                let from = input.map_or(format!("{k:#x}"), |i| format!("n{i}"));
                writeln!(
                    out,
                    "{pad}n{i} = pipeline of {stages} stages from {from}, stage s on pool (({first} + s) % pools)"
                )
            }
        };
    }
    let _ = writeln!(out, "{pad}end: mix of [{}]", names(&block.leftovers()));
}
