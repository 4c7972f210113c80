//! Predictions as models write them: the SQL inside a language model's answer, taken out by a
//! rule the manifest names per prediction set (`[[predictions]] extract = "…"`; never by
//! default: a compat mode judges what the reference judges, the text as written).
//!
//! * [`Rule::Fence`]: when the answer starts with a query (`SELECT`, `WITH`, `(`) and has a
//!   fence line further down, the text before that fence: the prompt opened the fence, the model
//!   wrote the query, closed the fence and went on (an explanation, more fences). Otherwise the
//!   last fenced block (```` ``` ```` or `~~~`) whose info string is empty or names SQL (`sql`,
//!   `SQLite`, `postgresql`, `mysql`, …) and holds something, an unterminated last block running
//!   to the end (a truncated answer).
//! * [`Rule::Prefix`]: the text after the last line that starts with `SQL:`, `SQLQuery:`,
//!   `SQL query:` or `Query:` (any case), up to a blank line or the next `Label:` line
//!   (`SQLResult:`, `Answer:`, `Explanation:` …), as LangChain-style prompts have the model write.
//! * [`Rule::Answer`]: reasoning in `<think>…</think>` dropped, then [`Rule::Fence`], else
//!   [`Rule::Prefix`].
//!
//! A text no rule applies to is judged as written. What was taken is recorded
//! ([`Extracted`]: the rule that applied and the lines of the answer it took) and shown with
//! the verdicts.

use std::fmt;
use std::str::FromStr;

/// How a prediction set's answers become SQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The last SQL (or untagged) fenced block.
    Fence,
    /// The text after the last `SQL:`-like label.
    Prefix,
    /// `<think>` dropped, then a fence, else a label.
    Answer,
}

impl Rule {
    /// Every rule's name, as the manifest writes it.
    pub const NAMES: [&'static str; 3] = ["fence", "prefix", "answer"];
}

impl FromStr for Rule {
    type Err = String;
    fn from_str(s: &str) -> Result<Rule, String> {
        match s {
            "fence" => Ok(Rule::Fence),
            "prefix" => Ok(Rule::Prefix),
            "answer" => Ok(Rule::Answer),
            other => Err(format!(
                "unknown extraction rule {other:?}: one of {}",
                Rule::NAMES.join(", ")
            )),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Rule::Fence => "fence",
            Rule::Prefix => "prefix",
            Rule::Answer => "answer",
        })
    }
}

/// What a rule took out of one answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Extracted {
    /// Which way it was found: `fence` (inside a fenced block), `before_fence` (the text
    /// before a closing fence), `prefix` (after a label).
    pub found: &'static str,
    /// The first and last line of the answer taken (1-based, inclusive; equal to `first - 1`
    /// for an empty take).
    pub lines: (usize, usize),
}

/// The SQL `rule` finds in `answer`, and where; `None` when the rule does not apply (the
/// answer is judged as written).
pub fn extract(rule: Rule, answer: &str) -> Option<(String, Extracted)> {
    let lines: Vec<&str> = answer.lines().collect();
    match rule {
        Rule::Fence => fenced(&lines, 0),
        Rule::Prefix => labelled(&lines, 0),
        Rule::Answer => {
            let start = after_reasoning(&lines);
            fenced(&lines, start).or_else(|| labelled(&lines, start))
        }
    }
}

/// The lines `first..=last` (0-based) joined, with the record of a take.
fn take(
    lines: &[&str],
    first: usize,
    last: Option<usize>,
    found: &'static str,
) -> (String, Extracted) {
    let end = last.map_or(first, |l| l + 1);
    let text = lines[first..end].join("\n").trim().to_owned();
    (
        text,
        Extracted {
            found,
            lines: (first + 1, end),
        },
    )
}

/// The first line after the last `</think>` (0 when there is none).
fn after_reasoning(lines: &[&str]) -> usize {
    lines
        .iter()
        .rposition(|l| l.contains("</think>"))
        .map_or(0, |i| i + 1)
}

/// A fence line's marker and info string: `` ```sql `` → ("```", "sql").
fn fence(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim();
    ["```", "~~~"]
        .into_iter()
        .find(|m| trimmed.starts_with(m))
        .map(|m| {
            (
                m,
                trimmed.trim_start_matches(m.as_bytes()[0] as char).trim(),
            )
        })
}

/// An info string a SQL block may carry.
fn names_sql(info: &str) -> bool {
    let info = info.to_ascii_lowercase();
    info.is_empty()
        || [
            "sql",
            "sqlite",
            "sqlite3",
            "postgresql",
            "postgres",
            "psql",
            "mysql",
            "tsql",
            "plsql",
        ]
        .contains(&info.split_whitespace().next().unwrap_or(""))
}

/// Whether `text` starts (after white space) with a query: `SELECT`, `WITH` or `(`.
fn starts_a_query(text: &str) -> bool {
    let head = text
        .trim_start()
        .get(..6)
        .unwrap_or("")
        .to_ascii_lowercase();
    head.starts_with("select") || head.starts_with("with") || text.trim_start().starts_with('(')
}

fn fenced(lines: &[&str], start: usize) -> Option<(String, Extracted)> {
    let fences: Vec<usize> = (start..lines.len())
        .filter(|&i| fence(lines[i]).is_some())
        .collect();
    let first_fence = *fences.first()?;
    if starts_a_query(&lines[start..first_fence].join("\n")) {
        return Some(take(
            lines,
            start,
            first_fence.checked_sub(1),
            "before_fence",
        ));
    }
    // Blocks: an opening fence and the next fence (or the end).
    let mut blocks: Vec<(usize, Option<usize>)> = Vec::new();
    let mut open = None;
    for &i in &fences {
        match open.take() {
            None => open = Some(i),
            Some(o) => blocks.push((o, Some(i))),
        }
    }
    if let Some(o) = open {
        blocks.push((o, None));
    }
    let body = |(o, c): (usize, Option<usize>)| (o + 1, c.unwrap_or(lines.len()));
    let sql_block = blocks.iter().rev().copied().find(|&(o, c)| {
        let (from, to) = body((o, c));
        fence(lines[o]).is_some_and(|(_, info)| names_sql(info))
            && lines[from..to].iter().any(|l| !l.trim().is_empty())
    });
    let (from, to) = body(sql_block?);
    Some(take(
        lines,
        from,
        to.checked_sub(1).filter(|&l| l >= from),
        "fence",
    ))
}

/// The labels a SQL answer follows, lowercased, without the colon.
const SQL_LABELS: [&str; 4] = ["sql", "sqlquery", "sql query", "query"];

/// A line's `Label:` head, lowercased (`SQLResult: …` → `sqlresult`), if it starts with one
/// (letters and spaces, at most three words, then a colon).
fn label(line: &str) -> Option<(String, &str)> {
    let (head, rest) = line.trim_start().split_once(':')?;
    let words = head.split_whitespace().count();
    let letters = head
        .chars()
        .all(|c| c.is_ascii_alphabetic() || c == ' ' || c == '_');
    ((1..=3).contains(&words) && letters && !head.starts_with(' '))
        .then(|| (head.trim().to_ascii_lowercase(), rest))
}

fn labelled(lines: &[&str], start: usize) -> Option<(String, Extracted)> {
    let at = (start..lines.len())
        .rev()
        .find(|&i| label(lines[i]).is_some_and(|(l, _)| SQL_LABELS.contains(&l.as_str())))?;
    let rest = label(lines[at]).map_or("", |(_, r)| r);
    let mut parts = vec![rest];
    let mut last = at;
    for (i, line) in lines.iter().enumerate().skip(at + 1) {
        if line.trim().is_empty() || label(line).is_some() {
            break;
        }
        parts.push(line);
        last = i;
    }
    let text = parts.join("\n").trim().to_owned();
    let text = text
        .strip_prefix('`')
        .and_then(|t| t.strip_suffix('`'))
        .map_or(text.clone(), |t| t.trim().to_owned());
    Some((
        text,
        Extracted {
            found: "prefix",
            lines: (at + 1, last + 1),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sql(rule: Rule, answer: &str) -> Option<(String, &'static str, (usize, usize))> {
        extract(rule, answer).map(|(s, e)| (s, e.found, e.lines))
    }

    #[test]
    fn a_tagged_fence_after_prose() {
        let answer = "Here is the query:\n```sql\nSELECT a\nFROM t\n```\nIt lists a.";
        assert_eq!(
            sql(Rule::Fence, answer),
            Some(("SELECT a\nFROM t".into(), "fence", (3, 4)))
        );
    }

    #[test]
    fn the_last_sql_block_not_an_output_block() {
        let answer = "```sql\nSELECT 1\n```\nfixed:\n```SQLite\nSELECT 2\n```\n```text\n2\n```";
        assert_eq!(
            sql(Rule::Fence, answer).map(|s| s.0),
            Some("SELECT 2".into())
        );
    }

    #[test]
    fn an_unterminated_fence_runs_to_the_end() {
        let answer = "```SQLite\nSELECT a\nFROM t\nWHERE b = 1";
        assert_eq!(
            sql(Rule::Fence, answer),
            Some(("SELECT a\nFROM t\nWHERE b = 1".into(), "fence", (2, 4)))
        );
    }

    #[test]
    fn sql_closed_by_the_model_when_the_prompt_opened_the_fence() {
        let answer = " SELECT COUNT(*)\nFROM t;\n```\n\n```";
        assert_eq!(
            sql(Rule::Fence, answer),
            Some(("SELECT COUNT(*)\nFROM t;".into(), "before_fence", (1, 2)))
        );
    }

    #[test]
    fn a_query_closed_then_explained() {
        let answer = " SELECT nationality\nFROM drivers\n```\n\nThis query returns it.\n```";
        assert_eq!(
            sql(Rule::Fence, answer),
            Some((
                "SELECT nationality\nFROM drivers".into(),
                "before_fence",
                (1, 2)
            ))
        );
        let prose_first = "The query:\n```\nSELECT 1\n```";
        assert_eq!(sql(Rule::Fence, prose_first).map(|s| s.1), Some("fence"));
        assert_eq!(sql(Rule::Fence, "No idea.\n```\n\n```"), None);
    }

    #[test]
    fn no_fence_no_extraction() {
        assert_eq!(sql(Rule::Fence, "SELECT a FROM t"), None);
        assert_eq!(sql(Rule::Prefix, "SELECT a FROM t"), None);
        assert_eq!(sql(Rule::Answer, "SELECT a FROM t"), None);
    }

    #[test]
    fn a_label_up_to_the_next_label() {
        let answer =
            "Question: how many?\nSQLQuery: SELECT COUNT(*)\nFROM t\nSQLResult: [(3,)]\nAnswer: 3";
        assert_eq!(
            sql(Rule::Prefix, answer),
            Some(("SELECT COUNT(*)\nFROM t".into(), "prefix", (2, 3)))
        );
        assert_eq!(
            sql(Rule::Prefix, "SQL: `SELECT 1`").map(|s| s.0),
            Some("SELECT 1".into())
        );
    }

    #[test]
    fn reasoning_is_dropped_before_looking() {
        let answer = "<think>\nmaybe:\n```sql\nSELECT wrong\n```\n</think>\nSQL: SELECT right";
        assert_eq!(
            sql(Rule::Answer, answer).map(|s| s.0),
            Some("SELECT right".into())
        );
        assert_eq!(
            sql(Rule::Fence, answer).map(|s| s.0),
            Some("SELECT wrong".into())
        );
    }

    #[test]
    fn unknown_rules_are_named() {
        let e = "fenced".parse::<Rule>().unwrap_err();
        assert!(e.contains("fence, prefix, answer"), "{e}");
    }
}
