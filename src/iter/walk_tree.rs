//! [`walk_tree_prefix`], [`walk_tree_postfix`] and [`walk_tree`]: the
//! nodes of a tree given by its root and a closure that lists a node's
//! children.
//!
//! A piece is a sequence of subtrees still to walk and nodes whose
//! subtrees are already laid out. It splits in halves when it has two or
//! more; a piece of one subtree lays out its root's children first (for
//! the prefix order, the root then the children's subtrees; for the
//! postfix order, the subtrees then the root), so the pieces together
//! keep the sequential order.

use super::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use super::ParallelIterator;
use std::fmt;

/// The nodes of the tree under `root`, in prefix order (each node before
/// its children's subtrees, which come in the order `children_of` gives
/// them), as a sequential depth-first walk meets them.
///
/// ```
/// use stealpool::prelude::*;
///
/// // The tree 1 -> (2 -> (4, 5), 3).
/// let children = |&n: &u32| if n < 3 { vec![2 * n, 2 * n + 1] } else { vec![] };
/// let nodes: Vec<u32> = stealpool::iter::walk_tree_prefix(1u32, |n| children(n).into_iter().filter(|&c| c < 6)).collect();
/// assert_eq!(nodes, [1, 2, 4, 5, 3]);
/// ```
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    WalkTreePrefix { root, children_of }
}

/// The nodes of the tree under `root`, in postfix order (each node after
/// its children's subtrees).
///
/// ```
/// use stealpool::prelude::*;
///
/// let children = |&n: &u32| if n < 3 { vec![2 * n, 2 * n + 1] } else { vec![] };
/// let nodes: Vec<u32> = stealpool::iter::walk_tree_postfix(1u32, |n| children(n).into_iter().filter(|&c| c < 6)).collect();
/// assert_eq!(nodes, [4, 5, 2, 3, 1]);
/// ```
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePostfix { root, children_of }
}

/// The nodes of the tree under `root`, in an order not promised (today
/// the postfix one).
///
/// ```
/// use stealpool::prelude::*;
///
/// let sum: u32 = stealpool::iter::walk_tree(1u32, |&n| if n < 8 { vec![2 * n, 2 * n + 1] } else { vec![] }).sum();
/// assert_eq!(sum, (1..16).sum());
/// ```
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    WalkTree(walk_tree_postfix(root, children_of))
}

/// Declares a walk's iterator type, with `Debug` showing the root only.
macro_rules! walk_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone)]
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<S, B> {
            root: S,
            children_of: B,
        }

        impl<S: fmt::Debug, B> fmt::Debug for $name<S, B> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("root", &self.root).finish_non_exhaustive()
            }
        }
    };
}

walk_type!(
    /// The iterator of [`walk_tree_prefix`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let w: stealpool::iter::WalkTreePrefix<u8, _> = stealpool::iter::walk_tree_prefix(0u8, |_| None);
    /// assert_eq!(w.count(), 1);
    /// ```
    WalkTreePrefix
);

walk_type!(
    /// The iterator of [`walk_tree_postfix`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let w: stealpool::iter::WalkTreePostfix<u8, _> = stealpool::iter::walk_tree_postfix(0u8, |_| None);
    /// assert_eq!(w.count(), 1);
    /// ```
    WalkTreePostfix
);

/// The iterator of [`walk_tree`].
///
/// ```
/// use stealpool::prelude::*;
///
/// let w: stealpool::iter::WalkTree<u8, _> = stealpool::iter::walk_tree(0u8, |_| None);
/// assert_eq!(w.count(), 1);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct WalkTree<S, B>(WalkTreePostfix<S, B>);

impl<S: fmt::Debug, B> fmt::Debug for WalkTree<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("WalkTree").field(&self.0).finish()
    }
}

/// One part of a piece of a walk.
enum Part<S> {
    /// A node whose subtree is still to walk.
    Subtree(S),
    /// A node alone: its children are laid out elsewhere in the piece.
    Node(S),
}

/// A piece of a walk: its parts, in order, and the closure.
struct Walk<'b, S, B, const PREFIX: bool> {
    parts: Vec<Part<S>>,
    children_of: &'b B,
}

impl<S, B, I, const PREFIX: bool> UnindexedProducer for Walk<'_, S, B, PREFIX>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn split(mut self) -> (Self, Option<Self>) {
        if let [Part::Subtree(_)] = self.parts[..] {
            let Some(Part::Subtree(root)) = self.parts.pop() else {
                unreachable!("matched above")
            };
            let children = (self.children_of)(&root).into_iter().map(Part::Subtree);
            if PREFIX {
                self.parts.push(Part::Node(root));
                self.parts.extend(children);
            } else {
                self.parts.extend(children);
                self.parts.push(Part::Node(root));
            }
        }
        if self.parts.len() < 2 {
            return (self, None);
        }
        let right = self.parts.split_off(self.parts.len() / 2);
        let children_of = self.children_of;
        (
            self,
            Some(Walk {
                parts: right,
                children_of,
            }),
        )
    }

    fn fold_with<F: Folder<S>>(self, mut folder: F) -> F {
        for part in self.parts {
            if folder.full() {
                break;
            }
            folder = match part {
                Part::Node(node) => folder.consume(node),
                Part::Subtree(root) if PREFIX => prefix(root, self.children_of, folder),
                Part::Subtree(root) => postfix(root, self.children_of, folder),
            };
        }
        folder
    }
}

/// Feeds the subtree under `root` to `folder` in prefix order, with a
/// stack of the children still to visit (a deep tree needs no deep call
/// stack).
fn prefix<S, B, I, F>(root: S, children_of: &B, mut folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    let mut stack = vec![children_of(&root).into_iter()];
    folder = folder.consume(root);
    while let Some(children) = stack.last_mut() {
        if folder.full() {
            break;
        }
        match children.next() {
            Some(child) => {
                let grandchildren = children_of(&child).into_iter();
                folder = folder.consume(child);
                stack.push(grandchildren);
            }
            None => _ = stack.pop(),
        }
    }
    folder
}

/// Feeds the subtree under `root` to `folder` in postfix order, with a
/// stack of the nodes on the path and their children still to visit.
fn postfix<S, B, I, F>(root: S, children_of: &B, mut folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    let children = children_of(&root).into_iter();
    let mut stack = vec![(root, children)];
    while let Some((_, children)) = stack.last_mut() {
        if folder.full() {
            break;
        }
        match children.next() {
            Some(child) => {
                let grandchildren = children_of(&child).into_iter();
                stack.push((child, grandchildren));
            }
            None => {
                let (node, _) = stack.pop().expect("the stack has a top");
                folder = folder.consume(node);
            }
        }
    }
    folder
}

/// Declares a walk's `ParallelIterator`.
macro_rules! walk_iterator {
    ($name:ident, $prefix:expr, $($bound:tt)*) => {
        impl<S, B, I> ParallelIterator for $name<S, B>
        where
            S: Send,
            B: Fn(&S) -> I + Send + Sync,
            I: $($bound)*,
        {
            type Item = S;

            fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
                let walk = Walk::<S, B, { $prefix }> {
                    parts: vec![Part::Subtree(self.root)],
                    children_of: &self.children_of,
                };
                bridge_unindexed(walk, consumer)
            }
        }
    };
}

walk_iterator!(WalkTreePrefix, true, IntoIterator<Item = S, IntoIter: DoubleEndedIterator>);
walk_iterator!(WalkTreePostfix, false, IntoIterator<Item = S>);

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S, IntoIter: DoubleEndedIterator>,
{
    type Item = S;

    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        self.0.drive_unindexed(consumer)
    }
}
