//! Prediction files: one predicted query per line, aligned with the gold.
//!
//! Each line is trimmed with Python's `str.strip()` and cut at its first tab (some submissions
//! write `SQL<TAB>db_id`). An empty line or garbage is still a prediction: it is judged, and fails
//! with its reason. Unlike the reference reader, a blank line does not start a new interaction.

use std::path::Path;

use super::{read_text, DatasetError};
use crate::python::python_strip;

/// Reads one prediction per line.
pub fn read_lines(path: &Path) -> Result<Vec<String>, DatasetError> {
    let text = read_text(path)?;
    let body = text.strip_suffix('\n').unwrap_or(&text);
    if body.is_empty() {
        return Ok(Vec::new());
    }
    Ok(body.split('\n').map(prediction_of_line).collect())
}

/// The prediction a line stands for.
pub fn prediction_of_line(line: &str) -> String {
    let line = python_strip(line);
    line.split('\t').next().unwrap_or_default().to_owned()
}

/// A JSON-lines file, by its extension (`.jsonl`, any case): the keyed prediction files.
pub fn is_jsonl(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
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
