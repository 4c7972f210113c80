#![deny(missing_docs)]
//! sqlsuite's test-suite distiller (`sqlsuite distill`; Zhong, Yu and Klein, EMNLP 2020;
//! `spec/test_suite.md`): for each gold, `neighbors` are near-miss queries; `random_db` draws
//! small random databases for a schema within the constraints `induce` finds (`constraints`,
//! `schema`), with `witness` rows that satisfy a gold's conjunction and its near misses;
//! `distill` keeps, greedily, the databases that tell some gold from a neighbor no kept
//! database tells apart yet; `coverage` says how well each gold is covered. A manifest whose
//! `[databases]` pattern globs the written suite then evaluates with test-suite accuracy (the
//! exec metric requires a match on every database).
//!
//! The public surface is what the command line and the project's tests call: read a
//! manifest's schemas ([`schema_inputs`]), distil them ([`distill_all`]), report the coverage
//! ([`Report`]).

mod affix_atoms;
mod atoms;
mod canvas;
mod constraints;
mod coverage;
mod distill;
mod factor_or;
mod induce;
mod inputs;
mod neighbors;
mod probes;
mod profile;
mod random_db;
mod schema;
mod text_shape;
mod witness;
mod witness_refs;

pub use coverage::{GoldReport, Report, SchemaReport, Totals};
pub use distill::{
    distill_all, DistillOptions, GoldInput, GoldOutcome, NeighborOutcome, ProbeOutcome,
    SchemaInput, SchemaOutcome, DEFAULT_MAX_STEPS,
};
pub use inputs::schema_inputs;
pub use profile::Profile;

use std::path::{Path, PathBuf};

/// Errors distilling a suite.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    // `error`, not `source`: the message says it already, a chain would say it twice.
    /// A file or directory could not be read or written.
    #[error("cannot access {}: {error}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The schema cannot be read or used.
    #[error("schema {db_id}: {message}")]
    Schema {
        /// The schema.
        db_id: String,
        /// What is wrong.
        message: String,
    },
    /// A database (the original, a suite's) cannot be read or written.
    #[error("database {}: {message}", path.display())]
    Database {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        message: String,
    },
    /// A constraints file is wrong.
    #[error("constraints file {}: {message}", path.display())]
    Constraints {
        /// The file.
        path: PathBuf,
        /// What is wrong, located where the parser can.
        message: String,
    },
    /// A random database could not be generated.
    #[error("generating a database for {db_id}: {message}")]
    Generate {
        /// The schema.
        db_id: String,
        /// What SQLite said.
        message: String,
    },
    #[error(transparent)]
    /// A gold or schema file could not be read.
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
