//! Bounds on the work SQLite does while it prepares a statement, where neither the progress
//! handler nor the deadline runs (`spec/exec.md`, "Untrusted SQL"); the SQLite backend refuses
//! a query past one before it is prepared ([`check`]).
//!
//! * **CTE copies**: SQLite expands every reference to a CTE into a copy of its body. CTEs that
//!   each reference the previous one three times make 3^n copies; `n = 10` takes 15 s.
//! * **CTE size**: copies of a large body cost in proportion to their tokens: 3,661 copies of a
//!   2,000-column select list took 18 s before the heap limit stopped them.
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

/// The most tokens a query's CTE copies may hold together: 3,661 copies of a 2,000-column body
/// (29 million tokens) took 18 s to prepare until the heap limit stopped them; seven three-fold
/// levels hold about 56,000, a chain of 4,096 small CTEs about 40,000.
pub const MAX_CTE_TOKENS: u64 = 200_000;

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
    let expansion = cte_expansion(sql);
    if expansion.copies > MAX_CTE_COPIES {
        return Some(format!(
            "its common table expressions make {} copies (at most {MAX_CTE_COPIES})",
            expansion.copies
        ));
    }
    if expansion.tokens > MAX_CTE_TOKENS {
        return Some(format!(
            "its common table expressions expand to {} tokens (at most {MAX_CTE_TOKENS})",
            expansion.tokens
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

/// What preparing a query's CTEs expands to, for its largest CTE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Expansion {
    /// Copies of CTE bodies.
    pub copies: u64,
    /// Tokens in those copies.
    pub tokens: u64,
}

/// The expansion of `sql`'s largest CTE (zero without CTEs).
pub fn cte_expansion(sql: &str) -> Expansion {
    if !contains_word_with(sql) {
        return Expansion::default();
    }
    let tokens = tokenize(sql);
    let mut known: HashMap<String, Expansion> = HashMap::new();
    let mut most = Expansion::default();
    for i in 0..tokens.len() {
        // Definitions nested in a body are found as the scan goes on.
        let Some((name, body)) = definition(&tokens, i) else {
            continue;
        };
        let own = tokens[body.0..body.1]
            .iter()
            .filter_map(name_of)
            .filter(|n| *n != name)
            .filter_map(|n| known.get(&n))
            .fold(
                Expansion {
                    copies: 1,
                    tokens: (body.1 - body.0) as u64,
                },
                |sum, e| Expansion {
                    copies: sum.copies.saturating_add(e.copies),
                    tokens: sum.tokens.saturating_add(e.tokens),
                },
            );
        most.copies = most.copies.max(own.copies);
        most.tokens = most.tokens.max(own.tokens);
        known.insert(name, own);
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
        assert_eq!(cte_expansion(&fan_out(1, 3)).copies, 4);
        assert_eq!(cte_expansion(&fan_out(2, 3)).copies, 13);
        assert_eq!(
            cte_expansion(&fan_out(10, 3)).copies,
            (3u64.pow(11) - 1) / 2
        );
        assert!(cte_expansion(&fan_out(8, 3)).copies > MAX_CTE_COPIES);
        assert!(cte_expansion(&fan_out(7, 3)).copies <= MAX_CTE_COPIES);
        assert_eq!(cte_expansion(&fan_out(100, 1)).copies, 101);
        // Saturates rather than overflows.
        assert_eq!(cte_expansion(&fan_out(60, 3)).copies, u64::MAX);
    }

    #[test]
    fn large_bodies_count_by_their_tokens() {
        let columns: Vec<String> = (0..2000).map(|i| format!("{i} AS c{i}")).collect();
        let union = |of: &str| vec![format!("SELECT * FROM {of}"); 60].join(" UNION ALL ");
        let sql = format!(
            "WITH t1 AS (SELECT {}), t2 AS ({}), t3 AS ({}) SELECT count(*) FROM t3",
            columns.join(", "),
            union("t1"),
            union("t2")
        );
        let e = cte_expansion(&sql);
        assert_eq!(e.copies, 1 + 60 * 61);
        assert!(e.tokens > 20_000_000, "{e:?}");
        assert!(check(&sql).is_some_and(|why| why.contains("tokens")));
        assert!(cte_expansion(&fan_out(7, 3)).tokens < MAX_CTE_TOKENS);
        assert!(cte_expansion(&fan_out(4096, 1)).tokens < MAX_CTE_TOKENS);
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
        assert_eq!(
            cte_expansion("SELECT name FROM singer WHERE age > 30").copies,
            0
        );
        assert_eq!(cte_expansion("SELECT 'with' FROM t").copies, 0);
        let recursive = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r \
                         WHERE x < 10) SELECT x FROM r";
        assert_eq!(cte_expansion(recursive).copies, 1);
        let two = "WITH a AS (SELECT 1 AS x), b AS MATERIALIZED (SELECT x FROM a JOIN a AS a2) \
                   SELECT * FROM b";
        assert_eq!(cte_expansion(two).copies, 3);
        let quoted = "with \"A\" as (select 1), `b` as (select * from a, \"a\") select * from b";
        assert_eq!(cte_expansion(quoted).copies, 3);
    }
}
