//! SQLite's process-wide heap limit (`spec/exec.md`, "Limits"), in a test binary of its own: a
//! query that fills the heap makes *any* SQLite allocation in the process fail meanwhile, so
//! among the library's unit tests (run in parallel, some using SQLite directly, not through
//! the backend that re-runs such a query alone) it made an unrelated test fail by chance.

use std::time::Duration;

use sqlsuite::backend::sqlite::Sqlite;
use sqlsuite::backend::{Backend, Database, Limits, QueryError};

/// SQLite's heap in this process is bounded: another connection holding hundreds of megabytes
/// (an in-memory table of blobs, filled until SQLite refuses) leaves a backend query
/// `OutOfMemory` (`resource_limit`, after running again alone), and once that memory is freed
/// the same query runs. (Queries themselves rarely reach the limit now: the backend refuses the
/// prepare-time expansions that did before preparing, `backend::prepare_bounds`.)
#[test]
fn the_heap_is_bounded_for_the_whole_process() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.sqlite");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (2);")
        .unwrap();
    let db = Database::file(path);
    let limits = Limits {
        timeout: Duration::from_millis(2000),
        ..Limits::default()
    };
    // The first query sets the process's heap limit.
    // Each row builds a 60 kB string: more than the connection's own small buffers hold.
    let sql = "SELECT a, length(printf('%.*c', 60000, 'a')) FROM t ORDER BY a";
    assert_eq!(
        Sqlite::default()
            .execute(&db, sql, &limits)
            .unwrap()
            .rows
            .len(),
        2
    );
    let filler = rusqlite::Connection::open_in_memory().unwrap();
    filler.execute_batch("CREATE TABLE m(x BLOB)").unwrap();
    let mut held = 0u64;
    // Blobs of 50 MB until SQLite refuses one, then smaller ones: little room is left.
    for size in [50_000_000u64, 5_000_000, 500_000, 50_000, 5_000] {
        for _ in 0..40 {
            let insert = format!("INSERT INTO m VALUES (zeroblob({size}))");
            if filler.execute(&insert, []).is_err() {
                break;
            }
            held += size;
        }
    }
    assert!(
        (400_000_000..=536_870_912).contains(&held),
        "SQLite let one connection hold {held} bytes"
    );
    // The query (on this thread's open connection) needs memory it cannot get.
    let r = Sqlite::default().execute(&db, sql, &limits);
    assert!(matches!(r, Err(QueryError::OutOfMemory { .. })), "{r:?}");
    assert_eq!(r.unwrap_err().code(), "resource_limit");
    drop(filler);
    let t = Sqlite::default().execute(&db, sql, &limits).unwrap();
    assert_eq!(t.rows.len(), 2);
}
