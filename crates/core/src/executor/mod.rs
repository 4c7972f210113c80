//! Executions: running queries through a backend, with the caches in front of it.
//!
//! * Gold results are computed once per (database, SQL, limits) in a run and shared by every
//!   prediction set; with a cache directory they are also kept on disk ([`disk_cache`]: one
//!   SQLite file, keyed by the database's content hash and the SQL text), so a re-run with a new
//!   model version executes only the predictions.
//! * Prediction results are memoised in the run too: model versions often predict the same SQL,
//!   and `plug_value` tries the same candidates for them. One query never runs twice on one
//!   database in a run, whatever time limit it is given: a result is the same under any limit it
//!   finished within, and a query stopped at its limit is stopped under a shorter one too (it
//!   runs again only when given longer than it had).
//!
//! A cached result is the same value the backend returned, errors included.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hashbrown::Equivalent;

mod disk_cache;
use disk_cache::DiskCache;

use crate::backend::{Admit, Backend, Database, Limits, QueryError};
use crate::denotation::ResultTable;
use crate::memo::Memo;

/// What one execution produced.
pub type QueryResult = Result<ResultTable, QueryError>;

type Key = (Database, String, Limits);

/// A [`Key`] borrowed: hashes as the key does (a tuple hashes its fields in order, a `String`
/// as its `str`).
#[derive(Clone, Copy)]
struct KeyRef<'a>(&'a Database, &'a str, &'a Limits);

impl Hash for KeyRef<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
        self.1.hash(state);
        self.2.hash(state);
    }
}

impl Equivalent<Key> for KeyRef<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        *self.0 == key.0 && self.1 == key.1 && *self.2 == key.2
    }
}

impl KeyRef<'_> {
    fn owned(self) -> Key {
        (self.0.clone(), self.1.to_owned(), *self.2)
    }
}

/// A prediction's result, and the time limit it ran under.
type Timed = Option<(Arc<QueryResult>, Duration)>;

/// Runs queries for metrics. Shared by all threads of a run.
#[derive(Debug)]
pub struct Executor {
    backend: Box<dyn Backend>,
    golds: Memo<Key, Arc<QueryResult>>,
    /// By (database, SQL, limits but the time limit): one lock each, held while it runs.
    predictions: Memo<Key, Arc<Mutex<Timed>>>,
    disk: Option<DiskCache>,
}

impl Executor {
    /// An executor over `backend`, keeping gold results on disk in `cache_dir` if given.
    pub fn new(backend: Box<dyn Backend>, cache_dir: Option<PathBuf>) -> Executor {
        backend.begin_run();
        Executor {
            backend,
            golds: Memo::new(),
            predictions: Memo::new(),
            disk: cache_dir.map(DiskCache::new),
        }
    }

    /// The backend queries run on.
    pub fn backend(&self) -> &dyn Backend {
        self.backend.as_ref()
    }

    /// A gold query's result on `db`: computed once per run, and from disk when cached.
    pub fn gold(&self, db: &Database, sql: &str, limits: &Limits) -> Arc<QueryResult> {
        let key = KeyRef(db, sql, limits);
        self.golds.get_or_init(
            &key,
            || key.owned(),
            || {
                if let Some(disk) = &self.disk {
                    if let Some(hit) = disk.load(self.backend.as_ref(), db, sql, limits) {
                        return Arc::new(hit);
                    }
                }
                let result = self.backend.execute(db, sql, limits);
                if let Some(disk) = &self.disk {
                    disk.store(self.backend.as_ref(), db, sql, limits, &result);
                }
                Arc::new(result)
            },
        )
    }

    /// A predicted query's result on `db` (memoised for this run only, whatever the time
    /// limit: see the module documentation).
    pub fn prediction(&self, db: &Database, sql: &str, limits: &Limits) -> Arc<QueryResult> {
        self.prediction_run(db, sql, limits, None)
    }

    /// [`Executor::prediction`], stopping at the first row `admit` refuses
    /// ([`QueryError::Refused`], [`Backend::execute_admitting`]). A result already known is
    /// returned whole (the caller compares it); a refusal is not kept, since it depends on who
    /// asked: another caller runs the query again.
    pub fn prediction_admitting(
        &self,
        db: &Database,
        sql: &str,
        limits: &Limits,
        admit: Admit<'_>,
    ) -> Arc<QueryResult> {
        self.prediction_run(db, sql, limits, Some(admit))
    }

    fn prediction_run(
        &self,
        db: &Database,
        sql: &str,
        limits: &Limits,
        admit: Option<Admit<'_>>,
    ) -> Arc<QueryResult> {
        let untimed = Limits {
            timeout: Duration::ZERO,
            ..*limits
        };
        let key = KeyRef(db, sql, &untimed);
        let cell = self
            .predictions
            .get_or_init(&key, || key.owned(), Arc::default);
        let mut cached = cell.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((result, ran_under)) = cached.as_ref() {
            let stopped = matches!(result.as_ref(), Err(QueryError::Timeout { .. }));
            if !stopped || limits.timeout <= *ran_under {
                return Arc::clone(result);
            }
        }
        let result = Arc::new(match admit {
            Some(admit) => self.backend.execute_admitting(db, sql, limits, admit),
            None => self.backend.execute(db, sql, limits),
        });
        if !matches!(result.as_ref(), Err(QueryError::Refused { .. })) {
            *cached = Some((Arc::clone(&result), limits.timeout));
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::sqlite::Sqlite;
    use crate::denotation::Value;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts executions, delegating to SQLite.
    #[derive(Debug, Default)]
    struct Counting(Arc<AtomicUsize>);
    impl Backend for Counting {
        fn name(&self) -> &'static str {
            "sqlite"
        }
        fn execute(&self, db: &Database, sql: &str, limits: &Limits) -> QueryResult {
            self.0.fetch_add(1, Ordering::SeqCst);
            Sqlite::default().execute(db, sql, limits)
        }
        fn begin_run(&self) {
            Sqlite::default().begin_run();
        }
    }

    #[test]
    fn gold_results_are_computed_once_and_survive_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("d.sql");
        std::fs::write(&script, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);").unwrap();
        let db = Database::file(&script);
        let cache = dir.path().join("cache");
        let limits = Limits::default();

        let count = Arc::new(AtomicUsize::new(0));
        let ex = Executor::new(Box::new(Counting(count.clone())), Some(cache.clone()));
        for _ in 0..3 {
            let r = ex.gold(&db, "SELECT count(*) FROM t", &limits);
            assert_eq!(r.as_ref().as_ref().unwrap().rows, vec![vec![Value::Int(2)]]);
        }
        assert_eq!(count.load(Ordering::SeqCst), 1);

        // A new run (new executor) reads the gold from disk: no execution.
        let count2 = Arc::new(AtomicUsize::new(0));
        let ex2 = Executor::new(Box::new(Counting(count2.clone())), Some(cache));
        let r = ex2.gold(&db, "SELECT count(*) FROM t", &limits);
        assert_eq!(r.as_ref().as_ref().unwrap().rows, vec![vec![Value::Int(2)]]);
        assert_eq!(count2.load(Ordering::SeqCst), 0);

        // Changing the database's content changes the key.
        std::fs::write(&script, "CREATE TABLE t(x); INSERT INTO t VALUES (1);").unwrap();
        let ex3 = Executor::new(
            Box::new(Counting(count2.clone())),
            Some(dir.path().join("cache")),
        );
        let r = ex3.gold(&db, "SELECT count(*) FROM t", &limits);
        assert_eq!(r.as_ref().as_ref().unwrap().rows, vec![vec![Value::Int(1)]]);
        assert_eq!(count2.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn gold_results_are_one_file_and_a_broken_one_only_costs_speed() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("d.sql");
        std::fs::write(&script, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);").unwrap();
        let db = Database::file(&script);
        let cache = dir.path().join("cache");
        let limits = Limits::default();
        let count = Arc::new(AtomicUsize::new(0));
        let ex = Executor::new(Box::new(Counting(count.clone())), Some(cache.clone()));
        for sql in ["SELECT 1", "SELECT 2", "SELECT x FROM t"] {
            ex.gold(&db, sql, &limits);
        }
        drop(ex);
        let mut files: Vec<String> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| !name.ends_with("-wal") && !name.ends_with("-shm"))
            .collect();
        files.sort();
        assert_eq!(files, vec![disk_cache::FILE.to_owned()]);

        // A cache file that is not a database: every gold runs, each answer right.
        std::fs::write(cache.join(disk_cache::FILE), "not a database").unwrap();
        for name in ["gold-results.sqlite-wal", "gold-results.sqlite-shm"] {
            let _ = std::fs::remove_file(cache.join(name));
        }
        let count2 = Arc::new(AtomicUsize::new(0));
        let ex2 = Executor::new(Box::new(Counting(count2.clone())), Some(cache));
        let r = ex2.gold(&db, "SELECT count(*) FROM t", &limits);
        assert_eq!(r.as_ref().as_ref().unwrap().rows, vec![vec![Value::Int(2)]]);
        let r = ex2.gold(&db, "SELECT x FROM t ORDER BY x", &limits);
        assert_eq!(r.as_ref().as_ref().unwrap().rows.len(), 2);
        assert_eq!(count2.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_prediction_runs_once_whatever_its_time_limit_unless_it_was_stopped_sooner() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("d.sql");
        std::fs::write(&script, "CREATE TABLE t(x); INSERT INTO t VALUES (1);").unwrap();
        let db = Database::file(&script);
        let count = Arc::new(AtomicUsize::new(0));
        let ex = Executor::new(Box::new(Counting(count.clone())), None);
        let with = |ms| Limits {
            timeout: Duration::from_millis(ms),
            ..Limits::default()
        };

        // Finished under 5 s: the same under 1 s, not run again.
        ex.prediction(&db, "SELECT x FROM t", &with(5000));
        ex.prediction(&db, "select x from t", &with(5000));
        ex.prediction(&db, "SELECT x FROM t", &with(1000));
        assert_eq!(count.load(Ordering::SeqCst), 2, "two texts, each run once");

        // Stopped at 50 ms: stopped under 20 ms too; given 100 ms, it runs again.
        let endless = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) \
                       SELECT count(*) FROM c";
        let stopped = |r: &QueryResult| matches!(r, Err(QueryError::Timeout { .. }));
        assert!(stopped(&ex.prediction(&db, endless, &with(50))));
        assert!(stopped(&ex.prediction(&db, endless, &with(20))));
        assert_eq!(count.load(Ordering::SeqCst), 3);
        assert!(stopped(&ex.prediction(&db, endless, &with(100))));
        assert_eq!(count.load(Ordering::SeqCst), 4);
    }
}
