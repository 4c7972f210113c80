//! sqlsuite's reference wing: byte-exact reproductions of other evaluators' behaviour, quirks
//! included, so that sqlsuite's verdicts agree with theirs item for item; and Python's string and
//! number semantics, which those evaluators (all written in Python) inherit.
//!
//! A leaf: it depends on no other sqlsuite crate. The `sqlsuite` core reaches it through its
//! metrics (each metric builds on its reference), its dataset readers and result denotations
//! (which need [`python`]'s semantics) and the reader of Spider's [`tables`] file.
//!
//! * [`bird`]: BIRD's evaluation scripts: the one statement Python's `sqlite3` runs, Soft-F1,
//!   R-VES's rewards.
//! * [`spider_sql`]: the official Spider evaluator's SQL parser, hardness and component
//!   comparison (exact set match).
//! * [`spider_text`]: the Spider test-suite evaluator's query-text preprocessing before
//!   execution; [`sqlparse`]: the parts of `sqlparse` it relies on and the functions it defines
//!   in terms of them (`DISTINCT` removal, the `--plug_value` value extraction steps).
//! * [`plug_value`]: the candidates of the Spider evaluator's `--plug_value` mode.
//! * [`defog`]: Defog SQL-Eval's gold expansion and result comparison (the reference of the
//!   `sqleval` format and metric).
//! * `pcm` (cargo feature `pcm`): SEDE's Partial Component Match over sqlparser's MsSql dialect.
//! * [`sacrebleu`]: sacreBLEU's BLEU (13a tokenizer, smoothing) for SQL-to-text.
//! * [`tables`]: Spider's `tables.json`, the schema file these evaluators read.
//! * [`python`]: Python's `str.strip()`, `repr(float)` and `repr(bytes)`.

#![deny(missing_docs)]

pub mod bird;
pub mod defog;
#[cfg(feature = "pcm")]
pub mod pcm;
pub mod plug_value;
mod py_regex;
pub mod python;
pub mod sacrebleu;
pub mod spider_sql;
pub mod spider_text;
pub mod sqlparse;
pub mod tables;

use std::path::{Path, PathBuf};

/// Errors reading a file the reference evaluators read; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read.
    // `error`, not `source`: the message says it already, a chain would say it twice.
    #[error("cannot read {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The file is not valid UTF-8 from this line on.
    #[error("{}:{line}: invalid UTF-8", path.display())]
    Utf8 {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the first invalid byte.
        line: usize,
    },
    /// The file's content is not what the reader expects.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line and column where the parser gives them.
        message: String,
    },
}

/// A file's text; errors name the file, and the line where it stops being UTF-8.
fn read_text(path: &Path) -> Result<String, ReadError> {
    let bytes = std::fs::read(path).map_err(|error| ReadError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        ReadError::Utf8 {
            path: path.to_path_buf(),
            line: valid.iter().filter(|&&b| b == b'\n').count() + 1,
        }
    })
}
