//! BIRD's evaluation scripts (`bird-bench/mini_dev`, `evaluation/evaluation_ex.py`,
//! `evaluation_f1.py`, `evaluation_ves.py` at 4d970a9): what they do to a prediction before
//! running it, their Soft-F1, and R-VES's reward buckets.
//!
//! * [`statement`]: the scripts run the prediction with Python's `sqlite3` `cursor.execute`,
//!   which runs one statement: an empty or comment-only text runs nothing and fetches no row,
//!   and anything but white space and comments after the first statement is an error.
//! * [`soft_f1`]: rows de-duplicated keeping their first occurrence, row *i* of the prediction
//!   against row *i* of the gold, each value counted against the gold row's width.
//! * [`reward`] and [`reward_score`]: R-VES maps the ratio of the gold's cost to the
//!   prediction's to a reward, and an item scores 100·√reward.

use std::collections::HashSet;
use std::hash::Hash;

/// What Python's `sqlite3` makes of a query text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Statement<'a> {
    /// Nothing to run (white space, comments, a lone `;`): no error, no row.
    Empty,
    /// One statement, the text up to its `;` (or the whole text).
    One(&'a str),
    /// More than one statement: `ProgrammingError`, "You can only execute one statement at a
    /// time."
    Several,
}

/// The message Python's `sqlite3` raises for a text of several statements.
pub const SEVERAL_STATEMENTS: &str = "You can only execute one statement at a time.";

/// What `cursor.execute(sql)` runs: the first statement, if the rest is only white space and
/// comments (SQLite's lexical rules: `--` and `/* */` comments, an unterminated `/*` running to
/// the end; quotes `'…'`, `"…"`, `` `…` `` and `[…]` hiding `;`).
pub fn statement(sql: &str) -> Statement<'_> {
    let head_end = first_semicolon(sql);
    let head = &sql[..head_end.unwrap_or(sql.len())];
    let empty = only_comments(head);
    match head_end {
        None if empty => Statement::Empty,
        None => Statement::One(head),
        Some(end) => {
            let tail = &sql[end + 1..];
            if !only_comments(tail) {
                Statement::Several
            } else if empty {
                Statement::Empty
            } else {
                Statement::One(head)
            }
        }
    }
}

/// The byte position of the first `;` outside quotes and comments.
fn first_semicolon(sql: &str) -> Option<usize> {
    let b = sql.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b';' => return Some(i),
            b'\'' | b'"' | b'`' => i = closing(b, i + 1, b[i]),
            b'[' => i = closing(b, i + 1, b']'),
            b'-' if b.get(i + 1) == Some(&b'-') => i = line_end(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = comment_end(b, i + 2),
            _ => i += 1,
        }
    }
    None
}

/// Past the quote `close` that ends a quoted run starting at `from` (a doubled quote stays
/// inside); the end of the text if it never closes.
fn closing(b: &[u8], mut from: usize, close: u8) -> usize {
    while from < b.len() {
        if b[from] == close {
            if close != b']' && b.get(from + 1) == Some(&close) {
                from += 2;
                continue;
            }
            return from + 1;
        }
        from += 1;
    }
    b.len()
}

fn line_end(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| from + p + 1)
}

fn comment_end(b: &[u8], from: usize) -> usize {
    b[from..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(b.len(), |p| from + p + 2)
}

/// Whether `text` holds only white space and comments.
fn only_comments(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_whitespace() => i += 1,
            b'-' if b.get(i + 1) == Some(&b'-') => i = line_end(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = comment_end(b, i + 2),
            _ => return false,
        }
    }
    true
}

/// BIRD's Soft-F1 of a prediction's rows against the gold's (`evaluation_f1.py`), values
/// compared with Python's `==` (which `V`'s `Eq` and `Hash` must agree with):
///
/// * both empty: 1;
/// * each side's rows de-duplicated, the first occurrence of each kept, in fetched order;
/// * row *i* of the prediction against row *i* of the gold: a prediction value found in the
///   gold row is a match, one not found is prediction-only, a gold value not in the prediction
///   row gold-only, each counted once per occurrence and divided by the gold row's width;
/// * a gold row without a prediction row counts 1 gold-only; a prediction row without a gold
///   row 1 prediction-only;
/// * precision tp/(tp+fp), recall tp/(tp+fn) (0 where their denominators are), F1 their
///   harmonic mean (0 where both are 0).
pub fn soft_f1<V: Eq + Hash>(prediction: &[Vec<V>], gold: &[Vec<V>]) -> f64 {
    if prediction.is_empty() && gold.is_empty() {
        return 1.0;
    }
    let prediction = first_occurrences(prediction);
    let gold = first_occurrences(gold);
    let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
    for (i, g) in gold.iter().enumerate() {
        match prediction.get(i) {
            Some(p) => {
                let width = g.len() as f64;
                let matches = p.iter().filter(|v| g.contains(v)).count() as f64;
                let pred_only = p.len() as f64 - matches;
                let gold_only = g.iter().filter(|v| !p.contains(v)).count() as f64;
                tp += matches / width;
                fp += pred_only / width;
                fn_ += gold_only / width;
            }
            None => fn_ += 1.0,
        }
    }
    fp += prediction.len().saturating_sub(gold.len()) as f64;
    let precision = if tp + fp == 0.0 { 0.0 } else { tp / (tp + fp) };
    let recall = if tp + fn_ == 0.0 {
        0.0
    } else {
        tp / (tp + fn_)
    };
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

/// Python's `list(dict.fromkeys(rows))`: each distinct row once, where it first occurs.
fn first_occurrences<V: Eq + Hash>(rows: &[Vec<V>]) -> Vec<&Vec<V>> {
    let mut seen = HashSet::new();
    rows.iter().filter(|r| seen.insert(*r)).collect()
}

/// R-VES's reward for a set-equal prediction whose cost relative to the gold's is
/// `ratio` = gold / prediction (above 1: the prediction is cheaper): at least 2 → 1.25, at
/// least 1 → 1, at least 0.5 → 0.75, at least 0.25 → 0.5, else 0.25; 0 for a ratio of 0 (the
/// scripts' "not set-equal").
pub fn reward(ratio: f64) -> f64 {
    match ratio {
        0.0 => 0.0,
        r if r >= 2.0 => 1.25,
        r if r >= 1.0 => 1.0,
        r if r >= 0.5 => 0.75,
        r if r >= 0.25 => 0.5,
        _ => 0.25,
    }
}

/// An item's R-VES score: 100·√reward (one of 0, 50, 70.71…, 86.60…, 100, 111.80…); a set's
/// R-VES is the mean over its items.
pub fn reward_score(reward: f64) -> f64 {
    100.0 * reward.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_statement_as_pythons_sqlite3_runs_it() {
        assert_eq!(statement("SELECT 1"), Statement::One("SELECT 1"));
        assert_eq!(statement("SELECT 1;"), Statement::One("SELECT 1"));
        assert_eq!(statement("SELECT 1; -- done\n"), Statement::One("SELECT 1"));
        assert_eq!(statement("SELECT 1; /* open"), Statement::One("SELECT 1"));
        assert_eq!(
            statement("SELECT ';' FROM t"),
            Statement::One("SELECT ';' FROM t")
        );
        assert_eq!(
            statement("SELECT \"a;b\", [c;d] FROM t -- x;y"),
            Statement::One("SELECT \"a;b\", [c;d] FROM t -- x;y")
        );
        assert_eq!(statement("SELECT 1; SELECT 2"), Statement::Several);
        assert_eq!(statement("SELECT 1;;"), Statement::Several);
        assert_eq!(statement("SELECT 1;\n```"), Statement::Several);
        assert_eq!(statement(""), Statement::Empty);
        assert_eq!(statement("  \n"), Statement::Empty);
        assert_eq!(statement("-- nothing"), Statement::Empty);
        assert_eq!(statement(";"), Statement::Empty);
    }

    fn rows(r: &[&[i64]]) -> Vec<Vec<i64>> {
        r.iter().map(|row| row.to_vec()).collect()
    }

    #[test]
    fn soft_f1_pairs_rows_by_position_after_deduplication() {
        assert_eq!(soft_f1::<i64>(&[], &[]), 1.0);
        assert_eq!(soft_f1(&rows(&[]), &rows(&[&[1]])), 0.0);
        assert_eq!(soft_f1(&rows(&[&[1]]), &rows(&[])), 0.0);
        // The same set in another order is not the same rows pairwise.
        assert_eq!(soft_f1(&rows(&[&[1], &[2]]), &rows(&[&[1], &[2]])), 1.0);
        assert_eq!(soft_f1(&rows(&[&[2], &[1]]), &rows(&[&[1], &[2]])), 0.0);
        // Duplicates go before pairing.
        assert_eq!(
            soft_f1(&rows(&[&[1], &[1], &[2]]), &rows(&[&[1], &[2]])),
            1.0
        );
        // Values counted per occurrence against the gold row's width: (d, d) vs (d,) is 1.0,
        // (1, 1) vs (1, 2) is 0.8.
        assert_eq!(soft_f1(&rows(&[&[7, 7]]), &rows(&[&[7]])), 1.0);
        assert!((soft_f1(&rows(&[&[1, 1]]), &rows(&[&[1, 2]])) - 0.8).abs() < 1e-12);
        // A surplus prediction row is one prediction-only: tp 1, fp 1 → P 0.5, R 1.
        assert!((soft_f1(&rows(&[&[1], &[9]]), &rows(&[&[1]])) - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn rewards_by_bucket() {
        let cases = [
            (0.0, 0.0),
            (0.1, 0.25),
            (0.25, 0.5),
            (0.5, 0.75),
            (0.99, 0.75),
            (1.0, 1.0),
            (1.99, 1.0),
            (2.0, 1.25),
            (40.0, 1.25),
        ];
        for (ratio, expected) in cases {
            assert_eq!(reward(ratio), expected, "ratio {ratio}");
        }
        assert_eq!(reward_score(1.0), 100.0);
        assert!((reward_score(1.25) - 111.803_398_874_989_48).abs() < 1e-9);
    }
}
