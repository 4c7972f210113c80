//! SQLite's process-wide heap limit (`spec/exec.md`, "Limits"), in a test binary of its own: a
//! query that fills the heap makes *any* SQLite allocation in the process fail meanwhile, so
//! among the library's unit tests (run in parallel, some using SQLite directly, not through
//! the backend that re-runs such a query alone) it made an unrelated test fail by chance.

use std::time::Duration;

use sqlsuite::backend::sqlite::Sqlite;
use sqlsuite::backend::{Backend, Database, Limits, QueryError};

/// Preparing copies a CTE's body for each reference: 3,661 copies (under the backend's bound
/// on copies) of a 2,000-column select list want gigabytes while the statement is prepared,
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
    let columns: Vec<String> = (0..2000).map(|i| format!("{i} AS c{i}")).collect();
    let union = |of: &str| vec![format!("SELECT * FROM {of}"); 60].join(" UNION ALL ");
    let sql = format!(
        "WITH t1 AS (SELECT {}), t2 AS ({}), t3 AS ({}) SELECT count(*) FROM t3",
        columns.join(", "),
        union("t1"),
        union("t2")
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
