//! Two prediction sets of one dataset compared item by item (`sqlsuite diff`): each metric's
//! accuracy in both sets and the difference (overall, per hardness and per category when the
//! items have them; per `db_id` on request), and the items whose verdict flipped between correct and incorrect, per
//! metric, in each direction, grouped by reason.
//!
//! An item *regressed* under a metric when set A had it correct and set B incorrect (grouped by
//! B's reason); it is *newly correct* when A had it incorrect and B correct (grouped by A's
//! reason, what was fixed). Items skipped or with a gold error in either set flip neither way;
//! items incorrect in both with another reason are counted as `reason changed`.
//!
//! The terminal text ([`Diff::render`], `diff/text.rs`) shows each flipped item as a block of
//! short lines (question, gold and both predictions, whitespace collapsed and cut to a width).

use std::collections::BTreeMap;

use super::comparison;
use super::summary::Summary;
use crate::metric::Status;
use crate::run::{Run, SetRun};

mod text;

pub use super::comparison::{AccuracyRow, Grouping};
pub use text::RenderOptions;

/// Items by reason code, each list in item order.
pub type ByReason = BTreeMap<String, Vec<usize>>;

/// One metric's flips between two sets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricDiff {
    /// The metric.
    pub metric: String,
    /// Correct in A, incorrect in B: by B's reason.
    pub regressed: ByReason,
    /// Incorrect in A, correct in B: by A's reason.
    pub newly_correct: ByReason,
    /// Incorrect in both, with different reason codes.
    pub reason_changed: Vec<usize>,
    /// Accuracy in A and in B: all items first, then per hardness, per `db_id` and per category
    /// (when the items have them; [`comparison::rows`]).
    pub accuracy: Vec<AccuracyRow>,
}

impl MetricDiff {
    /// Items that regressed.
    pub fn regressions(&self) -> usize {
        self.regressed.values().map(Vec::len).sum()
    }

    /// Items newly correct.
    pub fn fixes(&self) -> usize {
        self.newly_correct.values().map(Vec::len).sum()
    }
}

/// The comparison of set `a` with set `b`.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// The reference set's name (e.g. the deployed model).
    pub a: String,
    /// The name of the set compared with it (e.g. the candidate).
    pub b: String,
    /// Per metric, in the manifest's order.
    pub metrics: Vec<MetricDiff>,
}

impl Diff {
    /// Compares two sets' verdicts.
    pub fn of(run: &Run, a: &SetRun, b: &SetRun) -> Diff {
        let mut metrics: Vec<MetricDiff> = run
            .metrics
            .iter()
            .map(|m| MetricDiff {
                metric: (*m).to_owned(),
                accuracy: comparison::rows(&Summary::of(run, a, m), &Summary::of(run, b, m)),
                ..MetricDiff::default()
            })
            .collect();
        for (i, (ra, rb)) in a.results.iter().zip(&b.results).enumerate() {
            for d in &mut metrics {
                let (Some(va), Some(vb)) = (ra.verdict(&d.metric), rb.verdict(&d.metric)) else {
                    continue;
                };
                match (va.status, vb.status) {
                    (Status::Correct, Status::Incorrect) => {
                        d.regressed.entry(vb.code.clone()).or_default().push(i);
                    }
                    (Status::Incorrect, Status::Correct) => {
                        d.newly_correct.entry(va.code.clone()).or_default().push(i);
                    }
                    (Status::Incorrect, Status::Incorrect) if va.code != vb.code => {
                        d.reason_changed.push(i);
                    }
                    _ => {}
                }
            }
        }
        Diff {
            a: a.name.clone(),
            b: b.name.clone(),
            metrics,
        }
    }

    /// Regressions over all metrics (an item counted once per metric it regressed under).
    pub fn regressions(&self) -> usize {
        self.metrics.iter().map(MetricDiff::regressions).sum()
    }

    /// The terminal text (see the module documentation and [`RenderOptions`]).
    pub fn render(&self, run: &Run, options: &RenderOptions) -> String {
        text::render(self, run, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> Run {
        let manifest =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/demo/demo.toml");
        crate::Evaluation::open(manifest).unwrap().run_all()
    }

    #[test]
    fn flips_are_grouped_by_direction_and_reason() {
        let run = demo();
        let (v1, v2) = (&run.sets[0], &run.sets[1]);
        let d = Diff::of(&run, v1, v2);
        assert_eq!(d.metrics.len(), 1);
        let exec = &d.metrics[0];
        // v2 breaks item 11 and fixes 06, 08 (SQL errors) and 17 (row count), as the demo's
        // README says.
        assert_eq!(
            exec.regressed,
            BTreeMap::from([("rows_differ".into(), vec![11])])
        );
        assert_eq!(
            exec.newly_correct,
            BTreeMap::from([
                ("row_count".into(), vec![17]),
                ("sql_error".into(), vec![6, 8]),
            ])
        );
        assert_eq!(d.regressions(), 1);
        // Accuracy before and after: the summaries' tallies, and the difference adds up with
        // the flips (one metric: every flip moves one item).
        let row = &exec.accuracy[0];
        assert_eq!(row.group, None);
        assert_eq!(row.a, Summary::of(&run, v1, "exec").total);
        assert_eq!(row.b, Summary::of(&run, v2, "exec").total);
        assert_eq!(
            row.b.correct as i64 - row.a.correct as i64,
            exec.fixes() as i64 - exec.regressions() as i64
        );
        let points = 100.0 * (row.b.accuracy() - row.a.accuracy());
        assert!((row.delta_points() - points).abs() < 1e-9);

        let text = d.render(&run, &RenderOptions::default());
        assert!(text.starts_with("demo: v1 -> v2, 20 items\n"), "{text}");
        let table_row = format!(
            "exec      {:.2}% ({}/{})",
            100.0 * row.a.accuracy(),
            row.a.correct,
            row.a.scored()
        );
        assert!(text.contains(&table_row), "{table_row:?} in\n{text}");
        assert!(
            text.contains(&format!("{:+.2}\n", row.delta_points())),
            "{text}"
        );
        assert!(
            text.contains("exec: 1 regressed, 3 newly correct, "),
            "{text}"
        );
        // One block per item: its index and database, gold, both predictions and the reason.
        let block = &text[text.find("\nrows_differ (1)\n").unwrap()..];
        let lines: Vec<&str> = block.lines().skip(3).take(5).collect();
        assert_eq!(lines[0], "  11 school", "{text}");
        assert!(lines[1].starts_with("    gold  "), "{text}");
        assert!(lines[2].starts_with("    v1    "), "{text}");
        assert!(lines[3].starts_with("    v2    "), "{text}");
        assert!(lines[4].starts_with("    why   rows_differ: "), "{text}");
        assert_eq!(lines[2]["    v1    ".len()..], run.sets[0].predictions[11]);
        // Most items first.
        let sql_error = text.find("\nsql_error (2)\n").unwrap();
        let row_count = text.find("\nrow_count (1)\n").unwrap();
        assert!(sql_error < row_count, "{text}");
        assert!(text.contains("\n  06 library\n") && text.contains("\n  08 library\n"));

        // Queries are cut to the width asked for (and collapsed to one line).
        let narrow = d.render(
            &run,
            &RenderOptions {
                width: 40,
                ..RenderOptions::default()
            },
        );
        for line in narrow.lines().filter(|l| l.starts_with("    ")) {
            assert!(line.chars().count() <= 4 + 6 + 40, "{line:?}");
        }
        assert!(narrow.contains(" chars)\n"), "{narrow}");

        // The other way round, the fixes are the regressions.
        let back = Diff::of(&run, v2, v1);
        assert_eq!(back.metrics[0].regressed, exec.newly_correct);
        assert_eq!(back.metrics[0].newly_correct, exec.regressed);
        // A set against itself flips nothing.
        let same = Diff::of(&run, v1, v1);
        assert_eq!(same.regressions(), 0);
        assert_eq!(same.metrics[0].fixes(), 0);
        assert!(same.metrics[0].reason_changed.is_empty());
    }

    #[test]
    fn reason_changes_are_counted_and_listed_on_request() {
        let run = demo();
        let (v1, v2) = (&run.sets[0], &run.sets[1]);
        let mut d = Diff::of(&run, v1, v2);
        // Item 13 incorrect in both sets, with another reason in each (made up for the test:
        // the demo's sets do not change a reason).
        d.metrics[0].reason_changed = vec![13];
        let text = d.render(&run, &RenderOptions::default());
        assert!(
            text.contains("1 reasons changed (--reasons lists them)\n"),
            "{text}"
        );
        assert!(!text.contains("reason changed (1)"), "{text}");
        let listed = d.render(
            &run,
            &RenderOptions {
                reasons: true,
                ..RenderOptions::default()
            },
        );
        let block = &listed[listed.find("== exec: reason changed (1) ==").unwrap()..];
        assert!(block.contains("\n  13 school\n"), "{listed}");
        assert!(
            block.contains("\n    why v1  ") && block.contains("\n    why v2  "),
            "{listed}"
        );
    }
}
