//! The scratch database a counterexample is shrunk on: a private in-memory copy of the
//! database that told gold and prediction apart ([`sqlite::scratch_copy`]), never the file.
//!
//! It knows the copy's tables and the rowids each still has, deletes candidate rows inside a
//! savepoint that is kept or rolled back, and refuses a deletion that leaves a declared foreign
//! key dangling where it did not dangle before (`PRAGMA foreign_key_list`; a child row whose
//! non-NULL key has no parent row). Deleting rows cannot break NOT NULL, UNIQUE or CHECK
//! constraints, so foreign keys are the only constraints a deletion must keep.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::Connection;

use crate::backend::sqlite::{self, quote_identifier, WriteGate};
use crate::backend::Limits;
use crate::clock::Clock;
use crate::denotation::ResultTable;
use crate::memo::Memo;

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
    /// Per table, once known: the columns emptying and refilling it puts back, or `None` if
    /// it is not emptied and refilled ([`Scratch::refill_columns`]).
    refill: Vec<OnceCell<Option<Vec<String>>>>,
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

/// What a copy of a database holds before its first deletion, the same for every copy of one
/// file: its tables with their rowids, and its foreign keys with the rows dangling already.
#[derive(Debug, Clone)]
pub struct Layout {
    tables: Vec<Table>,
    keys: Vec<ForeignKey>,
    unchecked_keys: Vec<String>,
}

impl Layout {
    /// Read from `conn`, a copy no row of which was deleted yet (the write gate open: the
    /// foreign keys' checks are the shrinker's own queries).
    fn read(conn: &Connection) -> Result<Layout, String> {
        let names = rows(
            conn,
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
            let rowids = rowid_list(conn, &q).ok();
            tables.push(Table { name, rowids });
        }
        let (mut keys, mut unchecked_keys) = (Vec::new(), Vec::new());
        for t in &tables {
            read_keys(conn, &t.name, &mut keys, &mut unchecked_keys);
        }
        Ok(Layout {
            tables,
            keys,
            unchecked_keys,
        })
    }
}

/// The layouts of the database files copied so far, each read once (a database that tells
/// many predictions from their golds is copied for each of them, and its layout read again would
/// cost a fifth of the shrinking: `spec/counterexample.md`).
#[derive(Debug)]
pub struct Layouts(Memo<PathBuf, Result<Arc<Layout>, String>>);

impl Default for Layouts {
    fn default() -> Self {
        Layouts(Memo::new())
    }
}

impl Scratch {
    /// The copy of the database file or script at `path`, its queries reading `clock`.
    #[cfg(test)]
    pub fn open(path: &Path, clock: Clock) -> Result<Scratch, String> {
        Scratch::open_in(path, clock, &Layouts::default())
    }

    /// [`Scratch::open`], its layout read from `layouts` where the file was copied before.
    pub fn open_in(path: &Path, clock: Clock, layouts: &Layouts) -> Result<Scratch, String> {
        let (conn, gate) = sqlite::scratch_copy(path, clock).map_err(|e| e.to_string())?;
        let open = gate.open();
        // Its own check keeps references (a deletion SQLite's enforcement would refuse
        // outright is a candidate the check rejects, and rows dangling already stay allowed).
        conn.execute_batch("PRAGMA foreign_keys = OFF")
            .map_err(|e| e.to_string())?;
        let layout = layouts.0.get_or_init(
            path,
            || path.to_path_buf(),
            || Layout::read(&conn).map(Arc::new),
        )?;
        drop(open);
        let Layout {
            tables,
            keys,
            unchecked_keys,
        } = Layout::clone(&layout);
        Ok(Scratch {
            conn,
            gate,
            refill: vec![OnceCell::new(); tables.len()],
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
        let mut gone = rowids.to_vec();
        gone.sort_unstable();
        gone.dedup();
        // The shorter list in the statement: the rows deleted, or those kept.
        let left = without(
            self.tables[table].rowids.as_deref().unwrap_or_default(),
            &gone,
        );
        let refill = match left.len() < gone.len() {
            true => self.refill_columns(table),
            false => None,
        };
        let deleted = {
            let _open = self.gate.open();
            self.conn
                .execute_batch("SAVEPOINT shrink")
                .map_err(|e| e.to_string())?;
            delete(&self.conn, &name, &gone, &left, refill)?;
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
                *ids = left;
            }
        }
        Ok(kept)
    }

    /// The columns of table `table` (by position) that emptying and refilling it puts back
    /// (every column), or `None` where that would not give the same rows: the table has
    /// triggers (an insert or a delete could change other rows), hidden or generated columns.
    fn refill_columns(&self, table: usize) -> Option<&[String]> {
        self.refill[table]
            .get_or_init(|| self.read_refill_columns(table))
            .as_deref()
    }

    /// [`Scratch::refill_columns`], read from the schema.
    fn read_refill_columns(&self, table: usize) -> Option<Vec<String>> {
        let _open = self.gate.open();
        let name = &self.tables[table].name;
        let quoted = crate::sql_tokens::quote(name, '\'');
        let triggers = rows(
            &self.conn,
            &format!("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = {quoted}"),
        );
        let columns = rows(
            &self.conn,
            &format!("SELECT name, hidden FROM pragma_table_xinfo({quoted}) ORDER BY cid"),
        );
        match (triggers, columns) {
            (Ok(t), Ok(c)) if t.is_empty() && !c.is_empty() => c
                .iter()
                .map(|r| match r[1] {
                    rusqlite::types::Value::Integer(0) => text(&r[0]),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
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

/// Deletes the rows `gone` of table `name`, `left` being the others (the write gate open,
/// inside the caller's savepoint). Where fewer rows are left than go and `refill` names the
/// table's columns ([`Scratch::refill_columns`]), the table is emptied with one `DELETE`
/// without a WHERE clause, which SQLite carries out by dropping its pages at once ("truncate
/// optimization", 25 times faster than row by row on 4,000 rows, and as cheap to roll back),
/// and the rows left are put back as they were, rowids included (read first); otherwise the
/// shorter list goes into a row-by-row `DELETE`.
fn delete(
    conn: &Connection,
    name: &str,
    gone: &[i64],
    left: &[i64],
    refill: Option<&[String]>,
) -> Result<(), String> {
    let quoted = quote_identifier(name);
    let run = |sql: &str| conn.execute_batch(sql).map_err(|e| e.to_string());
    let list = |ids: &mut dyn Iterator<Item = &i64>| -> String {
        ids.map(i64::to_string).collect::<Vec<_>>().join(",")
    };
    if left.len() >= gone.len() {
        return run(&format!(
            "DELETE FROM {quoted} WHERE rowid IN ({})",
            list(&mut gone.iter())
        ));
    }
    let Some(columns) = refill else {
        return run(&format!(
            "DELETE FROM {quoted} WHERE rowid NOT IN ({})",
            list(&mut left.iter())
        ));
    };
    let names: Vec<String> = columns.iter().map(|c| quote_identifier(c)).collect();
    let kept = match left.is_empty() {
        true => Vec::new(),
        false => rows(
            conn,
            &format!(
                "SELECT rowid, {} FROM {quoted} WHERE rowid IN ({}) ORDER BY rowid",
                names.join(", "),
                list(&mut left.iter())
            ),
        )
        .map_err(|e| e.to_string())?,
    };
    run(&format!("DELETE FROM {quoted}"))?;
    if kept.is_empty() {
        return Ok(());
    }
    let marks = vec!["?"; columns.len() + 1].join(", ");
    let insert = format!(
        "INSERT INTO {quoted} (rowid, {}) VALUES ({marks})",
        names.join(", ")
    );
    let mut stmt = conn.prepare_cached(&insert).map_err(|e| e.to_string())?;
    for row in &kept {
        stmt.execute(rusqlite::params_from_iter(row))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
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
    // From the child's rows (`CROSS JOIN` keeps them the outer loop): by a parent's turn its
    // children are shrunk already, or emptied, and the parent may be large.
    let pinned = format!(
        "SELECT DISTINCT p.rowid FROM {c} AS c CROSS JOIN {p} AS p ON {}{itself} \
         WHERE (SELECT count(*) FROM {p} AS o WHERE {}) = 1",
        matches.join(" AND "),
        same_key.join(" AND ")
    );
    let before = rowid_set(conn, &dangling).ok()?;
    Some((dangling, pinned, before))
}

/// The ids of `all` that `removed` does not hold, in order (both ascending: a merge, where
/// the shrinker's probes would otherwise look every rowid up in a set).
pub(super) fn without(all: &[i64], removed: &[i64]) -> Vec<i64> {
    debug_assert!(all.is_sorted() && removed.is_sorted());
    let mut out = Vec::with_capacity(all.len().saturating_sub(removed.len()));
    let mut r = removed.iter().peekable();
    for &id in all {
        while r.next_if(|&&x| x < id).is_some() {}
        if r.peek() != Some(&&id) {
            out.push(id);
        }
    }
    out
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
