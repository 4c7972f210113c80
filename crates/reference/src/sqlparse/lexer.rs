//! sqlparse's lexer: the regular expressions of its `SQL_REGEX`, tried in
//! order at each position, as hand-written matchers.

use std::collections::HashMap;

use super::super::py_regex::Scanner;
use super::py_upper;
use crate::python::{is_python_decimal, is_python_whitespace, is_python_word};

/// Token classes, as fine-grained as the statement splitter needs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `Whitespace`: one white-space character other than a line break.
    Whitespace,
    /// `Newline`: `\r\n`, `\r` or `\n`.
    Newline,
    /// `Comment.Single`: a `--` or `# ` comment including its line break
    /// (not an optimizer hint `--+`).
    Comment,
    /// `Comment.Multiline`: a `/* */` comment (not a hint `/*+ */`).
    MultilineComment,
    /// `Punctuation`: `; : ( ) [ ] , .` and `::`.
    Punctuation,
    /// Exactly `Keyword` (not a subtype), for the keywords the splitter
    /// looks at and for the multi-word keywords the lexer recognises.
    Keyword,
    /// `Keyword.DDL` from `CREATE` / `CREATE OR REPLACE`.
    Ddl,
    /// `String.Single` (`'…'`) or `String.Symbol` (`"…"`): a quoted string
    /// literal (or double-quoted identifier, which sqlparse types alike).
    StringLiteral,
    /// Anything else: names, numbers, operators, hints, other keywords.
    Other,
}

/// One lexer token. It starts where the previous one ended; `end` is an
/// exclusive code-point offset.
#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    pub(super) end: usize,
    pub(super) kind: Kind,
}

/// Words that sqlparse classifies as exactly `Keyword` and that influence
/// statement splitting. Every other plain word only matters through its
/// extent, so it is classified as [`Kind::Other`]. (`TRAN` and
/// `DISTRIBUTED` are names to sqlparse, and `CREATEDB`-like words are not
/// `DDL`, so none of them matter either.)
const SPLITTER_KEYWORDS: [&str; 15] = [
    "BEGIN",
    "CASE",
    "DECLARE",
    "DEFERRED",
    "DO",
    "END",
    "EXCLUSIVE",
    "FOR",
    "GO",
    "IF",
    "IMMEDIATE",
    "LOOP",
    "TRANSACTION",
    "WHILE",
    "WORK",
];

/// A re-implementation of sqlparse's regular-expression lexer.
///
/// sqlparse tries a fixed list of regular expressions at the current
/// position and emits the first match as a token (or a one-character error
/// token if none matches); dollar-quoted literals and `/* */` comments are
/// located up front and take precedence when the lexer reaches their
/// opening delimiter. [`Lexer::token_at`] tries equivalent hand-written
/// matchers in the same order, so token boundaries agree, including the
/// regexes' backtracking behaviour (`123abc` lexes as `12` then `3abc`).
pub(super) struct Lexer<'c> {
    pub(super) scan: Scanner<'c>,
    /// Start offsets of all `*/`, ascending.
    comment_closers: Vec<usize>,
    /// Start offsets of all occurrences of each dollar-quote delimiter
    /// (`$$`, `$tag$`), ascending.
    dollar_delimiters: HashMap<String, Vec<usize>>,
    /// Last offset of each quote character, to decide in O(1) whether a
    /// quoted token can still be closed further on.
    last_quote: HashMap<char, usize>,
}

impl<'c> Lexer<'c> {
    pub(super) fn new(chars: &'c [char]) -> Self {
        let scan = Scanner { chars };
        let mut comment_closers = Vec::new();
        let mut dollar_delimiters: HashMap<String, Vec<usize>> = HashMap::new();
        let mut last_quote = HashMap::new();
        for (pos, &c) in chars.iter().enumerate() {
            match c {
                '*' if scan.at(pos + 1) == Some('/') => comment_closers.push(pos),
                '$' => {
                    if let Some(end) = scan.dollar_delimiter(pos) {
                        let tag: String = chars[pos..end].iter().collect();
                        dollar_delimiters.entry(tag).or_default().push(pos);
                    }
                }
                '\'' | '"' | '`' | '\u{B4}' => {
                    last_quote.insert(c, pos);
                }
                _ => {}
            }
        }
        Self {
            scan,
            comment_closers,
            dollar_delimiters,
            last_quote,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.scan.chars.len()
    }

    /// The token starting at `pos` (which must be `< len`).
    pub(super) fn token_at(&self, pos: usize) -> Token {
        let (end, kind) = self
            .delimited_span(pos)
            .or_else(|| self.lex_regexes(pos))
            .unwrap_or((pos + 1, Kind::Other));
        Token { end, kind }
    }

    /// The tokens from `start` up to `end`, each with its start offset; `end` must be where a
    /// token ends (such as a statement's end), or the last token runs past it.
    pub(super) fn tokens(
        &self,
        start: usize,
        end: usize,
    ) -> impl Iterator<Item = (usize, Token)> + '_ {
        let mut pos = start;
        std::iter::from_fn(move || {
            (pos < end).then(|| {
                let (at, token) = (pos, self.token_at(pos));
                pos = token.end;
                (at, token)
            })
        })
    }

    /// The regular expressions of sqlparse's `SQL_REGEX`, in order.
    fn lex_regexes(&self, pos: usize) -> Option<(usize, Kind)> {
        let s = self.scan;
        let c = s.at(pos)?;
        let next = s.at(pos + 1);
        let other = |end: usize| Some((end, Kind::Other));

        if let Some(token) = self.line_comment(pos) {
            return Some(token);
        }
        match c {
            '\r' => {
                let end = if next == Some('\n') { pos + 2 } else { pos + 1 };
                return Some((end, Kind::Newline));
            }
            '\n' => return Some((pos + 1, Kind::Newline)),
            _ if is_python_whitespace(c) => return Some((pos + 1, Kind::Whitespace)),
            ':' if next == Some('=') => return other(pos + 2),
            ':' if next == Some(':') => return Some((pos + 2, Kind::Punctuation)),
            '*' | '?' => return other(pos + 1),
            '`' | '\u{B4}' => {
                if let Some(end) = self.quoted(pos, false) {
                    return other(end);
                }
            }
            _ => {}
        }
        if let Some(end) = self.placeholder_or_command(pos) {
            return other(end);
        }
        if let Some(end) = ["CASE", "IN", "VALUES", "USING", "FROM", "AS"]
            .iter()
            .find_map(|w| s.keyword(pos, w))
        {
            return Some((end, Kind::Keyword));
        }
        if let Some(end) = self.name(pos) {
            return other(end);
        }
        if let Some(end) = self.number(pos) {
            return other(end);
        }
        if c == '\'' || c == '"' {
            if let Some(end) = self.quoted(pos, true) {
                return Some((end, Kind::StringLiteral));
            }
        }
        if let Some(end) = self.bracketed_name(pos) {
            return other(end);
        }
        if let Some(token) = self.multi_word_keyword(pos) {
            return Some(token);
        }
        if is_python_word(c) {
            let end = s.run(pos + 1, |c| is_python_word(c) || c == '$' || c == '#');
            let upper = py_upper(&s.chars[pos..end]);
            let kind = if SPLITTER_KEYWORDS.contains(&upper.as_str()) {
                Kind::Keyword
            } else {
                Kind::Other
            };
            return Some((end, kind));
        }
        if matches!(c, ';' | ':' | '(' | ')' | '[' | ']' | ',' | '.') {
            return Some((pos + 1, Kind::Punctuation));
        }
        self.operator(pos).map(|end| (end, Kind::Other))
    }

    /// Dollar-quoted literals and `/* */` comments, resolved when the lexer
    /// reaches the opening delimiter: the token runs to the first matching
    /// closing delimiter that starts after the opener, if there is one.
    fn delimited_span(&self, pos: usize) -> Option<(usize, Kind)> {
        let s = self.scan;
        match s.at(pos)? {
            '/' if s.at(pos + 1) == Some('*') => {
                let hint = s.at(pos + 2) == Some('+');
                let opener_end = pos + if hint { 3 } else { 2 };
                let i = self.comment_closers.partition_point(|&c| c < opener_end);
                let closer = *self.comment_closers.get(i)?;
                let kind = if hint {
                    Kind::Other
                } else {
                    Kind::MultilineComment
                };
                Some((closer + 2, kind))
            }
            '$' => {
                let prev_blocks =
                    pos > 0 && s.at_is(pos - 1, |c| is_python_word(c) || c == '"' || c == '$');
                if prev_blocks {
                    return None;
                }
                let opener_end = s.dollar_delimiter(pos)?;
                let tag: String = s.chars[pos..opener_end].iter().collect();
                let starts = self.dollar_delimiters.get(&tag)?;
                let i = starts.partition_point(|&start| start < opener_end);
                let closer = *starts.get(i)?;
                Some((closer + (opener_end - pos), Kind::Other))
            }
            _ => None,
        }
    }

    /// `(--|# )\+?.*?(\r\n|\r|\n|$)`: a single-line comment, including the
    /// line break that ends it. A `+` right after the opener makes it a
    /// hint, which sqlparse types differently.
    fn line_comment(&self, pos: usize) -> Option<(usize, Kind)> {
        let s = self.scan;
        let opener = (s.at(pos)?, s.at(pos + 1)?);
        if opener != ('-', '-') && opener != ('#', ' ') {
            return None;
        }
        let hint = s.at(pos + 2) == Some('+');
        let line_end = s.run(pos + 2, |c| c != '\r' && c != '\n');
        let end = match s.at(line_end) {
            None => line_end,
            Some('\r') if s.at(line_end + 1) == Some('\n') => line_end + 2,
            Some(_) => line_end + 1,
        };
        Some((end, if hint { Kind::Other } else { Kind::Comment }))
    }

    /// `Q(QQ|\\Q|[^Q])*Q` for the quote character `Q` at `pos`; the
    /// backslash alternative only when `backslash_escapes`.
    ///
    /// Python's backtracking makes this greedy in a specific way: a doubled
    /// (or backslash-escaped) quote is taken as an escape only if another
    /// quote follows somewhere later; otherwise its (second) quote closes
    /// the token.
    fn quoted(&self, pos: usize, backslash_escapes: bool) -> Option<usize> {
        let s = self.scan;
        let quote = s.at(pos)?;
        let last = *self.last_quote.get(&quote)?;
        let quote_from = |p: usize| p <= last;
        let mut i = pos + 1;
        while i <= last {
            let c = s.chars[i];
            if c == quote {
                if s.at(i + 1) == Some(quote) && quote_from(i + 2) {
                    i += 2;
                    continue;
                }
                return Some(i + 1);
            }
            if backslash_escapes && c == '\\' && s.at(i + 1) == Some(quote) {
                if quote_from(i + 2) {
                    i += 2;
                    continue;
                }
                return Some(i + 2);
            }
            i += 1;
        }
        None
    }

    /// `%(\(\w+\))?s`, `(?<!\w)[$:?]\w+` and `\\\w+`.
    fn placeholder_or_command(&self, pos: usize) -> Option<usize> {
        let s = self.scan;
        match s.at(pos)? {
            '%' => {
                if s.at(pos + 1) == Some('(') {
                    let name_end = s.word_chars(pos + 2);
                    if name_end > pos + 2 && s.at(name_end) == Some(')') {
                        if let Some(end) = s.word(name_end + 1, "S") {
                            return Some(end);
                        }
                    }
                }
                s.word(pos + 1, "S")
            }
            '$' | ':' | '?' => {
                let after_word = pos > 0 && s.at_is(pos - 1, is_python_word);
                let end = s.word_chars(pos + 1);
                (!after_word && end > pos + 1).then_some(end)
            }
            '\\' => {
                let end = s.word_chars(pos + 1);
                (end > pos + 1).then_some(end)
            }
            _ => None,
        }
    }

    /// The name patterns: `(@|##|#)[A-ZÀ-Ü]\w+`, then `[A-ZÀ-Ü]\w*` when
    /// followed by `\s*\.(?!\d)`, preceded by `.`, or followed by `(`.
    fn name(&self, pos: usize) -> Option<usize> {
        let s = self.scan;
        let c = s.at(pos)?;
        if c == '@' || c == '#' {
            let start = if c == '#' && s.at(pos + 1) == Some('#') {
                pos + 2
            } else {
                pos + 1
            };
            let end = s.word_chars(start + 1);
            return (s.at_is(start, is_name_start) && end > start + 1).then_some(end);
        }
        if !is_name_start(c) {
            return None;
        }
        let end = s.word_chars(pos + 1);
        let dot = s.spaces(end);
        let before_dot = s.at(dot) == Some('.') && !s.at_is(dot + 1, is_python_decimal);
        let after_dot = pos > 0 && s.at(pos - 1) == Some('.');
        let before_paren = s.at(end) == Some('(');
        (before_dot || after_dot || before_paren).then_some(end)
    }

    /// The number patterns, in order: hexadecimal `-?0x[\dA-F]+`, float
    /// with exponent `-?\d+(\.\d+)?E-?\d+`, float
    /// `-?(\d+(\.\d*)|\.\d+)` and integer `-?\d+`, the last two only where
    /// no letter or `_` follows (backtracking a digit if that helps).
    fn number(&self, pos: usize) -> Option<usize> {
        let s = self.scan;
        let p = if s.at(pos) == Some('-') { pos + 1 } else { pos };
        // A letter or underscore may not follow a float or an integer.
        let blocked = |at: usize| s.at_is(at, |c| c == '_' || is_name_start(c));
        // Backtracks a greedy digit run by one if a letter follows it.
        let unless_blocked = |end: usize, min_end: usize| {
            if !blocked(end) {
                Some(end)
            } else {
                (end > min_end).then(|| end - 1)
            }
        };

        let is_hex = |c: char| is_python_decimal(c) || c.is_ascii_hexdigit();
        if s.at(p) == Some('0') && s.word(p + 1, "X").is_some() && s.at_is(p + 2, is_hex) {
            return Some(s.run(p + 2, is_hex));
        }

        let int_end = s.decimals(p);
        if int_end > p {
            let mut q = int_end;
            if s.at(q) == Some('.') && s.at_is(q + 1, is_python_decimal) {
                q = s.decimals(q + 1);
            }
            if s.word(q, "E").is_some() {
                let digits = if s.at(q + 1) == Some('-') {
                    q + 2
                } else {
                    q + 1
                };
                let end = s.decimals(digits);
                if end > digits {
                    return Some(end);
                }
            }
            if s.at(int_end) == Some('.') {
                let frac_end = s.decimals(int_end + 1);
                if let Some(end) = unless_blocked(frac_end, int_end + 1) {
                    return Some(end);
                }
            }
            return unless_blocked(int_end, p + 1);
        }
        if s.at(p) == Some('.') {
            let frac_end = s.decimals(p + 1);
            if frac_end > p + 1 {
                return unless_blocked(frac_end, p + 2);
            }
        }
        None
    }

    /// `(?<![\w\])])(\[[^\]\[]+\])`: an SQLite-style `[bracketed]` name.
    fn bracketed_name(&self, pos: usize) -> Option<usize> {
        let s = self.scan;
        if s.at(pos) != Some('[') {
            return None;
        }
        if pos > 0 && s.at_is(pos - 1, |c| is_python_word(c) || c == ']' || c == ')') {
            return None;
        }
        let end = s.run(pos + 1, |c| c != ']' && c != '[');
        (end > pos + 1 && s.at(end) == Some(']')).then_some(end + 1)
    }

    /// The multi-word keyword patterns between the bracketed name and the
    /// plain word in `SQL_REGEX` (`LEFT OUTER JOIN`, `END IF`,
    /// `IF NOT EXISTS`, `ORDER BY`, `GO 2`, `AT TIME ZONE '…'`, …). Besides
    /// keeping tokens such as `IF EXISTS` away from the splitter's block
    /// tracking, their trailing `\b` lets a following `$` or `#` start a new
    /// token, which a plain word would have absorbed.
    fn multi_word_keyword(&self, pos: usize) -> Option<(usize, Kind)> {
        let s = self.scan;
        let keyword = |end: usize| Some((end, Kind::Keyword));
        let other = |end: usize| Some((end, Kind::Other));

        if let Some(end) = self.join(pos) {
            return keyword(end);
        }
        if let Some(end_kw) = s.word(pos, "END") {
            let with_block = ["IF", "LOOP", "WHILE", "FOR", "CASE"]
                .iter()
                .find_map(|w| s.spaces1(end_kw).and_then(|p| s.keyword(p, w)));
            if let Some(end) = with_block.or_else(|| s.boundary(end_kw).then_some(end_kw)) {
                return keyword(end);
            }
        }
        if let Some(after_if) = s.word_then_space(pos, &["IF"]) {
            let after_not = s.word_then_space(after_if, &["NOT"]);
            if let Some(end) = after_not
                .into_iter()
                .chain([after_if])
                .find_map(|p| s.keyword(p, "EXISTS"))
            {
                return keyword(end);
            }
        }
        if let Some(end) = s.phrase(pos, &["NOT", "NULL"]) {
            return keyword(end);
        }
        for order in ["ASC", "DESC"] {
            if let Some(end_order) = s.word(pos, order) {
                let nulls = s
                    .spaces1(end_order)
                    .and_then(|p| s.word_then_space(p, &["NULLS"]))
                    .and_then(|p| ["FIRST", "LAST"].iter().find_map(|w| s.keyword(p, w)));
                if let Some(end) = nulls.or_else(|| s.boundary(end_order).then_some(end_order)) {
                    return other(end);
                }
            }
        }
        if let Some(after) = s.word_then_space(pos, &["NULLS"]) {
            if let Some(end) = ["FIRST", "LAST"].iter().find_map(|w| s.keyword(after, w)) {
                return other(end);
            }
        }
        if let Some(end) = s.phrase(pos, &["UNION", "ALL"]) {
            return keyword(end);
        }
        if let Some(end_create) = s.word(pos, "CREATE") {
            let replace = s
                .spaces1(end_create)
                .and_then(|p| s.phrase(p, &["OR", "REPLACE"]));
            if let Some(end) = replace.or_else(|| s.boundary(end_create).then_some(end_create)) {
                return Some((end, Kind::Ddl));
            }
        }
        if let Some(end) = s.phrase(pos, &["DOUBLE", "PRECISION"]) {
            return other(end);
        }
        for words in [
            ["GROUP", "BY"],
            ["ORDER", "BY"],
            ["PRIMARY", "KEY"],
            ["HANDLER", "FOR"],
        ] {
            if let Some(end) = s.phrase(pos, &words) {
                return keyword(end);
            }
        }
        if let Some(end_go) = s.word(pos, "GO") {
            // `GO(\s\d+)\b`: exactly one white-space character.
            if s.at_is(end_go, is_python_whitespace) && s.at_is(end_go + 1, is_python_decimal) {
                let end = s.decimals(end_go + 1);
                if s.boundary(end) {
                    return keyword(end);
                }
            }
        }
        if let Some(after_view) = s
            .word_then_space(pos, &["LATERAL"])
            .and_then(|p| s.word_then_space(p, &["VIEW"]))
        {
            let functions = [
                "EXPLODE",
                "INLINE",
                "PARSE_URL_TUPLE",
                "POSEXPLODE",
                "STACK",
            ];
            if let Some(end) = functions.iter().find_map(|w| s.keyword(after_view, w)) {
                return keyword(end);
            }
        }
        if let Some(end) = self.time_zone_cast(pos) {
            return other(end);
        }
        let after_not = s.word_then_space(pos, &["NOT"]);
        for start in after_not.into_iter().chain([pos]) {
            if let Some(end) = ["LIKE", "ILIKE", "RLIKE"]
                .iter()
                .find_map(|w| s.keyword(start, w))
            {
                return other(end);
            }
        }
        for start in after_not.into_iter().chain([pos]) {
            if let Some(end_regexp) = s.word(start, "REGEXP") {
                let binary = s.spaces1(end_regexp).and_then(|p| s.keyword(p, "BINARY"));
                if let Some(end) = binary.or_else(|| s.boundary(end_regexp).then_some(end_regexp)) {
                    return other(end);
                }
            }
        }
        None
    }

    /// `((LEFT\s+|RIGHT\s+|FULL\s+)?(INNER\s+|OUTER\s+|STRAIGHT\s+)?
    /// |(CROSS\s+|NATURAL\s+)?)?JOIN\b`, trying the optional parts in the
    /// order Python's backtracking does.
    fn join(&self, pos: usize) -> Option<usize> {
        let s = self.scan;
        let join_at = |p: usize| s.keyword(p, "JOIN");
        let side = s.word_then_space(pos, &["LEFT", "RIGHT", "FULL"]);
        for after_side in side.into_iter().chain([pos]) {
            let flavour = s.word_then_space(after_side, &["INNER", "OUTER", "STRAIGHT"]);
            if let Some(end) = flavour.into_iter().chain([after_side]).find_map(join_at) {
                return Some(end);
            }
        }
        s.word_then_space(pos, &["CROSS", "NATURAL"])
            .and_then(join_at)
    }

    /// `(AT|WITH')\s+TIME\s+ZONE\s+'[^']+'`.
    fn time_zone_cast(&self, pos: usize) -> Option<usize> {
        let s = self.scan;
        let p = s.word_then_space(pos, &["AT", "WITH'"])?;
        let p = s.word_then_space(p, &["TIME"])?;
        let p = s.word_then_space(p, &["ZONE"])?;
        if s.at(p) != Some('\'') {
            return None;
        }
        let end = s.run(p + 1, |c| c != '\'');
        (end > p + 1 && s.at(end) == Some('\'')).then_some(end + 1)
    }

    /// The operator patterns: `(\->>?|#>>?|@>|<@|\?\|?|\?&|\-|#\-)`, then
    /// `[<>=~!]+`, then `[+/@#%^&|^-]+`.
    fn operator(&self, pos: usize) -> Option<usize> {
        let s = self.scan;
        let c = s.at(pos)?;
        let next = s.at(pos + 1);
        let arrow = |p: usize| if s.at(p) == Some('>') { p + 1 } else { p };
        match (c, next) {
            ('-', Some('>')) | ('#', Some('>')) => return Some(arrow(pos + 2)),
            ('@', Some('>')) | ('<', Some('@')) | ('#', Some('-')) => return Some(pos + 2),
            ('-', _) => return Some(pos + 1),
            _ => {}
        }
        let comparison = |c: char| matches!(c, '<' | '>' | '=' | '~' | '!');
        let arithmetic = |c: char| matches!(c, '+' | '/' | '@' | '#' | '%' | '^' | '&' | '|' | '-');
        if comparison(c) {
            return Some(s.run(pos, comparison));
        }
        arithmetic(c).then(|| s.run(pos, arithmetic))
    }
}

impl Scanner<'_> {
    /// `\$(?:[_A-ZÀ-Ü]\w*)?\$` at `pos`: a dollar-quote delimiter.
    fn dollar_delimiter(self, pos: usize) -> Option<usize> {
        if self.at(pos) != Some('$') {
            return None;
        }
        let tag_end = if self.at_is(pos + 1, |c| c == '_' || is_name_start(c)) {
            self.word_chars(pos + 2)
        } else {
            pos + 1
        };
        (self.at(tag_end) == Some('$')).then_some(tag_end + 1)
    }
}

/// The character class `[A-ZÀ-Ü]` as Python evaluates it under
/// `re.IGNORECASE`: both letter cases of the two ranges (so `×` U+00D7 is
/// in but `÷` U+00F7 is out), plus the letters that case-fold into them:
/// `İ ı ſ` and the Kelvin and Ångström signs.
fn is_name_start(c: char) -> bool {
    matches!(
        c,
        'A'..='Z'
            | 'a'..='z'
            | '\u{C0}'..='\u{DC}'
            | '\u{E0}'..='\u{F6}'
            | '\u{F8}'..='\u{FC}'
            | '\u{130}'
            | '\u{131}'
            | '\u{17F}'
            | '\u{212A}'
            | '\u{212B}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_start_follows_python_ignorecase() {
        // [A-ZÀ-Ü] under re.IGNORECASE
        assert!(is_name_start('×') && is_name_start('ſ') && is_name_start('\u{212A}'));
        assert!(!is_name_start('÷') && !is_name_start('ÿ'));
    }
}
