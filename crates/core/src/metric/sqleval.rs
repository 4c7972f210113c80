//! Defog SQL-Eval's metric (`spec/sqleval.md`): the candidate and every alternative of the
//! expanded gold run on the item's database; the result tables, typed the way pandas types them,
//! are compared by [`sqlsuite_reference::defog::compare`]. The verdict is `correct` for an exact match,
//! `correct_subset` when some gold alternative's columns are found among the candidate's, and
//! incorrect otherwise.
//!
//! QueryResult follows the reference's order: the candidate first (an error is incorrect), then the
//! gold alternatives in order. With `compat = "sqleval"` a failing gold alternative reached
//! before an exact match scores the item 0 as the reference does (its exception), and gold
//! expansion splits naively on `;` and braces; by default failing alternatives are left out
//! (all failing is a gold error) and expansion respects string literals.

use std::sync::Arc;

use serde::Deserialize;

use super::exec::show_table;
use super::{Metric, MetricEntry, Resources, Verdict};
use crate::backend::QueryLimits;
use crate::backend::{Database, Limits};
use crate::config::{FromSection, ManifestError, Section};
use crate::dataset::Item;
use crate::denotation::{ColumnType, ResultTable, Value};
use crate::executor::Executor;
use sqlsuite_reference::defog::{
    compare_with_gold_sql, expand_gold, expand_gold_literal_aware, Cell, Mode, Table,
};
use sqlsuite_reference::python::python_bytes_repr;

/// Which reference behaviour to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compat {
    /// Defog's `compare_query_results`, quirks included.
    Sqleval,
}

/// `[metrics.sqleval]` options. Unknown keys are refused by [`FromSection`], which reads these
/// and the [`QueryLimits`] from the same table.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SqlevalOptions {
    /// `"sqleval"`: reproduce the reference verdict for verdict; absent: its bugs fixed.
    pub compat: Option<Compat>,
    /// `timeout_ms` (default 10 s, as the reference's PostgreSQL runner; its SQLite runner has
    /// none) and `max_rows`.
    #[serde(skip)]
    pub limits: QueryLimits,
}

impl FromSection for SqlevalOptions {
    fn from_section(section: &Section<'_>) -> Result<Self, ManifestError> {
        let (options, limits) = section.read_with()?;
        Ok(SqlevalOptions { limits, ..options })
    }
}

/// `[metrics.sqleval]` in the registry.
pub const ENTRY: MetricEntry = MetricEntry {
    name: "sqleval",
    runs_queries: true,
    build,
};

fn build(section: &Section<'_>, _: &Resources) -> Result<Box<dyn Metric>, ManifestError> {
    Ok(Box::new(Sqleval::new(SqlevalOptions::from_section(
        section,
    )?)))
}

/// The SQL-Eval metric.
#[derive(Debug, Clone)]
pub struct Sqleval {
    mode: Mode,
    limits: Limits,
}

impl Sqleval {
    /// The metric with `options`.
    pub fn new(options: SqlevalOptions) -> Sqleval {
        Sqleval {
            mode: match options.compat {
                Some(Compat::Sqleval) => Mode::Compat,
                None => Mode::Default,
            },
            limits: options.limits.limits(),
        }
    }

    /// The gold's alternatives, expanded as the mode says.
    pub fn alternatives(&self, gold: &str) -> Vec<String> {
        match self.mode {
            Mode::Compat => expand_gold(gold),
            Mode::Default => expand_gold_literal_aware(gold),
        }
    }

    /// Judges the candidate on one database.
    fn judge(
        &self,
        item: &Item,
        candidate_sql: &str,
        db: &Database,
        executor: &Executor,
    ) -> Verdict {
        let on = |what: String| format!("{what} on {}", db.label());
        let candidate = executor.prediction(db, candidate_sql, &self.limits);
        let candidate = match candidate.as_ref() {
            Ok(t) => t,
            Err(e) => {
                return Verdict::incorrect(e.code(), on(format!("the prediction fails: {e}")), "")
            }
        };
        let alternatives = self.alternatives(&item.gold);
        if alternatives.is_empty() {
            return Verdict::gold_error("the gold has no query");
        }
        // The gold results as executed (shared with the executor's memo, shown on failure) and
        // as pandas-typed tables, in alternative order.
        let mut executed = Vec::new();
        let mut tables = Vec::new();
        let mut failures = Vec::new();
        for (i, sql) in alternatives.iter().enumerate() {
            let result = executor.gold(db, sql, &self.limits);
            match result.as_ref() {
                Ok(t) => {
                    tables.push(table_of(t, sql));
                    executed.push((i, Arc::clone(&result)));
                }
                Err(e) => {
                    failures.push(format!("gold alternative {i} fails: {e}\n  {sql}"));
                    if self.mode == Mode::Compat {
                        // The reference stops at the exception, unless an earlier alternative
                        // matched exactly (it returns before reaching this one).
                        break;
                    }
                }
            }
        }
        let verdict = (!tables.is_empty()).then(|| {
            compare_with_gold_sql(
                &tables,
                Some(&item.gold),
                &table_of(candidate, candidate_sql),
                item.question.as_deref().unwrap_or(""),
                item.category.as_deref().unwrap_or(""),
                self.mode,
            )
        });
        let shown = || {
            let mut d = String::new();
            for (i, result) in &executed {
                if let Ok(t) = result.as_ref() {
                    d.push_str(&show_table(&format!("gold alternative {i}"), t));
                }
            }
            d.push_str(&show_table("predicted rows", candidate));
            for f in &failures {
                d.push_str(f);
                d.push('\n');
            }
            d
        };
        match verdict {
            Some(v) if v.exact_match => Verdict::correct(),
            _ if !failures.is_empty() && self.mode == Mode::Compat => Verdict::incorrect(
                "gold_error",
                on(
                    "a gold alternative fails before any exact match; the reference scores the \
                    item 0"
                        .into(),
                ),
                shown(),
            ),
            None => Verdict::gold_error(on(format!(
                "every gold alternative fails ({})",
                failures.len()
            ))),
            Some(v) if v.correct => Verdict {
                code: "correct_subset".into(),
                reason: on(v.reason),
                ..Verdict::correct()
            },
            Some(v) if v.raised => Verdict::incorrect("reference_raises", on(v.reason), shown()),
            Some(v) => Verdict::incorrect("no_match", on(v.reason), shown()),
        }
    }
}

impl Metric for Sqleval {
    fn name(&self) -> &'static str {
        "sqleval"
    }

    fn evaluate(
        &self,
        item: &Item,
        prediction: &str,
        databases: &[Database],
        executor: &Executor,
    ) -> Verdict {
        // On a test suite the weakest verdict counts: the first one that is not correct, else a
        // subset match anywhere, else an exact match.
        let mut weakest: Option<Verdict> = None;
        for db in databases {
            let v = self.judge(item, prediction, db, executor);
            if v.status != super::Status::Correct {
                return v;
            }
            if weakest.as_ref().is_none_or(|w| w.code == "correct") {
                weakest = Some(v);
            }
        }
        weakest.unwrap_or_else(|| Verdict::skipped("missing_database", "no database for the item"))
    }

    fn gold_queries(&self, gold: &str) -> Option<super::GoldQueries> {
        Some(super::GoldQueries {
            alternatives: self.alternatives(gold),
            limits: self.limits,
        })
    }
}

/// The table pandas would build from a result (`DataFrame(rows, columns)` for SQLite,
/// `read_sql_query` with `coerce_float` for PostgreSQL): integers, floats (`numeric` already a
/// float), text, booleans, timestamps (`datetime64`), intervals (`timedelta64`); dates and times
/// stay objects, compared by their ISO text.
pub fn table_of(result: &ResultTable, sql: &str) -> Table {
    let kind = |j: usize| result.column_types.get(j).copied().unwrap_or_default();
    let rows: Vec<Vec<Cell>> = result
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .enumerate()
                .map(|(j, v)| cell_of(v, kind(j)))
                .collect()
        })
        .collect();
    let mut table = Table::new(result.columns.clone(), rows).with_sql(sql);
    for (j, dtype) in table.dtypes.iter_mut().enumerate() {
        if kind(j) == ColumnType::TimestampTz && dtype == "datetime64[ns]" {
            *dtype = "datetime64[ns, UTC]".into();
        }
    }
    table
}

fn cell_of(value: &Value, kind: ColumnType) -> Cell {
    match (value, kind) {
        (Value::Null, _) => Cell::Null,
        (Value::Int(i), ColumnType::Bool) => Cell::Bool(*i != 0),
        (Value::Int(ns), ColumnType::Interval) => Cell::Duration(*ns),
        (Value::Text(t), ColumnType::Timestamp | ColumnType::TimestampTz) => {
            Cell::DateTime(t.clone())
        }
        (Value::Int(i), _) => Cell::Int(*i),
        (Value::Real(f), _) => Cell::Float(*f),
        (Value::Text(t), _) => Cell::Text(t.clone()),
        (Value::Blob(b), _) => Cell::Text(python_bytes_repr(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pandas_typing() {
        let result = ResultTable {
            columns: vec![
                "b".into(),
                "ts".into(),
                "tz".into(),
                "iv".into(),
                "n".into(),
            ],
            rows: vec![
                vec![
                    Value::Int(1),
                    Value::Text("2024-01-01T00:00:00".into()),
                    Value::Text("2024-01-01T00:00:00+00:00".into()),
                    Value::Int(86_400_000_000_000),
                    Value::Int(3),
                ],
                vec![
                    Value::Int(0),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ],
            ],
            column_types: vec![
                ColumnType::Bool,
                ColumnType::Timestamp,
                ColumnType::TimestampTz,
                ColumnType::Interval,
                ColumnType::Plain,
            ],
            steps: 0,
        };
        let t = table_of(&result, "SELECT 1");
        assert_eq!(
            t.dtypes,
            vec![
                "bool",
                "datetime64[ns]",
                "datetime64[ns, UTC]",
                "timedelta64[ns]",
                "float64"
            ]
        );
        assert_eq!(t.rows[0][0], Cell::Bool(true));
        assert_eq!(t.rows[0][3], Cell::Duration(86_400_000_000_000));
        assert_eq!(t.sql.as_deref(), Some("SELECT 1"));
    }
}
