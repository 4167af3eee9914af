//! [`PanicFuse`]: once a closure panics in any piece, every other piece
//! stops at its next item (the panic still reaches the caller, after the
//! pieces running have stopped). The fuse is a flag, a hint as
//! `find_any`'s is (I5).

use crate::iter::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use crate::sync::{AtomicBool, Ordering};

/// The iterator of [`ParallelIterator::panic_fuse`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let fused: stealpool::iter::PanicFuse<_> = (0..100u32).into_par_iter().panic_fuse();
/// assert_eq!(fused.sum::<u32>(), 4_950);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct PanicFuse<I> {
    base: I,
}

impl<I> PanicFuse<I> {
    pub(crate) fn new(base: I) -> Self {
        PanicFuse { base }
    }
}

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let blown = AtomicBool::new(false);
        self.base.drive_unindexed(FuseConsumer {
            base: consumer,
            blown: &blown,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for PanicFuse<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let blown = AtomicBool::new(false);
        return self.base.with_producer(Callback {
            callback,
            blown: &blown,
        });

        struct Callback<'f, CB> {
            callback: CB,
            blown: &'f AtomicBool,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<'_, CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let blown = self.blown;
                self.callback.callback(FuseProducer { base, blown })
            }
        }
    }
}

/// [`PanicFuse`]'s producer: each piece's fold runs with a fused folder.
struct FuseProducer<'f, P> {
    base: P,
    blown: &'f AtomicBool,
}

impl<P: Producer> Producer for FuseProducer<'_, P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let blown = self.blown;
        (
            FuseProducer { base: left, blown },
            FuseProducer { base: right, blown },
        )
    }

    fn fold_with<G: Folder<P::Item>>(self, folder: G) -> G {
        let fuse = Fuse(self.blown);
        self.base.fold_with(FuseFolder { base: folder, fuse }).base
    }

    fn fold_rev_with<G: Folder<P::Item>>(self, folder: G) -> G {
        let fuse = Fuse(self.blown);
        self.base.fold_rev_with(FuseFolder { base: folder, fuse }).base
    }
}

/// Blows the fuse when dropped during a panic: the folder of a piece
/// holds one, so a panic anywhere in the piece's fold sets it.
struct Fuse<'f>(&'f AtomicBool);

impl Drop for Fuse<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // Relaxed: a hint to stop early (I5); the panic itself travels
            // through `join`.
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

/// [`PanicFuse`]'s consumer.
struct FuseConsumer<'f, C> {
    base: C,
    blown: &'f AtomicBool,
}

impl<C> FuseConsumer<'_, C> {
    fn blown(&self) -> bool {
        // Relaxed: a hint (I5).
        self.blown.load(Ordering::Relaxed)
    }
}

impl<'f, T, C: Consumer<T>> Consumer<T> for FuseConsumer<'f, C> {
    type Folder = FuseFolder<'f, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let blown = self.blown;
        (
            FuseConsumer { base: left, blown },
            FuseConsumer { base: right, blown },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        FuseFolder {
            base: self.base.into_folder(),
            fuse: Fuse(self.blown),
        }
    }

    fn full(&self) -> bool {
        self.blown() || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for FuseConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        FuseConsumer {
            base: self.base.split_off_left(),
            blown: self.blown,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// [`PanicFuse`]'s folder: its base, and the fuse it blows if dropped in a panic.
struct FuseFolder<'f, F> {
    base: F,
    fuse: Fuse<'f>,
}

impl<T, F: Folder<T>> Folder<T> for FuseFolder<'_, F> {
    type Result = F::Result;

    fn consume(self, item: T) -> Self {
        let FuseFolder { base, fuse } = self;
        FuseFolder {
            base: base.consume(item),
            fuse,
        }
    }

    /// Checks the fuse before every item, the first one too: a piece
    /// that starts after another piece's panic takes none.
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        for item in iter {
            if self.full() {
                break;
            }
            self = self.consume(item);
        }
        self
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        // Relaxed: a hint (I5).
        self.fuse.0.load(Ordering::Relaxed) || self.base.full()
    }
}
