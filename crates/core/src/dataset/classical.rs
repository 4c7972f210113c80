//! The classical datasets (ATIS, GeoQuery, Academic, Advising, IMDB, Restaurants, Scholar, Yelp)
//! as the test-suite evaluator ships them (`classical_test.json`, `spec/classical.md`): a JSON
//! list of objects with `query` (the gold), `db_id` (the dataset), `variables`, `text` and
//! `orig_id`. The released suite paths (`testsuite`, `db_path`) are not read: `[databases]`
//! names the databases.
//!
//! Predictions are one per line, aligned with the items (the reference's `--pred` file), or
//! keyed by the item's index in the gold file (also under a subset) in a `.jsonl` or `.json`
//! file, as every format reads them ([`predictions`]: `{"index": 0, "query": …}` objects, or
//! `{"0": …}`).

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

use super::{predictions, read_text, DatasetError, FormatEntry, Inputs, Item, Variable};

/// `format = "classical"` in the registry.
pub const ENTRY: FormatEntry = FormatEntry {
    name: "classical",
    table_columns: false,
    default_metric: "exec",
    read_gold: |inputs: &Inputs| read_gold(&inputs.gold),
    read_predictions: |p, _, items| read_predictions(&p.file, items),
    unit: super::lines,
};

#[derive(Deserialize)]
struct JsonItem {
    query: String,
    db_id: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    variables: Vec<JsonVariable>,
    #[serde(default)]
    orig_id: Option<(String, usize)>,
}

#[derive(Deserialize)]
struct JsonVariable {
    name: String,
    #[serde(default)]
    example: String,
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    ancestor_of_occuring_column: Vec<(String, String)>,
}

/// Reads `classical_test.json`.
pub fn read_gold(path: &Path) -> Result<Vec<Item>, DatasetError> {
    let text = read_text(path)?;
    let items: Vec<JsonItem> = serde_json::from_str(&text).map_err(|e| DatasetError::Line {
        path: path.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    })?;
    let items = items
        .into_iter()
        .enumerate()
        .map(|(index, j)| {
            let source = match &j.orig_id {
                Some((set, n)) => format!("{}#{index} ({set} {n})", path.display()),
                None => format!("{}#{index}", path.display()),
            };
            Item {
                question: j.text,
                variables: j
                    .variables
                    .into_iter()
                    .map(|v| Variable {
                        name: v.name,
                        example: v.example,
                        kind: v.kind,
                        columns: v.ancestor_of_occuring_column,
                    })
                    .collect(),
                ..Item::new(index, j.db_id, j.query, source)
            }
        })
        .collect();
    super::spider::non_empty(path, items)
}

/// Reads predictions for `items`: a `.json` or `.jsonl` file keyed by item index (the index in
/// the whole gold file, also under a subset: [`predictions::keyed_entries`]), others one query
/// per line.
pub fn read_predictions(path: &Path, items: &[Item]) -> Result<Vec<String>, DatasetError> {
    if !(predictions::is_jsonl(path) || predictions::is_json(path)) {
        return predictions::read_lines(path);
    }
    let mut by_index: HashMap<usize, String> = HashMap::new();
    for (index, prediction, error) in predictions::keyed_entries(path)? {
        if !items.iter().any(|i| i.index == index) {
            return Err(error(format!(
                "index {index} is no item of the gold (after the subset)"
            )));
        }
        if by_index.insert(index, prediction).is_some() {
            return Err(error(format!("index {index} appears twice")));
        }
    }
    items
        .iter()
        .map(|item| {
            by_index
                .remove(&item.index)
                .ok_or_else(|| DatasetError::File {
                    path: path.to_path_buf(),
                    message: format!("no prediction for item {} ({})", item.index, item.source),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLD: &str = r#"[
 {"text": "homepage of PVLDB", "query": "SELECT J.HOMEPAGE FROM JOURNAL AS J WHERE J.NAME = \"PVLDB\" ;",
  "variables": [{"example": "PVLDB", "location": "both", "name": "journal_name0", "type": "journal_name",
                 "ancestor_of_occuring_column": [["journal", "NAME"]]}],
  "orig_id": ["academic", 0], "db_id": "academic", "db_path": "x", "testsuite": ["y"]},
 {"text": "rivers", "query": "SELECT RIVER_NAME FROM RIVER ;", "variables": [], "orig_id": ["geography", 3],
  "db_id": "geography"}
]"#;

    #[test]
    fn reads_items_with_their_variables() {
        let dir = tempfile::tempdir().unwrap();
        let gold = dir.path().join("classical_test.json");
        std::fs::write(&gold, GOLD).unwrap();
        let items = read_gold(&gold).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].db_id, "academic");
        assert_eq!(items[1].gold, "SELECT RIVER_NAME FROM RIVER ;");
        assert_eq!(items[0].question.as_deref(), Some("homepage of PVLDB"));
        assert_eq!(
            items[0].variables,
            vec![Variable {
                name: "journal_name0".into(),
                example: "PVLDB".into(),
                kind: "journal_name".into(),
                columns: vec![("journal".into(), "NAME".into())],
            }]
        );
        assert!(
            items[1].source.ends_with("#1 (geography 3)"),
            "{}",
            items[1].source
        );
    }

    #[test]
    fn keyed_predictions_are_placed_by_index() {
        let dir = tempfile::tempdir().unwrap();
        let gold = dir.path().join("g.json");
        std::fs::write(&gold, GOLD).unwrap();
        let items = read_gold(&gold).unwrap();
        let p = dir.path().join("p.jsonl");
        std::fs::write(
            &p,
            "{\"index\": 1, \"query\": \"b\"}\n\n{\"index\": 0, \"query\": \"a\"}\n",
        )
        .unwrap();
        assert_eq!(read_predictions(&p, &items).unwrap(), vec!["a", "b"]);
        std::fs::write(&p, "{\"index\": 1, \"query\": \"b\"}\n").unwrap();
        let e = read_predictions(&p, &items).unwrap_err().to_string();
        assert!(e.contains("no prediction for item 0"), "{e}");
        std::fs::write(
            &p,
            "{\"index\": 1, \"query\": \"b\"}\n{\"index\": 7, \"query\": \"c\"}\n",
        )
        .unwrap();
        let e = read_predictions(&p, &items).unwrap_err().to_string();
        assert!(
            e.ends_with("p.jsonl:2: index 7 is no item of the gold (after the subset)"),
            "{e}"
        );
        // A JSON object keyed by index, and a JSON array with the other field names.
        let j = dir.path().join("p.json");
        std::fs::write(&j, r#"{"1": "b", "0": "a"}"#).unwrap();
        assert_eq!(read_predictions(&j, &items).unwrap(), vec!["a", "b"]);
        std::fs::write(
            &j,
            r#"[{"index": 0, "sql": "a"}, {"index": 1, "prediction": "b"}]"#,
        )
        .unwrap();
        assert_eq!(read_predictions(&j, &items).unwrap(), vec!["a", "b"]);
        std::fs::write(&j, r#"{"0": "a", "00": "b"}"#).unwrap();
        let e = read_predictions(&j, &items).unwrap_err().to_string();
        assert!(e.contains("index 0 appears twice"), "{e}");
    }

    #[test]
    fn a_broken_gold_names_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let gold = dir.path().join("g.json");
        std::fs::write(&gold, "[\n {\"query\": \"x\"}\n]").unwrap();
        let e = read_gold(&gold).unwrap_err().to_string();
        assert!(e.contains("g.json:2: missing field `db_id`"), "{e}");
    }
}
