//! Strings as parallel iterators: [`par_split_whitespace`](ParallelString::par_split_whitespace)
//! and [`par_lines`](ParallelString::par_lines). A piece of text is split
//! at a separator near its middle, so no word or line is cut in two.

use super::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use super::ParallelIterator;

/// Pieces of text that are cheaper to scan sequentially than to split.
const MIN_SPLIT: usize = 1 << 10;

/// Parallel iterators over the parts of a string: rayon's `ParallelString`.
///
/// ```
/// use stealpool::prelude::*;
///
/// let words = "the quick  brown\tfox".par_split_whitespace().count();
/// assert_eq!(words, 4);
/// ```
pub trait ParallelString {
    /// The string itself.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!("abc".as_parallel_string(), "abc");
    /// ```
    fn as_parallel_string(&self) -> &str;

    /// The whitespace-separated words, as [`str::split_whitespace`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let words: Vec<&str> = " a  bc\nd ".par_split_whitespace().collect();
    /// assert_eq!(words, ["a", "bc", "d"]);
    /// ```
    fn par_split_whitespace(&self) -> SplitWhitespace<'_> {
        SplitWhitespace {
            text: self.as_parallel_string(),
        }
    }

    /// The lines, as [`str::lines`] (without their `\n` or `\r\n`).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let lines: Vec<&str> = "one\ntwo\r\nthree".par_lines().collect();
    /// assert_eq!(lines, ["one", "two", "three"]);
    /// ```
    fn par_lines(&self) -> Lines<'_> {
        Lines {
            text: self.as_parallel_string(),
        }
    }
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

/// Splits `text` at a character chosen by `is_separator` near its middle:
/// the index of the first such character at or after the middle, else the
/// last one before it.
fn separator_near_middle(text: &str, is_separator: impl Fn(char) -> bool) -> Option<(usize, char)> {
    let mut mid = text.len() / 2;
    while !text.is_char_boundary(mid) {
        mid += 1;
    }
    let (before, after) = text.split_at(mid);
    let forward = after.char_indices().find(|&(_, c)| is_separator(c));
    forward
        .map(|(i, c)| (mid + i, c))
        .or_else(|| before.char_indices().rev().find(|&(_, c)| is_separator(c)))
}

/// The iterator of [`par_split_whitespace`](ParallelString::par_split_whitespace).
///
/// ```
/// use stealpool::prelude::*;
///
/// let words: stealpool::iter::SplitWhitespace<'_> = "a b".par_split_whitespace();
/// assert_eq!(words.map(str::len).sum::<usize>(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct SplitWhitespace<'a> {
    text: &'a str,
}

impl<'a> ParallelIterator for SplitWhitespace<'a> {
    type Item = &'a str;

    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        bridge_unindexed(self, consumer)
    }
}

impl<'a> UnindexedProducer for SplitWhitespace<'a> {
    type Item = &'a str;

    fn split(self) -> (Self, Option<Self>) {
        if self.text.len() < MIN_SPLIT {
            return (self, None);
        }
        match separator_near_middle(self.text, char::is_whitespace) {
            // Both sides keep their own words; the separator goes right,
            // where it is skipped as leading whitespace.
            Some((at, _)) if at > 0 => {
                let (left, right) = self.text.split_at(at);
                (
                    SplitWhitespace { text: left },
                    Some(SplitWhitespace { text: right }),
                )
            }
            _ => (self, None),
        }
    }

    fn fold_with<F: Folder<&'a str>>(self, folder: F) -> F {
        folder.consume_iter(self.text.split_whitespace())
    }
}

/// The iterator of [`par_lines`](ParallelString::par_lines).
///
/// ```
/// use stealpool::prelude::*;
///
/// let lines: stealpool::iter::Lines<'_> = "a\nb".par_lines();
/// assert_eq!(lines.count(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    text: &'a str,
}

impl<'a> ParallelIterator for Lines<'a> {
    type Item = &'a str;

    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        bridge_unindexed(self, consumer)
    }
}

impl<'a> UnindexedProducer for Lines<'a> {
    type Item = &'a str;

    fn split(self) -> (Self, Option<Self>) {
        if self.text.len() < MIN_SPLIT {
            return (self, None);
        }
        match separator_near_middle(self.text, |c| c == '\n') {
            // The left side keeps its `\n`, so it ends with a whole line;
            // a right side that would be empty is not split off.
            Some((at, _)) if at + 1 < self.text.len() => {
                let (left, right) = self.text.split_at(at + 1);
                (Lines { text: left }, Some(Lines { text: right }))
            }
            _ => (self, None),
        }
    }

    fn fold_with<F: Folder<&'a str>>(self, folder: F) -> F {
        folder.consume_iter(self.text.lines())
    }
}
