//! Greedy distillation of one schema's suite: start from the original database (when there is
//! one), then draw random databases and keep one iff it tells some gold from a neighbor that no
//! kept database tells apart yet. One suite serves every gold of the schema.
//!
//! "Tells apart" is the exec metric's own judgement of the neighbor as a prediction
//! ([`crate::metric::exec::Exec`]: the same query preparation, the same comparison, a failing
//! or too-long prediction is wrong), so a distinguished neighbor is judged wrong on the suite.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use super::neighbors::{neighbors, Neighbor};
use super::random_db::{self, Constants};
use super::schema::SuiteSchema;
use super::SuiteError;
use crate::backend::sqlite::{run_query, Sqlite};
use crate::backend::{Backend, Database, ExecError, Limits};
use crate::denotation::{compare, CompareOptions, ResultTable};
use crate::metric::exec::{Exec, ExecOptions};
use crate::sql_text::replace_cur_year;

/// How to distil.
#[derive(Debug, Clone)]
pub struct DistillOptions {
    pub seed: u64,
    /// At most this many random databases drawn per schema.
    pub max_databases: usize,
    /// Stop drawing for a schema after this long (makes the result depend on the machine).
    pub time_budget: Option<Duration>,
    /// Query preparation and comparison: the exec metric's options the suite will be used with.
    pub exec: ExecOptions,
    /// Per-query time limit while distilling.
    pub query_timeout: Duration,
}

impl Default for DistillOptions {
    fn default() -> Self {
        DistillOptions {
            seed: 0,
            max_databases: 1000,
            time_budget: None,
            exec: ExecOptions::default(),
            query_timeout: Duration::from_secs(2),
        }
    }
}

/// One gold of a schema.
#[derive(Debug, Clone)]
pub struct GoldInput {
    pub index: usize,
    pub gold: String,
}

/// A schema to distil: its description, its original database if any, and its golds.
#[derive(Debug, Clone)]
pub struct SchemaInput {
    pub schema: SuiteSchema,
    pub original: Option<PathBuf>,
    pub golds: Vec<GoldInput>,
}

/// A neighbor and the suite database that tells it from the gold, if any.
#[derive(Debug, Clone, Serialize)]
pub struct NeighborOutcome {
    #[serde(flatten)]
    pub neighbor: Neighbor,
    pub distinguished_by: Option<String>,
}

/// What distillation did for one gold.
#[derive(Debug, Clone, Serialize)]
pub struct GoldOutcome {
    pub index: usize,
    pub db_id: String,
    pub gold: String,
    /// Neighbors generated before validation.
    pub generated: usize,
    /// Neighbors dropped because they fail to run on the base database.
    pub failed: usize,
    /// The valid neighbors.
    pub neighbors: Vec<NeighborOutcome>,
    /// The gold itself failed on the base database (no neighbors then).
    pub gold_error: Option<String>,
}

/// What distillation did for one schema.
#[derive(Debug, Clone, Serialize)]
pub struct SchemaOutcome {
    pub db_id: String,
    pub has_original: bool,
    /// Random databases drawn.
    pub sampled: usize,
    /// Random databases rejected because some gold fails on them.
    pub rejected: usize,
    /// File names of the suite, in order.
    pub databases: Vec<String>,
    /// Bytes of the suite's files (the copied original included).
    pub bytes: u64,
    pub seconds: f64,
    pub golds: Vec<GoldOutcome>,
}

/// Seed of random database `k` of a schema: depends on the run's seed, the schema and `k`
/// only, so schemas can be distilled in any order or in parallel.
pub fn database_seed(seed: u64, db_id: &str, k: usize) -> u64 {
    let mut h = blake3::Hasher::new();
    h.update(&seed.to_le_bytes());
    h.update(db_id.as_bytes());
    h.update(&(k as u64).to_le_bytes());
    let b = h.finalize();
    let mut eight = [0u8; 8];
    eight.copy_from_slice(&b.as_bytes()[..8]);
    u64::from_le_bytes(eight)
}

/// A gold prepared for execution, with its neighbors prepared the way the metric prepares
/// predictions.
struct Prepared {
    gold: String,
    options: CompareOptions,
    neighbors: Vec<String>,
}

/// Where a query runs: the original file through the backend, or a generated database.
enum Target<'a> {
    File(&'a Database),
    Memory(&'a rusqlite::Connection),
}

impl Target<'_> {
    fn run(&self, sql: &str, limits: &Limits) -> Result<ResultTable, ExecError> {
        match self {
            Target::File(db) => Sqlite.execute(db, sql, limits),
            Target::Memory(conn) => run_query(conn, sql, limits),
        }
    }
}

/// Does `neighbor` differ from the gold's result on this database, as the metric judges it?
/// `None` when it cannot say (the neighbor timed out).
fn differs(
    target: &Target,
    gold: &ResultTable,
    neighbor: &str,
    options: CompareOptions,
    limits: &Limits,
) -> Result<bool, ExecError> {
    let cap = Limits {
        max_rows: gold.rows.len().min(limits.max_rows),
        ..*limits
    };
    match target.run(neighbor, &cap) {
        Ok(t) => Ok(compare(gold, &t, options).is_err()),
        Err(ExecError::TooManyRows { .. }) => Ok(true),
        Err(e) => Err(e),
    }
}

/// Distils one schema's suite into `dir` (`<db_id>_<k>.sqlite`; the original as `_0`).
pub fn distill_schema(
    input: &SchemaInput,
    dir: &Path,
    options: &DistillOptions,
) -> Result<SchemaOutcome, SuiteError> {
    let started = Instant::now();
    let db_id = input.schema.db_id.clone();
    let exec = Exec::new(options.exec.clone());
    let limits = Limits {
        timeout: options.query_timeout,
        ..Limits::default()
    };
    let tables = input.schema.table_columns();
    let not_null = input.schema.not_null();
    let constants =
        Constants::from_golds(input.golds.iter().map(|g| g.gold.as_str()), &input.schema);

    std::fs::create_dir_all(dir).map_err(|source| SuiteError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    clear_suite(dir, &db_id)?;

    let mut outcomes: Vec<GoldOutcome> = Vec::new();
    let mut prepared: Vec<Prepared> = Vec::new();
    for g in &input.golds {
        let gold_text = exec.prepare_gold(&g.gold);
        let mut rng =
            fastrand::Rng::with_seed(database_seed(options.seed, &db_id, usize::MAX - g.index));
        let ns = neighbors(&gold_text, &tables, &not_null, &mut rng);
        prepared.push(Prepared {
            gold: replace_cur_year(&gold_text),
            options: exec.compare_options(&gold_text),
            neighbors: ns
                .iter()
                .map(|n| replace_cur_year(&exec.prepare_prediction(&n.sql)))
                .collect(),
        });
        outcomes.push(GoldOutcome {
            index: g.index,
            db_id: db_id.clone(),
            gold: g.gold.clone(),
            generated: ns.len(),
            failed: 0,
            neighbors: ns
                .into_iter()
                .map(|neighbor| NeighborOutcome {
                    neighbor,
                    distinguished_by: None,
                })
                .collect(),
            gold_error: None,
        });
    }

    let mut databases = Vec::new();
    let mut sampled = 0usize;
    let mut rejected = 0usize;
    let mut next_k = 1usize;

    // The base database: the original, else the first random one every gold runs on.
    let base_name;
    let original_db = input.original.as_ref().map(Database::new);
    let base_conn;
    let base = match &original_db {
        Some(db) => {
            base_name = format!("{db_id}_0.sqlite");
            Target::File(db)
        }
        None => loop {
            if next_k > options.max_databases.max(1) * 2 {
                return Err(SuiteError::Generate {
                    db_id,
                    message: "no random database on which every gold runs".into(),
                });
            }
            let k = next_k;
            next_k += 1;
            sampled += 1;
            let seed = database_seed(options.seed, &db_id, k);
            let conn = random_db::in_memory(&input.schema, &constants, seed)?;
            let all_run = prepared
                .iter()
                .all(|p| run_query(&conn, &p.gold, &limits).is_ok());
            if all_run {
                base_name = format!("{db_id}_{k}.sqlite");
                base_conn = conn;
                break Target::Memory(&base_conn);
            }
            rejected += 1;
        },
    };

    // Validate neighbors on the base (in parallel over golds when it is a file) and mark those
    // it already tells apart.
    let validate = |p: &Prepared, o: &mut GoldOutcome, target: &Target| {
        let gold = match target.run(&p.gold, &limits) {
            Ok(t) => t,
            Err(e) => {
                o.gold_error = Some(e.to_string());
                o.failed = o.neighbors.len();
                o.neighbors.clear();
                return Vec::new();
            }
        };
        let mut keep = Vec::new();
        let mut kept_sql = Vec::new();
        for (n, sql) in o.neighbors.drain(..).zip(&p.neighbors) {
            match differs(target, &gold, sql, p.options, &limits) {
                Ok(d) => {
                    let mut n = n;
                    if d {
                        n.distinguished_by = Some(base_name.clone());
                    }
                    keep.push(n);
                    kept_sql.push(sql.clone());
                }
                Err(_) => o.failed += 1,
            }
        }
        o.neighbors = keep;
        kept_sql
    };
    let validated: Vec<Vec<String>> = match &base {
        Target::File(db) => {
            let db = *db;
            prepared
                .par_iter()
                .zip(outcomes.par_iter_mut())
                .map(|(p, o)| validate(p, o, &Target::File(db)))
                .collect()
        }
        Target::Memory(_) => prepared
            .iter()
            .zip(outcomes.iter_mut())
            .map(|(p, o)| validate(p, o, &base))
            .collect(),
    };
    for (p, v) in prepared.iter_mut().zip(validated) {
        p.neighbors = v;
    }
    match &input.original {
        Some(path) => {
            let to = dir.join(&base_name);
            std::fs::copy(path, &to).map_err(|source| SuiteError::Io { path: to, source })?;
        }
        None => {
            let k = next_k - 1;
            let seed = database_seed(options.seed, &db_id, k);
            random_db::write(&dir.join(&base_name), &input.schema, &constants, seed)?;
        }
    }
    databases.push(base_name);

    // Greedy: draw random databases while some neighbor is not told apart.
    let pending = |outcomes: &[GoldOutcome]| -> usize {
        outcomes
            .iter()
            .map(|o| {
                o.neighbors
                    .iter()
                    .filter(|n| n.distinguished_by.is_none())
                    .count()
            })
            .sum()
    };
    while pending(&outcomes) > 0
        && sampled < options.max_databases
        && options.time_budget.map_or(true, |b| started.elapsed() < b)
    {
        let k = next_k;
        next_k += 1;
        sampled += 1;
        let seed = database_seed(options.seed, &db_id, k);
        // Focus each database on one gold that still has neighbors to tell apart, in turn.
        let open_golds: Vec<usize> = (0..outcomes.len())
            .filter(|&g| {
                outcomes[g]
                    .neighbors
                    .iter()
                    .any(|n| n.distinguished_by.is_none())
            })
            .collect();
        let focus = open_golds[k % open_golds.len()];
        let constants = constants.focused_on(&input.golds[focus].gold, &input.schema);
        let conn = random_db::in_memory(&input.schema, &constants, seed)?;
        let target = Target::Memory(&conn);
        let mut found: Vec<(usize, usize)> = Vec::new();
        let mut usable = true;
        for (g, (p, o)) in prepared.iter().zip(&outcomes).enumerate() {
            if o.gold_error.is_some() {
                continue;
            }
            let open: Vec<usize> = (0..o.neighbors.len())
                .filter(|&n| o.neighbors[n].distinguished_by.is_none())
                .collect();
            let gold = match target.run(&p.gold, &limits) {
                Ok(t) => t,
                Err(_) => {
                    usable = false;
                    break;
                }
            };
            for n in open {
                if let Ok(true) | Err(ExecError::Sql(_)) =
                    differs(&target, &gold, &p.neighbors[n], p.options, &limits)
                {
                    found.push((g, n));
                }
            }
        }
        if !usable {
            rejected += 1;
            continue;
        }
        if found.is_empty() {
            continue;
        }
        let name = format!("{db_id}_{k}.sqlite");
        random_db::write(&dir.join(&name), &input.schema, &constants, seed)?;
        for (g, n) in found {
            outcomes[g].neighbors[n].distinguished_by = Some(name.clone());
        }
        databases.push(name);
    }

    let bytes = databases
        .iter()
        .filter_map(|n| std::fs::metadata(dir.join(n)).ok())
        .map(|m| m.len())
        .sum();
    Ok(SchemaOutcome {
        db_id,
        has_original: input.original.is_some(),
        sampled,
        rejected,
        databases,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
        golds: outcomes,
    })
}

/// Removes an earlier suite's files for `db_id` from `dir` (only `<db_id>_<k>.sqlite`).
fn clear_suite(dir: &Path, db_id: &str) -> Result<(), SuiteError> {
    let io = |source| SuiteError::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let is_ours = name
            .strip_prefix(db_id)
            .and_then(|r| r.strip_prefix('_'))
            .and_then(|r| r.strip_suffix(".sqlite"))
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
        if is_ours {
            std::fs::remove_file(&path).map_err(|source| SuiteError::Io { path, source })?;
        }
    }
    Ok(())
}

/// Distils several schemas in parallel (rayon), each into `out/<db_id>/`; `progress` is called
/// once per finished schema.
pub fn distill_all(
    inputs: &[SchemaInput],
    out: &Path,
    options: &DistillOptions,
    progress: &(dyn Fn(&SchemaOutcome) + Sync),
) -> Result<Vec<SchemaOutcome>, SuiteError> {
    // Largest schemas first, so the last to finish is a small one.
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(inputs[i].golds.len()));
    let mut results: Vec<(usize, SchemaOutcome)> = order
        .par_iter()
        .map(|&i| {
            let input = &inputs[i];
            let o = distill_schema(input, &out.join(&input.schema.db_id), options)?;
            progress(&o);
            Ok((i, o))
        })
        .collect::<Result<_, SuiteError>>()?;
    results.sort_by_key(|(i, _)| *i);
    Ok(results.into_iter().map(|(_, o)| o).collect())
}
