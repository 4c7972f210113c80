//! `sqlsuite._sqlsuite`, the compiled half of the Python package `sqlsuite`
//! (`python/sqlsuite/__init__.py` is the other): text-to-SQL evaluation from Python.
//!
//! * [`evaluate::evaluate_jsonl`]: a manifest's evaluation, the lines `sqlsuite eval --format
//!   jsonl` prints (the package parses them into dicts);
//! * [`judge::Judge`]: metrics opened once on databases (a path pattern with `{db_id}`, one
//!   file or a test suite), judging (gold, prediction, db_id) triples one at a time or in batches
//!   that release the GIL and run on sqlsuite's work pool, with the same limits as every
//!   evaluation and gold results reused across calls — a reward function for training loops.
//!
//! Built with maturin (`crates/python/pyproject.toml`); `.ci/python` builds the wheel, installs
//! it into a fresh venv and runs the package's tests.

// pyo3 0.22's `#[pyfunction]` expansion converts a returned `PyResult` into itself, which
// clippy's `useless_conversion` flags at the function's signature.
#![allow(clippy::useless_conversion)]

use pyo3::prelude::*;

mod evaluate;
mod judge;

/// Sets the number of worker threads of sqlsuite's work pool (0: one per core, the default).
/// Only before the pool's first use (the first evaluation or batch); afterwards a different
/// number is a ValueError.
#[pyfunction]
fn set_threads(n: usize) -> PyResult<()> {
    sqlsuite::work_pool::set_threads(n).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// The module Python imports as `sqlsuite._sqlsuite`.
#[pymodule]
fn _sqlsuite(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<judge::Judge>()?;
    m.add_class::<judge::Verdict>()?;
    m.add_function(wrap_pyfunction!(evaluate::evaluate_jsonl, m)?)?;
    m.add_function(wrap_pyfunction!(set_threads, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
