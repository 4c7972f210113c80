//! Prediction files: one predicted query per line, aligned with the gold.
//!
//! Each line is trimmed with Python's `str.strip()` and cut at its first tab (some submissions
//! write `SQL<TAB>db_id`). An empty line or garbage is still a prediction: it is judged, and fails
//! with its reason. Unlike the reference reader, a blank line does not start a new interaction.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use super::DatasetError;
use sqlsuite_reference::python::python_strip;

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

/// A JSON-lines file, by its extension (`.jsonl`, any case): the keyed prediction files.
pub(crate) fn is_jsonl(path: &Path) -> bool {
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
