//! Interaction files (SParC, CoSQL): the Spider line formats, with a blank line between
//! interactions. Every turn is an item; its [`Turn`] says which interaction and which turn.
//!
//! The reference reads both files into interactions and zips them, silently dropping turns and
//! interactions one side lacks. Here the prediction file must have the gold's shape exactly —
//! the same number of interactions, each with the same number of turns — or it is an error that
//! names the first place they part.

use std::path::Path;

use super::spider::{gold_line, non_empty};
use super::{read_text, DatasetError, FormatEntry, Inputs, Item, Turn};
use crate::dataset::predictions::prediction_of_line;
use sqlsuite_reference::python::python_strip;

/// Splits text into interactions: runs of non-blank lines, with their 1-based line numbers.
fn groups(text: &str) -> Vec<Vec<(usize, &str)>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if python_strip(line).is_empty() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push((n + 1, line));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Reads a gold interaction file (`SQL<TAB>db_id` lines, blank lines between interactions).
/// `format = "interactions"` in the registry (SParC, CoSQL).
pub const ENTRY: FormatEntry = FormatEntry {
    name: "interactions",
    table_columns: false,
    default_metric: "exec",
    read_gold: |inputs: &Inputs| read_gold(&inputs.gold),
    read_predictions: |p, _, items| read_predictions(&p.file, items),
    unit: super::lines,
};

/// Reads the gold file into items; errors name the file and line.
pub fn read_gold(path: &Path) -> Result<Vec<Item>, DatasetError> {
    let text = read_text(path)?;
    let mut items = Vec::new();
    for (interaction, turns) in groups(&text).into_iter().enumerate() {
        for (turn, (line_no, line)) in turns.into_iter().enumerate() {
            let at = Some(Turn { interaction, turn });
            items.push(gold_line(
                path,
                line_no,
                python_strip(line),
                items.len(),
                at,
            )?);
        }
    }
    non_empty(path, items)
}

/// Reads predictions shaped like the gold's interactions, one per turn.
pub fn read_predictions(path: &Path, gold: &[Item]) -> Result<Vec<String>, DatasetError> {
    let text = read_text(path)?;
    let predicted = groups(&text);
    let mut shape: Vec<usize> = Vec::new();
    for item in gold {
        if let Some(t) = item.turn {
            if t.turn == 0 {
                shape.push(0);
            }
            if let Some(last) = shape.last_mut() {
                *last += 1;
            }
        }
    }
    let mismatch = |message: String| DatasetError::File {
        path: path.to_path_buf(),
        message,
    };
    if predicted.len() != shape.len() {
        return Err(mismatch(format!(
            "{} interactions, but the gold has {}; interactions are separated by blank lines",
            predicted.len(),
            shape.len()
        )));
    }
    let mut out = Vec::with_capacity(gold.len());
    for (k, (turns, &expected)) in predicted.iter().zip(&shape).enumerate() {
        if turns.len() != expected {
            let line = turns.first().map_or(0, |(n, _)| *n);
            return Err(DatasetError::Line {
                path: path.to_path_buf(),
                line,
                message: format!(
                    "interaction {} has {} turns, but the gold's has {expected}",
                    k + 1,
                    turns.len()
                ),
            });
        }
        out.extend(turns.iter().map(|(_, line)| prediction_of_line(line)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_carry_their_interaction() {
        let dir = tempfile::tempdir().unwrap();
        let g = dir.path().join("gold.txt");
        std::fs::write(&g, "A\tdb\nB\tdb\n\nC\tdb2\n").unwrap();
        let items = read_gold(&g).unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!(
            items[1].turn,
            Some(Turn {
                interaction: 0,
                turn: 1
            })
        );
        assert_eq!(
            items[2].turn,
            Some(Turn {
                interaction: 1,
                turn: 0
            })
        );
        assert_eq!(items[2].index, 2);

        let p = dir.path().join("p.txt");
        std::fs::write(&p, "a\nb\t db\n\nc\n\n").unwrap();
        assert_eq!(read_predictions(&p, &items).unwrap(), vec!["a", "b", "c"]);

        std::fs::write(&p, "a\n\nb\n\nc\n").unwrap();
        let e = read_predictions(&p, &items).unwrap_err().to_string();
        assert!(e.contains("3 interactions, but the gold has 2"), "{e}");
        std::fs::write(&p, "a\n\nb\nc\n").unwrap();
        let e = read_predictions(&p, &items).unwrap_err().to_string();
        assert!(
            e.contains("p.txt:1: interaction 1 has 1 turns, but the gold's has 2"),
            "{e}"
        );
    }
}
