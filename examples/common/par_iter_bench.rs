//! The parallel iterators against rayon's, in the same process: the same
//! source code compiled twice, once against `stealpool::prelude` and once
//! against `rayon::prelude`, on pools of 1 and 2 workers, rounds
//! interleaved so a burst of load hits both alike. `report --par-iter`.

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

    /// Each side's best and median time over at least `rounds` runs of
    /// `ours` and of `theirs`, interleaved, each going first in every other
    /// round (the one that runs second finds the memory the first just
    /// freed, which favours it). A workload of a millisecond or so runs more
    /// rounds, until each side has had about [`MIN_SIDE_TIME`]: sixteen runs
    /// of a millisecond on a shared machine are sixteen draws of its load,
    /// and one side's luckiest draw is not the other's.
    fn race<R: PartialEq + std::fmt::Debug>(
        rounds: usize,
        mut ours: impl FnMut() -> R,
        mut theirs: impl FnMut() -> R,
    ) -> Race {
        fn timed<R>(f: &mut impl FnMut() -> R, times: &mut Vec<Duration>) -> R {
            let start = Instant::now();
            let result = black_box(f());
            times.push(start.elapsed());
            result
        }
        let (mut ours_times, mut theirs_times) = (Vec::new(), Vec::new());
        let mut round = 0;
        while round < rounds || (round < MAX_ROUNDS && ours_times.iter().sum::<Duration>() < MIN_SIDE_TIME) {
            let (a, b) = if round % 2 == 0 {
                let a = timed(&mut ours, &mut ours_times);
                (a, timed(&mut theirs, &mut theirs_times))
            } else {
                let b = timed(&mut theirs, &mut theirs_times);
                (timed(&mut ours, &mut ours_times), b)
            };
            assert_eq!(a, b, "stealpool and rayon disagree");
            round += 1;
        }
        Race {
            rounds: round,
            ours: Times::of(ours_times),
            theirs: Times::of(theirs_times),
        }
    }

    /// Rounds run until each side has had this much time (see [`race`]).
    const MIN_SIDE_TIME: Duration = Duration::from_millis(300);
    /// No more rounds than this, however short the workload.
    const MAX_ROUNDS: usize = 2_000;

    /// One workload's race: both sides' times over `rounds` rounds.
    struct Race {
        rounds: usize,
        ours: Times,
        theirs: Times,
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

    /// Prints the section: each workload on 1 and 2 workers, both pools'
    /// best times and rayon's time over ours (> 1: stealpool is faster).
    pub fn run(rounds: usize) {
        let inputs = Inputs {
            numbers: random_u64s(4_000_000, 7),
            text: super::text::generate(2_000_000, 42),
            unsorted: random_u64s(2_000_000, 11),
        };
        // Every result checked against a sequential run once.
        let squares: u64 = inputs.numbers.iter().map(|&x| (x >> 12) * (x >> 12)).sum();
        assert_eq!(ours::sum_of_squares(&inputs), squares);
        let mut sorted = inputs.unsorted.clone();
        sorted.sort();
        assert_eq!(ours::sort(inputs.unsorted.clone()), sorted);
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for word in inputs.text.split_whitespace() {
            *counts.entry(word).or_insert(0) += 1;
        }
        assert_eq!(ours::word_count(&inputs), counts);

        println!(
            "\n[par-iter] parallel iterators vs rayon's, same code, same process (best of at least {rounds} rounds, more until each side has run {} ms; rayon/ours > 1: stealpool faster)",
            MIN_SIDE_TIME.as_millis()
        );
        println!(
            "  {:<34} {:>7} {:>6} {:>11} {:>11} {:>11} {:>13}",
            "workload", "workers", "rounds", "stealpool", "rayon", "rayon/ours", "median ratio"
        );
        for workers in [1, 2] {
            let pool = stealpool::ThreadPool::new(workers);
            let rayon = rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .expect("a rayon pool");
            let rows: [(&str, Race); 5] = [
                (
                    "sum of squares, 4M u64",
                    race(
                        rounds,
                        || pool.install(|| ours::sum_of_squares(&inputs)),
                        || rayon.install(|| theirs::sum_of_squares(&inputs)),
                    ),
                ),
                (
                    "map + collect Vec, 4M u64",
                    race(
                        rounds,
                        || pool.install(|| ours::map_collect(&inputs)),
                        || rayon.install(|| theirs::map_collect(&inputs)),
                    ),
                ),
                (
                    "filter + count, 4M u64",
                    race(
                        rounds,
                        || pool.install(|| ours::filter_count(&inputs)),
                        || rayon.install(|| theirs::filter_count(&inputs)),
                    ),
                ),
                (
                    "word count, 2M words (fold+reduce)",
                    race(
                        rounds,
                        || pool.install(|| ours::word_count(&inputs)),
                        || rayon.install(|| theirs::word_count(&inputs)),
                    ),
                ),
                (
                    "par_sort, 2M u64",
                    race(
                        rounds,
                        // The clone is timed too, on both sides alike.
                        || pool.install(|| ours::sort(inputs.unsorted.clone())).len(),
                        || rayon.install(|| theirs::sort(inputs.unsorted.clone())).len(),
                    ),
                ),
            ];
            for (name, race) in rows {
                let ratio = |theirs: Duration, ours: Duration| theirs.as_secs_f64() / ours.as_secs_f64();
                println!(
                    "  {name:<34} {workers:>7} {:>6} {:>8.2} ms {:>8.2} ms {:>11.2} {:>13.2}",
                    race.rounds,
                    race.ours.best.as_secs_f64() * 1e3,
                    race.theirs.best.as_secs_f64() * 1e3,
                    ratio(race.theirs.best, race.ours.best),
                    ratio(race.theirs.median, race.ours.median),
                );
            }
        }
    }
}
