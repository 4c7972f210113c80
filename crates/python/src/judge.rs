//! The judge: one metric opened once on databases, judging (gold, prediction, db_id) triples.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use sqlsuite::backend::sqlite::Sqlite;
use sqlsuite::config::Source;
use sqlsuite::dataset::{DatabaseLocator, Item};
use sqlsuite::executor::Executor;
use sqlsuite::metric::{Metric, Resources, Status};
use sqlsuite::registry;

/// A metric opened on databases: `Judge("spider/database/{db_id}/{db_id}.sqlite",
/// metric="exec", timeout_ms=2000)`. `databases` is a path pattern with `{db_id}`; a glob
/// (`suites/{db_id}/*.sqlite`) makes each item's databases a test suite. The options are the
/// metric's manifest table (`[metrics.exec]`, spec/manifest.md), as keyword arguments.
/// Databases are opened read-only, every query runs under the metric's limits, and gold results
/// are kept for the judge's life: a gold judged again (other predictions, later batches) does
/// not run again. An `exec` judge stops a prediction at its first row the gold's set lacks
/// (`stop_at_foreign_row`, on unless given: [`JUDGE_STOPS_AT_FOREIGN_ROWS`]).
#[pyclass(frozen, module = "sqlsuite")]
pub struct Judge {
    locator: DatabaseLocator,
    metric: Box<dyn Metric>,
    executor: Executor,
}

#[pymethods]
impl Judge {
    #[new]
    #[pyo3(signature = (databases, metric = "exec", **options))]
    fn new(
        py: Python<'_>,
        databases: &str,
        metric: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Judge> {
        let locator =
            DatabaseLocator::new(databases).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let table = match options {
            Some(o) => py
                .import_bound("json")?
                .call_method1("dumps", (o,))?
                .extract::<String>()?,
            None => "{}".to_owned(),
        };
        let metric = build(metric, &table).map_err(PyValueError::new_err)?;
        Ok(Judge {
            locator,
            metric,
            executor: Executor::new(Box::new(Sqlite::default()), None),
        })
    }

    /// Judges one prediction against its gold on the databases of `db_id`.
    fn judge(&self, py: Python<'_>, gold: &str, prediction: &str, db_id: &str) -> Verdict {
        py.allow_threads(|| self.one(0, gold, prediction, db_id))
    }

    /// Judges every `(gold, prediction, db_id)` triple, in parallel on sqlsuite's work pool with
    /// the GIL released; the verdicts in the triples' order.
    fn judge_many(&self, py: Python<'_>, triples: Vec<(String, String, String)>) -> Vec<Verdict> {
        py.allow_threads(|| {
            sqlsuite::work_pool::run(|| {
                triples
                    .par_iter()
                    .enumerate()
                    .map(|(i, (gold, prediction, db_id))| self.one(i, gold, prediction, db_id))
                    .collect()
            })
        })
    }

    /// The metric's name (`exec`).
    #[getter]
    fn metric(&self) -> &'static str {
        self.metric.name()
    }
}

impl Judge {
    fn one(&self, index: usize, gold: &str, prediction: &str, db_id: &str) -> Verdict {
        let name = self.metric.name();
        let databases = match self.locator.resolve_for(db_id, gold) {
            Ok(d) => d,
            Err(why) => {
                return Verdict {
                    metric: name,
                    status: Status::Skipped.to_string(),
                    reason: "missing_database".into(),
                    message: why,
                    details: String::new(),
                    gold_steps: None,
                    prediction_steps: None,
                    scores: Vec::new(),
                }
            }
        };
        let item = Item::new(index, db_id, gold, "python");
        let v = self
            .metric
            .evaluate(&item, prediction, &databases, &self.executor);
        Verdict {
            metric: name,
            status: v.status.to_string(),
            reason: v.code,
            message: v.reason,
            details: v.details,
            gold_steps: v.steps.map(|s| s.gold),
            prediction_steps: v.steps.and_then(|s| s.prediction),
            scores: v
                .scores
                .iter()
                .map(|(n, s)| ((*n).to_owned(), *s))
                .collect(),
        }
    }
}

/// The metric whose judge stops a prediction at its first row the gold's set lacks unless told
/// otherwise (`stop_at_foreign_row`, spec/exec.md): a judge is one metric, and a reward needs the
/// verdict, not the rest of a wrong result. A manifest's default is off (its metrics share
/// each whole result).
const JUDGE_STOPS_AT_FOREIGN_ROWS: &str = "exec";

/// The metric `name` of the registry, built from its options as a manifest table (JSON text).
fn build(name: &str, options_json: &str) -> Result<Box<dyn Metric>, String> {
    let entry = registry::METRICS
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = registry::METRICS.iter().map(|m| m.name).collect();
            format!(
                "no metric named {name:?} (the metrics: {})",
                names.join(", ")
            )
        })?;
    if !entry.runs_queries {
        return Err(format!(
            "{name} runs no query: a judge runs queries on databases"
        ));
    }
    let mut options =
        serde_json::from_str::<serde_json::Value>(options_json).map_err(|e| e.to_string())?;
    if let (JUDGE_STOPS_AT_FOREIGN_ROWS, Some(table)) = (name, options.as_object_mut()) {
        table
            .entry("stop_at_foreign_row")
            .or_insert(serde_json::Value::Bool(true));
    }
    let options = toml::Value::try_from(options).map_err(|e| e.to_string())?;
    let mut document = toml::map::Map::new();
    let mut metrics = toml::map::Map::new();
    metrics.insert(name.to_owned(), options);
    document.insert("metrics".to_owned(), toml::Value::Table(metrics));
    let text = toml::to_string(&document).map_err(|e| e.to_string())?;
    let source = Source::new(std::path::Path::new("<Judge options>"), &text);
    let section = source
        .section(&["metrics", name])
        .map_err(|e| e.to_string())?
        .ok_or("no options table")?;
    (entry.build)(&section, &Resources::default()).map_err(|e| e.to_string())
}

/// One judgement: `status` is `correct`, `incorrect`, `gold_error` (the gold itself failed)
/// or `skipped` (no database); `reason` the stable code (`correct`, `row_count`, `sql_error`,
/// `timeout`, …); `message` one line saying why.
#[pyclass(frozen, get_all, module = "sqlsuite")]
pub struct Verdict {
    /// The metric that judged.
    pub metric: &'static str,
    /// `correct`, `incorrect`, `gold_error` or `skipped`.
    pub status: String,
    /// The reason code.
    pub reason: String,
    /// One line saying why.
    pub message: String,
    /// More lines (the differing rows, the database that told them apart).
    pub details: String,
    /// The gold's SQLite steps, summed over the databases.
    pub gold_steps: Option<u64>,
    /// The prediction's, where it finished.
    pub prediction_steps: Option<u64>,
    /// Graded scores (`soft_f1`), by name.
    pub scores: Vec<(String, f64)>,
}

#[pymethods]
impl Verdict {
    /// Whether the prediction was judged correct.
    #[getter]
    fn correct(&self) -> bool {
        self.status == "correct"
    }

    fn __repr__(&self) -> String {
        format!(
            "Verdict(metric={:?}, status={:?}, reason={:?}, message={:?})",
            self.metric, self.status, self.reason, self.message
        )
    }
}
