//! The scratch database a counterexample is shrunk on: a private in-memory copy of the
//! database that told gold and prediction apart ([`sqlite::scratch_copy`]), never the file.
//!
//! It knows the copy's tables and the rowids each still has, deletes candidate rows inside a
//! savepoint that is kept or rolled back, and refuses a deletion that leaves a declared foreign
//! key dangling where it did not dangle before (`PRAGMA foreign_key_list`; a child row whose
//! non-NULL key has no parent row). Deleting rows cannot break NOT NULL, UNIQUE or CHECK
//! constraints, so foreign keys are the only constraints a deletion must keep.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rusqlite::Connection;

use crate::backend::sqlite::{self, quote_identifier, WriteGate};
use crate::backend::Limits;
use crate::clock::Clock;
use crate::denotation::ResultTable;

/// One table of the copy.
#[derive(Debug, Clone)]
pub struct Table {
    /// Its name.
    pub name: String,
    /// The rowids of the rows it still has, ascending; `None` for a table without rowids
    /// (`WITHOUT ROWID`), whose rows are all kept.
    pub rowids: Option<Vec<i64>>,
}

/// A declared foreign key whose dangling rows can be found.
#[derive(Debug, Clone)]
struct ForeignKey {
    child: String,
    parent: String,
    /// The query listing the child's rowids whose key has no parent row.
    dangling: String,
    /// The query listing the parent's rowids that a child row references by a key no other
    /// parent row has (deleting one alone leaves that child dangling).
    pinned: String,
    /// Those rowids in the original database (dangling already; deleting may not add any).
    before: BTreeSet<i64>,
}

/// A child's key column and the parent column it names (`None`: the parent's primary key).
type KeyColumn = (String, Option<String>);

/// The scratch copy.
pub struct Scratch {
    conn: Connection,
    gate: WriteGate,
    /// Its tables, in `sqlite_master` order.
    pub tables: Vec<Table>,
    keys: Vec<ForeignKey>,
    /// Declared foreign keys that could not be checked (a parent table or column the schema
    /// lacks), described.
    pub unchecked_keys: Vec<String>,
}

/// A query's rows as text-free values (the copy is trusted: it is ours). Its statement is
/// cached: the foreign keys' checks run after every candidate deletion.
fn rows(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<Vec<rusqlite::types::Value>>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let width = stmt.column_count();
    let out = stmt
        .query_map([], |row| {
            (0..width)
                .map(|i| row.get::<_, rusqlite::types::Value>(i))
                .collect()
        })?
        .collect();
    out
}

fn text(v: &rusqlite::types::Value) -> Option<String> {
    match v {
        rusqlite::types::Value::Text(s) => Some(s.clone()),
        _ => None,
    }
}

impl Scratch {
    /// The copy of the database file or script at `path`, its queries reading `clock`.
    pub fn open(path: &Path, clock: Clock) -> Result<Scratch, String> {
        let (conn, gate) = sqlite::scratch_copy(path, clock).map_err(|e| e.to_string())?;
        let open = gate.open();
        // Its own check keeps references (a deletion SQLite's enforcement would refuse
        // outright is a candidate the check rejects, and rows dangling already stay allowed).
        conn.execute_batch("PRAGMA foreign_keys = OFF")
            .map_err(|e| e.to_string())?;
        let names = rows(
            &conn,
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             ORDER BY rowid",
        )
        .map_err(|e| e.to_string())?;
        let mut tables = Vec::new();
        for name in names.iter().filter_map(|r| text(&r[0])) {
            let q = format!(
                "SELECT rowid FROM {} ORDER BY rowid",
                quote_identifier(&name)
            );
            let rowids = rowid_list(&conn, &q).ok();
            tables.push(Table { name, rowids });
        }
        let (mut keys, mut unchecked_keys) = (Vec::new(), Vec::new());
        for t in &tables {
            read_keys(&conn, &t.name, &mut keys, &mut unchecked_keys);
        }
        drop(open);
        Ok(Scratch {
            conn,
            gate,
            tables,
            keys,
            unchecked_keys,
        })
    }

    /// Runs the shrinker's own statements with the write gate open (a value simplified in a
    /// savepoint, the schema's pragmas read).
    pub fn trusted<T>(&self, f: impl FnOnce(&Connection) -> T) -> T {
        let _open = self.gate.open();
        f(&self.conn)
    }

    /// The connection untrusted queries run on (behind the gate, shut).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Deletes `rowids` of table `table` (by position) if no foreign key is left dangling that
    /// did not dangle before, then asks `keep` whether to keep the deletion; the rows are
    /// restored otherwise. `Ok(true)`: deleted and kept.
    pub fn try_delete(
        &mut self,
        table: usize,
        rowids: &[i64],
        keep: &mut dyn FnMut(&Connection) -> bool,
    ) -> Result<bool, String> {
        if rowids.is_empty() {
            return Ok(keep(&self.conn));
        }
        let name = self.tables[table].name.clone();
        let gone: BTreeSet<i64> = rowids.iter().copied().collect();
        // The shorter list in the statement: the rows deleted, or those kept.
        let left: Vec<i64> = self.tables[table]
            .rowids
            .iter()
            .flatten()
            .copied()
            .filter(|id| !gone.contains(id))
            .collect();
        let (operator, list) = match left.len() < gone.len() {
            true => ("NOT IN", left),
            false => ("IN", gone.iter().copied().collect()),
        };
        let list: Vec<String> = list.iter().map(i64::to_string).collect();
        let delete = match list.is_empty() && operator == "NOT IN" {
            // Every row: without a WHERE clause SQLite drops the table's pages at once
            // ("truncate optimization"), 25 times faster than row by row on 4,000 rows.
            true => format!("DELETE FROM {}", quote_identifier(&name)),
            false => format!(
                "DELETE FROM {} WHERE rowid {operator} ({})",
                quote_identifier(&name),
                list.join(",")
            ),
        };
        let deleted = {
            let _open = self.gate.open();
            self.conn
                .execute_batch(&format!("SAVEPOINT shrink; {delete};"))
                .map_err(|e| e.to_string())?;
            self.keys_hold(&name)
        };
        let kept = deleted && keep(&self.conn);
        let _open = self.gate.open();
        let end = match kept {
            true => "RELEASE shrink;",
            false => "ROLLBACK TO shrink; RELEASE shrink;",
        };
        self.conn.execute_batch(end).map_err(|e| e.to_string())?;
        if kept {
            if let Some(ids) = self.tables[table].rowids.as_mut() {
                ids.retain(|id| !gone.contains(id));
            }
        }
        Ok(kept)
    }

    /// The tables' positions in the order rows are best deleted in: a table after every
    /// table whose declared foreign keys reference it (children before parents, so that a
    /// parent's rows are free to go when its turn comes), otherwise in `sqlite_master` order;
    /// tables in a cycle of references in that order too.
    pub fn deletion_order(&self) -> Vec<usize> {
        let position = |name: &str| {
            self.tables
                .iter()
                .position(|t| t.name.eq_ignore_ascii_case(name))
        };
        // (child, parent) pairs between two different tables.
        let edges: Vec<(usize, usize)> = self
            .keys
            .iter()
            .filter_map(|k| Some((position(&k.child)?, position(&k.parent)?)))
            .filter(|(c, p)| c != p)
            .collect();
        let mut placed = vec![false; self.tables.len()];
        let mut order = Vec::with_capacity(self.tables.len());
        while order.len() < self.tables.len() {
            let free = |t: usize| !placed[t] && edges.iter().all(|&(c, p)| p != t || placed[c]);
            let next = (0..self.tables.len())
                .find(|&t| free(t))
                .or_else(|| (0..self.tables.len()).find(|&t| !placed[t]));
            let Some(t) = next else { break };
            placed[t] = true;
            order.push(t);
        }
        order
    }

    /// The rows of table `table` (by position) that cannot be deleted alone: a row of another
    /// table references each through a declared foreign key, by a key no other row has. They
    /// are no candidates for deletion (each would be refused), which saves the probes.
    pub fn pinned(&self, table: usize) -> BTreeSet<i64> {
        let name = &self.tables[table].name;
        self.keys
            .iter()
            .filter(|k| k.parent.eq_ignore_ascii_case(name))
            .filter_map(|k| rowid_set(&self.conn, &k.pinned).ok())
            .flatten()
            .collect()
    }

    /// Whether every foreign key whose parent is `parent` dangles at most where it did.
    fn keys_hold(&self, parent: &str) -> bool {
        self.keys
            .iter()
            .filter(|k| k.parent.eq_ignore_ascii_case(parent))
            .all(|k| rowid_set(&self.conn, &k.dangling).is_ok_and(|now| now.is_subset(&k.before)))
    }

    /// The rows table `name` has now, as a query reads them (in rowid order).
    pub fn contents(&self, name: &str, limits: &Limits) -> Result<ResultTable, String> {
        let q = format!("SELECT * FROM {} ORDER BY rowid", quote_identifier(name));
        sqlite::run_query(&self.conn, &q, limits)
            .or_else(|_| {
                let q = format!("SELECT * FROM {}", quote_identifier(name));
                sqlite::run_query(&self.conn, &q, limits)
            })
            .map_err(|e| e.to_string())
    }

    /// The rows table `table` has now.
    pub fn row_count(&self, table: &str) -> usize {
        let _open = self.gate.open();
        let q = format!("SELECT count(*) FROM {}", quote_identifier(table));
        self.conn
            .query_row(&q, [], |r| r.get::<_, i64>(0))
            .map_or(0, |n| n as usize)
    }

    /// The tables whose rows `sql` reads (its plan's `OpenRead` of a table or of one of its
    /// indexes), by name; `None` if its plan cannot be read.
    pub fn tables_read(&self, sql: &str) -> Option<BTreeSet<String>> {
        let mut roots = BTreeMap::new();
        for r in rows(
            &self.conn,
            "SELECT rootpage, tbl_name FROM sqlite_master WHERE rootpage > 0",
        )
        .ok()?
        {
            if let (rusqlite::types::Value::Integer(page), Some(table)) = (&r[0], text(&r[1])) {
                roots.insert(*page, table);
            }
        }
        let plan = rows(&self.conn, &format!("EXPLAIN {sql}")).ok()?;
        Some(
            plan.iter()
                .filter(|r| text(&r[1]).as_deref() == Some("OpenRead"))
                .filter_map(|r| match r[3] {
                    rusqlite::types::Value::Integer(page) => roots.get(&page).cloned(),
                    _ => None,
                })
                .collect(),
        )
    }
}

/// The foreign keys `child` declares, with the rows dangling already, into `keys`; those that
/// cannot be checked, described, into `unchecked`.
fn read_keys(
    conn: &Connection,
    child: &str,
    keys: &mut Vec<ForeignKey>,
    unchecked: &mut Vec<String>,
) {
    let q = format!(
        "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list({}) \
         ORDER BY id, seq",
        crate::sql_tokens::quote(child, '\'')
    );
    let Ok(list) = rows(conn, &q) else {
        return;
    };
    let mut by_id: BTreeMap<i64, (String, Vec<KeyColumn>)> = BTreeMap::new();
    for r in &list {
        let rusqlite::types::Value::Integer(id) = r[0] else {
            continue;
        };
        let (Some(parent), Some(from)) = (text(&r[1]), text(&r[2])) else {
            continue;
        };
        let entry = by_id.entry(id).or_insert_with(|| (parent, Vec::new()));
        entry.1.push((from, text(&r[3])));
    }
    for (parent, columns) in by_id.into_values() {
        match dangling_query(conn, child, &parent, &columns) {
            Some((dangling, pinned, before)) => keys.push(ForeignKey {
                child: child.to_owned(),
                parent,
                dangling,
                pinned,
                before,
            }),
            None => unchecked.push(format!("{child} → {parent}")),
        }
    }
}

/// The query listing `child`'s rows whose key has no row in `parent`, and what it lists now;
/// `None` if it cannot run (the parent or a column is missing).
fn dangling_query(
    conn: &Connection,
    child: &str,
    parent: &str,
    columns: &[KeyColumn],
) -> Option<(String, String, BTreeSet<i64>)> {
    let primary = || -> Option<Vec<String>> {
        let q = format!(
            "SELECT name FROM pragma_table_info({}) WHERE pk > 0 ORDER BY pk",
            crate::sql_tokens::quote(parent, '\'')
        );
        Some(
            rows(conn, &q)
                .ok()?
                .iter()
                .filter_map(|r| text(&r[0]))
                .collect(),
        )
    };
    let to: Vec<String> = match columns.iter().all(|(_, to)| to.is_some()) {
        true => columns.iter().filter_map(|(_, to)| to.clone()).collect(),
        false => primary()?,
    };
    if to.len() != columns.len() {
        return None;
    }
    let (c, p) = (quote_identifier(child), quote_identifier(parent));
    let not_null: Vec<String> = columns
        .iter()
        .map(|(from, _)| format!("c.{} IS NOT NULL", quote_identifier(from)))
        .collect();
    let matches: Vec<String> = columns
        .iter()
        .zip(&to)
        .map(|((from, _), to)| format!("p.{} = c.{}", quote_identifier(to), quote_identifier(from)))
        .collect();
    let dangling = format!(
        "SELECT c.rowid FROM {c} AS c WHERE {} AND NOT EXISTS (SELECT 1 FROM {p} AS p WHERE {})",
        not_null.join(" AND "),
        matches.join(" AND ")
    );
    let same_key: Vec<String> = to
        .iter()
        .map(|to| format!("o.{0} = p.{0}", quote_identifier(to)))
        .collect();
    let itself = match child.eq_ignore_ascii_case(parent) {
        true => " AND c.rowid <> p.rowid",
        false => "",
    };
    let pinned = format!(
        "SELECT p.rowid FROM {p} AS p WHERE EXISTS (SELECT 1 FROM {c} AS c WHERE {}{itself}) \
         AND (SELECT count(*) FROM {p} AS o WHERE {}) = 1",
        matches.join(" AND "),
        same_key.join(" AND ")
    );
    let before = rowid_set(conn, &dangling).ok()?;
    Some((dangling, pinned, before))
}

/// The integers a one-column query lists, in its order.
fn rowid_list(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<i64>> {
    Ok(rows(conn, sql)?
        .iter()
        .filter_map(|r| match r[0] {
            rusqlite::types::Value::Integer(i) => Some(i),
            _ => None,
        })
        .collect())
}

fn rowid_set(conn: &Connection, sql: &str) -> rusqlite::Result<BTreeSet<i64>> {
    Ok(rowid_list(conn, sql)?.into_iter().collect())
}
