//! Defog SQL-Eval files: the questions table and prediction files.
//!
//! A table file is CSV (RFC 4180 quoting, as pandas writes it) or, with the `.tsv` extension,
//! tab-separated with backslash escapes (`\\`, `\t`, `\n`, `\r`) and no quoting. Columns are read
//! by name, so their order does not matter (the shipped PostgreSQL and SQLite question files
//! differ in it).
//!
//! Questions: `question`, the gold column (`query` unless the manifest names another),
//! `db_name`, and optionally `query_category`; other columns (`instructions`, `db_type`, …) are
//! ignored. Predictions, aligned with the questions:
//! * `.csv` / `.tsv`: the column the manifest names, else `generated_query` (SQL-Eval's output
//!   column);
//! * `.jsonl`: one object per line with that field; `.json`: a JSON array of such objects, or
//!   one object whose keys are the questions' 0-based indexes and whose values are the queries
//!   (`{"0": "SELECT …"}`, as BIRD's baselines write them);
//! * anything else: one query per line.
//!
//! In table and JSON files a row may carry an `index` (the question's 0-based row); then
//! rows are placed by it and may come in any order, else they are aligned by position.

use std::collections::HashMap;
use std::path::Path;

use super::{predictions, read_text, DatasetError, FormatEntry, Inputs, Item};

/// The prediction column SQL-Eval's runners write.
pub(crate) const DEFAULT_PREDICTION_COLUMN: &str = "generated_query";

/// A table file's header and rows, each row with the line it starts on (1-based).
#[derive(Debug, Clone, PartialEq)]
pub struct Records {
    /// The column names.
    pub header: Vec<String>,
    /// Each record with the 1-based line it starts on.
    pub rows: Vec<(usize, Vec<String>)>,
}

impl Records {
    /// The position of column `name`, or an error listing the columns there are.
    pub fn column(&self, path: &Path, name: &str) -> Result<usize, DatasetError> {
        self.header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| DatasetError::File {
                path: path.to_path_buf(),
                message: format!("no column {name:?} (columns: {})", self.header.join(", ")),
            })
    }
}

/// True if a prediction file is table-shaped (CSV, TSV, JSON lines): one prediction per row.
/// `format = "sqleval"` in the registry: questions and predictions as tables.
pub const ENTRY: FormatEntry = FormatEntry {
    name: "sqleval",
    table_columns: true,
    default_metric: "sqleval",
    read_gold: |inputs: &Inputs| read_gold(&inputs.gold, inputs.gold_column.as_deref()),
    read_predictions: |p, _, items| read_predictions(&p.file, p.column.as_deref(), items.len()),
    unit: |path| if is_table_file(path) { "rows" } else { "lines" },
};

pub(crate) fn is_table_file(path: &Path) -> bool {
    matches!(extension(path).as_str(), "csv" | "tsv" | "jsonl")
}

fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Reads a CSV, or a TSV with backslash escapes (by extension).
pub(crate) fn read_records(path: &Path) -> Result<Records, DatasetError> {
    let text = read_text(path)?;
    if extension(path) == "tsv" {
        return read_tsv(path, &text);
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes());
    let line_of = |e: &csv::Error| e.position().map_or(0, |p| p.line() as usize);
    let header = reader
        .headers()
        .map_err(|e| DatasetError::Line {
            path: path.to_path_buf(),
            line: line_of(&e).max(1),
            message: e.to_string(),
        })?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_owned())
        .collect();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| DatasetError::Line {
            path: path.to_path_buf(),
            line: line_of(&e),
            message: e.to_string(),
        })?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        rows.push((line, record.iter().map(str::to_owned).collect()));
    }
    Ok(Records { header, rows })
}

fn read_tsv(path: &Path, text: &str) -> Result<Records, DatasetError> {
    let mut lines = text.lines().enumerate();
    let header: Vec<String> = match lines.next() {
        Some((_, h)) => h.split('\t').map(unescape).collect(),
        None => {
            return Err(DatasetError::File {
                path: path.to_path_buf(),
                message: "empty file: no header".into(),
            })
        }
    };
    let mut rows = Vec::new();
    for (n, line) in lines {
        if line.is_empty() {
            continue;
        }
        let fields: Vec<String> = line.split('\t').map(unescape).collect();
        if fields.len() != header.len() {
            return Err(DatasetError::Line {
                path: path.to_path_buf(),
                line: n + 1,
                message: format!("{} fields, the header has {}", fields.len(), header.len()),
            });
        }
        rows.push((n + 1, fields));
    }
    Ok(Records { header, rows })
}

/// Undoes the TSV escapes `\\`, `\t`, `\n`, `\r` (any other backslash stays as it is).
pub fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Reads the questions table; `gold_column` defaults to `query`.
pub fn read_gold(path: &Path, gold_column: Option<&str>) -> Result<Vec<Item>, DatasetError> {
    let records = read_records(path)?;
    let question = records.column(path, "question")?;
    let gold = records.column(path, gold_column.unwrap_or("query"))?;
    let db = records.column(path, "db_name")?;
    let category = records.header.iter().position(|h| h == "query_category");
    let file = path.display().to_string();
    records
        .rows
        .iter()
        .enumerate()
        .map(|(index, (line, row))| {
            let db_id = row[db].trim().to_owned();
            if db_id.is_empty() {
                return Err(DatasetError::Line {
                    path: path.to_path_buf(),
                    line: *line,
                    message: "empty db_name".into(),
                });
            }
            Ok(Item {
                question: Some(row[question].clone()),
                category: category.map(|c| row[c].clone()),
                ..Item::new(index, db_id, row[gold].clone(), format!("{file}:{line}"))
            })
        })
        .collect()
}

/// Reads a prediction file for `n_items` questions (see the module docs for the shapes).
pub fn read_predictions(
    path: &Path,
    column: Option<&str>,
    n_items: usize,
) -> Result<Vec<String>, DatasetError> {
    let ext = extension(path);
    let column = column.unwrap_or(DEFAULT_PREDICTION_COLUMN);
    let keyed: Vec<(usize, Option<usize>, String)> = match ext.as_str() {
        "csv" | "tsv" => {
            let records = read_records(path)?;
            let query = records.column(path, column)?;
            let key = records.header.iter().position(|h| h == "index");
            records
                .rows
                .iter()
                .map(|(line, row)| {
                    let index = match key {
                        Some(k) => Some(parse_index(path, *line, row[k].trim())?),
                        None => None,
                    };
                    Ok((*line, index, row[query].clone()))
                })
                .collect::<Result<_, DatasetError>>()?
        }
        "jsonl" => read_json_lines(path, column)?,
        "json" => read_json(path, column)?,
        _ => return predictions::read_lines(path),
    };
    place(path, keyed, n_items)
}

fn parse_index(path: &Path, line: usize, text: &str) -> Result<usize, DatasetError> {
    text.parse().map_err(|_| DatasetError::Line {
        path: path.to_path_buf(),
        line,
        message: format!("index {text:?} is not a non-negative integer"),
    })
}

/// A `.json` prediction file: an object keyed by index, else a JSON array read as JSON lines are
/// (its rows then have no line: errors name the file).
fn read_json(
    path: &Path,
    column: &str,
) -> Result<Vec<(usize, Option<usize>, String)>, DatasetError> {
    let text = read_text(path)?;
    if let Ok(serde_json::Value::Object(_)) = serde_json::from_str(&text) {
        return Ok(predictions::keyed_entries(path)?
            .into_iter()
            .map(|(index, query, _)| (0, Some(index), query))
            .collect());
    }
    let values: Vec<serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| DatasetError::Line {
            path: path.to_path_buf(),
            line: e.line(),
            message: format!("not a JSON array or object keyed by index: {e}"),
        })?;
    values
        .into_iter()
        .enumerate()
        .map(|(k, value)| {
            let at = |message: String| DatasetError::File {
                path: path.to_path_buf(),
                message: format!("object {k}: {message}"),
            };
            let (index, query) = row_of(&value, column, at)?;
            Ok((0, index, query))
        })
        .collect()
}

fn read_json_lines(
    path: &Path,
    column: &str,
) -> Result<Vec<(usize, Option<usize>, String)>, DatasetError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |message: String| DatasetError::Line {
            path: path.to_path_buf(),
            line: n + 1,
            message,
        };
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| at(format!("invalid JSON: {e}")))?;
        let (index, query) = row_of(&value, column, at)?;
        out.push((n + 1, index, query));
    }
    Ok(out)
}

/// One prediction object's `index` (if it has one) and query (the field `column`; `null` is
/// an empty prediction); `at` makes an error about it.
fn row_of(
    value: &serde_json::Value,
    column: &str,
    at: impl Fn(String) -> DatasetError,
) -> Result<(Option<usize>, String), DatasetError> {
    let obj = value
        .as_object()
        .ok_or_else(|| at("not a JSON object".into()))?;
    let query = match obj.get(column) {
        Some(serde_json::Value::String(s)) => s.clone(),
        // A model that produced nothing: judged as an empty prediction.
        Some(serde_json::Value::Null) => String::new(),
        Some(other) => return Err(at(format!("field {column:?} is not a string: {other}"))),
        None => return Err(at(format!("no field {column:?}"))),
    };
    let index = match obj.get("index") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| at(format!("index {v} is not a non-negative integer")))?,
        ),
    };
    Ok((index, query))
}

/// Puts rows in question order: by their `index` when every row has one, else by position.
fn place(
    path: &Path,
    rows: Vec<(usize, Option<usize>, String)>,
    n_items: usize,
) -> Result<Vec<String>, DatasetError> {
    if rows.iter().all(|(_, i, _)| i.is_none()) {
        return Ok(rows.into_iter().map(|(_, _, q)| q).collect());
    }
    let mut seen: HashMap<usize, usize> = HashMap::new();
    let mut out = vec![None; n_items];
    for (line, index, query) in rows {
        // Rows of a JSON array or keyed object have no line (0): their errors name the file.
        let at = |message: String| match line {
            0 => DatasetError::File {
                path: path.to_path_buf(),
                message,
            },
            line => DatasetError::Line {
                path: path.to_path_buf(),
                line,
                message,
            },
        };
        let index = index.ok_or_else(|| at("no index, but other rows have one".into()))?;
        if let Some(first) = seen.insert(index, line) {
            return Err(at(match first {
                0 => format!("index {index} again"),
                first => format!("index {index} again (first on line {first})"),
            }));
        }
        let slot = out.get_mut(index).ok_or_else(|| {
            at(format!(
                "index {index} is out of range: the gold has {n_items} questions"
            ))
        })?;
        *slot = Some(query);
    }
    let missing: Vec<usize> = (0..n_items).filter(|i| out[*i].is_none()).collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(10).map(ToString::to_string).collect();
        return Err(DatasetError::File {
            path: path.to_path_buf(),
            message: format!(
                "no prediction for {} of {n_items} questions (indices {}{})",
                missing.len(),
                shown.join(", "),
                if missing.len() > 10 { ", …" } else { "" }
            ),
        });
    }
    Ok(out.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn questions_are_read_by_column_name() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "q.csv",
            "db_name,query_category,query,question,instructions\n\
             academic,group_by,\"SELECT {a,b} FROM t;SELECT c FROM t\",\"Which \"\"x\"\"?\nMore\",\n\
             geo,order_by,SELECT 1,Q2,use x\n",
        );
        let items = read_gold(&p, None).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].gold, "SELECT {a,b} FROM t;SELECT c FROM t");
        assert_eq!(items[0].question.as_deref(), Some("Which \"x\"?\nMore"));
        assert_eq!(items[0].category.as_deref(), Some("group_by"));
        assert!(items[0].source.ends_with("q.csv:2"), "{}", items[0].source);
        assert!(items[1].source.ends_with("q.csv:4"), "{}", items[1].source);
        assert_eq!(items[1].db_id, "geo");
        let e = read_gold(&p, Some("gold")).unwrap_err().to_string();
        assert!(e.contains("no column \"gold\""), "{e}");
    }

    #[test]
    fn tsv_fields_are_unescaped() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "pairs.tsv",
            "question\tgold\tdb_name\tcandidate\nq\\tx\tSELECT '\\\\n'\\nFROM t\tacademic\tSELECT 2\n",
        );
        let items = read_gold(&p, Some("gold")).unwrap();
        assert_eq!(items[0].question.as_deref(), Some("q\tx"));
        assert_eq!(items[0].gold, "SELECT '\\n'\nFROM t");
        assert_eq!(
            read_predictions(&p, Some("candidate"), 1).unwrap(),
            vec!["SELECT 2"]
        );
        let bad = write(dir.path(), "bad.tsv", "a\tb\n1\n");
        let e = read_records(&bad).unwrap_err().to_string();
        assert!(e.contains("bad.tsv:2: 1 fields"), "{e}");
    }

    #[test]
    fn predictions_keyed_by_index_in_any_order() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "p.jsonl",
            "{\"index\": 1, \"generated_query\": \"SELECT 1\"}\n{\"index\": 0, \"generated_query\": null}\n",
        );
        assert_eq!(read_predictions(&p, None, 2).unwrap(), vec!["", "SELECT 1"]);
        let e = read_predictions(&p, None, 3).unwrap_err().to_string();
        assert!(
            e.contains("no prediction for 1 of 3 questions (indices 2)"),
            "{e}"
        );
        let dup = write(
            dir.path(),
            "d.csv",
            "index,generated_query\n0,SELECT 1\n0,SELECT 2\n",
        );
        let e = read_predictions(&dup, None, 2).unwrap_err().to_string();
        assert!(
            e.contains("d.csv:3: index 0 again (first on line 2)"),
            "{e}"
        );
        let csv = write(
            dir.path(),
            "o.csv",
            "question,generated_query\nq,\"SELECT a,\nb\"\n",
        );
        assert_eq!(
            read_predictions(&csv, None, 1).unwrap(),
            vec!["SELECT a,\nb"]
        );
        let e = read_predictions(&csv, Some("sql"), 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no column \"sql\" (columns: question, generated_query)"),
            "{e}"
        );
        let lines = write(dir.path(), "p.sql", "SELECT 1\nSELECT 2\n");
        assert_eq!(read_predictions(&lines, None, 2).unwrap().len(), 2);
        // `.json`: an object keyed by index, or an array of rows (with or without `index`).
        let keyed = write(
            dir.path(),
            "k.json",
            r#"{"1": "SELECT 1", "0": "SELECT 0"}"#,
        );
        assert_eq!(
            read_predictions(&keyed, None, 2).unwrap(),
            vec!["SELECT 0", "SELECT 1"]
        );
        let e = read_predictions(&keyed, None, 3).unwrap_err().to_string();
        assert!(e.contains("indices 2"), "{e}");
        let array = write(
            dir.path(),
            "a.json",
            r#"[{"index": 1, "generated_query": "SELECT 1"}, {"index": 0, "generated_query": "SELECT 0"}]"#,
        );
        assert_eq!(
            read_predictions(&array, None, 2).unwrap(),
            vec!["SELECT 0", "SELECT 1"]
        );
        let bad = write(dir.path(), "b.json", r#"[{"index": 0, "sql": "SELECT 0"}]"#);
        let e = read_predictions(&bad, None, 1).unwrap_err().to_string();
        assert!(e.ends_with("object 0: no field \"generated_query\""), "{e}");
    }
}
