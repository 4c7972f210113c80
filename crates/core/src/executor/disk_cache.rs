//! Gold results kept on disk between runs: one SQLite file in the cache directory
//! ([`FILE`]), a row per (backend, database content, SQL, limits) holding the result as JSON.
//!
//! One file, not one per result: BIRD's suites give some 70,000 gold results of about 230 bytes
//! each, which as files took 282 MB of disk blocks for 16 MB of text (and as many inodes); in one
//! SQLite file they take about as much as their text. Several processes may share the file
//! (WAL journal, a busy timeout); whatever goes wrong with it (a disk that is full, a file that
//! is locked too long or not a database), the run goes on without the cache, only slower.
//! Caches of earlier versions (`*.json` files beside it) are not read; they may be deleted.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension};

use super::QueryResult;
use crate::backend::{Backend, Database, Limits, QueryError};
use crate::clock::{reads_clock, Clock};
use crate::memo::Memo;

/// The cache's file in its directory.
pub(super) const FILE: &str = "gold-results.sqlite";

/// How long a write waits for another process holding the file.
const BUSY: Duration = Duration::from_secs(5);

/// Gold results on disk, keyed by the database's content, the SQL and the limits.
#[derive(Debug)]
pub(super) struct DiskCache {
    dir: PathBuf,
    /// Opened on first use; `Some(None)` once it could not be, so that it is not tried again.
    conn: Mutex<Option<Option<Connection>>>,
    hashes: Memo<Database, Option<String>>,
}

impl DiskCache {
    pub(super) fn new(dir: PathBuf) -> DiskCache {
        DiskCache {
            dir,
            conn: Mutex::new(None),
            hashes: Memo::new(),
        }
    }

    pub(super) fn load(
        &self,
        backend: &dyn Backend,
        db: &Database,
        sql: &str,
        limits: &Limits,
    ) -> Option<QueryResult> {
        let key = self.key(backend, db, sql, limits)?;
        let text: String = self.with_conn(|conn| {
            conn.query_row(
                "SELECT result FROM gold_results WHERE key = ?1",
                [&key],
                |row| row.get(0),
            )
            .optional()
        })??;
        serde_json::from_str(&text).ok()
    }

    /// A result stopped by its time limit is not kept (it depends on the machine's load), nor one
    /// of a query that reads the machine's clock (it depends on the day).
    pub(super) fn store(
        &self,
        backend: &dyn Backend,
        db: &Database,
        sql: &str,
        limits: &Limits,
        result: &QueryResult,
    ) {
        if matches!(result, Err(QueryError::Timeout { .. }))
            || (backend.clock() == Clock::System && reads_clock(sql))
        {
            return;
        }
        let Some(key) = self.key(backend, db, sql, limits) else {
            return;
        };
        let Ok(text) = serde_json::to_string(result) else {
            return;
        };
        self.with_conn(|conn| {
            conn.execute(
                "INSERT OR REPLACE INTO gold_results (key, result) VALUES (?1, ?2)",
                [&key, &text],
            )
        });
    }

    /// The key of a result: a hash of the backend, the database's content, the SQL and the
    /// limits; `None` when the database's content cannot be read.
    fn key(
        &self,
        backend: &dyn Backend,
        db: &Database,
        sql: &str,
        limits: &Limits,
    ) -> Option<String> {
        let content =
            self.hashes
                .get_or_init(db, || db.clone(), || backend.content_hash(db).ok())?;
        let mut h = blake3::Hasher::new();
        // A pinned clock is part of the key: a result that reads it is that moment's.
        let clock = match backend.clock() {
            Clock::System => String::new(),
            Clock::Pinned(m) => format!("clock {m}"),
        };
        for part in [
            backend.name(),
            &content,
            sql,
            &clock,
            // `v2`: results carry their steps; `v3`: exact steps, not blocks.
            &format!(
                "v3/{}/{}/{}/{:?}",
                limits.timeout.as_millis(),
                limits.max_rows,
                limits.max_bytes,
                limits.max_steps
            ),
        ] {
            h.update(part.as_bytes());
            h.update(&[0]);
        }
        Some(h.finalize().to_hex().to_string())
    }

    /// Runs `f` on the cache's connection, opening it on first use; `None` when there is no
    /// usable cache or `f` failed.
    fn with_conn<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Option<T> {
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let conn = conn.get_or_insert_with(|| self.open());
        f(conn.as_ref()?).ok()
    }

    /// The cache's connection, its table made; `None` when the file cannot be used.
    fn open(&self) -> Option<Connection> {
        std::fs::create_dir_all(&self.dir).ok()?;
        let conn = Connection::open(self.dir.join(FILE)).ok()?;
        conn.busy_timeout(BUSY).ok()?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             CREATE TABLE IF NOT EXISTS gold_results (
                 key TEXT PRIMARY KEY,
                 result TEXT NOT NULL
             ) WITHOUT ROWID;",
        )
        .ok()?;
        Some(conn)
    }
}
