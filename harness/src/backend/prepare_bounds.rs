//! Bounds on the work SQLite does while it prepares a statement, where neither the progress
//! handler nor the deadline runs (`spec/exec.md`, "Untrusted SQL"); the SQLite backend refuses
//! a query past one before it is prepared ([`check`]).
//!
//! * **CTE copies**: SQLite expands every reference to a CTE into a copy of its body. CTEs that
//!   each reference the previous one three times make 3^n copies; `n = 10` takes 15 s.
//! * **Nesting depth**: FROM-subqueries nested `d` deep take time quadratic in `d` to flatten
//!   (1,000: 0.12 s, 2,000: 0.43 s, 10,000: 33–150 s on a busy machine); expressions have
//!   SQLite's own depth limit of 1,000, FROM-subqueries none.
//!
//! The CTE count is an estimate from tokens, not a parse: a CTE is `name [(columns)] AS
//! [[NOT] MATERIALIZED] (body)` after `WITH`, `RECURSIVE` or a comma; its copies are one plus
//! the copies of every earlier CTE its body names (a recursive reference to itself counts
//! once). Shadowing is ignored, so a name reused in another `WITH` can only overestimate.

use std::collections::HashMap;

use crate::sql_tokens::{tokenize, Token, TokenKind};

/// The most CTE copies a query may make when prepared: a chain of 4,096 CTEs, or seven levels
/// of three-fold fan-out (3,280; eight make 9,841). The shared data's golds and predictions
/// make at most a handful.
pub const MAX_CTE_COPIES: u64 = 4096;

/// The deepest nesting of parentheses a query may have: SQLite's own limit for expressions.
/// The deepest among Spider dev's golds and the 14 models' predictions is 333 (dev_13 item 1017,
/// `max (` nested, which SQLite rejects).
pub const MAX_NESTING: usize = 1000;

/// Why SQLite should not prepare `sql`, if it should not.
pub fn check(sql: &str) -> Option<String> {
    let depth = nesting_depth(sql);
    if depth > MAX_NESTING {
        return Some(format!(
            "its parentheses nest {depth} deep (at most {MAX_NESTING})"
        ));
    }
    let copies = cte_copies(sql);
    if copies > MAX_CTE_COPIES {
        return Some(format!(
            "its common table expressions make {copies} copies (at most {MAX_CTE_COPIES})"
        ));
    }
    None
}

/// The deepest nesting of parentheses outside quoted text (a byte scan: quotes of either kind
/// toggle, so doubled quotes inside a literal cancel out).
pub fn nesting_depth(sql: &str) -> usize {
    let (mut depth, mut deepest, mut quote) = (0usize, 0usize, None);
    for &b in sql.as_bytes() {
        match (quote, b) {
            (None, b'\'' | b'"' | b'`') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b'(') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (None, b')') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The most copies of any one CTE of `sql` (0 without CTEs).
pub fn cte_copies(sql: &str) -> u64 {
    if !contains_word_with(sql) {
        return 0;
    }
    let tokens = tokenize(sql);
    let mut copies: HashMap<String, u64> = HashMap::new();
    let mut most = 0;
    let mut i = 0;
    while i < tokens.len() {
        if let Some((name, body)) = definition(&tokens, i) {
            let own = tokens[body.0..body.1]
                .iter()
                .filter_map(name_of)
                .filter(|n| *n != name)
                .filter_map(|n| copies.get(&n))
                .fold(1u64, |sum, c| sum.saturating_add(*c));
            most = most.max(own);
            copies.insert(name, own);
            // Definitions nested in the body are found as the scan goes on.
        }
        i += 1;
    }
    most
}

/// A cheap test before tokenizing: the text holds the word `with` in any case.
fn contains_word_with(sql: &str) -> bool {
    sql.as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"with"))
}

/// The name an identifier token stands for, lower case, quotes removed.
fn name_of(token: &Token) -> Option<String> {
    match token.kind {
        TokenKind::Word => {
            let t = token
                .text
                .trim_matches(|c| c == '`' || c == '[' || c == ']');
            Some(t.to_ascii_lowercase())
        }
        TokenKind::Str if token.text.starts_with('"') => {
            token.string_content().map(|s| s.to_ascii_lowercase())
        }
        _ => None,
    }
}

/// If a CTE is defined at token `i` (its name): the name and its body's token range.
fn definition(tokens: &[Token], i: usize) -> Option<(String, (usize, usize))> {
    let before = tokens.get(i.checked_sub(1)?)?;
    if !(before.is_word("with") || before.is_word("recursive") || before.is_symbol(",")) {
        return None;
    }
    let name = name_of(&tokens[i])?;
    let mut j = i + 1;
    if tokens.get(j)?.is_symbol("(") {
        j = matching(tokens, j)? + 1;
    }
    if !tokens.get(j)?.is_word("as") {
        return None;
    }
    j += 1;
    if tokens.get(j)?.is_word("not") {
        j += 1;
    }
    if tokens.get(j)?.is_word("materialized") {
        j += 1;
    }
    if !tokens.get(j)?.is_symbol("(") {
        return None;
    }
    let end = matching(tokens, j)?;
    Some((name, (j + 1, end)))
}

/// The index of the `)` closing the `(` at `open` (None if unclosed).
fn matching(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        if t.is_symbol("(") {
            depth += 1;
        } else if t.is_symbol(")") {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fan_out(n: usize, width: usize) -> String {
        let ctes: Vec<String> = (1..=n)
            .map(|i| {
                let from: Vec<String> = (0..width).map(|k| format!("t{} a{k}", i - 1)).collect();
                format!("t{i}(x) AS (SELECT a0.x FROM {})", from.join(", "))
            })
            .collect();
        format!(
            "WITH t0(x) AS (SELECT 1), {} SELECT count(*) FROM t{n}",
            ctes.join(", ")
        )
    }

    #[test]
    fn fan_out_multiplies_and_chains_add() {
        // t_k has 3 t_{k-1}: copies(t_k) = 1 + 3 copies(t_{k-1}), copies(t0) = 1.
        assert_eq!(cte_copies(&fan_out(1, 3)), 4);
        assert_eq!(cte_copies(&fan_out(2, 3)), 13);
        assert_eq!(cte_copies(&fan_out(10, 3)), (3u64.pow(11) - 1) / 2);
        assert!(cte_copies(&fan_out(8, 3)) > MAX_CTE_COPIES);
        assert!(cte_copies(&fan_out(7, 3)) <= MAX_CTE_COPIES);
        assert_eq!(cte_copies(&fan_out(100, 1)), 101);
        // Saturates rather than overflows.
        assert_eq!(cte_copies(&fan_out(60, 3)), u64::MAX);
    }

    #[test]
    fn nesting_is_counted_outside_quotes() {
        assert_eq!(nesting_depth("SELECT a FROM t"), 0);
        assert_eq!(nesting_depth("SELECT max((a)) FROM (SELECT a FROM t)"), 2);
        assert_eq!(
            nesting_depth("SELECT '((((' , \"a(\" FROM t WHERE x = 'it''s ('"),
            0
        );
        let deep = format!(
            "SELECT * FROM {}t{}",
            "(SELECT * FROM ".repeat(1001),
            ")".repeat(1001)
        );
        assert_eq!(nesting_depth(&deep), 1001);
        assert!(check(&deep).is_some_and(|why| why.contains("1001 deep")));
        let ok = format!("SELECT {}1{}", "(".repeat(1000), ")".repeat(1000));
        assert_eq!(check(&ok), None);
    }

    #[test]
    fn ordinary_queries_make_few_copies() {
        assert_eq!(cte_copies("SELECT name FROM singer WHERE age > 30"), 0);
        assert_eq!(cte_copies("SELECT 'with' FROM t"), 0);
        let recursive = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r \
                         WHERE x < 10) SELECT x FROM r";
        assert_eq!(cte_copies(recursive), 1);
        let two = "WITH a AS (SELECT 1 AS x), b AS MATERIALIZED (SELECT x FROM a JOIN a AS a2) \
                   SELECT * FROM b";
        assert_eq!(cte_copies(two), 3);
        let quoted = "with \"A\" as (select 1), `b` as (select * from a, \"a\") select * from b";
        assert_eq!(cte_copies(quoted), 3);
    }
}
