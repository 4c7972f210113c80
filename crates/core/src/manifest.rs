//! Dataset manifests: the TOML file that names the gold, the databases, the prediction sets, the
//! metrics and the gate. The format is specified in `spec/manifest.md`.
//!
//! This module reads the sections every dataset has and knows no metric, format or backend:
//! `[dataset] format`, `[databases]` and each `[metrics.<name>]` are kept as names and located
//! sections, which [`crate::registry`] hands to the part they configure.
//!
//! Every error names the manifest file, line and column. Paths are relative to the manifest's
//! directory after `${VAR}` / `${VAR:-default}` interpolation. A missing input file is not an
//! error here: it is recorded in the manifest's list of missing inputs, and the registry decides, once every
//! section is validated, whether the dataset is unavailable or the manifest wrong.

use crate::dataset::extract::Rule;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::de::IgnoredAny;
use serde::Deserialize;
use toml::Spanned;

use crate::clock::Clock;
use crate::config::{FromSection, ManifestError, Source};

/// What loading a manifest can end in.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    // `error`, not `source`: the message says it already, a chain would say it twice.
    /// The manifest file could not be read.
    #[error("cannot read manifest {}: {error}", path.display())]
    Read {
        /// The manifest.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    #[error("{0}")]
    /// The manifest is wrong (located at its file, line and column).
    Invalid(ManifestError),
    /// Input files are missing and the manifest says so is acceptable (`when_missing = "ignore"`):
    /// the whole dataset is reported as ignored, with these reasons.
    #[error("data unavailable: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Unavailable(Vec<ManifestError>),
}

/// What to do when an input file is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WhenMissing {
    /// A missing file is an error (default).
    #[default]
    Fail,
    /// The dataset is reported as ignored with the reason (for data that lives outside the repo),
    /// unless `SQLSUITE_REQUIRE_SHARED=1`.
    Ignore,
}

/// The CI gate's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GateMode {
    /// Every incorrect prediction is a failed trial.
    #[default]
    Strict,
    /// A trial fails only if the accepted snapshot had the item correct.
    Regression,
}

/// The sections every manifest may have. `[databases]` and `[metrics.*]` are read here only
/// for their presence and names; their contents belong to a backend and to metrics.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    dataset: RawDataset,
    #[serde(default)]
    databases: Option<IgnoredAny>,
    #[serde(default)]
    predictions: Vec<RawPredictions>,
    #[serde(default)]
    metrics: Option<BTreeMap<Spanned<String>, IgnoredAny>>,
    #[serde(default)]
    gate: RawGate,
    #[serde(default)]
    report: Option<RawReport>,
    #[serde(default)]
    cache: Option<RawCache>,
    #[serde(default)]
    distill: Option<RawDistill>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDataset {
    name: Spanned<String>,
    format: Spanned<String>,
    gold: Spanned<String>,
    #[serde(default)]
    gold_column: Option<Spanned<String>>,
    #[serde(default)]
    tables: Option<Spanned<String>>,
    #[serde(default)]
    subset: Option<OneOrMany>,
    #[serde(default)]
    when_missing: WhenMissing,
    #[serde(default)]
    clock: Option<Spanned<String>>,
}

/// A string or a list of strings.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPredictions {
    name: Spanned<String>,
    file: Spanned<String>,
    #[serde(default)]
    column: Option<Spanned<String>>,
    #[serde(default)]
    extract: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGate {
    #[serde(default)]
    mode: GateMode,
    #[serde(default)]
    min_accuracy: BTreeMap<String, Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReport {
    #[serde(default)]
    snapshots: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCache {
    dir: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDistill {
    #[serde(default)]
    constraints: Option<Spanned<String>>,
    #[serde(default)]
    schema: Vec<Spanned<String>>,
    #[serde(default)]
    original: Option<Spanned<String>>,
    #[serde(default)]
    profile: Option<Spanned<String>>,
    #[serde(default)]
    induce: Option<bool>,
    #[serde(default)]
    budget: Option<Spanned<usize>>,
}

/// `[distill]`: how `sqlsuite distill` generates a suite's random databases
/// (`spec/test_suite.md`, "Constraints").
#[derive(Debug, Clone, PartialEq)]
pub struct Distill {
    /// The dataset author's constraints, a path pattern with `{db_id}` (one TOML file per
    /// schema; a schema without a file has none), merged over the induced ones.
    pub constraints: Option<String>,
    /// Induce constraints from the original databases' data (default); without, only the
    /// schema's keys and declared foreign keys, and the author's file, constrain generation.
    pub induce: bool,
    /// Without `[dataset] tables`: path patterns with `{db_id}` of the databases that define
    /// each schema (`.sqlite`, `.sql` or a schema `.csv`, rows not read); the first existing
    /// file is taken.
    pub schema: Vec<String>,
    /// The populated original database of a schema, a path pattern with `{db_id}` (a schema
    /// without the file has none); without it, `[databases]` names the originals.
    pub original: Option<String>,
    /// A published profile of the databases (BIRD's `dev_profile.json`: per table its row
    /// count and keys, per column its statistics and sample values), one file for every schema;
    /// a schema without its original database generates within it.
    pub profile: Option<PathBuf>,
    /// At most this many random databases drawn per schema (`sqlsuite distill --budget`
    /// overrides it; without either, the distiller's default).
    pub budget: Option<usize>,
}

impl Default for Distill {
    fn default() -> Self {
        Distill {
            constraints: None,
            induce: true,
            schema: Vec::new(),
            original: None,
            profile: None,
            budget: None,
        }
    }
}

/// The CI gate.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gate {
    /// Strict or regression.
    pub mode: GateMode,
    /// Minimum accuracy (a fraction, 0..=1) per metric name, for every prediction set.
    pub min_accuracy: BTreeMap<String, f64>,
}

/// One prediction set: a model version's predictions, one per gold item.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionFile {
    /// The set's name.
    pub name: String,
    /// The prediction file (resolved against the manifest's directory).
    pub file: PathBuf,
    /// For table-shaped prediction files (CSV/TSV, JSON lines): the field holding the query,
    /// and where the manifest says so.
    pub column: Option<Spanned<String>>,
    /// How the SQL is taken out of each answer, for answers as language models write them
    /// ([`crate::dataset::extract`]); `None`: each prediction is judged as written.
    pub extract: Option<Rule>,
}

/// A loaded manifest: its common sections validated, the others named and located.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The manifest file.
    pub path: PathBuf,
    source: Source,
    /// `[dataset] name`.
    pub name: String,
    /// `[dataset] format`: the name of a format in [`crate::registry`].
    pub format: Spanned<String>,
    /// The gold file (resolved against the manifest's directory).
    pub gold: PathBuf,
    /// For table-shaped gold files (SQL-Eval): the column holding the gold query.
    pub gold_column: Option<Spanned<String>>,
    /// Spider's `tables.json`, where the dataset has one.
    pub tables: Option<PathBuf>,
    /// `[dataset] subset`: only the items of these `db_id`s are evaluated (the classical
    /// evaluator's `--subset`); empty for all. Prediction files then hold the subset's items.
    pub subset: Vec<String>,
    /// What absent data means: a failure, or a dataset reported unavailable.
    pub when_missing: WhenMissing,
    /// `[dataset] clock`: the moment `'now'` denotes, or the machine's clock
    /// ([`Clock::System`], also a manifest without the key).
    pub clock: Clock,
    /// Where `[databases]` is, if the manifest has it (its keys belong to the backend).
    pub databases: Option<Range<usize>>,
    /// `[[predictions]]`, in order.
    pub predictions: Vec<PredictionFile>,
    /// The `[metrics.<name>]` tables, by name, with where each is; `None` without `[metrics]`
    /// (the format's default metric).
    pub metrics: Option<BTreeMap<String, Range<usize>>>,
    /// `[gate]`.
    pub gate: Gate,
    /// Where each gate threshold is, by metric name.
    pub(crate) gate_spans: BTreeMap<String, Range<usize>>,
    /// Where the accepted snapshots are (`[report] snapshots`).
    pub snapshots: PathBuf,
    /// Where gold results are kept on disk (`[cache] dir`), if anywhere.
    pub cache: Option<PathBuf>,
    /// `[distill]`.
    pub distill: Distill,
    /// Input files the manifest names that do not exist (the registry reports them once the
    /// whole manifest is validated).
    pub(crate) missing: Vec<ManifestError>,
}

impl Manifest {
    /// Reads a manifest and validates its common sections.
    pub fn load(path: impl AsRef<Path>) -> Result<Manifest, LoadError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|error| LoadError::Read {
            path: path.to_path_buf(),
            error,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            // Located like any other error: the line and (byte) column of the first invalid byte.
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            LoadError::Invalid(ManifestError {
                file: path.to_path_buf(),
                line: valid.iter().filter(|&&b| b == b'\n').count() + 1,
                column: valid.len() - line_start + 1,
                message: "invalid UTF-8".into(),
            })
        })?;
        Manifest::parse(path, &text)
    }

    /// The manifest's text and location, for reading the sections the registry hands out.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// An error at `span` of the manifest.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> ManifestError {
        self.source.error(span, message)
    }

    /// The options of `[metrics.<name>]`, if the manifest has that table (for tools that run
    /// one metric's machinery themselves, such as distillation and the benchmarks).
    pub fn metric_options<T: FromSection>(&self, name: &str) -> Result<Option<T>, ManifestError> {
        match self.source.section(&["metrics", name])? {
            Some(section) => T::from_section(&section).map(Some),
            None => Ok(None),
        }
    }

    /// The manifest with `[metrics.<metric>] <key> = <on>` set, whatever it said (a
    /// command-line flag such as `eval --counterexamples`): its text rewritten with the key set
    /// and validated again (comments dropped; errors then located in the rewritten text). The
    /// metric must be one the manifest enables by a `[metrics.<metric>]` table.
    pub fn with_metric_flag(
        &self,
        metric: &str,
        key: &str,
        on: bool,
    ) -> Result<Manifest, LoadError> {
        let invalid = |message: String| LoadError::Invalid(self.error(0..0, message));
        if !self
            .metrics
            .as_ref()
            .is_some_and(|m| m.contains_key(metric))
        {
            return Err(invalid(format!(
                "cannot set {key}: the manifest has no [metrics.{metric}] table"
            )));
        }
        let mut document: toml::Table = self.source.document().map_err(LoadError::Invalid)?;
        let table = document
            .get_mut("metrics")
            .and_then(|m| m.get_mut(metric))
            .and_then(toml::Value::as_table_mut)
            .ok_or_else(|| invalid(format!("[metrics.{metric}] is not a table")))?;
        table.insert(key.to_owned(), toml::Value::Boolean(on));
        let text = toml::to_string(&document).map_err(|e| invalid(e.to_string()))?;
        Manifest::parse(&self.path, &text)
    }

    /// Validates manifest text as if read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Manifest, LoadError> {
        let cx = Source::new(path, text);
        let invalid = LoadError::Invalid;
        let raw: RawManifest = cx.document().map_err(invalid)?;

        let name = cx.string(&raw.dataset.name).map_err(invalid)?;
        if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == ':') {
            return Err(invalid(cx.error(
                raw.dataset.name.span(),
                "dataset name must be non-empty, without spaces or ':' (it prefixes trial names)",
            )));
        }
        let gold = cx.path(&raw.dataset.gold).map_err(invalid)?;
        let gold_column = match &raw.dataset.gold_column {
            Some(c) => Some(Spanned::new(c.span(), cx.string(c).map_err(invalid)?)),
            None => None,
        };
        let tables = match &raw.dataset.tables {
            Some(t) => Some((cx.path(t).map_err(invalid)?, t.span())),
            None => None,
        };
        let mut missing = Vec::new();
        if !gold.is_file() {
            missing.push(cx.error(
                raw.dataset.gold.span(),
                format!("gold file {} not found", gold.display()),
            ));
        }
        if let Some((t, span)) = &tables {
            if !t.is_file() {
                missing.push(cx.error(
                    span.clone(),
                    format!("tables file {} not found", t.display()),
                ));
            }
        }

        let predictions = prediction_files(&cx, &raw.predictions, &mut missing)?;
        let clock = match &raw.dataset.clock {
            Some(c) => Clock::parse(c.get_ref())
                .map_err(|e| invalid(cx.error(c.span(), format!("[dataset] clock: {e}"))))?,
            None => Clock::System,
        };

        let metrics = raw.metrics.map(|m| {
            m.into_keys()
                .map(|name| (name.get_ref().clone(), name.span()))
                .collect::<BTreeMap<_, _>>()
        });
        let databases = match raw.databases {
            Some(_) => cx
                .section(&["databases"])
                .map_err(invalid)?
                .map(|s| s.span()),
            None => None,
        };

        let (gate, gate_spans) = gate(&cx, &raw.gate)?;

        let snapshots = match raw.report.and_then(|r| r.snapshots) {
            Some(s) => cx.path(&s).map_err(invalid)?,
            None => cx.dir().join("snapshots"),
        };
        let cache = match raw.cache {
            Some(c) => Some(cx.path(&c.dir).map_err(invalid)?),
            None => None,
        };

        let distill = match &raw.distill {
            None => Distill::default(),
            Some(d) => distill(&cx, d)?,
        };

        Ok(Manifest {
            path: path.to_path_buf(),
            name,
            format: raw.dataset.format,
            gold,
            gold_column,
            tables: tables.map(|(t, _)| t),
            subset: match raw.dataset.subset {
                Some(OneOrMany::One(s)) => vec![s],
                Some(OneOrMany::Many(v)) => v,
                None => Vec::new(),
            },
            when_missing: raw.dataset.when_missing,
            clock,
            databases,
            predictions,
            metrics,
            gate,
            gate_spans,
            snapshots,
            cache,
            distill,
            missing,
            source: cx,
        })
    }
}

/// `[[predictions]]`: each set's name checked (non-empty, no spaces or `:`, unique), its file
/// resolved; a file that is not there goes to `missing`.
fn prediction_files(
    cx: &Source,
    raw: &[RawPredictions],
    missing: &mut Vec<ManifestError>,
) -> Result<Vec<PredictionFile>, LoadError> {
    let invalid = LoadError::Invalid;
    let mut predictions: Vec<PredictionFile> = Vec::new();
    for p in raw {
        let pname = cx.string(&p.name).map_err(invalid)?;
        if pname.is_empty() || pname.contains(|c: char| c.is_whitespace() || c == ':') {
            return Err(invalid(cx.error(
                p.name.span(),
                "prediction set name must be non-empty, without spaces or ':'",
            )));
        }
        if predictions.iter().any(|q| q.name == pname) {
            return Err(invalid(cx.error(
                p.name.span(),
                format!("duplicate prediction set name {pname:?}"),
            )));
        }
        let file = cx.path(&p.file).map_err(invalid)?;
        if !file.is_file() {
            missing.push(cx.error(
                p.file.span(),
                format!("prediction file {} not found", file.display()),
            ));
        }
        let column = match &p.column {
            Some(c) => Some(Spanned::new(c.span(), cx.string(c).map_err(invalid)?)),
            None => None,
        };
        let extract = match &p.extract {
            Some(e) => Some(
                cx.string(e)
                    .map_err(invalid)?
                    .parse::<Rule>()
                    .map_err(|why| invalid(cx.error(e.span(), why)))?,
            ),
            None => None,
        };
        predictions.push(PredictionFile {
            name: pname,
            file,
            column,
            extract,
        });
    }
    Ok(predictions)
}

/// `[gate]`: each threshold a fraction, with where the manifest writes it.
fn gate(cx: &Source, raw: &RawGate) -> Result<(Gate, BTreeMap<String, Range<usize>>), LoadError> {
    let invalid = LoadError::Invalid;
    let mut gate = Gate {
        mode: raw.mode,
        min_accuracy: BTreeMap::new(),
    };
    let mut gate_spans = BTreeMap::new();
    for (metric, min) in &raw.min_accuracy {
        let value = *min.get_ref();
        if !(0.0..=1.0).contains(&value) {
            return Err(invalid(cx.error(
                min.span(),
                format!("gate.min_accuracy.{metric} = {value} must be a fraction between 0 and 1"),
            )));
        }
        gate.min_accuracy.insert(metric.clone(), value);
        gate_spans.insert(metric.clone(), min.span());
    }
    Ok((gate, gate_spans))
}

/// `[distill]`: each per-schema path must contain `{db_id}`.
fn distill(cx: &Source, d: &RawDistill) -> Result<Distill, LoadError> {
    let invalid = LoadError::Invalid;
    let per_schema = |c: &Spanned<String>, key: &str| {
        let pattern = cx.path(c).map_err(invalid)?.to_string_lossy().into_owned();
        if !pattern.contains("{db_id}") {
            return Err(invalid(cx.error(
                c.span(),
                format!(
                    "[distill] {key} names one file per schema: the path must \
                     contain {{db_id}}"
                ),
            )));
        }
        Ok(pattern)
    };
    if let Some(b) = d.budget.as_ref().filter(|b| *b.get_ref() == 0) {
        return Err(invalid(cx.error(
            b.span(),
            "[distill] budget is a number of databases: at least 1".to_string(),
        )));
    }
    Ok(Distill {
        constraints: d
            .constraints
            .as_ref()
            .map(|c| per_schema(c, "constraints"))
            .transpose()?,
        induce: d.induce.unwrap_or(true),
        schema: d
            .schema
            .iter()
            .map(|c| per_schema(c, "schema"))
            .collect::<Result<_, _>>()?,
        original: d
            .original
            .as_ref()
            .map(|c| per_schema(c, "original"))
            .transpose()?,
        profile: d
            .profile
            .as_ref()
            .map(|p| cx.path(p).map_err(invalid))
            .transpose()?,
        budget: d.budget.as_ref().map(|b| *b.get_ref()),
    })
}

impl fmt::Display for Manifest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name, self.path.display())
    }
}
