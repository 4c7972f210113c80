//! A BIRD item's gold and prediction run as BIRD's evaluation scripts run them (the exec plan
//! with `compat = "bird"`: both queries as written, the one statement Python's `sqlite3` runs),
//! on each of the item's databases: what BIRD's Soft-F1 and R-VES metrics score.

use std::sync::Arc;

use super::Verdict;
use crate::backend::{Database, Limits};
use crate::dataset::Item;
use crate::denotation::ResultTable;
use crate::exec_plan::{ExecCompat, ExecOptions};
use crate::executor::Executor;

/// The gold's and the prediction's result on one database.
pub struct Pair {
    /// The database's label (for messages about a suite).
    pub database: String,
    /// The gold's rows.
    pub gold: Arc<ResultTable>,
    /// The prediction's rows.
    pub prediction: Arc<ResultTable>,
}

/// Runs `prediction` and the item's gold on every database (`limits` each). `Err`: the verdict
/// when some query fails — the prediction (incorrect, with its error's code), a refused text
/// (several statements: `sql_error`) or the gold (a gold error).
pub fn run(
    item: &Item,
    prediction: &str,
    databases: &[Database],
    executor: &Executor,
    limits: &Limits,
) -> Result<Vec<Pair>, Box<Verdict>> {
    let options = ExecOptions {
        compat: Some(ExecCompat::Bird),
        ..ExecOptions::default()
    };
    let pred = options.prediction_plan(prediction);
    if let Some(refusal) = pred.refused {
        let verdict = Verdict::incorrect(refusal.code, refusal.message, "");
        return Err(Box::new(verdict));
    }
    let gold = options.gold_plan(&item.gold);
    let on = |db: &Database| match databases.len() {
        1 => String::new(),
        _ => format!(" on {}", db.label()),
    };
    databases
        .iter()
        .map(|db| {
            let gold = match executor.gold(db, &gold.sql, limits).as_ref() {
                Ok(t) => Arc::new(t.clone()),
                Err(e) => {
                    let reason = format!("gold failed{}: {e}", on(db));
                    return Err(Box::new(Verdict::gold_error(reason)));
                }
            };
            let prediction = match pred.sql.is_empty() {
                // Nothing to run fetches no row.
                true => Arc::new(ResultTable::default()),
                false => match executor.prediction(db, &pred.sql, limits).as_ref() {
                    Ok(t) => Arc::new(t.clone()),
                    Err(e) => {
                        let reason = format!("prediction failed{}: {e}", on(db));
                        return Err(Box::new(Verdict::incorrect(e.code(), reason, "")));
                    }
                },
            };
            Ok(Pair {
                database: db.label(),
                gold,
                prediction,
            })
        })
        .collect()
}
