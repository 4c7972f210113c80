//! Reports consume verdicts; they never recompute one.
//!
//! * [`message`]: a failed trial's message (gold, prediction, reason, differing rows).
//! * [`outcome`]: a prediction's trial outcome (passed, failed with the message, ignored).
//! * [`summary`]: counts and accuracy overall, per reason and per database.
//! * [`gold_checks`]: what the gold checks found, as a count line and a list.
//! * [`spider_table`]: the official Spider evaluator's table (per hardness, partial scores, turns).
//! * [`snapshot`]: the insta snapshot of a prediction set and the accepted one read back.
//! * [`snapshot_change`]: what changed against the accepted snapshot, flipped items first.
//! * [`jsonl`]: one machine-readable line per item and metric.
//! * `junit` (cargo feature `junit`): JUnit XML, one test case per item.
//! * [`gate`]: the CI gate's thresholds.
//! * [`comparison`]: two prediction sets' accuracy side by side (A, B, Δ per group), which
//!   `sqlsuite diff` prints and the HTML report of B against A renders.
//! * [`diff`]: two prediction sets' flipped items (`sqlsuite diff`).
//! * `html` (cargo feature `html`): the self-contained HTML report of a prediction set
//!   (`sqlsuite report`).
//! * `sql_format` (cargo feature `html`): SQL with line breaks at its clauses, for the HTML
//!   reports.
//! * `overview` (cargo feature `html`): the HTML report of every prediction set on one page
//!   (`sqlsuite report`).

pub mod comparison;
pub mod diff;
pub mod gate;
pub mod gold_checks;
#[cfg(feature = "html")]
pub mod html;
pub mod jsonl;
#[cfg(feature = "junit")]
pub mod junit;
pub mod message;
pub mod outcome;
#[cfg(feature = "html")]
pub mod overview;
pub mod snapshot;
pub mod snapshot_change;
pub mod spider_table;
#[cfg(feature = "html")]
pub mod sql_format;
pub mod summary;
