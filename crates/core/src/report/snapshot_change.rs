//! What changed between a prediction set's accepted snapshot and its verdicts now, for the
//! snapshot trial's failure message: the items whose verdict flipped first (regressed, newly
//! correct, reason changed, one line each: `0011 school  exec: correct -> rows_differ`), then
//! the other lines that changed (summary, provenance, the official table), each list bounded.
//!
//! ```text
//! 1 item regressed, 3 newly correct, 0 reasons changed
//! regressed (1):
//!   11 school  exec: correct -> rows_differ
//! newly correct (3):
//!   06 library  exec: sql_error -> correct
//!   …
//! other changed lines (4):
//!   - exec: 13/20 correct = 65.00% (20 items, 7 incorrect)
//!   + exec: 15/20 correct = 75.00% (20 items, 5 incorrect)
//!   …
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::snapshot::Accepted;
use crate::run::{Run, SetRun};

/// Items listed per kind of change, and other changed lines, at most.
const SHOWN: usize = 25;

/// `1 item`, `2 items`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Items by kind of change: each an item line.
#[derive(Debug, Default)]
struct Changed {
    regressed: Vec<String>,
    fixed: Vec<String>,
    reason_changed: Vec<String>,
    /// Items the snapshot does not record, or records and the set no longer has.
    other: Vec<String>,
}

/// The item lines of a set against the accepted codes.
fn changed_items(run: &Run, set: &SetRun, accepted: &Accepted) -> Changed {
    let mut c = Changed::default();
    let width = run.index_width();
    for (i, (item, result)) in run.items.iter().zip(&set.results).enumerate() {
        let head = format!("{i:0width$} {}", item.db_id);
        let Some(before) = accepted.codes.get(&i) else {
            c.other
                .push(format!("{head}  not in the snapshot: {}", result.codes()));
            continue;
        };
        let flips: Vec<String> = result
            .verdicts
            .iter()
            .filter_map(|(m, v)| {
                let old = before.get(*m)?;
                (old != &v.code).then(|| format!("{m}: {old} -> {}", v.code))
            })
            .collect();
        if flips.is_empty() {
            continue;
        }
        let line = format!("{head}  {}", flips.join(", "));
        if !accepted.regressions(i, result).is_empty() {
            c.regressed.push(line);
        } else if !accepted.fixes(i, result).is_empty() {
            c.fixed.push(line);
        } else {
            c.reason_changed.push(line);
        }
    }
    let items = set.results.len();
    for (&i, codes) in accepted.codes.range(items..) {
        let codes: Vec<String> = codes.iter().map(|(m, c)| format!("{m}={c}")).collect();
        c.other.push(format!(
            "{i} not in the set any more (was {})",
            codes.join(" ")
        ));
    }
    c
}

/// The snapshot text without insta's header and without the item lines.
fn head_lines(text: &str) -> Vec<&str> {
    let body = match text.strip_prefix("---\n") {
        Some(rest) => rest.split_once("\n---\n").map_or(text, |(_, body)| body),
        None => text,
    };
    let head = body.split("\nitems:\n").next().unwrap_or(body);
    head.lines().filter(|l| !l.trim().is_empty()).collect()
}

/// Lines of `old` missing from `new` (`- …`) and of `new` missing from `old` (`+ …`), each
/// counted as often as it occurs, in the order of the text.
fn changed_lines(old: &str, new: &str) -> Vec<String> {
    let (old, new) = (head_lines(old), head_lines(new));
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for l in &new {
        *counts.entry(l).or_default() += 1;
    }
    for l in &old {
        *counts.entry(l).or_default() -= 1;
    }
    let mut out = Vec::new();
    let mut take = |lines: &[&str], sign: i64, mark: &str| {
        let mut left = counts.clone();
        for l in lines {
            let n = left.entry(l).or_default();
            if *n * sign > 0 {
                *n -= sign;
                out.push(format!("{mark} {}", l.trim_start()));
            }
        }
    };
    take(&old, -1, "-");
    take(&new, 1, "+");
    out
}

fn section(out: &mut String, title: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title} ({}):", lines.len());
    for l in lines.iter().take(SHOWN) {
        let _ = writeln!(out, "  {l}");
    }
    if lines.len() > SHOWN {
        let _ = writeln!(out, "  … {} more", lines.len() - SHOWN);
    }
}

/// The change of set `set` against its accepted snapshot (`accepted`, its codes, and
/// `accepted_text`, the file) now that its snapshot text is `content`: the counts line, the
/// flipped items, the other changed lines.
pub fn describe(
    run: &Run,
    set: &SetRun,
    accepted: &Accepted,
    accepted_text: &str,
    content: &str,
) -> String {
    let c = changed_items(run, set, accepted);
    let mut out = format!(
        "{} regressed, {} newly correct, {} changed\n",
        count(c.regressed.len(), "item"),
        c.fixed.len(),
        count(c.reason_changed.len(), "reason")
    );
    section(&mut out, "regressed", &c.regressed);
    section(&mut out, "newly correct", &c.fixed);
    section(&mut out, "reason changed", &c.reason_changed);
    section(&mut out, "items added or removed", &c.other);
    section(
        &mut out,
        "other changed lines",
        &changed_lines(accepted_text, content),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_say_one_item() {
        assert_eq!(count(1, "item"), "1 item");
        assert_eq!(count(0, "item"), "0 items");
        assert_eq!(count(2, "reason"), "2 reasons");
    }

    #[test]
    fn changed_lines_leave_out_the_header_the_items_and_what_stayed() {
        let old = "---\nsource: x.rs\n---\ndataset: d\nexec: 1/2 correct\n  a  1\n\nitems:\n0 a exec=correct\n";
        let new = "dataset: d\nexec: 2/2 correct\n  a  1\n\nitems:\n0 a exec=rows_differ\n";
        assert_eq!(
            changed_lines(old, new),
            vec!["- exec: 1/2 correct", "+ exec: 2/2 correct"]
        );
        assert!(changed_lines(new, new).is_empty());
    }
}
