//! A manifest's evaluation from Python: the JSON lines of `sqlsuite eval --format jsonl`.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sqlsuite::report::jsonl;
use sqlsuite::Evaluation;

/// Evaluates `manifest` (every prediction set, or those named in `predictions`) and returns the
/// lines `sqlsuite eval --format jsonl` prints: per set, its provenance line, then one line per
/// item and metric. The GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (manifest, predictions = None))]
pub fn evaluate_jsonl(
    py: Python<'_>,
    manifest: PathBuf,
    predictions: Option<Vec<String>>,
) -> PyResult<Vec<String>> {
    py.allow_threads(|| lines(&manifest, predictions.as_deref()))
        .map_err(PyValueError::new_err)
}

fn lines(manifest: &PathBuf, only: Option<&[String]>) -> Result<Vec<String>, String> {
    let eval = Evaluation::open(manifest).map_err(|e| e.to_string())?;
    let names: Vec<&str> = eval
        .dataset
        .predictions
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    if let Some(unknown) = only
        .unwrap_or_default()
        .iter()
        .find(|n| !names.contains(&n.as_str()))
    {
        return Err(format!(
            "{}: no prediction set named {unknown:?} (the sets: {})",
            manifest.display(),
            names.join(", ")
        ));
    }
    let sets: Vec<usize> = (0..names.len())
        .filter(|&s| only.is_none_or(|o| o.iter().any(|n| n == names[s])))
        .collect();
    let run = eval.run(&sets);
    Ok(run
        .sets
        .iter()
        .flat_map(|set| jsonl::lines(&run, set))
        .collect())
}
