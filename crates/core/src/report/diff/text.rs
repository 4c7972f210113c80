//! The terminal text of a [`Diff`]: what a person reads after `sqlsuite diff A B`.
//!
//! ```text
//! demo: v1 -> v2, 20 items
//!
//! accuracy    v1              v2              Δ points
//! exec        65.00% (13/20)  80.00% (16/20)    +15.00
//!
//! exec: 1 regressed, 3 newly correct, 0 reasons changed
//!
//! == exec: regressed (1), by v2's reason ==
//!
//! rows_differ (1)
//!
//!   11 school
//!     gold    SELECT name FROM student WHERE grade = 3
//!     v1      SELECT name FROM student WHERE grade = 3
//!     v2      SELECT name FROM student WHERE grade = 4
//!     why     values differ: …
//! ```
//!
//! With [`RenderOptions::by_db`] the accuracy table has a row per `db_id` too (after the
//! hardness rows). Every line is short: a query or reason has its whitespace collapsed and is cut to
//! [`RenderOptions::width`] characters, saying how many it leaves out. The items whose reason
//! changed (incorrect in both) are counted, and listed only with [`RenderOptions::reasons`].

use std::fmt::Write as _;

use super::super::comparison::{cell, Grouping};
use super::super::message::one_line;
use super::{ByReason, Diff, MetricDiff};
use crate::metric::exact_match::HARDNESS;
use crate::run::{Run, SetRun};

/// What the text shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions {
    /// List the items whose reason changed (incorrect in both sets), not only count them.
    pub reasons: bool,
    /// Cut each query and reason to this many characters (0: never cut).
    pub width: usize,
    /// Add the accuracy per `db_id` to the accuracy table.
    pub by_db: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            reasons: false,
            width: 100,
            by_db: false,
        }
    }
}

/// The whole text: header, accuracy table, counts, then each metric's flipped items.
pub(super) fn render(diff: &Diff, run: &Run, options: &RenderOptions) -> String {
    let mut out = format!(
        "{}: {} -> {}, {} items\n\n",
        run.dataset,
        diff.a,
        diff.b,
        run.items.len()
    );
    accuracy_table(&mut out, diff, options);
    out.push('\n');
    for d in &diff.metrics {
        let hint = if !d.reason_changed.is_empty() && !options.reasons {
            " (--reasons lists them)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{}: {} regressed, {} newly correct, {} reasons changed{hint}",
            d.metric,
            d.regressions(),
            d.fixes(),
            d.reason_changed.len()
        );
    }
    let (Some(a), Some(b)) = (run.set(&diff.a), run.set(&diff.b)) else {
        return out;
    };
    let blocks = Blocks { run, a, b, options };
    for d in &diff.metrics {
        blocks.metric(&mut out, d);
    }
    out
}

/// Per metric: all items, then each group indented, with A, B and the difference.
/// The rows per `db_id` only with [`RenderOptions::by_db`].
fn accuracy_table(out: &mut String, diff: &Diff, options: &RenderOptions) {
    let mut rows: Vec<[String; 4]> = Vec::new();
    for d in &diff.metrics {
        for row in &d.accuracy {
            let label = match &row.group {
                None => d.metric.clone(),
                Some((Grouping::DbId, _)) if !options.by_db => continue,
                Some((_, group)) => format!("  {group}"),
            };
            rows.push([label, cell(&row.a), cell(&row.b), row.delta_cell()]);
        }
    }
    let header = [
        "accuracy".to_owned(),
        diff.a.clone(),
        diff.b.clone(),
        "Δ points".to_owned(),
    ];
    let width = |c: usize| {
        rows.iter()
            .chain([&header])
            .map(|r| r[c].chars().count())
            .max()
            .unwrap_or(0)
    };
    let (w0, w1, w2, w3) = (width(0), width(1), width(2), width(3));
    for r in [&header].into_iter().chain(&rows) {
        let line = format!("{:<w0$}  {:<w1$}  {:<w2$}  {:>w3$}", r[0], r[1], r[2], r[3]);
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// The blocks of flipped items, with what they need to show them.
struct Blocks<'a> {
    run: &'a Run,
    a: &'a SetRun,
    b: &'a SetRun,
    options: &'a RenderOptions,
}

/// Which side's reason a block shows.
#[derive(Clone, Copy)]
enum Why {
    /// B's (regressed: B is the incorrect one).
    B,
    /// A's (newly correct: A was the incorrect one).
    A,
    /// Both (reason changed).
    Both,
}

impl Blocks<'_> {
    /// A metric's regressions, fixes and (on request) reason changes.
    fn metric(&self, out: &mut String, d: &MetricDiff) {
        let (a, b) = (&self.a.name, &self.b.name);
        self.direction(
            out,
            &d.metric,
            &format!("regressed ({}), by {b}'s reason", d.regressions()),
            &d.regressed,
            Why::B,
        );
        self.direction(
            out,
            &d.metric,
            &format!("newly correct ({}), by {a}'s reason", d.fixes()),
            &d.newly_correct,
            Why::A,
        );
        if self.options.reasons && !d.reason_changed.is_empty() {
            let _ = writeln!(
                out,
                "\n== {}: reason changed ({}) ==",
                d.metric,
                d.reason_changed.len()
            );
            for &i in &d.reason_changed {
                self.item(out, &d.metric, i, Why::Both);
            }
        }
    }

    /// One direction: its reasons, most items first (then by name), each with its items.
    fn direction(&self, out: &mut String, metric: &str, title: &str, groups: &ByReason, why: Why) {
        if groups.values().all(Vec::is_empty) {
            return;
        }
        let _ = writeln!(out, "\n== {metric}: {title} ==");
        let mut ordered: Vec<(&String, &Vec<usize>)> = groups.iter().collect();
        ordered.sort_by(|x, y| y.1.len().cmp(&x.1.len()).then(x.0.cmp(y.0)));
        for (reason, items) in ordered {
            let _ = writeln!(out, "\n{reason} ({})", items.len());
            for &i in items {
                self.item(out, metric, i, why);
            }
        }
    }

    /// One item's block: index, `db_id` and group; question, gold, both predictions and the
    /// reason, one short line each.
    fn item(&self, out: &mut String, metric: &str, i: usize, why: Why) {
        let run = self.run;
        let item = &run.items[i];
        let width = run.index_width();
        let mut head = format!("{i:0width$} {}", item.db_id);
        let groups: Vec<&str> = item
            .group(HARDNESS.name)
            .into_iter()
            .chain(item.category.as_deref())
            .collect();
        if !groups.is_empty() {
            let _ = write!(head, " ({})", groups.join(", "));
        }
        let _ = writeln!(out, "\n  {head}");
        let (a, b) = (self.a.name.as_str(), self.b.name.as_str());
        let reason = |set: &SetRun| {
            set.results[i]
                .verdict(metric)
                .map(|v| format!("{}: {}", v.code, v.reason))
                .unwrap_or_default()
        };
        let mut lines: Vec<(String, String)> = Vec::new();
        if let Some(q) = &item.question {
            lines.push(("question".into(), q.clone()));
        }
        lines.push(("gold".into(), item.gold.clone()));
        lines.push((a.into(), self.a.predictions[i].clone()));
        lines.push((b.into(), self.b.predictions[i].clone()));
        match why {
            Why::B => lines.push(("why".into(), reason(self.b))),
            Why::A => lines.push(("why".into(), reason(self.a))),
            Why::Both => {
                lines.push((format!("why {a}"), reason(self.a)));
                lines.push((format!("why {b}"), reason(self.b)));
            }
        }
        let label_width = lines
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        for (label, text) in lines {
            let _ = writeln!(
                out,
                "    {label:<label_width$}  {}",
                one_line(&text, self.options.width)
            );
        }
    }
}
