//! The baseline of the benchmarks: raw SQLite (plain rusqlite, no comparison, no cache)
//! running queries to completion with a per-query timeout, reading every value.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rusqlite::{Connection, OpenFlags};

use sqlsuite::backend::Database;

use super::pass::cpu_time;
use crate::progress::Progress;

/// What a raw baseline measured.
pub struct Raw {
    /// CPU time of the whole process.
    pub cpu: Duration,
    pub queries: usize,
    pub timed_out: usize,
}

/// One item on one database: its gold and the predictions judged against it, as run.
pub struct Job {
    pub db: Database,
    pub gold: String,
    pub predictions: Vec<String>,
}

/// Which queries the raw baseline runs.
#[derive(Clone, Copy, PartialEq)]
pub enum Runs {
    /// Each item's gold once per database, and each pair's prediction once per database: what
    /// an evaluator without sharing runs (one thread).
    EveryPair,
    /// Each distinct query once per database (a prediction once per row cap): the least any
    /// evaluator must run, so the job's ratio against it measures the per-query hot path. Run
    /// on the work pool, as many threads as the evaluation, so that two heavy queries slowing
    /// each other on the two cores weigh on both sides alike.
    Distinct,
}

/// Runs, raw, what the evaluation of `jobs` runs (no comparison, no cache): every pair's
/// queries on one thread, or each distinct query once on the work pool; the CPU time is
/// measured from fresh connections.
pub fn measure(jobs: &[Job], timeout: Duration, runs: Runs) -> anyhow::Result<Raw> {
    CONNECTIONS.with(|c| c.borrow_mut().clear());
    let cpu = cpu_time();
    let raw = match runs {
        Runs::EveryPair => every_pair(jobs, timeout)?,
        Runs::Distinct => distinct(jobs, timeout)?,
    };
    Ok(Raw {
        cpu: cpu_time().saturating_sub(cpu),
        ..raw
    })
}

fn open(db: &Database) -> rusqlite::Result<Connection> {
    let path = db.as_file().unwrap_or(Path::new(""));
    if path.extension().is_some_and(|e| e == "sql") {
        let conn = Connection::open_in_memory()?;
        let script = std::fs::read_to_string(path).unwrap_or_default();
        conn.execute_batch(&script)?;
        Ok(conn)
    } else {
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
    }
}

/// Runs one query to completion (or its timeout), reading every value. Returns whether it
/// timed out.
pub fn execute(conn: &Connection, sql: &str, timeout: Duration) -> bool {
    execute_capped(conn, sql, timeout, usize::MAX).0
}

/// Runs one query until it ends, times out, or has returned more than `cap` rows, reading
/// every value. Returns whether it timed out, and the rows read.
fn execute_capped(conn: &Connection, sql: &str, timeout: Duration, cap: usize) -> (bool, usize) {
    let deadline = Instant::now() + timeout;
    conn.progress_handler(2_000, Some(move || Instant::now() >= deadline));
    let mut read = 0usize;
    let mut run = || -> rusqlite::Result<()> {
        let mut stmt = conn.prepare(sql)?;
        let n = stmt.column_count();
        let mut rows = stmt.raw_query();
        while let Some(row) = rows.next()? {
            for i in 0..n {
                std::hint::black_box(row.get_ref(i)?);
            }
            read += 1;
            if read > cap {
                break;
            }
        }
        Ok(())
    };
    let _ = run();
    conn.progress_handler(0, None::<fn() -> bool>);
    (Instant::now() >= deadline, read)
}

thread_local! {
    /// The raw baseline's connections on this thread (a baseline without a connection cache
    /// would measure opening files).
    static CONNECTIONS: std::cell::RefCell<Vec<(Database, Connection)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on this thread's raw connection to `db`, opening it on first use.
fn with_connection<T>(db: &Database, f: impl FnOnce(&Connection) -> T) -> anyhow::Result<T> {
    CONNECTIONS.with(|cell| {
        let mut connections = cell.borrow_mut();
        let at = match connections.iter().position(|(d, _)| d == db) {
            Some(at) => at,
            None => {
                connections.push((db.clone(), open(db)?));
                connections.len() - 1
            }
        };
        Ok(f(&connections[at].1))
    })
}

/// Each job's gold, then its predictions read one row past the gold's, on this thread.
fn every_pair(jobs: &[Job], timeout: Duration) -> anyhow::Result<Raw> {
    let bar = Progress::new(jobs.len() as u64, "raw sqlite, every pair");
    let mut raw = Raw {
        cpu: Duration::ZERO,
        queries: 0,
        timed_out: 0,
    };
    for Job {
        db,
        gold,
        predictions,
    } in jobs
    {
        let (timed_out, rows) =
            with_connection(db, |c| execute_capped(c, gold, timeout, usize::MAX))?;
        raw.timed_out += usize::from(timed_out);
        for p in predictions {
            let (timed_out, _) = with_connection(db, |c| execute_capped(c, p, timeout, rows))?;
            raw.timed_out += usize::from(timed_out);
        }
        raw.queries += 1 + predictions.len();
        bar.inc();
    }
    bar.finish();
    Ok(raw)
}

/// Each distinct (database, gold) once, then each distinct (database, prediction, the gold's
/// row count) once, each phase spread over the work pool's threads.
fn distinct(jobs: &[Job], timeout: Duration) -> anyhow::Result<Raw> {
    let golds: Vec<(&Database, &str, usize)> = jobs
        .iter()
        .map(|job| (&job.db, job.gold.as_str(), usize::MAX))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut raw = Raw {
        cpu: Duration::ZERO,
        queries: golds.len(),
        timed_out: 0,
    };
    let mut gold_rows: HashMap<(&Database, &str), usize> = HashMap::new();
    for (&(db, sql, _), (timed_out, rows)) in golds.iter().zip(on_pool(&golds, timeout, "golds")?) {
        raw.timed_out += usize::from(timed_out);
        gold_rows.insert((db, sql), rows);
    }
    let predictions: Vec<(&Database, &str, usize)> = jobs
        .iter()
        .flat_map(|job| {
            let rows = gold_rows[&(&job.db, job.gold.as_str())];
            job.predictions
                .iter()
                .map(move |p| (&job.db, p.as_str(), rows))
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    raw.queries += predictions.len();
    for (timed_out, _) in on_pool(&predictions, timeout, "predictions")? {
        raw.timed_out += usize::from(timed_out);
    }
    Ok(raw)
}

/// Runs each (database, query, row cap) raw on the work pool: whether each timed out, and the
/// rows it read.
fn on_pool(
    queries: &[(&Database, &str, usize)],
    timeout: Duration,
    what: &str,
) -> anyhow::Result<Vec<(bool, usize)>> {
    let bar = Progress::new(
        queries.len() as u64,
        &format!("raw sqlite, distinct {what}"),
    );
    let ran: Vec<anyhow::Result<(bool, usize)>> = sqlsuite::work_pool::run(|| {
        queries
            .par_iter()
            .map(|&(db, sql, cap)| {
                let out = with_connection(db, |c| execute_capped(c, sql, timeout, cap));
                bar.inc();
                out
            })
            .collect()
    });
    bar.finish();
    ran.into_iter().collect()
}
