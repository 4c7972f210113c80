//! The items table of the HTML report: one row per item with its verdicts in the reported set
//! (and the set it is compared with), and what the row opens to: the question, the gold and each
//! set's prediction with line breaks at clauses, why each failed, and the counterexamples.

use serde::Serialize;

use super::super::message;
use super::super::sql_format::readable;
use super::status_name;
use crate::counterexample::{Found, Rows};
use crate::metric::exact_match::HARDNESS;
use crate::metric::Status;
use crate::run::{ItemResult, Run, SetRun};

/// One item's row.
#[derive(Serialize)]
pub(super) struct Row {
    /// The index padded as in trial names (`0006`); the row's anchor is `item-<index>`.
    pub index: String,
    /// The index as a number (`6`), for `#open=6`.
    pub number: usize,
    pub db_id: String,
    pub hardness: Option<String>,
    pub category: Option<String>,
    /// `correct`, `incorrect`, `gold_error` or `skipped` (the item's overall status).
    pub status: &'static str,
    /// `regressed`, `fixed` or empty.
    pub flip: &'static str,
    /// `exec=row_count exact_match=correct`.
    pub codes: String,
    /// The other set's codes, with `--against` (the snapshot's, or the other set's).
    pub against_codes: Option<String>,
    /// The first metric's reason that is not correct (`exec: values differ`), or `correct`;
    /// for an item B fixed, A's (`correct; A dev_1 had exec: values differ`).
    pub reason: String,
    pub question: Option<String>,
    /// BIRD's external knowledge, if the item has any.
    pub evidence: Option<String>,
    /// The gold with line breaks at its clauses.
    pub gold: String,
    /// Where the gold is (`dev_gold.sql:17`).
    pub source: String,
    /// Each set's side: the set compared with first (A), then the reported one (B); only the
    /// reported set without another set.
    pub sides: Vec<Side>,
    /// `(check, reason)` of each gold check that flags the item's gold.
    pub gold_checks: Vec<(&'static str, String)>,
}

/// One set's part of an item: its verdicts, its prediction and why it failed.
#[derive(Serialize)]
pub(super) struct Side {
    /// `A` (the set compared with) or `B` (the reported set).
    pub role: &'static str,
    pub name: String,
    pub status: &'static str,
    /// Per metric: `(metric, status, code)`, shown as marks.
    pub marks: Vec<(&'static str, &'static str, String)>,
    /// The prediction with line breaks at its clauses (`(empty line)` for none).
    pub prediction: String,
    /// The failing metrics' lines (reason and differing rows), without the counterexample.
    pub why: String,
    /// The exec metric's counterexample as small tables: each table the queries read, then
    /// both results on it (empty without one).
    pub counterexample: Vec<CxTable>,
    /// Whether a cell of the counterexample was simplified (a note says how to read it).
    pub simplified: bool,
}

/// One small table of a counterexample.
#[derive(Serialize)]
pub(super) struct CxTable {
    caption: String,
    columns: Vec<String>,
    rows: Vec<Vec<CxCell>>,
}

/// One cell of a counterexample table: its value, and the value the database had where it was
/// simplified.
#[derive(Serialize)]
pub(super) struct CxCell {
    text: String,
    was: Option<String>,
}

impl CxTable {
    /// Whether a cell of it was simplified.
    fn simplified(&self) -> bool {
        self.rows.iter().flatten().any(|c| c.was.is_some())
    }

    /// The table of `rows` under `caption`; `simplified`: the cells whose values were
    /// simplified, `(row, column)` with the value the database had.
    fn of(caption: &str, rows: &Rows, simplified: &[(usize, &str, String)]) -> CxTable {
        let count = match rows.count {
            Some(1) => "1 row".to_owned(),
            Some(n) => format!("{n} rows"),
            None => format!("more than {} rows", rows.at_least),
        };
        let was = |r: usize, c: usize| {
            let column = rows.columns.get(c)?;
            simplified
                .iter()
                .find(|(row, col, _)| *row == r && col == column)
                .map(|(_, _, was)| was.clone())
        };
        CxTable {
            caption: format!("{caption} ({count})"),
            columns: rows.columns.clone(),
            rows: rows
                .rows
                .iter()
                .enumerate()
                .map(|(r, row)| {
                    row.iter()
                        .enumerate()
                        .map(|(c, v)| CxCell {
                            text: v.to_string(),
                            was: was(r, c),
                        })
                        .collect()
                })
                .collect(),
        }
    }
}

/// The first shown counterexample of an item's verdicts as tables, each simplified cell
/// marked with the value it had.
fn counterexample_tables(result: &ItemResult) -> Vec<CxTable> {
    let shown = result
        .verdicts
        .iter()
        .find_map(|(_, v)| match v.counterexample.as_deref() {
            Some(Found::Shown(c)) => Some(c),
            _ => None,
        });
    let Some(c) = shown else {
        return Vec::new();
    };
    let mut tables: Vec<CxTable> = c
        .tables
        .iter()
        .map(|t| {
            let simplified: Vec<(usize, &str, String)> = c
                .simplified
                .iter()
                .filter(|s| s.table == t.table)
                .map(|s| (s.row, s.column.as_str(), s.was.to_string()))
                .collect();
            let caption = format!("counterexample: table {}", t.table);
            CxTable::of(&caption, &t.rows, &simplified)
        })
        .collect();
    tables.push(CxTable::of("gold on it", &c.gold, &[]));
    tables.push(CxTable::of("prediction on it", &c.predicted, &[]));
    tables
}

/// `exec: values differ`: the first metric that did not judge the prediction correct.
fn first_reason(result: &ItemResult) -> Option<String> {
    result
        .verdicts
        .iter()
        .find(|(_, v)| v.status != Status::Correct)
        .map(|(m, v)| format!("{m}: {}", v.reason))
}

fn side(role: &'static str, set: &SetRun, i: usize) -> Side {
    let result = &set.results[i];
    let counterexample = counterexample_tables(result);
    let prediction = &set.predictions[i];
    Side {
        role,
        name: set.name.clone(),
        status: status_name(result.status()),
        marks: result
            .verdicts
            .iter()
            .map(|(m, v)| (*m, status_name(v.status), v.code.clone()))
            .collect(),
        prediction: if prediction.trim().is_empty() {
            "(empty line)".to_owned()
        } else {
            readable(prediction)
        },
        why: message::verdicts_without_counterexample(result),
        simplified: counterexample.iter().any(CxTable::simplified),
        counterexample,
    }
}

/// What the rows need besides the run: the reported set, the set compared with (if a set), and
/// each item's flip and the other side's codes.
pub(super) struct Context<'a> {
    pub run: &'a Run,
    pub set: &'a SetRun,
    pub other: Option<&'a SetRun>,
    pub flip: &'a dyn Fn(usize) -> &'static str,
    pub against_codes: &'a dyn Fn(usize) -> Option<String>,
}

/// Item `i`'s row.
pub(super) fn row(cx: &Context, i: usize) -> Row {
    let run = cx.run;
    let item = &run.items[i];
    let judged = run.judged(cx.set, i);
    let width = run.index_width();
    let mut sides: Vec<Side> = cx.other.map(|a| side("A", a, i)).into_iter().collect();
    sides.push(side(if cx.other.is_some() { "B" } else { "" }, cx.set, i));
    Row {
        index: format!("{i:0width$}"),
        number: i,
        db_id: item.db_id.clone(),
        hardness: item.group(HARDNESS.name).map(str::to_owned),
        category: item.category.clone(),
        status: status_name(judged.result.status()),
        flip: (cx.flip)(i),
        codes: judged.result.codes(),
        against_codes: (cx.against_codes)(i),
        reason: match (first_reason(judged.result), cx.other) {
            (Some(reason), _) => reason,
            (None, Some(a)) => first_reason(&a.results[i]).map_or_else(
                || "correct".to_owned(),
                |r| format!("correct; A ({}) had {r}", a.name),
            ),
            (None, None) => "correct".to_owned(),
        },
        question: item.question.clone(),
        evidence: item.evidence.clone().filter(|e| !e.is_empty()),
        gold: readable(&item.gold),
        source: format!("{} (db {})", item.source, item.db_id),
        sides,
        gold_checks: run
            .gold_checks
            .of_item(i)
            .map(|f| (f.check, f.reason.clone()))
            .collect(),
    }
}
