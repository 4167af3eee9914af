//! The parallel iterators against rayon's, in the same process: the same
//! source code compiled twice, once against `stealpool::prelude` and once
//! against `rayon::prelude`, on pools of 1 and 2 workers, rounds
//! interleaved so a burst of load hits both alike, with a second rayon pool
//! in every round as the A/A control that shows how far equal sides drift
//! apart. `report --par-iter`.

// The parallel iterators need the global pool, which the model checkers'
// builds leave out.
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
pub use bench::run;

/// Under a model checker: nothing to race.
#[cfg(any(feature = "loom", feature = "shuttle"))]
pub fn run(_rounds: usize) {
    println!("[par-iter] not built under a model checker");
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
#[path = "text.rs"]
mod text;

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod bench {
    use std::collections::HashMap;
    use std::hint::black_box;
    use std::time::{Duration, Instant};

    /// The inputs, built once.
    pub struct Inputs {
        numbers: Vec<u64>,
        text: String,
        unsorted: Vec<u64>,
    }

    /// The workloads, written once for whichever prelude is in scope.
    macro_rules! workloads {
        () => {
            use super::Inputs;
            use std::collections::HashMap;

            pub fn sum_of_squares(inputs: &Inputs) -> u64 {
                inputs
                    .numbers
                    .par_iter()
                    .map(|&x| (x >> 12) * (x >> 12))
                    .sum()
            }

            pub fn map_collect(inputs: &Inputs) -> Vec<u64> {
                inputs
                    .numbers
                    .par_iter()
                    .map(|x| x.wrapping_mul(0x9E37_79B9) ^ (x >> 3))
                    .collect()
            }

            pub fn filter_count(inputs: &Inputs) -> usize {
                inputs.numbers.par_iter().filter(|&&x| x % 3 == 0).count()
            }

            pub fn word_count(inputs: &Inputs) -> HashMap<&str, usize> {
                inputs
                    .text
                    .par_split_whitespace()
                    .fold(HashMap::new, |mut counts, word| {
                        *counts.entry(word).or_insert(0) += 1;
                        counts
                    })
                    .reduce(HashMap::new, |mut a, b| {
                        for (word, count) in b {
                            *a.entry(word).or_insert(0) += count;
                        }
                        a
                    })
            }

            pub fn sort(mut v: Vec<u64>) -> Vec<u64> {
                v.par_sort();
                v
            }
        };
    }

    mod ours {
        use stealpool::prelude::*;
        workloads!();
    }

    mod theirs {
        use rayon::prelude::*;
        workloads!();
    }

    fn random_u64s(n: usize, mut state: u64) -> Vec<u64> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state % 1_000_000_007
            })
            .collect()
    }

    /// Who runs in a round: stealpool, rayon, and a second rayon pool of
    /// the same size, the A/A control.
    const SIDES: usize = 3;
    /// The six orders of the three sides, one per round in turn, so each
    /// side runs first, second and third equally often and after each of
    /// the others equally often.
    const ORDERS: [[usize; SIDES]; 6] = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [2, 1, 0], [1, 0, 2]];

    /// Each side's times over at least `rounds` rounds, the three sides
    /// interleaved in the orders of [`ORDERS`]: `sides[0]` is stealpool,
    /// `sides[1]` rayon and `sides[2]` a second rayon pool (the A/A
    /// control: rayon against itself in the same harness shows how far two
    /// equal sides drift apart on this machine). Every result is checked
    /// against `expected` and dropped before the next side starts, outside
    /// the timing, so each run starts from the same heap: nothing another
    /// side made is still alive, and a result's memory is freed in the same
    /// place (a 32 MB `Vec` is its own mapping, returned at once) on every
    /// side. A workload of a millisecond or so runs more rounds, until each
    /// side has had about [`MIN_SIDE_TIME`], and never fewer than
    /// [`MIN_ROUNDS`], so that the median is a median of many.
    fn race<R: PartialEq + std::fmt::Debug>(
        rounds: usize,
        expected: &R,
        sides: [&mut dyn FnMut() -> R; SIDES],
    ) -> Race {
        let mut times: [Vec<Duration>; SIDES] = Default::default();
        let rounds = rounds.max(MIN_ROUNDS);
        let mut round = 0;
        while round < rounds || (round < MAX_ROUNDS && times[0].iter().sum::<Duration>() < MIN_SIDE_TIME) {
            for side in ORDERS[round % ORDERS.len()] {
                let start = Instant::now();
                let result = black_box((sides[side])());
                times[side].push(start.elapsed());
                assert_eq!(
                    &result, expected,
                    "side {side} disagrees with the sequential result"
                );
                drop(result);
            }
            round += 1;
        }
        let paired = paired_median(&times[1], &times[0]);
        let paired_control = paired_median(&times[1], &times[2]);
        let [ours, theirs, control] = times.map(Times::of);
        Race {
            rounds: round,
            ours,
            theirs,
            control,
            paired,
            paired_control,
        }
    }

    /// Rounds run until each side has had this much time (see [`race`]).
    const MIN_SIDE_TIME: Duration = Duration::from_millis(1_000);
    /// At least this many rounds, however long the workload.
    const MIN_ROUNDS: usize = 15;
    /// No more rounds than this, however short the workload.
    const MAX_ROUNDS: usize = 3_000;
    /// A workload is at or below rayon's time when both our best and our
    /// median time are at most this factor over rayon's (rayon/ours at
    /// least `1 / TOLERANCE`, 0.98): about as far as two equal sides drift
    /// apart in this harness. In six runs on two cores with a load average
    /// of 3 to 4 from other work, 49 of the 60 A/A ratios (rayon against a
    /// second rayon pool, best and median) of the 1-worker rows and 44 of
    /// the 60 of the 2-worker rows stayed within 0.98..1.02; the others
    /// reached 0.69 and 1.30. So a row whose own A/A ratios drifted past the
    /// tolerance is "undecided" rather than "slower" (benches/README.md,
    /// "Parallel iterators").
    const TOLERANCE: f64 = 1.0 / 0.98;

    /// A row's verdict.
    #[derive(Clone, Copy)]
    enum Verdict {
        /// Our best and median times are within [`TOLERANCE`] of rayon's or below.
        AtOrBelow,
        /// Not, while rayon against itself stayed within the tolerance.
        Slower,
        /// Not, but rayon against itself drifted further: this run cannot tell.
        Undecided,
    }

    impl Verdict {
        fn label(self) -> &'static str {
            match self {
                Verdict::AtOrBelow => "ok",
                Verdict::Slower => "slower",
                Verdict::Undecided => "undecided",
            }
        }
    }

    /// One workload's race: the three sides' times over `rounds` rounds.
    struct Race {
        rounds: usize,
        ours: Times,
        theirs: Times,
        control: Times,
        /// The median over rounds of rayon's time over ours in the same
        /// round (see [`paired_median`]).
        paired: f64,
        /// The same for rayon over the second rayon pool (A/A).
        paired_control: f64,
    }

    /// The median over rounds of `a[i] / b[i]`, the two sides' times in
    /// the same round. A burst of other load that lasts longer than a
    /// round slows every side of that round, and leaves their ratio; a
    /// burst that hits one side's run makes one ratio an outlier, which
    /// the median passes over. Separate medians (`Times`) keep neither
    /// property: a side that happened to run more of its rounds in a busy
    /// second has a slower median.
    fn paired_median(a: &[Duration], b: &[Duration]) -> f64 {
        let mut ratios: Vec<f64> = a.iter().zip(b).map(|(&a, &b)| ratio(a, b)).collect();
        ratios.sort_by(f64::total_cmp);
        ratios[ratios.len() / 2]
    }

    /// The best and the median of one side's times.
    struct Times {
        best: Duration,
        median: Duration,
    }

    impl Times {
        fn of(mut times: Vec<Duration>) -> Times {
            times.sort();
            Times {
                best: times[0],
                median: times[times.len() / 2],
            }
        }
    }

    /// Makes every thread allocate from glibc's one main heap, before any
    /// pool thread allocates. By default each thread that allocates gets a
    /// heap (an arena) of its own, and a freed block goes back to the heap
    /// it came from: a 32 MB `Vec` collected on a pool's worker is then
    /// reused by that pool alone, round after round, and each side of the
    /// race keeps its own memory for the whole run. Which side's memory
    /// sits better in the caches is settled once per process, so the
    /// collect's ratio drifted by up to 5% between runs of one binary, rayon
    /// against rayon as much as rayon against stealpool. With one heap the
    /// block freed after one side's run is the block the next side gets.
    /// (The first free of a 32 000 000-byte block raises glibc's threshold
    /// for mapping blocks of their own above that size, so from the second
    /// round on such a `Vec` comes from a heap, not a fresh mapping.)
    fn one_heap() {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: `mallopt` only sets an allocator parameter; called
        // before any pool of this section is built.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }

    /// `a / b` in seconds.
    fn ratio(a: Duration, b: Duration) -> f64 {
        a.as_secs_f64() / b.as_secs_f64()
    }

    /// Prints the section: each workload on 1 and 2 workers, both pools'
    /// best times, rayon's time over ours (> 1: stealpool is faster) for the
    /// best and the median, the same for rayon against a second rayon pool
    /// (A/A), and whether ours is at or below rayon's within [`TOLERANCE`].
    pub fn run(rounds: usize) {
        one_heap();
        let inputs = Inputs {
            numbers: random_u64s(4_000_000, 7),
            text: super::text::generate(2_000_000, 42),
            unsorted: random_u64s(2_000_000, 11),
        };
        // Every result is checked against a sequential run's.
        let numbers = &inputs.numbers;
        let squares: u64 = numbers.iter().map(|&x| (x >> 12) * (x >> 12)).sum();
        let mapped: Vec<u64> = numbers
            .iter()
            .map(|x| x.wrapping_mul(0x9E37_79B9) ^ (x >> 3))
            .collect();
        let thirds = numbers.iter().filter(|&&x| x % 3 == 0).count();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for word in inputs.text.split_whitespace() {
            *counts.entry(word).or_insert(0) += 1;
        }
        let mut sorted = inputs.unsorted.clone();
        sorted.sort();

        println!(
            "\n[par-iter] parallel iterators vs rayon's, same code, same process: stealpool, rayon and a second rayon pool \
             (A/A) interleaved in rotating order, at least {} rounds, more until each side has run {} ms",
            rounds.max(MIN_ROUNDS),
            MIN_SIDE_TIME.as_millis()
        );
        println!(
            "  ratios are rayon's time over ours (> 1: stealpool faster), of the best and of the median times; A/A is \
             rayon over the second rayon pool; paired: the median over rounds of the two sides' ratio in the same round \
             (shown, not judged).\n  \"ok\": ours at or below rayon's, both ratios >= {:.2}; \"slower\": not, \
             while the row's A/A ratios are within {:.2}..{:.2}; \"undecided\": not, and the A/A ratios drifted further",
            1.0 / TOLERANCE,
            1.0 / TOLERANCE,
            TOLERANCE
        );
        println!(
            "  {:<34} {:>7} {:>6} {:>10} {:>10} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  verdict",
            "workload",
            "workers",
            "rounds",
            "stealpool",
            "rayon",
            "best",
            "median",
            "A/A",
            "A/A md",
            "paired",
            "A/A pr"
        );
        let mut spread = (f64::INFINITY, f64::NEG_INFINITY);
        let mut tally = [0; 3];
        for workers in [1, 2] {
            let pool = stealpool::ThreadPool::new(workers);
            let rayon_pool = || {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(workers)
                    .build()
                    .expect("a rayon pool")
            };
            let (rayon, control) = (rayon_pool(), rayon_pool());
            let rows: [(&str, Race); 5] = [
                (
                    "sum of squares, 4M u64",
                    race(
                        rounds,
                        &squares,
                        [
                            &mut || pool.install(|| ours::sum_of_squares(&inputs)),
                            &mut || rayon.install(|| theirs::sum_of_squares(&inputs)),
                            &mut || control.install(|| theirs::sum_of_squares(&inputs)),
                        ],
                    ),
                ),
                (
                    "map + collect Vec, 4M u64",
                    race(
                        rounds,
                        &mapped,
                        [
                            &mut || pool.install(|| ours::map_collect(&inputs)),
                            &mut || rayon.install(|| theirs::map_collect(&inputs)),
                            &mut || control.install(|| theirs::map_collect(&inputs)),
                        ],
                    ),
                ),
                (
                    "filter + count, 4M u64",
                    race(
                        rounds,
                        &thirds,
                        [
                            &mut || pool.install(|| ours::filter_count(&inputs)),
                            &mut || rayon.install(|| theirs::filter_count(&inputs)),
                            &mut || control.install(|| theirs::filter_count(&inputs)),
                        ],
                    ),
                ),
                (
                    "word count, 2M words (fold+reduce)",
                    race(
                        rounds,
                        &counts,
                        [
                            &mut || pool.install(|| ours::word_count(&inputs)),
                            &mut || rayon.install(|| theirs::word_count(&inputs)),
                            &mut || control.install(|| theirs::word_count(&inputs)),
                        ],
                    ),
                ),
                (
                    "par_sort, 2M u64",
                    race(
                        rounds,
                        &sorted,
                        // The clone is timed too, on every side alike.
                        [
                            &mut || pool.install(|| ours::sort(inputs.unsorted.clone())),
                            &mut || rayon.install(|| theirs::sort(inputs.unsorted.clone())),
                            &mut || control.install(|| theirs::sort(inputs.unsorted.clone())),
                        ],
                    ),
                ),
            ];
            for (name, race) in rows {
                let best = ratio(race.theirs.best, race.ours.best);
                let median = ratio(race.theirs.median, race.ours.median);
                let aa = ratio(race.theirs.best, race.control.best);
                let aa_median = ratio(race.theirs.median, race.control.median);
                let within = |r: f64| r * TOLERANCE >= 1.0 && r <= TOLERANCE;
                let verdict = if best * TOLERANCE >= 1.0 && median * TOLERANCE >= 1.0 {
                    Verdict::AtOrBelow
                } else if within(aa) && within(aa_median) {
                    Verdict::Slower
                } else {
                    Verdict::Undecided
                };
                tally[verdict as usize] += 1;
                spread = (spread.0.min(aa.min(aa_median)), spread.1.max(aa.max(aa_median)));
                println!(
                    "  {name:<34} {workers:>7} {:>6} {:>7.2} ms {:>7.2} ms {best:>6.3} {median:>6.3} {aa:>6.3} {aa_median:>6.3} {:>6.3} {:>6.3}  {}",
                    race.rounds,
                    race.ours.best.as_secs_f64() * 1e3,
                    race.theirs.best.as_secs_f64() * 1e3,
                    race.paired,
                    race.paired_control,
                    verdict.label(),
                );
            }
        }
        let [ok, slower, undecided] = tally;
        println!(
            "  A/A ratios this run: {:.2} to {:.2}; {ok} at or below rayon's, {slower} slower, {undecided} undecided \
             (rerun those on a quieter machine)",
            spread.0, spread.1
        );
    }
}
