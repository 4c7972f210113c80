//! SEDE's files: JSON lines with `QuerySetId`, `Title`, `Description`, `QueryBody` (the gold
//! T-SQL) as shipped (`val.jsonl`, `test.jsonl`, and the `*_original.jsonl` versions before the
//! dataset's manual fixes). Predictions are the same JSON lines keyed by `QuerySetId` (the query
//! in `QueryBody`, `prediction` or `query`); or keyed by the item's 0-based index as every
//! format reads them ([`predictions`]: a `.json` file, or JSON lines whose first object has an
//! `index` and no `QuerySetId`); or plain text with one query per line aligned with the gold.
//!
//! SEDE has no databases: every item's `db_id` is [`DB_ID`], and the item's source names its
//! `QuerySetId`.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

use super::{predictions, read_text, DatasetError, FormatEntry, Inputs, Item};

/// The `db_id` of every SEDE item (the Stack Exchange Data Explorer schema).
pub const DB_ID: &str = "stackexchange";

#[derive(Deserialize)]
struct GoldLine {
    #[serde(rename = "QuerySetId")]
    id: serde_json::Value,
    #[serde(rename = "QueryBody")]
    body: String,
    #[serde(rename = "Title", default)]
    title: Option<String>,
    #[serde(rename = "Description", default)]
    description: Option<String>,
}

#[derive(Deserialize)]
struct PredictionLine {
    #[serde(rename = "QuerySetId")]
    id: serde_json::Value,
    #[serde(rename = "QueryBody", alias = "prediction", alias = "query")]
    body: String,
}

/// A `QuerySetId` as text (numbers and strings alike).
fn id_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Non-blank lines with their 1-based line numbers.
fn json_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
}

/// Reads a SEDE gold file. The question is the title, with the description after it.
/// `format = "sede"` in the registry.
pub const ENTRY: FormatEntry = FormatEntry {
    name: "sede",
    table_columns: false,
    // SEDE has no databases to execute on.
    default_metric: "pcm",
    read_gold: |inputs: &Inputs| read_gold(&inputs.gold),
    read_predictions: |p, inputs, items| read_predictions(&p.file, items, &inputs.gold),
    unit: super::lines,
};

/// Reads the gold file into items; errors name the file and line.
pub fn read_gold(path: &Path) -> Result<Vec<Item>, DatasetError> {
    let text = read_text(path)?;
    let mut items = Vec::new();
    for (line, json) in json_lines(&text) {
        let g: GoldLine = serde_json::from_str(json).map_err(|e| DatasetError::Line {
            path: path.to_path_buf(),
            line,
            message: e.to_string(),
        })?;
        let question = match (g.title, g.description) {
            (Some(t), Some(d)) if !d.trim().is_empty() => Some(format!("{t} — {}", d.trim())),
            (Some(t), _) => Some(t),
            (None, d) => d,
        };
        let source = format!("{}:{line} (QuerySetId {})", path.display(), id_text(&g.id));
        items.push(Item {
            question,
            ..Item::new(items.len(), DB_ID, g.body, source)
        });
    }
    super::spider::non_empty(path, items)
}

/// The `QuerySetId` of each line of a gold file, in order.
fn gold_ids(path: &Path) -> Result<Vec<String>, DatasetError> {
    let text = read_text(path)?;
    json_lines(&text)
        .map(|(line, json)| {
            serde_json::from_str::<GoldLine>(json)
                .map(|g| id_text(&g.id))
                .map_err(|e| DatasetError::Line {
                    path: path.to_path_buf(),
                    line,
                    message: e.to_string(),
                })
        })
        .collect()
}

/// Whether JSON lines are keyed by index: the first object has `index` and no `QuerySetId`.
fn keyed_by_index(text: &str) -> bool {
    let first = json_lines(text)
        .next()
        .and_then(|(_, json)| serde_json::from_str::<serde_json::Value>(json).ok());
    first.is_some_and(|v| v.get("index").is_some() && v.get("QuerySetId").is_none())
}

/// Reads predictions for `items`: `.jsonl` files by `QuerySetId` (or by index, see the module
/// documentation), `.json` files by index, others one query per line.
pub fn read_predictions(
    path: &Path,
    items: &[Item],
    gold_file: &Path,
) -> Result<Vec<String>, DatasetError> {
    if predictions::is_json(path) {
        return predictions::read_keyed(path, items.len(), gold_file);
    }
    if !predictions::is_jsonl(path) {
        return predictions::read_lines(path);
    }
    let text = read_text(path)?;
    if keyed_by_index(&text) {
        return predictions::read_keyed(path, items.len(), gold_file);
    }
    let mut by_id: HashMap<String, String> = HashMap::new();
    let mut count = 0;
    for (line, json) in json_lines(&text) {
        let p: PredictionLine = serde_json::from_str(json).map_err(|e| DatasetError::Line {
            path: path.to_path_buf(),
            line,
            message: e.to_string(),
        })?;
        count += 1;
        let id = id_text(&p.id);
        if by_id.insert(id.clone(), p.body).is_some() {
            return Err(DatasetError::Line {
                path: path.to_path_buf(),
                line,
                message: format!("QuerySetId {id} appears twice"),
            });
        }
    }
    if count != items.len() {
        return Err(DatasetError::CountMismatch {
            prediction_file: path.to_path_buf(),
            predictions: count,
            unit: "lines",
            gold_file: gold_file.to_path_buf(),
            gold: items.len(),
        });
    }
    gold_ids(gold_file)?
        .into_iter()
        .map(|id| {
            by_id.remove(&id).ok_or_else(|| DatasetError::File {
                path: path.to_path_buf(),
                message: format!(
                    "no prediction for QuerySetId {id} of gold file {}",
                    gold_file.display()
                ),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLD: &str = r#"{"QuerySetId":7,"Title":"Top users","Description":"by rep\n","QueryBody":"SELECT TOP 10 Id\nFROM Users"}
{"QuerySetId":9,"Title":"T","Description":null,"QueryBody":"SELECT 1"}
"#;

    #[test]
    fn gold_items_and_keyed_predictions() {
        let dir = tempfile::tempdir().unwrap();
        let gold = dir.path().join("val.jsonl");
        std::fs::write(&gold, GOLD).unwrap();
        let items = read_gold(&gold).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].gold, "SELECT TOP 10 Id\nFROM Users");
        assert_eq!(items[0].question.as_deref(), Some("Top users — by rep"));
        assert_eq!(gold_ids(&gold).unwrap(), vec!["7", "9"]);

        let pred = dir.path().join("p.jsonl");
        std::fs::write(
            &pred,
            "{\"QuerySetId\": 9, \"prediction\": \"SELECT 2\"}\n{\"QuerySetId\": 7, \"QueryBody\": \"SELECT 3\"}\n",
        )
        .unwrap();
        assert_eq!(
            read_predictions(&pred, &items, &gold).unwrap(),
            vec!["SELECT 3", "SELECT 2"]
        );
        // Keyed by index instead: JSON lines whose objects have `index`, or a `.json` file.
        std::fs::write(
            &pred,
            "{\"index\": 1, \"prediction\": \"SELECT 2\"}\n{\"index\": 0, \"sql\": \"SELECT 3\"}\n",
        )
        .unwrap();
        assert_eq!(
            read_predictions(&pred, &items, &gold).unwrap(),
            vec!["SELECT 3", "SELECT 2"]
        );
        let json = dir.path().join("p.json");
        std::fs::write(&json, r#"{"0": "SELECT 3", "1": "SELECT 2"}"#).unwrap();
        assert_eq!(
            read_predictions(&json, &items, &gold).unwrap(),
            vec!["SELECT 3", "SELECT 2"]
        );
        std::fs::write(&json, r#"{"0": "SELECT 3"}"#).unwrap();
        let e = read_predictions(&json, &items, &gold)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no prediction for item 1"), "{e}");
    }

    #[test]
    fn misaligned_predictions_name_both_files() {
        let dir = tempfile::tempdir().unwrap();
        let gold = dir.path().join("val.jsonl");
        std::fs::write(&gold, GOLD).unwrap();
        let items = read_gold(&gold).unwrap();
        let pred = dir.path().join("p.jsonl");
        std::fs::write(&pred, "{\"QuerySetId\": 9, \"QueryBody\": \"x\"}\n").unwrap();
        let e = read_predictions(&pred, &items, &gold)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("p.jsonl") && e.contains("val.jsonl") && e.contains("1 lines"),
            "{e}"
        );
        std::fs::write(
            &pred,
            "{\"QuerySetId\": 9, \"QueryBody\": \"x\"}\n{\"QuerySetId\": 8, \"QueryBody\": \"y\"}\n",
        )
        .unwrap();
        let e = read_predictions(&pred, &items, &gold)
            .unwrap_err()
            .to_string();
        assert!(e.contains("QuerySetId 7") && e.contains("val.jsonl"), "{e}");
    }
}
