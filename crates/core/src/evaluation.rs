//! An evaluation: a manifest's dataset, its metrics and an executor, and the verdict of every
//! (prediction set, item) pair, computed on first use and kept.
//!
//! Trials, snapshot checks, the CLI and the benchmark all read verdicts from here, so each
//! prediction is judged once per run however many reports look at it.

use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::backend::{Backend, Databases};
use crate::dataset::{Dataset, Item};
use crate::executor::Executor;
use crate::manifest::Manifest;
use crate::metric::{exact_match, Metric, Resources, Status, Verdict};
use crate::provenance::Provenance;
use crate::registry::{self, Composition};
use crate::work_pool;

pub use crate::registry::OpenError;

/// The longest prediction judged, in bytes: a longer one is `resource_limit` for every metric,
/// before any metric reads it. Reading a query the way the reference evaluators do costs about
/// 0.6 s per megabyte; the longest of the 14 Spider models' 14,476 predictions is 5,006 bytes.
pub const MAX_PREDICTION_BYTES: usize = 1_000_000;

/// Told as a run's (set, item) pairs start and finish ([`Evaluation::evaluate_watched`]).
pub trait Watch: Sync {
    /// The pair is about to be judged, on this thread.
    fn started(&self, _set: usize, _item: usize) {}
    /// The pair's result, and the wall time it took (zero: it was known already).
    fn finished(&self, set: usize, item: usize, result: &ItemResult, elapsed: Duration);
}

/// A progress callback as a [`Watch`].
struct Progress<'a>(&'a (dyn Fn() + Sync));

impl Watch for Progress<'_> {
    fn finished(&self, _: usize, _: usize, _: &ItemResult, _: Duration) {
        (self.0)()
    }
}

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

    pub fn verdict(&self, metric: &str) -> Option<&Verdict> {
        self.verdicts
            .iter()
            .find(|(m, _)| *m == metric)
            .map(|(_, v)| v)
    }
}

/// A dataset under evaluation.
#[derive(Debug)]
pub struct Evaluation {
    pub manifest: Manifest,
    pub dataset: Dataset,
    metrics: Vec<Box<dyn Metric>>,
    databases: Option<Databases>,
    executor: Executor,
    results: Vec<Vec<OnceLock<ItemResult>>>,
    provenance: OnceLock<Provenance>,
}

impl Evaluation {
    /// Loads a manifest and its dataset.
    pub fn open(manifest: impl AsRef<Path>) -> Result<Evaluation, OpenError> {
        Evaluation::new(Manifest::load(manifest)?)
    }

    /// The evaluation a manifest describes ([`registry::compose`]).
    pub fn new(manifest: Manifest) -> Result<Evaluation, OpenError> {
        let composition = registry::compose(&manifest)?;
        Evaluation::composed(manifest, composition)
    }

    /// The evaluation of a manifest with other metrics than it enables, made from its resources
    /// (for tools that compare variants of one metric: the benchmark, conformance runs).
    pub fn with_metrics(
        manifest: Manifest,
        metrics: impl FnOnce(&Resources) -> Result<Vec<Box<dyn Metric>>, String>,
    ) -> Result<Evaluation, OpenError> {
        let mut composition = registry::compose(&manifest)?;
        composition.metrics =
            metrics(&composition.resources).map_err(|message| OpenError::Metric {
                manifest: manifest.path.clone(),
                message,
            })?;
        Evaluation::composed(manifest, composition)
    }

    /// The evaluation of a composed manifest.
    pub fn composed(manifest: Manifest, composition: Composition) -> Result<Evaluation, OpenError> {
        let Composition {
            format,
            inputs,
            databases,
            metrics,
            resources,
        } = composition;
        let mut dataset = Dataset::load(format, &inputs, databases.as_ref().map(|d| &d.naming))?;
        if let Some(schemas) = &resources.schemas {
            // Items learn their gold's hardness here, for every metric's per-hardness report.
            for item in &mut dataset.items {
                item.hardness = exact_match::hardness(schemas, item);
            }
        }
        let backend: Box<dyn Backend> = match &databases {
            Some(d) => d.open().map_err(|message| OpenError::Backend {
                manifest: manifest.path.clone(),
                message,
            })?,
            None => Box::new(crate::backend::sqlite::Sqlite),
        };
        let executor = Executor::new(backend, manifest.cache.clone());
        let results = dataset
            .predictions
            .iter()
            .map(|_| dataset.items.iter().map(|_| OnceLock::new()).collect())
            .collect();
        Ok(Evaluation {
            manifest,
            dataset,
            metrics,
            databases,
            executor,
            results,
            provenance: OnceLock::new(),
        })
    }

    pub fn metrics(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.metrics.iter().map(|m| m.name())
    }

    /// The enabled metric named `name`.
    pub fn metric(&self, name: &str) -> Option<&dyn Metric> {
        self.metrics
            .iter()
            .find(|m| m.name() == name)
            .map(|m| m.as_ref())
    }

    pub fn items(&self) -> &[Item] {
        &self.dataset.items
    }

    /// The manifest's `[databases]`, as its backend configured them.
    pub fn databases(&self) -> Option<&Databases> {
        self.databases.as_ref()
    }

    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// What the verdicts depend on besides the code: versions, file hashes, metric options
    /// (computed on first call, so each file is hashed once per run).
    pub fn provenance(&self) -> &Provenance {
        self.provenance.get_or_init(|| {
            let metrics: Vec<&str> = self.metrics().collect();
            Provenance::compute(
                &self.manifest,
                &self.dataset,
                self.databases.as_ref(),
                self.executor.backend(),
                &metrics,
            )
        })
    }

    /// The prediction of set `set` for item `item`.
    pub fn prediction(&self, set: usize, item: usize) -> &str {
        &self.dataset.predictions[set].queries[item]
    }

    /// The verdicts for one prediction (computed on first call).
    pub fn result(&self, set: usize, item: usize) -> &ItemResult {
        // On a worker: the pool's stack is deep enough for SQLite's recursion.
        self.results[set][item].get_or_init(|| work_pool::run(|| self.judge(set, item)))
    }

    /// The result if it has been computed already.
    pub fn computed(&self, set: usize, item: usize) -> Option<&ItemResult> {
        self.results[set][item].get()
    }

    fn judge(&self, set: usize, index: usize) -> ItemResult {
        let item = &self.dataset.items[index];
        let prediction = self.prediction(set, index);
        if prediction.len() > MAX_PREDICTION_BYTES {
            let why = format!(
                "the prediction is {} bytes long; at most {MAX_PREDICTION_BYTES} are judged",
                prediction.len()
            );
            return self.incorrect_for_every_metric("resource_limit", &why);
        }
        let verdicts = self
            .metrics
            .iter()
            .map(|m| {
                let verdict = match &self.dataset.databases[index] {
                    Ok(dbs) => m.evaluate(item, prediction, dbs, &self.executor),
                    Err(reason) if m.needs_database() => {
                        Verdict::skipped("missing_database", reason.clone())
                    }
                    Err(_) => m.evaluate(item, prediction, &[], &self.executor),
                };
                (m.name(), verdict)
            })
            .collect();
        ItemResult { verdicts }
    }

    /// Computes every result of one prediction set, in parallel; `progress` is called after each.
    pub fn evaluate_set(&self, set: usize, progress: &(dyn Fn() + Sync)) -> Vec<&ItemResult> {
        work_pool::run(|| {
            (0..self.dataset.items.len())
                .into_par_iter()
                .map(|i| {
                    let r = self.result(set, i);
                    progress();
                    r
                })
                .collect()
        })
    }

    /// Computes every result of every set, in parallel.
    pub fn evaluate_all(&self, progress: &(dyn Fn() + Sync)) {
        let sets: Vec<usize> = (0..self.dataset.predictions.len()).collect();
        self.evaluate_sets(&sets, progress);
    }

    /// Computes every result of the given sets in one parallel pass over all their (set, item)
    /// pairs: no barrier between sets, so a slow prediction of one set does not leave a worker
    /// idle while another set waits.
    pub fn evaluate_sets(&self, sets: &[usize], progress: &(dyn Fn() + Sync)) {
        self.evaluate_watched(sets, &Progress(progress));
    }

    /// [`Evaluation::evaluate_sets`], telling `watch` as each pair starts and finishes (on the
    /// worker that judges it): a journal of verdicts written as they come, a supervisor that
    /// must know which queries were running when the process died.
    pub fn evaluate_watched(&self, sets: &[usize], watch: &dyn Watch) {
        let n = self.dataset.items.len();
        work_pool::run(|| {
            (0..sets.len() * n).into_par_iter().for_each(|k| {
                let (set, item) = (sets[k / n], k % n);
                if let Some(r) = self.computed(set, item) {
                    watch.finished(set, item, r, Duration::ZERO);
                    return;
                }
                watch.started(set, item);
                let start = Instant::now();
                let r = self.result(set, item);
                watch.finished(set, item, r, start.elapsed());
            })
        });
    }

    /// Records a result judged elsewhere (a prediction that aborted the process it ran in);
    /// `false` if the pair has a result already.
    pub fn record(&self, set: usize, item: usize, result: ItemResult) -> bool {
        self.results[set][item].set(result).is_ok()
    }

    /// The result of a prediction that was not run because it aborted the process that ran it
    /// (`crash`, incorrect for every metric), with `why`.
    pub fn crashed(&self, why: &str) -> ItemResult {
        self.incorrect_for_every_metric("crash", why)
    }

    /// The same incorrect verdict from every metric: the prediction was judged before any
    /// metric read it.
    fn incorrect_for_every_metric(&self, code: &str, why: &str) -> ItemResult {
        ItemResult {
            verdicts: self
                .metrics
                .iter()
                .map(|m| (m.name(), Verdict::incorrect(code, why, "")))
                .collect(),
        }
    }

    /// Trial-name index width: enough digits for the largest index.
    pub fn index_width(&self) -> usize {
        self.dataset
            .items
            .len()
            .saturating_sub(1)
            .to_string()
            .len()
            .max(1)
    }
}
