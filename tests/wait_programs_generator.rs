//! The generator of `examples/wait_programs.rs` is right before its
//! measurements mean anything: every program it makes is acyclic (each
//! node consumes only earlier nodes of its block, each once) and means one
//! value, the same computed in order on one thread and with one std thread
//! per task, where every wait has a thread of its own. The named shapes
//! are what their names say.

#[path = "../examples/wait_programs/gen.rs"]
mod gen;

use gen::{Block, Kind, Program};

const SEEDS: u64 = 500;

/// Checks a block's wiring and counts each kind met, nested blocks
/// included.
fn check_block(block: &Block, kinds: &mut [usize; 11]) {
    let mut used = vec![false; block.nodes.len()];
    for (i, node) in block.nodes.iter().enumerate() {
        for input in node.kind.consumed() {
            assert!(input < i, "node {i} consumes n{input}, not created before it");
            assert!(!used[input], "n{input} consumed twice");
            used[input] = true;
        }
        let handles_only: Vec<usize> = match &node.kind {
            Kind::Then { input } => vec![*input],
            Kind::Zip { a, b } => vec![*a, *b],
            Kind::WhenAll { inputs, .. } => inputs.clone(),
            Kind::Pipeline { input, .. } => input.iter().copied().collect(),
            Kind::Await { input } => vec![*input],
            _ => vec![],
        };
        for h in handles_only {
            assert!(block.nodes[h].kind.is_handle(), "node {i} takes n{h} as a handle");
        }
        let (slot, parts): (usize, Vec<&gen::Part>) = match &node.kind {
            Kind::Const => (0, vec![]),
            Kind::Submit { part, .. } => (1, vec![part]),
            Kind::Then { .. } => (2, vec![]),
            Kind::Zip { .. } => (3, vec![]),
            Kind::WhenAll { .. } => (4, vec![]),
            Kind::Await { .. } => (5, vec![]),
            Kind::Join { left, right, .. } => (6, vec![left, right]),
            Kind::Scope { children, .. } => (7, children.iter().collect()),
            Kind::Install { part, .. } => (8, vec![part]),
            Kind::BlockInPlace { part } => (9, vec![part]),
            Kind::Pipeline { .. } => (10, vec![]),
        };
        kinds[slot] += 1;
        for part in parts {
            check_block(&part.body, kinds);
        }
    }
}

#[test]
fn programs_are_acyclic_and_mean_one_value() {
    let mut kinds = [0usize; 11];
    let mut configs = [[0usize; 4]; 3];
    for seed in 0..SEEDS {
        let program = gen::generate(seed);
        check_block(&program.main, &mut kinds);
        configs[program.pools][program.workers] += 1;
        let sequential = gen::eval_sequential(&program);
        assert_eq!(gen::eval_threads(&program), sequential, "seed {seed}:\n{program}");
        // Deterministic: the same seed, the same program and value.
        let again = gen::generate(seed);
        assert_eq!(format!("{again}"), format!("{program}"));
    }
    // Teeth: every kind of node and every pool and worker count occurs.
    assert!(kinds.iter().all(|&n| n > 0), "kinds met: {kinds:?}");
    for (pools, row) in configs.iter().enumerate().skip(1) {
        for (workers, &drawn) in row.iter().enumerate().skip(1) {
            assert!(drawn > 0, "{pools} pools x {workers} workers never drawn");
        }
    }
    assert_eq!(configs[0].iter().sum::<usize>(), 0, "a program with no pool");
}

#[test]
fn mix_sees_order_and_every_input() {
    // A wrong wiring (inputs swapped, one lost, one doubled) changes the
    // value, so the runner's "wrong" column can see it.
    let mut rng = gen::Rng::new(7);
    for _ in 0..1_000 {
        let (k, a, b) = (rng.next() as u32, rng.next() as u32, rng.next() as u32);
        if a == b {
            continue;
        }
        let both = gen::mix(k, &[a, b]);
        assert_ne!(both, gen::mix(k, &[b, a]));
        assert_ne!(both, gen::mix(k, &[a]));
        assert_ne!(both, gen::mix(k, &[a, b, b]));
    }
}

#[test]
fn the_value_depends_on_every_node() {
    // A wrong wiring is seen: changing any one constant of the top block
    // changes the program's value.
    for seed in 0..50 {
        let program = gen::generate(seed);
        let value = gen::eval_sequential(&program);
        for i in 0..program.main.nodes.len() {
            let mut block = (*program.main).clone();
            block.nodes[i].k ^= 0x8000_0001;
            // A task's value is its part's mix.
            if let Kind::Submit { part, .. } = &mut block.nodes[i].kind {
                part.k ^= 0x8000_0001;
            }
            let changed = Program {
                main: std::sync::Arc::new(block),
                ..program.clone()
            };
            let differs = gen::eval_sequential(&changed) != value;
            // A pipeline fed by an input is the one node with no constant.
            let k_unused = matches!(program.main.nodes[i].kind, Kind::Pipeline { input: Some(_), .. });
            assert!(
                differs || k_unused,
                "seed {seed}: node {i}'s constant does not reach the value"
            );
        }
    }
}

#[test]
fn named_shapes_are_what_they_say() {
    for name in gen::SHAPES {
        let program = gen::shape(name).unwrap_or_else(|| panic!("{name} has no program"));
        check_block(&program.main, &mut [0; 11]);
        let workers: usize = name.rsplit('-').next().unwrap()[1..].parse().unwrap();
        assert_eq!(program.workers, workers, "{name}");
    }
    // A pipeline is N stages each adding one to what it joins.
    let main = gen::shape("pipeline-main-50-w1").unwrap();
    let task = gen::shape("pipeline-task-50-w1").unwrap();
    assert_eq!(main.pools, 2);
    let Kind::Pipeline {
        stages: 50,
        input: None,
        ..
    } = main.main.nodes[0].kind
    else {
        panic!("pipeline-main-50-w1: {main}")
    };
    let Kind::Submit { part, .. } = &task.main.nodes[0].kind else {
        panic!("pipeline-task-50-w1: {task}")
    };
    assert!(matches!(
        part.body.nodes[0].kind,
        Kind::Pipeline { stages: 50, .. }
    ));
    assert_eq!(gen::eval_threads(&main), gen::eval_sequential(&main));
    assert_eq!(gen::eval_threads(&task), gen::eval_sequential(&task));
    let joins = gen::shape("joins-earlier-40-w1").unwrap();
    assert_eq!(joins.main.nodes.len(), 40);
    let joined: usize = joins.main.nodes.iter().map(|n| n.kind.consumed().len()).sum();
    assert!(joined >= 20, "the tasks join earlier handles: {joined}");
    assert_eq!(gen::eval_threads(&joins), gen::eval_sequential(&joins));
    assert!(gen::shape("pipeline-sideways-50-w1").is_none());
}
