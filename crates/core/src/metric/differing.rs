//! The rows that told gold and prediction apart, as an incorrect exec verdict carries them: a
//! bounded copy of what the comparison saw on the database that told them apart, so that a
//! report (JSON lines' `rows`, `spec/report.md`) shows them without running anything again.
//!
//! Which rows: where both results have the same shape and values differ (`rows_differ`), the
//! rows only the gold has and the rows only the prediction has (multiset differences,
//! [`crate::denotation::Difference::Rows`]); otherwise (`row_count`, `column_count`, `order`)
//! both whole results. At most [`ROWS_PER_SIDE`] rows per side, each side counted in full.

use serde::{Deserialize, Serialize};

use crate::counterexample::Rows;
use crate::denotation::{ResultTable, Value};

/// At most this many rows per side are kept (a failure message shows the first 5 of them;
/// `spec/report.md`, "JSON lines", measures how often 20 is enough).
pub const ROWS_PER_SIDE: usize = 20;

/// Which rows a [`DifferingRows`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shown {
    /// The rows only one side has (same columns and row count, values differ).
    Difference,
    /// Both whole results.
    Results,
}

/// The rows of gold and prediction on the database that told them apart, bounded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DifferingRows {
    /// The database ([`crate::backend::Database::label`]).
    pub database: String,
    /// Which rows the sides hold.
    pub shown: Shown,
    /// The gold's side.
    pub gold: Rows,
    /// The prediction's side; where the prediction was stopped at the gold's row count, no
    /// row, `count` unknown and `at_least` that count.
    pub predicted: Rows,
}

impl DifferingRows {
    /// The rows only one side has: `only_gold` under the gold's columns, `only_predicted`
    /// under the prediction's.
    pub fn difference(
        database: String,
        gold: &ResultTable,
        only_gold: &[Vec<Value>],
        predicted: &ResultTable,
        only_predicted: &[Vec<Value>],
    ) -> DifferingRows {
        DifferingRows {
            database,
            shown: Shown::Difference,
            gold: Rows::first(&gold.columns, only_gold, ROWS_PER_SIDE),
            predicted: Rows::first(&predicted.columns, only_predicted, ROWS_PER_SIDE),
        }
    }

    /// Both whole results.
    pub fn results(database: String, gold: &ResultTable, predicted: &ResultTable) -> Self {
        DifferingRows {
            database,
            shown: Shown::Results,
            gold: Rows::first(&gold.columns, &gold.rows, ROWS_PER_SIDE),
            predicted: Rows::first(&predicted.columns, &predicted.rows, ROWS_PER_SIDE),
        }
    }

    /// The gold's whole result and a prediction stopped once it had more than `cap` rows.
    pub fn stopped(database: String, gold: &ResultTable, cap: usize) -> DifferingRows {
        DifferingRows {
            database,
            shown: Shown::Results,
            gold: Rows::first(&gold.columns, &gold.rows, ROWS_PER_SIDE),
            predicted: Rows {
                columns: Vec::new(),
                rows: Vec::new(),
                count: None,
                at_least: cap,
            },
        }
    }

    /// Whether either side leaves rows out.
    pub fn truncated(&self) -> bool {
        self.gold.truncated() || self.predicted.truncated()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(n: i64) -> ResultTable {
        ResultTable {
            columns: vec!["x".into()],
            rows: (0..n).map(|i| vec![Value::Int(i)]).collect(),
            ..ResultTable::default()
        }
    }

    #[test]
    fn each_side_is_bounded_and_counted_in_full() {
        let rows = DifferingRows::results("db.sqlite".into(), &table(3), &table(50));
        assert_eq!(rows.gold.rows.len(), 3);
        assert_eq!(rows.predicted.rows.len(), ROWS_PER_SIDE);
        assert_eq!(rows.predicted.count, Some(50));
        assert!(!rows.gold.truncated() && rows.predicted.truncated());
        assert!(rows.truncated());
        let small = DifferingRows::results("db.sqlite".into(), &table(3), &table(2));
        assert!(!small.truncated());
    }

    #[test]
    fn a_stopped_prediction_has_no_count() {
        let rows = DifferingRows::stopped("db.sqlite".into(), &table(3), 3);
        assert_eq!((rows.predicted.count, rows.predicted.at_least), (None, 3));
        assert!(rows.truncated());
    }
}
