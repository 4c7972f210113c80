//! Probes: properties of a gold's result that a good suite shows on some database, where
//! natural data allows it, because whole families of wrong queries differ from the gold only
//! there. Unlike neighbors (one wrong query each), a probe is a query that differs from the
//! gold exactly on the databases that have the property:
//!
//! * `duplicates` — `SELECT DISTINCT * FROM (gold)`: the gold's result holds a row twice. A
//!   semi-join written for a join (`x IN (SELECT …)` for `JOIN … ON`), a missing `DISTINCT`
//!   (with `keep_distinct`), `UNION` for `UNION ALL` differ only then.
//! * `fanout` — a row of one table the gold joins matches several rows of the others: the gold
//!   without such rows (`AND T1.rowid NOT IN (… GROUP BY T1.rowid HAVING count(*) > 1)`). A
//!   semi-join for a join differs only then, even where the rows it returns are otherwise
//!   distinct.
//! * `nulls` — the gold with one nullable column it reads replaced by `coalesce(col, sentinel)`:
//!   a row the gold reads holds NULL there. `count(col)` for `count(*)`, `!=` for `NOT IN`,
//!   `sum(x) / count(*)` for `avg(x)` differ only then. In a schema a profile stands for
//!   (BIRD, whose reference runs on SQLite only), two more kinds: the same column replaced by a
//!   large sentinel too, since a condition the small one makes false and NULL makes unknown
//!   answer alike under `CASE WHEN … THEN 1 ELSE 0 END` (BIRD's item 100: `UA > 6.5` with UA
//!   NULL, where a bare boolean answers NULL); and each nullable column an `ORDER BY` sorts
//!   by, replaced by `coalesce(col, X'FF')`: SQLite sorts NULL first, the blob last, so the
//!   two differ where a NULL key reaches the rows the order picks (`ORDER BY q2 LIMIT 1`
//!   against the same with `q2 IS NOT NULL`, BIRD's item 180).
//!
//! The distiller keeps a database that satisfies a probe no kept database satisfies yet
//! (`spec/test_suite.md`, "Probes"); a probe natural data cannot satisfy (a key never repeats,
//! a NOT NULL column never holds NULL) is simply never satisfied, and not an error.

use serde::Serialize;

use super::neighbors::{ColumnFacts, TableColumns};
use sqlsuite::sql_tokens::{splice, tokenize, TokenKind};

/// What a probe looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeKind {
    Duplicates,
    Fanout,
    Nulls,
}

impl ProbeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeKind::Duplicates => "duplicates",
            ProbeKind::Fanout => "fanout",
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

/// A value no generated column holds, above the values that do ([`probes`]' `profiled`).
const HIGH_SENTINEL: &str = "987654321";

/// A value that sorts after every value a generated column holds (a blob, in SQLite).
const LAST: &str = "X'FF'";

/// The probes of a (prepared) gold. `duplicates` only for golds whose rows are compared as a
/// bag (no ORDER BY) and that do not already de-duplicate (set operators, LIMIT). In a
/// `profiled` schema, `nulls` probes with the high sentinel too, and per nullable column an
/// `ORDER BY` sorts by (module doc).
pub fn probes(
    gold: &str,
    tables: &TableColumns,
    facts: &ColumnFacts,
    profiled: bool,
) -> Vec<Probe> {
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
    out.extend(fanout(gold));
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
    let mut keys_seen: Vec<String> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let sort_key = profiled && sorted_by(&toks, i);
        if (seen.len() >= NULL_PROBES && !sort_key) || t.kind != TokenKind::Word {
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
        let (seen, sentinels) = match (sort_key, profiled) {
            (true, _) => (&mut keys_seen, &[LAST][..]),
            (false, true) => (&mut seen, &[SENTINEL, HIGH_SENTINEL][..]),
            (false, false) => (&mut seen, &[SENTINEL][..]),
        };
        if seen.contains(&mention.to_ascii_lowercase()) {
            continue;
        }
        seen.push(mention.to_ascii_lowercase());
        for sentinel in sentinels {
            out.push(Probe {
                kind: ProbeKind::Nulls,
                sql: splice(
                    gold,
                    start,
                    t.end,
                    &format!("coalesce({mention}, {sentinel})"),
                ),
            });
        }
    }
    out
}

/// Is token `i` one an `ORDER BY` sorts by: the nearest clause word before it at its own
/// depth of parentheses is `ORDER`?
fn sorted_by(toks: &[sqlsuite::sql_tokens::Token], i: usize) -> bool {
    let clauses = [
        "select", "from", "where", "group", "having", "order", "limit", "on",
    ];
    let mut depth = 0usize;
    for t in toks[..i].iter().rev() {
        if t.is_symbol(")") {
            depth += 1;
        } else if t.is_symbol("(") {
            if depth == 0 {
                return false;
            }
            depth -= 1;
        } else if depth == 0 {
            if let Some(c) = clauses.iter().find(|c| t.is_word(c)) {
                return *c == "order";
            }
        }
    }
    false
}

/// At most this many `fanout` probes per gold (one per joined table).
const FANOUT_PROBES: usize = 3;

/// The `fanout` probes of a single-block gold that joins (no DISTINCT or set operator at its top
/// level): per table it joins, the gold without the rows of that table that match more than
/// once (its GROUP BY, HAVING, ORDER BY and LIMIT kept).
fn fanout(gold: &str) -> Vec<Probe> {
    let body = gold.trim_end().trim_end_matches(';').trim_end();
    let toks = tokenize(body);
    let mut depth = 0usize;
    let mut top = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.is_symbol(")") {
            depth = depth.saturating_sub(1);
        }
        if depth == 0 {
            top.push(i);
        }
        if t.is_symbol("(") {
            depth += 1;
        }
    }
    let at = |w: &str| top.iter().copied().find(|&i| toks[i].is_word(w));
    let excluded = ["distinct", "union", "intersect", "except"];
    if !toks.first().is_some_and(|t| t.is_word("select"))
        || at("join").is_none()
        || excluded.iter().any(|w| at(w).is_some())
    {
        return Vec::new();
    }
    let (Some(from), where_at) = (at("from"), at("where")) else {
        return Vec::new();
    };
    // Where the joined rows end: GROUP BY, ORDER BY or LIMIT (kept after the probe's
    // condition).
    let tail_at = ["group", "order", "limit"]
        .iter()
        .filter_map(|w| at(w))
        .min()
        .filter(|&t| t > from && where_at.is_none_or(|w| t > w));
    let tail_start = tail_at.map_or(body.len(), |t| toks[t].start);
    let tail = tail_at.map_or(String::new(), |_| format!(" {}", body[tail_start..].trim()));
    let from_end = where_at.map_or(tail_start, |w| toks[w].start);
    let from_part = body[toks[from].start..from_end].trim_end();
    let condition = where_at.map(|w| body[toks[w].end..tail_start].trim());
    // The name each joined table goes by: its alias, else its own name.
    let mut names = Vec::new();
    for &i in top
        .iter()
        .filter(|&&i| i > from && i < where_at.unwrap_or(usize::MAX))
    {
        let t = &toks[i];
        let prev = &toks[i - 1];
        if t.kind != TokenKind::Word || !(prev.is_word("from") || prev.is_word("join")) {
            continue;
        }
        let alias = match (toks.get(i + 1), toks.get(i + 2)) {
            (Some(a), Some(n)) if a.is_word("as") && n.kind == TokenKind::Word => &n.text,
            (Some(n), _)
                if n.kind == TokenKind::Word
                    && !["join", "on", "where", "inner", "left", "cross", "natural"]
                        .iter()
                        .any(|w| n.is_word(w)) =>
            {
                &n.text
            }
            _ => &t.text,
        };
        if !names.contains(alias) {
            names.push(alias.clone());
        }
    }
    if names.len() < 2 {
        return Vec::new();
    }
    let select_part = body[..toks[from].start].trim_end();
    names
        .iter()
        .take(FANOUT_PROBES)
        .map(|a| {
            let (filter, inner) = match condition {
                Some(c) => (format!("WHERE ({c}) AND"), format!(" WHERE ({c})")),
                None => ("WHERE".to_owned(), String::new()),
            };
            Probe {
                kind: ProbeKind::Fanout,
                sql: format!(
                    "{select_part} {from_part} {filter} {a}.rowid NOT IN (SELECT {a}.rowid \
                     {from_part}{inner} GROUP BY {a}.rowid HAVING count(*) > 1){tail}"
                ),
            }
        })
        .collect()
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
            numbers: Vec::new(),
            references: Vec::new(),
            formats: Vec::new(),
            text_bounds: Vec::new(),
            layouts: Vec::new(),
            gold_texts: Vec::new(),
        }
    }

    #[test]
    fn duplicates_and_nulls_where_they_can_tell() {
        let gold = "SELECT T1.x FROM t AS T1 JOIN u AS T2 ON T1.id = T2.t_id WHERE T2.z != 3";
        let ps = probes(gold, &tables(), &facts(), false);
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
        let ordered = probes("SELECT id FROM t ORDER BY id", &tables(), &facts(), false);
        assert!(ordered.is_empty(), "{ordered:?}");
        let set = probes(
            "SELECT id FROM t UNION SELECT t_id FROM u",
            &tables(),
            &facts(),
            false,
        );
        assert!(set.iter().all(|p| p.kind != ProbeKind::Duplicates));
        // In a profiled schema, a nullable sort key: NULL moved from first to last; the high
        // sentinel beside the low one.
        let gold = "SELECT id FROM t WHERE x = 1 ORDER BY y ASC LIMIT 1";
        let keyed = probes(gold, &tables(), &facts(), true);
        let keyed: Vec<&str> = keyed.iter().map(|p| p.sql.as_str()).collect();
        assert!(
            keyed.contains(&"SELECT id FROM t WHERE x = 1 ORDER BY coalesce(y, X'FF') ASC LIMIT 1")
        );
        assert!(keyed.contains(
            &"SELECT id FROM t WHERE coalesce(x, -987654321) = 1 ORDER BY y ASC LIMIT 1"
        ));
        assert!(keyed
            .contains(&"SELECT id FROM t WHERE coalesce(x, 987654321) = 1 ORDER BY y ASC LIMIT 1"));
        assert!(!probes(gold, &tables(), &facts(), false)
            .iter()
            .any(|p| p.sql.contains("X'FF'")));
    }

    #[test]
    fn fanout_per_joined_table() {
        let gold = "SELECT Region FROM country AS T1 JOIN city AS T2 ON T1.Code = T2.CountryCode WHERE T2.Name = 'Kabul' OR T2.id = 3;";
        let ps = fanout(gold);
        assert_eq!(ps.len(), 2, "{ps:?}");
        assert_eq!(
            ps[0].sql,
            "SELECT Region FROM country AS T1 JOIN city AS T2 ON T1.Code = T2.CountryCode \
             WHERE (T2.Name = 'Kabul' OR T2.id = 3) AND T1.rowid NOT IN (SELECT T1.rowid FROM \
             country AS T1 JOIN city AS T2 ON T1.Code = T2.CountryCode WHERE (T2.Name = 'Kabul' \
             OR T2.id = 3) GROUP BY T1.rowid HAVING count(*) > 1)"
        );
        assert!(ps[1]
            .sql
            .contains("AND T2.rowid NOT IN (SELECT T2.rowid FROM"));
        let bare = fanout("SELECT t.x FROM t JOIN u ON t.id = u.t_id");
        assert_eq!(
            bare[1].sql,
            "SELECT t.x FROM t JOIN u ON t.id = u.t_id WHERE u.rowid NOT IN (SELECT u.rowid \
             FROM t JOIN u ON t.id = u.t_id GROUP BY u.rowid HAVING count(*) > 1)"
        );
        // It runs, and tells a fan-out apart.
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE t (id INT, x TEXT); CREATE TABLE u (t_id INT);
             INSERT INTO t VALUES (1, 'a'), (2, 'b'); INSERT INTO u VALUES (1), (1), (2);",
        )
        .unwrap();
        let n: i64 = conn
            .query_row(
                &format!("SELECT count(*) FROM ({})", bare[0].sql),
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1, "t's row 1 matches twice and is left out");
        let ranked = fanout("SELECT t.x FROM t JOIN u ON t.id = u.t_id WHERE u.z > 1 GROUP BY t.x ORDER BY count(*) DESC LIMIT 1");
        assert_eq!(
            ranked[0].sql,
            "SELECT t.x FROM t JOIN u ON t.id = u.t_id WHERE (u.z > 1) AND t.rowid NOT IN (SELECT \
             t.rowid FROM t JOIN u ON t.id = u.t_id WHERE (u.z > 1) GROUP BY t.rowid HAVING \
             count(*) > 1) GROUP BY t.x ORDER BY count(*) DESC LIMIT 1"
        );
        for not_single in [
            "SELECT DISTINCT t.x FROM t JOIN u ON t.id = u.t_id",
            "SELECT t.x FROM t JOIN u ON t.id = u.t_id UNION SELECT z FROM u",
            "SELECT x FROM t WHERE id IN (SELECT t_id FROM u JOIN v ON u.a = v.a)",
        ] {
            assert!(fanout(not_single).is_empty(), "{not_single}");
        }
    }
}
