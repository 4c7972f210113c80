//! SQLite's process-wide heap limit (`spec/exec.md`, "Limits"), in a test binary of its own: a
//! query that fills the heap makes *any* SQLite allocation in the process fail meanwhile, so
//! among the library's unit tests (run in parallel, some using SQLite directly, not through
//! the backend that re-runs such a query alone) it made an unrelated test fail by chance.

use std::time::Duration;

use sqlsuite::backend::sqlite::Sqlite;
use sqlsuite::backend::{Backend, Database, Limits, QueryError};

/// Each CTE joins the previous one three times: preparing the statement expands 3^15 copies,
/// where no progress handler runs; the heap limit stops it, and the process goes on.
#[test]
fn memory_while_preparing_is_bounded_by_the_heap_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.sqlite");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (2);")
        .unwrap();
    let db = Database::file(path);
    let limits = Limits {
        timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let ctes: Vec<String> = (1..16)
        .map(|i| {
            format!(
                "t{i}(x) AS (SELECT a0.x FROM t{p} a0, t{p} a1, t{p} a2)",
                p = i - 1
            )
        })
        .collect();
    let sql = format!(
        "WITH t0(x) AS (SELECT 1), {} SELECT count(*) FROM t15",
        ctes.join(", ")
    );
    let r = Sqlite.execute(&db, &sql, &limits);
    assert!(matches!(r, Err(QueryError::OutOfMemory { .. })), "{r:?}");
    assert_eq!(r.unwrap_err().code(), "resource_limit");
    // The process goes on, memory released.
    let t = Sqlite
        .execute(&db, "SELECT count(*) FROM t", &limits)
        .unwrap();
    assert_eq!(t.rows.len(), 1);
}
