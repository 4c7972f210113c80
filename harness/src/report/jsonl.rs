//! JSON lines for other tools: one object per (item, metric).
//!
//! `{"dataset":"spider","predictions":"dev_1","index":7,"db_id":"concert_singer",
//!   "metric":"exec","verdict":"incorrect","reason":"row_count","message":"row count differs: …"}`
//!
//! Metrics with graded scores add them: `"scores":{"pcm_f1":0.95,"pcm_em":0.0,…}`.

use serde::Serialize;

use crate::evaluation::Evaluation;
use crate::metric::Status;

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
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    scores: serde_json::Map<String, serde_json::Value>,
}

/// The lines of one prediction set (computes its results).
pub fn lines(eval: &Evaluation, set: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (i, item) in eval.items().iter().enumerate() {
        for (metric, v) in &eval.result(set, i).verdicts {
            let line = Line {
                dataset: &eval.dataset.name,
                predictions: &eval.dataset.predictions[set].name,
                index: item.index,
                db_id: &item.db_id,
                metric,
                verdict: v.status,
                reason: &v.code,
                message: &v.reason,
                scores: v
                    .scores
                    .iter()
                    .map(|(name, value)| ((*name).to_owned(), serde_json::Value::from(*value)))
                    .collect(),
            };
            // Serialising plain strings and numbers cannot fail.
            out.push(serde_json::to_string(&line).unwrap_or_default());
        }
    }
    out
}
