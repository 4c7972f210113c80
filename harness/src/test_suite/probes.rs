//! Probes: properties of a gold's result that a good suite shows on some database, where
//! natural data allows it, because whole families of wrong queries differ from the gold only
//! there. Unlike neighbors (one wrong query each), a probe is a query that differs from the
//! gold exactly on the databases that have the property:
//!
//! * `duplicates` — `SELECT DISTINCT * FROM (gold)`: the gold's result holds a row twice. A
//!   semi-join written for a join (`x IN (SELECT …)` for `JOIN … ON`), a missing `DISTINCT`
//!   (with `keep_distinct`), `UNION` for `UNION ALL` differ only then.
//! * `nulls` — the gold with one nullable column it reads replaced by `coalesce(col, sentinel)`:
//!   a row the gold reads holds NULL there. `count(col)` for `count(*)`, `!=` for `NOT IN`,
//!   `sum(x) / count(*)` for `avg(x)` differ only then.
//!
//! The distiller keeps a database that satisfies a probe no kept database satisfies yet
//! (`spec/test_suite.md`, "Probes"); a probe natural data cannot satisfy (a key never repeats,
//! a NOT NULL column never holds NULL) is simply never satisfied, and not an error.

use serde::Serialize;

use super::neighbors::{ColumnFacts, TableColumns};
use super::tokens::{splice, tokenize, TokenKind};

/// What a probe looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeKind {
    Duplicates,
    Nulls,
}

impl ProbeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeKind::Duplicates => "duplicates",
            ProbeKind::Nulls => "nulls",
        }
    }
}

/// A probe: a query that differs from the gold exactly where the property holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Probe {
    pub kind: ProbeKind,
    pub sql: String,
}

/// At most this many `nulls` probes per gold.
const NULL_PROBES: usize = 4;

/// A value no generated column holds.
const SENTINEL: &str = "-987654321";

/// The probes of a (prepared) gold. `duplicates` only for golds whose rows are compared as a
/// bag (no ORDER BY) and that do not already de-duplicate (set operators, LIMIT).
pub fn probes(gold: &str, tables: &TableColumns, facts: &ColumnFacts) -> Vec<Probe> {
    let toks = tokenize(gold);
    let mut out = Vec::new();
    let words = |w: &[&str]| toks.iter().any(|t| w.iter().any(|x| t.is_word(x)));
    let body = gold.trim_end().trim_end_matches(';');
    if !words(&["order", "limit", "union", "intersect", "except"]) {
        out.push(Probe {
            kind: ProbeKind::Duplicates,
            sql: format!("SELECT DISTINCT * FROM ({body})"),
        });
    }
    // Tables the gold reads (after FROM / JOIN), by position in `tables`.
    let read: Vec<usize> = toks
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            t.kind == TokenKind::Word
                && *i > 0
                && (toks[i - 1].is_word("from") || toks[i - 1].is_word("join"))
        })
        .filter_map(|(_, t)| {
            tables
                .iter()
                .position(|(name, _)| name.eq_ignore_ascii_case(&t.text))
        })
        .collect();
    let nullable = |column: &str| {
        read.iter().any(|&k| {
            tables[k]
                .1
                .iter()
                .position(|c| c.eq_ignore_ascii_case(column))
                .is_some_and(|c| {
                    !facts
                        .not_null
                        .get(k)
                        .and_then(|r| r.get(c))
                        .copied()
                        .unwrap_or(false)
                })
        })
    };
    let mut seen: Vec<String> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if seen.len() >= NULL_PROBES || t.kind != TokenKind::Word {
            continue;
        }
        let next = toks.get(i + 1);
        let prev = i.checked_sub(1).map(|p| &toks[p]);
        if next.is_some_and(|n| n.is_symbol("(") || n.is_symbol("."))
            || prev.is_some_and(|p| p.is_word("as") || p.is_word("from") || p.is_word("join"))
            || !nullable(&t.text)
        {
            continue;
        }
        // The mention, with its qualifier: `T1.x` or `x`.
        let start = match (i.checked_sub(2), prev) {
            (Some(q), Some(dot)) if dot.is_symbol(".") => toks[q].start,
            _ => t.start,
        };
        let mention = &gold[start..t.end];
        if seen.contains(&mention.to_ascii_lowercase()) {
            continue;
        }
        seen.push(mention.to_ascii_lowercase());
        out.push(Probe {
            kind: ProbeKind::Nulls,
            sql: splice(
                gold,
                start,
                t.end,
                &format!("coalesce({mention}, {SENTINEL})"),
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables() -> Vec<(String, Vec<String>)> {
        vec![
            ("t".into(), vec!["id".into(), "x".into(), "y".into()]),
            ("u".into(), vec!["t_id".into(), "z".into()]),
        ]
    }

    fn facts() -> ColumnFacts {
        ColumnFacts {
            // t.id and u.t_id never NULL; the others nullable.
            not_null: vec![vec![true, false, false], vec![true, false]],
            unique: vec![vec![true, false, false], vec![false, false]],
            numeric: Vec::new(),
        }
    }

    #[test]
    fn duplicates_and_nulls_where_they_can_tell() {
        let gold = "SELECT T1.x FROM t AS T1 JOIN u AS T2 ON T1.id = T2.t_id WHERE T2.z != 3";
        let ps = probes(gold, &tables(), &facts());
        let sqls: Vec<&str> = ps.iter().map(|p| p.sql.as_str()).collect();
        assert_eq!(ps[0].kind, ProbeKind::Duplicates);
        assert_eq!(sqls[0], format!("SELECT DISTINCT * FROM ({gold})"));
        assert!(sqls.contains(
            &"SELECT coalesce(T1.x, -987654321) FROM t AS T1 JOIN u AS T2 ON T1.id = T2.t_id WHERE T2.z != 3"
        ));
        assert!(sqls.contains(
            &"SELECT T1.x FROM t AS T1 JOIN u AS T2 ON T1.id = T2.t_id WHERE coalesce(T2.z, -987654321) != 3"
        ));
        // NOT NULL columns are never probed; ordered or de-duplicating golds have no
        // duplicates probe.
        assert!(!sqls
            .iter()
            .any(|s| s.contains("coalesce(T1.id") || s.contains("coalesce(T2.t_id")));
        let ordered = probes("SELECT id FROM t ORDER BY id", &tables(), &facts());
        assert!(ordered.is_empty(), "{ordered:?}");
        let set = probes(
            "SELECT id FROM t UNION SELECT t_id FROM u",
            &tables(),
            &facts(),
        );
        assert!(set.iter().all(|p| p.kind != ProbeKind::Duplicates));
    }
}
