//! Value simplification: once the rows of a counterexample are minimal, each cell of the rows
//! left in the tables the queries read is replaced by a simpler value where gold and prediction
//! still differ with it (`spec/counterexample.md`, "Values").
//!
//! First every cell is set to its simplest candidate at once, one probe; if the queries still
//! differ, that is the outcome. Otherwise cell by cell: candidates, simplest first, at most
//! [`MAX_CANDIDATES`] per cell, the first that keeps them differing is kept: an integer becomes 0, then ±1; a real 0.0, then ±1.0, then its integer
//! part; a text `''`, then its first character, then its first word. NULL is never put in (it
//! changes which comparisons hold, three-valued logic, rather than making the database
//! simpler to read), nor are blobs or NULLs changed. Left alone: primary-key columns and every
//! column a declared foreign key names on either side (a referenced key changes with its
//! references or not at all: here, not at all) and tables without rowids; and every value of a
//! counterexample one of whose tables read was left with more than [`MAX_ROWS`] rows. Each try
//! is an `UPDATE` of its cells inside a savepoint: SQLite refuses one that breaks NOT NULL,
//! UNIQUE or CHECK (the try fails), a kept one is released, any other rolled back. Each counts as a probe against the item's budget (and
//! its queries' steps); when the budget is spent, the cells not yet tried stay as they are.

use std::collections::BTreeSet;

use rusqlite::types::Value as Sql;
use rusqlite::Connection;

use super::scratch::Scratch;
use super::shrink::{probe_limits, told_apart_counting, Shrinking};
use super::{Budget, Question};
use crate::backend::sqlite::quote_identifier;
use crate::denotation::Value;

/// Values tried per cell at most.
pub const MAX_CANDIDATES: usize = 3;
/// A counterexample with a table read left with more rows than this keeps its values (a
/// shrinking that kept many rows is not made clearer by simpler values, each cell costs
/// probes, and so would shrinking its rows once more).
pub const MAX_ROWS: usize = 10;

/// One cell whose value was replaced.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The table (by position in the scratch copy).
    pub table: usize,
    /// The row's rowid.
    pub rowid: i64,
    /// The column.
    pub column: String,
    /// The value the database had.
    pub was: Value,
    /// The value put in (as stored).
    pub now: Value,
}

/// The values tried in place of `v`, simplest first (none: nothing simpler).
fn candidates(v: &Sql) -> Vec<Sql> {
    let mut out = match v {
        Sql::Integer(i) if *i != 0 => vec![Sql::Integer(0), Sql::Integer(i.signum())],
        Sql::Real(x) if *x != 0.0 && x.is_finite() => match x.abs() > 1.0 {
            true => vec![Sql::Real(0.0), Sql::Real(x.signum()), Sql::Real(x.trunc())],
            false => vec![Sql::Real(0.0)],
        },
        Sql::Text(s) if !s.is_empty() => {
            let first: String = s.chars().take(1).collect();
            let word = s.split_whitespace().next().unwrap_or_default().to_owned();
            vec![Sql::Text(String::new()), Sql::Text(first), Sql::Text(word)]
        }
        _ => Vec::new(),
    };
    // Each once, and not the value itself.
    let mut seen = Vec::new();
    out.retain(|c| {
        let keep = c != v && !seen.contains(c);
        seen.push(c.clone());
        keep
    });
    out.truncate(MAX_CANDIDATES);
    out
}

fn value(v: Sql) -> Value {
    match v {
        Sql::Null => Value::Null,
        Sql::Integer(i) => Value::Int(i),
        Sql::Real(x) => Value::Real(x),
        Sql::Text(s) => Value::Text(s),
        Sql::Blob(b) => Value::Blob(b),
    }
}

/// The texts a query's column `i` lists.
fn texts(conn: &Connection, sql: &str, i: usize) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(sql)?;
    let out = stmt
        .query_map([], |r| r.get::<_, Option<String>>(i))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(out.into_iter().flatten().collect())
}

/// `(table, column)`, lower-cased, of every column a declared foreign key names, as child or
/// as parent (a parent's primary key where the key names no column).
fn key_columns(conn: &Connection, tables: &[String]) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let quote = |s: &str| crate::sql_tokens::quote(s, '\'');
    for child in tables {
        let q = format!(
            "SELECT \"table\", \"from\", coalesce(\"to\", '') FROM pragma_foreign_key_list({})",
            quote(child)
        );
        let Ok(mut stmt) = conn.prepare(&q) else {
            continue;
        };
        let Ok(rows) = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        }) else {
            continue;
        };
        for (parent, from, to) in rows.flatten() {
            out.insert((child.to_lowercase(), from.to_lowercase()));
            let parent_columns = match to.is_empty() {
                false => vec![to],
                true => texts(
                    conn,
                    &format!(
                        "SELECT name FROM pragma_table_info({}) WHERE pk > 0",
                        quote(&parent)
                    ),
                    0,
                )
                .unwrap_or_default(),
            };
            for c in parent_columns {
                out.insert((parent.to_lowercase(), c.to_lowercase()));
            }
        }
    }
    out
}

/// Replaces the values of the rows `scratch` has left in the tables the queries read (`read`;
/// `None`: all) by simpler ones while the question's queries still differ, counting each
/// candidate as a probe in `spent` within `budget`. Nothing is tried after a shrinking that
/// stopped early. The cells changed, in the order tried (tables in `sqlite_master` order, rows
/// by rowid, columns in the table's order).
pub fn simplify(
    q: &Question<'_>,
    scratch: &mut Scratch,
    read: Option<&BTreeSet<String>>,
    budget: Budget,
    spent: &mut Shrinking,
) -> Vec<Change> {
    let mut changes = Vec::new();
    if spent.stopped.is_some() {
        return changes;
    }
    let reads = |name: &String| read.is_none_or(|r| r.contains(name));
    let large = |t: &super::scratch::Table| t.rowids.as_ref().is_some_and(|r| r.len() > MAX_ROWS);
    if scratch.tables.iter().any(|t| reads(&t.name) && large(t)) {
        return changes;
    }
    let names: Vec<String> = scratch.tables.iter().map(|t| t.name.clone()).collect();
    let keys = scratch.trusted(|c| key_columns(c, &names));
    let limits = probe_limits(q);
    let slots = slots(scratch, &keys, reads);
    // First every cell at its simplest candidate at once, one probe: where that keeps the
    // queries apart (most counterexamples), it is the cell-by-cell outcome without its probes.
    let simplest: Vec<(&Slot, Sql)> = slots
        .iter()
        .filter_map(|slot| Some((slot, candidates(&slot.was).into_iter().next()?)))
        .collect();
    if simplest.len() > 1 && spent.probes < budget.probes && spent.steps < budget.steps {
        spent.probes += 1;
        let steps = &mut spent.steps;
        let still = |conn: &Connection| told_apart_counting(q, conn, &limits, steps).is_some();
        let Ok(kept) = try_set(scratch, &simplest, still) else {
            return changes;
        };
        if let Some(now) = kept {
            return simplest
                .iter()
                .zip(now)
                .map(|((slot, _), now)| slot.change(now))
                .collect();
        }
    }
    for slot in &slots {
        for candidate in candidates(&slot.was) {
            if spent.probes >= budget.probes || spent.steps >= budget.steps {
                return changes;
            }
            spent.probes += 1;
            let steps = &mut spent.steps;
            let still = |conn: &Connection| told_apart_counting(q, conn, &limits, steps).is_some();
            let Ok(kept) = try_set(scratch, &[(slot, candidate)], still) else {
                return changes;
            };
            if let Some(now) = kept {
                changes.extend(now.into_iter().map(|now| slot.change(now)));
                break;
            }
        }
    }
    changes
}

/// A cell whose value may be simplified: its table (position and name), row and column, and
/// its value.
struct Slot {
    table: usize,
    name: String,
    rowid: i64,
    column: String,
    was: Sql,
}

impl Slot {
    fn cell(&self) -> Cell<'_> {
        Cell {
            table: &self.name,
            column: &self.column,
            rowid: self.rowid,
        }
    }

    fn change(&self, now: Sql) -> Change {
        Change {
            table: self.table,
            rowid: self.rowid,
            column: self.column.clone(),
            was: value(self.was.clone()),
            now: value(now),
        }
    }
}

/// The cells that may be simplified, in the order tried: tables in `sqlite_master` order (those
/// `reads` and with rowids), columns in the table's order but for keys and `keys`, rows by
/// rowid.
fn slots(
    scratch: &Scratch,
    keys: &BTreeSet<(String, String)>,
    reads: impl Fn(&String) -> bool,
) -> Vec<Slot> {
    let mut out = Vec::new();
    for (t, table) in scratch.tables.iter().enumerate() {
        let Some(rowids) = &table.rowids else {
            continue;
        };
        if !reads(&table.name) {
            continue;
        }
        let columns = scratch
            .trusted(|c| {
                let q = format!(
                    "SELECT name FROM pragma_table_info({}) WHERE pk = 0 ORDER BY cid",
                    crate::sql_tokens::quote(&table.name, '\'')
                );
                texts(c, &q, 0)
            })
            .unwrap_or_default();
        let lower = table.name.to_lowercase();
        for column in columns {
            if keys.contains(&(lower.clone(), column.to_lowercase())) {
                continue;
            }
            for &rowid in rowids {
                let mut slot = Slot {
                    table: t,
                    name: table.name.clone(),
                    rowid,
                    column: column.clone(),
                    was: Sql::Null,
                };
                if let Some(was) = scratch.trusted(|c| slot.cell().get(c)) {
                    slot.was = was;
                    out.push(slot);
                }
            }
        }
    }
    out
}

/// Sets each cell of `cells` to its candidate inside one savepoint and keeps them if SQLite
/// accepts every update and `still` holds on the copy (with the gate shut); rolls them back
/// otherwise. `Ok(Some(values))`: kept, each stored as its value; `Err`: the savepoint could
/// not be ended.
fn try_set(
    scratch: &Scratch,
    cells: &[(&Slot, Sql)],
    still: impl FnOnce(&Connection) -> bool,
) -> Result<Option<Vec<Sql>>, String> {
    let started = scratch.trusted(|c| c.execute_batch("SAVEPOINT simplify"));
    started.map_err(|e| e.to_string())?;
    let updated = cells
        .iter()
        .all(|(slot, candidate)| scratch.trusted(|c| slot.cell().set(c, candidate)));
    let kept = updated && still(scratch.connection());
    let now: Option<Vec<Sql>> = kept
        .then(|| {
            cells
                .iter()
                .map(|(slot, _)| scratch.trusted(|c| slot.cell().get(c)))
                .collect()
        })
        .flatten();
    let end = match now.is_some() {
        true => "RELEASE simplify",
        false => "ROLLBACK TO simplify; RELEASE simplify",
    };
    scratch
        .trusted(|c| c.execute_batch(end))
        .map_err(|e| e.to_string())?;
    Ok(now)
}

/// One cell of the scratch copy.
struct Cell<'a> {
    table: &'a str,
    column: &'a str,
    rowid: i64,
}

impl Cell<'_> {
    /// Its value now (`None`: it cannot be read).
    fn get(&self, conn: &Connection) -> Option<Sql> {
        let q = format!(
            "SELECT {} FROM {} WHERE rowid = ?1",
            quote_identifier(self.column),
            quote_identifier(self.table)
        );
        conn.query_row(&q, [self.rowid], |r| r.get::<_, Sql>(0))
            .ok()
    }

    /// Sets it to `candidate`: whether SQLite accepted the update (of one row).
    fn set(&self, conn: &Connection, candidate: &Sql) -> bool {
        let update = format!(
            "UPDATE {} SET {} = ?1 WHERE rowid = ?2",
            quote_identifier(self.table),
            quote_identifier(self.column)
        );
        matches!(
            conn.execute(&update, rusqlite::params![candidate, self.rowid]),
            Ok(1)
        )
    }
}
