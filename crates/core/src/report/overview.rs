//! The HTML report of every prediction set of a manifest on one page (`sqlsuite report
//! <manifest>` with several sets): a table of each set's accuracy per metric (and per hardness),
//! then every item with one verdict per set and metric, its gold, each set's prediction and why
//! it failed.
//!
//! Spider's 14 sets × 1034 items do not fit a table a browser opens quickly, so the items are a
//! compact JSON document inside the page (texts stored once, however many sets predict them;
//! verdicts as indices into a table of `(status, code)` pairs) that the page's script renders one
//! page of rows at a time (sorted by the header clicked). The summary tables are plain HTML,
//! sorted by the header clicked (the script `sortable.js.j2`, shared with the report of one set). The template is
//! `overview.html.j2`; every value it writes is escaped by minijinja, and the JSON document has
//! every `<` written `\u003c`, so no text of it can close its `<script>` element.

use std::collections::HashMap;

use minijinja::value::Serde;
use minijinja::Environment;
use serde::Serialize;

use super::html::{hardness_group, status_name, RenderError};
use super::message;
use super::summary::Summary;
use crate::metric::exact_match::HARDNESS;
use crate::run::Run;

const TEMPLATE: &str = include_str!("overview.html.j2");

#[derive(Serialize)]
struct Page {
    dataset: String,
    sets: Vec<String>,
    items: usize,
    metrics: Vec<MetricTable>,
    provenance: Vec<(String, String)>,
    /// The gold checks' count line (the list is in each set's report).
    gold_checks: String,
    /// The items as JSON ([`Data`]), safe inside `<script>`.
    data: String,
}

#[derive(Serialize)]
struct MetricTable {
    name: String,
    /// The hardness levels that have items (columns), in the official order.
    hardness: Vec<String>,
    rows: Vec<SetRow>,
}

#[derive(Serialize)]
struct SetRow {
    set: String,
    items: usize,
    scored: usize,
    correct: usize,
    accuracy: String,
    /// Accuracy per hardness column.
    hardness: Vec<String>,
    /// The summary's text (headline, reasons, scores).
    summary: String,
}

/// What the page's script reads. Short names: the document is most of the page.
#[derive(Serialize)]
struct Data<'a> {
    sets: Vec<&'a str>,
    metrics: Vec<&'a str>,
    /// `(status, code)` pairs; verdicts are indices into it.
    kinds: Vec<(&'static str, &'a str)>,
    dbs: Vec<&'a str>,
    /// Every text once: golds, questions, predictions, messages.
    texts: Vec<&'a str>,
    /// Per item: `[index, db (into dbs), hardness, gold (into texts), question (into texts, or
    /// -1)]`.
    items: Vec<(usize, usize, &'a str, usize, i64)>,
    /// Per set: per item, per metric, the kind (into kinds), items × metrics long.
    verdicts: Vec<Vec<usize>>,
    /// Per set: per item, the prediction (into texts).
    predictions: Vec<Vec<usize>>,
    /// Per set: per item, the failing metrics' lines (into texts), -1 when correct.
    messages: Vec<Vec<i64>>,
}

/// Interns values, handing out their first position.
struct Table<K> {
    order: Vec<K>,
    index: HashMap<K, usize>,
}

impl<K: std::hash::Hash + Eq + Copy> Table<K> {
    fn new() -> Self {
        Table {
            order: Vec::new(),
            index: HashMap::new(),
        }
    }

    fn id(&mut self, key: K) -> usize {
        *self.index.entry(key).or_insert_with(|| {
            self.order.push(key);
            self.order.len() - 1
        })
    }
}

fn accuracy(correct: usize, scored: usize) -> String {
    if scored == 0 {
        "-".to_owned()
    } else {
        format!("{:.2}%", 100.0 * correct as f64 / scored as f64)
    }
}

/// The items' JSON document.
fn data<'a>(run: &'a Run, messages: &'a [Vec<String>]) -> Data<'a> {
    let metrics: Vec<&str> = run.metrics.clone();
    let mut texts: Table<&str> = Table::new();
    let mut dbs: Table<&str> = Table::new();
    let mut kinds: Table<(&'static str, &str)> = Table::new();
    let items = run
        .items
        .iter()
        .map(|item| {
            let question = item.question.as_deref().map_or(-1, |q| texts.id(q) as i64);
            (
                item.index,
                dbs.id(&item.db_id),
                item.group(HARDNESS.name).unwrap_or(""),
                texts.id(&item.gold),
                question,
            )
        })
        .collect();
    let mut verdicts = Vec::new();
    let mut predictions = Vec::new();
    let mut failures = Vec::new();
    for (set, messages) in run.sets.iter().zip(messages) {
        let mut v = Vec::with_capacity(run.items.len() * metrics.len());
        let mut p = Vec::with_capacity(run.items.len());
        let mut f = Vec::with_capacity(run.items.len());
        for (i, message) in messages.iter().enumerate() {
            let result = &set.results[i];
            for metric in &metrics {
                let kind = result
                    .verdict(metric)
                    .map_or(("skipped", "not_evaluated"), |v| {
                        (status_name(v.status), v.code.as_str())
                    });
                v.push(kinds.id(kind));
            }
            p.push(texts.id(&set.predictions[i]));
            f.push(if message.is_empty() {
                -1
            } else {
                texts.id(message) as i64
            });
        }
        verdicts.push(v);
        predictions.push(p);
        failures.push(f);
    }
    Data {
        sets: run.sets.iter().map(|s| s.name.as_str()).collect(),
        metrics,
        kinds: kinds.order,
        dbs: dbs.order,
        texts: texts.order,
        items,
        verdicts,
        predictions,
        messages: failures,
    }
}

/// JSON that may stand inside a `<script>` element: no `<`, so no `</script>` or `<!--`.
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// The page of every prediction set of the run.
pub fn render(run: &Run) -> Result<String, RenderError> {
    let metrics = run
        .metrics
        .iter()
        .map(|&metric| {
            let summaries: Vec<Summary> = run
                .sets
                .iter()
                .map(|set| Summary::of(run, set, metric))
                .collect();
            let tables: Vec<_> = summaries.iter().map(hardness_group).collect();
            let hardness: Vec<String> = tables
                .iter()
                .flatten()
                .flat_map(|g| g.rows.iter().map(|r| r.name.clone()))
                .fold(Vec::new(), |mut seen, h| {
                    if !seen.contains(&h) {
                        seen.push(h);
                    }
                    seen
                });
            let rows = run
                .sets
                .iter()
                .zip(&summaries)
                .zip(&tables)
                .map(|((set, s), table)| SetRow {
                    set: set.name.clone(),
                    items: s.total.items,
                    scored: s.total.scored(),
                    correct: s.total.correct,
                    accuracy: accuracy(s.total.correct, s.total.scored()),
                    hardness: hardness
                        .iter()
                        .map(|h| {
                            table
                                .iter()
                                .flat_map(|g| &g.rows)
                                .find(|r| &r.name == h)
                                .map_or_else(|| "-".to_owned(), |r| r.accuracy.clone())
                        })
                        .collect(),
                    summary: s.render_overview().trim_end().to_owned(),
                })
                .collect();
            MetricTable {
                name: metric.to_owned(),
                hardness,
                rows,
            }
        })
        .collect();
    let messages: Vec<Vec<String>> = run
        .sets
        .iter()
        .map(|set| set.results.iter().map(message::verdicts).collect())
        .collect();
    // Serialising strings and numbers cannot fail.
    let data = serde_json::to_string(&data(run, &messages)).unwrap_or_default();
    let page = Page {
        gold_checks: super::gold_checks::line(&run.gold_checks),
        dataset: run.dataset.clone(),
        sets: run.sets.iter().map(|s| s.name.clone()).collect(),
        items: run.items.len(),
        metrics,
        provenance: run
            .sets
            .iter()
            .map(|set| (set.name.clone(), run.provenance_of(set).render()))
            .collect(),
        data: script_safe(&data),
    };
    let mut env = Environment::new();
    // The name ends in `.html`: minijinja escapes every value for HTML (but `data`, marked safe).
    env.add_template("overview.html", TEMPLATE)?;
    env.add_template("sortable.html", super::html::SORTABLE)?;
    Ok(env
        .get_template("overview.html")?
        .render(minijinja::Value::from(Serde(&page)))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_cannot_close_its_script_element() {
        let json = serde_json::to_string(&["</script><!--", "a<b"]).unwrap_or_default();
        let safe = script_safe(&json);
        assert!(!safe.contains('<'));
        let back: Vec<String> = serde_json::from_str(&safe).unwrap_or_default();
        assert_eq!(back, ["</script><!--", "a<b"]);
    }
}
