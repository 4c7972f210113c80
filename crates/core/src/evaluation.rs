//! An evaluation: a manifest's dataset, its metrics and an executor, and the verdict of every
//! (prediction set, item) pair, computed on first use and kept.
//!
//! The stage that runs SQL. What it comes to is a [`Run`], plain data that reports read; the
//! trials judge one item at a time ([`Evaluation::judge`]) so that a process running one trial
//! (cargo-nextest) judges only its item. Each prediction is judged once per evaluation however
//! many reports look at it.

pub mod in_order;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::backend::Databases;
use crate::clock::{reads_clock, Clock, Moment};
use crate::dataset::{Dataset, Item};
use crate::executor::Executor;
use crate::gold_check::{self, GoldChecks, GoldContext};
use crate::manifest::Manifest;
use crate::metric::{Metric, Resources, Status, Verdict};
use crate::provenance::Provenance;
use crate::registry::{self, Composition};
use crate::run::{CorpusScores, ItemResult, Judged, Run, SetRun};
use crate::work_pool;

pub use crate::registry::OpenError;

/// The longest prediction judged, in bytes: a longer one is `resource_limit` for every metric,
/// before any metric reads it. Reading a query the way the reference evaluators do costs about
/// 0.6 s per megabyte; the longest of the 14 Spider models' 14,476 predictions is 5,006 bytes.
pub const MAX_PREDICTION_BYTES: usize = 1_000_000;

/// The gold flag of an item whose gold reads the clock (`'now'`, `CURRENT_DATE`, …).
pub const READS_CLOCK: &str = "reads_clock";

/// Told as a run's (set, item) pairs start and finish ([`Evaluation::run_watched`]).
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

/// A dataset under evaluation.
#[derive(Debug)]
pub struct Evaluation {
    /// The manifest it was opened from.
    pub manifest: Manifest,
    /// The items, the prediction sets and where each item's databases are.
    pub dataset: Dataset,
    metrics: Vec<Box<dyn Metric>>,
    databases: Option<Databases>,
    executor: Arc<Executor>,
    results: Vec<Vec<OnceLock<ItemResult>>>,
    provenance: OnceLock<Provenance>,
    gold_checks: OnceLock<GoldChecks>,
    /// Per item: whether its gold reads the clock (its verdicts from metrics that run queries
    /// carry the gold flag `reads_clock`).
    gold_reads_clock: Vec<bool>,
    /// The machine's clock when the evaluation was made (provenance records it when the
    /// manifest's clock is not pinned).
    started: Moment,
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

    /// The same manifest under other metrics, sharing this evaluation's executor: a query
    /// both run (a gold, a prediction as written) runs once for the two (for comparing variants
    /// of one metric over the same predictions, as the conformance runs do).
    pub fn sharing_executor(
        &self,
        metrics: impl FnOnce(&Resources) -> Result<Vec<Box<dyn Metric>>, String>,
    ) -> Result<Evaluation, OpenError> {
        let mut other = Evaluation::with_metrics(self.manifest.clone(), metrics)?;
        other.executor = Arc::clone(&self.executor);
        Ok(other)
    }

    /// The evaluation of a composed manifest.
    pub fn composed(manifest: Manifest, composition: Composition) -> Result<Evaluation, OpenError> {
        let Composition {
            format,
            inputs,
            backend,
            databases,
            metrics,
            resources,
            groupings,
        } = composition;
        let mut dataset = Dataset::load(format, &inputs, databases.as_ref().map(|d| &d.naming))?;
        // Items learn their groups (Spider's hardness, …) from the registry's groupings.
        for grouping in &groupings {
            for item in &mut dataset.items {
                if let Some(label) = (grouping.label)(item, &resources) {
                    item.groups.push((grouping.name, label));
                }
            }
        }
        let backend = backend
            .open(databases.as_ref())
            .map_err(|message| OpenError::Backend {
                manifest: manifest.path.clone(),
                message,
            })?;
        let executor = Arc::new(Executor::new(backend, manifest.cache.clone()));
        let gold_reads_clock = dataset.items.iter().map(|i| reads_clock(&i.gold)).collect();
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
            gold_checks: OnceLock::new(),
            gold_reads_clock,
            started: Moment::now(),
        })
    }

    /// The enabled metrics' names, in the manifest's order.
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

    /// The gold items.
    pub fn items(&self) -> &[Item] {
        &self.dataset.items
    }

    /// The manifest's `[databases]`, as its backend configured them.
    pub fn databases(&self) -> Option<&Databases> {
        self.databases.as_ref()
    }

    /// The executor queries run through (its caches shared by every metric).
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
                self.started,
            )
        })
    }

    /// What the gold checks ([`registry::GOLD_CHECKS`]) find (computed on first call; the
    /// checks that run the gold run it as the first metric that runs queries does, through the
    /// shared executor).
    pub fn gold_checks(&self) -> &GoldChecks {
        self.gold_checks.get_or_init(|| {
            let queries: Vec<_> = self
                .dataset
                .items
                .iter()
                .map(|item| self.metrics.iter().find_map(|m| m.gold_queries(&item.gold)))
                .collect();
            let context = GoldContext {
                items: &self.dataset.items,
                databases: &self.dataset.databases,
                queries: &queries,
                executor: &self.executor,
            };
            gold_check::run(registry::GOLD_CHECKS, &context)
        })
    }

    /// The prediction of set `set` for item `item`.
    pub fn prediction(&self, set: usize, item: usize) -> &str {
        &self.dataset.predictions[set].queries[item]
    }

    /// The position of the prediction set named `name`.
    pub fn set_named(&self, name: &str) -> Option<usize> {
        self.dataset.predictions.iter().position(|p| p.name == name)
    }

    /// The verdicts for one prediction (judged on first call, then kept).
    pub fn judge(&self, set: usize, item: usize) -> &ItemResult {
        // On a worker: the pool's stack is deep enough for SQLite's recursion.
        self.results[set][item].get_or_init(|| work_pool::run(|| self.verdicts(set, item)))
    }

    /// Item `item` of set `set` judged: the item, the prediction and its verdicts.
    pub fn judged(&self, set: usize, item: usize) -> Judged<'_> {
        Judged {
            item: &self.dataset.items[item],
            prediction: self.prediction(set, item),
            result: self.judge(set, item),
        }
    }

    /// The result if it has been computed already.
    pub fn computed(&self, set: usize, item: usize) -> Option<&ItemResult> {
        self.results[set][item].get()
    }

    /// Whether every item of set `set` has been judged.
    pub fn is_judged(&self, set: usize) -> bool {
        self.results[set].iter().all(|r| r.get().is_some())
    }

    /// Every metric's verdict on one prediction.
    fn verdicts(&self, set: usize, index: usize) -> ItemResult {
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
                (m.name(), self.flag_clock(index, m.as_ref(), verdict))
            })
            .collect();
        ItemResult { verdicts }
    }

    /// A warning when golds of this dataset read the clock and the clock is the machine's
    /// (`[dataset] clock = "system"`, or no key): their verdicts depend on the day the run is
    /// made. `None` when the clock is pinned, no gold reads it, or no metric runs queries.
    pub fn unpinned_clock_warning(&self) -> Option<String> {
        let reading = self.gold_reads_clock.iter().filter(|&&r| r).count();
        let runs_queries = self.metrics.iter().any(|m| m.needs_database());
        (reading > 0 && runs_queries && self.executor.backend().clock() == Clock::System).then(
            || {
                format!(
                    "dataset {}: {reading} gold{} read the clock, which is the machine's \
                 (clock = \"system\"): their verdicts depend on the day; pin it with \
                 [dataset] clock (spec/manifest.md, \"The clock\")",
                    self.manifest.name,
                    if reading == 1 { "" } else { "s" },
                )
            },
        )
    }

    /// `verdict`, with the gold flag `reads_clock` if item `index`'s gold reads the clock and
    /// `metric` runs queries (its verdict may depend on the moment: spec/manifest.md).
    fn flag_clock(&self, index: usize, metric: &dyn Metric, mut verdict: Verdict) -> Verdict {
        if self.gold_reads_clock[index]
            && metric.needs_database()
            && verdict.status != Status::Skipped
            && !verdict.gold_flags.contains(&READS_CLOCK)
        {
            verdict.gold_flags.push(READS_CLOCK);
        }
        verdict
    }

    /// The run of the given prediction sets: each pair not judged yet is judged, in parallel.
    pub fn run(&self, sets: &[usize]) -> Run {
        self.run_watched(sets, &Progress(&|| {}))
    }

    /// The run of every prediction set.
    pub fn run_all(&self) -> Run {
        let sets: Vec<usize> = (0..self.dataset.predictions.len()).collect();
        self.run(&sets)
    }

    /// [`Evaluation::run`], calling `progress` after each pair.
    pub fn run_with_progress(&self, sets: &[usize], progress: &(dyn Fn() + Sync)) -> Run {
        self.run_watched(sets, &Progress(progress))
    }

    /// [`Evaluation::run`], telling `watch` as each pair starts and finishes.
    pub fn run_watched(&self, sets: &[usize], watch: &dyn Watch) -> Run {
        self.judge_watched(sets, watch);
        Run {
            manifest: self.manifest.clone(),
            dataset: self.dataset.name.clone(),
            items: self.dataset.items.clone(),
            metrics: self.metrics().collect(),
            sets: sets.iter().map(|&set| self.set_run(set)).collect(),
            provenance: self.provenance().clone(),
            gold_checks: self.gold_checks().clone(),
        }
    }

    /// Set `set`'s judged results as plain data, with the metrics' corpus scores.
    fn set_run(&self, set: usize) -> SetRun {
        let predictions = &self.dataset.predictions[set];
        let results: Vec<ItemResult> = (0..self.dataset.items.len())
            .map(|i| self.judge(set, i).clone())
            .collect();
        let corpus = self
            .metrics
            .iter()
            .filter_map(|m| self.corpus_scores(m.as_ref(), &predictions.queries, &results))
            .collect();
        SetRun {
            index: set,
            name: predictions.name.clone(),
            file: predictions.file.clone(),
            predictions: predictions.queries.clone(),
            extracted: predictions.extracted.clone(),
            results,
            corpus,
        }
    }

    /// `metric`'s corpus scores over the scored (item, prediction) pairs, overall and per
    /// category; `None` for a metric that has none.
    fn corpus_scores(
        &self,
        metric: &dyn Metric,
        predictions: &[String],
        results: &[ItemResult],
    ) -> Option<CorpusScores> {
        let mut scored = Vec::new();
        let mut by_category: BTreeMap<&str, Vec<(&Item, &str)>> = BTreeMap::new();
        for ((item, prediction), result) in self.dataset.items.iter().zip(predictions).zip(results)
        {
            let Some(v) = result.verdict(metric.name()) else {
                continue;
            };
            if matches!(v.status, Status::Correct | Status::Incorrect) {
                let pair = (item, prediction.as_str());
                scored.push(pair);
                if let Some(c) = &item.category {
                    by_category.entry(c).or_default().push(pair);
                }
            }
        }
        let owned = |scores: Vec<(&str, f64)>| -> Vec<(String, f64)> {
            scores.into_iter().map(|(n, v)| (n.to_owned(), v)).collect()
        };
        let overall = owned(metric.corpus_scores(&scored));
        if overall.is_empty() {
            return None;
        }
        Some(CorpusScores {
            metric: metric.name(),
            overall,
            by_category: by_category
                .into_iter()
                .map(|(c, pairs)| (c.to_owned(), owned(metric.corpus_scores(&pairs))))
                .collect(),
        })
    }

    /// Judges every pair of the given sets in one parallel pass (no barrier between sets, so a
    /// slow prediction of one set does not leave a worker idle while another set waits),
    /// telling `watch` as each pair starts and finishes (on the worker that judges it): a
    /// journal of verdicts written as they come, a supervisor that must know which queries were
    /// running when the process died, lines streamed in order ([`in_order`]). Each worker takes
    /// the next pair in order (sets in the order asked for, items in order), so pairs finish
    /// roughly in that order and an in-order stream flows from the start.
    fn judge_watched(&self, sets: &[usize], watch: &dyn Watch) {
        let n = self.dataset.items.len();
        let total = sets.len() * n;
        let next = AtomicUsize::new(0);
        work_pool::run(|| {
            rayon::broadcast(|_| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= total {
                    break;
                }
                let (set, item) = (sets[k / n], k % n);
                if let Some(r) = self.computed(set, item) {
                    watch.finished(set, item, r, Duration::ZERO);
                    continue;
                }
                watch.started(set, item);
                let start = Instant::now();
                let r = self.judge(set, item);
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
        crate::run::index_width(self.dataset.items.len())
    }
}
