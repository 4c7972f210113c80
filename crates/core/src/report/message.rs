//! The message of a failed trial: readable at a glance.
//!
//! ```text
//! gold:       SELECT name FROM singer WHERE age > 30
//! prediction: SELECT name FROM singer WHERE age >= 30
//! source:     ../shared/data/spider/dev_gold.sql:17 (db concert_singer)
//! exec: row count differs: gold has 3, prediction has more than 3
//! gold rows (3 rows; columns name):
//!   ('Joe Sharp',)
//! ```

use crate::metric::Status;
use crate::run::{ItemResult, Judged};

/// The failure message for one prediction: the queries, then each metric that did not pass.
pub fn failure(judged: Judged<'_>) -> String {
    let Judged {
        item,
        prediction,
        result,
    } = judged;
    let mut out = format!(
        "gold:       {}\nprediction: {}\nsource:     {} (db {})\n",
        item.gold,
        if prediction.is_empty() {
            "(empty line)"
        } else {
            prediction
        },
        item.source,
        item.db_id
    );
    if let Some(q) = &item.question {
        out.push_str(&format!("question:   {q}\n"));
    }
    if let Some(e) = item.evidence.as_deref().filter(|e| !e.is_empty()) {
        out.push_str(&format!("evidence:   {e}\n"));
    }
    if let Some(sql) = &item.described_sql {
        out.push_str(&format!("sql:        {sql}\n"));
    }
    out.push_str(&verdicts(result));
    out
}

/// The lines of each metric that did not pass: `exec: row count differs: …` and its details
/// (the differing rows); empty for a correct prediction.
pub fn verdicts(result: &ItemResult) -> String {
    let mut out = String::new();
    for (metric, v) in &result.verdicts {
        if v.status == Status::Correct {
            continue;
        }
        let label = match v.status {
            Status::GoldError => "gold error",
            Status::Skipped => "skipped",
            _ => "",
        };
        if label.is_empty() {
            out.push_str(&format!("{metric}: {}\n", v.reason));
        } else {
            out.push_str(&format!("{metric} ({label}): {}\n", v.reason));
        }
        if !v.details.is_empty() {
            out.push_str(&v.details);
            if !v.details.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}
