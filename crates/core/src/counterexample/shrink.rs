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
use super::scratch::{without, Scratch};
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
    let gold = run_gold(q, conn, limits);
    told_apart_given(q, conn, limits, &gold, &mut Work::default())
}

/// [`told_apart`], adding the SQLite steps its queries took to `steps`.
pub(super) fn told_apart_counting(
    q: &Question<'_>,
    conn: &Connection,
    limits: &Limits,
    steps: &mut u64,
) -> Option<Told> {
    let gold = run_gold(q, conn, limits);
    let mut work = Work::default();
    let told = told_apart_given(q, conn, limits, &gold, &mut work);
    *steps += work.steps;
    told
}

/// What the queries of a probe spent: their SQLite steps, and whether one of them was stopped
/// at its step limit.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Work {
    pub steps: u64,
    pub over_limit: bool,
}

/// How the gold failed on a copy: the steps it took, and whether it was stopped at its step
/// limit.
#[derive(Debug, Clone, Copy)]
pub(super) struct GoldFailed {
    steps: u64,
    over_limit: bool,
}

/// The gold run on `conn` under `limits`: its result, or how it failed.
fn run_gold(
    q: &Question<'_>,
    conn: &Connection,
    limits: &Limits,
) -> Result<ResultTable, GoldFailed> {
    let gold = run_query(conn, q.gold, limits);
    let steps = steps_of(&gold);
    gold.map_err(|e| GoldFailed {
        steps,
        over_limit: matches!(e, QueryError::Budget { .. }),
    })
}

/// [`told_apart`] with the gold's outcome on `conn` given (run, or known from a state whose
/// tables the gold reads had the same rows), adding the SQLite steps of both queries to
/// `work` (the gold's as it took them where it ran), and whether one was stopped at its step
/// limit.
fn told_apart_given(
    q: &Question<'_>,
    conn: &Connection,
    limits: &Limits,
    gold: &Result<ResultTable, GoldFailed>,
    work: &mut Work,
) -> Option<Told> {
    let limits = *limits;
    match gold {
        Ok(table) => work.steps += table.steps,
        Err(failed) => {
            work.steps += failed.steps;
            work.over_limit |= failed.over_limit;
        }
    }
    let gold = gold.as_ref().ok()?.clone();
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
    work.steps += steps_of(&pred);
    work.over_limit |= matches!(pred, Err(QueryError::Budget { .. }));
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
            work.steps += steps_of(&keyed);
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
    /// Probes whose gold did not run: its outcome was known ([`KnownGold`]).
    pub gold_reused: usize,
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

/// The tables the queries read, by their plans (`None`: unknown, all of them).
pub struct Reads<'a> {
    /// Those either query reads.
    pub either: Option<&'a BTreeSet<String>>,
    /// Those the gold reads.
    pub gold: Option<&'a BTreeSet<String>>,
}

/// The gold's outcome on the rows kept so far (its result, or the steps it took before it
/// failed), once known: a candidate deletion in a table the gold does not read leaves the rows
/// it reads as they are, so the gold's outcome on it is this one, and the gold does not run.
/// Its steps are counted all the same (the budget, and so the counterexample, is what it would
/// be were the gold run).
type KnownGold = Option<Result<ResultTable, GoldFailed>>;

/// Deletes rows of `scratch` while the question's queries still differ on it, within `budget`
/// (what was `spent` already counts).
pub fn shrink(
    q: &Question<'_>,
    scratch: &mut Scratch,
    read: &Reads<'_>,
    budget: Budget,
    mut spent: Shrinking,
) -> Shrinking {
    let mut known_gold: KnownGold = None;
    // Deletions kept so far, and for each table the count when its rows were last found
    // 1-minimal: with no deletion since, reducing it again would find what it found.
    let mut generation = 0usize;
    let mut settled: Vec<Option<usize>> = vec![None; scratch.tables.len()];
    // Tables no query reads first (emptying them costs no query), each group children first.
    let reads = |t: usize| {
        read.either
            .is_none_or(|r| r.contains(&scratch.tables[t].name))
    };
    let (mut order, read_order): (Vec<usize>, Vec<usize>) = scratch
        .deletion_order()
        .into_iter()
        .partition(|&t| !reads(t));
    order.extend(read_order);
    let reads: Vec<bool> = (0..scratch.tables.len()).map(reads).collect();
    let gold_reads: Vec<bool> = (0..scratch.tables.len())
        .map(|t| {
            read.gold
                .is_none_or(|r| r.contains(&scratch.tables[t].name))
        })
        .collect();
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
            let table = Reduced {
                t,
                reads: reads[t],
                gold_reads: gold_reads[t],
            };
            let minimal = reduce_table(q, scratch, &table, budget, &mut spent, &mut known_gold);
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

/// The table [`reduce_table`] reduces: its position, and whether either query, and the gold,
/// reads it.
struct Reduced {
    t: usize,
    reads: bool,
    gold_reads: bool,
}

/// [`ddmin`] over the rowids of table `t` but those it cannot delete alone
/// ([`Scratch::pinned`]): a candidate is kept if no foreign key dangles and, where the table is
/// one the queries read (`reads`), they still differ. Whether what it kept is 1-minimal.
/// `known_gold`: the gold's outcome on the rows kept, if known (kept up to date).
fn reduce_table(
    q: &Question<'_>,
    scratch: &mut Scratch,
    table: &Reduced,
    budget: Budget,
    spent: &mut Shrinking,
    known_gold: &mut KnownGold,
) -> bool {
    let Reduced {
        t,
        reads,
        gold_reads,
    } = *table;
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
        // `keep` is in the order of `ids`, ascending as the table's rowids are.
        let current = scratch.tables[t].rowids.as_deref().unwrap_or_default();
        let mut gone = without(current, keep);
        gone.retain(|id| !pinned.contains(id));
        let reused = &mut spent.gold_reused;
        let mut work = Work::default();
        let mut gold_here: KnownGold = None;
        let still = &mut |conn: &Connection| {
            if !reads {
                return true;
            }
            let gold = match (gold_reads, known_gold.as_ref()) {
                (false, Some(known)) => {
                    *reused += 1;
                    known
                }
                _ => gold_here.insert(run_gold(q, conn, &limits)),
            };
            told_apart_given(q, conn, &limits, gold, &mut work).is_some()
        };
        let outcome = scratch.try_delete(t, &gone, still);
        spent.steps += work.steps;
        // The gold's outcome on the rows now kept: unchanged where it does not read the table,
        // this probe's where the deletion is kept.
        if gold_here.is_some() && (!gold_reads || matches!(outcome, Ok(true))) {
            *known_gold = gold_here;
        }
        match outcome {
            Ok(true) => Probe::Holds,
            // A query stopped at a probe's step limit tells nothing, and every further probe
            // would likely be stopped too (fewer rows seldom cut the work enough): the rows
            // kept so far are shown, said not minimal, instead of the budget spent on them.
            Ok(false) if work.over_limit => {
                spent.stopped = Some(format!(
                    "a probe's query was stopped at its step limit (at most {PROBE_MAX_STEPS} \
                     SQLite steps per query): the queries cost too much on this database to \
                     shrink it further"
                ));
                Probe::Stop
            }
            Ok(false) => Probe::Fails,
            Err(e) => {
                spent.stopped = Some(format!("a deletion failed: {e}"));
                Probe::Stop
            }
        }
    };
    ddmin(ids, &mut test).minimal
}
