//! Minimal counterexamples (`spec/counterexample.md`): for a prediction the exec metric judged
//! incorrect because its rows differ from the gold's, the database that told them apart shrunk
//! to a smallest one on which they still differ.
//!
//! The database is copied into memory ([`scratch`]; the file is never written), its rows
//! deleted table by table with delta debugging ([`ddmin`], [`shrink`]) while both queries,
//! run under the metric's limits, still differ under the metric's comparison (tie-aware
//! included), and no declared foreign key dangles where it did not. Bounded per item by a
//! number of probes and of SQLite steps ([`Budget`]), both deterministic: the same
//! counterexample on every machine, under any load and any number of workers. Past the bound
//! the smallest database so far is kept and said not minimal. Once the rows are minimal, the
//! values of the rows left are simplified ([`simplify`]) within the same budget, and the rows
//! shrunk once more if a value changed. What is shown is re-checked: both queries run again on the
//! shrunk copy with the metric's full limits and still differ, or nothing is shown and why
//! is said.

pub mod ddmin;
mod scratch;
mod shrink;
mod simplify;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::backend::sqlite::run_query;
use crate::backend::{Database, Limits};
use crate::clock::Clock;
use crate::denotation::{format_row, CompareOptions, ResultTable, Value};
use crate::exec_plan::order::OrderPlan;
use crate::exec_plan::RelativeBudget;

pub use scratch::Layouts;
use scratch::Scratch;

/// The exec verdict codes of an incorrect verdict whose rows differ: those that get a
/// counterexample (errors and budgets do not).
pub const ROWS_DIFFER: &[&str] = &["row_count", "column_count", "order", "rows_differ"];

/// At most this many candidate deletions are tried per item (each runs both queries once).
pub const MAX_PROBES: usize = 2_000;
/// At most this many SQLite steps are spent by all the probes' queries of one item together
/// (the re-check comes after it, under the metric's own limits): a deterministic bound on the
/// work, where a wall-clock one made the counterexample depend on the machine's load.
pub const MAX_STEPS: u64 = 20_000_000;
/// Each query of a probe stops after this many SQLite steps (or the metric's own budget, if
/// smaller), the same on every machine: the first probe whose query is stopped ends the
/// shrinking (rows kept so far shown, not minimal), since fewer rows seldom cut a query's work
/// enough for later probes to finish, and each would spend this much.
pub const PROBE_MAX_STEPS: u64 = 5_000_000;
/// Rows of each result shown (of the tables read: all, they are few once shrunk; see
/// [`MAX_TABLE_ROWS`]).
const SHOWN_RESULT_ROWS: usize = 10;
/// Rows of one table a counterexample carries at most (a database shrinking stopped early may
/// keep many).
pub const MAX_TABLE_ROWS: usize = 50;

/// How much one item's shrinking may spend (both deterministic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Candidate deletions tried.
    pub probes: usize,
    /// SQLite steps of the probes' queries, all together.
    pub steps: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            probes: MAX_PROBES,
            steps: MAX_STEPS,
        }
    }
}

/// What the exec metric asks: the two queries as they ran on the database that told them
/// apart, and how it compared them.
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    /// The database that told them apart (a file or a script).
    pub database: &'a Database,
    /// The clock queries read.
    pub clock: Clock,
    /// The gold as executed.
    pub gold: &'a str,
    /// The prediction as executed (with the gold's values plugged in, for `plug_value`'s best
    /// candidate).
    pub prediction: &'a str,
    /// Whether `prediction` is `plug_value`'s candidate rather than the prediction as written.
    pub plugged: bool,
    /// The comparison.
    pub compare: CompareOptions,
    /// The tie-aware comparison's plan of an ordered gold.
    pub order: Option<&'a OrderPlan>,
    /// The metric's query limits.
    pub limits: Limits,
    /// The prediction's step budget relative to the gold's.
    pub relative: Option<RelativeBudget>,
}

/// One result table, bounded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rows {
    /// Column names.
    pub columns: Vec<String>,
    /// The first rows.
    pub rows: Vec<Vec<Value>>,
    /// How many rows it has in all; `None`: more than [`Rows::at_least`] (stopped there).
    pub count: Option<usize>,
    /// Where the count is unknown, the rows it has more than.
    pub at_least: usize,
}

impl Rows {
    fn of(table: &ResultTable, shown: usize) -> Rows {
        Rows::first(&table.columns, &table.rows, shown)
    }

    /// The first `shown` of `rows` (all of them counted), under `columns`.
    pub fn first(columns: &[String], rows: &[Vec<Value>], shown: usize) -> Rows {
        Rows {
            columns: columns.to_vec(),
            rows: rows.iter().take(shown).cloned().collect(),
            count: Some(rows.len()),
            at_least: rows.len(),
        }
    }

    /// Whether rows are left out: more than are shown, or a count not known.
    pub fn truncated(&self) -> bool {
        self.count != Some(self.rows.len())
    }
}

/// The rows left in one table the queries read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRows {
    /// The table.
    pub table: String,
    /// Its rows, at most [`MAX_TABLE_ROWS`].
    pub rows: Rows,
}

/// A shrunk database on which gold and prediction still differ, re-checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counterexample {
    /// The database it was shrunk from (its label).
    pub database: String,
    /// Rows the database had.
    pub original_rows: usize,
    /// The tables the queries read, with the rows left.
    pub tables: Vec<TableRows>,
    /// Rows left in the tables the queries read.
    pub rows: usize,
    /// Rows left in other tables (kept so that no foreign key dangles).
    pub other_rows: usize,
    /// Whether no single row can be deleted without the queries agreeing (1-minimal).
    pub minimal: bool,
    /// Why it is not minimal (a budget ran out).
    pub not_minimal: Option<String>,
    /// Candidate deletions tried.
    pub probes: usize,
    /// SQLite steps the probes' queries took.
    #[serde(default)]
    pub steps: u64,
    /// How they differ on it.
    pub difference: String,
    /// The gold's result on it.
    pub gold: Rows,
    /// The prediction's.
    pub predicted: Rows,
    /// `plug_value`: the prediction with the gold's values plugged in that was shrunk for.
    pub plugged: Option<String>,
    /// Declared foreign keys that could not be kept (the schema lacks their parent table or
    /// column): `child → parent`.
    pub unchecked_keys: Vec<String>,
    /// The cells whose values were simplified, in the order tried.
    #[serde(default)]
    pub simplified: Vec<Simplified>,
}

/// A cell of a counterexample whose value was replaced by a simpler one (gold and prediction
/// still differing with it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Simplified {
    /// The table.
    pub table: String,
    /// The row, by position among the table's rows shown (from 0).
    pub row: usize,
    /// The column.
    pub column: String,
    /// The value the database had.
    pub was: Value,
    /// The value shown.
    pub now: Value,
}

/// A counterexample, or why none is shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Found {
    /// Shown (re-checked).
    Shown(Box<Counterexample>),
    /// Not shown, and why.
    NotShown(String),
}

/// The counterexample for `q`, within `budget`.
pub fn find(q: &Question<'_>, budget: Budget) -> Found {
    find_in(q, budget, &Layouts::default())
}

/// [`find`], the database's layout read from `layouts` where it was copied before.
pub fn find_in(q: &Question<'_>, budget: Budget, layouts: &Layouts) -> Found {
    match find_counterexample(q, budget, layouts) {
        Ok(c) => Found::Shown(Box::new(c)),
        Err(why) => Found::NotShown(why),
    }
}

fn find_counterexample(
    q: &Question<'_>,
    budget: Budget,
    layouts: &Layouts,
) -> Result<Counterexample, String> {
    let Some(path) = q.database.as_file() else {
        return Err("counterexamples are shrunk on SQLite databases only".into());
    };
    let mut scratch = Scratch::open_in(Path::new(path), q.clock, layouts)
        .map_err(|e| format!("cannot copy {}: {e}", q.database.label()))?;
    let count = |s: &Scratch| -> usize { s.tables.iter().map(|t| s.row_count(&t.name)).sum() };
    let original_rows = count(&scratch);
    let gold_reads = scratch.tables_read(q.gold);
    let prediction_reads = scratch.tables_read(q.prediction);
    // Tables neither query reads lose their rows without a query run; where a plan cannot be
    // read, every table counts as read.
    let read: Option<BTreeSet<String>> = match (&gold_reads, &prediction_reads) {
        (Some(g), Some(p)) => Some(g.union(p).cloned().collect()),
        _ => None,
    };
    let reads = shrink::Reads {
        either: read.as_ref(),
        gold: gold_reads.as_ref().filter(|_| read.is_some()),
    };
    let sizes = |s: &Scratch| -> Vec<Option<usize>> {
        let read = |name: &String| read.as_ref().is_none_or(|r| r.contains(name));
        s.tables
            .iter()
            .filter(|t| read(&t.name))
            .map(|t| t.rowids.as_ref().map(Vec::len))
            .collect()
    };
    let before = sizes(&scratch);
    let mut shrinking = shrink::shrink(q, &mut scratch, &reads, budget, Default::default());
    if let Some(why) = &shrinking.stopped {
        if sizes(&scratch) == before {
            // Not one row of the tables read could go: what would be shown is the database
            // itself (its other tables aside), and re-checking it would run both queries
            // there once more, at the metric's full cost.
            return Err(format!(
                "not shrunk: no row of the tables the queries read could be deleted before the \
                 shrinking stopped ({why}); the database that told them apart is {}",
                q.database.label()
            ));
        }
    }
    let changes = simplify::simplify(q, &mut scratch, read.as_ref(), budget, &mut shrinking);
    if !changes.is_empty() && shrinking.stopped.is_none() {
        // With simpler values a row may have become deletable: 1-minimal again.
        shrinking = shrink::shrink(q, &mut scratch, &reads, budget, shrinking);
    }
    let simplified = simplified(&scratch, changes);
    // The re-check: both queries again, under the metric's full limits.
    let Some(told) = shrink::told_apart(q, scratch.connection(), &q.limits) else {
        return Err(format!(
            "re-check failed: the queries do not differ on the database kept (of {}; a query \
             failed there, or they agree)",
            q.database.label()
        ));
    };
    let mut read = gold_reads.unwrap_or_default();
    read.extend(prediction_reads.unwrap_or_default());
    let mut tables = Vec::new();
    let mut rows = 0;
    for t in &scratch.tables {
        if !read.contains(&t.name) {
            continue;
        }
        let contents = scratch.contents(&t.name, &q.limits)?;
        rows += contents.rows.len();
        tables.push(TableRows {
            table: t.name.clone(),
            rows: Rows::of(&contents, MAX_TABLE_ROWS),
        });
    }
    let predicted = match &told.predicted {
        Some(p) => Rows::of(p, SHOWN_RESULT_ROWS),
        // Stopped at the gold's row count: its rows on the shrunk database, where few.
        None => {
            let limits = Limits {
                max_rows: q.limits.max_rows.min(MAX_TABLE_ROWS),
                ..q.limits
            };
            match run_query(scratch.connection(), q.prediction, &limits) {
                Ok(p) => Rows::of(&p, SHOWN_RESULT_ROWS),
                Err(_) => Rows {
                    columns: Vec::new(),
                    rows: Vec::new(),
                    count: None,
                    at_least: told.gold.rows.len(),
                },
            }
        }
    };
    Ok(Counterexample {
        database: q.database.label(),
        original_rows,
        other_rows: count(&scratch) - rows,
        tables,
        rows,
        minimal: shrinking.stopped.is_none(),
        not_minimal: shrinking.stopped,
        probes: shrinking.probes,
        steps: shrinking.steps,
        difference: told.difference,
        gold: Rows::of(&told.gold, SHOWN_RESULT_ROWS),
        predicted,
        plugged: q.plugged.then(|| q.prediction.to_owned()),
        unchecked_keys: scratch.unchecked_keys.clone(),
        simplified,
    })
}

/// The changes to rows still there, each named by its row's position among its table's rows
/// (rowid order, the order they are shown in).
fn simplified(scratch: &Scratch, changes: Vec<simplify::Change>) -> Vec<Simplified> {
    changes
        .into_iter()
        .filter_map(|c| {
            let table = &scratch.tables[c.table];
            let row = table.rowids.as_ref()?.iter().position(|&r| r == c.rowid)?;
            Some(Simplified {
                table: table.name.clone(),
                row,
                column: c.column,
                was: c.was,
                now: c.now,
            })
        })
        .collect()
}

/// `label (N rows; columns a, b):` and the rows, indented.
fn show(out: &mut String, indent: &str, label: &str, rows: &Rows) {
    let count = match rows.count {
        Some(1) => "1 row".to_owned(),
        Some(n) => format!("{n} rows"),
        None => format!("more than {} rows", rows.at_least),
    };
    let _ = write!(out, "{indent}{label} ({count}");
    if !rows.columns.is_empty() {
        let _ = write!(out, "; columns {}", rows.columns.join(", "));
    }
    out.push_str("):\n");
    for row in &rows.rows {
        let _ = writeln!(out, "{indent}  {}", format_row(row));
    }
    if let Some(n) = rows.count.filter(|&n| n > rows.rows.len()) {
        let _ = writeln!(out, "{indent}  … {} more", n - rows.rows.len());
    }
}

impl Counterexample {
    /// The lines a failure message shows.
    pub fn render(&self) -> String {
        let how = match &self.not_minimal {
            None => "1-minimal".to_owned(),
            Some(why) => format!("not minimal: {why}"),
        };
        let other = match self.other_rows {
            0 => String::new(),
            n => format!(" and {n} in other tables, kept for foreign keys"),
        };
        let mut out = format!(
            "counterexample: {} of {}'s {} rows{other} ({how}; re-checked: {}):\n",
            self.rows, self.database, self.original_rows, self.difference
        );
        if let Some(sql) = &self.plugged {
            let _ = writeln!(out, "  for the prediction with the gold's values: {sql}");
        }
        for t in &self.tables {
            show(&mut out, "  ", &format!("table {}", t.table), &t.rows);
        }
        if !self.simplified.is_empty() {
            let cells: Vec<String> = self
                .simplified
                .iter()
                .map(|s| {
                    format!(
                        "{} row {} {}: {} (was {})",
                        s.table,
                        s.row + 1,
                        s.column,
                        s.now,
                        s.was
                    )
                })
                .collect();
            let _ = writeln!(out, "  values simplified: {}", cells.join(", "));
        }
        if !self.unchecked_keys.is_empty() {
            let _ = writeln!(
                out,
                "  foreign keys not kept (their parent is not in the schema): {}",
                self.unchecked_keys.join(", ")
            );
        }
        show(&mut out, "  ", "gold on it", &self.gold);
        show(&mut out, "  ", "prediction on it", &self.predicted);
        out
    }
}

impl Found {
    /// The lines a failure message shows: the counterexample, or why there is none.
    pub fn render(&self) -> String {
        match self {
            Found::Shown(c) => c.render(),
            Found::NotShown(why) => format!("no counterexample: {why}\n"),
        }
    }
}

#[cfg(test)]
mod tests;
