//! Backends run one query on one database, under limits, and return a result table or a typed
//! error. They know nothing about gold or predictions; metrics decide what a result means.
//!
//! A new backend is one module here that defines its [`BackendEntry`] (`pub const ENTRY`: its
//! name and how it reads `[databases]`), and one line in [`crate::registry::BACKENDS`].

#[cfg(feature = "postgres")]
pub mod postgres;
/// PostgreSQL's pinned clock: the server's, read and checked.
#[cfg(feature = "postgres")]
mod postgres_clock;
#[cfg(feature = "postgres")]
pub mod postgres_load;
/// The SQLite backend's bounds on prepare-time work (CTE copies, nesting).
mod prepare_bounds;

mod schema_csv;

pub mod sqlite;
/// SQLite's pinned clock: a VFS answering a fixed moment.
mod sqlite_clock;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::clock::Clock;
use crate::config::{ManifestError, Section};
pub use crate::denotation::{ResultTable, Value};

/// What the composition root ([`crate::registry`]) knows of a backend. Each backend module
/// defines one as `pub const ENTRY`.
#[derive(Clone, Copy)]
pub struct BackendEntry {
    /// The value of `[databases] backend` that selects it.
    pub name: &'static str,
    /// Reads `[databases]` (the `backend` key included): how databases are named, and what to
    /// connect with. Input that is missing (a file, an environment variable) goes to `missing`,
    /// not to the error, so the dataset can be reported unavailable.
    pub configure: fn(&Section<'_>, &mut Vec<ManifestError>) -> Result<Databases, ManifestError>,
    /// The backend for a manifest without `[databases]` (whose metrics run no query), where it
    /// needs no configuration: SQLite's. `None` for a backend that must be told where its
    /// databases are (a server).
    pub unconfigured: Option<fn() -> Box<dyn Backend>>,
}

impl BackendEntry {
    /// Opens the backend on `databases` (`[databases]`, configured by this entry), or
    /// unconfigured for a manifest without that section.
    pub fn open(&self, databases: Option<&Databases>) -> Result<Box<dyn Backend>, String> {
        match (databases, self.unconfigured) {
            (Some(d), _) => d.open(),
            (None, Some(unconfigured)) => Ok(unconfigured()),
            (None, None) => Err(format!("backend {} needs [databases]", self.name)),
        }
    }
}

impl fmt::Debug for BackendEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BackendEntry")
            .field("name", &self.name)
            .finish()
    }
}

/// A configured `[databases]`: how an item's databases are found, and how to open the backend
/// that runs queries on them.
#[derive(Clone)]
pub struct Databases {
    /// The backend's name ([`BackendEntry::name`]).
    pub backend: &'static str,
    /// The pattern, with `{db_id}`, that names an item's databases.
    pub naming: Naming,
    /// For a backend that connects to a server: the connection string.
    pub connection: Option<String>,
    /// Opens the backend (connecting, for a server).
    pub open: fn(&Databases) -> Result<Box<dyn Backend>, String>,
    /// The clock queries read (`[dataset] clock`; a backend's `configure` leaves it
    /// [`Clock::System`], the registry sets the manifest's).
    pub clock: Clock,
}

impl fmt::Debug for Databases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Databases")
            .field("backend", &self.backend)
            .field("naming", &self.naming)
            .field("clock", &self.clock)
            .finish()
    }
}

impl Databases {
    /// The backend, opened.
    pub fn open(&self) -> Result<Box<dyn Backend>, String> {
        (self.open)(self)
    }
}

/// How a backend names databases: a pattern with `{db_id}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Naming {
    /// File paths; glob characters after substitution make a test suite (every matching file
    /// is one database).
    Files(String),
    /// Database names on a server.
    Names(String),
    /// Database names on a server, one per file of a test suite on disk (copied there by the
    /// `postgres` feature's `backend::postgres_load`): `files`, a glob with `{db_id}`, says which databases
    /// make an item's suite and where its exclusions are; `names`, with `{file}` (the file's
    /// stem) and optionally `{db_id}`, names each file's copy on the server.
    Suite {
        /// The suite's files, as [`Naming::Files`] with glob characters.
        files: String,
        /// The server-side name of each file's database.
        names: String,
    },
}

/// One database a query can run on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Database {
    /// A database file (SQLite; a `.sql` script is loaded in memory).
    File(PathBuf),
    /// A database by name, on the server a backend connects to (PostgreSQL).
    Named(String),
}

impl Database {
    /// A database file.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Database::File(path.into())
    }

    /// A short name for messages: the file name, or the database's name.
    pub fn label(&self) -> String {
        match self {
            Database::File(path) => path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            Database::Named(name) => name.clone(),
        }
    }

    /// The file, for a database that is one.
    pub fn as_file(&self) -> Option<&Path> {
        match self {
            Database::File(path) => Some(path),
            Database::Named(_) => None,
        }
    }
}

impl fmt::Display for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Database::File(path) => write!(f, "{}", path.display()),
            Database::Named(name) => f.write_str(name),
        }
    }
}

/// The stack a query runs on, in bytes: SQLite's recursion on untrusted SQL (a JSON path 50,000
/// levels deep, nested subqueries) overflows a thread's usual 2 or 8 MiB, which aborts the
/// process. The work pool's threads reserve it ([`crate::work_pool`]).
pub const QUERY_STACK: usize = 256 << 20;

/// Bounds on one query. Predictions are untrusted: every query has all three.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Wall-clock time the query may run; past it the query is interrupted.
    pub timeout: Duration,
    /// More rows than this is an error ([`QueryError::TooManyRows`]); the query stops there.
    pub max_rows: usize,
    /// Approximate bytes the result may take in memory.
    pub max_bytes: usize,
    /// A deterministic budget, where the backend counts the work a query does (SQLite: virtual
    /// machine steps): a query that takes more fails with [`QueryError::Budget`] (SQLite stops it
    /// at the first check past it; checks come every [`sqlite::STEP_BLOCK`] steps). `None`: only the time limit.
    pub max_steps: Option<u64>,
}

impl Limits {
    /// [`QueryError::TooLarge`] once a result's running size in bytes passes `max_bytes`.
    pub fn check_bytes(&self, bytes: usize) -> Result<(), QueryError> {
        if bytes > self.max_bytes {
            return Err(QueryError::TooLarge {
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
            max_steps: None,
        }
    }
}

/// The query limits every metric that runs queries takes from its table (`timeout_ms`,
/// `max_rows`, `max_steps`): one block, read beside the metric's own options
/// ([`Section::read_with`](crate::config::Section::read_with)): the manifest's side of [`Limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(default)]
pub struct QueryLimits {
    /// Per-query time limit; a prediction that runs longer is incorrect, a gold a gold error.
    pub timeout_ms: u64,
    /// At most this many result rows per query.
    pub max_rows: usize,
    /// A deterministic budget of work per query (SQLite's virtual-machine steps): past it a
    /// query fails with [`QueryError::Budget`] whatever the machine's speed or load, where
    /// `timeout_ms` alone decides by the clock. `None`: the time limit only.
    pub max_steps: Option<u64>,
}

impl Default for QueryLimits {
    fn default() -> Self {
        QueryLimits {
            timeout_ms: 10_000,
            max_rows: Limits::default().max_rows,
            max_steps: None,
        }
    }
}

impl QueryLimits {
    /// The backend's limits: these, and the default memory bound.
    pub fn limits(&self) -> Limits {
        Limits {
            timeout: std::time::Duration::from_millis(self.timeout_ms),
            max_rows: self.max_rows,
            max_steps: self.max_steps,
            ..Limits::default()
        }
    }
}

/// Why a query produced no result table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum QueryError {
    /// The database engine rejected or failed the query (its own message).
    #[error("{0}")]
    Sql(String),
    /// The query ran past its time limit and was interrupted.
    #[error("timed out after {ms} ms (interrupted)")]
    Timeout {
        /// The limit, in milliseconds.
        ms: u64,
    },
    /// The query did more work than its step budget allowed and was stopped.
    #[error("stopped after {steps} steps (its budget)")]
    Budget {
        /// The steps taken when it was stopped.
        steps: u64,
    },
    /// The result had more rows than allowed; the query was stopped there.
    #[error("returned more than {limit} rows")]
    TooManyRows {
        /// The most rows a result may have.
        limit: usize,
    },
    /// The result grew past the memory bound; the query was stopped there.
    #[error("result larger than {limit} bytes")]
    TooLarge {
        /// The most bytes a result may take.
        limit: usize,
    },
    /// The query is too complex to prepare within the limits (why: too many copies of its
    /// common table expressions, or nested too deep).
    #[error("too complex to prepare: {0}")]
    TooComplex(String),
    /// The engine ran out of the memory it may use (its heap limit), even run alone.
    #[error("ran out of memory: the engine's heap limit is {limit} bytes")]
    OutOfMemory {
        /// The engine's heap limit, in bytes.
        limit: u64,
    },
    /// A value in the result is larger than a value may be; nothing of it was decoded.
    #[error("a value of {bytes} bytes, more than the {limit} bytes a value may have")]
    ValueTooLarge {
        /// The value's size.
        bytes: usize,
        /// The most bytes a value may have.
        limit: usize,
    },
    /// A database server refused to go on for lack of a resource it bounds (PostgreSQL: memory,
    /// `temp_file_limit`, a value past its size limit); the server's message.
    #[error("server resource limit: {0}")]
    ServerLimit(String),
    /// A row the caller's admission check refused ([`Backend::execute_admitting`]); the query
    /// was stopped there, the rest of its rows not fetched.
    #[error(
        "returned a row the caller does not admit: {}",
        crate::denotation::format_row(row)
    )]
    Refused {
        /// The refused row.
        row: Vec<Value>,
    },
    /// The database could not be opened.
    #[error("cannot open database {path}: {message}")]
    Open {
        /// The database (a file's path or a name on a server).
        path: String,
        /// What the engine said.
        message: String,
    },
}

impl QueryError {
    /// A short, stable code for reports.
    pub fn code(&self) -> &'static str {
        match self {
            QueryError::Sql(_) => "sql_error",
            QueryError::Timeout { .. } => "timeout",
            QueryError::Budget { .. } => "step_budget",
            QueryError::TooManyRows { .. }
            | QueryError::TooLarge { .. }
            | QueryError::TooComplex(_)
            | QueryError::OutOfMemory { .. }
            | QueryError::ValueTooLarge { .. }
            | QueryError::ServerLimit(_) => "resource_limit",
            QueryError::Open { .. } => "open_error",
            QueryError::Refused { .. } => "refused_row",
        }
    }
}

/// Which result rows a caller admits ([`Backend::execute_admitting`]).
pub type Admit<'a> = &'a (dyn Fn(&[Value]) -> bool + Sync);

/// The one thing a backend does.
pub trait Backend: Send + Sync + fmt::Debug {
    /// A name for reports ("sqlite").
    fn name(&self) -> &'static str;

    /// Runs `sql` on `db` under `limits`. The database must never change, whatever `sql` says.
    fn execute(&self, db: &Database, sql: &str, limits: &Limits)
        -> Result<ResultTable, QueryError>;

    /// [`Backend::execute`], stopping at the first row `admit` refuses
    /// ([`QueryError::Refused`]): a caller that only asks whether every row is one it expects
    /// (BIRD's comparison of row sets) need not fetch the rows after a wrong one. By default
    /// the query runs whole and its rows are checked after it; SQLite checks each row as it
    /// comes.
    fn execute_admitting(
        &self,
        db: &Database,
        sql: &str,
        limits: &Limits,
        admit: Admit<'_>,
    ) -> Result<ResultTable, QueryError> {
        let table = self.execute(db, sql, limits)?;
        match table.rows.iter().find(|row| !admit(row)) {
            Some(row) => Err(QueryError::Refused { row: row.clone() }),
            None => Ok(table),
        }
    }

    /// A run begins (an [`Executor`](crate::executor::Executor) is made): a backend that keeps
    /// what it learnt of a database between queries looks at the database again before using
    /// it (SQLite checks each file's size and mtime once per run, not before every query).
    fn begin_run(&self) {}

    /// The clock its queries read: a pinned moment, or the machine's (a server's own).
    fn clock(&self) -> Clock {
        Clock::System
    }

    /// Whether results count the work their query did ([`ResultTable::steps`], SQLite's
    /// virtual-machine steps). A backend that counts nothing leaves it 0.
    fn counts_steps(&self) -> bool {
        false
    }

    /// The version of the server that holds `db`, for a backend that connects to one (reports
    /// record it as provenance); an error for a backend without a server.
    fn server_version(&self, _db: &Database) -> Result<String, String> {
        Err(format!("{} has no server", self.name()))
    }

    /// The clock of the server that holds `db` (`SELECT now()`), for a backend that connects
    /// to one (provenance records it when the clock is not pinned); an error without a server.
    fn server_clock(&self, _db: &Database) -> Result<String, String> {
        Err(format!("{} has no server", self.name()))
    }

    /// A fingerprint of the database's content, for the on-disk result cache.
    fn content_hash(&self, db: &Database) -> std::io::Result<String> {
        let Some(path) = db.as_file() else {
            return Err(std::io::Error::other(format!("{db} is no file")));
        };
        let bytes = std::fs::read(path)?;
        Ok(blake3::hash(&bytes).to_hex().to_string())
    }
}
