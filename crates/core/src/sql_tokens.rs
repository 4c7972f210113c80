//! A small SQL lexer that keeps each token's byte span, so a neighbor query is the gold with
//! one span replaced or removed and everything else untouched.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A keyword or an identifier (bare or in backticks / brackets).
    Word,
    /// An integer literal.
    Int,
    /// A decimal or exponent literal.
    Float,
    /// A string literal in single or double quotes (Spider writes strings both ways).
    Str,
    /// An operator or punctuation: `=`, `>=`, `(`, `,`, `.`, `*` …
    Symbol,
}

/// One token: its kind, its byte span in the query, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// What kind of token.
    pub kind: TokenKind,
    /// Byte offset of its first byte in the query.
    pub start: usize,
    /// Byte offset just past its last byte.
    pub end: usize,
    /// Its text, as the query spells it.
    pub text: String,
}

impl Token {
    /// The word in lower case (keywords and identifiers compare case-insensitively).
    pub fn lower(&self) -> String {
        self.text.to_ascii_lowercase()
    }

    /// Whether it is the word `word`, in any letter case.
    pub fn is_word(&self, word: &str) -> bool {
        self.kind == TokenKind::Word && self.text.eq_ignore_ascii_case(word)
    }

    /// Whether it is the symbol `symbol`.
    pub fn is_symbol(&self, symbol: &str) -> bool {
        self.kind == TokenKind::Symbol && self.text == symbol
    }

    /// A string literal's content (quotes removed, doubled quotes undone).
    pub fn string_content(&self) -> Option<String> {
        if self.kind != TokenKind::Str || self.text.len() < 2 {
            return None;
        }
        let q = &self.text[..1];
        let inner = &self.text[1..self.text.len() - 1];
        Some(inner.replace(&format!("{q}{q}"), q))
    }
}

/// Quotes a string as an SQL literal in the given quote character.
pub fn quote(content: &str, q: char) -> String {
    let doubled = format!("{q}{q}");
    format!("{q}{}{q}", content.replace(q, &doubled))
}

/// Whether two query texts are the same tokens, keywords and identifiers in any ASCII letter
/// case (as SQLite reads them) and everything else alike: then they are the same query.
pub fn same_up_to_case(a: &str, b: &str) -> bool {
    same_tokens_up_to_case(&tokenize(a), &tokenize(b))
}

/// [`same_up_to_case`] for runs of tokens.
pub fn same_tokens_up_to_case(a: &[Token], b: &[Token]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.kind == y.kind
                && match x.kind {
                    TokenKind::Word => x.text.eq_ignore_ascii_case(&y.text),
                    _ => x.text == y.text,
                }
        })
}

/// Splits a query into tokens. Unknown characters become one-character symbols; an unclosed
/// quote runs to the end of the text. Comments are skipped.
pub fn tokenize(sql: &str) -> Vec<Token> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0c => {
                i += 1;
                continue;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = b[i..]
                    .iter()
                    .position(|&x| x == b'\n')
                    .map_or(b.len(), |p| i + p + 1);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = sql[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
                continue;
            }
            b'\'' | b'"' | b'`' => {
                i += 1;
                while i < b.len() {
                    if b[i] == c {
                        if b.get(i + 1) == Some(&c) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i = (i + 1).min(b.len());
                if c == b'`' {
                    TokenKind::Word
                } else {
                    TokenKind::Str
                }
            }
            b'[' => {
                i = b[i..]
                    .iter()
                    .position(|&x| x == b']')
                    .map_or(b.len(), |p| i + p + 1);
                TokenKind::Word
            }
            b'0'..=b'9' => lex_number(b, &mut i),
            b'.' if b.get(i + 1).is_some_and(u8::is_ascii_digit)
                && !out
                    .last()
                    .is_some_and(|t: &Token| t.kind == TokenKind::Word) =>
            {
                lex_number(b, &mut i)
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80)
                {
                    i += 1;
                }
                TokenKind::Word
            }
            _ => {
                let two = sql.get(i..i + 2).unwrap_or("");
                i += if matches!(two, ">=" | "<=" | "!=" | "<>" | "==" | "||") {
                    2
                } else {
                    1
                };
                // Keep `i` on a character boundary.
                while i < b.len() && !sql.is_char_boundary(i) {
                    i += 1;
                }
                TokenKind::Symbol
            }
        };
        out.push(Token {
            kind,
            start,
            end: i,
            text: sql[start..i].to_owned(),
        });
    }
    out
}

/// The statements of a query text as SQLite's lexer separates them: split at every `;` outside
/// strings, quoted identifiers and comments. Each is the text from its first token to its last
/// (no `;`, no surrounding white space or comments); empty statements (a stray `;`, only white
/// space or comments) are left out, so `SELECT 1;` and `SELECT 1;;` are one statement and
/// `SELECT 1; SELECT 2` two. As in `sqlite3_complete`, inside `CREATE [TEMP] TRIGGER` only a
/// `;` after `END` ends the statement (its body's statements are part of it).
pub fn statements(sql: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut span: Option<(usize, usize)> = None;
    let tokens = tokenize(sql);
    // The current statement's first token, and whether it creates a trigger.
    let mut first = 0;
    for (i, token) in tokens.iter().enumerate() {
        if token.is_symbol(";") {
            let trigger = creates_trigger(&tokens[first..i]);
            if trigger && !(i > first && tokens[i - 1].is_word("end")) {
                continue;
            }
            first = i + 1;
            out.extend(span.take().map(|(start, end)| &sql[start..end]));
        } else {
            let start = span.map_or(token.start, |(start, _)| start);
            span = Some((start, token.end));
        }
    }
    out.extend(span.map(|(start, end)| &sql[start..end]));
    out
}

/// Whether a statement's tokens begin `CREATE [TEMP | TEMPORARY] TRIGGER`.
fn creates_trigger(tokens: &[Token]) -> bool {
    let words: Vec<String> = tokens.iter().take(3).map(Token::lower).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    matches!(
        words.as_slice(),
        ["create", "trigger", ..] | ["create", "temp" | "temporary", "trigger"]
    )
}

fn lex_number(b: &[u8], i: &mut usize) -> TokenKind {
    let mut float = false;
    while *i < b.len() && b[*i].is_ascii_digit() {
        *i += 1;
    }
    if *i < b.len() && b[*i] == b'.' {
        float = true;
        *i += 1;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
    }
    if *i < b.len() && (b[*i] == b'e' || b[*i] == b'E') {
        let mut j = *i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            float = true;
            *i = j;
            while *i < b.len() && b[*i].is_ascii_digit() {
                *i += 1;
            }
        }
    }
    if float {
        TokenKind::Float
    } else {
        TokenKind::Int
    }
}

/// The text with the bytes `start..end` replaced by `with`, keeping a space on each side so
/// neighboring tokens never fuse.
pub fn splice(sql: &str, start: usize, end: usize, with: &str) -> String {
    let mut s = String::with_capacity(sql.len() + with.len() + 2);
    s.push_str(&sql[..start]);
    if !with.is_empty() {
        if !s.is_empty() && !s.ends_with(' ') {
            s.push(' ');
        }
        s.push_str(with);
        if end < sql.len() && !sql[end..].starts_with(' ') {
            s.push(' ');
        }
    }
    s.push_str(&sql[end..]);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_split_at_semicolons_outside_strings_identifiers_and_comments() {
        assert_eq!(statements("SELECT 1; SELECT 2"), ["SELECT 1", "SELECT 2"]);
        // A trailing `;`, stray ones, comments and white space are no statement.
        assert_eq!(statements(" SELECT 1 ;; -- done\n ; /* x */"), ["SELECT 1"]);
        assert!(statements(" ; -- nothing").is_empty());
        // `;` inside a string, a quoted identifier, brackets, backticks or a comment splits
        // nothing.
        let one = "SELECT 'a;b', \"c;d\", [e;f], `g;h` FROM t -- i; j\n WHERE x /* ; */ = 1";
        assert_eq!(statements(one), [one.trim_end()]);
        assert_eq!(
            statements("SELECT 1; DELETE FROM t;"),
            ["SELECT 1", "DELETE FROM t"]
        );
        // A trigger's body is part of its statement (as in `sqlite3_complete`).
        let trigger = "CREATE TEMP TRIGGER x AFTER INSERT ON t BEGIN DELETE FROM t; END";
        assert_eq!(
            statements(&format!("{trigger}; SELECT 1")),
            [trigger, "SELECT 1"]
        );
        // An unclosed quote runs to the end, `;` included.
        assert_eq!(statements("SELECT 'a; DROP t"), ["SELECT 'a; DROP t"]);
    }

    #[test]
    fn same_up_to_case_ignores_the_case_of_words_only() {
        assert!(same_up_to_case(
            "select Name from T where x = 'Ab'",
            "SELECT name  FROM t WHERE x='Ab' -- note"
        ));
        assert!(!same_up_to_case(
            "SELECT a FROM t WHERE x = 'Ab'",
            "SELECT a FROM t WHERE x = 'ab'"
        ));
        assert!(!same_up_to_case(
            "SELECT a FROM t",
            "SELECT a FROM t LIMIT 1"
        ));
        assert!(!same_up_to_case("SELECT 1.0", "SELECT 1"));
    }

    #[test]
    fn spans_and_kinds() {
        let sql = "SELECT T1.name, count(*) FROM t AS T1 WHERE a >= 1.5 AND b = \"it\"\"s\" -- c\n";
        let toks = tokenize(sql);
        for t in &toks {
            assert_eq!(&sql[t.start..t.end], t.text);
        }
        let kinds: Vec<_> = toks.iter().map(|t| t.kind).collect();
        assert!(kinds.contains(&TokenKind::Float));
        let s = toks.iter().find(|t| t.kind == TokenKind::Str).unwrap();
        assert_eq!(s.string_content().unwrap(), "it\"s");
        assert!(toks.iter().any(|t| t.is_symbol(">=")));
        assert_eq!(toks.last().unwrap().text, "\"it\"\"s\"");
        assert_eq!(quote("it\"s", '"'), "\"it\"\"s\"");
    }

    #[test]
    fn splice_keeps_tokens_apart() {
        assert_eq!(splice("a>=1", 1, 3, "<"), "a < 1");
        assert_eq!(splice("a >= 1", 2, 4, ""), "a  1");
    }
}
