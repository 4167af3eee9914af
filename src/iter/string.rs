//! Strings as parallel iterators: [`par_split_whitespace`](ParallelString::par_split_whitespace)
//! and [`par_lines`](ParallelString::par_lines), where a piece of text is
//! split at a separator near its middle, so no word or line is cut in
//! two; and [`par_chars`](ParallelString::par_chars),
//! [`par_char_indices`](ParallelString::par_char_indices),
//! [`par_bytes`](ParallelString::par_bytes) and
//! [`par_encode_utf16`](ParallelString::par_encode_utf16), where it is
//! split at the character boundary nearest its middle.

use super::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use super::ParallelIterator;
use std::marker::PhantomData;

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

    /// The characters, in order, as [`str::chars`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!("héllo".par_chars().filter(|c| c.is_ascii()).count(), 4);
    /// ```
    fn par_chars(&self) -> Chars<'_> {
        Chars {
            text: self.as_parallel_string(),
        }
    }

    /// The characters with their byte positions, as [`str::char_indices`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let v: Vec<(usize, char)> = "hé!".par_char_indices().collect();
    /// assert_eq!(v, [(0, 'h'), (1, 'é'), (3, '!')]);
    /// ```
    fn par_char_indices(&self) -> CharIndices<'_> {
        CharIndices {
            text: self.as_parallel_string(),
        }
    }

    /// The bytes, as [`str::bytes`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!("abc".par_bytes().map(u32::from).sum::<u32>(), 294);
    /// ```
    fn par_bytes(&self) -> Bytes<'_> {
        Bytes {
            text: self.as_parallel_string(),
        }
    }

    /// The UTF-16 code units, as [`str::encode_utf16`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// assert_eq!("a😀".par_encode_utf16().count(), 3);
    /// ```
    fn par_encode_utf16(&self) -> EncodeUtf16<'_> {
        EncodeUtf16 {
            text: self.as_parallel_string(),
        }
    }
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

/// How a kind of piece of text is cut: at which character near the middle,
/// where the cut goes relative to it, and how a piece is iterated.
trait Cut {
    /// The separators it may be cut at.
    fn is_separator(c: char) -> bool;
    /// The cut for a separator at byte `at` that is `len` bytes long:
    /// `None` if cutting there would leave a side without items.
    fn cut_at(text: &str, at: usize, len: usize) -> Option<usize>;
    /// Feeds the piece's items to `folder`.
    fn fold<'a, F: Folder<&'a str>>(text: &'a str, folder: F) -> F;
}

/// Words: cut before a whitespace character, which the right side then
/// skips as leading whitespace.
struct Words;

impl Cut for Words {
    fn is_separator(c: char) -> bool {
        c.is_whitespace()
    }

    fn cut_at(_text: &str, at: usize, _len: usize) -> Option<usize> {
        (at > 0).then_some(at)
    }

    fn fold<'a, F: Folder<&'a str>>(text: &'a str, folder: F) -> F {
        folder.consume_iter(text.split_whitespace())
    }
}

/// Lines: cut after a `\n`, so the left side ends with a whole line; not
/// when nothing follows it.
struct LineBreaks;

impl Cut for LineBreaks {
    fn is_separator(c: char) -> bool {
        c == '\n'
    }

    fn cut_at(text: &str, at: usize, len: usize) -> Option<usize> {
        (at + len < text.len()).then_some(at + len)
    }

    fn fold<'a, F: Folder<&'a str>>(text: &'a str, folder: F) -> F {
        folder.consume_iter(text.lines())
    }
}

/// A piece of text cut as `K` says: the producer of both iterators.
struct Text<'a, K> {
    text: &'a str,
    kind: PhantomData<K>,
}

impl<'a, K> Text<'a, K> {
    fn new(text: &'a str) -> Self {
        Text {
            text,
            kind: PhantomData,
        }
    }
}

impl<'a, K: Cut + Send> UnindexedProducer for Text<'a, K> {
    type Item = &'a str;

    fn split(self) -> (Self, Option<Self>) {
        if self.text.len() < MIN_SPLIT {
            return (self, None);
        }
        // The first separator at or after the middle, else the last one
        // before it.
        let mut mid = self.text.len() / 2;
        while !self.text.is_char_boundary(mid) {
            mid += 1;
        }
        let (before, after) = self.text.split_at(mid);
        let separator = after
            .char_indices()
            .find(|&(_, c)| K::is_separator(c))
            .map(|(i, c)| (mid + i, c))
            .or_else(|| before.char_indices().rev().find(|&(_, c)| K::is_separator(c)));
        match separator.and_then(|(at, c)| K::cut_at(self.text, at, c.len_utf8())) {
            Some(cut) => {
                let (left, right) = self.text.split_at(cut);
                (Text::new(left), Some(Text::new(right)))
            }
            None => (self, None),
        }
    }

    fn fold_with<F: Folder<&'a str>>(self, folder: F) -> F {
        K::fold(self.text, folder)
    }
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
        bridge_unindexed(Text::<Words>::new(self.text), consumer)
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
        bridge_unindexed(Text::<LineBreaks>::new(self.text), consumer)
    }
}

/// What a piece of text split at character boundaries yields.
trait Scan {
    /// The items.
    type Item;
    /// Feeds the items of `text`, which starts at byte `offset` of the
    /// whole string, to `folder`.
    fn fold<F: Folder<Self::Item>>(text: &str, offset: usize, folder: F) -> F;
}

/// A piece of text, `offset` bytes into the whole, split at the character
/// boundary nearest its middle: the producer of the four iterators below.
struct Span<'a, K> {
    text: &'a str,
    offset: usize,
    kind: PhantomData<K>,
}

impl<K: Scan<Item: Send> + Send> UnindexedProducer for Span<'_, K> {
    type Item = K::Item;

    fn split(self) -> (Self, Option<Self>) {
        if self.text.len() < MIN_SPLIT {
            return (self, None);
        }
        // A piece of at least `MIN_SPLIT` bytes has a boundary strictly
        // inside it within 3 bytes of the middle.
        let mut mid = self.text.len() / 2;
        while !self.text.is_char_boundary(mid) {
            mid += 1;
        }
        let (left, right) = self.text.split_at(mid);
        let kind = PhantomData;
        let right = Span {
            text: right,
            offset: self.offset + mid,
            kind,
        };
        (
            Span {
                text: left,
                offset: self.offset,
                kind,
            },
            Some(right),
        )
    }

    fn fold_with<F: Folder<K::Item>>(self, folder: F) -> F {
        K::fold(self.text, self.offset, folder)
    }
}

/// Declares a string iterator over a [`Scan`] kind.
macro_rules! scan_iterator {
    ($(#[$doc:meta])* $name:ident, $kind:ident, item $item:ty, fold |$text:ident, $offset:ident| $body:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name<'a> {
            text: &'a str,
        }

        /// The kind of [`Span`] of the iterator of the same name.
        struct $kind;

        impl Scan for $kind {
            type Item = $item;
            fn fold<F: Folder<$item>>($text: &str, $offset: usize, folder: F) -> F {
                folder.consume_iter($body)
            }
        }

        impl ParallelIterator for $name<'_> {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                let span = Span::<$kind> {
                    text: self.text,
                    offset: 0,
                    kind: PhantomData,
                };
                bridge_unindexed(span, consumer)
            }
        }
    };
}

scan_iterator!(
    /// The iterator of [`par_chars`](ParallelString::par_chars).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let c: stealpool::iter::Chars<'_> = "ab".par_chars();
    /// assert_eq!(c.collect::<String>(), "ab");
    /// ```
    Chars, CharsKind, item char, fold |text, _offset| text.chars()
);

scan_iterator!(
    /// The iterator of [`par_char_indices`](ParallelString::par_char_indices).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let c: stealpool::iter::CharIndices<'_> = "ab".par_char_indices();
    /// assert_eq!(c.map(|(i, _)| i).sum::<usize>(), 1);
    /// ```
    CharIndices, CharIndicesKind, item (usize, char),
    fold |text, offset| text.char_indices().map(move |(i, c)| (offset + i, c))
);

scan_iterator!(
    /// The iterator of [`par_bytes`](ParallelString::par_bytes).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let b: stealpool::iter::Bytes<'_> = "é".par_bytes();
    /// assert_eq!(b.count(), 2);
    /// ```
    Bytes, BytesKind, item u8, fold |text, _offset| text.bytes()
);

scan_iterator!(
    /// The iterator of [`par_encode_utf16`](ParallelString::par_encode_utf16).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let u: stealpool::iter::EncodeUtf16<'_> = "é".par_encode_utf16();
    /// assert_eq!(u.collect::<Vec<_>>(), [0xe9]);
    /// ```
    EncodeUtf16, EncodeUtf16Kind, item u16, fold |text, _offset| text.encode_utf16()
);
