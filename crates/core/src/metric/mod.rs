//! Metrics judge one prediction against one gold item and return a [`Verdict`] with a reason.
//!
//! A metric gets the item, the prediction, the item's databases and an [`Executor`] to run
//! queries through (with caching); the comparison itself is a pure function (see
//! [`crate::denotation`]). A new metric is one module here that defines its [`MetricEntry`]
//! (`pub const ENTRY`), and one line in [`crate::registry::METRICS`].

mod bird_pair;
pub mod bleu;
pub mod differing;
pub mod ex;
pub mod exact_match;
pub mod exec;
#[cfg(feature = "pcm")]
pub mod pcm;
pub mod r_ves;
pub mod soft_f1;
pub mod sqleval;
pub mod text_match;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::backend::{Database, Limits};
use crate::config::{ManifestError, Section};
use crate::dataset::Item;

use crate::executor::Executor;
use sqlsuite_reference::spider_sql::Schema;

/// The outcome class of a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The prediction is right.
    Correct,
    /// The prediction is wrong (or could not be run: an error, a limit).
    Incorrect,
    /// The gold itself could not be evaluated: the item says nothing about the prediction.
    GoldError,
    /// The item was not evaluated (e.g. its database is missing).
    Skipped,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Correct => "correct",
            Status::Incorrect => "incorrect",
            Status::GoldError => "gold_error",
            Status::Skipped => "skipped",
        })
    }
}

/// A metric's judgement of one prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The outcome class.
    pub status: Status,
    /// Stable reason code: `correct`, `row_count`, `sql_error`, `timeout`, `missing_database`, …
    pub code: String,
    /// One line saying why.
    pub reason: String,
    /// More lines worth showing (the differing rows, the database that told them apart).
    pub details: String,
    /// Per-component scores, for metrics that compare query components (exact set match's
    /// partial scores); empty otherwise.
    pub components: Vec<ComponentScore>,
    /// Graded scores for metrics that have them (`pcm_f1`, …), averaged over scored items in
    /// the summary; empty otherwise. (Boxed: a verdict is an error type and stays small.)
    pub scores: Box<[(&'static str, f64)]>,
    /// What the metric found wrong with the gold itself (gold quality), e.g. exec's
    /// `ties_at_limit`: its answer depends on how ties are broken. The same for every
    /// prediction of the item; empty for most golds and metrics.
    pub gold_flags: Vec<&'static str>,
    /// The work the gold and the prediction did, where the backend counts it (SQLite:
    /// virtual-machine steps, in blocks): see [`Steps`]. `None` for metrics that run no query,
    /// and for backends that count nothing.
    pub steps: Option<Steps>,
    /// The exec metric's minimal counterexample for an incorrect verdict whose rows differ,
    /// where asked for (`counterexamples = true`), or why none is shown.
    pub counterexample: Option<Box<crate::counterexample::Found>>,
    /// For an incorrect exec verdict whose rows differ, those rows on the database that told
    /// the queries apart, bounded ([`differing::DifferingRows`]).
    pub rows: Option<Box<differing::DifferingRows>>,
}

/// Steps of the gold and of the prediction, summed over the databases the prediction ran on
/// (a suite's, up to the first that told the queries apart). Deterministic: the same queries
/// on the same databases take the same steps on any machine (`spec/exec.md` §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Steps {
    /// The gold's steps.
    pub gold: u64,
    /// `None` where a prediction stopped before its steps were known: at the time limit (wall
    /// time is not deterministic) or at the gold's row count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prediction: Option<u64>,
}

/// One component's partial score for one prediction (the official evaluator's `partial_scores`
/// entry): accuracy and recall of the predicted units against the gold's, and their counts.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentScore {
    /// The component (`select`, `where`, …).
    pub component: &'static str,
    /// Accuracy: matched units / predicted units.
    pub acc: f64,
    /// Recall: matched units / gold units.
    pub rec: f64,
    /// Their harmonic mean.
    pub f1: f64,
    /// Units in the gold.
    pub label_total: usize,
    /// Units in the prediction.
    pub pred_total: usize,
}

impl Verdict {
    /// Correct.
    pub fn correct() -> Verdict {
        Verdict {
            status: Status::Correct,
            code: "correct".into(),
            reason: String::new(),
            details: String::new(),
            components: Vec::new(),
            scores: Box::new([]),
            gold_flags: Vec::new(),
            steps: None,
            counterexample: None,
            rows: None,
        }
    }

    /// Incorrect, with a stable code, a one-line reason and more lines worth showing.
    pub fn incorrect(code: &str, reason: impl Into<String>, details: impl Into<String>) -> Verdict {
        Verdict {
            status: Status::Incorrect,
            code: code.into(),
            reason: reason.into(),
            details: details.into(),
            components: Vec::new(),
            scores: Box::new([]),
            gold_flags: Vec::new(),
            steps: None,
            counterexample: None,
            rows: None,
        }
    }

    /// The gold could not be evaluated, and why.
    pub fn gold_error(reason: impl Into<String>) -> Verdict {
        Verdict {
            status: Status::GoldError,
            code: "gold_error".into(),
            reason: reason.into(),
            details: String::new(),
            components: Vec::new(),
            scores: Box::new([]),
            gold_flags: Vec::new(),
            steps: None,
            counterexample: None,
            rows: None,
        }
    }

    /// Not evaluated, with a code and why.
    pub fn skipped(code: &str, reason: impl Into<String>) -> Verdict {
        Verdict {
            status: Status::Skipped,
            code: code.into(),
            reason: reason.into(),
            details: String::new(),
            components: Vec::new(),
            scores: Box::new([]),
            gold_flags: Vec::new(),
            steps: None,
            counterexample: None,
            rows: None,
        }
    }

    /// The same verdict with component scores attached.
    pub fn with_components(mut self, components: Vec<ComponentScore>) -> Verdict {
        self.components = components;
        self
    }

    /// The same verdict with gold-quality flags attached.
    pub fn with_gold_flags(mut self, flags: Vec<&'static str>) -> Verdict {
        self.gold_flags = flags;
        self
    }

    /// The same verdict with the queries' steps attached.
    pub fn with_steps(mut self, steps: Option<Steps>) -> Verdict {
        self.steps = steps;
        self
    }

    /// The same verdict with the rows that told gold and prediction apart attached.
    pub fn with_rows(mut self, rows: differing::DifferingRows) -> Verdict {
        self.rows = Some(Box::new(rows));
        self
    }

    /// The same verdict with graded scores attached.
    pub fn with_scores(mut self, scores: Vec<(&'static str, f64)>) -> Verdict {
        self.scores = scores.into_boxed_slice();
        self
    }
}

/// A way of judging predictions.
pub trait Metric: Send + Sync + fmt::Debug {
    /// The name manifests, reports and gates use (`exec`).
    fn name(&self) -> &'static str;

    /// Whether the metric runs queries. Items whose database is missing are skipped by such
    /// metrics and still judged by the others (`databases` is then empty).
    fn needs_database(&self) -> bool {
        true
    }

    /// Judges `prediction` for `item` on `databases` (one, or a test suite).
    fn evaluate(
        &self,
        item: &Item,
        prediction: &str,
        databases: &[Database],
        executor: &Executor,
    ) -> Verdict;

    /// Scores of a whole corpus that are not means of per-item scores (corpus BLEU), over the
    /// scored `(item, prediction)` pairs of a prediction set or of a group of its items; a
    /// score named like the metric is what the gate's `min_accuracy` checks, on a 0–1 scale.
    /// Empty for most metrics.
    fn corpus_scores(&self, _pairs: &[(&Item, &str)]) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    /// The gold's queries as this metric runs them, and their limits: what the gold checks
    /// ([`crate::gold_check`]) run, so that the executor's gold cache answers them. `None` for
    /// a metric that runs no query.
    fn gold_queries(&self, _gold: &str) -> Option<GoldQueries> {
        None
    }
}

/// A gold as a metric runs it ([`Metric::gold_queries`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GoldQueries {
    /// The queries, in the order the metric tries them (one for most metrics; SQL-Eval's
    /// `{a,b}` alternatives expanded).
    pub alternatives: Vec<String>,
    /// The limits they run under.
    pub limits: Limits,
}

/// The query limits of a metric's table when the metric has no options of its own
/// (`[metrics.ex]`, `[metrics.soft_f1]`, `[metrics.r_ves]`): any other key is an error, located.
pub(crate) fn limits_only(
    section: &Section<'_>,
) -> Result<crate::backend::QueryLimits, ManifestError> {
    /// No options.
    #[derive(serde::Deserialize)]
    struct Nothing {}
    let (Nothing {}, limits) = section.read_with()?;
    Ok(limits)
}

/// Whether a verdict code (as a snapshot records it) means correct: `correct`, or a kind of
/// correct such as SQL-Eval's `correct_subset`.
pub fn is_correct_code(code: &str) -> bool {
    code == "correct" || code.starts_with("correct_")
}

/// Codes of verdicts that mean "not evaluated" rather than a judgement.
pub const SKIP_CODES: [&str; 1] = ["missing_database"];

/// What metrics may need beyond their options.
#[derive(Debug, Clone, Default)]
pub struct Resources {
    /// Schemas by db_id, from the manifest's `tables`.
    pub schemas: Option<Arc<HashMap<String, Schema>>>,
}

/// Builds a metric from its manifest table and the dataset's resources.
pub type BuildMetric = fn(&Section<'_>, &Resources) -> Result<Box<dyn Metric>, ManifestError>;

/// What the composition root ([`crate::registry`]) knows of a metric. Each metric module
/// defines one as `pub const ENTRY`.
#[derive(Clone, Copy)]
pub struct MetricEntry {
    /// The name of its manifest table (`[metrics.exec]`), its reports and gate thresholds; the
    /// metric it builds reports the same [`Metric::name`].
    pub name: &'static str,
    /// Whether it runs queries (and so needs `[databases]`); the metric it builds says the same
    /// through [`Metric::needs_database`].
    pub runs_queries: bool,
    /// Builds the metric from its table (absent when the metric is enabled by default) and the
    /// dataset's resources. Errors are located in the manifest.
    pub build: BuildMetric,
}

/// A way of grouping items for per-group reports, contributed by the module that can compute it
/// (Spider's hardness comes from exact match's parser) and listed in
/// [`crate::registry::GROUPINGS`]; evaluation labels every item with it ([`Item::groups`]).
#[derive(Clone, Copy)]
pub struct GroupingEntry {
    /// The grouping's name (`hardness`), the key in [`Item::groups`].
    pub name: &'static str,
    /// Its groups in the order reports show them.
    pub order: &'static [&'static str],
    /// The item's group, where the dataset's resources allow one (a schema to parse its gold).
    pub label: fn(&Item, &Resources) -> Option<String>,
}

impl fmt::Debug for GroupingEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GroupingEntry")
            .field("name", &self.name)
            .finish()
    }
}

impl fmt::Debug for MetricEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MetricEntry")
            .field("name", &self.name)
            .field("runs_queries", &self.runs_queries)
            .finish()
    }
}
