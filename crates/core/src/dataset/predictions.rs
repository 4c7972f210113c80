//! Prediction files, aligned with the gold:
//!
//! * one prediction per line ([`read_lines`]): each line is trimmed with Python's `str.strip()`
//!   and cut at its first tab (some submissions write `SQL<TAB>db_id`). An empty line or
//!   garbage is still a prediction: it is judged, and fails with its reason. Unlike the
//!   reference reader, a blank line does not start a new interaction;
//! * keyed by the item's 0-based index ([`read_keyed`]): JSON lines (`.jsonl`) or a JSON array
//!   (`.json`) of objects with `index` and the prediction in `prediction`, `sql`, `query` or
//!   `text`; or a JSON object (`.json`) whose keys are the indexes and whose values are the
//!   predictions, as BIRD's baselines write them (`{"0": "SELECT …", …}`). Every format reads
//!   these ([`keyed_entries`]); the classical format places them by its items' indexes.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::Value;

use super::{read_text, DatasetError};
use sqlsuite_reference::python::python_strip;

/// The fields a keyed prediction's text may be in, in the order they are looked for.
const PREDICTION_FIELDS: [&str; 4] = ["prediction", "sql", "query", "text"];

/// Reads the predictions of `items` items: keyed ([`read_keyed`]) for a `.json` or `.jsonl`
/// file, else one per line ([`read_lines`]). `gold_file` is named in errors.
pub fn read(path: &Path, items: usize, gold_file: &Path) -> Result<Vec<String>, DatasetError> {
    if is_json(path) || is_jsonl(path) {
        read_keyed(path, items, gold_file)
    } else {
        read_lines(path)
    }
}

/// Reads predictions keyed by the item's 0-based index (see the module documentation); every
/// item must have one, and no index two.
pub fn read_keyed(
    path: &Path,
    items: usize,
    gold_file: &Path,
) -> Result<Vec<String>, DatasetError> {
    align(path, keyed_entries(path)?, items, gold_file)
}

/// The keyed predictions of a `.json` or `.jsonl` file (see the module documentation), in the
/// file's order, not yet placed.
pub(crate) fn keyed_entries(path: &Path) -> Result<Vec<Keyed>, DatasetError> {
    let text = read_text(path)?;
    let object = match is_jsonl(path) {
        true => None,
        false => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Some(map),
            _ => None,
        },
    };
    match object {
        Some(map) => keyed_object(path, map, |value| match value {
            Value::String(prediction) => Ok(prediction),
            other => Err(format!("the prediction must be a string: {other}")),
        }),
        None => keyed_objects(path, &text),
    }
}

/// Keyed predictions in the items' order: every item must have one, and no index two.
pub(crate) fn align(
    path: &Path,
    keyed: Vec<Keyed>,
    items: usize,
    gold_file: &Path,
) -> Result<Vec<String>, DatasetError> {
    let mut by_index: BTreeMap<usize, String> = BTreeMap::new();
    for (index, prediction, error) in keyed {
        if index >= items {
            return Err(error(format!(
                "index {index} is past the gold's {items} items ({})",
                gold_file.display()
            )));
        }
        if by_index.insert(index, prediction).is_some() {
            return Err(error(format!("index {index} appears twice")));
        }
    }
    (0..items)
        .map(|i| {
            by_index.remove(&i).ok_or_else(|| DatasetError::File {
                path: path.to_path_buf(),
                message: format!(
                    "no prediction for item {i} of gold file {}",
                    gold_file.display()
                ),
            })
        })
        .collect()
}

/// A keyed prediction: its index, its text, and how to make an error about it.
pub(crate) type Keyed = (usize, String, Box<dyn Fn(String) -> DatasetError>);

/// `{"0": "SELECT …", …}`: each key an index, each value a prediction as `prediction` makes it
/// (or why it cannot).
pub(crate) fn keyed_object(
    path: &Path,
    map: serde_json::Map<String, Value>,
    prediction: impl Fn(Value) -> Result<String, String>,
) -> Result<Vec<Keyed>, DatasetError> {
    map.into_iter()
        .map(|(key, value)| {
            let file = path.to_path_buf();
            let what = key.clone();
            let error: Box<dyn Fn(String) -> DatasetError> =
                Box::new(move |message| DatasetError::File {
                    path: file.clone(),
                    message: format!("key {what:?}: {message}"),
                });
            let Ok(index) = key.parse::<usize>() else {
                return Err(error("a key must be an item's 0-based index".into()));
            };
            match prediction(value) {
                Ok(prediction) => Ok((index, prediction, error)),
                Err(why) => Err(error(why)),
            }
        })
        .collect()
}

/// JSON lines or a JSON array of `{"index": …, "prediction": …}` objects.
fn keyed_objects(path: &Path, text: &str) -> Result<Vec<Keyed>, DatasetError> {
    json_objects(path, text)?
        .into_iter()
        .enumerate()
        .map(|(k, (_, line, v))| {
            let file = path.to_path_buf();
            // A JSON array has no line per object: its errors name the object.
            let error: Box<dyn Fn(String) -> DatasetError> = Box::new(move |message| match line {
                0 => DatasetError::File {
                    path: file.clone(),
                    message: format!("object {k}: {message}"),
                },
                line => DatasetError::Line {
                    path: file.clone(),
                    line,
                    message,
                },
            });
            let Some(index) = v.get("index").and_then(Value::as_u64) else {
                return Err(error("no `index` (the item's 0-based position)".into()));
            };
            let Some(Value::String(prediction)) = PREDICTION_FIELDS.iter().find_map(|f| v.get(*f))
            else {
                return Err(error("no `prediction` text".into()));
            };
            Ok((index as usize, prediction.clone(), error))
        })
        .collect()
}

/// The objects of a JSON array or JSON-lines file, each with where it is (`file#index` or
/// `file:line`) and its line (for errors).
pub(crate) fn json_objects(
    path: &Path,
    text: &str,
) -> Result<Vec<(String, usize, Value)>, DatasetError> {
    let line_error = |line: usize, message: String| DatasetError::Line {
        path: path.to_path_buf(),
        line,
        message,
    };
    if text.trim_start().starts_with('[') {
        let values: Vec<Value> =
            serde_json::from_str(text).map_err(|e| line_error(e.line(), e.to_string()))?;
        return Ok(values
            .into_iter()
            .enumerate()
            .map(|(i, v)| (format!("{}#{i}", path.display()), 0, v))
            .collect());
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| line_error(n + 1, e.to_string()))?;
        out.push((format!("{}:{}", path.display(), n + 1), n + 1, v));
    }
    Ok(out)
}

/// Reads one prediction per line, a line at a time: the file is never held whole beside its
/// predictions (a 600 MB file of hostile predictions took twice its size to read).
pub fn read_lines(path: &Path) -> Result<Vec<String>, DatasetError> {
    let io = |error| DatasetError::Io {
        path: path.to_path_buf(),
        error,
    };
    let mut reader = BufReader::new(File::open(path).map_err(io)?);
    let mut predictions = Vec::new();
    let mut line = Vec::new();
    let mut ended_with_newline = false;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(io)? == 0 {
            break;
        }
        ended_with_newline = line.last() == Some(&b'\n');
        if ended_with_newline {
            line.pop();
        }
        let text = std::str::from_utf8(&line).map_err(|_| DatasetError::Line {
            path: path.to_path_buf(),
            line: predictions.len() + 1,
            message: "invalid UTF-8".into(),
        })?;
        predictions.push(prediction_of_line(text));
    }
    // As `text.strip_suffix('\n').split('\n')`: a file of one newline holds no prediction, and
    // only a final line without its newline is a line of its own.
    if predictions.len() == 1 && ended_with_newline && predictions[0].is_empty() && is_blank(path)?
    {
        predictions.clear();
    }
    Ok(predictions)
}

/// Whether the file is exactly one newline.
fn is_blank(path: &Path) -> Result<bool, DatasetError> {
    let len = std::fs::metadata(path)
        .map_err(|error| DatasetError::Io {
            path: path.to_path_buf(),
            error,
        })?
        .len();
    Ok(len == 1)
}

/// The prediction a line stands for.
pub(crate) fn prediction_of_line(line: &str) -> String {
    let line = python_strip(line);
    line.split('\t').next().unwrap_or_default().to_owned()
}

/// A JSON-lines file, by its extension (`.jsonl`, any case).
pub(crate) fn is_jsonl(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
}

/// A JSON file, by its extension (`.json`, any case).
pub(crate) fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_predictions_even_when_empty() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.txt");
        std::fs::write(&p, "select 1\n\nSELECT a\tdb_x\r\nNO PREDICTION\n").unwrap();
        assert_eq!(
            read_lines(&p).unwrap(),
            vec!["select 1", "", "SELECT a", "NO PREDICTION"]
        );
        std::fs::write(&p, "x\ny").unwrap();
        assert_eq!(read_lines(&p).unwrap(), vec!["x", "y"]);
    }

    #[test]
    fn invalid_utf8_is_an_error_with_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.txt");
        std::fs::write(&p, b"ok\nbad \xff\n").unwrap();
        let e = read_lines(&p).unwrap_err().to_string();
        assert!(e.contains("p.txt:2: invalid UTF-8"), "{e}");
    }
}
