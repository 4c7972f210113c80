//! Ties at a superlative's boundary. A gold's `… ORDER BY keys LIMIT k` presupposes that the
//! order decides which rows come first: where the k-th and the (k+1)-th rows tie on the keys,
//! the answer is a tie-break (by the physical order, or the order a GROUP BY left its groups
//! in), and an equivalent query that breaks the tie otherwise returns other rows. Such a
//! database is no part of that gold's suite (`spec/test_suite.md`, "Ambiguous answers").
//!
//! For each such block of a gold (at any depth, e.g. `x = (SELECT x … ORDER BY y LIMIT 1)`),
//! [`tie_checks`] builds the query that selects its sort keys instead of its columns, with one
//! row more: `SELECT keys FROM … ORDER BY keys LIMIT k + 1`.

use crate::sql_tokens::{tokenize, Token, TokenKind};

/// A block's sort keys, one row past its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TieCheck {
    /// The query whose rows show whether the tie exists.
    pub sql: String,
    /// The block's LIMIT: rows `limit - 1` and `limit` (0-based) of the check must differ.
    pub limit: usize,
    /// The block is inside parentheses (a subquery), not the top-level query.
    pub nested: bool,
}

/// The tie checks of every `SELECT … FROM … ORDER BY … LIMIT k` block of `gold` whose select
/// list can be replaced (not a compound query, no OFFSET). A check may still fail to run (an
/// ORDER BY naming a select-list alias, a correlated subquery): then it says nothing.
pub fn tie_checks(gold: &str) -> Vec<TieCheck> {
    let toks = tokenize(gold);
    let mut depth = Vec::with_capacity(toks.len());
    let mut d = 0usize;
    for t in &toks {
        if t.is_symbol(")") {
            d = d.saturating_sub(1);
        }
        depth.push(d);
        if t.is_symbol("(") {
            d += 1;
        }
    }
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if !t.is_word("limit") {
            continue;
        }
        let Some(limit) = toks
            .get(i + 1)
            .filter(|n| n.kind == TokenKind::Int)
            .and_then(|n| n.text.parse::<usize>().ok())
            .filter(|&k| k > 0)
        else {
            continue;
        };
        let d = depth[i];
        // The block: from its opening parenthesis (or the start) to the limit.
        let start = (0..i)
            .rev()
            .find(|&j| depth[j] + 1 == d && toks[j].is_symbol("("))
            .map_or(0, |j| j + 1);
        if d > 0 && start == 0 {
            continue;
        }
        let at = |j: usize, w: &str| depth[j] == d && toks[j].is_word(w);
        let block: Vec<usize> = (start..i).collect();
        if block
            .iter()
            .any(|&j| at(j, "union") || at(j, "intersect") || at(j, "except"))
            || toks
                .get(i + 2)
                .is_some_and(|n| n.is_word("offset") || n.is_symbol(","))
        {
            continue;
        }
        let Some(&select) = block.iter().find(|&&j| at(j, "select")) else {
            continue;
        };
        let Some(&from) = block.iter().find(|&&j| j > select && at(j, "from")) else {
            continue;
        };
        let Some(&order) = block.iter().find(|&&j| {
            j > from && at(j, "order") && toks.get(j + 1).is_some_and(|b| b.is_word("by"))
        }) else {
            continue;
        };
        let keys = sort_keys(gold, &toks, &depth, order + 2, i, d);
        if keys.is_empty() {
            continue;
        }
        let sql = format!(
            "SELECT {} {} LIMIT {}",
            keys.join(", "),
            &gold[toks[from].start..toks[i].start].trim_end(),
            limit + 1
        );
        out.push(TieCheck {
            sql,
            limit,
            nested: d > 0,
        });
    }
    out
}

/// The ORDER BY keys between tokens `from` and `to` (the LIMIT), without ASC / DESC.
fn sort_keys(
    gold: &str,
    toks: &[Token],
    depth: &[usize],
    from: usize,
    to: usize,
    d: usize,
) -> Vec<String> {
    let mut keys = Vec::new();
    let mut first = from;
    for j in from..=to {
        let end_of_key = j == to || (depth[j] == d && toks[j].is_symbol(","));
        if !end_of_key {
            continue;
        }
        let mut last = j;
        while last > first && (toks[last - 1].is_word("asc") || toks[last - 1].is_word("desc")) {
            last -= 1;
        }
        if last > first {
            keys.push(gold[toks[first].start..toks[last - 1].end].to_owned());
        }
        first = j + 1;
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_one_row_past_the_limit() {
        let g = "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid \
                 GROUP BY T1.id ORDER BY count(*) DESC, T1.age LIMIT 3";
        assert_eq!(
            tie_checks(g),
            vec![TieCheck {
                sql: "SELECT count(*), T1.age FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid \
                      GROUP BY T1.id ORDER BY count(*) DESC, T1.age LIMIT 4"
                    .into(),
                limit: 3,
                nested: false,
            }]
        );
        // In a subquery, the block alone.
        let g = "select count(*) from concert where stadium_id = \
                 (select stadium_id from stadium order by capacity desc limit 1)";
        assert_eq!(
            tie_checks(g),
            vec![TieCheck {
                sql: "SELECT capacity from stadium order by capacity desc LIMIT 2".into(),
                limit: 1,
                nested: true,
            }]
        );
        // Nothing to check: no ORDER BY, a compound query, an OFFSET.
        assert!(tie_checks("SELECT name FROM singer LIMIT 1").is_empty());
        assert!(tie_checks("SELECT a FROM t UNION SELECT b FROM u ORDER BY a LIMIT 1").is_empty());
        assert!(tie_checks("SELECT a FROM t ORDER BY a LIMIT 1 OFFSET 2").is_empty());
    }
}
