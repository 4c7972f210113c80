//! sqlparse's statement splitter (`StatementSplitter`) and the line
//! splitting of its serialiser (`split_unquoted_newlines`).

use super::lexer::{Kind, Lexer, Token};
use super::py_upper;
use crate::python::is_python_whitespace;

/// Blocks tracked by the statement splitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Declare,
    Begin,
    For,
    While,
    Loop,
    If,
    Case,
}

/// sqlparse's `StatementSplitter`, reduced to finding where the first
/// statement ends.
///
/// A `;` ends a statement when the running "split level" (parentheses,
/// block keywords) is at most zero and no `BEGIN` block is open; an
/// upper-case `GO` keyword ends one unconditionally. After the end marker,
/// `Whitespace` tokens and single-line comments still belong to the
/// statement; the first other token (a line break included) starts the
/// next one.
#[derive(Default)]
struct Splitter {
    blocks: Vec<Block>,
    unconfirmed_loop: Option<Block>,
    is_create: bool,
    seen_begin: bool,
    level: i64,
}

impl Splitter {
    /// How a token changes the split level.
    fn level_change(&mut self, kind: Kind, text: &[char]) -> i64 {
        if kind == Kind::Punctuation {
            match text {
                [';'] => {
                    self.unconfirmed_loop = None;
                    if self.seen_begin {
                        return self.begin_without_block();
                    }
                    return 0;
                }
                ['('] => return 1,
                [')'] => return -1,
                _ => return 0,
            }
        }
        if kind != Kind::Keyword && kind != Kind::Ddl {
            return 0;
        }
        let unified = py_upper(text);
        let unified = unified.as_str();

        if kind == Kind::Ddl && unified.starts_with("CREATE") {
            self.is_create = true;
            return 0;
        }
        if unified == "DECLARE" && self.is_create && self.blocks.is_empty() {
            self.blocks.push(Block::Declare);
            return 1;
        }
        if unified == "BEGIN" {
            self.seen_begin = true;
            if self.blocks.last() == Some(&Block::Declare) {
                self.blocks.pop();
                self.blocks.push(Block::Begin);
                return 0;
            }
            self.blocks.push(Block::Begin);
            return 1;
        }
        let transaction_words = [
            "TRANSACTION",
            "WORK",
            "TRAN",
            "DISTRIBUTED",
            "DEFERRED",
            "IMMEDIATE",
            "EXCLUSIVE",
        ];
        if self.seen_begin && kind == Kind::Keyword && transaction_words.contains(&unified) {
            // `BEGIN TRANSACTION` and friends start a transaction, not a block.
            return self.begin_without_block();
        }
        if self.blocks.contains(&Block::Begin) {
            if let Some(change) = self.nested_block(unified) {
                return change;
            }
        }
        self.closing_keyword(unified)
    }

    /// The pending `BEGIN` starts no block after all (`BEGIN;`, `BEGIN TRANSACTION`): it is
    /// settled, and the block it opened, if it is still the innermost, closed again.
    fn begin_without_block(&mut self) -> i64 {
        self.seen_begin = false;
        if self.blocks.last() == Some(&Block::Begin) {
            self.blocks.pop();
            return -1;
        }
        0
    }

    /// Loop and conditional openers inside a `BEGIN` block.
    fn nested_block(&mut self, unified: &str) -> Option<i64> {
        match unified {
            "FOR" => {
                self.unconfirmed_loop = Some(Block::For);
                Some(0)
            }
            "WHILE" => {
                self.unconfirmed_loop = Some(Block::While);
                Some(0)
            }
            "LOOP" | "DO" => {
                if let Some(block) = self.unconfirmed_loop.take() {
                    self.blocks.push(block);
                    Some(1)
                } else if unified == "LOOP" {
                    self.blocks.push(Block::Loop);
                    Some(1)
                } else {
                    None
                }
            }
            "IF" => {
                self.blocks.push(Block::If);
                Some(1)
            }
            "CASE" => {
                self.blocks.push(Block::Case);
                Some(1)
            }
            _ => None,
        }
    }

    /// `END` and `END IF`-style closers. The compound forms only count when
    /// written with exactly one space, since sqlparse compares the token
    /// text verbatim.
    fn closing_keyword(&mut self, unified: &str) -> i64 {
        let closes: &[Block] = match unified {
            "END" => {
                self.blocks.pop();
                return -1;
            }
            "END IF" => &[Block::If],
            "END FOR" => &[Block::For],
            "END WHILE" => &[Block::While],
            "END LOOP" => &[Block::Loop, Block::For, Block::While],
            "END CASE" => &[Block::Case],
            _ => return 0,
        };
        match self.blocks.last() {
            Some(top) if closes.contains(top) => {
                self.blocks.pop();
                -1
            }
            _ => 0,
        }
    }
}

/// The end (in code points) of the first statement sqlparse would split
/// off, or `None` if it would find no statement at all.
pub(super) fn first_statement_end(lexer: &Lexer) -> Option<usize> {
    statement_end(lexer, 0, false)
}

/// The end (in code points) of the statement sqlparse would split off when
/// its splitter starts afresh at `start`, or `None` if only white space
/// remains. With `keywords_upper`, keywords are judged after `str.upper()`,
/// as in `sqlparse.format(…, keyword_case='upper')`, whose case filter runs
/// before the splitter: then a lower-case `go` keyword ends a statement too.
pub(super) fn statement_end(lexer: &Lexer, start: usize, keywords_upper: bool) -> Option<usize> {
    let mut splitter = Splitter::default();
    let mut ended = false;
    let mut only_whitespace = true;
    let mut pos = start;
    while pos < lexer.len() {
        let Token { end, kind } = lexer.token_at(pos);
        let value = &lexer.scan.chars[pos..end];
        if ended && !matches!(kind, Kind::Whitespace | Kind::Comment) {
            return Some(pos);
        }
        splitter.level += splitter.level_change(kind, value);
        if kind == Kind::Punctuation && value == [';'] {
            splitter.seen_begin = false;
            if splitter.level <= 0 && !splitter.blocks.contains(&Block::Begin) {
                ended = true;
            }
        } else if kind == Kind::Keyword
            && (starts_with_go(value)
                || (keywords_upper && starts_with_go(&py_upper(value).chars().collect::<Vec<_>>())))
        {
            ended = true;
        } else {
            // Layout tokens and `BEGIN` itself leave a pending `BEGIN` open
            // to a following transaction keyword; anything else settles it.
            let keeps_begin_pending = matches!(
                kind,
                Kind::Whitespace | Kind::Newline | Kind::Comment | Kind::MultilineComment
            ) || (kind == Kind::Keyword && py_upper(value) == "BEGIN");
            if !keeps_begin_pending {
                splitter.seen_begin = false;
            }
        }
        only_whitespace &= matches!(kind, Kind::Whitespace | Kind::Newline);
        pos = end;
    }
    (!only_whitespace).then_some(pos)
}

/// sqlparse's `split_unquoted_newlines`: the lines of `text`, split at
/// `\r\n`, `\r` and `\n` except inside a quoted string. A quote starts a
/// string only if a matching quote closes it; inside, a backslash escapes
/// the next character unless that is `\n`. An unclosed quote is plain text.
pub(super) fn split_unquoted_newlines(text: &[char]) -> Vec<&[char]> {
    let mut lines = Vec::new();
    let mut line_start = 0;
    let mut pos = 0;
    // Quotes of each kind before this offset are known to be unclosed.
    let mut unclosed_single = 0;
    let mut unclosed_double = 0;
    while pos < text.len() {
        let c = text[pos];
        match c {
            '\r' | '\n' => {
                lines.push(&text[line_start..pos]);
                pos += if c == '\r' && text.get(pos + 1) == Some(&'\n') {
                    2
                } else {
                    1
                };
                line_start = pos;
            }
            '\'' | '"' => {
                let unclosed_before = if c == '"' {
                    &mut unclosed_double
                } else {
                    &mut unclosed_single
                };
                if pos >= *unclosed_before {
                    let end = quoted_content_end(text, pos + 1, c);
                    if text.get(end) == Some(&c) {
                        pos = end + 1;
                        continue;
                    }
                    *unclosed_before = end;
                }
                pos += 1;
            }
            _ => {
                pos += 1;
                while pos < text.len() && !matches!(text[pos], '\r' | '\n' | '\'' | '"') {
                    pos += 1;
                }
            }
        }
    }
    lines.push(&text[line_start..]);
    lines
}

/// `(?:[^Q\\]|\\.)*` from `pos` for the quote `Q`: the end of a quoted
/// string's content (`.` does not match `\n`).
fn quoted_content_end(text: &[char], mut pos: usize, quote: char) -> usize {
    while let Some(&c) = text.get(pos) {
        if c == '\\' {
            match text.get(pos + 1) {
                Some(&next) if next != '\n' => pos += 2,
                _ => break,
            }
        } else if c == quote {
            break;
        } else {
            pos += 1;
        }
    }
    pos
}

/// sqlparse's `value.split()[0] == 'GO'` test for keyword tokens.
fn starts_with_go(value: &[char]) -> bool {
    match value {
        ['G', 'O'] => true,
        ['G', 'O', next, ..] => is_python_whitespace(*next),
        _ => false,
    }
}
