//! The comparison tables of the HTML report of set B against set A: per metric, all items and
//! each group (hardness, `db_id`, category or BIRD's difficulty) with A's accuracy, B's and the
//! difference. The numbers are [`Diff`]'s rows, the ones `sqlsuite diff` prints, in the same
//! cells ([`comparison::cell`]).

use serde::Serialize;

use super::super::comparison::{self, AccuracyRow, Grouping};
use super::super::diff::Diff;
use crate::run::Run;

/// One metric's comparison.
#[derive(Serialize)]
pub(super) struct MetricComparison {
    pub metric: String,
    /// All items.
    pub overall: CompareRow,
    /// Per grouping that the items have, in the order of [`comparison::rows`].
    pub groups: Vec<CompareGroup>,
}

/// One grouping's table.
#[derive(Serialize)]
pub(super) struct CompareGroup {
    /// `hardness`, `db_id`, `category` or `difficulty`.
    pub label: &'static str,
    pub rows: Vec<CompareRow>,
}

/// One row: a group's items in A and B.
#[derive(Serialize)]
pub(super) struct CompareRow {
    pub name: String,
    pub items: usize,
    /// `65.00% (13/20)` or `-`.
    pub a: String,
    pub b: String,
    /// `+6.69` or `-`.
    pub delta: String,
    /// What a click on the header sorts by: the accuracies and the difference (−1000 when there
    /// is none, so such rows sort last when descending).
    pub a_key: f64,
    pub b_key: f64,
    pub delta_key: f64,
    /// `up`, `down` or `same` (`-` when there is no difference to speak of).
    pub direction: &'static str,
}

fn key(scored: bool, value: f64) -> f64 {
    if scored {
        (value * 10_000.0).round() / 10_000.0
    } else {
        -1000.0
    }
}

fn compare_row(name: &str, r: &AccuracyRow) -> CompareRow {
    let both = r.a.scored() > 0 && r.b.scored() > 0;
    let delta = r.delta_cell();
    CompareRow {
        name: name.to_owned(),
        items: r.a.items,
        a: comparison::cell(&r.a),
        b: comparison::cell(&r.b),
        direction: if !both {
            "-"
        } else if delta.starts_with('+') && delta != "+0.00" {
            "up"
        } else if delta.starts_with('-') {
            "down"
        } else {
            "same"
        },
        delta,
        a_key: key(r.a.scored() > 0, 100.0 * r.a.accuracy()),
        b_key: key(r.b.scored() > 0, 100.0 * r.b.accuracy()),
        delta_key: key(both, r.delta_points()),
    }
}

/// BIRD calls its category the difficulty.
fn label(run: &Run, grouping: Grouping) -> &'static str {
    match grouping {
        Grouping::Category if run.manifest.format.get_ref() == "bird" => "difficulty",
        g => g.name(),
    }
}

/// Each metric's comparison, from the diff of the two sets.
pub(super) fn metrics(run: &Run, diff: &Diff) -> Vec<MetricComparison> {
    diff.metrics
        .iter()
        .map(|d| {
            let mut groups: Vec<CompareGroup> = Vec::new();
            let mut overall = None;
            for r in &d.accuracy {
                let Some((grouping, name)) = &r.group else {
                    overall = Some(compare_row(&d.metric, r));
                    continue;
                };
                let label = label(run, *grouping);
                if groups.last().is_none_or(|g| g.label != label) {
                    groups.push(CompareGroup {
                        label,
                        rows: Vec::new(),
                    });
                }
                if let Some(g) = groups.last_mut() {
                    g.rows.push(compare_row(name, r));
                }
            }
            MetricComparison {
                metric: d.metric.clone(),
                overall: overall.unwrap_or_else(|| {
                    compare_row(
                        &d.metric,
                        &AccuracyRow {
                            group: None,
                            a: Default::default(),
                            b: Default::default(),
                        },
                    )
                }),
                groups,
            }
        })
        .collect()
}
