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
/// (the differing rows) and counterexample; empty for a correct prediction.
pub fn verdicts(result: &ItemResult) -> String {
    verdict_lines(result, true)
}

/// [`verdicts`] without the counterexample's text (for a report that shows it as tables).
pub fn verdicts_without_counterexample(result: &ItemResult) -> String {
    verdict_lines(result, false)
}

fn verdict_lines(result: &ItemResult, counterexample: bool) -> String {
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
        if let Some(found) = v.counterexample.as_ref().filter(|_| counterexample) {
            out.push_str(&found.render());
        }
    }
    out
}

/// `text` on one line (whitespace runs collapsed to one space), cut to about `width`
/// characters at a word boundary when longer, saying how many characters it leaves out;
/// `width` 0 never cuts.
pub fn one_line(text: &str, width: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let total = one_line.chars().count();
    if width == 0 || total <= width {
        return if one_line.is_empty() {
            "(empty)".to_owned()
        } else {
            one_line
        };
    }
    // Room for the ` … (+1234 chars)` that says what is left out.
    let keep = width.saturating_sub(16).max(8);
    let mut cut: String = one_line.chars().take(keep).collect();
    if let Some(space) = cut.rfind(' ') {
        if cut[space..].chars().count() <= 15 {
            cut.truncate(space);
        }
    }
    let left_out = total - cut.chars().count();
    format!("{cut} … (+{left_out} chars)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_collapses_whitespace_and_cuts_at_a_word() {
        assert_eq!(one_line("SELECT a\n  FROM t", 100), "SELECT a FROM t");
        assert_eq!(one_line("  ", 100), "(empty)");
        let long = format!("SELECT {} FROM t", vec!["column_name"; 100].join(", "));
        let cut = one_line(&long, 80);
        assert!(cut.chars().count() <= 80, "{cut}");
        assert!(cut.starts_with("SELECT column_name, "), "{cut}");
        // Cut between words, and the count of what is left out adds up.
        let kept = cut.split(" … (+").next().unwrap();
        assert!(kept.ends_with("column_name,"), "{cut}");
        let left: usize = cut
            .rsplit("(+")
            .next()
            .and_then(|s| s.strip_suffix(" chars)"))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(kept.chars().count() + left, long.chars().count());
        // Width 0 never cuts.
        assert_eq!(one_line(&long, 0), long);
    }
}
