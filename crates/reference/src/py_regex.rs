//! Hand-written equivalents of Python regular expressions, shared by the reproductions that
//! match text the way a Python `re` pattern does ([`super::sqlparse`]'s lexer,
//! [`super::spider_text`]): a string indexed by code point like a Python `str`, and a scanner
//! whose primitives follow Python's `\s`, `\w`, `\d`, `\b` and `re.IGNORECASE`.

use crate::python::{is_python_decimal, is_python_whitespace, is_python_word};

// ---------------------------------------------------------------------------
// Text indexed by code point, like a Python `str`
// ---------------------------------------------------------------------------

/// A string viewed as a sequence of code points, remembering where each one
/// starts in the UTF-8 source so that spans can be copied out cheaply.
pub(super) struct Text<'a> {
    source: &'a str,
    pub(super) chars: Vec<char>,
    /// Byte offset of every code point, followed by `source.len()`.
    offsets: Vec<usize>,
}

impl<'a> Text<'a> {
    pub(super) fn new(source: &'a str) -> Self {
        let (offsets, chars): (Vec<usize>, Vec<char>) = source.char_indices().unzip();
        let mut offsets = offsets;
        offsets.push(source.len());
        Self {
            source,
            chars,
            offsets,
        }
    }

    /// The source text of code points `start..end`.
    pub(super) fn slice(&self, start: usize, end: usize) -> &'a str {
        &self.source[self.offsets[start]..self.offsets[end]]
    }
}

// ---------------------------------------------------------------------------
// Pattern-matching primitives
// ---------------------------------------------------------------------------

/// Small building blocks for hand-written equivalents of Python regular
/// expressions, operating on code-point positions.
#[derive(Clone, Copy)]
pub(super) struct Scanner<'c> {
    pub(super) chars: &'c [char],
}

impl Scanner<'_> {
    pub(super) fn at(self, pos: usize) -> Option<char> {
        self.chars.get(pos).copied()
    }

    pub(super) fn at_is(self, pos: usize, pred: impl Fn(char) -> bool) -> bool {
        self.at(pos).is_some_and(pred)
    }

    /// End of the longest run of characters satisfying `pred` from `pos`.
    pub(super) fn run(self, pos: usize, pred: impl Fn(char) -> bool) -> usize {
        let rest = self.chars.get(pos..).unwrap_or_default();
        pos + rest.iter().position(|&c| !pred(c)).unwrap_or(rest.len())
    }

    /// `\s*`
    pub(super) fn spaces(self, pos: usize) -> usize {
        self.run(pos, is_python_whitespace)
    }

    /// `\s+`
    pub(super) fn spaces1(self, pos: usize) -> Option<usize> {
        let end = self.spaces(pos);
        (end > pos).then_some(end)
    }

    /// `\w*`
    pub(super) fn word_chars(self, pos: usize) -> usize {
        self.run(pos, is_python_word)
    }

    /// `\d*`
    pub(super) fn decimals(self, pos: usize) -> usize {
        self.run(pos, is_python_decimal)
    }

    /// A literal matched case-insensitively; `literal` is upper-case ASCII.
    pub(super) fn word(self, pos: usize, literal: &str) -> Option<usize> {
        let mut p = pos;
        for expected in literal.chars() {
            if !self.at_is(p, |c| matches_ignore_case(c, expected)) {
                return None;
            }
            p += 1;
        }
        Some(p)
    }

    /// `\b`: a word character on exactly one side of `pos`.
    pub(super) fn boundary(self, pos: usize) -> bool {
        let before = pos > 0 && self.at_is(pos - 1, is_python_word);
        before != self.at_is(pos, is_python_word)
    }

    /// A literal followed by `\b`.
    pub(super) fn keyword(self, pos: usize, literal: &str) -> Option<usize> {
        self.word(pos, literal).filter(|&end| self.boundary(end))
    }

    /// The first of `alternatives` that matches, each followed by `\s+`.
    pub(super) fn word_then_space(self, pos: usize, alternatives: &[&str]) -> Option<usize> {
        alternatives
            .iter()
            .find_map(|w| self.word(pos, w).and_then(|end| self.spaces1(end)))
    }

    /// Words separated by `\s+`, the last followed by `\b`.
    pub(super) fn phrase(self, pos: usize, words: &[&str]) -> Option<usize> {
        let (last, init) = words.split_last()?;
        let mut p = pos;
        for w in init {
            p = self.word_then_space(p, &[w])?;
        }
        self.keyword(p, last)
    }
}

/// Whether text character `c` matches pattern character `pattern` under
/// Python's `re.IGNORECASE`. Pattern letters are upper-case ASCII; besides
/// their ASCII cases, `I` also matches `İ`/`ı`, `K` the Kelvin sign and
/// `S` the long s `ſ`.
fn matches_ignore_case(c: char, pattern: char) -> bool {
    if c.to_ascii_uppercase() == pattern {
        return true;
    }
    match pattern {
        'I' => matches!(c, '\u{130}' | '\u{131}'),
        'K' => c == '\u{212A}',
        'S' => c == '\u{17F}',
        _ => false,
    }
}
