//! `sqlsuite bench` for a SQL-Eval manifest: the evaluation of every (gold, prediction) pair,
//! timed against a baseline measured in the same run on the same engine — a plain client (raw
//! rusqlite, or the `postgres` crate's simple query) on one thread, running every expanded gold
//! alternative and every prediction once per item, as the reference's loop does, with no
//! comparison, no read-only transaction and no memoisation.

use std::collections::HashMap;
use std::process::ExitCode;
use std::str::FromStr;
use std::time::{Duration, Instant};

use sqlsuite::backend::Database;
use sqlsuite::metric::sqleval::{Sqleval, SqlevalOptions};
use sqlsuite::metric::{is_correct_code, Metric, Status};
use sqlsuite::{Evaluation, Manifest};

use super::pass::timed;
use super::raw;
use crate::progress::Progress;

/// A plain client for the manifest's engine.
enum Raw {
    Sqlite(HashMap<Database, rusqlite::Connection>),
    Postgres(String, HashMap<Database, postgres::Client>),
}

impl Raw {
    /// Runs `sql` to completion, reading every row; errors are part of the work, not failures.
    fn run(&mut self, db: &Database, sql: &str, timeout: Duration) -> anyhow::Result<()> {
        match self {
            Raw::Sqlite(conns) => {
                if !conns.contains_key(db) {
                    let path = db
                        .as_file()
                        .ok_or_else(|| anyhow::anyhow!("{db} is no file"))?;
                    let c = rusqlite::Connection::open_with_flags(
                        path,
                        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
                    )?;
                    conns.insert(db.clone(), c);
                }
                let Some(conn) = conns.get(db) else {
                    return Ok(());
                };
                raw::execute(conn, sql, timeout);
            }
            Raw::Postgres(connection, clients) => {
                if !clients.contains_key(db) {
                    let mut config = postgres::Config::from_str(connection)?;
                    config.dbname(&db.label());
                    let mut client = config.connect(postgres::NoTls)?;
                    client.batch_execute(&format!(
                        "SET statement_timeout = {}",
                        timeout.as_millis().max(1)
                    ))?;
                    clients.insert(db.clone(), client);
                }
                let Some(client) = clients.get_mut(db) else {
                    return Ok(());
                };
                let _ = std::hint::black_box(client.simple_query(sql));
            }
        }
        Ok(())
    }
}

/// Benchmarks `manifest` (whose `[cache]` the caller dropped) with the SQL-Eval metric made
/// with `options`.
pub fn run(manifest: Manifest, options: SqlevalOptions) -> anyhow::Result<ExitCode> {
    let timeout = Duration::from_millis(options.limits.timeout_ms);
    let metric = Sqleval::new(options.clone());
    let eval = Evaluation::with_metrics(manifest, |_| {
        Ok(vec![Box::new(Sqleval::new(options)) as Box<dyn Metric>])
    })?;
    let (sets, items) = (eval.dataset.predictions.len(), eval.items().len());
    let databases = eval
        .databases()
        .ok_or_else(|| anyhow::anyhow!("SQL-Eval runs queries: the manifest has no [databases]"))?;
    let backend = databases.backend;
    println!(
        "bench {} on {backend}: {sets} prediction sets × {items} items",
        eval.dataset.name
    );

    let (queries, raw_wall) =
        raw_baseline(&eval, &metric, databases.connection.as_deref(), timeout)?;
    let secs = |d: Duration| d.as_secs_f64();
    println!(
        "raw {backend} client, 1 thread, {} queries (each item's gold alternatives and \
         prediction): {:.3} s",
        queries,
        secs(raw_wall)
    );

    let (wall, worst) = timed(&eval, "evaluating sqleval");
    let mut correct = 0;
    let mut exact = 0;
    for s in 0..sets {
        for i in 0..items {
            if let Some(v) = eval.judge(s, i).verdict("sqleval") {
                if v.status == Status::Correct && is_correct_code(&v.code) {
                    correct += 1;
                    exact += usize::from(v.code == "correct");
                }
            }
        }
    }
    println!(
        "sqlsuite eval ({} threads, cold caches): {:.3} s wall for {} pairs = {:.0} pairs/s \
         ({correct} correct, {exact} exact); slowest item {}",
        sqlsuite::work_pool::threads(),
        secs(wall),
        sets * items,
        (sets * items) as f64 / secs(wall).max(1e-9),
        worst.map_or_else(String::new, |(d, s, i)| format!(
            "{}::{i} {:.3} s",
            eval.dataset.predictions[s].name,
            secs(d)
        ))
    );
    println!(
        "ratio eval wall / raw client: {:.3}",
        secs(wall) / secs(raw_wall).max(1e-9)
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs, with a plain client on one thread, what the reference's loop runs: per item and
/// database, each prediction and every expanded gold alternative once. Returns the queries run
/// and the wall time.
fn raw_baseline(
    eval: &Evaluation,
    metric: &Sqleval,
    connection: Option<&str>,
    timeout: Duration,
) -> anyhow::Result<(usize, Duration)> {
    let sets = eval.dataset.predictions.len();
    let mut jobs: Vec<(Database, String)> = Vec::new();
    for (i, item) in eval.items().iter().enumerate() {
        let Ok(dbs) = &eval.dataset.databases[i] else {
            continue;
        };
        for db in dbs {
            for set in 0..sets {
                jobs.push((db.clone(), eval.prediction(set, i).to_owned()));
                for alt in metric.alternatives(&item.gold) {
                    jobs.push((db.clone(), alt));
                }
            }
        }
    }
    let mut raw = match connection {
        None => Raw::Sqlite(HashMap::new()),
        Some(connection) => Raw::Postgres(connection.to_owned(), HashMap::new()),
    };
    let bar = Progress::new(jobs.len() as u64, "raw client");
    let start = Instant::now();
    for (db, sql) in &jobs {
        raw.run(db, sql, timeout)?;
        bar.inc();
    }
    let raw_wall = start.elapsed();
    bar.finish();
    Ok((jobs.len(), raw_wall))
}
