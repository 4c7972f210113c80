//! JSON lines for other tools: one object per (item, metric).
//!
//! `{"dataset":"spider","predictions":"dev_1","index":7,"db_id":"concert_singer",
//!   "metric":"exec","verdict":"incorrect","reason":"row_count","message":"row count differs: …",
//!   "details":"gold rows (3 rows; columns name):\n  ('Joe Sharp',)\n…","gold":"SELECT …",
//!   "prediction":"SELECT …","question":"…","hardness":"easy"}`
//!
//! Each line carries the item's gold and the prediction judged, the question where the dataset
//! has one, the hardness (Spider, with `[dataset] tables`) and the category (BIRD's
//! difficulty, SQL-Eval's `query_category`) where the item has them, and, for a prediction not
//! judged correct, the metric's details (`details`, the lines a failed trial shows): for
//! execution, the rows only in the gold and only in the prediction (or both results), at most
//! five of each, each list headed by how many rows it has in all.
//!
//! Metrics with graded scores add them: `"scores":{"pcm_f1":0.95,"pcm_em":0.0,…}`; metrics
//! that found something wrong with the gold flag it: `"gold_flags":["ties_at_limit"]`. Where
//! the backend counts the work queries do (SQLite), metrics that run them add the steps of gold
//! and prediction, summed over the databases the prediction ran on: `"steps":{"gold":4000,
//! "prediction":6000}` (no `prediction` where it stopped at the time limit or the gold's row
//! count; [`crate::metric::Steps`]).
//!
//! An incorrect exec verdict whose rows differ (`rows_differ`, `row_count`, `column_count`,
//! `order`) carries those rows as data, from the database that told gold and prediction apart
//! ([`crate::metric::differing`]): `"rows":{"database":"school.sql","shown":"difference",
//! "gold":{"columns":["name"],"rows":[["Ann"]],"count":1},"predicted":{…},"truncated":false}`
//! — `shown` is `difference` (the rows only one side has) or `results` (both whole results);
//! each side at most [`crate::metric::differing::ROWS_PER_SIDE`] rows and its full `count`
//! (`null` and `more_than` where the prediction was stopped at the gold's row count); cells as
//! JSON numbers, strings and `null`, bytes as lowercase hex strings, a float that is not
//! finite as its text (`"NaN"`, `"inf"`).
//!
//! The exec metric's minimal counterexample, where asked for (`counterexamples = true`;
//! `spec/counterexample.md`): `"counterexample":{"database":"db.sqlite","original_rows":40,
//! "rows":2,"other_rows":0,"minimal":true,"rechecked":true,"probes":31,"steps":412,
//! "difference":"…",
//! "tables":[{"table":"singer","columns":["id","name"],"rows":[[1,"Joe"]],"count":1}],
//! "gold":{…},"predicted":{…}}` (`not_minimal` says why a budget stopped it, `plugged` the
//! prediction with the gold's values it is for, `simplified` the cells whose values were
//! simplified: `[{"table":"singer","row":0,"column":"name","was":"Joe","now":""}]`), or
//! `{"not_shown":"why"}`.
//!
//! A set read with an extraction rule (`[[predictions]] extract`) adds, where the rule took
//! the SQL out of the answer, how and from which lines: `"extracted":{"found":"fence",
//! "lines":[2,4]}`.
//!
//! Each prediction set's lines start with one line of provenance and gold checks (it has no
//! `index`): `{"dataset":"spider","predictions":"dev_1","provenance":{"sqlsuite":"0.1.0",…},
//! "gold_checks":{"items":1034,"flagged":40,"counts":{"empty_result":12,…},"findings":[{"index":
//! 42,"db_id":"…","check":"empty_result","reason":"returns no row on …"},…]}}`
//! ([`crate::provenance`], [`crate::gold_check`]).
//!
//! [`lines`] gives a whole set's lines from a [`Run`]; [`header`] and [`item_lines`] give them
//! one at a time, for a writer that streams them as items are judged
//! ([`crate::evaluation::in_order`]): the same bytes.

use serde::Serialize;

use crate::counterexample::{Found, Rows};
use crate::dataset::extract::Extracted;
use crate::dataset::Item;
use crate::denotation::Value;
use crate::gold_check::GoldChecks;
use crate::metric::differing::DifferingRows;
use crate::metric::exact_match::HARDNESS;
use crate::metric::{Status, Steps};
use crate::provenance::SetProvenance;
use crate::run::{Judged, Run, SetRun};

#[derive(Serialize)]
struct ProvenanceLine<'a> {
    dataset: &'a str,
    predictions: &'a str,
    provenance: SetProvenance<'a>,
    gold_checks: GoldChecksField<'a>,
}

/// The header's `gold_checks`: counts and every finding.
#[derive(Serialize)]
struct GoldChecksField<'a> {
    items: usize,
    flagged: usize,
    counts: std::collections::BTreeMap<&'static str, usize>,
    findings: Vec<FindingField<'a>>,
}

#[derive(Serialize)]
struct FindingField<'a> {
    index: usize,
    db_id: &'a str,
    check: &'static str,
    reason: &'a str,
}

fn gold_checks<'a>(checks: &'a GoldChecks, items: &'a [Item]) -> GoldChecksField<'a> {
    GoldChecksField {
        items: checks.items,
        flagged: checks.flagged_items(),
        counts: checks.counts(),
        findings: checks
            .findings
            .iter()
            .map(|f| FindingField {
                index: items.get(f.item).map_or(f.item, |i| i.index),
                db_id: items.get(f.item).map_or("", |i| i.db_id.as_str()),
                check: f.check,
                reason: &f.reason,
            })
            .collect(),
    }
}

#[derive(Serialize)]
struct Line<'a> {
    dataset: &'a str,
    predictions: &'a str,
    index: usize,
    db_id: &'a str,
    metric: &'a str,
    verdict: Status,
    reason: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "no_text")]
    details: &'a str,
    gold: &'a str,
    prediction: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    question: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hardness: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category: Option<&'a str>,
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    scores: serde_json::Map<String, serde_json::Value>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    gold_flags: &'a [&'static str],
    #[serde(skip_serializing_if = "Option::is_none")]
    steps: Option<Steps>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extracted: Option<Extracted>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counterexample: Option<serde_json::Value>,
}

fn no_text(text: &&str) -> bool {
    text.is_empty()
}

/// The lines of one prediction set, its provenance first: [`header`], then [`item_lines`] of
/// each item in order.
pub fn lines(run: &Run, set: &SetRun) -> Vec<String> {
    let header = header(
        &run.dataset,
        &set.name,
        run.provenance_of(set),
        &run.gold_checks,
        &run.items,
    );
    let mut out = vec![header];
    for i in 0..run.items.len() {
        let extracted = set.extracted.get(i).copied().flatten();
        out.extend(item_lines(
            &run.dataset,
            &set.name,
            run.judged(set, i),
            extracted,
        ));
    }
    out
}

/// A set's first line: its provenance and the gold checks' findings about `items`.
pub fn header(
    dataset: &str,
    set: &str,
    provenance: SetProvenance<'_>,
    checks: &GoldChecks,
    items: &[Item],
) -> String {
    let line = ProvenanceLine {
        dataset,
        predictions: set,
        provenance,
        gold_checks: gold_checks(checks, items),
    };
    // Serialising strings, numbers and TOML values cannot fail.
    serde_json::to_string(&line).unwrap_or_default()
}

/// One judged item's lines, one per metric, in the metrics' order; `extracted` is what the
/// set's extraction rule took out of the answer, if it has one.
pub fn item_lines(
    dataset: &str,
    set: &str,
    judged: Judged<'_>,
    extracted: Option<Extracted>,
) -> Vec<String> {
    let Judged {
        item,
        prediction,
        result,
    } = judged;
    let mut out = Vec::with_capacity(result.verdicts.len());
    for (metric, v) in &result.verdicts {
        let line = Line {
            dataset,
            predictions: set,
            index: item.index,
            db_id: &item.db_id,
            metric,
            verdict: v.status,
            reason: &v.code,
            message: &v.reason,
            details: if v.status == Status::Correct {
                ""
            } else {
                &v.details
            },
            gold: &item.gold,
            prediction,
            question: item.question.as_deref(),
            hardness: item.group(HARDNESS.name),
            category: item.category.as_deref(),
            scores: v
                .scores
                .iter()
                .map(|(name, value)| ((*name).to_owned(), serde_json::Value::from(*value)))
                .collect(),
            gold_flags: &v.gold_flags,
            steps: v.steps,
            extracted,
            rows: v.rows.as_deref().map(differing_rows),
            counterexample: v.counterexample.as_deref().map(counterexample),
        };
        // Serialising plain strings and numbers cannot fail.
        out.push(serde_json::to_string(&line).unwrap_or_default());
    }
    out
}

/// A cell as JSON: numbers, text, null; bytes as hex text.
fn cell(v: &Value) -> serde_json::Value {
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Int(n) => (*n).into(),
        Value::Real(f) => serde_json::Number::from_f64(*f)
            .map_or_else(|| f.to_string().into(), serde_json::Value::Number),
        Value::Text(t) => t.as_str().into(),
        Value::Blob(b) => b
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
            .into(),
    }
}

fn rows(r: &Rows) -> serde_json::Value {
    serde_json::json!({
        "columns": r.columns,
        "rows": r.rows.iter().map(|row| row.iter().map(cell).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "count": r.count,
    })
}

/// The `rows` field: both sides bounded, each with its full count (`null` and `more_than`
/// where the prediction was stopped at the gold's row count).
fn differing_rows(d: &DifferingRows) -> serde_json::Value {
    let side = |r: &Rows| {
        let mut side = rows(r);
        if r.count.is_none() {
            side["more_than"] = r.at_least.into();
        }
        side
    };
    serde_json::json!({
        "database": d.database,
        "shown": d.shown,
        "gold": side(&d.gold),
        "predicted": side(&d.predicted),
        "truncated": d.truncated(),
    })
}

/// The `counterexample` field.
fn counterexample(found: &Found) -> serde_json::Value {
    let c = match found {
        Found::NotShown(why) => return serde_json::json!({ "not_shown": why }),
        Found::Shown(c) => c,
    };
    let mut out = serde_json::json!({
        "database": c.database,
        "original_rows": c.original_rows,
        "rows": c.rows,
        "other_rows": c.other_rows,
        "minimal": c.minimal,
        "rechecked": true,
        "probes": c.probes,
        "steps": c.steps,
        "difference": c.difference,
        "tables": c.tables.iter().map(|t| {
            let mut table = rows(&t.rows);
            table["table"] = t.table.as_str().into();
            table
        }).collect::<Vec<_>>(),
        "gold": rows(&c.gold),
        "predicted": rows(&c.predicted),
    });
    if let Some(why) = &c.not_minimal {
        out["not_minimal"] = why.as_str().into();
    }
    if let Some(sql) = &c.plugged {
        out["plugged"] = sql.as_str().into();
    }
    if !c.unchecked_keys.is_empty() {
        out["unchecked_keys"] = c.unchecked_keys.clone().into();
    }
    if !c.simplified.is_empty() {
        out["simplified"] = c
            .simplified
            .iter()
            .map(|s| {
                serde_json::json!({
                    "table": s.table, "row": s.row, "column": s.column,
                    "was": cell(&s.was), "now": cell(&s.now),
                })
            })
            .collect::<Vec<_>>()
            .into();
    }
    out
}
