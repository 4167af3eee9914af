//! The generator the fork-join and soak tests (`pool_fork_join`,
//! `pool_soak`) draw from.

/// A xorshift64* generator: cheap, deterministic for a given seed.
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A generator for a child, independent of this one's later draws.
    pub fn fork(&mut self) -> Rng {
        Rng::new(self.next())
    }
}
