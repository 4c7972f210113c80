//! `unreliable`, `fails_on_suite`: what the distiller found about the gold when it built the
//! item's test suite (`report.json`, written beside the suites by `sqlsuite distill`): no
//! suite database tells the gold from a neighbor of a known-hard kind, so the suite may accept
//! a wrong prediction of that kind (`reliable: false`); or the gold fails on some of the
//! schema's suite databases, which were left out of its suite (`fails_on`).
//!
//! Found for items whose databases are a suite (`<out>/<db_id>/*.sqlite`) with `<out>/report.json`;
//! a gold is looked up by its `db_id` and text.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Finding, GoldCheckEntry, GoldContext};

/// The distiller's checks in the registry.
pub const ENTRY: GoldCheckEntry = GoldCheckEntry {
    name: "suite",
    codes: &["unreliable", "fails_on_suite"],
    runs_queries: false,
    run,
};

/// The distiller's report file, beside the schemas' suite directories.
pub const REPORT: &str = "report.json";

/// What this check reads of one gold in `report.json`.
#[derive(Debug, Deserialize)]
struct GoldReport {
    db_id: String,
    gold: String,
    #[serde(default = "yes")]
    reliable: bool,
    #[serde(default)]
    undistinguished: Vec<Neighbor>,
    #[serde(default)]
    fails_on: Vec<String>,
    #[serde(default)]
    first_failure: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Neighbor {
    #[serde(default)]
    sql: String,
    #[serde(default)]
    hard: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct Report {
    #[serde(default)]
    golds: Vec<GoldReport>,
}

fn yes() -> bool {
    true
}

/// `report.json` of the suite item `item`'s databases belong to, if there is one.
fn report_path(context: &GoldContext<'_>, item: usize) -> Option<PathBuf> {
    let dbs = context.databases.get(item)?.as_ref().ok()?;
    let dir = dbs.first()?.as_file()?.parent()?.parent()?;
    let path = dir.join(REPORT);
    path.is_file().then_some(path)
}

/// The golds of a report by (db_id, gold); an unreadable report is no report (the suite's
/// verdicts do not depend on it).
fn read(path: &Path) -> HashMap<(String, String), GoldReport> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return HashMap::new();
    };
    let Ok(report) = serde_json::from_str::<Report>(&text) else {
        return HashMap::new();
    };
    report
        .golds
        .into_iter()
        .map(|g| ((g.db_id.clone(), g.gold.clone()), g))
        .collect()
}

fn findings(gold: &GoldReport) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if !gold.reliable {
        let hard: Vec<&Neighbor> = gold
            .undistinguished
            .iter()
            .filter(|n| n.hard.is_some())
            .collect();
        let example = hard
            .first()
            .map(|n| format!(", e.g. `{}`", n.sql))
            .unwrap_or_default();
        out.push((
            "unreliable",
            format!(
                "the distiller marked its suite unreliable: no suite database tells it from {} \
                 neighbor(s) of a known-hard kind{example}",
                hard.len()
            ),
        ));
    }
    if !gold.fails_on.is_empty() {
        out.push((
            "fails_on_suite",
            format!(
                "fails on {} of the schema's suite databases, left out of its suite{}",
                gold.fails_on.len(),
                gold.first_failure
                    .as_deref()
                    .map(|e| format!(" (first: {e})"))
                    .unwrap_or_default()
            ),
        ));
    }
    out
}

fn run(context: &GoldContext<'_>) -> Vec<Finding> {
    let mut reports: HashMap<PathBuf, HashMap<(String, String), GoldReport>> = HashMap::new();
    let mut found = Vec::new();
    for (i, item) in context.items.iter().enumerate() {
        let Some(path) = report_path(context, i) else {
            continue;
        };
        let golds = reports.entry(path.clone()).or_insert_with(|| read(&path));
        let Some(gold) = golds.get(&(item.db_id.clone(), item.gold.clone())) else {
            continue;
        };
        for (check, reason) in findings(gold) {
            found.push(Finding {
                item: i,
                check,
                reason,
            });
        }
    }
    found
}
