//! Exact set match (ESM), the official Spider metric: gold and prediction are parsed against the
//! schema and compared component by component (`spec/exact_match.md`). No database is needed.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;

use super::{ComponentScore, GroupingEntry, Metric, MetricEntry, Resources, Verdict};
use crate::backend::Database;
use crate::config::{FromSection, ManifestError, Section};
use crate::dataset::Item;
use crate::executor::Executor;
use sqlsuite_reference::spider_sql::{self, Mode};

// What other modules need of the reference: the component names of the official report, and
// the schemas exact match parses against (read from `tables.json`).
pub use sqlsuite_reference::spider_sql::{load_schemas, Schema, COMPONENTS};

/// `[metrics.exact_match]` options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExactMatchOptions {
    /// Which exact match.
    pub mode: EsmMode,
}

/// Which exact match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EsmMode {
    /// The reference's verdicts, known behaviours included (default).
    #[default]
    Official,
    /// Also compares JOIN ON predicates and LIMIT values; no `value` substring replacement.
    Strict,
    /// The SParC-era evaluator: FROM tables compared only when the gold joins tables.
    #[serde(rename = "legacy_sparc")]
    LegacySparc,
}

impl FromSection for ExactMatchOptions {
    fn from_section(section: &Section<'_>) -> Result<Self, ManifestError> {
        section.read()
    }
}

/// `[metrics.exact_match]` in the registry.
pub const ENTRY: MetricEntry = MetricEntry {
    name: "exact_match",
    runs_queries: false,
    build,
};

fn build(section: &Section<'_>, resources: &Resources) -> Result<Box<dyn Metric>, ManifestError> {
    let options = ExactMatchOptions::from_section(section)?;
    let Some(schemas) = resources.schemas.clone() else {
        let why = "exact_match parses queries against the schema: set [dataset] tables \
                   (a Spider tables.json)";
        return Err(section.error(why));
    };
    Ok(Box::new(ExactMatch::new(&options, schemas)))
}

/// The exact-match metric over a dataset's schemas.
#[derive(Debug, Clone)]
pub struct ExactMatch {
    mode: Mode,
    schemas: Arc<HashMap<String, Schema>>,
}

impl ExactMatch {
    /// The metric with `options`, parsing against `schemas` (by `db_id`).
    pub fn new(options: &ExactMatchOptions, schemas: Arc<HashMap<String, Schema>>) -> ExactMatch {
        let mode = match options.mode {
            EsmMode::Official => Mode::Official,
            EsmMode::Strict => Mode::Strict,
            EsmMode::LegacySparc => Mode::LegacySparc,
        };
        ExactMatch { mode, schemas }
    }
}

impl Metric for ExactMatch {
    fn name(&self) -> &'static str {
        "exact_match"
    }

    fn needs_database(&self) -> bool {
        false
    }

    fn evaluate(&self, item: &Item, prediction: &str, _: &[Database], _: &Executor) -> Verdict {
        let Some(schema) = self.schemas.get(&item.db_id) else {
            return Verdict::gold_error(format!(
                "no schema for db_id {:?} in tables.json",
                item.db_id
            ));
        };
        let outcome = match spider_sql::exact_match(schema, &item.gold, prediction, self.mode) {
            Ok(o) => o,
            Err(e) => return Verdict::gold_error(format!("the gold does not parse: {e}")),
        };
        let components = outcome
            .partial
            .iter()
            .map(|(name, p)| ComponentScore {
                component: name,
                acc: p.acc,
                rec: p.rec,
                f1: p.f1,
                label_total: p.label_total,
                pred_total: p.pred_total,
            })
            .collect();
        let verdict = if outcome.exact {
            Verdict::correct()
        } else if let Some(error) = &outcome.pred_parse_error {
            Verdict::incorrect(
                "parse_error",
                format!("the prediction does not parse: {error}"),
                format!("gold hardness: {}\n", outcome.hardness.as_str()),
            )
        } else {
            Verdict::incorrect(
                "components_differ",
                format!(
                    "components differ: {}",
                    outcome.differing_components.join(", ")
                ),
                format!("gold hardness: {}\n", outcome.hardness.as_str()),
            )
        };
        verdict.with_components(components)
    }
}

/// Spider's hardness (`easy`, `medium`, `hard`, `extra`) as a grouping of items, for datasets
/// with a schema to parse their golds against.
pub const HARDNESS: GroupingEntry = GroupingEntry {
    name: "hardness",
    order: &["easy", "medium", "hard", "extra"],
    label: |item, resources| {
        let schemas = resources.schemas.as_ref()?;
        hardness(schemas, item).map(str::to_owned)
    },
};

/// The hardness of a gold query, if it parses against the schema.
pub fn hardness(schemas: &HashMap<String, Schema>, item: &Item) -> Option<&'static str> {
    let schema = schemas.get(&item.db_id)?;
    let sql = spider_sql::parse(schema, &item.gold).ok()?;
    Some(spider_sql::hardness(&sql).as_str())
}
