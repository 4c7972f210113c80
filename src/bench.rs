//! `sqlsuite bench`: a full evaluation of every prediction set, timed against a baseline
//! measured in the same run — raw SQLite (plain rusqlite, one thread, no comparison, no cache)
//! executing the same golds and predictions once each, with the same per-query timeout.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use sqlsuite::backend::Database;
use sqlsuite::metric::exact_match::{ExactMatch, ExactMatchOptions};
use sqlsuite::metric::exec::{Exec, ExecOptions};
use sqlsuite::metric::sqleval::SqlevalOptions;
use sqlsuite::metric::{Metric, Status};
use sqlsuite::Evaluation;

use crate::progress::Progress;

/// Time of the raw baseline.
struct Raw {
    total: Duration,
    queries: usize,
    timed_out: usize,
    timed_out_time: Duration,
}

fn raw_open(db: &Database) -> rusqlite::Result<Connection> {
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
pub(crate) fn raw_execute(conn: &Connection, sql: &str, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    conn.progress_handler(2_000, Some(move || Instant::now() >= deadline));
    let run = || -> rusqlite::Result<()> {
        let mut stmt = conn.prepare(sql)?;
        let n = stmt.column_count();
        let mut rows = stmt.raw_query();
        while let Some(row) = rows.next()? {
            for i in 0..n {
                std::hint::black_box(row.get_ref(i)?);
            }
        }
        Ok(())
    };
    let _ = run();
    conn.progress_handler(0, None::<fn() -> bool>);
    Instant::now() >= deadline
}

fn raw_baseline(eval: &Evaluation, options: &ExecOptions) -> anyhow::Result<Raw> {
    let timeout = Duration::from_millis(options.limits.timeout_ms);
    let mut jobs: Vec<(Database, String)> = Vec::new();
    for (i, item) in eval.items().iter().enumerate() {
        let Ok(dbs) = &eval.dataset.databases[i] else {
            continue;
        };
        for db in dbs {
            jobs.push((db.clone(), options.gold_plan(&item.gold).sql));
            for set in 0..eval.dataset.predictions.len() {
                let p = eval.prediction(set, i);
                jobs.push((db.clone(), options.prediction_plan(p).sql));
            }
        }
    }
    let bar = Progress::new(jobs.len() as u64, "raw sqlite");
    let mut connections: Vec<(Database, Connection)> = Vec::new();
    let mut raw = Raw {
        total: Duration::ZERO,
        queries: jobs.len(),
        timed_out: 0,
        timed_out_time: Duration::ZERO,
    };
    for (db, sql) in &jobs {
        if !connections.iter().any(|(d, _)| d == db) {
            connections.push((db.clone(), raw_open(db)?));
        }
        let conn = connections
            .iter()
            .find(|(d, _)| d == db)
            .map(|(_, c)| c)
            .ok_or_else(|| anyhow::anyhow!("connection vanished"))?;
        let start = Instant::now();
        let timed_out = raw_execute(conn, sql, timeout);
        let took = start.elapsed();
        raw.total += took;
        if timed_out {
            raw.timed_out += 1;
            raw.timed_out_time += took;
        }
        bar.inc();
    }
    bar.finish();
    Ok(raw)
}

pub fn run(manifest: &Path, timeout_ms: Option<u64>) -> anyhow::Result<ExitCode> {
    let mut loaded = sqlsuite::Manifest::load(manifest)?;
    // The benchmark measures execution: a manifest's [cache] dir, which may serve golds from
    // disk, is ignored.
    loaded.cache = None;
    let enabled: Vec<&str> = sqlsuite::registry::compose(&loaded)?
        .metrics
        .iter()
        .map(|m| m.name())
        .collect();
    if enabled.contains(&"bleu") {
        return crate::bench_bleu::run(loaded);
    }
    if enabled.contains(&"sqleval") {
        let mut options: SqlevalOptions = loaded.metric_options("sqleval")?.unwrap_or_default();
        if let Some(ms) = timeout_ms {
            options.limits.timeout_ms = ms;
        }
        return crate::bench_sqleval::run(loaded, options);
    }
    let mut exec: ExecOptions = loaded.metric_options("exec")?.unwrap_or_default();
    if let Some(ms) = timeout_ms {
        exec.limits.timeout_ms = ms;
    }
    let with = |options: ExecOptions| {
        move |_: &_| Ok(vec![Box::new(Exec::new(options)) as Box<dyn Metric>])
    };
    let eval = Evaluation::with_metrics(loaded.clone(), with(exec.clone()))?;
    let sets = eval.dataset.predictions.len();
    let items = eval.items().len();
    let skipped_items = eval.dataset.databases.iter().filter(|d| d.is_err()).count();
    println!(
        "bench {}: {sets} prediction sets × {items} items = {} predictions ({} on missing databases)",
        eval.dataset.name,
        sets * items,
        sets * skipped_items
    );

    let raw = raw_baseline(&eval, &exec)?;
    let secs = |d: Duration| d.as_secs_f64();
    println!(
        "raw SQLite, 1 thread, {} queries once each (golds + predictions): {:.2} s; \
         {} hit the {} ms timeout ({:.2} s); {:.2} s without them",
        raw.queries,
        secs(raw.total),
        raw.timed_out,
        exec.limits.timeout_ms,
        secs(raw.timed_out_time),
        secs(raw.total - raw.timed_out_time)
    );

    // The evaluation, cold: a fresh Evaluation has empty in-memory caches.
    let cold = Evaluation::with_metrics(loaded.clone(), with(exec.clone()))?;
    let (wall, _) = timed(&cold, "evaluating exec");
    let results: Vec<_> = (0..sets)
        .flat_map(|s| (0..items).map(move |i| (s, i)))
        .map(|(s, i)| cold.result(s, i))
        .collect();
    let judged = results
        .iter()
        .filter(|r| r.status() != Status::Skipped)
        .count();
    let timeouts = results
        .iter()
        .filter(|r| r.verdict("exec").is_some_and(|v| v.code == "timeout"))
        .count();
    println!(
        "sqlsuite eval ({} threads, cold caches): {:.2} s wall, {:.0} predictions/s ({judged} judged; \
         {timeouts} predictions ran into the timeout)",
        sqlsuite::work_pool::threads(),
        secs(wall),
        judged as f64 / secs(wall).max(1e-9)
    );
    println!(
        "ratio eval wall / raw SQLite: {:.3} (vs raw without timed-out queries: {:.3})",
        secs(wall) / secs(raw.total).max(1e-9),
        secs(wall) / secs(raw.total - raw.timed_out_time).max(1e-9)
    );
    // Timed-out predictions cost their full timeout on one worker each, whatever the engine.
    let timeout = Duration::from_millis(exec.limits.timeout_ms);
    let threads = sqlsuite::work_pool::threads() as f64;
    let rest = (secs(wall) - timeouts as f64 * secs(timeout) / threads).max(0.0);
    println!(
        "without the time spent in timeouts on either side (estimate: wall − timeouts × timeout / \
         threads): eval {rest:.2} s vs raw {:.2} s, ratio {:.3}",
        secs(raw.total - raw.timed_out_time),
        rest / secs(raw.total - raw.timed_out_time).max(1e-9)
    );

    // Exact set match: no database, parse and compare only.
    if let Some(tables) = &loaded.tables {
        let esm = Evaluation::with_metrics(loaded.clone(), |resources| {
            let schemas = resources.schemas.clone().ok_or("no schemas")?;
            let esm = ExactMatch::new(&ExactMatchOptions::default(), schemas);
            Ok(vec![Box::new(esm) as Box<dyn Metric>])
        })?;
        let (wall, _) = timed(&esm, "evaluating exact_match");
        println!(
            "exact_match ({} threads, schemas from {}): {} predictions in {:.2} s = {:.0} items/s",
            sqlsuite::work_pool::threads(),
            tables.display(),
            sets * items,
            secs(wall),
            (sets * items) as f64 / secs(wall).max(1e-9)
        );
    }

    // QueryResult with plug_value: the prediction as written, then gold values in its slots.
    if enabled.contains(&"exec") {
        let options = ExecOptions {
            plug_value: true,
            ..exec.clone()
        };
        let plugged = Evaluation::with_metrics(loaded.clone(), with(options.clone()))?;
        let (wall, worst) = timed(&plugged, "evaluating exec with plug_value");
        let correct = (0..sets)
            .flat_map(|s| (0..items).map(move |i| (s, i)))
            .filter(|&(s, i)| plugged.result(s, i).status() == Status::Correct)
            .count();
        println!(
            "exec with plug_value ({} threads): {:.2} s wall for {} predictions ({correct} correct); \
             worst item {}",
            sqlsuite::work_pool::threads(),
            secs(wall),
            sets * items,
            worst.map_or_else(String::new, |(d, s, i)| format!(
                "{}::{i} {:.2} s (timeout {} ms per query)",
                plugged.dataset.predictions[s].name,
                secs(d),
                options.limits.timeout_ms
            ))
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Evaluates every prediction in parallel, timing each; returns the wall time and the slowest
/// item (time, set, index).
pub(crate) fn timed(
    eval: &Evaluation,
    label: &str,
) -> (Duration, Option<(Duration, usize, usize)>) {
    use rayon::prelude::*;
    let (sets, items) = (eval.dataset.predictions.len(), eval.items().len());
    let bar = Progress::new((sets * items) as u64, label);
    let start = Instant::now();
    let worst = sqlsuite::work_pool::run(|| {
        (0..sets * items)
            .into_par_iter()
            .map(|k| {
                let t = Instant::now();
                eval.result(k / items, k % items);
                bar.inc();
                (t.elapsed(), k / items, k % items)
            })
            .max_by_key(|(d, _, _)| *d)
    });
    let wall = start.elapsed();
    bar.finish();
    (wall, worst)
}
