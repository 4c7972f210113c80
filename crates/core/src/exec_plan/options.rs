//! `[metrics.exec]`'s options: how the exec metric prepares, runs and compares queries. The
//! plans ([`super::GoldPlan`], [`super::PredictionPlan`]) are made from them.

use serde::Deserialize;

use crate::backend::QueryLimits;
use crate::config::{FromSection, ManifestError, Section};

/// `[metrics.exec]` options. Unknown keys are refused by [`FromSection`], which reads these
/// and the [`QueryLimits`] from the same table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct ExecOptions {
    /// Keep DISTINCT in both queries (the reference's `--keep_distinct`).
    pub keep_distinct: bool,
    /// `timeout_ms` and `max_rows`.
    #[serde(skip)]
    pub limits: QueryLimits,
    /// Relative tolerance for comparing numbers; absent = exact Python equality (official).
    pub float_tolerance: Option<f64>,
    /// Replace every `value` substring of the prediction by `1` before running it, as the
    /// reference's `evaluation.py` does for every prediction.
    pub replace_value_placeholder: bool,
    /// The reference's `--plug_value`: if the prediction as written does not match, try every
    /// assignment of the gold's values to the prediction's value slots.
    pub plug_value: bool,
    /// Repair operators a tokenizer split (`> =` → `>=`) in both queries, as the Spider
    /// evaluator does; the classical evaluator runs them verbatim (`false`).
    pub repair_operators: bool,
    /// A database on which the gold fails is left out of the item's suite (noted in the
    /// verdict's details), as the classical evaluator does; the gold failing on every
    /// database is a gold error. Default: a gold failing anywhere is a gold error.
    pub skip_gold_failures: bool,
    /// A prediction's step budget on each database relative to the gold's steps there (the
    /// classical evaluator's `30 s + 3 × gold time`, made deterministic; SQLite only).
    pub gold_relative_budget: Option<RelativeBudget>,
    /// Reproduce a reference evaluator exactly: `test_suite_sql_eval` (the official Spider,
    /// SParC, CoSQL and classical evaluator) or `bird` (BIRD's EX). Absent: the metric as
    /// specified, which differs from `test_suite_sql_eval` only in `tie_aware_order`'s default.
    pub compat: Option<ExecCompat>,
    /// Tie-aware ORDER BY / LIMIT: rows with equal sort keys may come in any order, and a tie
    /// at a LIMIT may be broken either way. Absent: on, unless `compat` is set (then off; on
    /// together with `compat` is an error).
    pub tie_aware_order: Option<bool>,
    /// For a prediction judged incorrect because its rows differ, shrink the database that
    /// told it from the gold to a minimal counterexample (`spec/counterexample.md`). Off by
    /// default: it runs both queries again, many times.
    pub counterexamples: bool,
    /// Where rows are compared as sets (`compat = "bird"`), stop a prediction at its first row
    /// the gold's set lacks: it is incorrect whatever follows, so the rest is not fetched (a
    /// cartesian product costs a row). The verdict is the same; its reason is `rows_differ`
    /// where the whole query would have gone on to fail (an error, a limit), and it names that
    /// one row. Off by default: the metrics of a manifest share each prediction's whole result
    /// (Soft-F1 reads it), and a query is never run twice on a database; a judge
    /// (`sqlsuite.Judge`), one metric, turns it on. Where duplicates count, a prediction is
    /// already stopped past the gold's number of rows.
    pub stop_at_foreign_row: bool,
}

/// `compat = "…"`: the reference evaluator whose verdicts the metric reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecCompat {
    /// `taoyds/test-suite-sql-eval`, `evaluation.py --etype exec`.
    TestSuiteSqlEval,
    /// BIRD's `evaluation_ex.py`: both queries run as written (no DISTINCT removed, no
    /// placeholder replaced, no operator repaired), and the prediction is correct iff its rows
    /// as a set of tuples equal the gold's (`CompareOptions::as_sets`); any error is incorrect.
    Bird,
}

/// `gold_relative_budget = { floor = …, multiplier = … }`: a prediction may take
/// `floor + multiplier × (the gold's steps)` steps on a database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelativeBudget {
    /// Steps every prediction may take, whatever its gold took.
    pub floor: u64,
    /// Steps per step of the gold, on top of the floor.
    pub multiplier: u64,
}

impl RelativeBudget {
    /// The budget of a prediction whose gold took `gold_steps`.
    pub fn for_gold(&self, gold_steps: u64) -> u64 {
        self.floor
            .saturating_add(self.multiplier.saturating_mul(gold_steps))
    }
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            keep_distinct: false,
            limits: QueryLimits::default(),
            float_tolerance: None,
            replace_value_placeholder: true,
            plug_value: false,
            repair_operators: true,
            skip_gold_failures: false,
            gold_relative_budget: None,
            compat: None,
            tie_aware_order: None,
            counterexamples: false,
            stop_at_foreign_row: false,
        }
    }
}

impl ExecOptions {
    /// Whether ordered results are compared tie-aware (`tie_aware_order`, by default on
    /// outside `compat`).
    pub fn tie_aware(&self) -> bool {
        self.tie_aware_order.unwrap_or(self.compat.is_none())
    }
}

impl FromSection for ExecOptions {
    fn from_section(section: &Section<'_>) -> Result<Self, ManifestError> {
        let (options, limits): (ExecOptions, QueryLimits) = section.read_with()?;
        if options.compat.is_some() && options.tie_aware_order == Some(true) {
            return Err(section.error(
                "[metrics.exec] tie_aware_order = true contradicts compat: the reference \
                 compares ordered rows exactly",
            ));
        }
        if options.compat == Some(ExecCompat::Bird) && options.plug_value {
            return Err(section.error(
                "[metrics.exec] plug_value is the Spider evaluator's; compat = \"bird\" runs the \
                 prediction as written",
            ));
        }
        Ok(ExecOptions { limits, ..options })
    }
}
