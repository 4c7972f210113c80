//! Shrinking: the rows of a scratch copy deleted table by table with [`ddmin`] while gold and
//! prediction still differ on it under the metric's own comparison, pass after pass until a
//! pass deletes nothing (or a budget runs out).
//!
//! Tables are taken children first ([`Scratch::deletion_order`]), those neither query reads
//! before the others; a table whose rows are
//! 1-minimal and that nothing changed since is not reduced again; a candidate deletion in a
//! table neither query reads runs no query (it cannot change their results: only the foreign
//! keys are checked). The budget is counted in probes and SQLite steps, never in time.

use std::collections::BTreeSet;

use rusqlite::Connection;

use super::ddmin::{ddmin, Probe};
use super::scratch::Scratch;
use super::{Budget, Question, PROBE_MAX_STEPS};
use crate::backend::sqlite::run_query;
use crate::backend::{Limits, QueryError};
use crate::denotation::{compare, ResultTable};
use crate::exec_plan::order::admits_by;

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

/// The SQLite steps a query took (where it was stopped at its budget: the steps until then;
/// where it failed otherwise, none are counted: it stopped early).
fn steps_of(result: &Result<ResultTable, QueryError>) -> u64 {
    match result {
        Ok(table) => table.steps,
        Err(QueryError::Budget { steps }) => *steps,
        Err(_) => 0,
    }
}

/// Whether gold and prediction differ on `conn` under the question's comparison, each query
/// under `limits` (the metric's, or a probe's tighter ones): the exec metric's judgement on one
/// database, where a query that fails tells nothing.
pub fn told_apart(q: &Question<'_>, conn: &Connection, limits: &Limits) -> Option<Told> {
    told_apart_counting(q, conn, limits, &mut 0)
}

/// [`told_apart`], adding the SQLite steps its queries took to `steps`.
pub(super) fn told_apart_counting(
    q: &Question<'_>,
    conn: &Connection,
    limits: &Limits,
    steps: &mut u64,
) -> Option<Told> {
    let limits = *limits;
    let gold = run_query(conn, q.gold, &limits);
    *steps += steps_of(&gold);
    let gold = gold.ok()?;
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
    *steps += steps_of(&pred);
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
        // The tie-aware comparison, its key query run on this copy (the metric's limits).
        let tol = q.compare.float_tolerance;
        let admitted = admits_by(order, &gold, &pred, tol, |keys| {
            let keyed = run_query(conn, &keys.sql, &q.limits);
            *steps += steps_of(&keyed);
            keys.tie_groups(&gold, &keyed.map_err(|e| e.to_string())?)
        });
        if matches!(admitted, Ok(Some(_))) {
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
#[derive(Default)]
pub struct Shrinking {
    /// Candidate deletions tried.
    pub probes: usize,
    /// SQLite steps the probes' queries took.
    pub steps: u64,
    /// Why it stopped before the database was 1-minimal, if it did.
    pub stopped: Option<String>,
}

/// A probe query's limits: the metric's, with at most [`PROBE_MAX_STEPS`] steps.
pub(super) fn probe_limits(q: &Question<'_>) -> Limits {
    Limits {
        max_steps: Some(
            q.limits
                .max_steps
                .map_or(PROBE_MAX_STEPS, |m| m.min(PROBE_MAX_STEPS)),
        ),
        ..q.limits
    }
}

/// Deletes rows of `scratch` while the question's queries still differ on it, within `budget`
/// (what was `spent` already counts). `read`: the tables either query reads (`None`: unknown,
/// all of them).
pub fn shrink(
    q: &Question<'_>,
    scratch: &mut Scratch,
    read: Option<&BTreeSet<String>>,
    budget: Budget,
    mut spent: Shrinking,
) -> Shrinking {
    // Deletions kept so far, and for each table the count when its rows were last found
    // 1-minimal: with no deletion since, reducing it again would find what it found.
    let mut generation = 0usize;
    let mut settled: Vec<Option<usize>> = vec![None; scratch.tables.len()];
    // Tables no query reads first (emptying them costs no query), each group children first.
    let reads = |t: usize| read.is_none_or(|r| r.contains(&scratch.tables[t].name));
    let (mut order, read_order): (Vec<usize>, Vec<usize>) = scratch
        .deletion_order()
        .into_iter()
        .partition(|&t| !reads(t));
    order.extend(read_order);
    let reads: Vec<bool> = (0..scratch.tables.len()).map(reads).collect();
    loop {
        let mut changed = false;
        for &t in &order {
            if settled[t] == Some(generation) {
                continue;
            }
            let rows = |s: &Scratch| s.tables[t].rowids.as_ref().map(Vec::len);
            let Some(before) = rows(scratch) else {
                continue;
            };
            let minimal = reduce_table(q, scratch, t, reads[t], budget, &mut spent);
            if rows(scratch) < Some(before) {
                changed = true;
                generation += 1;
            }
            if minimal {
                settled[t] = Some(generation);
            }
            if spent.stopped.is_some() {
                return spent;
            }
        }
        if !changed {
            return spent;
        }
    }
}

/// [`ddmin`] over the rowids of table `t` but those it cannot delete alone
/// ([`Scratch::pinned`]): a candidate is kept if no foreign key dangles and, where the table is
/// one the queries read (`reads`), they still differ. Whether what it kept is 1-minimal.
fn reduce_table(
    q: &Question<'_>,
    scratch: &mut Scratch,
    t: usize,
    reads: bool,
    budget: Budget,
    spent: &mut Shrinking,
) -> bool {
    let pinned = scratch.pinned(t);
    let ids: Vec<i64> = scratch.tables[t]
        .rowids
        .iter()
        .flatten()
        .copied()
        .filter(|id| !pinned.contains(id))
        .collect();
    let limits = probe_limits(q);
    let mut test = |keep: &[i64]| -> Probe {
        if spent.probes >= budget.probes {
            spent.stopped = Some(format!(
                "its probe budget, {} probes, ran out",
                budget.probes
            ));
            return Probe::Stop;
        }
        if spent.steps >= budget.steps {
            spent.stopped = Some(format!(
                "its step budget, {} SQLite steps, ran out",
                budget.steps
            ));
            return Probe::Stop;
        }
        spent.probes += 1;
        let current = scratch.tables[t].rowids.clone().unwrap_or_default();
        let keep: BTreeSet<i64> = keep.iter().copied().collect();
        let gone: Vec<i64> = current
            .into_iter()
            .filter(|id| !keep.contains(id) && !pinned.contains(id))
            .collect();
        let steps = &mut spent.steps;
        let still = &mut |conn: &Connection| {
            !reads || told_apart_counting(q, conn, &limits, steps).is_some()
        };
        match scratch.try_delete(t, &gone, still) {
            Ok(true) => Probe::Holds,
            Ok(false) => Probe::Fails,
            Err(e) => {
                spent.stopped = Some(format!("a deletion failed: {e}"));
                Probe::Stop
            }
        }
    };
    ddmin(ids, &mut test).minimal
}
