//! Backends run one query on one database, under limits, and return a result table or a typed
//! error. They know nothing about gold or predictions; metrics decide what a result means.

pub mod postgres;
pub mod sqlite;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::denotation::ResultTable;
use crate::manifest::{BackendKind, Manifest};

/// The backend a manifest asks for.
pub fn from_manifest(manifest: &Manifest) -> Result<Box<dyn Backend>, String> {
    Ok(match manifest.backend {
        BackendKind::Sqlite => Box::new(sqlite::Sqlite),
        BackendKind::Postgres => {
            let connection = manifest
                .connection
                .as_deref()
                .ok_or("backend = \"postgres\" without a connection string")?;
            Box::new(postgres::Postgres::new(connection)?)
        }
    })
}

/// One database a query can run on: a file for SQLite, a database name for PostgreSQL.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Database {
    pub path: PathBuf,
}

impl Database {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Database { path: path.into() }
    }

    /// A short name for messages: the file name.
    pub fn label(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Bounds on one query. Predictions are untrusted: every query has all three.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    pub timeout: Duration,
    /// More rows than this is an error ([`ExecError::TooManyRows`]); the query stops there.
    pub max_rows: usize,
    /// Approximate bytes the result may take in memory.
    pub max_bytes: usize,
}

impl Limits {
    /// [`ExecError::TooLarge`] once a result's running size in bytes passes `max_bytes`.
    pub fn check_bytes(&self, bytes: usize) -> Result<(), ExecError> {
        if bytes > self.max_bytes {
            return Err(ExecError::TooLarge {
                limit: self.max_bytes,
            });
        }
        Ok(())
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            max_rows: 1_000_000,
            max_bytes: 256 << 20,
        }
    }
}

/// Why a query produced no result table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum ExecError {
    /// The database engine rejected or failed the query (its own message).
    #[error("{0}")]
    Sql(String),
    /// The query ran past its time limit and was interrupted.
    #[error("timed out after {ms} ms (interrupted)")]
    Timeout { ms: u64 },
    /// The result had more rows than allowed; the query was stopped there.
    #[error("returned more than {limit} rows")]
    TooManyRows { limit: usize },
    /// The result grew past the memory bound; the query was stopped there.
    #[error("result larger than {limit} bytes")]
    TooLarge { limit: usize },
    /// The database could not be opened.
    #[error("cannot open database {path}: {message}")]
    Open { path: String, message: String },
}

impl ExecError {
    /// A short, stable code for reports.
    pub fn code(&self) -> &'static str {
        match self {
            ExecError::Sql(_) => "sql_error",
            ExecError::Timeout { .. } => "timeout",
            ExecError::TooManyRows { .. } | ExecError::TooLarge { .. } => "resource_limit",
            ExecError::Open { .. } => "open_error",
        }
    }
}

/// The one thing a backend does.
pub trait Backend: Send + Sync + fmt::Debug {
    /// A name for reports ("sqlite").
    fn name(&self) -> &'static str;

    /// Runs `sql` on `db` under `limits`. The database must never change, whatever `sql` says.
    fn execute(&self, db: &Database, sql: &str, limits: &Limits) -> Result<ResultTable, ExecError>;

    /// A fingerprint of the database's content, for the on-disk result cache.
    fn content_hash(&self, db: &Database) -> std::io::Result<String> {
        let bytes = std::fs::read(&db.path)?;
        Ok(blake3::hash(&bytes).to_hex().to_string())
    }
}
