//! The gold's sort keys, for the exec metric's tie-aware comparison (`tie_aware_order`,
//! `spec/exec.md` §4b).
//!
//! For a gold whose top-level query is `SELECT cols FROM … ORDER BY keys [LIMIT k]`, the
//! *key query* returns the gold's columns and then its sort keys, in the gold's order and
//! without the limit: `SELECT cols, key₁, key₂ FROM … ORDER BY keys`. A key that names a
//! select-list alias or a result position (`ORDER BY 2`) is that column of the gold; any other
//! key expression is appended to the select list. Its rows, split where the keys change, are
//! the gold's [`TieGroups`].
//!
//! Nested blocks (`… WHERE x = (SELECT x … ORDER BY y LIMIT 1)`) cannot be compared this way;
//! their ties are only reported (gold quality), with the test suite's [`tie_checks`].

use std::collections::BTreeSet;

use super::ties::tie_checks;
use crate::backend::{Database, Limits};
use crate::denotation::{equivalent, CompareOptions, ResultTable, TieGroups, Value};
use crate::executor::Executor;
use crate::sql_tokens::{tokenize, Token, TokenKind};

/// How the gold orders its rows, as far as the tie-aware comparison is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderPlan {
    /// The top-level query has no ORDER BY (an ORDER BY inside a subquery orders nothing the
    /// answer shows): the rows are compared as a bag.
    Unordered,
    /// The top-level query orders its rows by these keys.
    Keys(KeyQuery),
    /// Ordered, but no key query can be built; the official (exact order) comparison stays.
    Unsupported(&'static str),
}

/// The key query of an ordered gold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyQuery {
    /// What runs: the gold's columns, then the appended keys, in key order, without LIMIT.
    pub sql: String,
    /// Each sort key, in ORDER BY order.
    pub keys: Vec<Key>,
    /// How many expressions were appended to the select list.
    pub appended: usize,
}

/// Where a sort key's value is in a row of the key query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// Column `n` (0-based) of the gold's result (an alias or a position).
    Column(usize),
    /// The `n`-th (0-based) appended expression.
    Appended(usize),
}

/// The plan of a gold as it runs (the prepared SQL).
pub fn order_plan(sql: &str) -> OrderPlan {
    let toks = tokenize(sql);
    let depth = depths(&toks);
    let top = |j: usize| depth[j] == 0;
    let word = |j: usize, w: &str| top(j) && toks[j].is_word(w);
    if (0..toks.len()).any(|j| word(j, "union") || word(j, "intersect") || word(j, "except")) {
        return if has_top_order_by(&toks, &depth) {
            OrderPlan::Unsupported("a compound query (UNION / INTERSECT / EXCEPT)")
        } else {
            OrderPlan::Unordered
        };
    }
    let Some(order) = (0..toks.len())
        .find(|&j| word(j, "order") && toks.get(j + 1).is_some_and(|b| b.is_word("by")))
    else {
        return OrderPlan::Unordered;
    };
    let Some(select) = (0..order).find(|&j| word(j, "select")) else {
        return OrderPlan::Unsupported("no top-level SELECT before ORDER BY");
    };
    if toks.get(select + 1).is_some_and(|t| t.is_word("distinct")) {
        return OrderPlan::Unsupported("SELECT DISTINCT (keys added to it would change its rows)");
    }
    const AFTER_LIST: [&str; 7] = [
        "from", "where", "group", "having", "window", "order", "limit",
    ];
    let Some(list_end) = (select + 1..=order).find(|&j| AFTER_LIST.iter().any(|w| word(j, w)))
    else {
        return OrderPlan::Unsupported("no end of the select list");
    };
    // The end of the ORDER BY clause: LIMIT, a `;`, or the end.
    let end = (order + 2..toks.len())
        .find(|&j| word(j, "limit") || (top(j) && toks[j].is_symbol(";")))
        .unwrap_or(toks.len());
    if end < toks.len() && toks[end].is_word("limit") {
        let plain = toks.get(end + 1).is_some_and(|n| n.kind == TokenKind::Int)
            && toks
                .get(end + 2)
                .is_none_or(|n| n.is_symbol(";") && depth[end + 2] == 0);
        if !plain {
            return OrderPlan::Unsupported(
                "a LIMIT that is not one integer (OFFSET, an expression)",
            );
        }
    }
    let aliases = select_aliases(&toks, &depth, select + 1, list_end);
    let mut keys = Vec::new();
    let mut appended = Vec::new();
    for (first, last) in split_top(&toks, &depth, order + 2, end) {
        let mut last = last;
        while last > first && (toks[last - 1].is_word("asc") || toks[last - 1].is_word("desc")) {
            last -= 1;
        }
        if last >= 2 + first
            && toks[last - 2].is_word("nulls")
            && (toks[last - 1].is_word("first") || toks[last - 1].is_word("last"))
        {
            return OrderPlan::Unsupported("NULLS FIRST / LAST");
        }
        if last == first {
            return OrderPlan::Unsupported("an empty sort key");
        }
        let text = &sql[toks[first].start..toks[last - 1].end];
        if last == first + 1 && toks[first].kind == TokenKind::Int {
            match text.parse::<usize>() {
                Ok(n) if n >= 1 => keys.push(Key::Column(n - 1)),
                _ => return OrderPlan::Unsupported("a sort key position out of range"),
            }
            continue;
        }
        let alias = (last == first + 1 && toks[first].kind == TokenKind::Word)
            .then(|| unquote(&toks[first].text))
            .and_then(|name| aliases.iter().position(|a| a.as_deref() == Some(&name)));
        match alias {
            Some(column) => keys.push(Key::Column(column)),
            None => {
                keys.push(Key::Appended(appended.len()));
                appended.push(text);
            }
        }
    }
    let head = sql[..toks[list_end].start].trim_end();
    let body = sql[toks[list_end].start..toks.get(end).map_or(sql.len(), |t| t.start)].trim_end();
    let sql = if appended.is_empty() {
        format!("{head} {body}")
    } else {
        format!("{head}, {} {body}", appended.join(", "))
    };
    OrderPlan::Keys(KeyQuery {
        sql,
        keys,
        appended: appended.len(),
    })
}

impl KeyQuery {
    /// The gold's tie groups from its result (`gold`) and the key query's (`keyed`): `Err`
    /// says why they cannot be formed (then the official comparison stays).
    pub fn tie_groups(&self, gold: &ResultTable, keyed: &ResultTable) -> Result<TieGroups, String> {
        let ncols = gold.column_count();
        let width = keyed.column_count();
        if keyed.rows.len() < gold.rows.len() {
            return Err(format!(
                "the key query has {} rows, the gold {}",
                keyed.rows.len(),
                gold.rows.len()
            ));
        }
        if !keyed.rows.is_empty() && width != ncols + self.appended {
            return Err(format!(
                "the key query has {width} columns, the gold {ncols} and {} keys",
                self.appended
            ));
        }
        let position = |key: &Key| match *key {
            Key::Column(c) if c < ncols => Ok(c),
            Key::Column(c) => Err(format!(
                "sort key position {} past the gold's columns",
                c + 1
            )),
            Key::Appended(a) => Ok(ncols + a),
        };
        let positions = self
            .keys
            .iter()
            .map(position)
            .collect::<Result<Vec<_>, _>>()?;
        let keys: Vec<Vec<Value>> = keyed
            .rows
            .iter()
            .map(|r| positions.iter().map(|&p| r[p].clone()).collect())
            .collect();
        let rows = keyed.rows.iter().map(|r| r[..ncols].to_vec()).collect();
        let groups = TieGroups::new(rows, &keys, gold.rows.len())
            .ok_or("the key query's rows do not reach the gold's")?;
        // The gold itself must be one of the answers the groups admit; if not, the key query
        // does not describe it (a non-deterministic function, say).
        if !groups.admits(&gold.rows, 0.0) {
            return Err("the gold's rows are not an answer the key query's groups admit".into());
        }
        Ok(groups)
    }
}

/// The tie checks of the gold's nested `ORDER BY … LIMIT k` blocks (the top-level block is the
/// key query's): each query returns that block's keys, one row past its limit.
pub(crate) fn nested_tie_checks(sql: &str) -> Vec<(String, usize)> {
    tie_checks(sql)
        .into_iter()
        .filter(|c| c.nested)
        .map(|c| (c.sql, c.limit))
        .collect()
}

/// How a prediction was admitted by the tie-aware comparison (the verdict's reason).
const TIED: &str = "the same rows up to the order of rows the gold's sort keys tie, or the \
                    choice among rows tied at its LIMIT (tie-aware ORDER BY)";
const UNORDERED: &str = "the same rows in another order; the gold orders only inside a \
                         subquery, which orders nothing the answer shows (tie-aware ORDER BY)";

/// Does the tie-aware comparison admit `pred` where the ordered one did not? `Ok(Some)` says
/// how (the verdict's reason), `Ok(None)` no, `Err` why it cannot tell (the official verdict
/// stands).
pub fn admits(
    order: &OrderPlan,
    db: &Database,
    gold: &ResultTable,
    pred: &ResultTable,
    executor: &Executor,
    limits: &Limits,
    tol: f64,
) -> Result<Option<&'static str>, String> {
    admits_by(order, gold, pred, tol, |keys| {
        tie_groups(keys, db, gold, executor, limits)
    })
}

/// [`admits`], the gold's tie groups formed by `groups` from the key query (which runs it
/// where the rows came from: the executor's database for the metric, a scratch copy for the
/// counterexample shrinker), called only for an ordered gold with a key query.
pub fn admits_by(
    order: &OrderPlan,
    gold: &ResultTable,
    pred: &ResultTable,
    tol: f64,
    groups: impl FnOnce(&KeyQuery) -> Result<TieGroups, String>,
) -> Result<Option<&'static str>, String> {
    match order {
        OrderPlan::Unordered => {
            let bag = CompareOptions {
                order_matters: false,
                float_tolerance: tol,
                as_sets: false,
            };
            Ok(equivalent(gold, pred, bag).then_some(UNORDERED))
        }
        OrderPlan::Unsupported(why) => Err((*why).to_owned()),
        OrderPlan::Keys(keys) => Ok(groups(keys)?.admits(&pred.rows, tol).then_some(TIED)),
    }
}

/// The gold's tie groups on `db` (its key query runs like a gold: once per run).
fn tie_groups(
    keys: &KeyQuery,
    db: &Database,
    gold: &ResultTable,
    executor: &Executor,
    limits: &Limits,
) -> Result<TieGroups, String> {
    let keyed = executor.gold(db, &keys.sql, limits);
    let keyed = keyed
        .as_ref()
        .as_ref()
        .map_err(|e| format!("the key query failed: {e} ({})", keys.sql))?;
    keys.tie_groups(gold, keyed)
}

/// Gold quality: whether the gold's answer depends on how ties are broken on any of its
/// databases — `ties_at_limit` (its LIMIT cuts a tie group: which rows), `ties_in_order`
/// (tied rows that differ: their order), `ties_in_subquery` (a nested `ORDER BY … LIMIT`
/// cuts a tie: the rows the subquery picks).
pub(crate) fn gold_flags(
    gold_sql: &str,
    order: Option<&OrderPlan>,
    databases: &[Database],
    executor: &Executor,
    limits: &Limits,
) -> Vec<&'static str> {
    let mut flags = BTreeSet::new();
    let nested = nested_tie_checks(gold_sql);
    for db in databases {
        let result = executor.gold(db, gold_sql, limits);
        let Ok(table) = result.as_ref() else {
            continue;
        };
        if let Some(OrderPlan::Keys(keys)) = order {
            if let Ok(groups) = tie_groups(keys, db, table, executor, limits) {
                if groups.limit_is_tied() {
                    flags.insert("ties_at_limit");
                }
                if groups.order_is_tied() {
                    flags.insert("ties_in_order");
                }
            }
        }
        for (sql, limit) in &nested {
            if let Ok(t) = executor.gold(db, sql, limits).as_ref() {
                if t.rows.len() > *limit && t.rows[limit - 1] == t.rows[*limit] {
                    flags.insert("ties_in_subquery");
                }
            }
        }
    }
    flags.into_iter().collect()
}

fn depths(toks: &[Token]) -> Vec<usize> {
    let mut out = Vec::with_capacity(toks.len());
    let mut d = 0usize;
    for t in toks {
        if t.is_symbol(")") {
            d = d.saturating_sub(1);
        }
        out.push(d);
        if t.is_symbol("(") {
            d += 1;
        }
    }
    out
}

fn has_top_order_by(toks: &[Token], depth: &[usize]) -> bool {
    (0..toks.len()).any(|j| {
        depth[j] == 0
            && toks[j].is_word("order")
            && toks.get(j + 1).is_some_and(|b| b.is_word("by"))
    })
}

/// The token ranges `[first, last)` between top-level commas in `[from, to)`.
fn split_top(toks: &[Token], depth: &[usize], from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut first = from;
    for j in from..=to {
        if j == to || (depth[j] == 0 && toks[j].is_symbol(",")) {
            out.push((first, j));
            first = j + 1;
        }
    }
    out
}

/// Each select-list item's alias (`expr AS name` or `expr name`), lower case, unquoted.
fn select_aliases(toks: &[Token], depth: &[usize], from: usize, to: usize) -> Vec<Option<String>> {
    split_top(toks, depth, from, to)
        .into_iter()
        .map(|(first, last)| {
            // `expr AS name`, or `expr name` where the word is not `t.name` (one token alone
            // is a column, not an alias).
            let named = last >= first + 2
                && toks[last - 1].kind == TokenKind::Word
                && (toks[last - 2].is_word("as") || !toks[last - 2].is_symbol("."));
            named.then(|| unquote(&toks[last - 1].text))
        })
        .collect()
}

fn unquote(word: &str) -> String {
    word.trim_matches(|c| c == '`' || c == '[' || c == ']' || c == '"')
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(sql: &str) -> KeyQuery {
        match order_plan(sql) {
            OrderPlan::Keys(k) => k,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn the_key_query_selects_the_columns_then_the_keys_without_the_limit() {
        let k = keys(
            "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid \
             GROUP BY T1.id ORDER BY count(*) DESC, T1.age LIMIT 3",
        );
        assert_eq!(
            k.sql,
            "SELECT T1.name, count(*), T1.age FROM singer AS T1 JOIN concert AS T2 ON \
             T1.id = T2.sid GROUP BY T1.id ORDER BY count(*) DESC, T1.age"
        );
        assert_eq!(k.keys, [Key::Appended(0), Key::Appended(1)]);
        // Aliases and positions name the gold's own columns.
        let k = keys("SELECT name, count(*) AS c FROM t GROUP BY name ORDER BY c DESC, 1 LIMIT 1;");
        assert_eq!(
            k.sql,
            "SELECT name, count(*) AS c FROM t GROUP BY name ORDER BY c DESC, 1"
        );
        assert_eq!(k.keys, [Key::Column(1), Key::Column(0)]);
        assert_eq!(k.appended, 0);
        // A subquery's ORDER BY orders nothing the answer shows.
        assert_eq!(
            order_plan("SELECT a FROM t WHERE b = (SELECT b FROM u ORDER BY c LIMIT 1)"),
            OrderPlan::Unordered
        );
        assert_eq!(order_plan("SELECT a FROM t"), OrderPlan::Unordered);
        for unsupported in [
            "SELECT a FROM t UNION SELECT a FROM u ORDER BY a",
            "SELECT a FROM t ORDER BY a LIMIT 1 OFFSET 1",
            "SELECT a FROM t ORDER BY a LIMIT 1, 2",
            "SELECT DISTINCT a FROM t ORDER BY b",
        ] {
            assert!(
                matches!(order_plan(unsupported), OrderPlan::Unsupported(_)),
                "{unsupported}"
            );
        }
    }

    #[test]
    fn nested_blocks_are_checked_for_ties_not_the_top_level_one() {
        let g = "SELECT name FROM s WHERE age = (SELECT age FROM s ORDER BY age LIMIT 1) \
                 ORDER BY name LIMIT 1";
        assert_eq!(
            nested_tie_checks(g),
            [("SELECT age FROM s ORDER BY age LIMIT 2".to_owned(), 1)]
        );
    }
}
