//! Two prediction sets of one dataset compared item by item (`sqlsuite diff`): the items whose
//! verdict flipped between correct and incorrect, per metric, in each direction, grouped by
//! reason.
//!
//! An item *regressed* under a metric when set A had it correct and set B incorrect (grouped by
//! B's reason); it is *newly correct* when A had it incorrect and B correct (grouped by A's
//! reason, what was fixed). Items skipped or with a gold error in either set flip neither way;
//! items incorrect in both with another reason are counted as `reason changed`.
//!
//! ```text
//! demo: v1 -> v2, 20 items
//! exec: 1 regressed, 3 newly correct, 0 reasons changed
//!   regressed (1):
//!     rows_differ (1): 11 school
//!   newly correct (3):
//!     sql_error (2): 06 library, 08 library
//!     row_count (1): 17 school
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::metric::Status;
use crate::run::{Run, SetRun};

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

    /// The terminal text (see the module documentation): per metric its counts, then each
    /// direction's reasons, most items first, each with its items (`index db_id`).
    pub fn render(&self, run: &Run) -> String {
        let mut out = format!(
            "{}: {} -> {}, {} items\n",
            run.dataset,
            self.a,
            self.b,
            run.items.len()
        );
        let width = run.index_width();
        let item = |i: usize| format!("{i:0width$} {}", run.items[i].db_id);
        for d in &self.metrics {
            let _ = writeln!(
                out,
                "{}: {} regressed, {} newly correct, {} reasons changed",
                d.metric,
                d.regressions(),
                d.fixes(),
                d.reason_changed.len()
            );
            for (label, groups) in [
                ("regressed", &d.regressed),
                ("newly correct", &d.newly_correct),
            ] {
                let total: usize = groups.values().map(Vec::len).sum();
                if total == 0 {
                    continue;
                }
                let _ = writeln!(out, "  {label} ({total}):");
                let mut ordered: Vec<(&String, &Vec<usize>)> = groups.iter().collect();
                ordered.sort_by(|x, y| y.1.len().cmp(&x.1.len()).then(x.0.cmp(y.0)));
                for (reason, items) in ordered {
                    let listed: Vec<String> = items.iter().map(|&i| item(i)).collect();
                    let _ = writeln!(out, "    {reason} ({}): {}", items.len(), listed.join(", "));
                }
            }
            if !d.reason_changed.is_empty() {
                let listed: Vec<String> = d.reason_changed.iter().map(|&i| item(i)).collect();
                let _ = writeln!(out, "  reason changed: {}", listed.join(", "));
            }
        }
        out
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
        let text = d.render(&run);
        assert!(text.starts_with("demo: v1 -> v2, 20 items\n"), "{text}");
        assert!(
            text.contains("exec: 1 regressed, 3 newly correct, "),
            "{text}"
        );
        assert!(text.contains("    rows_differ (1): 11 school\n"), "{text}");
        // Most items first.
        let sql_error = text.find("sql_error (2): 06 library, 08 library").unwrap();
        let row_count = text.find("row_count (1): 17 school").unwrap();
        assert!(sql_error < row_count, "{text}");

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
}
