//! Strings as parallel iterators: [`par_split_whitespace`](ParallelString::par_split_whitespace)
//! and [`par_lines`](ParallelString::par_lines), where a piece of text is
//! split at a separator near its middle, so no word or line is cut in
//! two; and [`par_chars`](ParallelString::par_chars),
//! [`par_char_indices`](ParallelString::par_char_indices),
//! [`par_bytes`](ParallelString::par_bytes) and
//! [`par_encode_utf16`](ParallelString::par_encode_utf16), where it is
//! split at the character boundary nearest its middle.
//!
//! [`par_split`](ParallelString::par_split) and its kin cut at a separator
//! that a [`Pattern`] accepts, near the middle, as `par_lines` does;
//! [`par_matches`](ParallelString::par_matches) and
//! [`par_match_indices`](ParallelString::par_match_indices) at the
//! character boundary nearest the middle, since a pattern matches one
//! character.

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

    /// The pieces between the separators, as [`str::split`]: a separator
    /// is a character, one of a slice or array of characters, or one a
    /// closure accepts (see [`Pattern`]).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let total: i32 = "1, 2, x, 3,,4".par_split(',').filter_map(|s| s.trim().parse::<i32>().ok()).sum();
    /// assert_eq!(total, 10);
    /// let parts: Vec<&str> = "a-b_c".par_split(['-', '_']).collect();
    /// assert_eq!(parts, ["a", "b", "c"]);
    /// ```
    fn par_split<P: Pattern>(&self, separator: P) -> StrSplit<'_, P> {
        StrSplit {
            text: self.as_parallel_string(),
            pattern: separator,
        }
    }

    /// The pieces each ended by its separator (the last one perhaps not),
    /// as [`str::split_inclusive`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let parts: Vec<&str> = "a\nb\nc".par_split_inclusive('\n').collect();
    /// assert_eq!(parts, ["a\n", "b\n", "c"]);
    /// ```
    fn par_split_inclusive<P: Pattern>(&self, separator: P) -> StrSplitInclusive<'_, P> {
        StrSplitInclusive {
            text: self.as_parallel_string(),
            pattern: separator,
        }
    }

    /// The pieces each ended by a terminator, as [`str::split_terminator`]:
    /// as [`par_split`](ParallelString::par_split), but without the empty
    /// piece after a terminator that ends the string.
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let parts: Vec<&str> = "a;b;;".par_split_terminator(';').collect();
    /// assert_eq!(parts, ["a", "b", ""]);
    /// ```
    fn par_split_terminator<P: Pattern>(&self, terminator: P) -> StrSplitTerminator<'_, P> {
        StrSplitTerminator {
            text: self.as_parallel_string(),
            pattern: terminator,
        }
    }

    /// The words separated by ASCII whitespace, as
    /// [`str::split_ascii_whitespace`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let words: Vec<&str> = " a\u{a0}b \tc ".par_split_ascii_whitespace().collect();
    /// assert_eq!(words, ["a\u{a0}b", "c"]);
    /// ```
    fn par_split_ascii_whitespace(&self) -> SplitAsciiWhitespace<'_> {
        SplitAsciiWhitespace {
            text: self.as_parallel_string(),
        }
    }

    /// The characters that match `pattern`, each as a `&str`, as
    /// [`str::matches`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let digits: String = "a1b22c".par_matches(char::is_numeric).collect();
    /// assert_eq!(digits, "122");
    /// ```
    fn par_matches<P: Pattern>(&self, pattern: P) -> Matches<'_, P> {
        Matches {
            text: self.as_parallel_string(),
            pattern,
        }
    }

    /// The characters that match `pattern` with their byte positions, as
    /// [`str::match_indices`].
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let found: Vec<(usize, &str)> = "aé,b,".par_match_indices(',').collect();
    /// assert_eq!(found, [(3, ","), (5, ",")]);
    /// ```
    fn par_match_indices<P: Pattern>(&self, pattern: P) -> MatchIndices<'_, P> {
        MatchIndices {
            text: self.as_parallel_string(),
            pattern,
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

/// Words separated by ASCII whitespace: cut before an ASCII whitespace
/// character, as for [`Words`].
struct AsciiWords;

impl Cut for AsciiWords {
    fn is_separator(c: char) -> bool {
        c.is_ascii_whitespace()
    }

    fn cut_at(_text: &str, at: usize, _len: usize) -> Option<usize> {
        (at > 0).then_some(at)
    }

    fn fold<'a, F: Folder<&'a str>>(text: &'a str, folder: F) -> F {
        folder.consume_iter(text.split_ascii_whitespace())
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

/// The iterator of [`par_split_ascii_whitespace`](ParallelString::par_split_ascii_whitespace).
///
/// ```
/// use stealpool::prelude::*;
///
/// let words: stealpool::iter::SplitAsciiWhitespace<'_> = "a  b".par_split_ascii_whitespace();
/// assert_eq!(words.count(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct SplitAsciiWhitespace<'a> {
    text: &'a str,
}

impl<'a> ParallelIterator for SplitAsciiWhitespace<'a> {
    type Item = &'a str;

    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        bridge_unindexed(Text::<AsciiWords>::new(self.text), consumer)
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

mod sealed {
    /// Keeps [`Pattern`](super::Pattern) to the types it is written for.
    pub trait Sealed {}
}

/// What [`par_split`](ParallelString::par_split) and its kin take: one
/// character (`char`), any of some characters (`&[char]`, `[char; N]`,
/// `&[char; N]`), or the characters a closure accepts
/// (`Fn(char) -> bool`). These are the types rayon's `str::Pattern` is
/// written for; this one too is sealed.
///
/// ```
/// use stealpool::iter::Pattern;
///
/// assert!(['a', 'b'].matches_char('b'));
/// assert!(!'x'.matches_char('y'));
/// assert!(char::is_whitespace.matches_char(' '));
/// ```
pub trait Pattern: sealed::Sealed + Sized + Send + Sync {
    /// Whether the character `c` is one of the pattern's.
    fn matches_char(&self, c: char) -> bool;
}

impl sealed::Sealed for char {}
impl Pattern for char {
    fn matches_char(&self, c: char) -> bool {
        *self == c
    }
}

impl sealed::Sealed for &[char] {}
impl Pattern for &[char] {
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> sealed::Sealed for [char; N] {}
impl<const N: usize> Pattern for [char; N] {
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> sealed::Sealed for &[char; N] {}
impl<const N: usize> Pattern for &[char; N] {
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<F: Fn(char) -> bool + Send + Sync> sealed::Sealed for F {}
impl<F: Fn(char) -> bool + Send + Sync> Pattern for F {
    fn matches_char(&self, c: char) -> bool {
        self(c)
    }
}

/// How a piece of text is cut for an iterator over a [`Pattern`], and how
/// a piece is iterated.
trait PatternCut<'a> {
    /// The items.
    type Item: Send;
    /// Whether a piece is cut at the character boundary nearest its
    /// middle (the items are single characters), else at a separator.
    const ANYWHERE: bool;
    /// For a separator at byte `at` that is `len` bytes long, in a piece
    /// `text_len` bytes long: where the left side ends and the right side
    /// starts; `None` if a cut there would leave the piece whole.
    fn around(text_len: usize, at: usize, len: usize) -> Option<(usize, usize)>;
    /// Feeds the items of `text`, which starts at byte `offset` of the
    /// whole string and ends it if `last`, to `folder`.
    fn fold<P: Pattern, F: Folder<Self::Item>>(
        text: &'a str,
        offset: usize,
        last: bool,
        pattern: &P,
        folder: F,
    ) -> F;
}

/// A piece of the text of an iterator over a [`Pattern`]: the producer of
/// the five iterators below.
struct Piece<'a, 'p, P, K> {
    text: &'a str,
    /// Where the piece starts in the whole string.
    offset: usize,
    /// Whether the piece ends the whole string.
    last: bool,
    pattern: &'p P,
    kind: PhantomData<K>,
}

impl<'a, 'p, P: Pattern, K: PatternCut<'a> + Send> Piece<'a, 'p, P, K> {
    fn drive<C: UnindexedConsumer<K::Item>>(text: &'a str, pattern: &'p P, consumer: C) -> C::Result {
        let whole = Piece {
            text,
            offset: 0,
            last: true,
            pattern,
            kind: PhantomData::<K>,
        };
        bridge_unindexed(whole, consumer)
    }
}

impl<'a, P: Pattern, K: PatternCut<'a> + Send> UnindexedProducer for Piece<'a, '_, P, K> {
    type Item = K::Item;

    fn split(self) -> (Self, Option<Self>) {
        if self.text.len() < MIN_SPLIT {
            return (self, None);
        }
        let mut mid = self.text.len() / 2;
        while !self.text.is_char_boundary(mid) {
            mid += 1;
        }
        let (end, start) = if K::ANYWHERE {
            (mid, mid)
        } else {
            // The first separator at or after the middle, else the last
            // one before it.
            let (before, after) = self.text.split_at(mid);
            let separator = after
                .char_indices()
                .find(|&(_, c)| self.pattern.matches_char(c))
                .map(|(i, c)| (mid + i, c))
                .or_else(|| {
                    before
                        .char_indices()
                        .rev()
                        .find(|&(_, c)| self.pattern.matches_char(c))
                });
            match separator.and_then(|(at, c)| K::around(self.text.len(), at, c.len_utf8())) {
                Some(cut) => cut,
                None => return (self, None),
            }
        };
        let right = Piece {
            text: &self.text[start..],
            offset: self.offset + start,
            last: self.last,
            pattern: self.pattern,
            kind: PhantomData,
        };
        let left = Piece {
            text: &self.text[..end],
            last: false,
            ..self
        };
        (left, Some(right))
    }

    fn fold_with<F: Folder<K::Item>>(self, folder: F) -> F {
        K::fold(self.text, self.offset, self.last, self.pattern, folder)
    }
}

/// Declares a string iterator over a [`Pattern`] and its [`PatternCut`]
/// kind.
macro_rules! pattern_iterator {
    (
        $(#[$doc:meta])* $name:ident, $kind:ident, item $item:ty, anywhere $anywhere:expr,
        around |$text_len:ident, $at:ident, $len:ident| $around:expr,
        fold |$text:ident, $offset:ident, $last:ident, $pred:ident| $body:expr
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name<'a, P: Pattern> {
            text: &'a str,
            pattern: P,
        }

        /// The kind of [`Piece`] of the iterator of the same name.
        struct $kind;

        impl<'a> PatternCut<'a> for $kind {
            type Item = $item;
            const ANYWHERE: bool = $anywhere;

            #[allow(unused_variables)]
            fn around($text_len: usize, $at: usize, $len: usize) -> Option<(usize, usize)> {
                $around
            }

            #[allow(unused_variables)]
            fn fold<P: Pattern, F: Folder<$item>>($text: &'a str, $offset: usize, $last: bool, pattern: &P, folder: F) -> F {
                let $pred = |c: char| pattern.matches_char(c);
                folder.consume_iter($body)
            }
        }

        impl<'a, P: Pattern> ParallelIterator for $name<'a, P> {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                Piece::<P, $kind>::drive(self.text, &self.pattern, consumer)
            }
        }
    };
}

pattern_iterator!(
    /// The iterator of [`par_split`](ParallelString::par_split).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let parts: stealpool::iter::StrSplit<'_, char> = "a,,b".par_split(',');
    /// assert_eq!(parts.count(), 3);
    /// ```
    StrSplit, SplitKind, item &'a str, anywhere false,
    around |_text_len, at, len| Some((at, at + len)),
    fold |text, _offset, _last, pred| text.split(pred)
);

pattern_iterator!(
    /// The iterator of [`par_split_inclusive`](ParallelString::par_split_inclusive).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let parts: stealpool::iter::StrSplitInclusive<'_, char> = "a,b,".par_split_inclusive(',');
    /// assert_eq!(parts.collect::<Vec<_>>(), ["a,", "b,"]);
    /// ```
    StrSplitInclusive, SplitInclusiveKind, item &'a str, anywhere false,
    // Not after a separator that ends the piece: the right side would be
    // empty.
    around |text_len, at, len| (at + len < text_len).then_some((at + len, at + len)),
    fold |text, _offset, _last, pred| text.split_inclusive(pred)
);

pattern_iterator!(
    /// The iterator of [`par_split_terminator`](ParallelString::par_split_terminator).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let parts: stealpool::iter::StrSplitTerminator<'_, char> = "a.b.".par_split_terminator('.');
    /// assert_eq!(parts.collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    StrSplitTerminator, SplitTerminatorKind, item &'a str, anywhere false,
    around |_text_len, at, len| Some((at, at + len)),
    // Only the piece that ends the string drops a trailing empty part:
    // any other piece's last part is followed by the separator it was cut
    // at.
    fold |text, _offset, last, pred| {
        let mut parts = text.split(pred);
        if last && (text.is_empty() || text.ends_with(pred)) {
            parts.next_back();
        }
        parts
    }
);

pattern_iterator!(
    /// The iterator of [`par_matches`](ParallelString::par_matches).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let m: stealpool::iter::Matches<'_, char> = "a.b.".par_matches('.');
    /// assert_eq!(m.count(), 2);
    /// ```
    Matches, MatchesKind, item &'a str, anywhere true,
    around |_text_len, at, _len| Some((at, at)),
    fold |text, _offset, _last, pred| text.matches(pred)
);

pattern_iterator!(
    /// The iterator of [`par_match_indices`](ParallelString::par_match_indices).
    ///
    /// ```
    /// use stealpool::prelude::*;
    ///
    /// let m: stealpool::iter::MatchIndices<'_, char> = "a.b.".par_match_indices('.');
    /// assert_eq!(m.map(|(i, _)| i).collect::<Vec<_>>(), [1, 3]);
    /// ```
    MatchIndices, MatchIndicesKind, item (usize, &'a str), anywhere true,
    around |_text_len, at, _len| Some((at, at)),
    fold |text, offset, _last, pred| text.match_indices(pred).map(move |(i, m)| (offset + i, m))
);
