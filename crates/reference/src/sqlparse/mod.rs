//! A reproduction of the parts of `sqlparse` (0.6.1) that the Spider
//! test-suite evaluator (`taoyds/test-suite-sql-eval`) relies on, and the
//! evaluator's functions that are defined in terms of it: [`remove_distinct`]
//! (its `DISTINCT` removal before execution), and for the crate's
//! `plug_value` the steps of its value extraction for `--plug_value`
//! (`spider_reformat_query`, `sqlparse_format_keywords_upper` and
//! `sqlparse_string_literals`).
//!
//! `lexer` re-implements sqlparse's regular-expression lexer, token
//! boundaries included; `split` its statement splitter and the line
//! splitting of its serialiser.
//!
//! Everything here is a pure function over text.
//!
//! Behaviour was checked against CPython 3.11 (Unicode 14.0) and
//! sqlparse 0.6.1, the current release on PyPI at the time of writing.

mod lexer;
mod split;

use super::py_regex::Text;
use crate::python::{is_python_whitespace, python_strip};
use lexer::{Kind, Lexer};
use split::{first_statement_end, split_unquoted_newlines, statement_end};

/// Removes `DISTINCT` the way the reference evaluator does: it keeps only
/// the first statement that `sqlparse` splits off and concatenates all of
/// its leaf tokens except those whose text is `distinct` in any letter case.
///
/// Consequences worth knowing:
///
/// * Only the first statement survives. Its text runs up to and including
///   the terminating `;`, followed by any white space other than `\r` and
///   `\n` (so also U+2028) and any `--`/`# ` comments (each of which
///   carries its line break with it). A line break, a `/* */` comment or any
///   other token starts the next statement, so `"SELECT 1; SELECT 2"`
///   becomes `"SELECT 1; "` and `"SELECT 1;\nSELECT 2"` becomes
///   `"SELECT 1;"`. Leading white space is kept.
/// * A `;` splits only outside string literals, quoted identifiers and
///   comments, and only where sqlparse's split level is not positive: each
///   `(` raises it and each `)` or `END` lowers it (so `SELECT (1; SELECT 2`
///   stays one statement), and inside a `BEGIN … END` block nothing splits
///   (`BEGIN;` and `BEGIN TRANSACTION` start no block). An upper-case `GO`
///   keyword ends a statement too.
/// * Only whole tokens are dropped: the keyword itself, or a bare name such
///   as the `distinct` in `t.distinct` or `DISTINCT(`. Text inside string
///   literals, quoted identifiers or comments and longer words such as
///   `distinct_id` are untouched, and surrounding whitespace is kept, so
///   `"SELECT DISTINCT a"` becomes `"SELECT  a"`.
///
/// Where `sqlparse.parse` finds no statement at all (an empty or
/// whitespace-only string) the reference raises `IndexError`; this function
/// returns the input unchanged instead.
///
/// Known divergence: sqlparse refuses (raises `SQLParseError`) a statement
/// with more than 10,000 tokens at one grouping level or with groups nested
/// more than 100 deep, e.g. a prediction that repeats `max (` a few hundred
/// times. This function processes such input like any other, as sqlparse
/// 0.5.4 and earlier do with that prediction. Unicode character classes
/// follow CPython 3.11 (Unicode 14.0).
pub fn remove_distinct(sql: &str) -> String {
    // Without a `;`, a `GO` or a `distinct` in any letter case nothing ends the first statement
    // early and no token is dropped: the text comes back as it is, without lexing it.
    if !sql.contains(';') && !sql.contains("GO") && !contains_ignore_ascii_case(sql, "distinct") {
        return sql.to_owned();
    }
    remove_distinct_lexed(sql)
}

/// [`remove_distinct`] without its shortcut: every text lexed.
fn remove_distinct_lexed(sql: &str) -> String {
    let text = Text::new(sql);
    let lexer = Lexer::new(&text.chars);
    let Some(end) = first_statement_end(&lexer) else {
        return sql.to_owned();
    };
    let mut out = String::with_capacity(sql.len());
    for (pos, token) in lexer.tokens(0, end) {
        if !is_distinct(&text.chars[pos..token.end]) {
            out.push_str(text.slice(pos, token.end));
        }
    }
    out
}

/// The reference's `reformat_query` (from its `parse.py`), the first step of
/// its value extraction for `--plug_value`.
///
/// The text is `str.strip()`ped, every `;` and tab is deleted, and the
/// leaf tokens of the first statement `sqlparse.parse` splits off are
/// joined with single spaces, leaving out the `Whitespace` tokens (one
/// white-space character each). Line breaks are `Newline` tokens, not
/// `Whitespace`, so they survive as tokens of their own (`"a\nb"` becomes
/// `"a \n b"`). Finally the spellings `t1.*` to `t3.*` and `T1.*` to
/// `T3.*` are replaced by `*`, in that order.
///
/// Where `sqlparse.parse` finds no statement (the cleaned text is empty or
/// white space) the reference raises `IndexError`; this function returns
/// an empty string instead.
pub(crate) fn spider_reformat_query(sql: &str) -> String {
    let cleaned: String = python_strip(sql)
        .chars()
        .filter(|&c| c != ';' && c != '\t')
        .collect();
    let text = Text::new(&cleaned);
    let lexer = Lexer::new(&text.chars);
    let Some(end) = first_statement_end(&lexer) else {
        return String::new();
    };
    let parts: Vec<&str> = lexer
        .tokens(0, end)
        .filter(|(_, token)| token.kind != Kind::Whitespace)
        .map(|(pos, token)| text.slice(pos, token.end))
        .collect();
    let mut out = parts.join(" ");
    for star in ["t1.*", "t2.*", "t3.*", "T1.*", "T2.*", "T3.*"] {
        out = out.replace(star, "*");
    }
    out
}

/// `sqlparse.format(sql, reindent=False, keyword_case='upper')`, as far as
/// it can matter to a consumer that afterwards lower-cases everything but
/// string literals (as the reference's value extraction does).
///
/// Exact are: the statement splitting (the keyword-case filter runs before
/// the splitter, so a lower-case `go` keyword ends a statement here, unlike
/// in `sqlparse.parse`), dropping a trailing statement that is only white
/// space, and sqlparse's final serialisation, which splits every statement
/// at line breaks outside quotes (`\r\n`, `\r` and `\n`), strips trailing
/// white space from each line and joins the lines with `\n`.
///
/// Upper-cased are the keywords that decide statement splitting, the
/// multi-word keywords (`ORDER BY`, `LEFT JOIN`, …) and `CREATE`; other
/// keywords (`SELECT`, `WHERE`, …) keep their letters. Because sqlparse's
/// lexer ignores letter case, this changes no token boundary, and for
/// ASCII text `lower(upper(w)) == lower(w)`. The only possible difference
/// after lower-casing is a keyword spelled with a non-ASCII letter whose
/// upper case is ASCII (`ſelect`), which sqlparse would turn into `SELECT`.
pub(crate) fn sqlparse_format_keywords_upper(sql: &str) -> String {
    let text = Text::new(sql);
    let lexer = Lexer::new(&text.chars);
    let mut out = String::with_capacity(sql.len());
    let mut start = 0;
    while start < lexer.len() {
        let Some(end) = statement_end(&lexer, start, true) else {
            break;
        };
        let mut statement: Vec<char> = Vec::with_capacity(end - start);
        for (pos, token) in lexer.tokens(start, end) {
            let value = &text.chars[pos..token.end];
            if matches!(token.kind, Kind::Keyword | Kind::Ddl) {
                statement.extend(py_upper(value).chars());
            } else {
                statement.extend_from_slice(value);
            }
        }
        let lines: Vec<String> = split_unquoted_newlines(&statement)
            .into_iter()
            .map(|line| {
                let line: String = line.iter().collect();
                line.trim_end_matches(is_python_whitespace).to_owned()
            })
            .collect();
        out.push_str(&lines.join("\n"));
        start = end;
    }
    out
}

/// The string literals of the first statement `sqlparse.parse` splits off,
/// in order: the leaf tokens typed `String.Single` (`'…'`) or
/// `String.Symbol` (`"…"`), quotes included. Backtick and bracket quoting
/// make names, not strings. An empty or white-space-only input yields none.
pub(crate) fn sqlparse_string_literals(sql: &str) -> Vec<String> {
    let text = Text::new(sql);
    let lexer = Lexer::new(&text.chars);
    let Some(end) = first_statement_end(&lexer) else {
        return Vec::new();
    };
    lexer
        .tokens(0, end)
        .filter(|(_, token)| token.kind == Kind::StringLiteral)
        .map(|(pos, token)| text.slice(pos, token.end).to_owned())
        .collect()
}

/// Whether `needle` (ASCII) occurs in `haystack`, ASCII letters matched in any case.
pub(crate) fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Whether a token's text is `distinct` under Python's `str.lower()`. Only
/// ASCII letters lower-case to the single letters of `distinct`, so an
/// ASCII comparison is exact.
fn is_distinct(token: &[char]) -> bool {
    token.len() == 8
        && token
            .iter()
            .zip("distinct".chars())
            .all(|(&c, d)| c.to_ascii_lowercase() == d)
}

/// Python's `str.upper()` (full case mapping, so `ß` becomes `SS`).
fn py_upper(token: &[char]) -> String {
    token.iter().flat_map(|c| c.to_uppercase()).collect()
}

#[cfg(test)]
mod tests {
    //! Expected strings were printed by CPython 3.11 with sqlparse 0.6.1.

    use super::*;

    /// Texts with none of `;`, `GO` and `distinct` (the shortcut's conditions), and some with
    /// one of them: the shortcut must give what lexing gives.
    const SHORTCUT_TEXTS: &[&str] = &[
        "",
        "   ",
        "\n\t ",
        "SELECT name FROM singer",
        "  SELECT a FROM t  \n",
        "select * from t where a = 'x' -- comment\n",
        "SELECT /* c */ a FROM t",
        "SELECT \"go\" FROM t WHERE b = 'Go' AND c = 'gO' go",
        "BEGIN SELECT 1 END",
        "SELECT (a FROM t",
        "SELECT a FROM t WHERE b = 'ÿ—é' AND c = \"İK\"",
        "SELECT year FROM t WHERE YEAR(CURDATE()) > 1",
        "SELECT dist inct a FROM t",
        "SELECT a FROM t GO SELECT b FROM u",
        "SELECT a; SELECT b",
        "SELECT DISTINCT a FROM t",
        "SELECT distinct_id FROM t",
        "SELECT 'a;b' FROM t",
    ];

    #[test]
    fn remove_distinct_shortcut_agrees_with_lexing() {
        for text in SHORTCUT_TEXTS {
            assert_eq!(
                remove_distinct(text),
                remove_distinct_lexed(text),
                "{text:?}"
            );
        }
        // … and it is taken where nothing would change.
        assert_eq!(
            remove_distinct("SELECT \"go\" FROM t go"),
            "SELECT \"go\" FROM t go"
        );
        assert_eq!(remove_distinct("SELECT a; SELECT b"), "SELECT a; ");
    }

    #[test]
    fn remove_distinct_drops_whole_tokens_only() {
        assert_eq!(
            remove_distinct("SELECT DISTINCT name FROM singer"),
            "SELECT  name FROM singer"
        );
        assert_eq!(
            remove_distinct("select count(distinct T1.id) from t as T1"),
            "select count( T1.id) from t as T1"
        );
        assert_eq!(
            remove_distinct("SELECT count(DISTINCT(name)) FROM t"),
            "SELECT count((name)) FROM t"
        );
        assert_eq!(
            remove_distinct("SELECT t.distinct, distinct_id, distinctx, xdistinct FROM t"),
            "SELECT t., distinct_id, distinctx, xdistinct FROM t"
        );
        assert_eq!(
            remove_distinct("SELECT DISTINCTa, ſelect distinct"),
            "SELECT DISTINCTa, ſelect "
        );
        assert_eq!(
            remove_distinct("select distinct\u{a0}a from t"),
            "select \u{a0}a from t"
        );
    }

    #[test]
    fn remove_distinct_leaves_literals_identifiers_and_comments() {
        let protected =
            "SELECT 'distinct', \"distinct\", `distinct`, [distinct] FROM t -- distinct";
        assert_eq!(remove_distinct(protected), protected);
        let comment = "SELECT /* distinct */ a FROM t";
        assert_eq!(remove_distinct(comment), comment);
    }

    #[test]
    fn remove_distinct_follows_sqlparse_token_boundaries() {
        // Backtracking number patterns and `\b` after keywords.
        assert_eq!(remove_distinct("x.distinct$y"), "x.$y");
        assert_eq!(remove_distinct("AS$distinct"), "AS$");
        assert_eq!(remove_distinct("NOT NULL$distinct"), "NOT NULL$");
        assert_eq!(remove_distinct("1.distinct"), "1.");
        assert_eq!(remove_distinct("12distinct"), "12distinct");
    }

    #[test]
    fn remove_distinct_keeps_only_the_first_statement() {
        assert_eq!(remove_distinct("SELECT 1; SELECT 2"), "SELECT 1; ");
        assert_eq!(remove_distinct("SELECT 1;\nSELECT 2"), "SELECT 1;");
        assert_eq!(
            remove_distinct("SELECT 1;   -- trailing comment\nSELECT 2"),
            "SELECT 1;   -- trailing comment\n"
        );
        assert_eq!(remove_distinct("SELECT 1; # c\nx"), "SELECT 1; # c\n");
        assert_eq!(remove_distinct("SELECT 1; --+hint\nx"), "SELECT 1; ");
        assert_eq!(remove_distinct("SELECT 1; /* c */ SELECT 2"), "SELECT 1; ");
        assert_eq!(remove_distinct("SELECT 1;;"), "SELECT 1;");
        assert_eq!(remove_distinct("SELECT 1; \t"), "SELECT 1; \t");
        assert_eq!(
            remove_distinct("SELECT 1;\u{a0}\u{2028}x"),
            "SELECT 1;\u{a0}\u{2028}"
        );
        assert_eq!(
            remove_distinct("   SELECT DISTINCT a ;  \n  "),
            "   SELECT  a ;  "
        );
        assert_eq!(
            remove_distinct("SELECT DISTINCT nom FROM café WHERE x = 'é;'; SELECT 2"),
            "SELECT  nom FROM café WHERE x = 'é;'; "
        );
    }

    #[test]
    fn remove_distinct_ignores_quoted_semicolons() {
        assert_eq!(
            remove_distinct("SELECT ';' FROM t; SELECT 2"),
            "SELECT ';' FROM t; "
        );
        assert_eq!(
            remove_distinct("SELECT 'it''s;' FROM t; x"),
            "SELECT 'it''s;' FROM t; "
        );
        assert_eq!(
            remove_distinct("SELECT 'a\\'; b' FROM t; x"),
            "SELECT 'a\\'; b' FROM t; "
        );
        assert_eq!(remove_distinct("SELECT $$a;b$$; x"), "SELECT $$a;b$$; ");
    }

    #[test]
    fn remove_distinct_tracks_split_level() {
        assert_eq!(
            remove_distinct("SELECT (1; SELECT 2"),
            "SELECT (1; SELECT 2"
        );
        assert_eq!(
            remove_distinct("SELECT CASE WHEN a THEN 1 END; SELECT 2"),
            "SELECT CASE WHEN a THEN 1 END; "
        );
        assert_eq!(remove_distinct("BEGIN; SELECT 1; END; SELECT 2"), "BEGIN; ");
        assert_eq!(
            remove_distinct("BEGIN TRANSACTION; SELECT 1"),
            "BEGIN TRANSACTION; "
        );
        assert_eq!(
            remove_distinct("BEGIN\n  SELECT 1;\nEND; SELECT 2"),
            "BEGIN\n  SELECT 1;\nEND; "
        );
        assert_eq!(
            remove_distinct(
                "CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET a = 1; END; \
                 SELECT DISTINCT 2"
            ),
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET a = 1; END; "
        );
        assert_eq!(remove_distinct("SELECT 1 END  IF; x"), "SELECT 1 END  IF; ");
    }

    #[test]
    fn remove_distinct_splits_on_upper_case_go() {
        assert_eq!(remove_distinct("SELECT 1 GO SELECT 2"), "SELECT 1 GO ");
        assert_eq!(
            remove_distinct("SELECT 1 go SELECT 2"),
            "SELECT 1 go SELECT 2"
        );
    }

    #[test]
    fn remove_distinct_without_statement_returns_input() {
        assert_eq!(remove_distinct(""), "");
        assert_eq!(remove_distinct("   \n\t "), "   \n\t ");
        assert_eq!(remove_distinct(";"), ";");
        assert_eq!(remove_distinct("-- only a comment"), "-- only a comment");
    }

    #[test]
    fn spider_reformat_query_rejoins_first_statement_tokens() {
        assert_eq!(
            spider_reformat_query("  SELECT T1.* ,t2.*\tFROM a;  "),
            "SELECT T1 . * , t2 . * FROM a"
        );
        assert_eq!(
            spider_reformat_query("select a\nfrom b  -- c\nwhere x = 'y z'"),
            "select a \n from b -- c\n where x = 'y z'"
        );
        assert_eq!(
            spider_reformat_query("select 1; select 2"),
            "select 1 select 2"
        );
        assert_eq!(spider_reformat_query(" ;\t"), "");
    }

    #[test]
    fn sqlparse_format_keywords_upper_splits_and_strips_lines() {
        // sqlparse also upper-cases `SELECT`, `FROM` and `WHERE`; only the
        // letter case of such keywords may differ.
        let cases = [
            (
                "select a  \n from t where b = 'x  \ny'   \r\n",
                "SELECT a\n FROM t WHERE b = 'x  \ny'\n",
            ),
            ("select a go  \n select b", "SELECT a GO\n SELECT b"),
            ("select a GO 2\n\n  ", "SELECT a GO 2"),
            ("select a go  select b", "SELECT a GOSELECT b"),
        ];
        for (input, expected) in cases {
            assert_eq!(
                sqlparse_format_keywords_upper(input).to_lowercase(),
                expected.to_lowercase(),
                "{input:?}"
            );
        }
        assert_eq!(
            sqlparse_format_keywords_upper("x order by y go"),
            "x ORDER BY y GO"
        );
    }

    #[test]
    fn sqlparse_string_literals_of_first_statement() {
        assert_eq!(
            sqlparse_string_literals("select 'a', \"b\", `c`, [d], 'it''s' go select 'e'"),
            ["'a'", "\"b\"", "'it''s'", "'e'"]
        );
        assert_eq!(
            sqlparse_string_literals("SELECT 'x' GO SELECT 'y'"),
            ["'x'"]
        );
        assert!(sqlparse_string_literals("  ").is_empty());
    }
}
