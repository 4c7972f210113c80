//! BIRD's formats (`format = "bird"`): the mini-dev and dev JSON files as shipped, and the
//! baselines' prediction files.
//!
//! The gold is a JSON array of objects with `db_id`, `SQL`, `question`, `evidence` (the
//! external knowledge the model is given) and `difficulty` (`simple`, `moderate`,
//! `challenging`), as `mini_dev_sqlite.json`, its PostgreSQL and MySQL versions and BIRD's
//! `dev.json` have them; `question_id` is not needed (it is not unique: mini-dev repeats two
//! items). The difficulty is the item's category, so summaries are given per difficulty. A
//! gold file of `SQL<TAB>db_id` lines (`mini_dev_sqlite_gold.sql`) reads as Spider's does, with
//! no question, evidence or difficulty.
//!
//! Predictions are the baselines' JSON object keyed by the item's index, each value
//! `SQL\t----- bird -----\tdb_id`, read as BIRD's evaluation scripts read it: with exactly one
//! separator the text before it, verbatim (several lines, a markdown fence or prose included);
//! with none or several, the whole value stripped (Python's `str.strip()`); a value that is not
//! a string (`null`), a single space. The scripts pair the values with the gold in the file's
//! key order; here a value goes to the item its key names (the same for every shipped file,
//! whose keys run `"0"` … `"499"` in order). Or any of the other prediction files
//! ([`predictions::read`]).

use std::path::Path;

use serde_json::Value;

use super::{predictions, read_text, DatasetError, FormatEntry, Inputs, Item};
use sqlsuite_reference::python::python_strip;

/// What separates the SQL from the `db_id` in a BIRD prediction.
pub const SEPARATOR: &str = "\t----- bird -----\t";

/// `format = "bird"` in the registry.
pub const ENTRY: FormatEntry = FormatEntry {
    name: "bird",
    table_columns: false,
    default_metric: "exec",
    read_gold: |inputs: &Inputs| read_gold(&inputs.gold),
    read_predictions: |p, inputs, items| read_predictions(&p.file, items.len(), &inputs.gold),
    unit: super::lines,
};

/// Reads a BIRD gold file: the JSON array, or `SQL<TAB>db_id` lines.
pub fn read_gold(path: &Path) -> Result<Vec<Item>, DatasetError> {
    if !predictions::is_json(path) {
        return super::spider::read_gold(path);
    }
    let text = read_text(path)?;
    let values: Vec<Value> = serde_json::from_str(&text).map_err(|e| DatasetError::Line {
        path: path.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    })?;
    let items = values
        .iter()
        .enumerate()
        .map(|(i, v)| item(path, i, v))
        .collect::<Result<Vec<_>, _>>()?;
    super::spider::non_empty(path, items)
}

/// Item `index` of the array.
fn item(path: &Path, index: usize, v: &Value) -> Result<Item, DatasetError> {
    let error = |message: String| DatasetError::File {
        path: path.to_path_buf(),
        message: format!("item {index}: {message}"),
    };
    let Value::Object(fields) = v else {
        return Err(error("expected an object".into()));
    };
    let string = |key: &str| match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(error(format!("`{key}` must be a string: {other}"))),
    };
    let required = |key: &str| string(key)?.ok_or_else(|| error(format!("no `{key}`")));
    Ok(Item {
        question: string("question")?,
        evidence: string("evidence")?,
        category: string("difficulty")?,
        ..Item::new(
            index,
            required("db_id")?,
            required("SQL")?,
            format!("{}#{index}", path.display()),
        )
    })
}

/// Reads predictions: BIRD's JSON object (see the module documentation); or any other
/// prediction file.
pub fn read_predictions(
    path: &Path,
    items: usize,
    gold_file: &Path,
) -> Result<Vec<String>, DatasetError> {
    if predictions::is_json(path) {
        let text = read_text(path)?;
        if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&text) {
            let keyed = predictions::keyed_object(path, map, |v| Ok(prediction_of(v)))?;
            return predictions::align(path, keyed, items, gold_file);
        }
    }
    predictions::read(path, items, gold_file)
}

/// The SQL BIRD's scripts take from one value of a prediction file.
fn prediction_of(value: Value) -> String {
    match value {
        Value::String(s) => match s.matches(SEPARATOR).count() {
            1 => s
                .split_once(SEPARATOR)
                .map_or(s.clone(), |(sql, _)| sql.to_owned()),
            _ => python_strip(&s).to_owned(),
        },
        _ => " ".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mini_dev_items_and_baseline_predictions() {
        let dir = tempfile::tempdir().unwrap();
        let gold = dir.path().join("mini_dev.json");
        std::fs::write(
            &gold,
            r#"[{"question_id": 7, "db_id": "a", "question": "How many?", "evidence": "count",
                 "SQL": "SELECT count(*) FROM t", "difficulty": "simple"},
                {"question_id": 7, "db_id": "b", "question": "Names?", "evidence": "",
                 "SQL": "SELECT name\nFROM t", "difficulty": "challenging"}]"#,
        )
        .unwrap();
        let items = read_gold(&gold).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].gold, "SELECT count(*) FROM t");
        assert_eq!(items[0].evidence.as_deref(), Some("count"));
        assert_eq!(items[1].category.as_deref(), Some("challenging"));
        assert!(items[1].source.ends_with("mini_dev.json#1"));

        let p = dir.path().join("predict.json");
        std::fs::write(
            &p,
            "{\"1\": \"```sql\\nSELECT name FROM t\\n```\\t----- bird -----\\tb\",\n \
             \"0\": \"SELECT count(*)\\nFROM t\\t----- bird -----\\ta\"}",
        )
        .unwrap();
        assert_eq!(
            read_predictions(&p, 2, &gold).unwrap(),
            ["SELECT count(*)\nFROM t", "```sql\nSELECT name FROM t\n```"]
        );
        // No separator, or two: the whole value stripped; not a string: a space.
        std::fs::write(&p, "{\"0\": \"  SELECT 1\\n\", \"1\": null}").unwrap();
        assert_eq!(read_predictions(&p, 2, &gold).unwrap(), ["SELECT 1", " "]);
        std::fs::write(&p, "{\"0\": \"x\", \"two\": \"y\"}").unwrap();
        let e = read_predictions(&p, 2, &gold).unwrap_err().to_string();
        assert!(e.contains("key \"two\""), "{e}");
        std::fs::write(&p, "{\"0\": \"x\"}").unwrap();
        let e = read_predictions(&p, 2, &gold).unwrap_err().to_string();
        assert!(e.contains("no prediction for item 1"), "{e}");
    }

    #[test]
    fn gold_errors_name_the_item() {
        let dir = tempfile::tempdir().unwrap();
        let gold = dir.path().join("g.json");
        std::fs::write(
            &gold,
            r#"[{"db_id": "a", "SQL": "SELECT 1"}, {"db_id": "a"}]"#,
        )
        .unwrap();
        let e = read_gold(&gold).unwrap_err().to_string();
        assert!(e.contains("g.json: item 1: no `SQL`"), "{e}");
    }
}
