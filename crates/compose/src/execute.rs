//! Execution of composed SQL on its SQLite database, read-only and under a time limit: a
//! composed query that fails is not emitted.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use rayon::prelude::*;

use sqlsuite::backend::{sqlite, Limits};
use sqlsuite::work_pool;

/// Runs each `(db_id, sql)` of `jobs` on `databases/<db_id>/<db_id>.sqlite` (one connection
/// per database, databases in parallel, each distinct query once) and returns, in `jobs`'
/// order, `Ok` or the error. `progress` is called once per job.
pub fn run_all(
    jobs: &[(String, String)],
    databases: &Path,
    timeout: Duration,
    progress: &(dyn Fn() + Sync),
) -> Vec<Result<(), String>> {
    let mut by_db: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, (db, _)) in jobs.iter().enumerate() {
        by_db.entry(db.as_str()).or_default().push(i);
    }
    let limits = Limits {
        timeout,
        ..Limits::default()
    };
    let groups: Vec<(&str, Vec<usize>)> = by_db.into_iter().collect();
    // On the work pool, whose threads have the stack untrusted SQL needs.
    let done: Vec<Vec<(usize, Result<(), String>)>> = work_pool::run(|| {
        groups
            .par_iter()
            .map(|(db, indices)| {
                let path = databases.join(db).join(format!("{db}.sqlite"));
                let conn = sqlite::open(&path).map_err(|e| format!("{}: {e}", path.display()));
                let mut seen: BTreeMap<&str, Result<(), String>> = BTreeMap::new();
                indices
                    .iter()
                    .map(|&i| {
                        let sql = jobs[i].1.as_str();
                        let result = seen
                            .entry(sql)
                            .or_insert_with(|| match &conn {
                                Ok(c) => sqlite::run_query(c, sql, &limits)
                                    .map(|_| ())
                                    .map_err(|e| e.to_string()),
                                Err(e) => Err(e.clone()),
                            })
                            .clone();
                        progress();
                        (i, result)
                    })
                    .collect()
            })
            .collect()
    });
    let mut out: Vec<Result<(), String>> = vec![Ok(()); jobs.len()];
    for (i, r) in done.into_iter().flatten() {
        out[i] = r;
    }
    out
}
