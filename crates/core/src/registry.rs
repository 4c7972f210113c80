//! The composition root: the one place that turns a manifest into a dataset's inputs, a backend
//! and metrics.
//!
//! Every gold format, backend, metric and gold check is one entry in one of the lists below: its
//! name, what it needs, and a factory that reads its own manifest table. The manifest knows
//! none of them, and they know no manifest (each reads only the [`Section`] it is handed). So a
//! new format, backend or metric is one new file that defines its `ENTRY`, plus one line here.
//!
//! [`compose`] validates everything the manifest says before it reports missing input files,
//! so a typo is an error even where the data is absent.

use std::path::PathBuf;
use std::sync::Arc;

use crate::backend::{self, BackendEntry, Databases, Naming};
use crate::config::{ManifestError, Section};
use crate::dataset::{self, DatabaseLocator, DatasetError, FormatEntry, Inputs, PredictionInput};
use crate::gold_check::{self, GoldCheckEntry};
use crate::manifest::{LoadError, Manifest, WhenMissing};
use crate::metric::{self, exact_match, GroupingEntry, Metric, MetricEntry, Resources};

/// The gold file formats, by `[dataset] format`.
pub const FORMATS: &[FormatEntry] = &[
    dataset::spider::ENTRY,
    dataset::bird::ENTRY,
    dataset::classical::ENTRY,
    dataset::interactions::ENTRY,
    dataset::sqleval::ENTRY,
    dataset::sede::ENTRY,
    dataset::sql2text::ENTRY,
];

/// The backends, by `[databases] backend`; the first is the default.
pub const BACKENDS: &[BackendEntry] = &[
    backend::sqlite::ENTRY,
    #[cfg(feature = "postgres")]
    backend::postgres::ENTRY,
];

/// The metrics, by `[metrics.<name>]`, in the order reports show them.
pub const METRICS: &[MetricEntry] = &[
    metric::exec::ENTRY,
    metric::ex::ENTRY,
    metric::soft_f1::ENTRY,
    metric::r_ves::ENTRY,
    metric::exact_match::ENTRY,
    metric::sqleval::ENTRY,
    #[cfg(feature = "pcm")]
    metric::pcm::ENTRY,
    metric::bleu::ENTRY,
    metric::text_match::ENTRY,
];

/// The gold checks every evaluation runs ([`crate::gold_check`]), in the order reports list
/// their codes.
pub const GOLD_CHECKS: &[GoldCheckEntry] = &[
    gold_check::fails::ENTRY,
    gold_check::empty::ENTRY,
    gold_check::ties::ENTRY,
    gold_check::clock::ENTRY,
    gold_check::suite::ENTRY,
    gold_check::duplicate::ENTRY,
];

/// The groupings of items for per-group reports, by name.
pub const GROUPINGS: &[GroupingEntry] = &[metric::exact_match::HARDNESS];

/// A set of entries to compose manifests with: [`STANDARD`] is sqlsuite's; a test or an
/// embedding program may add its own entries to a copy.
#[derive(Debug, Clone, Copy)]
pub struct Registry {
    /// The gold file formats.
    pub formats: &'static [FormatEntry],
    /// The backends; the first is the default (it runs the queries of a manifest without
    /// `[databases]`, which has none to run).
    pub backends: &'static [BackendEntry],
    /// The metrics, in the order reports show them.
    pub metrics: &'static [MetricEntry],
    /// The groupings every item is labelled with where the dataset allows.
    pub groupings: &'static [GroupingEntry],
}

/// The registry of everything sqlsuite ships.
pub const STANDARD: Registry = Registry {
    formats: FORMATS,
    backends: BACKENDS,
    metrics: METRICS,
    groupings: GROUPINGS,
};

/// Composes `manifest` with the [`STANDARD`] registry.
pub fn compose(manifest: &Manifest) -> Result<Composition, OpenError> {
    STANDARD.compose(manifest)
}

/// [`compose`] for a tool that writes the databases the manifest names rather than reading them
/// (`sqlsuite distill`, whose manifest may glob the suite it is about to write): a
/// `[databases]` glob is checked for form, not for existence. A single database per schema is
/// an original to read, and must exist.
pub fn compose_for_writing_databases(manifest: &Manifest) -> Result<Composition, OpenError> {
    STANDARD.compose_with(manifest, false)
}

/// Errors opening a manifest's evaluation.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The manifest is invalid, or its data is unavailable.
    #[error(transparent)]
    Manifest(#[from] LoadError),
    /// A gold or prediction file could not be read.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// Metrics a caller made for the manifest could not be made.
    #[error("{}: {message}", manifest.display())]
    Metric {
        /// The manifest.
        manifest: PathBuf,
        /// Why.
        message: String,
    },
    /// The backend could not be opened (a server refused the connection).
    #[error("{}: backend: {message}", manifest.display())]
    Backend {
        /// The manifest.
        manifest: PathBuf,
        /// What the backend said.
        message: String,
    },
}

impl From<ManifestError> for OpenError {
    fn from(e: ManifestError) -> Self {
        OpenError::Manifest(LoadError::Invalid(e))
    }
}

/// What a manifest composes to.
#[derive(Debug)]
pub struct Composition {
    /// The gold file format.
    pub format: &'static FormatEntry,
    /// The gold and prediction files.
    pub inputs: Inputs,
    /// The backend that runs the queries: `[databases]`'s, else the registry's default.
    pub backend: &'static BackendEntry,
    /// `[databases]`, configured by its backend; `None` without that section.
    pub databases: Option<Databases>,
    /// The enabled metrics, in report order.
    pub metrics: Vec<Box<dyn Metric>>,
    /// What the metrics were built with (the dataset's schemas).
    pub resources: Resources,
    /// The groupings to label items with.
    pub groupings: Vec<GroupingEntry>,
}

/// The entry `name` of `entries`, or an error at `span` listing the known names.
fn find<'e, E>(
    entries: &'e [E],
    name: &str,
    entry_name: fn(&E) -> &'static str,
    what: &str,
    error: impl FnOnce(String) -> ManifestError,
) -> Result<&'e E, ManifestError> {
    entries
        .iter()
        .find(|e| entry_name(e) == name)
        .ok_or_else(|| {
            let known: Vec<String> = entries
                .iter()
                .map(|e| format!("{:?}", entry_name(e)))
                .collect();
            let known = known.join(", ");
            error(match not_built(what, name) {
                Some(feature) => format!(
                    "{what} {name:?} is not in this build: it needs sqlsuite's cargo feature \
                     {feature:?} (built: {known})"
                ),
                None => format!("unknown {what} {name:?} (known: {known})"),
            })
        })
}

/// The cargo feature that adds the entry `name` (a `backend`, `metric` or `format`), where
/// sqlsuite has it but this build leaves it out.
fn not_built(what: &str, name: &str) -> Option<&'static str> {
    match (what, name) {
        ("backend", "postgres") if !cfg!(feature = "postgres") => Some("postgres"),
        ("metric", "pcm") if !cfg!(feature = "pcm") => Some("pcm"),
        _ => None,
    }
}

/// `names` as prose: `a`, `a and b`, `a, b and c`.
fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl Registry {
    /// Validates a manifest's format, backend, metrics and gate, and builds them.
    pub fn compose(&self, manifest: &Manifest) -> Result<Composition, OpenError> {
        self.compose_with(manifest, true)
    }

    /// [`Registry::compose`]; `databases_must_exist: false` does not count a missing
    /// `[databases]` glob (a test suite still to be written) as missing input.
    ///
    /// The phases, in order: the format, the databases, the enabled metrics, the checks that
    /// span sections, the metrics built. Every phase validates before missing input is
    /// reported, so a typo is an error even where the data is absent.
    fn compose_with(
        &self,
        manifest: &Manifest,
        databases_must_exist: bool,
    ) -> Result<Composition, OpenError> {
        let format = self.format(manifest)?;
        let mut missing = manifest.missing.clone();
        let (backend, databases) = self.databases(manifest, &mut missing, databases_must_exist)?;
        let enabled = self.enabled_metrics(manifest, format)?;
        self.check_metrics(manifest, &enabled, databases.is_some())?;
        let (metrics, resources) = build_metrics(manifest, &enabled)?;
        if !missing.is_empty() {
            return Err(OpenError::Manifest(match manifest.when_missing {
                WhenMissing::Ignore => LoadError::Unavailable(missing),
                WhenMissing::Fail => LoadError::Invalid(missing.remove(0)),
            }));
        }
        Ok(Composition {
            format,
            inputs: inputs(manifest),
            backend,
            databases,
            metrics,
            resources,
            groupings: self.groupings.to_vec(),
        })
    }

    /// `[dataset] format`'s entry; `gold_column` and a set's `column` only for table-shaped
    /// files.
    fn format(&self, manifest: &Manifest) -> Result<&'static FormatEntry, ManifestError> {
        let format = find(
            self.formats,
            manifest.format.get_ref(),
            |f| f.name,
            "format",
            |m| manifest.error(manifest.format.span(), m),
        )?;
        if format.table_columns {
            return Ok(format);
        }
        let table_formats: Vec<String> = self
            .formats
            .iter()
            .filter(|f| f.table_columns)
            .map(|f| format!("format = {:?}", f.name))
            .collect();
        let table_formats = table_formats.join(" or ");
        if let Some(c) = &manifest.gold_column {
            return Err(manifest.error(
                c.span(),
                format!("`gold_column` applies to table-shaped gold files ({table_formats})"),
            ));
        }
        if let Some(c) = manifest.predictions.iter().find_map(|p| p.column.as_ref()) {
            return Err(manifest.error(
                c.span(),
                format!("`column` applies to table-shaped prediction files ({table_formats})"),
            ));
        }
        Ok(format)
    }

    /// `[databases]` configured by its backend (the default backend without the section);
    /// missing input goes to `missing`, except a suite's glob when it need not exist yet.
    fn databases(
        &self,
        manifest: &Manifest,
        missing: &mut Vec<ManifestError>,
        databases_must_exist: bool,
    ) -> Result<(&'static BackendEntry, Option<Databases>), ManifestError> {
        let source = manifest.source();
        let Some(section) = source.section(&["databases"])? else {
            return Ok((&self.backends[0], None));
        };
        let entry = match source.section(&["databases", "backend"])? {
            Some(key) => {
                let name: String = key.read()?;
                find(
                    self.backends,
                    &name,
                    |b| b.name,
                    "backend",
                    |m| key.error(m),
                )?
            }
            None => &self.backends[0],
        };
        let before = missing.len();
        let mut databases = (entry.configure)(&section, missing)?;
        databases.clock = manifest.clock;
        let globs_a_suite = || match &databases.naming {
            naming @ Naming::Files(_) => DatabaseLocator::of(naming).is_ok_and(|l| l.is_suite()),
            Naming::Names(_) | Naming::Suite { .. } => false,
        };
        if !databases_must_exist && globs_a_suite() {
            missing.truncate(before);
        }
        Ok((entry, Some(databases)))
    }

    /// The enabled metrics with their tables, in the registry's order: the `[metrics.*]`
    /// tables, or the format's default metric without any.
    fn enabled_metrics<'m>(
        &self,
        manifest: &'m Manifest,
        format: &FormatEntry,
    ) -> Result<Vec<(&'static MetricEntry, Section<'m>)>, ManifestError> {
        let source = manifest.source();
        let Some(tables) = &manifest.metrics else {
            let entry = find(
                self.metrics,
                format.default_metric,
                |m| m.name,
                "metric",
                |m| manifest.error(0..0, m),
            )?;
            return Ok(vec![(
                entry,
                Section::absent(source, &["metrics", entry.name]),
            )]);
        };
        for (name, span) in tables {
            find(
                self.metrics,
                name,
                |m| m.name,
                "metric",
                |m| manifest.error(span.clone(), m),
            )?;
        }
        let mut enabled = Vec::new();
        for entry in self.metrics.iter().filter(|m| tables.contains_key(m.name)) {
            let section = source
                .section(&["metrics", entry.name])?
                .unwrap_or_else(|| Section::absent(source, &["metrics", entry.name]));
            enabled.push((entry, section));
        }
        Ok(enabled)
    }

    /// What spans sections: some metric is enabled, metrics that run queries have
    /// `[databases]`, the gate's thresholds name enabled metrics.
    fn check_metrics(
        &self,
        manifest: &Manifest,
        enabled: &[(&MetricEntry, Section<'_>)],
        has_databases: bool,
    ) -> Result<(), ManifestError> {
        let names = |keep: fn(&MetricEntry) -> bool| -> Vec<String> {
            self.metrics
                .iter()
                .filter(|m| keep(m))
                .map(|m| format!("[metrics.{}]", m.name))
                .collect()
        };
        if enabled.is_empty() {
            let all = names(|_| true);
            return Err(manifest.error(
                0..0,
                format!(
                    "no metric enabled: add {}",
                    and_list(&all).replace(" and ", " or ")
                ),
            ));
        }
        let running: Vec<String> = enabled
            .iter()
            .filter(|(m, _)| m.runs_queries)
            .map(|(m, _)| m.name.to_owned())
            .collect();
        if !has_databases && !running.is_empty() {
            let without = names(|m| !m.runs_queries);
            let verb = if running.len() == 1 { "runs" } else { "run" };
            return Err(manifest.error(
                0..0,
                format!(
                    "{} {verb} queries: add [databases] (or enable only metrics that need no \
                     database, such as {})",
                    and_list(&running),
                    and_list(&without).replace(" and ", " or ")
                ),
            ));
        }
        for name in manifest.gate.min_accuracy.keys() {
            if !enabled.iter().any(|(m, _)| m.name == name) {
                let span = manifest.gate_spans.get(name).cloned().unwrap_or(0..0);
                return Err(manifest.error(
                    span,
                    format!("gate.min_accuracy names metric {name:?}, which is not enabled"),
                ));
            }
        }
        Ok(())
    }
}

/// The enabled metrics built from their tables, and the resources they were built with (the
/// schemas of `tables`, read when the file is there: a missing one is reported with the other
/// missing inputs, and the metrics are still built so that their options are checked).
fn build_metrics(
    manifest: &Manifest,
    enabled: &[(&MetricEntry, Section<'_>)],
) -> Result<(Vec<Box<dyn Metric>>, Resources), OpenError> {
    let mut resources = Resources::default();
    if let Some(tables) = &manifest.tables {
        let schemas = if tables.is_file() {
            exact_match::load_schemas(tables).map_err(DatasetError::from)?
        } else {
            Default::default()
        };
        resources.schemas = Some(Arc::new(schemas));
    }
    let metrics = enabled
        .iter()
        .map(|(entry, section)| (entry.build)(section, &resources))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((metrics, resources))
}

/// The gold and prediction files the manifest names.
fn inputs(manifest: &Manifest) -> Inputs {
    Inputs {
        name: manifest.name.clone(),
        gold: manifest.gold.clone(),
        gold_column: manifest.gold_column.as_ref().map(|c| c.get_ref().clone()),
        subset: manifest.subset.clone(),
        predictions: manifest
            .predictions
            .iter()
            .map(|p| PredictionInput {
                name: p.name.clone(),
                file: p.file.clone(),
                column: p.column.as_ref().map(|c| c.get_ref().clone()),
                extract: p.extract,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    use crate::backend::Naming;
    use crate::manifest::{Distill, GateMode};
    use crate::metric::exec::ExecOptions;

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

    /// Found while writing the reader fuzzing: a manifest with invalid UTF-8 was an error without a line.
    #[test]
    fn invalid_utf8_in_a_manifest_is_located() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.toml");
        std::fs::write(&path, b"[dataset]\nname = \"a\xffb\"\n").unwrap();
        let e = Manifest::load(&path).unwrap_err().to_string();
        assert_eq!(e, format!("{}:2:10: invalid UTF-8", path.display()));
    }

    #[test]
    fn a_good_manifest_resolves_paths_against_its_directory() {
        let dir = write_tree();
        let path = dir.path().join("m.toml");
        let m = Manifest::parse(&path, GOOD).unwrap();
        assert_eq!(m.gold, dir.path().join("gold.sql"));
        assert_eq!(m.predictions[0].file, dir.path().join("p.txt"));
        assert_eq!(m.gate.mode, GateMode::Regression);
        assert_eq!(exec_options(&m).limits.timeout_ms, 500);
        assert_eq!(m.snapshots, dir.path().join("snapshots"));
        let (_, c) = open(dir.path(), GOOD).unwrap();
        assert_eq!(c.format.name, "spider");
        let names: Vec<&str> = c.metrics.iter().map(|m| m.name()).collect();
        assert_eq!(names, ["exec"]);
        let databases = c.databases.unwrap();
        assert_eq!(databases.backend, "sqlite");
        assert_eq!(
            databases.naming,
            Naming::Files(dir.path().join("db/{db_id}.sqlite").display().to_string())
        );
    }

    /// A manifest's text, loaded and composed as if in `dir`.
    fn open(dir: &Path, text: &str) -> Result<(Manifest, Composition), LoadError> {
        let m = Manifest::parse(&dir.join("m.toml"), text)?;
        match compose(&m) {
            Ok(c) => Ok((m, c)),
            Err(OpenError::Manifest(e)) => Err(e),
            Err(e) => panic!("{e}"),
        }
    }

    fn error_of(text: &str) -> ManifestError {
        let dir = write_tree();
        match open(dir.path(), text) {
            Err(LoadError::Invalid(e)) => e,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    fn exec_options(m: &Manifest) -> ExecOptions {
        m.metric_options("exec").unwrap().unwrap()
    }

    /// `eval --counterexamples`: the key set in `[metrics.exec]`, over what the manifest says,
    /// its other options kept; refused where the manifest has no such table.
    #[test]
    fn a_command_line_flag_sets_a_metric_option() {
        let dir = write_tree();
        for text in [
            GOOD.to_owned(),
            GOOD.replace(
                "timeout_ms = 500",
                "timeout_ms = 500\ncounterexamples = false",
            ),
        ] {
            let (m, _) = open(dir.path(), &text).unwrap();
            assert!(!exec_options(&m).counterexamples);
            let on = m.with_metric_flag("exec", "counterexamples", true).unwrap();
            let options = exec_options(&on);
            assert!(options.counterexamples);
            assert_eq!(
                options,
                ExecOptions {
                    counterexamples: true,
                    ..exec_options(&m)
                }
            );
            assert_eq!(on.predictions, m.predictions);
        }
        let (m, _) = open(dir.path(), GOOD).unwrap();
        match m.with_metric_flag("exact_match", "counterexamples", true) {
            Err(LoadError::Invalid(e)) => assert!(e.message.contains("no [metrics.exact_match]")),
            other => panic!("{other:?}"),
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
    fn exec_compat_turns_tie_aware_order_off_and_refuses_it_on() {
        let dir = write_tree();
        let (m, _) = open(dir.path(), GOOD).unwrap();
        assert!(exec_options(&m).tie_aware());
        let compat = GOOD.replace(
            "timeout_ms = 500",
            "timeout_ms = 500\ncompat = \"test_suite_sql_eval\"",
        );
        let (m, _) = open(dir.path(), &compat).unwrap();
        assert!(!exec_options(&m).tie_aware());
        let e = error_of(&compat.replace(
            "timeout_ms = 500",
            "timeout_ms = 500\ntie_aware_order = true",
        ));
        assert!(
            e.message
                .contains("tie_aware_order = true contradicts compat"),
            "{e}"
        );
        let e = error_of(&GOOD.replace("timeout_ms = 500", "compat = \"spider\""));
        assert!(e.message.contains("unknown variant"), "{e}");
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
        match open(dir.path(), &text) {
            Err(LoadError::Unavailable(reasons)) => {
                assert!(reasons[0].message.contains("gold file"), "{reasons:?}")
            }
            other => panic!("{other:?}"),
        }
        // A wrong option is an error even where the data is missing.
        let typo = text.replace("timeout_ms = 500", "timeout = 500");
        match open(dir.path(), &typo) {
            Err(LoadError::Invalid(e)) => assert!(e.message.contains("unknown field"), "{e}"),
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

    #[cfg(feature = "pcm")]
    #[test]
    fn metrics_without_queries_need_no_databases() {
        let dir = write_tree();
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
        let (m, c) = open(dir.path(), sede).unwrap();
        assert_eq!(c.format.name, "sede");
        assert!(m.databases.is_none() && c.databases.is_none());
        let pcm: crate::metric::pcm::PcmOptions = m.metric_options("pcm").unwrap().unwrap();
        assert_eq!(pcm.compat, Some(crate::metric::pcm::PcmCompat::Sede));
        let e = error_of(&sede.replace("[metrics.pcm]", "[metrics.exec]\n[metrics.pcm]"));
        assert!(
            e.message.contains("exec runs queries: add [databases]"),
            "{e}"
        );
        let e = error_of(&sede.replace(
            "[metrics.pcm]",
            "[metrics.exec]\n[metrics.sqleval]\n[metrics.pcm]",
        ));
        assert!(e.message.contains("exec and sqleval run queries"), "{e}");
        // Without [metrics], SEDE gets PCM (it has no databases to execute on).
        let (_, c) = open(
            dir.path(),
            &sede.replace("[metrics.pcm]\ncompat = \"sede\"\n", ""),
        )
        .unwrap();
        assert_eq!(c.metrics[0].name(), "pcm");
        let e = error_of(&sede.replace("compat = \"sede\"", "compat = \"spider\""));
        assert!(e.message.contains("unknown variant"), "{e}");
    }

    #[test]
    fn database_pattern_needs_db_id() {
        let e = error_of(&GOOD.replace("db/{db_id}.sqlite", "db/x.sqlite"));
        assert!(e.message.contains("{db_id}"), "{e}");
        assert_eq!(e.line, 8);
    }

    #[cfg(feature = "postgres")]
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
        match open(dir.path(), &pg) {
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

    #[cfg(feature = "postgres")]
    #[test]
    fn a_postgres_suite_is_a_glob_of_files_named_by_file() {
        let suite = |keys: &str| {
            GOOD.replace(
                "path = \"db/{db_id}.sqlite\"",
                &format!("backend = \"postgres\"\nconnection_env = \"SQLSUITE_TEST_NO_SUCH_VAR\"\n{keys}"),
            )
        };
        let e = error_of(&suite(
            "suite = \"s/{db_id}/*.sqlite\"\nname = \"bird_{db_id}\"",
        ));
        assert!(e.message.contains("must contain {file}"), "{e}");
        let e = error_of(&suite("suite = \"s/{db_id}/a.sqlite\""));
        assert!(e.message.contains("suite must be a glob"), "{e}");
        let e = error_of(&suite("name = \"bird\""));
        assert!(e.message.contains("must contain {db_id}"), "{e}");
    }

    /// Found when writing BIRD's manifest: the metrics without options of their own rejected
    /// the query limits they document.
    #[test]
    fn bird_metrics_take_the_query_limits_and_nothing_else() {
        let dir = write_tree();
        for metric in ["ex", "soft_f1", "r_ves"] {
            let text = GOOD
                .replace("[metrics.exec]", &format!("[metrics.{metric}]"))
                .replace("timeout_ms = 500", "timeout_ms = 500\nmax_rows = 10")
                .replace("exec = 0.5", &format!("{metric} = 0.5"));
            let (_, c) = open(dir.path(), &text).unwrap_or_else(|e| panic!("{metric}: {e}"));
            assert_eq!(c.metrics[0].name(), metric);
            let e = error_of(&text.replace("max_rows = 10", "keep_distinct = true"));
            assert!(
                e.message.contains("unknown field `keep_distinct`"),
                "{metric}: {e}"
            );
            assert_eq!(e.line, 16, "{metric}: {e}");
        }
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
        let (m, c) = open(dir.path(), &text).unwrap();
        assert_eq!(c.inputs.gold_column.as_deref(), Some("gold"));
        let options: crate::metric::sqleval::SqlevalOptions =
            m.metric_options("sqleval").unwrap().unwrap();
        assert_eq!(
            options.compat,
            Some(crate::metric::sqleval::Compat::Sqleval)
        );
        let names: Vec<&str> = c.metrics.iter().map(|m| m.name()).collect();
        assert_eq!(names, ["sqleval"]);
    }
}

/// The registry's own consistency, and what adding an entry takes.
#[cfg(test)]
mod entry_tests {
    use std::collections::HashMap;
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::config::Source;

    fn unique(names: Vec<&'static str>, what: &str) {
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(
            sorted.len(),
            names.len(),
            "duplicate {what} names: {names:?}"
        );
    }

    #[test]
    fn every_entry_agrees_with_what_it_builds() {
        unique(FORMATS.iter().map(|f| f.name).collect(), "format");
        unique(BACKENDS.iter().map(|b| b.name).collect(), "backend");
        unique(METRICS.iter().map(|m| m.name).collect(), "metric");
        let dir = tempfile::tempdir().unwrap();
        let source = Source::new(&dir.path().join("m.toml"), "");
        let resources = Resources {
            schemas: Some(Arc::new(HashMap::new())),
        };
        for entry in METRICS {
            let section = Section::absent(&source, &["metrics", entry.name]);
            let metric = (entry.build)(&section, &resources)
                .unwrap_or_else(|e| panic!("{}: its defaults do not build: {e}", entry.name));
            assert_eq!(
                metric.name(),
                entry.name,
                "a metric names itself as its entry"
            );
            assert_eq!(
                metric.needs_database(),
                entry.runs_queries,
                "{}: the entry and the metric disagree on running queries",
                entry.name
            );
        }
        for format in FORMATS {
            assert!(
                METRICS.iter().any(|m| m.name == format.default_metric)
                    || not_built("metric", format.default_metric).is_some(),
                "format {}: default metric {} is not registered",
                format.name,
                format.default_metric
            );
        }
        std::fs::create_dir(dir.path().join("db")).unwrap();
        for backend in BACKENDS {
            // Each backend reads its own keys: one of these tables must configure it.
            let configured: Vec<_> = ["", "path = \"db/{db_id}.sqlite\"\n"]
                .iter()
                .filter_map(|extra| {
                    let text = format!("[databases]\nbackend = {:?}\n{extra}", backend.name);
                    let source = Source::new(&dir.path().join("m.toml"), &text);
                    let section = source.section(&["databases"]).unwrap().unwrap();
                    (backend.configure)(&section, &mut Vec::new()).ok()
                })
                .collect();
            assert!(
                !configured.is_empty(),
                "backend {} never configures",
                backend.name
            );
            for d in configured {
                assert_eq!(
                    d.backend, backend.name,
                    "a backend names itself as its entry"
                );
            }
        }
        // The manifest reference documents every name a manifest may use.
        let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec/manifest.md");
        let spec = std::fs::read_to_string(&spec).unwrap();
        for name in FORMATS.iter().map(|f| f.name) {
            assert!(
                spec.contains(&format!("`\"{name}\"`")),
                "spec/manifest.md: format {name}"
            );
        }
        for name in BACKENDS.iter().map(|b| b.name) {
            assert!(
                spec.contains(&format!("`\"{name}\"`")),
                "spec/manifest.md: backend {name}"
            );
        }
        for name in METRICS.iter().map(|m| m.name) {
            assert!(
                spec.contains(&format!("[metrics.{name}]")),
                "spec/manifest.md: metric {name}"
            );
        }
    }
}

#[cfg(test)]
mod gold_check_tests {
    use super::GOLD_CHECKS;

    /// Every check's codes are distinct and documented in spec/gold_checks.md's table.
    #[test]
    fn codes_are_unique_and_documented() {
        let spec = include_str!("../../../spec/gold_checks.md");
        let mut codes: Vec<&str> = GOLD_CHECKS
            .iter()
            .flat_map(|c| c.codes.iter().copied())
            .collect();
        for code in &codes {
            assert!(
                spec.contains(&format!("| `{code}` |")),
                "{code} is not in the spec's table"
            );
        }
        let n = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), n, "a code found by two checks");
    }
}
