//! `sqlsuite bench`: a full evaluation of every prediction set, timed against a baseline
//! measured in the same run — raw SQLite (plain rusqlite, no comparison, no cache) executing
//! the same golds and predictions, with the same per-query timeout: every pair's queries on one
//! thread, and each distinct query once on as many threads as the evaluation.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rusqlite::{Connection, OpenFlags};

use sqlsuite::backend::Database;
use sqlsuite::metric::exact_match::{ExactMatch, ExactMatchOptions};
use sqlsuite::metric::exec::{Exec, ExecOptions, RelativeBudget};
use sqlsuite::metric::sqleval::SqlevalOptions;
use sqlsuite::metric::{Metric, Status};
use sqlsuite::Evaluation;

use crate::bench_pass::{self, cpu_time};
use crate::progress::Progress;

/// Time of the raw baseline.
struct Raw {
    cpu: Duration,
    queries: usize,
    timed_out: usize,
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
    raw_execute_capped(conn, sql, timeout, usize::MAX).0
}

/// Runs one query until it ends, times out, or has returned more than `cap` rows, reading
/// every value. Returns whether it timed out, and the rows read.
fn raw_execute_capped(
    conn: &Connection,
    sql: &str,
    timeout: Duration,
    cap: usize,
) -> (bool, usize) {
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

/// Which queries the raw baseline runs.
#[derive(Clone, Copy, PartialEq)]
enum RawRuns {
    /// Each item's gold once per database, and each pair's prediction once per database: what
    /// an evaluator without sharing runs (one thread).
    EveryPair,
    /// Each distinct query once per database (a prediction once per row cap): the least any
    /// evaluator must run, so the job's ratio against it measures the per-query hot path. Run
    /// on the work pool, as many threads as the evaluation, so that two heavy queries slowing
    /// each other on the two cores weigh on both sides alike.
    Distinct,
}

thread_local! {
    /// The raw baseline's connections on this thread (a baseline without a connection cache
    /// would measure opening files).
    static RAW_CONNECTIONS: std::cell::RefCell<Vec<(Database, Connection)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on this thread's raw connection to `db`, opening it on first use.
fn with_raw<T>(db: &Database, f: impl FnOnce(&Connection) -> T) -> anyhow::Result<T> {
    RAW_CONNECTIONS.with(|cell| {
        let mut connections = cell.borrow_mut();
        let at = match connections.iter().position(|(d, _)| d == db) {
            Some(at) => at,
            None => {
                connections.push((db.clone(), raw_open(db)?));
                connections.len() - 1
            }
        };
        Ok(f(&connections[at].1))
    })
}

/// Runs, raw, what the evaluation of `pairs` runs (no comparison, no cache): every pair's
/// queries on one thread, or each distinct query once on the work pool.
fn raw_baseline(
    eval: &Evaluation,
    options: &ExecOptions,
    pairs: &[(usize, usize)],
    runs: RawRuns,
) -> anyhow::Result<Raw> {
    let timeout = Duration::from_millis(options.limits.timeout_ms);
    let mut by_item: Vec<Vec<usize>> = vec![Vec::new(); eval.items().len()];
    for &(set, item) in pairs {
        by_item[item].push(set);
    }
    // Per (item, database): the gold as run, and the predictions as run.
    let mut jobs: Vec<(Database, String, Vec<String>)> = Vec::new();
    for (i, item) in eval.items().iter().enumerate() {
        let Ok(dbs) = &eval.dataset.databases[i] else {
            continue;
        };
        if by_item[i].is_empty() {
            continue;
        }
        for db in dbs {
            let predictions = by_item[i]
                .iter()
                .map(|&set| options.prediction_plan(eval.prediction(set, i)).sql)
                .collect();
            jobs.push((db.clone(), options.gold_plan(&item.gold).sql, predictions));
        }
    }
    RAW_CONNECTIONS.with(|c| c.borrow_mut().clear());
    let cpu = cpu_time();
    let raw = match runs {
        RawRuns::EveryPair => raw_every_pair(&jobs, timeout)?,
        RawRuns::Distinct => raw_distinct(&jobs, timeout)?,
    };
    Ok(Raw {
        cpu: cpu_time().saturating_sub(cpu),
        ..raw
    })
}

/// Each job's gold, then its predictions read one row past the gold's, on this thread.
fn raw_every_pair(
    jobs: &[(Database, String, Vec<String>)],
    timeout: Duration,
) -> anyhow::Result<Raw> {
    let bar = Progress::new(jobs.len() as u64, "raw sqlite, every pair");
    let mut raw = Raw {
        cpu: Duration::ZERO,
        queries: 0,
        timed_out: 0,
    };
    for (db, gold, predictions) in jobs {
        let (timed_out, rows) = with_raw(db, |c| raw_execute_capped(c, gold, timeout, usize::MAX))?;
        raw.timed_out += usize::from(timed_out);
        for p in predictions {
            let (timed_out, _) = with_raw(db, |c| raw_execute_capped(c, p, timeout, rows))?;
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
fn raw_distinct(
    jobs: &[(Database, String, Vec<String>)],
    timeout: Duration,
) -> anyhow::Result<Raw> {
    let golds: Vec<(&Database, &str, usize)> = jobs
        .iter()
        .map(|(db, gold, _)| (db, gold.as_str(), usize::MAX))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut raw = Raw {
        cpu: Duration::ZERO,
        queries: golds.len(),
        timed_out: 0,
    };
    let mut gold_rows: HashMap<(&Database, &str), usize> = HashMap::new();
    for (&(db, sql, _), (timed_out, rows)) in
        golds.iter().zip(raw_on_pool(&golds, timeout, "golds")?)
    {
        raw.timed_out += usize::from(timed_out);
        gold_rows.insert((db, sql), rows);
    }
    let predictions: Vec<(&Database, &str, usize)> = jobs
        .iter()
        .flat_map(|(db, gold, predictions)| {
            let rows = gold_rows[&(db, gold.as_str())];
            predictions.iter().map(move |p| (db, p.as_str(), rows))
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    raw.queries += predictions.len();
    for (timed_out, _) in raw_on_pool(&predictions, timeout, "predictions")? {
        raw.timed_out += usize::from(timed_out);
    }
    Ok(raw)
}

/// Runs each (database, query, row cap) raw on the work pool: whether each timed out, and the
/// rows it read.
fn raw_on_pool(
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
                let out = with_raw(db, |c| raw_execute_capped(c, sql, timeout, cap));
                bar.inc();
                out
            })
            .collect()
    });
    bar.finish();
    ran.into_iter().collect()
}

/// Rounds of the CPU comparisons; each ratio takes the least CPU of its side.
const ROUNDS: usize = 3;

/// Steps within which a query counts as light in the hot-path measurement.
const LIGHT_STEPS: u64 = 100_000;

/// Verdicts changed by the step budget, listed.
const SHOWN_CHANGES: usize = 20;

pub fn run(
    manifest: &Path,
    timeout_ms: Option<u64>,
    budget: RelativeBudget,
) -> anyhow::Result<ExitCode> {
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

    let all = bench_pass::all_pairs(&eval);
    let secs = |d: Duration| d.as_secs_f64();
    let threads = sqlsuite::work_pool::threads();

    // 1. As the manifest says: wall-clock limits only.
    let clock = Evaluation::with_metrics(loaded.clone(), with(exec.clone()))?;
    let before = bench_pass::run(&clock, &all, "exec, wall-clock limits");
    let code = |e: &Evaluation, (s, i): (usize, usize)| {
        e.judge(s, i).verdict("exec").map(|v| v.code.clone())
    };
    let judged = all
        .iter()
        .filter(|&&(s, i)| clock.judge(s, i).status() != Status::Skipped)
        .count();
    let timeouts = all
        .iter()
        .filter(|&&p| code(&clock, p).as_deref() == Some("timeout"))
        .count();
    println!(
        "exec, wall-clock limits only ({} ms per query), one pool: {}; {:.0} predictions/s \
         ({judged} judged, {timeouts} ran into the time limit)",
        exec.limits.timeout_ms,
        before.describe(),
        judged as f64 / secs(before.wall).max(1e-9)
    );

    // 2. The same with a gold-relative step budget: predictions that do far more work than
    // their gold stop at the budget instead of the clock.
    let budgeted = ExecOptions {
        gold_relative_budget: Some(budget),
        ..exec.clone()
    };
    let stepped = Evaluation::with_metrics(loaded.clone(), with(budgeted))?;
    let after = bench_pass::run(&stepped, &all, "exec, gold-relative step budget");
    let changed: Vec<_> = all
        .iter()
        .filter(|&&p| code(&clock, p) != code(&stepped, p))
        .collect();
    println!(
        "exec, step budget {} + {} × the gold's steps (wall-clock limit kept as a safety net): \
         {}; ratio of wall times {:.3} (before/after: {:.1}×)",
        budget.floor,
        budget.multiplier,
        after.describe(),
        secs(after.wall) / secs(before.wall).max(1e-9),
        secs(before.wall) / secs(after.wall).max(1e-9)
    );
    println!("  verdicts changed by the budget: {}", changed.len());
    let mut transitions: std::collections::BTreeMap<(String, String), usize> = Default::default();
    for &&p in &changed {
        let key = (
            code(&clock, p).unwrap_or_default(),
            code(&stepped, p).unwrap_or_default(),
        );
        *transitions.entry(key).or_default() += 1;
    }
    for ((from, to), n) in &transitions {
        println!("    {from} → {to}: {n}");
    }
    for &&(s, i) in changed.iter().take(SHOWN_CHANGES) {
        println!(
            "    {}::{}: {} → {}",
            eval.dataset.predictions[s].name,
            eval.items()[i].index,
            code(&clock, (s, i)).unwrap_or_default(),
            code(&stepped, (s, i)).unwrap_or_default()
        );
    }
    if changed.len() > SHOWN_CHANGES {
        println!("    … {} more", changed.len() - SHOWN_CHANGES);
    }

    // The light ones (gold and prediction each within LIGHT_STEPS): there the queries cost
    // least, so the work around them — text preprocessing, allocation, comparison — weighs most.
    let light: Vec<(usize, usize)> = all
        .iter()
        .copied()
        .filter(|&(s, i)| stepped.judge(s, i).status() != Status::Skipped)
        .filter(|&(s, i)| {
            let steps = stepped.judge(s, i).verdict("exec").and_then(|v| v.steps);
            steps.is_some_and(|st| {
                st.gold <= LIGHT_STEPS && st.prediction.is_some_and(|p| p <= LIGHT_STEPS)
            })
        })
        .collect();
    let (mut light_raw_cpu, mut light_cpu) = (Vec::new(), Vec::new());
    let mut light_queries = 0;
    for _ in 0..ROUNDS {
        let raw = raw_baseline(&eval, &exec, &light, RawRuns::Distinct)?;
        light_queries = raw.queries;
        light_raw_cpu.push(raw.cpu);
        let fresh = Evaluation::with_metrics(loaded.clone(), with(exec.clone()))?;
        light_cpu.push(bench_pass::run(&fresh, &light, "exec, light predictions").cpu);
    }
    let least = |v: &[Duration]| v.iter().min().copied().unwrap_or_default();
    let (light_raw_cpu, light_cpu) = (least(&light_raw_cpu), least(&light_cpu));
    println!(
        "the {} light predictions (gold and prediction within {LIGHT_STEPS} steps each under \
         the budget), least CPU of {ROUNDS} rounds: sqlsuite eval (cold caches) {:.3} s CPU \
         against raw SQLite, each distinct query once ({light_queries}, {threads} threads), {:.3} s; \
         ratio {:.3} (the per-query hot path)",
        light.len(),
        secs(light_cpu),
        secs(light_raw_cpu),
        secs(light_cpu) / secs(light_raw_cpu).max(1e-9)
    );

    // 3. On the predictions that finish within the limits: the whole job's CPU against raw
    // SQLite running the same queries, and a step budget that never fires against none.
    let finishing: Vec<(usize, usize)> = all
        .iter()
        .copied()
        .filter(|&p| !matches!(code(&clock, p).as_deref(), None | Some("timeout")))
        .filter(|&(s, i)| clock.judge(s, i).status() != Status::Skipped)
        .collect();
    let never = ExecOptions {
        gold_relative_budget: Some(RelativeBudget {
            floor: u64::MAX / 2,
            multiplier: 1,
        }),
        ..exec.clone()
    };
    let (mut raw_cpu, mut distinct_cpu) = (Vec::new(), Vec::new());
    let (mut clock_cpu, mut never_cpu) = (Vec::new(), Vec::new());
    let (mut raw_queries, mut distinct_queries) = (0, 0);
    for round in 1..=ROUNDS {
        let raw = raw_baseline(&eval, &exec, &finishing, RawRuns::EveryPair)?;
        let distinct = raw_baseline(&eval, &exec, &finishing, RawRuns::Distinct)?;
        (raw_queries, distinct_queries) = (raw.queries, distinct.queries);
        if raw.timed_out > 0 {
            println!("  (round {round}: {} raw queries timed out)", raw.timed_out);
        }
        raw_cpu.push(raw.cpu);
        distinct_cpu.push(distinct.cpu);
        let fresh = Evaluation::with_metrics(loaded.clone(), with(exec.clone()))?;
        clock_cpu.push(bench_pass::run(&fresh, &finishing, "exec, wall-clock limits").cpu);
        let fresh = Evaluation::with_metrics(loaded.clone(), with(never.clone()))?;
        never_cpu.push(bench_pass::run(&fresh, &finishing, "exec, step budget").cpu);
    }
    let (raw_cpu, distinct_cpu) = (least(&raw_cpu), least(&distinct_cpu));
    let (clock_cpu, never_cpu) = (least(&clock_cpu), least(&never_cpu));
    println!(
        "the {} predictions that finish within the limits, least CPU of {ROUNDS} rounds; \
         sqlsuite eval (cold caches): {:.2} s CPU",
        finishing.len(),
        secs(clock_cpu),
    );
    println!(
        "  against raw SQLite, every pair's queries ({raw_queries}, one thread): {:.2} s CPU; \
         ratio {:.3}",
        secs(raw_cpu),
        secs(clock_cpu) / secs(raw_cpu).max(1e-9)
    );
    println!(
        "  against raw SQLite, each distinct query once ({distinct_queries}, {threads} threads): \
         {:.2} s CPU; ratio {:.3}",
        secs(distinct_cpu),
        secs(clock_cpu) / secs(distinct_cpu).max(1e-9)
    );
    println!(
        "  step-budget overhead: with a budget that never fires {:.2} s CPU vs wall-clock limits \
         only {:.2} s; ratio {:.3}",
        secs(never_cpu),
        secs(clock_cpu),
        secs(never_cpu) / secs(clock_cpu).max(1e-9)
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
            .filter(|&(s, i)| plugged.judge(s, i).status() == Status::Correct)
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
    let pass = bench_pass::run(eval, &bench_pass::all_pairs(eval), label);
    (pass.wall, pass.worst)
}
