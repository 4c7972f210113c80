//! `[metrics.soft_f1]`: BIRD's Soft-F1 (`evaluation_f1.py`), a graded score of how much of the
//! gold's rows the prediction's rows hold, row by row ([`sqlsuite_reference::bird::soft_f1`]).
//! The queries run as BIRD's scripts run them ([`super::bird_pair`]); a failing prediction
//! scores 0. On a test suite the item's score is its lowest over the suite's databases.
//!
//! The verdict is correct at a score of 1; the score (`soft_f1`, 0–1) is averaged over the
//! scored items in summaries, which is BIRD's Soft-F1 of the set (times 100). Options: the
//! query limits (`timeout_ms`, `max_rows`, `max_steps`).

use sqlsuite_reference::bird;

use super::{bird_pair, Metric, MetricEntry, Resources, Verdict};
use crate::backend::{Database, Limits};
use crate::config::{ManifestError, Section};
use crate::dataset::Item;
use crate::executor::Executor;

/// `[metrics.soft_f1]` in the registry.
pub const ENTRY: MetricEntry = MetricEntry {
    name: "soft_f1",
    runs_queries: true,
    build,
};

fn build(section: &Section<'_>, _: &Resources) -> Result<Box<dyn Metric>, ManifestError> {
    let limits = super::limits_only(section)?;
    Ok(Box::new(SoftF1 {
        limits: limits.limits(),
    }))
}

/// The Soft-F1 metric.
#[derive(Debug, Clone)]
pub struct SoftF1 {
    limits: Limits,
}

impl Metric for SoftF1 {
    fn name(&self) -> &'static str {
        ENTRY.name
    }

    fn evaluate(
        &self,
        item: &Item,
        prediction: &str,
        databases: &[Database],
        executor: &Executor,
    ) -> Verdict {
        let pairs = match bird_pair::run(item, prediction, databases, executor, &self.limits) {
            Ok(pairs) => pairs,
            Err(verdict) => return (*verdict).with_scores(vec![(ENTRY.name, 0.0)]),
        };
        let (score, database) = pairs
            .iter()
            .map(|p| {
                (
                    bird::soft_f1(&p.prediction.rows, &p.gold.rows),
                    p.database.as_str(),
                )
            })
            .fold(
                (1.0, ""),
                |low, next| if next.0 < low.0 { next } else { low },
            );
        let verdict = match score {
            1.0 => Verdict::correct(),
            s => {
                let code = if s == 0.0 { "no_overlap" } else { "partial" };
                let on = match pairs.len() {
                    1 => String::new(),
                    _ => format!(" on {database}"),
                };
                Verdict::incorrect(code, format!("Soft-F1 {s:.4}{on}"), "")
            }
        };
        verdict.with_scores(vec![(ENTRY.name, score)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::sqlite::Sqlite;
    use crate::backend::QueryLimits;

    fn judge(gold: &str, pred: &str) -> Verdict {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sql");
        std::fs::write(
            &path,
            "CREATE TABLE t(a INT, b TEXT);
             INSERT INTO t VALUES (1, 'x'), (2, 'y'), (2, 'y'), (3, NULL);",
        )
        .unwrap();
        let item = Item::new(0, "db", gold, "test");
        let ex = Executor::new(Box::new(Sqlite::default()), None);
        let metric = SoftF1 {
            limits: QueryLimits::default().limits(),
        };
        metric.evaluate(&item, pred, &[Database::file(path)], &ex)
    }

    fn score(v: &Verdict) -> f64 {
        v.scores[0].1
    }

    #[test]
    fn rows_by_position_values_by_the_gold_rows_width() {
        let v = judge("SELECT a, b FROM t", "SELECT DISTINCT a, b FROM t");
        assert_eq!((v.code.as_str(), score(&v)), ("correct", 1.0));
        // Another column: half of each row's values match.
        let v = judge("SELECT a, b FROM t", "SELECT a FROM t");
        assert_eq!(v.code, "partial");
        assert!((score(&v) - 2.0 / 3.0).abs() < 1e-12, "{v:?}");
        // NULL is a value like any other.
        let v = judge("SELECT b FROM t WHERE a = 3", "SELECT NULL");
        assert_eq!(score(&v), 1.0);
        // Nothing in common, an error, several statements: 0.
        assert_eq!(score(&judge("SELECT a FROM t", "SELECT 9")), 0.0);
        let v = judge("SELECT a FROM t", "SELECT a FROM nowhere");
        assert_eq!((v.code.as_str(), score(&v)), ("sql_error", 0.0));
        let v = judge("SELECT a FROM t", "SELECT a FROM t; SELECT 1");
        assert_eq!((v.code.as_str(), score(&v)), ("sql_error", 0.0));
        // Both empty: 1.
        assert_eq!(
            score(&judge("SELECT a FROM t WHERE a > 5", "-- nothing")),
            1.0
        );
    }
}
