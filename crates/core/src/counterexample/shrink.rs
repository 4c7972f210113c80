//! Shrinking: the rows of a scratch copy deleted table by table with [`ddmin`] while gold and
//! prediction still differ on it under the metric's own comparison, pass after pass until a
//! pass deletes nothing (or a budget runs out).

use std::time::Instant;

use rusqlite::Connection;

use super::ddmin::{ddmin, Probe};
use super::scratch::Scratch;
use super::{Budget, Question, PROBE_MAX_STEPS};
use crate::backend::sqlite::run_query;
use crate::backend::{Limits, QueryError};
use crate::denotation::{compare, CompareOptions, ResultTable};
use crate::exec_plan::order::OrderPlan;

/// Gold and prediction told apart on a database: both results (the prediction's is `None`
/// where it had more rows than the gold and was stopped there) and how they differ.
pub struct Told {
    /// The gold's result.
    pub gold: ResultTable,
    /// The prediction's, unless it was stopped at the gold's row count.
    pub predicted: Option<ResultTable>,
    /// How they differ (the verdict's reason).
    pub difference: String,
}

/// Whether the tie-aware comparison admits `pred` (as the exec metric's does, its key query
/// run on `conn`): `false` where it cannot tell (the ordered verdict stands).
fn admitted_up_to_ties(
    order: &OrderPlan,
    conn: &Connection,
    gold: &ResultTable,
    pred: &ResultTable,
    limits: &Limits,
    tol: f64,
) -> bool {
    match order {
        OrderPlan::Unordered => {
            let bag = CompareOptions {
                order_matters: false,
                float_tolerance: tol,
                as_sets: false,
            };
            compare(gold, pred, bag).is_ok()
        }
        OrderPlan::Unsupported(_) => false,
        OrderPlan::Keys(keys) => run_query(conn, &keys.sql, limits)
            .ok()
            .and_then(|keyed| keys.tie_groups(gold, &keyed).ok())
            .is_some_and(|groups| groups.admits(&pred.rows, tol)),
    }
}

/// Whether gold and prediction differ on `conn` under the question's comparison, each query
/// under `limits` (the metric's, or a probe's tighter ones): the exec metric's judgement on one
/// database, where a query that fails tells nothing.
pub fn told_apart(q: &Question<'_>, conn: &Connection, limits: &Limits) -> Option<Told> {
    let limits = *limits;
    let gold = run_query(conn, q.gold, &limits).ok()?;
    let cap = match q.compare.as_sets {
        true => limits.max_rows,
        false => gold.rows.len().min(limits.max_rows),
    };
    let pred_limits = Limits {
        max_rows: cap,
        max_steps: q
            .relative
            .map(|b| b.for_gold(gold.steps))
            .or(limits.max_steps),
        ..limits
    };
    let pred = match q.prediction.is_empty() {
        true => Ok(ResultTable::default()),
        false => run_query(conn, q.prediction, &pred_limits),
    };
    let pred = match pred {
        Err(QueryError::TooManyRows { limit }) if limit == cap && !q.compare.as_sets => {
            let difference =
                format!("row count differs: gold has {cap}, prediction has more than {cap}");
            return Some(Told {
                gold,
                predicted: None,
                difference,
            });
        }
        Err(_) => return None,
        Ok(pred) => pred,
    };
    let diff = compare(&gold, &pred, q.compare).err()?;
    if let Some(order) = q.order {
        let tol = q.compare.float_tolerance;
        if admitted_up_to_ties(order, conn, &gold, &pred, &q.limits, tol) {
            return None;
        }
    }
    Some(Told {
        gold,
        predicted: Some(pred),
        difference: diff.to_string(),
    })
}

/// What shrinking did: probes spent and why it stopped early, if it did.
pub struct Shrinking {
    /// Candidate deletions tried.
    pub probes: usize,
    /// Why it stopped before the database was 1-minimal, if it did.
    pub stopped: Option<String>,
}

/// Deletes rows of `scratch` while the question's queries still differ on it, within `budget`.
pub fn shrink(q: &Question<'_>, scratch: &mut Scratch, budget: Budget) -> Shrinking {
    let started = Instant::now();
    let mut probes = 0usize;
    let mut stopped: Option<String> = None;
    loop {
        let mut changed = false;
        for t in 0..scratch.tables.len() {
            let Some(ids) = scratch.tables[t].rowids.clone() else {
                continue;
            };
            let before = ids.len();
            let mut test = |keep: &[i64]| -> Probe {
                if probes >= budget.probes {
                    stopped = Some(format!(
                        "its step budget, {} probes, ran out",
                        budget.probes
                    ));
                    return Probe::Stop;
                }
                let left = budget.time.saturating_sub(started.elapsed());
                if left.is_zero() {
                    let ms = budget.time.as_millis();
                    stopped = Some(format!("its time budget, {ms} ms, ran out"));
                    return Probe::Stop;
                }
                probes += 1;
                let current = scratch.tables[t].rowids.clone().unwrap_or_default();
                let gone: Vec<i64> = match keep.is_empty() {
                    true => current,
                    false => {
                        let keep: std::collections::BTreeSet<i64> = keep.iter().copied().collect();
                        current
                            .into_iter()
                            .filter(|id| !keep.contains(id))
                            .collect()
                    }
                };
                let limits = Limits {
                    timeout: left.min(q.limits.timeout),
                    max_steps: Some(
                        q.limits
                            .max_steps
                            .map_or(PROBE_MAX_STEPS, |m| m.min(PROBE_MAX_STEPS)),
                    ),
                    ..q.limits
                };
                let still = &mut |conn: &Connection| told_apart(q, conn, &limits).is_some();
                match scratch.try_delete(t, &gone, still) {
                    Ok(true) => Probe::Holds,
                    Ok(false) => Probe::Fails,
                    Err(e) => {
                        stopped = Some(format!("a deletion failed: {e}"));
                        Probe::Stop
                    }
                }
            };
            let reduced = ddmin(ids, &mut test);
            changed |= reduced.kept.len() < before;
            if stopped.is_some() {
                return Shrinking { probes, stopped };
            }
        }
        if !changed {
            return Shrinking { probes, stopped };
        }
    }
}
