//! Parallel loops and reductions: [`for_each`](ThreadPool::for_each),
//! [`for_each_range`](ThreadPool::for_each_range),
//! [`for_each_chunk`](ThreadPool::for_each_chunk),
//! [`for_each_chunk_mut`](ThreadPool::for_each_chunk_mut) and
//! [`reduce`](ThreadPool::reduce), all cut up by the same adaptive splitting
//! (`reduce_pieces`, `chunk_pieces`, over a [`Splitter`]).

use super::splitter::Splitter;
use crate::ThreadPool;
use std::ops::Range;

/// Parallel loops.
impl ThreadPool {
    /// Calls `f(i)` for every `i` in `range`, in parallel, in no particular
    /// order. Returns when all calls have returned; a panic in `f` is
    /// re-raised here once the others have finished.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let squares: Vec<AtomicU64> = (0..100).map(|_| AtomicU64::new(0)).collect();
    /// pool.for_each(0..100, |i| squares[i].store((i * i) as u64, Ordering::Relaxed));
    /// assert_eq!(squares[9].load(Ordering::Relaxed), 81);
    /// ```
    pub fn for_each<F>(&self, range: Range<usize>, f: F)
    where
        F: Fn(usize) + Sync,
    {
        self.for_each_range(range, |piece| piece.for_each(&f));
    }

    /// Calls `f` on disjoint sub-ranges that together cover `range`, in
    /// parallel. Handing `f` a whole piece lets its loop vectorize and keep
    /// per-piece state (an accumulator, a buffer) out of the inner loop.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let total = AtomicU64::new(0);
    /// pool.for_each_range(0..1_000, |piece| {
    ///     let sum: u64 = piece.map(|i| i as u64).sum();
    ///     total.fetch_add(sum, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 999 * 1_000 / 2);
    /// ```
    pub fn for_each_range<F>(&self, range: Range<usize>, f: F)
    where
        F: Fn(Range<usize>) + Sync,
    {
        if range.is_empty() {
            return;
        }
        let splits = Splitter::new(self.num_workers());
        self.install(|| self.reduce_pieces(range, splits, &|piece| f(piece), &|(), ()| ()));
    }

    /// Maps every index in `range` with `map` and combines the results with
    /// `op`, in parallel; `identity()` is the result of an empty range.
    ///
    /// `op` must be associative and `identity()` its neutral element; it
    /// need not be commutative: results are combined in index order, as
    /// `op(op(op(identity(), map(start)), map(start + 1)), ...)` would.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// let sum = pool.reduce(0..1_000_000, || 0u64, |i| i as u64, |a, b| a + b);
    /// assert_eq!(sum, 999_999 * 1_000_000 / 2);
    ///
    /// // Order is kept: concatenation is associative, not commutative.
    /// let digits = pool.reduce(0..10, String::new, |i| i.to_string(), |a, b| a + &b);
    /// assert_eq!(digits, "0123456789");
    /// ```
    pub fn reduce<T, Id, Map, Op>(&self, range: Range<usize>, identity: Id, map: Map, op: Op) -> T
    where
        T: Send,
        Id: Fn() -> T + Sync,
        Map: Fn(usize) -> T + Sync,
        Op: Fn(T, T) -> T + Sync,
    {
        if range.is_empty() {
            return identity();
        }
        let leaf = |piece: Range<usize>| piece.fold(identity(), |acc, i| op(acc, map(i)));
        let splits = Splitter::new(self.num_workers());
        self.install(|| self.reduce_pieces(range, splits, &leaf, &op))
    }

    /// Splits `range` in halves while `splits` allows, runs `leaf` on each
    /// piece and combines the pieces' results in order with `op`.
    ///
    /// The budget halves at each level; a right half that another worker
    /// steals gets a fresh one there ([`Splitter`]).
    fn reduce_pieces<T, Leaf, Op>(&self, range: Range<usize>, splits: Splitter, leaf: &Leaf, op: &Op) -> T
    where
        T: Send,
        Leaf: Fn(Range<usize>) -> T + Sync,
        Op: Fn(T, T) -> T + Sync,
    {
        let Some((half, right_half)) = splits.split().filter(|_| range.len() >= 2) else {
            return leaf(range);
        };
        let mid = range.start + range.len() / 2;
        let (left, right) = self.join(
            || self.reduce_pieces(range.start..mid, half, leaf, op),
            || self.reduce_pieces(mid..range.end, right_half.arrive(), leaf, op),
        );
        op(left, right)
    }

    /// Calls `f(i, chunk)` for every `chunk_len`-long chunk of `v` (the
    /// last may be shorter), `i` being the chunk's index, in parallel. The
    /// chunks are split between workers as in [`for_each`](ThreadPool::for_each).
    ///
    /// # Panics
    ///
    /// If `chunk_len` is 0.
    ///
    /// ```
    /// let pool = stealpool::ThreadPool::new(2);
    /// // A 4 × 3 image, one row per chunk.
    /// let mut pixels = vec![0u32; 4 * 3];
    /// pool.for_each_chunk_mut(&mut pixels, 4, |row, line| {
    ///     for (column, pixel) in line.iter_mut().enumerate() {
    ///         *pixel = (row * 10 + column) as u32;
    ///     }
    /// });
    /// assert_eq!(pixels[4..8], [10, 11, 12, 13]);
    /// ```
    pub fn for_each_chunk_mut<T, F>(&self, v: &mut [T], chunk_len: usize, f: F)
    where
        T: Send,
        F: Fn(usize, &mut [T]) + Sync,
    {
        assert!(chunk_len > 0, "for_each_chunk_mut: chunk_len must be positive");
        if v.is_empty() {
            return;
        }
        let splits = Splitter::new(self.num_workers());
        self.install(|| self.chunk_pieces(v, 0, chunk_len, splits, &f));
    }

    /// Calls `f(i, chunk)` for every `chunk_len`-long chunk of `v` (the
    /// last may be shorter), `i` being the chunk's index, in parallel: the
    /// read-only [`for_each_chunk_mut`](ThreadPool::for_each_chunk_mut).
    ///
    /// # Panics
    ///
    /// If `chunk_len` is 0, as [`slice::chunks`] does.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// let pool = stealpool::ThreadPool::new(2);
    /// let samples: Vec<u64> = (0..1_000).collect();
    /// let maxima: Vec<AtomicU64> = (0..10).map(|_| AtomicU64::new(0)).collect();
    /// pool.for_each_chunk(&samples, 100, |i, chunk| {
    ///     maxima[i].store(*chunk.iter().max().unwrap(), Ordering::Relaxed);
    /// });
    /// assert_eq!(maxima[3].load(Ordering::Relaxed), 399);
    /// ```
    pub fn for_each_chunk<T, F>(&self, v: &[T], chunk_len: usize, f: F)
    where
        T: Sync,
        F: Fn(usize, &[T]) + Sync,
    {
        assert!(chunk_len > 0, "for_each_chunk: chunk_len must be positive");
        let chunks = v.len().div_ceil(chunk_len);
        self.for_each_range(0..chunks, |piece| {
            let start = piece.start * chunk_len;
            let end = (piece.end * chunk_len).min(v.len());
            for (i, chunk) in v[start..end].chunks(chunk_len).enumerate() {
                f(piece.start + i, chunk);
            }
        });
    }

    /// [`reduce_pieces`](ThreadPool::reduce_pieces) over the chunks of a
    /// slice; `first` is the index of `v`'s first chunk.
    fn chunk_pieces<T, F>(&self, v: &mut [T], first: usize, chunk_len: usize, splits: Splitter, f: &F)
    where
        T: Send,
        F: Fn(usize, &mut [T]) + Sync,
    {
        let chunks = v.len().div_ceil(chunk_len);
        let Some((half, right_half)) = splits.split().filter(|_| chunks >= 2) else {
            for (i, chunk) in v.chunks_mut(chunk_len).enumerate() {
                f(first + i, chunk);
            }
            return;
        };
        let half_chunks = chunks / 2;
        let (left, right) = v.split_at_mut(half_chunks * chunk_len);
        self.join(
            || self.chunk_pieces(left, first, chunk_len, half, f),
            || self.chunk_pieces(right, first + half_chunks, chunk_len, right_half.arrive(), f),
        );
    }
}
