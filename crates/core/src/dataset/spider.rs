//! Spider's gold formats: `SQL<TAB>db_id` per line (the official `dev_gold.sql`), or the
//! `dev.json` / `train_spider.json` list of objects with `query`, `db_id` and `question`.
//!
//! Lines are trimmed with Python's `str.strip()` and split at tabs, as the reference evaluator
//! reads them. Blank lines separate interactions in the reference's format; a single-turn file
//! has none, and here they are skipped.

use std::path::Path;

use serde::Deserialize;

use super::{predictions, read_text, DatasetError, FormatEntry, Inputs, Item, Turn};
use sqlsuite_reference::python::python_strip;

/// Reads a Spider gold file (`.json` by extension, otherwise `SQL<TAB>db_id` lines).
/// `format = "spider"` in the registry: gold lines or `dev.json`; predictions one per line, or
/// keyed by index in a `.json` / `.jsonl` file ([`predictions::read`]).
pub const ENTRY: FormatEntry = FormatEntry {
    name: "spider",
    table_columns: false,
    default_metric: "exec",
    read_gold: |inputs: &Inputs| read_gold(&inputs.gold),
    read_predictions: |p, inputs, items| predictions::read(&p.file, items.len(), &inputs.gold),
    unit: super::lines,
};

/// Reads the gold file into items; errors name the file and line.
pub fn read_gold(path: &Path) -> Result<Vec<Item>, DatasetError> {
    let text = read_text(path)?;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        read_json(path, &text)
    } else {
        read_tsv(path, &text)
    }
}

/// One gold line, `SQL<TAB>db_id` (already stripped), as an item at `index` and turn `turn`.
pub(crate) fn gold_line(
    path: &Path,
    line_no: usize,
    line: &str,
    index: usize,
    turn: Option<Turn>,
) -> Result<Item, DatasetError> {
    let fields: Vec<&str> = line.split('\t').collect();
    let [sql, db_id] = fields[..] else {
        return Err(DatasetError::Line {
            path: path.to_path_buf(),
            line: line_no,
            message: format!(
                "expected `SQL<TAB>db_id`, found {} tab-separated field(s)",
                fields.len()
            ),
        });
    };
    Ok(Item {
        turn,
        ..Item::new(index, db_id, sql, format!("{}:{line_no}", path.display()))
    })
}

/// A gold file must hold at least one item.
pub(crate) fn non_empty(path: &Path, items: Vec<Item>) -> Result<Vec<Item>, DatasetError> {
    if items.is_empty() {
        return Err(DatasetError::File {
            path: path.to_path_buf(),
            message: "no gold items".into(),
        });
    }
    Ok(items)
}

fn read_tsv(path: &Path, text: &str) -> Result<Vec<Item>, DatasetError> {
    let mut items = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = python_strip(line);
        if !line.is_empty() {
            items.push(gold_line(path, n + 1, line, items.len(), None)?);
        }
    }
    non_empty(path, items)
}

#[derive(Deserialize)]
struct JsonItem {
    query: String,
    db_id: String,
    #[serde(default)]
    question: Option<String>,
}

fn read_json(path: &Path, text: &str) -> Result<Vec<Item>, DatasetError> {
    let raw: Vec<JsonItem> = serde_json::from_str(text).map_err(|e| DatasetError::Line {
        path: path.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    })?;
    Ok(raw
        .into_iter()
        .enumerate()
        .map(|(index, j)| Item {
            question: j.question,
            ..Item::new(
                index,
                j.db_id,
                python_strip(&j.query),
                format!("{}#{index}", path.display()),
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_lines_are_stripped_and_split() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("gold.sql");
        std::fs::write(&p, "SELECT 1\tdb_a\r\n\n  SELECT 2 \tdb_b\n").unwrap();
        let items = read_gold(&p).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].gold, "SELECT 2 ");
        assert_eq!(items[1].db_id, "db_b");
        assert_eq!(items[1].index, 1);
        assert!(items[1].source.ends_with(":3"));
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("gold.sql");
        std::fs::write(&p, "SELECT 1\tdb\nSELECT 2\n").unwrap();
        let e = read_gold(&p).unwrap_err().to_string();
        assert!(e.contains("gold.sql:2:"), "{e}");
        assert!(e.contains("1 tab-separated field"), "{e}");
    }

    #[test]
    fn json_items() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("dev.json");
        std::fs::write(
            &p,
            r#"[{"db_id": "x", "query": "SELECT 1 ", "question": "q?"}]"#,
        )
        .unwrap();
        let items = read_gold(&p).unwrap();
        assert_eq!(items[0].gold, "SELECT 1");
        assert_eq!(items[0].question.as_deref(), Some("q?"));
        std::fs::write(&p, "[{\"db_id\": 3}]").unwrap();
        assert!(read_gold(&p)
            .unwrap_err()
            .to_string()
            .contains("dev.json:1:"));
    }
}
