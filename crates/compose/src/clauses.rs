//! Clause split: a query cut at its top-level clause keywords, and what each clause mentions
//! (identifiers, literal values, aggregate functions, comparison operators).

use sqlparser::dialect::SQLiteDialect;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use super::ComposeError;

/// The kind of a clause, in the order clauses appear in a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ClauseKind {
    /// `SELECT … FROM …` with its joins.
    Select,
    /// `WHERE …`.
    Where,
    /// `GROUP BY …` with its `HAVING`.
    GroupBy,
    /// `ORDER BY …` with its `LIMIT`.
    OrderBy,
    /// `INTERSECT` and the query on its right.
    Intersect,
    /// `UNION [ALL]` and the query on its right.
    Union,
    /// `EXCEPT` and the query on its right.
    Except,
}

impl ClauseKind {
    /// Every kind, in query order.
    pub const ALL: [ClauseKind; 7] = [
        ClauseKind::Select,
        ClauseKind::Where,
        ClauseKind::GroupBy,
        ClauseKind::OrderBy,
        ClauseKind::Intersect,
        ClauseKind::Union,
        ClauseKind::Except,
    ];

    /// The name written in `compose.json` (`select`, `where`, `group_by`, …).
    pub fn name(self) -> &'static str {
        match self {
            ClauseKind::Select => "select",
            ClauseKind::Where => "where",
            ClauseKind::GroupBy => "group_by",
            ClauseKind::OrderBy => "order_by",
            ClauseKind::Intersect => "intersect",
            ClauseKind::Union => "union",
            ClauseKind::Except => "except",
        }
    }

    /// The kind's bit in a [`TagSet`](super::tagging::TagSet).
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// What a clause mentions, for the question words that may express it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mentions {
    /// Unquoted or quoted identifiers that are not SQL keywords (tables, columns, aliases).
    pub identifiers: Vec<String>,
    /// String and number literals, unquoted.
    pub values: Vec<String>,
    /// Lower-case function names called (`count`, `max`, …).
    pub functions: Vec<String>,
    /// Operators and operator keywords (`>`, `<=`, `like`, `not`, `between`, `desc`, …).
    pub operators: Vec<String>,
}

/// One clause of a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clause {
    /// Its kind.
    pub kind: ClauseKind,
    /// Its text, trimmed, as it is in the query.
    pub text: String,
    /// What it mentions.
    pub mentions: Mentions,
}

/// Words of SQL that are never an identifier here.
const SQL_WORDS: &[&str] = &[
    "select",
    "from",
    "where",
    "group",
    "by",
    "having",
    "order",
    "limit",
    "intersect",
    "union",
    "except",
    "all",
    "distinct",
    "as",
    "join",
    "inner",
    "left",
    "right",
    "outer",
    "cross",
    "natural",
    "on",
    "and",
    "or",
    "not",
    "in",
    "like",
    "between",
    "is",
    "null",
    "exists",
    "asc",
    "desc",
    "case",
    "when",
    "then",
    "else",
    "end",
    "offset",
    "using",
    "glob",
    "cast",
];

/// Operator keywords and symbols recorded in [`Mentions::operators`].
const OPERATOR_WORDS: &[&str] = &[
    "not", "like", "between", "in", "asc", "desc", "exists", "null",
];

/// Tokens of `sql` with the byte range of each in `sql`.
fn tokens(sql: &str) -> Result<Vec<(Token, usize, usize)>, ComposeError> {
    let dialect = SQLiteDialect {};
    let spanned: Vec<TokenWithSpan> = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| ComposeError::Sql {
            sql: sql.to_owned(),
            message: e.to_string(),
        })?;
    let lines = line_starts(sql);
    let offset = |line: u64, column: u64| -> usize {
        let start = lines
            .get((line.max(1) - 1) as usize)
            .copied()
            .unwrap_or(sql.len());
        sql[start..]
            .char_indices()
            .nth((column.max(1) - 1) as usize)
            .map_or(sql.len(), |(i, _)| start + i)
    };
    Ok(spanned
        .into_iter()
        .filter(|t| t.token != Token::EOF)
        .map(|t| {
            let start = offset(t.span.start.line, t.span.start.column);
            let end = offset(t.span.end.line, t.span.end.column);
            (t.token, start, end.max(start))
        })
        .collect())
}

fn line_starts(sql: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(sql.match_indices('\n').map(|(i, _)| i + 1));
    starts
}

fn word_lower(token: &Token) -> Option<String> {
    match token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_lowercase()),
        _ => None,
    }
}

/// Splits `sql` into clauses at its top-level `WHERE`, `GROUP BY`, `ORDER BY`, `INTERSECT`,
/// `UNION` and `EXCEPT` (`HAVING` stays with `GROUP BY`, `LIMIT` with the clause before it;
/// a set operator takes the rest of the query). Parenthesised text is never split; keywords
/// inside quotes are not keywords. A trailing `;` is dropped.
pub fn split_clauses(sql: &str) -> Result<Vec<Clause>, ComposeError> {
    let toks = tokens(sql)?;
    let first = toks
        .iter()
        .position(|(t, _, _)| !matches!(t, Token::Whitespace(_)));
    if first.and_then(|i| word_lower(&toks[i].0)).as_deref() != Some("select") {
        return Err(ComposeError::Sql {
            sql: sql.to_owned(),
            message: "a query must start with SELECT".into(),
        });
    }
    let mut starts: Vec<(ClauseKind, usize)> = vec![(ClauseKind::Select, 0)];
    let mut depth = 0usize;
    let mut set_op = false;
    for (i, (tok, _, _)) in toks.iter().enumerate() {
        match tok {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > 0 || set_op {
            continue;
        }
        let Some(word) = word_lower(tok) else {
            continue;
        };
        let next_word = toks[i + 1..]
            .iter()
            .find(|(t, _, _)| !matches!(t, Token::Whitespace(_)))
            .and_then(|(t, _, _)| word_lower(t));
        let kind = match word.as_str() {
            "where" => Some(ClauseKind::Where),
            "group" if next_word.as_deref() == Some("by") => Some(ClauseKind::GroupBy),
            "having" if starts.last().map(|s| s.0) != Some(ClauseKind::GroupBy) => {
                Some(ClauseKind::GroupBy)
            }
            "order" if next_word.as_deref() == Some("by") => Some(ClauseKind::OrderBy),
            "intersect" => Some(ClauseKind::Intersect),
            "union" => Some(ClauseKind::Union),
            "except" => Some(ClauseKind::Except),
            _ => None,
        };
        if let Some(kind) = kind {
            set_op = matches!(
                kind,
                ClauseKind::Intersect | ClauseKind::Union | ClauseKind::Except
            );
            starts.push((kind, i));
        }
    }
    let mut end_tok = toks.len();
    while end_tok > 0 && matches!(toks[end_tok - 1].0, Token::Whitespace(_) | Token::SemiColon) {
        end_tok -= 1;
    }
    let mut clauses = Vec::with_capacity(starts.len());
    for (n, &(kind, from)) in starts.iter().enumerate() {
        let to = starts.get(n + 1).map_or(end_tok, |s| s.1);
        let part = &toks[from..to.max(from)];
        let (Some(a), Some(b)) = (part.first(), part.last()) else {
            continue;
        };
        clauses.push(Clause {
            kind,
            text: sql[a.1..b.2].trim().to_owned(),
            mentions: mentions(part),
        });
    }
    Ok(clauses)
}

fn mentions(part: &[(Token, usize, usize)]) -> Mentions {
    let mut m = Mentions::default();
    let significant: Vec<&Token> = part
        .iter()
        .map(|(t, _, _)| t)
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    for (i, tok) in significant.iter().enumerate() {
        let next = significant.get(i + 1);
        match tok {
            Token::Word(w) if w.quote_style == Some('"') => m.values.push(w.value.clone()),
            Token::Word(w) if w.quote_style.is_some() => m.identifiers.push(w.value.clone()),
            Token::Word(w) => {
                let lower = w.value.to_lowercase();
                if matches!(next, Some(Token::LParen)) {
                    m.functions.push(lower);
                } else if OPERATOR_WORDS.contains(&lower.as_str()) {
                    m.operators.push(lower);
                } else if !SQL_WORDS.contains(&lower.as_str()) {
                    m.identifiers.push(w.value.clone());
                }
            }
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => m.values.push(s.clone()),
            Token::Number(n, _) => m.values.push(n.clone()),
            Token::Gt | Token::GtEq | Token::Lt | Token::LtEq | Token::Neq => {
                m.operators.push(tok.to_string())
            }
            _ => {}
        }
    }
    m
}

/// The query with every string and number literal replaced by a placeholder, keywords and
/// identifiers lower-cased and whitespace collapsed: its template (the template split).
pub fn template(sql: &str) -> Result<String, ComposeError> {
    let mut out = String::new();
    for (tok, _, _) in tokens(sql)? {
        let piece = match &tok {
            Token::Whitespace(_) => {
                if !out.ends_with(' ') && !out.is_empty() {
                    out.push(' ');
                }
                continue;
            }
            Token::SingleQuotedString(_) | Token::DoubleQuotedString(_) | Token::Number(..) => {
                "<value>".to_owned()
            }
            Token::Word(w) if w.quote_style == Some('"') => "<value>".to_owned(),
            other => other.to_string().to_lowercase(),
        };
        out.push_str(&piece);
    }
    Ok(out.trim_end_matches([' ', ';']).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_and_texts(sql: &str) -> Vec<(ClauseKind, String)> {
        split_clauses(sql)
            .unwrap()
            .into_iter()
            .map(|c| (c.kind, c.text))
            .collect()
    }

    #[test]
    fn issue_example_has_three_clauses() {
        let got = kinds_and_texts(
            "SELECT first_name, last_name FROM players WHERE hand = 'L' ORDER BY birth_date",
        );
        assert_eq!(
            got,
            vec![
                (
                    ClauseKind::Select,
                    "SELECT first_name, last_name FROM players".to_owned()
                ),
                (ClauseKind::Where, "WHERE hand = 'L'".to_owned()),
                (ClauseKind::OrderBy, "ORDER BY birth_date".to_owned()),
            ]
        );
    }

    #[test]
    fn nested_subquery_and_quoted_keywords_are_not_split() {
        let got = kinds_and_texts(
            "SELECT name FROM t JOIN u ON t.id = u.id WHERE x = 'a where b' AND y IN \
             (SELECT y FROM v WHERE z > 3 ORDER BY z LIMIT 1) GROUP BY name HAVING count(*) > 1 \
             ORDER BY name DESC LIMIT 3;",
        );
        let kinds: Vec<ClauseKind> = got.iter().map(|g| g.0).collect();
        assert_eq!(
            kinds,
            vec![
                ClauseKind::Select,
                ClauseKind::Where,
                ClauseKind::GroupBy,
                ClauseKind::OrderBy
            ]
        );
        assert_eq!(got[0].1, "SELECT name FROM t JOIN u ON t.id = u.id");
        assert!(got[1].1.contains("'a where b'") && got[1].1.ends_with("LIMIT 1)"));
        assert_eq!(got[2].1, "GROUP BY name HAVING count(*) > 1");
        assert_eq!(got[3].1, "ORDER BY name DESC LIMIT 3");
    }

    #[test]
    fn set_operator_takes_the_rest() {
        let got = kinds_and_texts(
            "SELECT a FROM t WHERE b = \"x\" INTERSECT SELECT a FROM t WHERE b = \"y\" ORDER BY a",
        );
        assert_eq!(got.len(), 3);
        assert_eq!(got[2].0, ClauseKind::Intersect);
        assert_eq!(
            got[2].1,
            "INTERSECT SELECT a FROM t WHERE b = \"y\" ORDER BY a"
        );
    }

    #[test]
    fn mentions_and_template() {
        let c =
            split_clauses("SELECT max(age) FROM people WHERE name LIKE '%Smith%' AND age >= 30")
                .unwrap();
        assert_eq!(c[0].mentions.functions, vec!["max"]);
        assert_eq!(c[0].mentions.identifiers, vec!["age", "people"]);
        assert_eq!(c[1].mentions.values, vec!["%Smith%", "30"]);
        assert_eq!(c[1].mentions.operators, vec!["like", ">="]);
        assert_eq!(
            template("SELECT a FROM t WHERE b = 'x'  AND c > 3;").unwrap(),
            "select a from t where b = <value> and c > <value>"
        );
    }

    #[test]
    fn not_a_select_is_an_error() {
        assert!(split_clauses("UPDATE t SET a = 1").is_err());
    }
}
