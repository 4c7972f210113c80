//! SQL-to-text datasets: the SQL is given and text is predicted (`spec/bleu.md`).
//!
//! The gold is a JSON array (Spider's `dev.json`, or `compose.json` as `sqlsuite compose`
//! writes it) or JSON lines, one object per item:
//! * `question`: the reference text, or an array of reference texts (`references` is read the
//!   same way);
//! * `query`: the SQL the text describes (optional; shown in failure messages);
//! * `db_id` (optional, default `-`);
//! * `clause_count` (optional): the item's category becomes `N clauses`, so summaries and
//!   corpus scores are also given per clause count.
//!
//! Predictions are one text per line aligned with the gold, or JSON lines keyed by the item's
//! 0-based `index` with the text in `prediction` or `text`.

use std::path::Path;

use serde_json::Value;

use super::{predictions, read_text, DatasetError, FormatEntry, Inputs, Item};

/// `format = "sql2text"` in the registry.
pub const ENTRY: FormatEntry = FormatEntry {
    name: "sql2text",
    table_columns: false,
    default_metric: "bleu",
    read_gold: |inputs: &Inputs| read_gold(&inputs.gold),
    read_predictions: |p, inputs, items| read_predictions(&p.file, items, &inputs.gold),
    unit: super::lines,
};

/// Reads a SQL-to-text gold file.
pub fn read_gold(path: &Path) -> Result<Vec<Item>, DatasetError> {
    let text = read_text(path)?;
    let mut items = Vec::new();
    for (source, line, v) in predictions::json_objects(path, &text)? {
        let error = |message: String| match line {
            0 => DatasetError::File {
                path: path.to_path_buf(),
                message: format!("item {}: {message}", items.len()),
            },
            line => DatasetError::Line {
                path: path.to_path_buf(),
                line,
                message,
            },
        };
        let Value::Object(fields) = v else {
            return Err(error("expected an object".into()));
        };
        let texts = match fields.get("question").or_else(|| fields.get("references")) {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => a
                .iter()
                .map(|t| match t {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(error(format!("a reference text must be a string: {other}"))),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(error(format!(
                    "`question` must be a string or an array of strings: {other}"
                )))
            }
            None => return Err(error("no `question` (the reference text)".into())),
        };
        let Some(first) = texts.first().cloned() else {
            return Err(error("no reference text".into()));
        };
        let string = |key: &str| match fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(error(format!("`{key}` must be a string: {other}"))),
        };
        let db_id = string("db_id")?.unwrap_or_else(|| "-".to_owned());
        let clauses = match fields.get("clause_count") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .ok_or_else(|| error(format!("`clause_count` must be a count: {v}")))?,
            ),
        };
        items.push(Item {
            described_sql: string("query")?,
            category: clauses.map(|n| format!("{n} clause{}", if n == 1 { "" } else { "s" })),
            references: texts,
            ..Item::new(items.len(), db_id, first, source)
        });
    }
    super::spider::non_empty(path, items)
}

/// Reads predictions: one text per line, or keyed by the item's index
/// ([`predictions::read_keyed`]).
pub fn read_predictions(
    path: &Path,
    items: &[Item],
    gold_file: &Path,
) -> Result<Vec<String>, DatasetError> {
    predictions::read(path, items.len(), gold_file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spider_json_and_compose_json_and_keyed_predictions() {
        let dir = tempfile::tempdir().unwrap();
        let gold = dir.path().join("g.json");
        std::fs::write(
            &gold,
            r#"[{"db_id":"a","query":"SELECT 1","question":"One?","sql":{}},
                {"query":"SELECT 2","question":["Two?","The number two."],"clause_count":3}]"#,
        )
        .unwrap();
        let items = read_gold(&gold).unwrap();
        assert_eq!(items[0].gold, "One?");
        assert_eq!(items[0].db_id, "a");
        assert_eq!(items[1].references, vec!["Two?", "The number two."]);
        assert_eq!(items[1].category.as_deref(), Some("3 clauses"));
        assert_eq!(items[1].described_sql.as_deref(), Some("SELECT 2"));
        assert!(items[1].source.ends_with("g.json#1"));

        let p = dir.path().join("p.jsonl");
        std::fs::write(
            &p,
            "{\"index\":1,\"prediction\":\"two\"}\n{\"index\":0,\"text\":\"one\"}\n",
        )
        .unwrap();
        assert_eq!(read_predictions(&p, &items, &gold).unwrap(), ["one", "two"]);
        std::fs::write(&p, "{\"index\":1,\"prediction\":\"two\"}\n").unwrap();
        let e = read_predictions(&p, &items, &gold).unwrap_err().to_string();
        assert!(e.contains("no prediction for item 0"), "{e}");
    }

    /// Found while writing the reader fuzzing: keyed predictions written as a JSON array (in a `.jsonl`
    /// file) gave errors at line 0.
    #[test]
    fn keyed_predictions_in_a_json_array_name_the_object() {
        let dir = tempfile::tempdir().unwrap();
        let gold = dir.path().join("g.jsonl");
        std::fs::write(&gold, "{\"question\":\"a\"}\n").unwrap();
        let items = read_gold(&gold).unwrap();
        let p = dir.path().join("p.jsonl");
        std::fs::write(
            &p,
            "[{\"index\": 0, \"prediction\": \"a\"}, {\"index\": 0}]",
        )
        .unwrap();
        let e = read_predictions(&p, &items, &gold).unwrap_err().to_string();
        assert!(e.contains("p.jsonl: object 1: no `prediction` text"), "{e}");
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let gold = dir.path().join("g.jsonl");
        std::fs::write(&gold, "{\"question\":\"a\"}\n\n{\"query\":\"SELECT 1\"}\n").unwrap();
        let e = read_gold(&gold).unwrap_err().to_string();
        assert!(
            e.contains("g.jsonl:3") && e.contains("no `question`"),
            "{e}"
        );
    }
}
