//! Distilled test suites (Zhong, Yu and Klein, EMNLP 2020; `spec/test_suite.md`): for each
//! gold, [`neighbors`] are near-miss queries; [`random_db`] draws small random databases for a
//! schema; [`distill`] keeps, greedily, the databases that tell some gold from a neighbor no
//! kept database tells apart yet; [`report`] says how well each gold is covered. A manifest
//! whose `[databases]` pattern globs the written suite then evaluates with test-suite accuracy
//! (the exec metric requires a match on every database).

mod atoms;
mod canvas;
pub(crate) mod constraints;
pub mod distill;
mod factor_or;
pub(crate) mod induce;
pub mod inputs;
pub(crate) mod neighbors;
pub(crate) mod probes;
pub(crate) mod random_db;
pub mod report;
pub(crate) mod schema;
pub(crate) mod witness;
pub(crate) mod witness_refs;

use std::path::{Path, PathBuf};

/// Errors distilling a suite.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    // `error`, not `source`: the message says it already, a chain would say it twice.
    #[error("cannot access {}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("schema {db_id}: {message}")]
    Schema { db_id: String, message: String },
    #[error("database {}: {message}", path.display())]
    Database { path: PathBuf, message: String },
    #[error("constraints file {}: {message}", path.display())]
    Constraints { path: PathBuf, message: String },
    #[error("generating a database for {db_id}: {message}")]
    Generate { db_id: String, message: String },
    #[error(transparent)]
    Dataset(#[from] sqlsuite::dataset::DatasetError),
}

impl SuiteError {
    /// A SQLite error met generating a database for `db_id`.
    pub(crate) fn generating(db_id: &str) -> impl Fn(rusqlite::Error) -> SuiteError + Copy + '_ {
        move |e| SuiteError::Generate {
            db_id: db_id.to_string(),
            message: e.to_string(),
        }
    }
}

/// Reads a Spider `tables.json` as distillation does (every entry built into a schema to
/// generate databases from) and gives its `db_id`s, sorted; for the reader fuzzing
/// (`tests/fuzz_readers.rs`), which has no other way to the crate's own schema type.
#[doc(hidden)]
pub fn check_tables_json(path: &Path) -> Result<Vec<String>, SuiteError> {
    let mut ids: Vec<String> = schema::read_tables_json(path)?.into_keys().collect();
    ids.sort_unstable();
    Ok(ids)
}
