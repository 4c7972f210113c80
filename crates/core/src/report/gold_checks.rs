//! The gold checks ([`crate::gold_check`]) as reports show them: one count line for summaries
//! and snapshots, one line per finding for lists.
//!
//! `gold checks: 23 of 500 golds flagged (reads_clock 11, ties_at_limit 3, ties_in_order 9)`;
//! `0042 concert_singer empty_result: returns no row on concert_singer.sqlite`.

use crate::gold_check::{Finding, GoldChecks};
use crate::run::Run;

/// The count line (no trailing newline).
pub fn line(checks: &GoldChecks) -> String {
    let counts: Vec<String> = checks
        .counts()
        .iter()
        .map(|(check, n)| format!("{check} {n}"))
        .collect();
    let mut out = format!(
        "gold checks: {} of {} golds flagged",
        checks.flagged_items(),
        checks.items
    );
    if !counts.is_empty() {
        out.push_str(&format!(" ({})", counts.join(", ")));
    }
    if !checks.ran_queries {
        out.push_str("; the checks that run the gold did not run (no metric runs queries)");
    }
    out
}

/// One finding as a list shows it: `0042 concert_singer empty_result: returns no row on …`.
pub fn finding_line(run: &Run, finding: &Finding) -> String {
    let width = run.index_width();
    let db = run
        .items
        .get(finding.item)
        .map_or("", |item| item.db_id.as_str());
    format!(
        "{:0width$} {db} {}: {}",
        finding.item, finding.check, finding.reason
    )
}

/// The count line, then every finding indented by two spaces.
pub fn render(run: &Run) -> String {
    let mut out = line(&run.gold_checks);
    out.push('\n');
    for f in &run.gold_checks.findings {
        out.push_str("  ");
        out.push_str(&finding_line(run, f));
        out.push('\n');
    }
    out
}
