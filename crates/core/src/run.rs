//! A run: what an evaluation comes to, as plain data. The items, each evaluated prediction set's
//! predictions and verdicts, the corpus scores the metrics computed over them, and the
//! provenance. Reports, the trials' summaries, the command line and other programs read a
//! [`Run`]; nothing in it can run a query.

use std::path::PathBuf;

use crate::dataset::Item;
use crate::gold_check::GoldChecks;
use crate::manifest::Manifest;
use crate::metric::{Status, Verdict};
use crate::provenance::{Provenance, SetProvenance};

/// The verdicts of every enabled metric for one prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemResult {
    /// `(metric name, verdict)` in the manifest's metric order.
    pub verdicts: Vec<(&'static str, Verdict)>,
}

impl ItemResult {
    /// The overall status: incorrect if any metric judged the prediction incorrect, else a gold
    /// error if any metric had one, else correct if any metric judged it correct, else skipped
    /// (no metric could evaluate it).
    pub fn status(&self) -> Status {
        let has = |s: Status| self.verdicts.iter().any(|(_, v)| v.status == s);
        [Status::Incorrect, Status::GoldError, Status::Correct]
            .into_iter()
            .find(|&s| has(s))
            .unwrap_or(Status::Skipped)
    }

    /// The verdict of the metric named `metric`, if it is enabled.
    pub fn verdict(&self, metric: &str) -> Option<&Verdict> {
        self.verdicts
            .iter()
            .find(|(m, _)| *m == metric)
            .map(|(_, v)| v)
    }

    /// `exec=row_count exact_match=correct`: each metric's code.
    pub fn codes(&self) -> String {
        self.verdicts
            .iter()
            .map(|(m, v)| format!("{m}={}", v.code))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One judged prediction: the item, the prediction and its verdicts. What a trial, a failure
/// message or a JSON line shows of it.
#[derive(Debug, Clone, Copy)]
pub struct Judged<'a> {
    /// The gold item.
    pub item: &'a Item,
    /// The prediction, as the prediction file has it.
    pub prediction: &'a str,
    /// Its verdicts.
    pub result: &'a ItemResult,
}

/// A metric's corpus-level scores over a prediction set ([`Metric::corpus_scores`]), overall
/// and per category of the items.
///
/// [`Metric::corpus_scores`]: crate::metric::Metric::corpus_scores
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CorpusScores {
    /// The metric.
    pub metric: &'static str,
    /// Over every scored item.
    pub overall: Vec<(String, f64)>,
    /// Per category, for datasets with categories (only where `overall` is not empty).
    pub by_category: Vec<(String, Vec<(String, f64)>)>,
}

/// One evaluated prediction set.
#[derive(Debug, Clone, PartialEq)]
pub struct SetRun {
    /// Its position among the manifest's prediction sets.
    pub index: usize,
    /// Its name (`dev_1`).
    pub name: String,
    /// The prediction file.
    pub file: PathBuf,
    /// One prediction per item (the SQL judged).
    pub predictions: Vec<String>,
    /// Per item, what the set's extraction rule took out of the answer, and from where.
    pub extracted: Vec<Option<crate::dataset::extract::Extracted>>,
    /// One result per item.
    pub results: Vec<ItemResult>,
    /// Per metric that computes corpus scores.
    pub corpus: Vec<CorpusScores>,
}

impl SetRun {
    /// Item `i`'s prediction, with its item and verdicts.
    pub fn judged<'a>(&'a self, items: &'a [Item], i: usize) -> Judged<'a> {
        Judged {
            item: &items[i],
            prediction: &self.predictions[i],
            result: &self.results[i],
        }
    }

    /// The corpus scores of `metric` (none for most metrics).
    pub fn corpus(&self, metric: &str) -> Option<&CorpusScores> {
        self.corpus.iter().find(|c| c.metric == metric)
    }
}

/// The outcome of an evaluation: every report's input.
#[derive(Debug, Clone)]
pub struct Run {
    /// The manifest evaluated (its gate, snapshot directory and report settings).
    pub manifest: Manifest,
    /// The dataset's name.
    pub dataset: String,
    /// The gold items.
    pub items: Vec<Item>,
    /// The enabled metrics, in the manifest's order.
    pub metrics: Vec<&'static str>,
    /// The evaluated prediction sets, in the order asked for.
    pub sets: Vec<SetRun>,
    /// What the verdicts depend on besides the code.
    pub provenance: Provenance,
    /// What the gold checks found (the same for every set).
    pub gold_checks: GoldChecks,
}

impl Run {
    /// The evaluated set named `name`.
    pub fn set(&self, name: &str) -> Option<&SetRun> {
        self.sets.iter().find(|s| s.name == name)
    }

    /// A set's provenance (its prediction file among the shared inputs).
    pub fn provenance_of(&self, set: &SetRun) -> SetProvenance<'_> {
        self.provenance.of_set(set.index)
    }

    /// Item `i` of `set`, judged.
    pub fn judged<'a>(&'a self, set: &'a SetRun, i: usize) -> Judged<'a> {
        set.judged(&self.items, i)
    }

    /// Trial-name index width: enough digits for the largest index.
    pub fn index_width(&self) -> usize {
        index_width(self.items.len())
    }
}

/// Enough digits for the largest index of `items` items (at least one).
pub fn index_width(items: usize) -> usize {
    items.saturating_sub(1).to_string().len().max(1)
}
