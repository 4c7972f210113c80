//! The HTML report (`sqlsuite report`): one self-contained file (styles and script inline, no
//! request to anywhere) for a person to read one prediction set, optionally against another.
//!
//! It shows the provenance, each metric's summary, what the gold checks found (a "Gold
//! checks" section: each flagged item with its check and reason, and a mark on its row), accuracy per hardness, per `db_id` and per
//! category, and one row per item with a search box and filters; an item that is not correct
//! expands to its gold, prediction and failure message. With a second set (`--against`), the
//! items whose verdict flipped come first, regressions before fixes. An item with a minimal
//! counterexample (`spec/counterexample.md`) shows it as small tables: the rows left in each
//! table the queries read, then both results on them. The template is
//! `report.html.j2` beside this file, rendered with minijinja (which escapes every value).

use std::collections::BTreeMap;

use minijinja::value::Serde;
use minijinja::Environment;
use serde::Serialize;

use super::diff::Diff;
use super::message;
use super::snapshot::{self, Accepted};
use super::summary::{Summary, Tally};
use crate::counterexample::{Found, Rows};
use crate::metric::exact_match::HARDNESS;
use crate::metric::Status;
use crate::run::{ItemResult, Run, SetRun};

const TEMPLATE: &str = include_str!("report.html.j2");

/// Errors rendering the report (a template bug, never the data).
#[derive(Debug, thiserror::Error)]
#[error("HTML report template: {0}")]
pub struct RenderError(#[from] minijinja::Error);

#[derive(Serialize)]
struct Page {
    dataset: String,
    predictions: String,
    against: Option<String>,
    provenance: String,
    metrics: Vec<MetricSection>,
    items: Vec<Row>,
    db_ids: Vec<String>,
    /// Every hardness and every verdict code (`exec=row_count`) of the items, for the filters.
    hardnesses: Vec<String>,
    codes: Vec<String>,
    regressed: usize,
    fixed: usize,
    gold_checks: GoldChecksSection,
}

/// The "Gold checks" section: the count line and one row per finding.
#[derive(Serialize)]
struct GoldChecksSection {
    line: String,
    rows: Vec<FindingRow>,
}

#[derive(Serialize)]
struct FindingRow {
    /// The item's index as the items table shows it (its anchor `item-<index>`).
    index: String,
    db_id: String,
    check: &'static str,
    reason: String,
    gold: String,
}

fn gold_checks_section(run: &Run) -> GoldChecksSection {
    let width = run.index_width();
    GoldChecksSection {
        line: super::gold_checks::line(&run.gold_checks),
        rows: run
            .gold_checks
            .findings
            .iter()
            .map(|f| FindingRow {
                index: format!("{:0width$}", f.item),
                db_id: run
                    .items
                    .get(f.item)
                    .map_or_else(String::new, |i| i.db_id.clone()),
                check: f.check,
                reason: f.reason.clone(),
                gold: run
                    .items
                    .get(f.item)
                    .map_or_else(String::new, |i| i.gold.clone()),
            })
            .collect(),
    }
}

#[derive(Serialize)]
struct MetricSection {
    name: String,
    summary: String,
    /// Each grouping that has more than one group or is named: `(label, rows)`.
    groups: Vec<Group>,
}

#[derive(Serialize)]
pub(super) struct Group {
    pub label: String,
    pub rows: Vec<GroupRow>,
}

#[derive(Serialize)]
pub(super) struct GroupRow {
    pub name: String,
    pub items: usize,
    pub scored: usize,
    pub correct: usize,
    /// `61.25%`, or `-` when nothing was scored.
    pub accuracy: String,
    /// The accuracy on a 0–100 scale for the chart's bar (0 when nothing was scored).
    pub percent: f64,
}

#[derive(Serialize)]
struct Row {
    index: String,
    db_id: String,
    hardness: Option<String>,
    category: Option<String>,
    /// `correct`, `incorrect`, `gold_error` or `skipped` (the item's overall status).
    status: &'static str,
    /// `regressed`, `fixed` or empty.
    flip: &'static str,
    /// `exec=row_count exact_match=correct`.
    codes: String,
    /// The other set's codes, with `--against`.
    against_codes: Option<String>,
    /// The failure message (gold, prediction, reasons), for items not correct.
    message: Option<String>,
    /// The first metric's reason that is not correct (`exec: values differ`), or `correct`.
    reason: String,
    question: Option<String>,
    /// BIRD's external knowledge, if the item has any.
    evidence: Option<String>,
    gold: String,
    prediction: String,
    /// `(check, reason)` of each gold check that flags the item's gold.
    gold_checks: Vec<(&'static str, String)>,
    /// The exec metric's counterexample as small tables: each table the queries read, then
    /// both results on it (empty without one).
    counterexample: Vec<CxTable>,
}

/// One small table of a counterexample.
#[derive(Serialize)]
struct CxTable {
    caption: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl CxTable {
    fn of(caption: &str, rows: &Rows) -> CxTable {
        let count = match rows.count {
            Some(1) => "1 row".to_owned(),
            Some(n) => format!("{n} rows"),
            None => format!("more than {} rows", rows.at_least),
        };
        CxTable {
            caption: format!("{caption} ({count})"),
            columns: rows.columns.clone(),
            rows: rows
                .rows
                .iter()
                .map(|r| r.iter().map(ToString::to_string).collect())
                .collect(),
        }
    }
}

/// The first shown counterexample of an item's verdicts as tables.
fn counterexample_tables(result: &ItemResult) -> Vec<CxTable> {
    let shown = result
        .verdicts
        .iter()
        .find_map(|(_, v)| match v.counterexample.as_deref() {
            Some(Found::Shown(c)) => Some(c),
            _ => None,
        });
    let Some(c) = shown else {
        return Vec::new();
    };
    let mut tables: Vec<CxTable> = c
        .tables
        .iter()
        .map(|t| CxTable::of(&format!("counterexample: table {}", t.table), &t.rows))
        .collect();
    tables.push(CxTable::of("gold on it", &c.gold));
    tables.push(CxTable::of("prediction on it", &c.predicted));
    tables
}

pub(super) fn status_name(status: Status) -> &'static str {
    match status {
        Status::Correct => "correct",
        Status::Incorrect => "incorrect",
        Status::GoldError => "gold_error",
        Status::Skipped => "skipped",
    }
}

pub(super) fn group(label: &str, tallies: &BTreeMap<String, Tally>) -> Group {
    Group {
        label: label.to_owned(),
        rows: tallies.iter().map(|(name, t)| group_row(name, t)).collect(),
    }
}

fn group_row(name: &str, t: &Tally) -> GroupRow {
    GroupRow {
        name: name.to_owned(),
        items: t.items,
        scored: t.scored(),
        correct: t.correct,
        accuracy: if t.scored() == 0 {
            "-".to_owned()
        } else {
            format!("{:.2}%", 100.0 * t.accuracy())
        },
        percent: if t.scored() == 0 {
            0.0
        } else {
            (1000.0 * t.accuracy()).round() / 10.0
        },
    }
}

/// Accuracy per Spider hardness, in the official order (easy, medium, hard, extra), as the
/// summary tallies it; `None` when the items have no hardness.
pub(super) fn hardness_group(summary: &Summary) -> Option<Group> {
    (!summary.by_hardness.is_empty()).then(|| Group {
        label: HARDNESS.name.to_owned(),
        rows: summary
            .by_hardness
            .iter()
            .map(|(name, t)| group_row(name, t))
            .collect(),
    })
}

/// What a report compares its prediction set with.
#[derive(Debug, Clone, Copy)]
pub enum Against<'a> {
    /// Another prediction set of the run.
    Set(&'a SetRun),
    /// The set's accepted snapshot: the verdict codes recorded there.
    Snapshot(&'a Accepted),
}

/// The report of set `set`, against `against` if given.
pub fn render(run: &Run, set: &SetRun, against: Option<Against>) -> Result<String, RenderError> {
    let mut regressed_items = Vec::new();
    let mut fixed_items = Vec::new();
    match against {
        Some(Against::Set(b)) => {
            for m in &Diff::of(run, b, set).metrics {
                regressed_items.extend(m.regressed.values().flatten().copied());
                fixed_items.extend(m.newly_correct.values().flatten().copied());
            }
        }
        Some(Against::Snapshot(accepted)) => {
            let f = snapshot::flips(set, accepted);
            regressed_items = f.regressed;
            fixed_items = f.fixed;
        }
        None => {}
    }
    let against_codes = |i: usize| match against? {
        Against::Set(b) => Some(b.results[i].codes()),
        Against::Snapshot(accepted) => Some(accepted.codes.get(&i).map_or_else(
            || "(not in the snapshot)".to_owned(),
            |per_metric| {
                per_metric
                    .iter()
                    .map(|(m, c)| format!("{m}={c}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            },
        )),
    };
    let flip = |i: usize| {
        if regressed_items.contains(&i) {
            "regressed"
        } else if fixed_items.contains(&i) {
            "fixed"
        } else {
            ""
        }
    };

    let metrics = run
        .metrics
        .iter()
        .map(|&metric| {
            let s = Summary::of(run, set, metric);
            let mut groups: Vec<Group> = hardness_group(&s).into_iter().collect();
            groups.push(group("db_id", &s.by_db));
            if !s.by_category.is_empty() {
                groups.push(group("category", &s.by_category));
            }
            MetricSection {
                name: metric.to_owned(),
                summary: s.render_overview().trim_end().to_owned(),
                groups,
            }
        })
        .collect();

    let width = run.index_width();
    let mut items: Vec<Row> = run
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let judged = run.judged(set, i);
            let status = judged.result.status();
            Row {
                index: format!("{i:0width$}"),
                db_id: item.db_id.clone(),
                hardness: item.group(HARDNESS.name).map(str::to_owned),
                category: item.category.clone(),
                status: status_name(status),
                flip: flip(i),
                codes: judged.result.codes(),
                against_codes: against_codes(i),
                message: (status != Status::Correct).then(|| message::failure(judged)),
                reason: judged
                    .result
                    .verdicts
                    .iter()
                    .find(|(_, v)| v.status != Status::Correct)
                    .map_or_else(
                        || "correct".to_owned(),
                        |(m, v)| format!("{m}: {}", v.reason),
                    ),
                question: item.question.clone(),
                evidence: item.evidence.clone().filter(|e| !e.is_empty()),
                gold: item.gold.clone(),
                prediction: judged.prediction.to_owned(),
                counterexample: counterexample_tables(judged.result),
                gold_checks: run
                    .gold_checks
                    .of_item(i)
                    .map(|f| (f.check, f.reason.clone()))
                    .collect(),
            }
        })
        .collect();
    // Flipped items first: regressions, then fixes; each in item order (the sort is stable).
    items.sort_by_key(|r| match r.flip {
        "regressed" => 0,
        "fixed" => 1,
        _ => 2,
    });
    let mut db_ids: Vec<String> = run.items.iter().map(|i| i.db_id.clone()).collect();
    db_ids.sort();
    db_ids.dedup();
    let mut hardnesses: Vec<String> = items.iter().filter_map(|r| r.hardness.clone()).collect();
    let order = HARDNESS.order;
    hardnesses.sort_by_key(|h| order.iter().position(|o| o == h).unwrap_or(order.len()));
    hardnesses.dedup();
    let mut all_codes: Vec<String> = items
        .iter()
        .flat_map(|r| r.codes.split(' ').map(str::to_owned))
        .collect();
    all_codes.sort();
    all_codes.dedup();

    let page = Page {
        dataset: run.dataset.clone(),
        predictions: set.name.clone(),
        against: against.map(|a| match a {
            Against::Set(b) => b.name.clone(),
            Against::Snapshot(_) => "the accepted snapshot".to_owned(),
        }),
        provenance: run.provenance_of(set).render(),
        metrics,
        regressed: items.iter().filter(|r| r.flip == "regressed").count(),
        fixed: items.iter().filter(|r| r.flip == "fixed").count(),
        items,
        db_ids,
        hardnesses,
        codes: all_codes,
        gold_checks: gold_checks_section(run),
    };
    let mut env = Environment::new();
    // The name ends in `.html`: minijinja escapes every value for HTML.
    env.add_template("report.html", TEMPLATE)?;
    Ok(env
        .get_template("report.html")?
        .render(minijinja::Value::from(Serde(&page)))?)
}
