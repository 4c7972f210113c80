//! The HTML report (`sqlsuite report`): one self-contained file (styles and script inline, no
//! request to anywhere) for a person to read one prediction set, optionally against another.
//!
//! It shows the provenance, each metric's summary, what the gold checks found (a "Gold
//! checks" section: each flagged item with its check and reason, and a mark on its row), accuracy per hardness, per `db_id` and per
//! category, and one row per item with a search box and filters; an item opens to its question,
//! its gold and prediction (line breaks at clauses, [`super::sql_format`]) and why it failed.
//! With a second set (`--against`), the page is a comparison: A's accuracy, B's and the
//! difference per metric and group (`html/compare.rs`, the numbers `sqlsuite diff` prints), the items
//! whose verdict flipped first (regressions before fixes) on the first screen, and each item
//! opens to both sets' predictions. An item with a minimal counterexample
//! (`spec/counterexample.md`) shows it as small tables: the rows left in each table the queries
//! read, then both results on them. Every table sorts by a click on a header. The templates are
//! `report.html.j2` (with `report_items.html.j2` and `sortable.js.j2`) beside this file,
//! rendered with minijinja (which escapes every value).

mod compare;
mod rows;

use std::collections::BTreeMap;

use minijinja::value::Serde;
use minijinja::Environment;
use serde::Serialize;

use super::diff::Diff;
use super::snapshot::{self, Accepted};
use super::summary::{Summary, Tally};
use crate::metric::exact_match::HARDNESS;
use crate::metric::Status;
use crate::run::{Run, SetRun};

const TEMPLATE: &str = include_str!("report.html.j2");
const ITEMS_TEMPLATE: &str = include_str!("report_items.html.j2");
/// The script that sorts a table by the header clicked (both report pages).
pub(super) const SORTABLE: &str = include_str!("sortable.js.j2");

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
    /// With another set: A's, B's accuracy and the difference per metric and group.
    comparison: Vec<compare::MetricComparison>,
    items: Vec<rows::Row>,
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
    /// Where the chart's bars start: room for the longest name whole (at least 132 px).
    pub bar_x: usize,
}

impl Group {
    fn new(label: &str, rows: Vec<GroupRow>) -> Group {
        // About 7 px per character of the chart's 11 px font, and a margin.
        let longest = rows.iter().map(|r| r.name.chars().count()).max();
        Group {
            label: label.to_owned(),
            bar_x: longest.map_or(132, |n| (n * 7 + 12).max(132)),
            rows,
        }
    }
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

pub(super) fn status_name(status: Status) -> &'static str {
    match status {
        Status::Correct => "correct",
        Status::Incorrect => "incorrect",
        Status::GoldError => "gold_error",
        Status::Skipped => "skipped",
    }
}

pub(super) fn group(label: &str, tallies: &BTreeMap<String, Tally>) -> Group {
    Group::new(
        label,
        tallies.iter().map(|(name, t)| group_row(name, t)).collect(),
    )
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
    (!summary.by_hardness.is_empty()).then(|| {
        Group::new(
            HARDNESS.name,
            summary
                .by_hardness
                .iter()
                .map(|(name, t)| group_row(name, t))
                .collect(),
        )
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

/// The items that flipped: regressed and fixed, each in item order (or the diff's order).
fn flips(run: &Run, set: &SetRun, against: Option<Against>) -> (Vec<usize>, Vec<usize>) {
    let mut regressed = Vec::new();
    let mut fixed = Vec::new();
    match against {
        Some(Against::Set(a)) => {
            for m in &Diff::of(run, a, set).metrics {
                regressed.extend(m.regressed.values().flatten().copied());
                fixed.extend(m.newly_correct.values().flatten().copied());
            }
        }
        Some(Against::Snapshot(accepted)) => {
            let f = snapshot::flips(set, accepted);
            regressed = f.regressed;
            fixed = f.fixed;
        }
        None => {}
    }
    (regressed, fixed)
}

/// The other side's codes of item `i`: the other set's, or the accepted snapshot's.
fn against_codes(against: Option<Against>, i: usize) -> Option<String> {
    match against? {
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
    }
}

/// Each metric's summary of the reported set, with its groups' tables.
fn metric_sections(run: &Run, set: &SetRun) -> Vec<MetricSection> {
    run.metrics
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
        .collect()
}

/// Every value of `values`, once, in the order `order` gives (then by name).
fn distinct<K: Ord>(mut values: Vec<String>, order: impl Fn(&String) -> K) -> Vec<String> {
    values.sort_by(|x, y| order(x).cmp(&order(y)).then(x.cmp(y)));
    values.dedup();
    values
}

/// The report of set `set`, against `against` if given.
pub fn render(run: &Run, set: &SetRun, against: Option<Against>) -> Result<String, RenderError> {
    let (regressed, fixed) = flips(run, set, against);
    let flip = |i: usize| {
        if regressed.contains(&i) {
            "regressed"
        } else if fixed.contains(&i) {
            "fixed"
        } else {
            ""
        }
    };
    let other = match against {
        Some(Against::Set(a)) => Some(a),
        _ => None,
    };
    let codes_of = |i: usize| against_codes(against, i);
    let cx = rows::Context {
        run,
        set,
        other,
        flip: &flip,
        against_codes: &codes_of,
    };
    let mut items: Vec<rows::Row> = (0..run.items.len()).map(|i| rows::row(&cx, i)).collect();
    // Flipped items first: regressions, then fixes; each in item order (the sort is stable).
    items.sort_by_key(|r| match r.flip {
        "regressed" => 0,
        "fixed" => 1,
        _ => 2,
    });
    let order = HARDNESS.order;
    let hardnesses = distinct(
        items.iter().filter_map(|r| r.hardness.clone()).collect(),
        |h| order.iter().position(|o| o == h).unwrap_or(order.len()),
    );
    let page = Page {
        dataset: run.dataset.clone(),
        predictions: set.name.clone(),
        against: against.map(|a| match a {
            Against::Set(b) => b.name.clone(),
            Against::Snapshot(_) => "the accepted snapshot".to_owned(),
        }),
        provenance: run.provenance_of(set).render(),
        metrics: metric_sections(run, set),
        comparison: other.map_or_else(Vec::new, |a| compare::metrics(run, &Diff::of(run, a, set))),
        regressed: items.iter().filter(|r| r.flip == "regressed").count(),
        fixed: items.iter().filter(|r| r.flip == "fixed").count(),
        db_ids: distinct(run.items.iter().map(|i| i.db_id.clone()).collect(), |_| 0),
        hardnesses,
        codes: distinct(
            items
                .iter()
                .flat_map(|r| r.codes.split(' ').map(str::to_owned))
                .collect(),
            |_| 0,
        ),
        items,
        gold_checks: gold_checks_section(run),
    };
    let mut env = Environment::new();
    // The names end in `.html`: minijinja escapes every value for HTML.
    env.add_template("report.html", TEMPLATE)?;
    env.add_template("report_items.html", ITEMS_TEMPLATE)?;
    env.add_template("sortable.html", SORTABLE)?;
    Ok(env
        .get_template("report.html")?
        .render(minijinja::Value::from(Serde(&page)))?)
}
