//! Dataset manifests: the TOML file that names the gold, the databases, the prediction sets, the
//! metrics and the gate. The format is specified in `spec/manifest.md`.
//!
//! Every error names the manifest file, line and column. Paths are relative to the manifest's
//! directory after `${VAR}` / `${VAR:-default}` interpolation.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::metric::exact_match::ExactMatchOptions;
use crate::metric::exec::ExecOptions;
use crate::metric::pcm::PcmOptions;
use crate::metric::sqleval::SqlevalOptions;

/// An error located in a manifest.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", file.display())]
pub struct ManifestError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// What loading a manifest can end in.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read manifest {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(ManifestError),
    /// Input files are missing and the manifest says so is acceptable (`when_missing = "ignore"`):
    /// the whole dataset is reported as ignored, with these reasons.
    #[error("data unavailable: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Unavailable(Vec<ManifestError>),
}

/// The gold file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// `SQL<TAB>db_id` per line, or Spider's `dev.json` (by extension).
    Spider,
    /// SParC / CoSQL: `SQL<TAB>db_id` lines with a blank line between interactions; prediction
    /// files have the same shape.
    Interactions,
    /// Defog SQL-Eval: a questions table (CSV, or TSV with backslash escapes) read by column name
    /// (`question`, `query`, `db_name`, `query_category`); prediction files are CSV/TSV, JSON
    /// lines or one query per line.
    Sqleval,
    /// SEDE: JSON lines with `QuerySetId`, `QueryBody`, `Title`, `Description`; predictions are
    /// JSON lines keyed by `QuerySetId` (`.jsonl`) or one query per line.
    Sede,
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    dataset: RawDataset,
    #[serde(default)]
    databases: Option<RawDatabases>,
    #[serde(default)]
    predictions: Vec<RawPredictions>,
    #[serde(default)]
    metrics: Option<RawMetrics>,
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
    format: Format,
    gold: Spanned<String>,
    #[serde(default)]
    gold_column: Option<Spanned<String>>,
    #[serde(default)]
    tables: Option<Spanned<String>>,
    #[serde(default)]
    when_missing: WhenMissing,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDatabases {
    #[serde(default)]
    path: Option<Spanned<String>>,
    #[serde(default)]
    backend: Option<Spanned<BackendKind>>,
    #[serde(default)]
    name: Option<Spanned<String>>,
    #[serde(default)]
    connection_env: Option<Spanned<String>>,
}

/// The environment variable a PostgreSQL manifest takes its connection string from, unless it
/// names another with `connection_env`.
pub const DEFAULT_CONNECTION_ENV: &str = "SQLSUITE_POSTGRES";

/// Which engine runs the queries. A new backend adds a variant here and an arm in
/// [`crate::backend::from_manifest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// SQLite database files (or `.sql` scripts loaded in memory).
    #[default]
    Sqlite,
    /// A PostgreSQL server; databases are named, the connection string comes from the
    /// environment.
    Postgres,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPredictions {
    name: Spanned<String>,
    file: Spanned<String>,
    #[serde(default)]
    column: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMetrics {
    #[serde(default)]
    exec: Option<ExecOptions>,
    #[serde(default)]
    exact_match: Option<Spanned<ExactMatchOptions>>,
    #[serde(default)]
    sqleval: Option<SqlevalOptions>,
    pcm: Option<PcmOptions>,
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
    induce: Option<bool>,
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
}

impl Default for Distill {
    fn default() -> Self {
        Distill {
            constraints: None,
            induce: true,
        }
    }
}

/// The CI gate.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gate {
    pub mode: GateMode,
    /// Minimum accuracy (a fraction, 0..=1) per metric name, for every prediction set.
    pub min_accuracy: BTreeMap<String, f64>,
}

/// The metrics a manifest asks for, with their options. A new metric adds one field here.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    pub exec: Option<ExecOptions>,
    pub exact_match: Option<ExactMatchOptions>,
    pub sqleval: Option<SqlevalOptions>,
    pub pcm: Option<PcmOptions>,
}

/// One prediction set: a model version's predictions, one per gold item.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionFile {
    pub name: String,
    pub file: PathBuf,
    /// For table-shaped prediction files (CSV/TSV, JSON lines): the field holding the query.
    pub column: Option<String>,
}

/// A loaded, validated manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    pub path: PathBuf,
    pub name: String,
    pub format: Format,
    pub gold: PathBuf,
    /// For table-shaped gold files (SQL-Eval): the column holding the gold query.
    pub gold_column: Option<String>,
    pub tables: Option<PathBuf>,
    /// SQLite: database path pattern with `{db_id}` (and possibly glob characters for test
    /// suites). PostgreSQL: database name pattern with `{db_id}`. Empty when the manifest has no
    /// `[databases]` (only metrics that need no database).
    pub databases: String,
    pub backend: BackendKind,
    /// PostgreSQL: the connection string (from the environment variable the manifest names).
    pub connection: Option<String>,
    pub predictions: Vec<PredictionFile>,
    pub metrics: Metrics,
    pub gate: Gate,
    pub snapshots: PathBuf,
    pub cache: Option<PathBuf>,
    pub distill: Distill,
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rfind('\n').map_or(offset, |nl| offset - nl - 1) + 1;
    (line, column)
}

struct Context<'a> {
    file: &'a Path,
    text: &'a str,
    dir: PathBuf,
}

impl Context<'_> {
    fn error(&self, span: Range<usize>, message: impl Into<String>) -> ManifestError {
        let (line, column) = line_col(self.text, span.start);
        ManifestError {
            file: self.file.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }

    /// Interpolates a string value, reporting errors at its position.
    fn string(&self, value: &Spanned<String>) -> Result<String, ManifestError> {
        interpolate(value.get_ref(), |name| std::env::var(name).ok())
            .map_err(|message| self.error(value.span(), message))
    }

    /// Interpolates a path value and makes it relative to the manifest's directory. A relative
    /// path that comes from an environment variable is relative to the current directory, where
    /// the user set it.
    fn path(&self, value: &Spanned<String>) -> Result<PathBuf, ManifestError> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let lookup = |name: &str| {
            std::env::var(name).ok().map(|v| {
                if v.is_empty() || Path::new(&v).is_absolute() {
                    v
                } else {
                    cwd.join(v).to_string_lossy().into_owned()
                }
            })
        };
        let s = interpolate(value.get_ref(), lookup)
            .map_err(|message| self.error(value.span(), message))?;
        Ok(clean(&self.dir.join(s)))
    }
}

/// Expands `${VAR}` and `${VAR:-default}` (the default is used when VAR is unset or empty, as in
/// POSIX shells; it may itself contain `${...}`). `$$` is a literal `$`.
pub fn interpolate(input: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    interpolate_with(input, &lookup)
}

fn interpolate_with(
    input: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = input;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
            continue;
        }
        let Some(body) = after.strip_prefix('{') else {
            out.push('$');
            rest = after;
            continue;
        };
        // Find the matching close brace (defaults may nest `${...}`).
        let mut depth = 1;
        let mut end = None;
        let bytes = body.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| format!("unclosed `${{` in {input:?}"))?;
        let inner = &body[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("invalid variable name {name:?} in {input:?}"));
        }
        match (lookup(name).filter(|v| !v.is_empty()), default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(&interpolate_with(d, lookup)?),
            (None, None) => {
                return Err(format!(
                    "environment variable {name} is not set (write ${{{name}:-default}} to give a default)"
                ))
            }
        }
        rest = &body[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Removes `.` and folds `dir/..` lexically (`datasets/demo/../../snapshots` → `snapshots`), so
/// messages show short paths. A leading `..` stays.
pub fn clean(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            c => out.push(c),
        }
    }
    if out.is_empty() {
        PathBuf::from(".")
    } else {
        out.iter().collect()
    }
}

/// A SQLite `[databases] path`: interpolated, relative to the manifest, with `{db_id}`; a missing
/// directory above the first `{db_id}` is recorded in `missing`.
fn sqlite_databases(
    cx: &Context<'_>,
    path: &Spanned<String>,
    missing: &mut Vec<ManifestError>,
) -> Result<String, LoadError> {
    let databases = cx.path(path).map_err(LoadError::Invalid)?;
    let databases = databases.to_string_lossy().into_owned();
    if !databases.contains("{db_id}") {
        return Err(LoadError::Invalid(
            cx.error(path.span(), "database path must contain {db_id}"),
        ));
    }
    let fixed_prefix = &databases[..databases.find("{db_id}").unwrap_or(0)];
    let fixed_dir = Path::new(fixed_prefix);
    let fixed_dir = if fixed_prefix.ends_with('/') {
        fixed_dir
    } else {
        fixed_dir.parent().unwrap_or(fixed_dir)
    };
    if !fixed_dir.as_os_str().is_empty() && !fixed_dir.is_dir() {
        missing.push(cx.error(
            path.span(),
            format!("database directory {} not found", fixed_dir.display()),
        ));
    }
    Ok(databases)
}

impl Manifest {
    /// Reads and validates a manifest.
    pub fn load(path: impl AsRef<Path>) -> Result<Manifest, LoadError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Manifest::parse(path, &text)
    }

    /// Validates manifest text as if read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Manifest, LoadError> {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let cx = Context {
            file: path,
            text,
            dir,
        };
        let raw: RawManifest = toml::from_str(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            LoadError::Invalid(cx.error(span, e.message().trim().to_owned()))
        })?;
        let invalid = LoadError::Invalid;

        let name = cx.string(&raw.dataset.name).map_err(invalid)?;
        if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == ':') {
            return Err(invalid(cx.error(
                raw.dataset.name.span(),
                "dataset name must be non-empty, without spaces or ':' (it prefixes trial names)",
            )));
        }
        let gold = cx.path(&raw.dataset.gold).map_err(invalid)?;
        let gold_column = match &raw.dataset.gold_column {
            Some(c) if raw.dataset.format != Format::Sqleval => {
                return Err(invalid(cx.error(
                    c.span(),
                    "`gold_column` applies to table-shaped gold files (format = \"sqleval\")",
                )))
            }
            Some(c) => Some(cx.string(c).map_err(invalid)?),
            None => None,
        };
        let tables = match &raw.dataset.tables {
            Some(t) => Some((cx.path(t).map_err(invalid)?, t.span())),
            None => None,
        };
        let backend = raw
            .databases
            .as_ref()
            .and_then(|d| d.backend.as_ref())
            .map_or(BackendKind::Sqlite, |b| *b.get_ref());
        let backend_span = raw
            .databases
            .as_ref()
            .and_then(|d| d.backend.as_ref())
            .map_or(0..0, Spanned::span);
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
        let (databases, connection) = match (&raw.databases, backend) {
            (None, _) => (String::new(), None),
            (Some(d), BackendKind::Sqlite) => {
                for (key, value) in [("name", &d.name), ("connection_env", &d.connection_env)] {
                    if let Some(v) = value {
                        return Err(invalid(cx.error(
                            v.span(),
                            format!("[databases] {key} is for backend = \"postgres\"; SQLite databases are files named by `path`"),
                        )));
                    }
                }
                let Some(path) = &d.path else {
                    return Err(invalid(cx.error(
                        backend_span,
                        "[databases] needs `path`, a file pattern with {db_id}",
                    )));
                };
                (sqlite_databases(&cx, path, &mut missing)?, None)
            }
            (Some(d), BackendKind::Postgres) => {
                if let Some(p) = &d.path {
                    return Err(invalid(cx.error(
                        p.span(),
                        "PostgreSQL databases are named, not files: write `name = \"{db_id}\"` \
                         instead of `path`",
                    )));
                }
                let name = match &d.name {
                    Some(n) => {
                        let name = cx.string(n).map_err(invalid)?;
                        if !name.contains("{db_id}") {
                            return Err(invalid(
                                cx.error(n.span(), "database name must contain {db_id}"),
                            ));
                        }
                        name
                    }
                    None => "{db_id}".to_owned(),
                };
                let (var, span) = match &d.connection_env {
                    Some(v) => (cx.string(v).map_err(invalid)?, v.span()),
                    None => (DEFAULT_CONNECTION_ENV.to_owned(), backend_span),
                };
                let connection = std::env::var(&var).ok().filter(|v| !v.trim().is_empty());
                if connection.is_none() {
                    missing.push(cx.error(
                        span,
                        format!(
                            "no PostgreSQL server configured: environment variable {var} is not set \
                             (a connection string such as `host=127.0.0.1 port=5432 user=reader`)"
                        ),
                    ));
                }
                (name, connection)
            }
        };

        let mut predictions: Vec<PredictionFile> = Vec::new();
        for p in &raw.predictions {
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
                Some(c) => Some(cx.string(c).map_err(invalid)?),
                None => None,
            };
            if column.is_some() && raw.dataset.format != Format::Sqleval {
                if let Some(c) = &p.column {
                    return Err(invalid(cx.error(
                        c.span(),
                        "`column` applies to table-shaped prediction files (format = \"sqleval\")",
                    )));
                }
            }
            predictions.push(PredictionFile {
                name: pname,
                file,
                column,
            });
        }

        let metrics = match raw.metrics {
            Some(m) => {
                if let (Some(esm), None) = (&m.exact_match, &tables) {
                    return Err(invalid(cx.error(
                        esm.span(),
                        "exact_match parses queries against the schema: set [dataset] tables \
                         (a Spider tables.json)",
                    )));
                }
                Metrics {
                    exec: m.exec,
                    exact_match: m.exact_match.map(Spanned::into_inner),
                    sqleval: m.sqleval,
                    pcm: m.pcm,
                }
            }
            None if raw.dataset.format == Format::Sqleval => Metrics {
                exec: None,
                exact_match: None,
                sqleval: Some(SqlevalOptions::default()),
                pcm: None,
            },
            None => Metrics {
                exec: Some(ExecOptions::default()),
                exact_match: None,
                sqleval: None,
                pcm: None,
            },
        };
        if raw.databases.is_none() && (metrics.exec.is_some() || metrics.sqleval.is_some()) {
            return Err(invalid(cx.error(
                0..0,
                "exec and sqleval run queries: add [databases] (or enable only metrics that need \
                 no database, such as [metrics.pcm])",
            )));
        }
        let enabled = crate::metric::names(&metrics);
        if enabled.is_empty() {
            return Err(invalid(cx.error(
                0..0,
                "no metric enabled: add [metrics.exec], [metrics.exact_match], [metrics.sqleval] \
                 or [metrics.pcm]",
            )));
        }
        let mut gate = Gate {
            mode: raw.gate.mode,
            min_accuracy: BTreeMap::new(),
        };
        for (metric, min) in &raw.gate.min_accuracy {
            let value = *min.get_ref();
            let why = if !enabled.contains(&metric.as_str()) {
                format!("gate.min_accuracy names metric {metric:?}, which is not enabled")
            } else if !(0.0..=1.0).contains(&value) {
                format!("gate.min_accuracy.{metric} = {value} must be a fraction between 0 and 1")
            } else {
                gate.min_accuracy.insert(metric.clone(), value);
                continue;
            };
            return Err(invalid(cx.error(min.span(), why)));
        }

        let snapshots = match raw.report.and_then(|r| r.snapshots) {
            Some(s) => cx.path(&s).map_err(invalid)?,
            None => cx.dir.join("snapshots"),
        };
        let cache = match raw.cache {
            Some(c) => Some(cx.path(&c.dir).map_err(invalid)?),
            None => None,
        };

        let distill = match &raw.distill {
            None => Distill::default(),
            Some(d) => {
                let constraints = match &d.constraints {
                    Some(c) => {
                        let pattern = cx.path(c).map_err(invalid)?.to_string_lossy().into_owned();
                        if !pattern.contains("{db_id}") {
                            return Err(invalid(cx.error(
                                c.span(),
                                "[distill] constraints names one file per schema: the path must \
                                 contain {db_id}",
                            )));
                        }
                        Some(pattern)
                    }
                    None => None,
                };
                Distill {
                    constraints,
                    induce: d.induce.unwrap_or(true),
                }
            }
        };

        if !missing.is_empty() {
            return Err(match raw.dataset.when_missing {
                WhenMissing::Ignore => LoadError::Unavailable(missing),
                WhenMissing::Fail => LoadError::Invalid(missing.remove(0)),
            });
        }

        Ok(Manifest {
            path: path.to_path_buf(),
            name,
            format: raw.dataset.format,
            gold,
            gold_column,
            tables: tables.map(|(t, _)| t),
            databases,
            backend,
            connection,
            predictions,
            metrics,
            gate,
            snapshots,
            cache,
            distill,
        })
    }
}

impl fmt::Display for Manifest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name, self.path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME_DIR" => Some("/home/x".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn paths_are_cleaned_lexically() {
        assert_eq!(
            clean(Path::new("datasets/demo/../../snapshots")),
            Path::new("snapshots")
        );
        assert_eq!(
            clean(Path::new("datasets/../../shared/./x")),
            Path::new("../shared/x")
        );
        assert_eq!(clean(Path::new("/a/../../b")), Path::new("/b"));
        assert_eq!(clean(Path::new("a/..")), Path::new("."));
    }

    #[test]
    fn interpolation() {
        assert_eq!(interpolate("a/${HOME_DIR}/b", env).unwrap(), "a//home/x/b");
        assert_eq!(
            interpolate("${NOPE:-../shared}/d", env).unwrap(),
            "../shared/d"
        );
        assert_eq!(interpolate("${EMPTY:-dflt}", env).unwrap(), "dflt");
        assert_eq!(interpolate("${NOPE:-${HOME_DIR}}", env).unwrap(), "/home/x");
        assert_eq!(interpolate("cost $$5 $x", env).unwrap(), "cost $5 $x");
        assert!(interpolate("${NOPE}", env)
            .unwrap_err()
            .contains("NOPE is not set"));
        assert!(interpolate("${NOPE", env).unwrap_err().contains("unclosed"));
        assert!(interpolate("${A B}", env)
            .unwrap_err()
            .contains("invalid variable"));
    }

    fn write_tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("gold.sql"), "SELECT 1\tdb\n").unwrap();
        std::fs::write(dir.path().join("p.txt"), "SELECT 1\n").unwrap();
        std::fs::create_dir(dir.path().join("db")).unwrap();
        dir
    }

    const GOOD: &str = r#"
[dataset]
name = "t"
format = "spider"
gold = "gold.sql"

[databases]
path = "db/{db_id}.sqlite"

[[predictions]]
name = "v1"
file = "p.txt"

[metrics.exec]
timeout_ms = 500

[gate]
mode = "regression"
min_accuracy = { exec = 0.5 }
"#;

    #[test]
    fn a_good_manifest_resolves_paths_against_its_directory() {
        let dir = write_tree();
        let path = dir.path().join("m.toml");
        let m = Manifest::parse(&path, GOOD).unwrap();
        assert_eq!(m.gold, dir.path().join("gold.sql"));
        assert_eq!(m.predictions[0].file, dir.path().join("p.txt"));
        assert_eq!(m.gate.mode, GateMode::Regression);
        assert_eq!(m.metrics.exec.as_ref().unwrap().timeout_ms, 500);
        assert_eq!(m.snapshots, dir.path().join("snapshots"));
    }

    fn error_of(text: &str) -> ManifestError {
        let dir = write_tree();
        match Manifest::parse(&dir.path().join("m.toml"), text) {
            Err(LoadError::Invalid(e)) => e,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn unknown_keys_are_located() {
        let e = error_of(&GOOD.replace("timeout_ms = 500", "timeout_ms = 500\ntimeout = 3"));
        assert_eq!((e.line, e.column), (16, 1), "{e}");
        assert!(e.message.contains("unknown field `timeout`"), "{e}");
        assert!(e
            .to_string()
            .starts_with(&format!("{}:16:1: ", e.file.display())));
    }

    #[test]
    fn wrong_types_are_located() {
        let e = error_of(&GOOD.replace("timeout_ms = 500", "timeout_ms = \"fast\""));
        assert_eq!((e.line, e.column), (15, 14), "{e}");
        assert!(e.message.contains("invalid type"), "{e}");
    }

    #[test]
    fn missing_files_are_located() {
        let e = error_of(&GOOD.replace("\"p.txt\"", "\"nope.txt\""));
        assert_eq!((e.line, e.column), (12, 8), "{e}");
        assert!(e.message.contains("nope.txt not found"), "{e}");
    }

    #[test]
    fn distill_section_names_constraint_files_per_schema() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("gold.sql"), "SELECT 1\tdb\n").unwrap();
        std::fs::create_dir(dir.path().join("db")).unwrap();
        let head = "[dataset]\nname = \"d\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\
                    [databases]\npath = \"db/{db_id}.sqlite\"\n";
        let path = dir.path().join("m.toml");
        let m = Manifest::parse(&path, head).unwrap();
        assert_eq!(m.distill, Distill::default());
        assert!(m.distill.induce);
        let m = Manifest::parse(
            &path,
            &format!("{head}[distill]\nconstraints = \"c/{{db_id}}.toml\"\ninduce = false\n"),
        )
        .unwrap();
        assert_eq!(
            m.distill.constraints.as_deref(),
            Some(dir.path().join("c/{db_id}.toml").to_str().unwrap())
        );
        assert!(!m.distill.induce);
        let bad = |extra: &str| match Manifest::parse(&path, &format!("{head}{extra}")) {
            Err(LoadError::Invalid(e)) => e,
            other => panic!("{other:?}"),
        };
        let e = bad("[distill]\nconstraints = \"c/one.toml\"\n");
        assert!(e.message.contains("must contain {db_id}"), "{e}");
        assert_eq!((e.line, e.column), (8, 15));
        let e = bad("[distill]\ninduced = true\n");
        assert!(e.message.contains("unknown field `induced`"), "{e}");
    }

    #[test]
    fn missing_data_can_be_declared_ignorable() {
        let dir = write_tree();
        let text = GOOD.replace(
            "gold.sql\"",
            "missing/gold.sql\"\nwhen_missing = \"ignore\"",
        );
        match Manifest::parse(&dir.path().join("m.toml"), &text) {
            Err(LoadError::Unavailable(reasons)) => {
                assert!(reasons[0].message.contains("gold file"), "{reasons:?}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn gate_thresholds_are_fractions_of_enabled_metrics() {
        let e = error_of(&GOOD.replace("exec = 0.5", "exec = 50"));
        assert!(e.message.contains("between 0 and 1"), "{e}");
        assert_eq!((e.line, e.column), (19, 25), "{e}");
        let e = error_of(&GOOD.replace("{ exec = 0.5 }", "{ esm = 0.5 }"));
        assert!(e.message.contains("not enabled"), "{e}");
    }

    #[test]
    fn metrics_without_queries_need_no_databases() {
        let dir = write_tree();
        let path = dir.path().join("m.toml");
        let sede = r#"
[dataset]
name = "s"
format = "sede"
gold = "gold.sql"

[[predictions]]
name = "v1"
file = "p.txt"

[metrics.pcm]
compat = "sede"
"#;
        let m = Manifest::parse(&path, sede).unwrap();
        assert_eq!(m.format, Format::Sede);
        assert!(m.databases.is_empty());
        assert_eq!(
            m.metrics.pcm.as_ref().and_then(|p| p.compat),
            Some(crate::metric::pcm::PcmCompat::Sede)
        );
        let e = error_of(&sede.replace("[metrics.pcm]", "[metrics.exec]\n[metrics.pcm]"));
        assert!(e.message.contains("exec and sqleval run queries"), "{e}");
        let e = error_of(&sede.replace("compat = \"sede\"", "compat = \"spider\""));
        assert!(e.message.contains("unknown variant"), "{e}");
    }

    #[test]
    fn database_pattern_needs_db_id() {
        let e = error_of(&GOOD.replace("db/{db_id}.sqlite", "db/x.sqlite"));
        assert!(e.message.contains("{db_id}"), "{e}");
        assert_eq!(e.line, 8);
    }

    #[test]
    fn postgres_databases_are_named_and_need_a_connection() {
        let pg = GOOD
            .replace(
                "path = \"db/{db_id}.sqlite\"",
                "backend = \"postgres\"\nconnection_env = \"SQLSUITE_TEST_NO_SUCH_VAR\"",
            )
            .replace(
                "format = \"spider\"",
                "format = \"spider\"\nwhen_missing = \"ignore\"",
            );
        let dir = write_tree();
        match Manifest::parse(&dir.path().join("m.toml"), &pg) {
            Err(LoadError::Unavailable(reasons)) => {
                let r = reasons[0].to_string();
                assert!(r.contains("SQLSUITE_TEST_NO_SUCH_VAR is not set"), "{r}");
                assert!(r.contains("m.toml:10:18"), "{r}");
            }
            other => panic!("{other:?}"),
        }
        let e = error_of(&GOOD.replace(
            "path = \"db/{db_id}.sqlite\"",
            "backend = \"postgres\"\npath = \"db/{db_id}.sqlite\"",
        ));
        assert!(e.message.contains("named, not files"), "{e}");
        let e = error_of(&GOOD.replace("[databases]", "[databases]\nname = \"{db_id}\""));
        assert!(e.message.contains("is for backend = \"postgres\""), "{e}");
    }

    #[test]
    fn table_columns_only_for_sqleval() {
        let e = error_of(&GOOD.replace("file = \"p.txt\"", "file = \"p.txt\"\ncolumn = \"sql\""));
        assert!(e.message.contains("format = \"sqleval\""), "{e}");
        let dir = write_tree();
        let text = GOOD
            .replace(
                "format = \"spider\"",
                "format = \"sqleval\"\ngold_column = \"gold\"",
            )
            .replace(
                "[metrics.exec]\ntimeout_ms = 500",
                "[metrics.sqleval]\ncompat = \"sqleval\"",
            )
            .replace("exec = 0.5", "sqleval = 0.5");
        let m = Manifest::parse(&dir.path().join("m.toml"), &text).unwrap();
        assert_eq!(m.gold_column.as_deref(), Some("gold"));
        assert_eq!(
            m.metrics.sqleval.unwrap().compat,
            Some(crate::metric::sqleval::Compat::Sqleval)
        );
        assert!(m.metrics.exec.is_none());
    }
}
