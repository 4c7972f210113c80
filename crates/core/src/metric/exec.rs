//! QueryResult accuracy with the official test-suite evaluator's semantics (`spec/exec.md`).
//!
//! Both queries are preprocessed as the reference does (tokenized operators repaired, DISTINCT
//! removed unless `keep_distinct`, the `value` placeholder replaced in the prediction), run on
//! each of the item's databases, and their results compared with [`crate::denotation::compare`]
//! (order counts only if the gold contains `order by`). The prediction is correct iff it matches
//! on every database.
//!
//! Outside the official-compatibility mode (`compat`), an ordered comparison is tie-aware
//! (`tie_aware_order`, [`crate::exec_plan::order`]): rows the gold's sort keys tie may come in any
//! order, and a tie cut by LIMIT may be broken either way; golds whose answer depends on how
//! ties are broken are flagged (`gold_flags`).
//!
//! Length: about 560 lines of code and 570 of unit tests. The judgement on one database, across
//! a suite and over `plug_value`'s bounded candidates shares the private `Gold` and `Outcome`;
//! the tests pin each verdict code and reason the spec lists.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::differing::DifferingRows;
use super::{Metric, MetricEntry, Resources, Status, Steps, Verdict};
use crate::backend::{Database, Limits, QueryError};
use crate::config::{FromSection, ManifestError, Section};
use crate::counterexample::{self, Budget, Question};
use crate::dataset::Item;
use crate::denotation::{compare, format_row, CompareOptions, Difference, ResultTable, Value};
use crate::exec_plan::order::{self as exec_order, OrderPlan};
use crate::exec_plan::GoldPlan;
pub use crate::exec_plan::{ExecCompat, ExecOptions, RelativeBudget};
use crate::executor::Executor;
use crate::memo::Memo;
use crate::sql_tokens::same_up_to_case;
use sqlsuite_reference::python::python_strip;

/// `[metrics.exec]` in the registry.
pub const ENTRY: MetricEntry = MetricEntry {
    name: "exec",
    runs_queries: true,
    build,
};

fn build(section: &Section<'_>, _: &Resources) -> Result<Box<dyn Metric>, ManifestError> {
    Ok(Box::new(Exec::new(ExecOptions::from_section(section)?)))
}

/// The execution-match metric.
#[derive(Debug, Clone)]
pub struct Exec {
    /// Its name: `exec`, or `ex` for BIRD's EX ([`super::ex`]).
    name: &'static str,
    options: ExecOptions,
    limits: Limits,
    /// Each gold text planned once, for every prediction set that meets it.
    planned: Arc<Mutex<HashMap<String, Arc<PlannedGold>>>>,
    /// Counterexamples found, by database, gold and prediction as run: prediction sets that
    /// share a wrong prediction shrink its database once (a worker that needs a counterexample
    /// another worker is shrinking waits for it instead of shrinking it too).
    found: Arc<Memo<FoundKey, counterexample::Found>>,
    /// The layouts of the databases counterexamples were shrunk on, each read once.
    layouts: Arc<counterexample::Layouts>,
}

/// What a counterexample depends on: the database, the gold and the prediction as they ran
/// (and whether that is `plug_value`'s candidate).
type FoundKey = (Database, String, String, bool);

/// A gold's plan and, for the tie-aware comparison of an ordered gold, how it orders its rows.
#[derive(Debug)]
struct PlannedGold {
    plan: GoldPlan,
    order: Option<OrderPlan>,
}

/// At most this many `plug_value` candidates are tried per item (`spec/exec.md` §4a). The 14
/// real Spider models need at most 27 (the most assignments any of their 14,476 predictions
/// has), so official conformance does not depend on it.
pub const PLUG_VALUE_MAX_CANDIDATES: usize = 1_000;

/// All `plug_value` candidates of an item together run for at most this many times the
/// per-query `timeout_ms` (wall-clock, like `timeout_ms` itself): a candidate gets what is left
/// of it, at most `timeout_ms`.
pub const PLUG_VALUE_TIME_MULTIPLE: u32 = 3;

/// `n` with its digits grouped by threes (`16,777,216`).
fn grouped(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Rows shown per side in a failure message.
const SHOWN_ROWS: usize = 5;

impl Exec {
    /// The metric with `options`.
    pub fn new(options: ExecOptions) -> Exec {
        Exec::named("exec", options)
    }

    /// The metric with `options`, under another name than `exec` (BIRD's `ex`).
    pub fn named(name: &'static str, options: ExecOptions) -> Exec {
        let limits = options.limits.limits();
        Exec {
            name,
            options,
            limits,
            planned: Arc::default(),
            found: Arc::new(Memo::new()),
            layouts: Arc::default(),
        }
    }

    /// The gold planned, once per gold text.
    fn planned(&self, gold: &str) -> Arc<PlannedGold> {
        let lock = || {
            self.planned
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        if let Some(planned) = lock().get(gold) {
            return Arc::clone(planned);
        }
        let plan = self.options.gold_plan(gold);
        let order = self
            .options
            .tie_aware()
            .then(|| plan.order_plan())
            .filter(|_| plan.compare.order_matters);
        let planned = Arc::new(PlannedGold { plan, order });
        lock().insert(gold.to_owned(), Arc::clone(&planned));
        planned
    }

    /// The options it was made with (their plans: [`crate::exec_plan`]).
    pub fn options(&self) -> &ExecOptions {
        &self.options
    }
}

/// `label (N rows; columns a, b):` and the first rows, one per line.
fn show_rows(label: &str, rows: &[Vec<Value>], columns: &[String]) -> String {
    let plural = if rows.len() == 1 { "" } else { "s" };
    let mut s = format!("{label} ({} row{plural}", rows.len());
    if !columns.is_empty() {
        s.push_str(&format!("; columns {}", columns.join(", ")));
    }
    s.push_str("):\n");
    for row in rows.iter().take(SHOWN_ROWS) {
        s.push_str(&format!("  {}\n", format_row(row)));
    }
    if rows.len() > SHOWN_ROWS {
        s.push_str(&format!("  … {} more\n", rows.len() - SHOWN_ROWS));
    }
    s
}

pub(super) fn show_table(label: &str, table: &ResultTable) -> String {
    show_rows(label, &table.rows, &table.columns)
}

impl Exec {
    /// Runs one prediction text against the gold on every database: the position of the
    /// first database that tells them apart and its verdict (or the gold's failure), or, when
    /// they agree on every database, how (exactly, or only up to ties) and the databases left
    /// out because the gold failed there (`skip_gold_failures`). The prediction runs for at
    /// most `timeout` on each database.
    fn first_difference(
        &self,
        gold: &Gold<'_>,
        pred_sql: &str,
        executed: &str,
        databases: &[Database],
        executor: &Executor,
        timeout: Duration,
    ) -> Outcome {
        let suite = databases.len() > 1;
        let mut skipped = Vec::new();
        let mut up_to_ties = None;
        let mut steps = executor.backend().counts_steps().then_some(Steps {
            gold: 0,
            prediction: Some(0),
        });
        for (position, db) in databases.iter().enumerate() {
            let mut run = None;
            let agreement = self.check_one(
                gold, pred_sql, executed, db, suite, executor, timeout, &mut run,
            );
            if let (Some(total), Some(run)) = (steps.as_mut(), run) {
                total.gold += run.gold;
                total.prediction = total.prediction.zip(run.prediction).map(|(a, b)| a + b);
            }
            match agreement {
                Ok(Agreement::Exact) => {}
                Ok(Agreement::UpToTies(how)) => up_to_ties = up_to_ties.or(Some(how)),
                Ok(Agreement::GoldFailed(why)) => skipped.push(why),
                Err(v) => return Outcome::Differs(position, v.with_steps(steps)),
            }
        }
        if !skipped.is_empty() && skipped.len() == databases.len() {
            let reason = format!(
                "gold failed on every database ({}); first: {}",
                databases.len(),
                skipped[0]
            );
            return Outcome::Differs(0, Verdict::gold_error(reason));
        }
        Outcome::Agree(skipped, up_to_ties, steps)
    }

    /// [`Exec::first_difference`] on one database; sets `steps` once the gold's are known.
    #[allow(clippy::too_many_arguments)]
    fn check_one(
        &self,
        g: &Gold<'_>,
        pred_sql: &str,
        executed: &str,
        db: &Database,
        suite: bool,
        executor: &Executor,
        timeout: Duration,
        steps: &mut Option<Steps>,
    ) -> Result<Agreement, Box<Verdict>> {
        let on_db = if suite {
            format!(" on {}", db.label())
        } else {
            String::new()
        };
        let gold = executor.gold(db, g.sql, &self.limits);
        let gold = match gold.as_ref() {
            Ok(t) => t,
            Err(e) if self.options.skip_gold_failures => {
                return Ok(Agreement::GoldFailed(format!("{}: {e}", db.label())))
            }
            Err(e) => {
                let reason = format!("gold failed{on_db}: {e}");
                return Err(Box::new(Verdict::gold_error(reason)));
            }
        };
        // A prediction with more rows than the gold is wrong whatever its rows are: stop
        // fetching there (cartesian products then cost nothing). Not so for rows compared as
        // sets, where duplicates do not count.
        let cap = match g.compare.as_sets {
            true => self.limits.max_rows,
            false => gold.rows.len().min(self.limits.max_rows),
        };
        let limits = Limits {
            max_rows: cap,
            max_steps: self
                .options
                .gold_relative_budget
                .map(|b| b.for_gold(gold.steps))
                .or(self.limits.max_steps),
            timeout,
            ..self.limits
        };
        // Nothing to run (BIRD: an empty or comment-only prediction) fetches no row.
        let nothing = || Arc::new(Ok(ResultTable::default()));
        let pred = match pred_sql.is_empty() {
            true => nothing(),
            false if g.compare.as_sets && self.options.stop_at_foreign_row => {
                let expected: HashSet<&[Value]> = gold.rows.iter().map(Vec::as_slice).collect();
                let admit = |row: &[Value]| expected.contains(row);
                executor.prediction_admitting(db, pred_sql, &limits, &admit)
            }
            false => executor.prediction(db, pred_sql, &limits),
        };
        *steps = Some(Steps {
            gold: gold.steps,
            prediction: match pred.as_ref() {
                Ok(t) => Some(t.steps),
                Err(QueryError::Budget { steps }) => Some(*steps),
                Err(_) => None,
            },
        });
        let pred = match pred.as_ref() {
            Ok(t) => t,
            Err(QueryError::TooManyRows { limit }) if *limit == cap && !g.compare.as_sets => {
                let reason = format!(
                    "row count differs{on_db}: gold has {cap}, prediction has more than {cap}"
                );
                let details = format!("{executed}{}", show_table("gold rows", gold));
                let rows = DifferingRows::stopped(db.label(), gold, cap);
                let verdict = Verdict::incorrect("row_count", reason, details).with_rows(rows);
                return Err(Box::new(verdict));
            }
            Err(QueryError::Refused { row }) => {
                let reason = format!(
                    "values differ{on_db}: the prediction returns {}, a row the gold does not \
                     (its other rows were not fetched)",
                    format_row(row)
                );
                let details = format!("{executed}{}", show_table("gold rows", gold));
                return Err(Box::new(Verdict::incorrect("rows_differ", reason, details)));
            }
            Err(e) => {
                let mut reason = format!("prediction failed{on_db}: {e}");
                if let (QueryError::Budget { .. }, Some(b)) = (e, self.options.gold_relative_budget)
                {
                    reason.push_str(&format!(
                        " ({} + {} × the gold's {} steps)",
                        b.floor, b.multiplier, gold.steps
                    ));
                }
                return Err(Box::new(Verdict::incorrect(e.code(), reason, executed)));
            }
        };
        let Err(diff) = compare(gold, pred, g.compare) else {
            return Ok(Agreement::Exact);
        };
        let mut details = executed.to_owned();
        // Tie-aware: only an ordered comparison of equally many rows and columns can be
        // widened (it never rejects what the official comparison accepts).
        if let (Some(order), Difference::Order | Difference::Rows { .. }) = (g.order, &diff) {
            let tol = g.compare.float_tolerance;
            match exec_order::admits(order, db, gold, pred, executor, &self.limits, tol) {
                Ok(Some(how)) => return Ok(Agreement::UpToTies(how)),
                Ok(None) => {}
                Err(why) => details.push_str(&format!("tie-aware comparison not applied: {why}\n")),
            }
        }
        let reason = format!("{diff}{on_db}");
        let rows = match &diff {
            Difference::Rows {
                only_gold,
                only_predicted,
            } if !(only_gold.is_empty() && only_predicted.is_empty()) => {
                details.push_str(&show_rows("only in gold", only_gold, &[]));
                details.push_str(&show_rows("only in prediction", only_predicted, &[]));
                DifferingRows::difference(db.label(), gold, only_gold, pred, only_predicted)
            }
            _ => {
                details.push_str(&show_table("gold rows", gold));
                details.push_str(&show_table("predicted rows", pred));
                DifferingRows::results(db.label(), gold, pred)
            }
        };
        let verdict = Verdict::incorrect(diff.code(), reason, details).with_rows(rows);
        Err(Box::new(verdict))
    }
}

/// The gold as one prediction is judged against it.
struct Gold<'a> {
    /// What runs.
    sql: &'a str,
    compare: CompareOptions,
    /// Tie-aware comparison (ordered golds only): how the gold orders its rows.
    order: Option<&'a OrderPlan>,
}

/// How a prediction agreed with the gold on one database.
enum Agreement {
    Exact,
    /// Only under the tie-aware comparison; how.
    UpToTies(&'static str),
    /// The gold failed there and `skip_gold_failures` leaves the database out; why.
    GoldFailed(String),
}

/// What running a prediction on an item's databases found.
enum Outcome {
    /// The same result on every database, but for those left out because the gold failed
    /// there (`skip_gold_failures`), with why; how, if only up to ties somewhere; and the
    /// steps both queries took (where the backend counts them).
    Agree(Vec<String>, Option<&'static str>, Option<Steps>),
    /// The position of the first database that tells them apart, and the verdict.
    Differs(usize, Verdict),
}

/// A correct verdict, noting the databases left out because the gold failed there, and
/// (`correct_ties`) if the rows matched only up to ties.
fn correct_skipping(
    skipped: Vec<String>,
    up_to_ties: Option<&'static str>,
    steps: Option<Steps>,
) -> Verdict {
    let mut verdict = match up_to_ties {
        None => Verdict::correct(),
        Some(how) => Verdict {
            code: "correct_ties".into(),
            reason: how.to_owned(),
            ..Verdict::correct()
        },
    };
    if !skipped.is_empty() {
        verdict.details = format!(
            "the gold failed on {} database(s), left out of the suite:\n  {}\n",
            skipped.len(),
            skipped.join("\n  ")
        );
    }
    verdict.with_steps(steps)
}

impl Metric for Exec {
    fn name(&self) -> &'static str {
        self.name
    }

    fn evaluate(
        &self,
        item: &Item,
        prediction: &str,
        databases: &[Database],
        executor: &Executor,
    ) -> Verdict {
        let planned = self.planned(&item.gold);
        let gold = &planned.plan;
        let g = Gold {
            sql: gold.sql.as_str(),
            compare: gold.compare,
            order: planned.order.as_ref(),
        };
        let flags = if self.options.tie_aware() {
            exec_order::gold_flags(g.sql, g.order, databases, executor, &self.limits)
        } else {
            Vec::new()
        };
        self.judge(item, prediction, &g, gold, databases, executor)
            .with_gold_flags(flags)
    }

    fn gold_queries(&self, gold: &str) -> Option<super::GoldQueries> {
        Some(super::GoldQueries {
            alternatives: vec![self.planned(gold).plan.sql.clone()],
            limits: self.limits,
        })
    }
}

impl Exec {
    /// [`Metric::evaluate`] once the gold is planned.
    fn judge(
        &self,
        item: &Item,
        prediction: &str,
        g: &Gold<'_>,
        gold: &GoldPlan,
        databases: &[Database],
        executor: &Executor,
    ) -> Verdict {
        let bird = self.options.compat == Some(ExecCompat::Bird);
        if python_strip(prediction).is_empty() && !bird {
            return Verdict::incorrect("empty", "empty prediction", "");
        }
        let pred = self.options.prediction_plan(prediction);
        if let Some(refusal) = pred.refused {
            return Verdict::incorrect(refusal.code, refusal.message, "");
        }
        let (gold_sql, pred_sql) = (g.sql, pred.sql.as_str());
        let mut executed = String::new();
        if pred_sql != prediction {
            executed = format!("prediction as executed: {pred_sql}\n");
        }
        if gold_sql != item.gold {
            executed.push_str(&format!("gold as executed: {gold_sql}\n"));
        }
        let (reached, as_written) = match self.first_difference(
            g,
            pred_sql,
            &executed,
            databases,
            executor,
            self.limits.timeout,
        ) {
            Outcome::Agree(skipped, ties, steps) => return correct_skipping(skipped, ties, steps),
            Outcome::Differs(at, verdict) => (at, verdict),
        };
        if !self.options.plug_value || as_written.status != Status::Incorrect {
            let told = Told {
                databases,
                at: reached,
                prediction: pred_sql,
                plugged: false,
            };
            return self.with_counterexample(as_written, g, told, executor);
        }
        // plug_value: also try every assignment of the gold's values to the prediction's value
        // slots (likeliest first, generated lazily); correct if any matches. At most
        // PLUG_VALUE_MAX_CANDIDATES of them, within PLUG_VALUE_TIME_MULTIPLE × timeout_ms in all.
        // The extraction of slots and values counts against the budget too.
        let started = Instant::now();
        let plug = pred.plugged(gold);
        let budget = self.limits.timeout.saturating_mul(PLUG_VALUE_TIME_MULTIPLE);
        let mut tried = 0usize;
        let mut stopped = None;
        // The candidate that matched on the most databases (the likeliest first among equals):
        // the database that stopped it is the one that told the queries apart.
        let mut furthest: Option<(usize, Verdict, String)> = None;
        for candidate in plug.candidates() {
            if tried == PLUG_VALUE_MAX_CANDIDATES {
                stopped = Some(format!(
                    "plug_value tries at most {} per item",
                    grouped(PLUG_VALUE_MAX_CANDIDATES as u128)
                ));
                break;
            }
            let left = budget.saturating_sub(started.elapsed());
            if left.is_zero() {
                stopped = Some(format!(
                    "plug_value's time for all candidates, {PLUG_VALUE_TIME_MULTIPLE} × \
                     timeout_ms = {} ms, ran out",
                    grouped(budget.as_millis())
                ));
                break;
            }
            tried += 1;
            // A candidate that is the prediction as it ran (its keywords in another case) ends
            // as it did: never run one query twice.
            if same_up_to_case(&candidate, pred_sql) {
                continue;
            }
            let note = format!("prediction with gold values: {candidate}\n");
            let timeout = left.min(self.limits.timeout);
            match self.first_difference(g, &candidate, &note, databases, executor, timeout) {
                Outcome::Agree(skipped, ties, steps) => {
                    return correct_skipping(skipped, ties, steps)
                }
                Outcome::Differs(_, v) if v.status == Status::GoldError => return v,
                Outcome::Differs(at, v) => {
                    if at > furthest.as_ref().map_or(reached, |f| f.0) {
                        furthest = Some((at, v, candidate));
                    }
                }
            }
        }
        let assignments = plug.count();
        let (summary, why) = match (&stopped, plug.unread()) {
            (None, Some(unread)) => (unread.to_owned(), String::new()),
            (None, None) => (
                format!(
                    "none of the {tried} assignments of the gold's {} values to the \
                     prediction's {} value slots matched",
                    plug.gold_values(),
                    plug.slots()
                ),
                String::new(),
            ),
            (Some(why), _) => (
                format!(
                    "none of the first {} of the {} assignments of the gold's {} values to the \
                     prediction's {} value slots matched",
                    grouped(tried as u128),
                    grouped(assignments),
                    plug.gold_values(),
                    plug.slots()
                ),
                format!("; {why}"),
            ),
        };
        let (verdict, told) = match &furthest {
            None => {
                let mut verdict = as_written;
                verdict
                    .reason
                    .push_str(&format!(" (plug_value: {summary} either{why})"));
                let told = Told {
                    databases,
                    at: reached,
                    prediction: pred_sql,
                    plugged: false,
                };
                (verdict, told)
            }
            Some((at, verdict, candidate)) => {
                let mut verdict = verdict.clone();
                verdict.reason = format!(
                    "{} with the gold's values plugged in (plug_value: {summary} on every \
                     database{why}; as written: {})",
                    verdict.reason, as_written.reason
                );
                let told = Told {
                    databases,
                    at: *at,
                    prediction: candidate,
                    plugged: true,
                };
                (verdict, told)
            }
        };
        self.with_counterexample(verdict, g, told, executor)
    }

    /// `verdict` with its minimal counterexample (`counterexamples = true`), for an incorrect
    /// verdict whose rows differ (`spec/counterexample.md`): the database that told the
    /// queries apart shrunk.
    fn with_counterexample(
        &self,
        mut verdict: Verdict,
        g: &Gold<'_>,
        told: Told<'_>,
        executor: &Executor,
    ) -> Verdict {
        let rows_differ = counterexample::ROWS_DIFFER.contains(&verdict.code.as_str());
        if !self.options.counterexamples || verdict.status != Status::Incorrect || !rows_differ {
            return verdict;
        }
        let Some(database) = told.databases.get(told.at) else {
            return verdict;
        };
        let question = Question {
            database,
            clock: executor.backend().clock(),
            gold: g.sql,
            prediction: told.prediction,
            plugged: told.plugged,
            compare: g.compare,
            order: g.order,
            limits: self.limits,
            relative: self.options.gold_relative_budget,
        };
        let key = (
            database.clone(),
            g.sql.to_owned(),
            told.prediction.to_owned(),
            told.plugged,
        );
        let found = self.found.get_or_init(
            &key,
            || key.clone(),
            || counterexample::find_in(&question, Budget::default(), &self.layouts),
        );
        verdict.counterexample = Some(Box::new(found));
        verdict
    }
}

/// Where the queries were told apart: the item's databases, the position of the one that told
/// them apart, and the prediction as it ran there (`plug_value`'s candidate, if `plugged`).
struct Told<'a> {
    databases: &'a [Database],
    at: usize,
    prediction: &'a str,
    plugged: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::sqlite::Sqlite;
    use crate::backend::QueryLimits;

    fn fixture() -> (tempfile::TempDir, Vec<Database>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sql");
        std::fs::write(
            &path,
            "CREATE TABLE s(name TEXT, age INT, value INT);
             INSERT INTO s VALUES ('a', 30, 1), ('b', 40, 2), ('b', 40, 2), ('c', 50, 3);",
        )
        .unwrap();
        (dir, vec![Database::file(path)])
    }

    fn judge(options: ExecOptions, gold: &str, pred: &str) -> Verdict {
        let (_dir, dbs) = fixture();
        let item = Item::new(0, "db", gold, "test");
        let ex = Executor::new(Box::new(Sqlite::default()), None);
        Exec::new(options).evaluate(&item, pred, &dbs, &ex)
    }

    /// BIRD's EX and the strict execution match BIRD's manifests hold beside it, on one pair.
    fn bird_ex_and_strict(gold: &str, pred: &str) -> (String, String) {
        let strict = ExecOptions {
            keep_distinct: true,
            replace_value_placeholder: false,
            repair_operators: false,
            ..ExecOptions::default()
        };
        let ex = super::super::ex::options(QueryLimits::default());
        (judge(ex, gold, pred).code, judge(strict, gold, pred).code)
    }

    #[test]
    fn stopping_at_a_foreign_row_keeps_every_verdict_and_fetches_no_further() {
        let ex = super::super::ex::options(QueryLimits::default());
        let stopping = ExecOptions {
            stop_at_foreign_row: true,
            ..ex.clone()
        };
        let gold = "SELECT name FROM s WHERE age > 35";
        // (prediction, why): both sides of the comparison, under sets.
        let cases = [
            ("SELECT name FROM s WHERE age >= 40", "the same set"),
            (
                "SELECT DISTINCT name FROM s WHERE age > 35",
                "duplicates do not count",
            ),
            (
                "SELECT name FROM s WHERE age > 45",
                "a row missing, none foreign",
            ),
            ("SELECT name FROM s", "a foreign row first"),
            (
                "SELECT name, age FROM s WHERE age > 35",
                "every row is of another width",
            ),
            ("SELECT name FROM s WHERE age > 99", "no row"),
            ("SELECT nope FROM s", "an error before any row"),
        ];
        for (pred, why) in cases {
            let (whole, stopped) = (
                judge(ex.clone(), gold, pred),
                judge(stopping.clone(), gold, pred),
            );
            assert_eq!(
                whole.status, stopped.status,
                "{why}: {whole:?} / {stopped:?}"
            );
            assert_eq!(whole.code, stopped.code, "{why}");
        }
        // A foreign row, then an error the whole run reaches: incorrect either way; stopped,
        // the error is never reached and the verdict names the row.
        let pred =
            "SELECT name FROM s WHERE age < 35 UNION ALL SELECT abs(-9223372036854775807 - 1)";
        let whole = judge(ex, gold, pred);
        assert_eq!(
            (whole.status, whole.code.as_str()),
            (Status::Incorrect, "sql_error")
        );
        let stopped = judge(stopping, gold, pred);
        assert_eq!(
            (stopped.status, stopped.code.as_str()),
            (Status::Incorrect, "rows_differ")
        );
        assert!(
            stopped.reason.contains("returns ('a',)"),
            "{}",
            stopped.reason
        );
    }

    #[test]
    fn a_counterexample_with_plug_value_is_for_the_prediction_the_verdict_reports() {
        let options = ExecOptions {
            plug_value: true,
            counterexamples: true,
            ..ExecOptions::default()
        };
        // Neither the prediction as written nor with the gold's 35 in its slot matches; on one
        // database no candidate gets further than the prediction as written, whose verdict
        // stands: the counterexample is for it (no `plugged`).
        let (gold, pred) = (
            "SELECT name FROM s WHERE age > 35",
            "SELECT name FROM s WHERE age < 45",
        );
        let v = judge(options.clone(), gold, pred);
        assert_eq!(v.status, Status::Incorrect, "{v:?}");
        assert!(v.reason.contains("plug_value"), "{}", v.reason);
        match v.counterexample.as_deref() {
            Some(crate::counterexample::Found::Shown(c)) => {
                assert!(c.plugged.is_none(), "{c:?}");
                // The row aged 30: the prediction's 'a', not the gold's.
                assert_eq!(c.rows, 1, "{}", c.render());
                assert!(c.minimal);
            }
            other => panic!("{other:?}"),
        }
        // Off: none.
        let off = ExecOptions {
            counterexamples: false,
            ..options
        };
        let v = judge(
            off,
            "SELECT name FROM s WHERE age > 35",
            "SELECT name FROM s WHERE age < 45",
        );
        assert!(v.counterexample.is_none());
    }

    #[test]
    fn bird_ex_compares_sets_where_the_strict_match_counts_duplicates_and_order() {
        let both = |g: &str, p: &str| bird_ex_and_strict(g, p);
        // A missing DISTINCT, a missing ORDER BY, duplicates: the same set.
        assert_eq!(
            both("SELECT DISTINCT name FROM s", "SELECT name FROM s"),
            ("correct".into(), "row_count".into())
        );
        assert_eq!(
            both("SELECT name FROM s ORDER BY age DESC", "SELECT name FROM s"),
            ("correct".into(), "order".into())
        );
        assert_eq!(
            both(
                "SELECT DISTINCT name FROM s ORDER BY age DESC",
                "SELECT DISTINCT name FROM s ORDER BY age"
            ),
            ("correct".into(), "order".into())
        );
        // Columns in another order are other tuples for BIRD; the strict match allows them.
        assert_eq!(
            both("SELECT name, age FROM s", "SELECT age, name FROM s"),
            ("rows_differ".into(), "correct".into())
        );
        // 1 == 1.0; `value` is no placeholder and DISTINCT stays.
        assert_eq!(
            both(
                "SELECT age FROM s WHERE value = 1",
                "SELECT age * 1.0 FROM s WHERE value = 1"
            ),
            ("correct".into(), "correct".into())
        );
        assert_eq!(
            both("SELECT count(*) FROM s", "SELECT count(*) FROM nowhere").0,
            "sql_error"
        );
        // One statement, as Python's sqlite3 runs it: a trailing `;` and comment are fine, a
        // second statement is an error, and nothing at all fetches no row (right where the
        // gold's answer is empty).
        let ex = |g: &str, p: &str| bird_ex_and_strict(g, p).0;
        assert_eq!(
            ex("SELECT name FROM s", "SELECT name FROM s; -- done"),
            "correct"
        );
        assert_eq!(
            ex("SELECT name FROM s", "SELECT name FROM s; SELECT 1"),
            "sql_error"
        );
        assert_eq!(
            ex("SELECT name FROM s", "SELECT name FROM s;;"),
            "sql_error"
        );
        assert_eq!(
            ex("SELECT name FROM s WHERE age > 99", " -- none"),
            "correct"
        );
        assert_eq!(ex("SELECT name FROM s WHERE age > 99", ""), "correct");
        assert_eq!(ex("SELECT name FROM s", ""), "rows_differ");
        assert_eq!(
            ex("SELECT name FROM s", "```sql\nSELECT name FROM s\n```"),
            "sql_error"
        );
    }

    fn official(gold: &str, pred: &str) -> Verdict {
        judge(
            ExecOptions {
                compat: Some(ExecCompat::TestSuiteSqlEval),
                ..ExecOptions::default()
            },
            gold,
            pred,
        )
    }

    #[test]
    fn tokenized_operators_are_repaired() {
        let v = official(
            "SELECT name FROM s WHERE age >= 40",
            "select name from s where age > = 40",
        );
        assert_eq!(v.status, Status::Correct, "{v:?}");
    }

    /// The classical evaluator's judgement (`datasets/classical.toml`).
    fn classical() -> ExecOptions {
        ExecOptions {
            keep_distinct: true,
            replace_value_placeholder: false,
            repair_operators: false,
            skip_gold_failures: true,
            gold_relative_budget: Some(RelativeBudget {
                floor: 100_000,
                multiplier: 3,
            }),
            ..ExecOptions::default()
        }
    }

    #[test]
    fn classical_runs_both_queries_verbatim() {
        let v = judge(
            classical(),
            "SELECT name FROM s WHERE age >= 40",
            "select name from s where age > = 40",
        );
        assert_eq!(v.code, "sql_error", "{v:?}");
        let v = judge(
            classical(),
            "SELECT DISTINCT name FROM s",
            "SELECT name FROM s",
        );
        assert_eq!(v.status, Status::Incorrect, "{v:?}");
        let v = judge(
            classical(),
            "SELECT name FROM s WHERE name = 'value'",
            "SELECT name FROM s WHERE name = 'value'",
        );
        assert_eq!(v.status, Status::Correct, "{v:?}");
    }

    #[test]
    fn databases_where_the_gold_fails_are_left_out_and_said() {
        let (dir, mut dbs) = fixture();
        let other = dir.path().join("other.sql");
        std::fs::write(&other, "CREATE TABLE t(x INT); INSERT INTO t VALUES (1);").unwrap();
        dbs.push(Database::file(&other));
        let item = Item::new(0, "db", "SELECT name FROM s WHERE age > 35", "test");
        let ex = Executor::new(Box::new(Sqlite::default()), None);
        let v =
            Exec::new(classical()).evaluate(&item, "SELECT name FROM s WHERE age >= 40", &dbs, &ex);
        assert_eq!(v.status, Status::Correct, "{v:?}");
        assert!(v
            .details
            .contains("the gold failed on 1 database(s), left out of the suite"));
        assert!(
            v.details.contains("other.sql: no such table: s"),
            "{}",
            v.details
        );
        let v =
            Exec::new(classical()).evaluate(&item, "SELECT name FROM s WHERE age > 45", &dbs, &ex);
        assert_eq!(v.status, Status::Incorrect, "{v:?}");
        // Without the option, and where the gold fails everywhere: gold errors.
        let v = Exec::new(ExecOptions::default()).evaluate(&item, &item.gold, &dbs, &ex);
        assert_eq!(v.status, Status::GoldError, "{v:?}");
        let nowhere = Item::new(0, "db", "SELECT nope FROM s", "test");
        let v = Exec::new(classical()).evaluate(&nowhere, "SELECT 1", &dbs, &ex);
        assert_eq!(v.status, Status::GoldError, "{v:?}");
        assert!(
            v.reason.starts_with("gold failed on every database (2)"),
            "{}",
            v.reason
        );
    }

    #[test]
    fn predictions_get_a_budget_relative_to_the_gold() {
        let gold = "SELECT count(*) FROM s";
        // Equivalent, but it does a million times the gold's work.
        let slow = "SELECT count(*) FROM s WHERE (WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL \
                    SELECT x + 1 FROM n WHERE x < 300000) SELECT count(*) FROM n) > 0";
        let v = judge(classical(), gold, slow);
        assert_eq!(v.code, "step_budget", "{v:?}");
        assert!(
            v.reason.contains("(100000 + 3 × the gold's"),
            "{}",
            v.reason
        );
        let generous = ExecOptions {
            gold_relative_budget: Some(RelativeBudget {
                floor: 1_000_000_000,
                multiplier: 3,
            }),
            ..classical()
        };
        assert_eq!(judge(generous, gold, slow).status, Status::Correct);
        assert_eq!(
            judge(classical(), gold, "SELECT count(name) FROM s").status,
            Status::Correct
        );
    }

    #[test]
    fn an_absolute_step_budget_stops_gold_and_prediction_alike() {
        let gold = "SELECT count(*) FROM s";
        let slow = "SELECT count(*) FROM s WHERE (WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL \
                    SELECT x + 1 FROM n WHERE x < 300000) SELECT count(*) FROM n) > 0";
        let budget = |max_steps| ExecOptions {
            limits: QueryLimits {
                max_steps,
                ..QueryLimits::default()
            },
            ..ExecOptions::default()
        };
        // Without a budget the slow prediction is right; with one it stops, on every run.
        assert_eq!(judge(budget(None), gold, slow).status, Status::Correct);
        let stopped = judge(budget(Some(100_000)), gold, slow);
        assert_eq!(stopped.code, "step_budget", "{stopped:?}");
        assert_eq!(judge(budget(Some(100_000)), gold, slow), stopped);
        // The gold runs under it too: a gold past the budget is the gold's error.
        let gold_past = judge(budget(Some(100_000)), slow, gold);
        assert_eq!(gold_past.status, Status::GoldError, "{gold_past:?}");
        assert_eq!(
            judge(budget(Some(100_000)), gold, "SELECT count(name) FROM s").status,
            Status::Correct
        );
    }

    #[test]
    fn verdicts_report_the_steps_of_gold_and_prediction() {
        let gold = "SELECT count(*) FROM s";
        let slow = "SELECT count(*) FROM s WHERE (WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL \
                    SELECT x + 1 FROM n WHERE x < 30000) SELECT count(*) FROM n) > 0";
        let options = || ExecOptions {
            gold_relative_budget: None,
            ..classical()
        };
        let fast = judge(options(), slow, slow).steps.expect("steps");
        assert!(fast.gold > 0, "{fast:?}");
        assert_eq!(
            fast.prediction,
            Some(fast.gold),
            "the same query, the same steps"
        );
        let again = judge(options(), slow, slow).steps;
        assert_eq!(again, Some(fast), "steps are deterministic");
        // A wrong answer still has both counts; a budget stop counts up to the budget.
        let never = slow.replace("> 0", "< 0");
        let wrong = judge(options(), gold, &never);
        assert_eq!(wrong.code, "rows_differ", "{wrong:?}");
        let alone = judge(options(), &never, &never).steps.map(|s| s.gold);
        assert_eq!(wrong.steps.and_then(|s| s.prediction), alone);
        assert!(
            alone.is_some_and(|n| n.abs_diff(fast.gold) < 100),
            "{alone:?}"
        );
        let stopped = judge(classical(), gold, slow);
        assert_eq!(stopped.code, "step_budget", "{stopped:?}");
        let steps = stopped.steps.expect("steps");
        assert!(steps.prediction.is_some_and(|p| p > 100_000), "{steps:?}");
        // Past the gold's row count the prediction stops early: its steps are not known.
        let rows = judge(
            options(),
            "SELECT name FROM s LIMIT 1",
            "SELECT name FROM s",
        );
        assert_eq!(rows.code, "row_count", "{rows:?}");
        assert_eq!(rows.steps.map(|s| s.prediction), Some(None));
        // A prediction that runs nothing reports none.
        assert_eq!(judge(options(), gold, "").steps, None);
    }

    #[test]
    fn distinct_is_removed_unless_kept() {
        let g = "SELECT DISTINCT name FROM s";
        let p = "SELECT name FROM s";
        assert_eq!(official(g, p).status, Status::Correct);
        let keep = ExecOptions {
            keep_distinct: true,
            ..ExecOptions::default()
        };
        let v = judge(keep, g, p);
        assert_eq!(v.code, "row_count", "{v:?}");
    }

    #[test]
    fn order_counts_only_with_order_by_in_the_gold() {
        let v = official(
            "SELECT age FROM s ORDER BY age",
            "SELECT age FROM s ORDER BY age DESC",
        );
        assert_eq!(v.code, "order", "{v:?}");
        let v = official("SELECT age FROM s", "SELECT age FROM s ORDER BY age DESC");
        assert_eq!(v.status, Status::Correct);
    }

    #[test]
    fn failures_carry_their_reason() {
        let v = official("SELECT name FROM s", "SELECT nam FROM s");
        assert_eq!(
            (v.status, v.code.as_str()),
            (Status::Incorrect, "sql_error")
        );
        assert!(v.reason.contains("no such column: nam"), "{v:?}");

        let v = official("SELECT name FROM s WHERE age > 45", "SELECT name FROM s");
        assert_eq!(v.code, "row_count");
        assert!(
            v.reason.contains("gold has 1, prediction has more than 1"),
            "{v:?}"
        );

        let v = official(
            "SELECT name FROM s WHERE age = 30",
            "SELECT name FROM s WHERE age = 50",
        );
        assert_eq!(v.code, "rows_differ");
        assert!(
            v.details.contains("only in gold (1 row):\n  ('a',)"),
            "{}",
            v.details
        );
        assert!(
            v.details.contains("only in prediction (1 row):\n  ('c',)"),
            "{}",
            v.details
        );

        assert_eq!(official("SELECT 1", "   ").code, "empty");
    }

    #[test]
    fn timeouts_fire_and_are_incorrect() {
        let fast = ExecOptions {
            limits: QueryLimits {
                timeout_ms: 200,
                ..QueryLimits::default()
            },
            ..ExecOptions::default()
        };
        let v = judge(
            fast,
            "SELECT count(*) FROM s",
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n) SELECT count(*) FROM n",
        );
        assert_eq!(v.code, "timeout", "{v:?}");
    }

    #[test]
    fn gold_failures_are_gold_errors() {
        let v = official("SELECT x FROM nowhere", "SELECT 1");
        assert_eq!(v.status, Status::GoldError);
        assert!(v.reason.contains("no such table: nowhere"), "{v:?}");
    }

    #[test]
    fn value_placeholder_is_replaced_in_predictions_only() {
        // As in the reference: `value` becomes `1`, even where it names a column.
        let v = official("SELECT 1 FROM s", "SELECT value FROM s");
        assert_eq!(v.status, Status::Correct, "{v:?}");
        let off = ExecOptions {
            replace_value_placeholder: false,
            ..ExecOptions::default()
        };
        let v = judge(off, "SELECT 1 FROM s", "SELECT value FROM s");
        assert_eq!(v.code, "rows_differ", "{v:?}");
        // The gold is never rewritten.
        let v = official("SELECT value FROM s", "SELECT value FROM s");
        assert_eq!(v.status, Status::Incorrect, "{v:?}");
    }

    #[test]
    fn plug_value_tries_the_gold_values_in_the_prediction_slots() {
        let gold = "SELECT name FROM s WHERE age = 40";
        let pred = "SELECT name FROM s WHERE age = 41";
        assert_eq!(official(gold, pred).code, "row_count");
        let plug = ExecOptions {
            plug_value: true,
            ..ExecOptions::default()
        };
        assert_eq!(judge(plug.clone(), gold, pred).status, Status::Correct);
        // A wrong column stays wrong whatever values are plugged in, and says so.
        let v = judge(plug, gold, "SELECT age FROM s WHERE age = 41");
        assert_eq!(v.status, Status::Incorrect, "{v:?}");
        assert!(
            v.reason.contains("none of the 1 assignments of the gold's 1 values to the prediction's 1 value slots"),
            "{v:?}"
        );
    }

    #[test]
    fn plug_value_stops_at_its_cap_of_candidates_and_says_so() {
        // 24 value slots and the gold's 2 values: 2^24 = 16,777,216 assignments, none of which
        // can match (the prediction selects another column).
        let gold = "SELECT name FROM s WHERE age = 40 OR age = 30";
        let slots: Vec<String> = (1..=24).map(|v| (100 + v).to_string()).collect();
        let pred = format!("SELECT age FROM s WHERE age IN ({})", slots.join(", "));
        let plug = ExecOptions {
            plug_value: true,
            ..ExecOptions::default()
        };
        let start = Instant::now();
        let v = judge(plug, gold, &pred);
        let took = start.elapsed();
        assert_eq!(v.status, Status::Incorrect, "{v:?}");
        assert!(
            v.reason.contains(
                "(plug_value: none of the first 1,000 of the 16,777,216 assignments of the \
                 gold's 2 values to the prediction's 24 value slots matched either; plug_value \
                 tries at most 1,000 per item)"
            ),
            "{}",
            v.reason
        );
        assert!(took < Duration::from_secs(30), "{took:?}");
        assert_eq!(grouped(16_777_216), "16,777,216");
        assert_eq!(
            (grouped(0), grouped(999), grouped(1000)),
            ("0".into(), "999".into(), "1,000".into())
        );
    }

    #[test]
    fn plug_value_candidates_share_a_time_budget() {
        // Every candidate is a 4^14-row cartesian product: each runs into the 200 ms timeout,
        // and all of them together get 3 × 200 ms.
        let gold = "SELECT count(*) FROM s WHERE age = 40 OR age = 30 OR name = 'x'";
        let pred = "SELECT count(*) FROM s a, s b, s c, s d, s e, s f, s g, s h, s i, s j, s k, \
                    s l, s m, s n WHERE a.age <> 41 AND b.age <> 42 AND c.age <> 43";
        let options = ExecOptions {
            plug_value: true,
            limits: QueryLimits {
                timeout_ms: 200,
                ..QueryLimits::default()
            },
            ..ExecOptions::default()
        };
        let start = Instant::now();
        let v = judge(options, gold, pred);
        let took = start.elapsed();
        assert_eq!(v.code, "timeout", "{v:?}");
        assert!(
            v.reason.contains("of the 27 assignments")
                && v.reason.contains(
                    "plug_value's time for all candidates, 3 × timeout_ms = 600 ms, ran out"
                ),
            "{}",
            v.reason
        );
        // The prediction as written (200 ms), then at most 600 ms of candidates; without the
        // budget, 27 × 200 ms.
        assert!(took < Duration::from_millis(2_500), "{took:?}");
    }

    #[test]
    fn on_a_suite_plug_value_names_the_database_that_tells_them_apart() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, ages: &str| {
            let path = dir.path().join(name);
            std::fs::write(
                &path,
                format!("CREATE TABLE s(name TEXT, age INT); INSERT INTO s VALUES {ages};"),
            )
            .unwrap();
            Database::file(path)
        };
        // As written the prediction differs on the first database already; with the gold's
        // value plugged in it matches there and differs only on the second.
        let dbs = vec![
            write("suite_0.sql", "('a', 30), ('b', 40)"),
            write("suite_1.sql", "('a', 30), ('b', 40), ('c', 50)"),
        ];
        let item = Item::new(0, "db", "SELECT name FROM s WHERE age = 40", "test");
        let ex = Executor::new(Box::new(Sqlite::default()), None);
        let plug = Exec::new(ExecOptions {
            plug_value: true,
            ..ExecOptions::default()
        });
        let v = plug.evaluate(&item, "SELECT name FROM s WHERE age >= 41", &dbs, &ex);
        assert_eq!(v.status, Status::Incorrect, "{v:?}");
        assert!(
            v.reason
                .starts_with("row count differs on suite_1.sql: gold has 1")
                && v.reason.contains("with the gold's values plugged in")
                && v.reason.contains(
                    "as written: row count differs: gold has 1, prediction has 0 on suite_0.sql"
                ),
            "{}",
            v.reason
        );
        assert!(
            v.details
                .contains("prediction with gold values: select name from s where age >= 40"),
            "{}",
            v.details
        );
        // Without plug_value the first database is the one.
        let plain = Exec::new(ExecOptions::default());
        let v = plain.evaluate(&item, "SELECT name FROM s WHERE age >= 41", &dbs, &ex);
        assert!(v.reason.contains("on suite_0.sql"), "{}", v.reason);
    }

    /// People ordered by age: b and c tie at 40, d and e at 50 (inserted in name order).
    fn tie_fixture() -> (tempfile::TempDir, Vec<Database>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.sql");
        std::fs::write(
            &path,
            "CREATE TABLE p(name TEXT, age INT);
             INSERT INTO p VALUES ('a', 30), ('b', 40), ('c', 40), ('d', 50), ('e', 50), ('f', 60);",
        )
        .unwrap();
        (dir, vec![Database::file(path)])
    }

    fn judge_ties(options: ExecOptions, gold: &str, pred: &str) -> Verdict {
        let (_dir, dbs) = tie_fixture();
        let item = Item::new(0, "db", gold, "test");
        let ex = Executor::new(Box::new(Sqlite::default()), None);
        Exec::new(options).evaluate(&item, pred, &dbs, &ex)
    }

    fn tie_aware(gold: &str, pred: &str) -> Verdict {
        judge_ties(ExecOptions::default(), gold, pred)
    }

    fn compat() -> ExecOptions {
        ExecOptions {
            compat: Some(ExecCompat::TestSuiteSqlEval),
            ..ExecOptions::default()
        }
    }

    #[test]
    fn tie_aware_order_accepts_another_order_of_tied_rows() {
        let gold = "SELECT name FROM p ORDER BY age";
        let pred = "SELECT name FROM p ORDER BY age, name DESC";
        let v = tie_aware(gold, pred);
        assert_eq!(
            (v.status, v.code.as_str()),
            (Status::Correct, "correct_ties"),
            "{v:?}"
        );
        assert!(v.reason.contains("tie-aware ORDER BY"), "{v:?}");
        assert_eq!(v.gold_flags, ["ties_in_order"]);
        // Official mode: the exact order, and no flags.
        let v = judge_ties(compat(), gold, pred);
        assert_eq!(v.code, "order", "{v:?}");
        assert!(v.gold_flags.is_empty());
        // Exactly the gold's order stays plain `correct`.
        assert_eq!(tie_aware(gold, gold).code, "correct");
    }

    #[test]
    fn tie_aware_order_accepts_any_choice_of_rows_tied_at_the_limit() {
        let gold = "SELECT name FROM p ORDER BY age LIMIT 2";
        let pred = "SELECT name FROM p ORDER BY age, name DESC LIMIT 2";
        assert_eq!(judge_ties(compat(), gold, pred).code, "rows_differ");
        let v = tie_aware(gold, pred);
        assert_eq!(v.code, "correct_ties", "{v:?}");
        assert_eq!(v.gold_flags, ["ties_at_limit"]);
        // Keys through an alias, columns permuted, the other tie (d or e) chosen.
        let gold = "SELECT name, age AS years FROM p ORDER BY years DESC LIMIT 2";
        let pred = "SELECT age, name FROM p ORDER BY age DESC, name DESC LIMIT 2";
        assert_eq!(tie_aware(gold, pred).code, "correct_ties");
        // A limit that cuts between groups is no tie at the limit (b and c, both taken, are
        // still tied in order); one that takes a single row of each group flags nothing.
        let v = tie_aware("SELECT name FROM p ORDER BY age LIMIT 3", "SELECT 1");
        assert_eq!(v.gold_flags, ["ties_in_order"]);
        let v = tie_aware("SELECT name FROM p ORDER BY age LIMIT 1", "SELECT 1");
        assert!(v.gold_flags.is_empty(), "{v:?}");
    }

    #[test]
    fn tie_aware_order_still_rejects_what_the_keys_decide() {
        let gold = "SELECT name FROM p ORDER BY age LIMIT 4";
        // Wrong order across distinct keys.
        let v = tie_aware(gold, "SELECT name FROM p ORDER BY age DESC LIMIT 4");
        assert_eq!(v.status, Status::Incorrect, "{v:?}");
        let v = tie_aware(
            "SELECT name FROM p ORDER BY age",
            "SELECT name FROM p ORDER BY age DESC",
        );
        assert_eq!(v.code, "order", "{v:?}");
        // A row that is not tied at the limit (f instead of d or e).
        let v = tie_aware(
            gold,
            "SELECT name FROM p WHERE name NOT IN ('d', 'e') ORDER BY age",
        );
        assert_eq!(v.code, "rows_differ", "{v:?}");
        // The wrong count.
        let v = tie_aware(gold, "SELECT name FROM p ORDER BY age LIMIT 3");
        assert_eq!(v.code, "row_count", "{v:?}");
    }

    #[test]
    fn tie_aware_order_falls_back_to_the_official_comparison_and_says_so() {
        let gold = "SELECT name FROM p ORDER BY age LIMIT 2 OFFSET 1";
        let v = tie_aware(
            gold,
            "SELECT name FROM p ORDER BY age, name DESC LIMIT 2 OFFSET 1",
        );
        assert_eq!(v.code, "order", "{v:?}");
        assert!(
            v.details
                .contains("tie-aware comparison not applied: a LIMIT that is not one integer"),
            "{}",
            v.details
        );
    }

    #[test]
    fn tie_aware_order_ignores_an_order_by_inside_a_subquery_and_flags_its_tie() {
        // The subquery's LIMIT 2 cuts the tie between d and e (both 50): the gold is flagged.
        let gold = "SELECT name FROM p WHERE age IN (SELECT age FROM p ORDER BY age DESC LIMIT 2)";
        let pred = "SELECT name FROM p WHERE age >= 50 ORDER BY name DESC";
        assert_eq!(judge_ties(compat(), gold, pred).code, "order");
        let v = tie_aware(gold, pred);
        assert_eq!(v.code, "correct_ties", "{v:?}");
        assert!(v.reason.contains("only inside a subquery"), "{v:?}");
        assert_eq!(v.gold_flags, ["ties_in_subquery"]);
        // Flags come with every verdict of the item, also a failing one.
        let v = tie_aware(gold, "SELECT nope");
        assert_eq!(
            (v.code.as_str(), v.gold_flags.as_slice()),
            ("sql_error", &["ties_in_subquery"][..])
        );
    }

    #[test]
    fn hostile_predictions_fail_without_effect() {
        let v = official("SELECT count(*) FROM s", "DROP TABLE s");
        assert_eq!(v.code, "sql_error", "{v:?}");
        assert!(v.reason.contains("not authorized"), "{v:?}");
    }

    #[test]
    fn a_suite_names_the_database_that_disagrees() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.sql");
        let b = dir.path().join("b.sql");
        std::fs::write(&a, "CREATE TABLE t(x INT); INSERT INTO t VALUES (1), (5);").unwrap();
        std::fs::write(&b, "CREATE TABLE t(x INT); INSERT INTO t VALUES (1), (2);").unwrap();
        let item = Item::new(0, "t", "SELECT x FROM t WHERE x < 3", "test");
        let ex = Executor::new(Box::new(Sqlite::default()), None);
        let dbs = [Database::file(&a), Database::file(&b)];
        let exec = Exec::new(ExecOptions::default());
        let v = exec.evaluate(&item, "SELECT x FROM t WHERE x = 1", &dbs, &ex);
        assert_eq!(v.code, "row_count");
        assert!(v.reason.ends_with("on b.sql"), "{v:?}");
        let v = exec.evaluate(&item, "SELECT x FROM t WHERE x <= 2", &dbs, &ex);
        assert_eq!(v.status, Status::Correct, "{v:?}");
    }
}
