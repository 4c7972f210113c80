//! Greedy distillation of one schema's suite: start from the original database (when there is
//! one), then draw random databases and keep one iff it tells some gold from a neighbor that no
//! kept database tells apart yet. One suite serves every gold of the schema.
//!
//! "Tells apart" is the exec metric's own judgement of the neighbor as a prediction
//! ([`sqlsuite::metric::exec_plan`]: the same query preparation, the same comparison, a failing
//! or too-long prediction is wrong), so a distinguished neighbor is judged wrong on the suite.
//!
//! Length: about 1,430 lines of code and 280 of comments, and 275 of unit tests for its parts
//! (the whole is tested by `tests/cli.rs` and `tests/test_suite.rs`: a suite needs databases on
//! disk). The phases of one schema's distillation (`Distillation`, one method each, called in
//! order by `distill_schema`), the examination of the golds on a drawn database (in parallel,
//! `examine_open`) and what a gold presupposes of a database (`Presupposition`) share the
//! prepared golds, their targets, the query targets and the limits, private to this module.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use super::canvas::{self, Canvas};
use super::constraints::Constraints;
use super::factor_or::factored;
use super::induce::unmatched_constants;
use super::neighbors::{neighbors, Neighbor};
use super::probes::{probes, Probe};
use super::random_db::{self, Constants};
use super::schema::{open_original, SuiteSchema};
use super::SuiteError;
use sqlsuite::backend::sqlite::{run_query, Sqlite};
use sqlsuite::backend::{Backend, Database, Limits, QueryError};
use sqlsuite::denotation::{equivalent, CompareOptions, ResultTable, TieGroups};
use sqlsuite::exec_plan::order::OrderPlan;
use sqlsuite::exec_plan::ties;
use sqlsuite::exec_plan::{ExecOptions, GoldPlan};
use sqlsuite::work_pool;

mod sweep;

/// How to distil.
#[derive(Debug, Clone)]
pub struct DistillOptions {
    /// The seed of every random choice (neighbors and databases).
    pub seed: u64,
    /// At most this many random databases drawn per schema.
    pub max_databases: usize,
    /// Stop drawing for a schema after this long (makes the result depend on the machine).
    pub time_budget: Option<Duration>,
    /// Query preparation and comparison (through [`ExecOptions::gold_plan`] and
    /// [`ExecOptions::prediction_plan`], the plans the metric runs): the exec metric's options
    /// the suite will be used with. Its limits are not used here: see `query_timeout`.
    pub exec: ExecOptions,
    /// Per-query time limit while distilling (`--timeout-ms`, default 2 s). Distillation runs
    /// every neighbor on every drawn database of tiny tables, so it bounds each query tighter
    /// than an evaluation's `timeout_ms` (a neighbor that times out tells nothing, see
    /// `differs`).
    pub query_timeout: Duration,
    /// Leave a random database out of the suite of each gold whose question has no natural
    /// answer on it (`Presupposition::fails`): a tie decides which rows a superlative
    /// returns, or a superlative or an aggregate ranges over nothing.
    pub reject_ambiguous: bool,
    /// Each drawn database holds witness rows for this many golds that still have neighbors
    /// to tell apart (the one it is focused on first, `--witnesses`): a schema with more
    /// golds than the budget has databases still gets a witnessed database for each.
    pub witnesses_per_database: usize,
    /// A neighbor or probe may do at most this many SQLite steps on a database, or ten times
    /// the gold's there if that is more, up to ten times this (`--max-steps`); past it, it
    /// tells nothing, as a timeout (deterministic, and far cheaper than waiting for
    /// `query_timeout` on a join that dropped its condition). A gold may do fifty times this
    /// on a drawn database, which is otherwise not used. `None`: only the time limit.
    pub max_steps: Option<u64>,
}

impl Default for DistillOptions {
    fn default() -> Self {
        DistillOptions {
            seed: 0,
            max_databases: 2000,
            time_budget: None,
            exec: ExecOptions::default(),
            query_timeout: Duration::from_secs(2),
            reject_ambiguous: true,
            witnesses_per_database: 8,
            max_steps: Some(DEFAULT_MAX_STEPS),
        }
    }
}

/// [`DistillOptions::max_steps`] by default: a millisecond or two of work here.
pub const DEFAULT_MAX_STEPS: u64 = 200_000;

/// How many rejected databases a schema's outcome explains.
pub const REJECTIONS_REPORTED: usize = 10;

/// The constraints a suite was generated within, written in the suite's directory.
pub const CONSTRAINTS_FILE: &str = "constraints.toml";

/// One gold of a schema: distinct from the schema's other golds.
#[derive(Debug, Clone)]
pub struct GoldInput {
    /// The first item with this gold.
    pub index: usize,
    /// The gold.
    pub gold: String,
    /// The later items with the same gold (their questions differ): one suite serves them all,
    /// so they are not distilled again.
    pub same_gold: Vec<usize>,
}

/// A schema to distil: its description (generating within `constraints`), its original
/// database if any, and its golds.
#[derive(Debug, Clone)]
pub struct SchemaInput {
    /// The schema, its column rules and references.
    pub schema: SuiteSchema,
    /// The original database, where there is one.
    pub original: Option<PathBuf>,
    /// Its distinct golds.
    pub golds: Vec<GoldInput>,
    /// The constraints `schema` generates within, as written next to the suite.
    pub constraints: Constraints,
}

/// A neighbor and the suite database that tells it from the gold, if any.
#[derive(Debug, Clone, Serialize)]
pub struct NeighborOutcome {
    #[serde(flatten)]
    /// The neighbor.
    pub neighbor: Neighbor,
    /// The suite database that tells it from the gold.
    pub distinguished_by: Option<String>,
}

/// A probe and the suite database on which the gold's result has the property, if any.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeOutcome {
    #[serde(flatten)]
    /// The probe.
    pub probe: Probe,
    /// The suite database on which it holds.
    pub satisfied_by: Option<String>,
}

/// What distillation did for one gold.
#[derive(Debug, Clone, Serialize)]
pub struct GoldOutcome {
    /// The gold's first item.
    pub index: usize,
    /// The later items with the same gold ([`GoldInput::same_gold`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub same_gold: Vec<usize>,
    /// Its schema.
    pub db_id: String,
    /// The gold.
    pub gold: String,
    /// Neighbors generated before validation.
    pub generated: usize,
    /// Neighbors dropped because they fail to run on the base database.
    pub failed: usize,
    /// The valid neighbors.
    pub neighbors: Vec<NeighborOutcome>,
    /// The probes that run on the base database, and the suite database satisfying each.
    pub probes: Vec<ProbeOutcome>,
    /// The gold itself failed on the base database (no neighbors then).
    pub gold_error: Option<String>,
    /// Suite databases on which the gold's question has no natural answer
    /// (`Presupposition::fails`): no part of its suite (listed in the suite's
    /// [`sqlsuite::dataset::SUITE_EXCLUSIONS`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ambiguous_on: Vec<String>,
    /// Suite databases on which the gold itself fails (too slow for the distillation's gold
    /// budget, as a top-level `OR` over a five-table join on witness rows): no part of its suite
    /// either (the reference skips a database where the gold fails; listed in the suite's
    /// [`sqlsuite::dataset::SUITE_EXCLUSIONS`]), with the first failure's reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fails_on: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The first of those failures.
    pub first_failure: Option<String>,
    /// Comparisons natural data never satisfies (`unmatched_constants`): the
    /// gold's neighbors are then told apart on databases that spell its constants as it does
    /// (`random_db::Constants::respelled`), part of no other gold's suite; it is reported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_constants: Vec<String>,
    /// Suite databases respelled for other golds' constants: no part of this gold's suite
    /// (listed in the suite's [`sqlsuite::dataset::SUITE_EXCLUSIONS`] too).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub respelled_on: Vec<String>,
}

/// What distillation did for one schema.
#[derive(Debug, Clone, Serialize)]
pub struct SchemaOutcome {
    /// The schema.
    pub db_id: String,
    /// Whether an original database was there.
    pub has_original: bool,
    /// Random databases drawn.
    pub sampled: usize,
    /// Random databases rejected as the base (the first random database must run every gold) …
    pub rejected: usize,
    /// … and why, for the first `REJECTIONS_REPORTED` of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejections: Vec<String>,
    /// (gold, database) pairs left out of the gold's suite: its question has no natural answer
    /// there.
    pub ambiguous: usize,
    /// Suite databases that spell a gold's constants as natural data never does, part only of
    /// the suites of the golds that compare with such constants.
    pub respelled: Vec<String>,
    /// Suite databases drawn for one gold alone (its witness alone, a few rows per table), as
    /// `(file name, the gold's item index)`.
    pub alone: Vec<(String, usize)>,
    /// Suite databases of the near-miss sweep (a gold's witness and one near miss, no other
    /// random rows), as `(file name, the gold's item index)`.
    pub swept: Vec<(String, usize)>,
    /// File names of the suite, in order.
    pub databases: Vec<String>,
    /// Bytes of the suite's files (the copied original included).
    pub bytes: u64,
    /// Wall time spent.
    pub seconds: f64,
    /// Per gold.
    pub golds: Vec<GoldOutcome>,
    /// The constraints the random databases were generated within.
    pub constraints: Constraints,
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

/// A gold prepared for execution and, per neighbor, the texts still to tell apart from it
/// ("targets"): the neighbor as the metric prepares a prediction and, under `plug_value`, every
/// text the metric would also try (the gold's values plugged into the neighbor's value slots).
/// A neighbor is distinguished when none is left.
struct Prepared {
    gold: String,
    /// The gold with its shared conjuncts taken out of its `OR`s (`factor_or.rs`), if it has
    /// any: where it runs in fewer steps than as written, so do the targets.
    factored_gold: Option<String>,
    options: CompareOptions,
    /// How its rows are ordered, for the tie-aware comparison ([`Answer`]).
    order: OrderPlan,
    /// What the gold's question presupposes of a database.
    presupposes: Presupposition,
    targets: Vec<Vec<Text>>,
    /// Per probe: still to satisfy.
    open_probes: Vec<bool>,
}

/// A gold that takes more than this many times the neighbors' step budget (`--max-steps`) to
/// find an empty answer, on a database that does not witness it, has its neighbors skipped
/// there (`spec/test_suite.md`, "Costly empty answers").
const COSTLY_EMPTY: u64 = 5;

/// The share of a time budget (`--time-budget`) the near-miss sweep has: the draws stop
/// before it (`spec/test_suite.md`, "The near-miss sweep").
const SWEEP_SHARE: f64 = 0.25;

/// At most this many `plug_value` candidates are tracked per neighbor.
const MAX_PLUG_CANDIDATES: usize = 64;

/// A text the metric would run, and, for a gold with shared conjuncts, the same rows with its
/// own taken out of its `OR`s (`factor_or.rs`).
#[derive(Clone)]
struct Text {
    sql: String,
    factored: Option<String>,
}

impl Text {
    /// The text to run: factored where the gold runs sooner so.
    fn run_as(&self, factored: bool) -> &str {
        match &self.factored {
            Some(f) if factored => f,
            _ => &self.sql,
        }
    }
}

impl Prepared {
    /// The steps of this gold's factored form on `target`, where it runs in fewer than
    /// `written`, the steps of its answer as written: there its targets run factored, their
    /// budget relative to these steps.
    fn factored_steps(&self, target: &Target, written: u64, limits: &Limits) -> Option<u64> {
        let f = self.factored_gold.as_ref()?;
        let cap = Limits {
            max_steps: Some(written),
            ..*limits
        };
        match target.run(f, &cap) {
            Ok(t) if t.steps < written => Some(t.steps),
            _ => None,
        }
    }
}

/// The gold's answer on one database, as a neighbor is compared with it there: ordered rows
/// tie-aware (`spec/exec.md` §4b), whatever the exec options say. A neighbor is told apart only
/// where no choice among the gold's tied rows gives its answer, so a suite serves the
/// tie-aware comparison and the official one alike (`spec/test_suite.md`, "Told apart
/// tie-aware").
struct Answer<'a> {
    rows: ResultTable,
    options: CompareOptions,
    order: &'a OrderPlan,
    target: &'a Target<'a>,
    limits: &'a Limits,
    /// Made only when a neighbor's rows differ from the gold's in the exact comparison: the
    /// key query is a run of the gold without its LIMIT.
    ties: OnceCell<Ties>,
}

/// What the gold's order leaves open on one database.
enum Ties {
    /// Nothing: the rows compare as the options say (unordered, or an order the key query
    /// cannot describe).
    Exact,
    /// The gold orders only inside a subquery: any order of its rows.
    AnyOrder,
    /// Its sort keys' tie groups: any order within one, any choice at the LIMIT.
    Groups(TieGroups),
}

impl<'a> Answer<'a> {
    /// The gold's answer `rows` on `target`, compared with `options` and ordered by `order`;
    /// what the tie-aware comparison needs there (the key query, run within `limits`) is found
    /// on first need.
    fn new(
        rows: ResultTable,
        options: CompareOptions,
        order: &'a OrderPlan,
        target: &'a Target<'a>,
        limits: &'a Limits,
    ) -> Answer<'a> {
        Answer {
            rows,
            options,
            order,
            target,
            limits,
            ties: OnceCell::new(),
        }
    }

    /// Would the metric accept `other` as this answer?
    fn accepts(&self, other: &ResultTable) -> bool {
        let options = self.options;
        if equivalent(&self.rows, other, options) {
            return true;
        }
        match self.ties.get_or_init(|| self.ties()) {
            Ties::Exact => false,
            Ties::AnyOrder => equivalent(
                &self.rows,
                other,
                CompareOptions {
                    order_matters: false,
                    ..options
                },
            ),
            Ties::Groups(groups) => groups.admits(&other.rows, options.float_tolerance),
        }
    }

    fn ties(&self) -> Ties {
        match self.order {
            _ if !self.options.order_matters => Ties::Exact,
            OrderPlan::Unordered => Ties::AnyOrder,
            OrderPlan::Unsupported(_) => Ties::Exact,
            OrderPlan::Keys(keys) => self
                .target
                .run(&keys.sql, self.limits)
                .ok()
                .and_then(|keyed| keys.tie_groups(&self.rows, &keyed).ok())
                .map_or(Ties::Exact, Ties::Groups),
        }
    }
}

/// The texts the exec metric would run for `neighbor` as a prediction: as written and, with
/// `plug_value` (and not for a constant edit, which plugging undoes), the plugged candidates;
/// where the gold has shared conjuncts (`factored`), each also with its own taken out.
fn targets(exec: &ExecOptions, gold: &GoldPlan, neighbor: &Neighbor, factor: bool) -> Vec<Text> {
    let plan = exec.prediction_plan(&neighbor.sql);
    let mut out = vec![plan.sql.clone()];
    if exec.plug_value && !neighbor.kind.is_value() {
        for c in plan.plugged(gold).candidates().take(MAX_PLUG_CANDIDATES) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out.into_iter()
        .map(|sql| Text {
            factored: factor.then(|| factored(&sql)).flatten(),
            sql,
        })
        .collect()
}

/// Where a query runs: the original file through the backend, or a generated database.
enum Target<'a> {
    File(&'a Database),
    Memory(&'a rusqlite::Connection),
}

impl Target<'_> {
    fn run(&self, sql: &str, limits: &Limits) -> Result<ResultTable, QueryError> {
        match self {
            Target::File(db) => Sqlite::default().execute(db, sql, limits),
            Target::Memory(conn) => run_query(conn, sql, limits),
        }
    }
}

/// Does `neighbor` differ from the gold's result on this database, as the metric judges it?
/// Its step budget is relative to `basis`, the steps of the gold's form the neighbor is run
/// in (as written, or factored). An error when it cannot say (the neighbor timed out).
fn differs(
    target: &Target,
    gold: &Answer,
    basis: u64,
    neighbor: &str,
    limits: &Limits,
) -> Result<bool, QueryError> {
    let cap = Limits {
        max_rows: gold.rows.rows.len().min(limits.max_rows),
        max_steps: limits
            .max_steps
            .map(|m| basis.saturating_mul(10).clamp(m, m.saturating_mul(10))),
        ..*limits
    };
    match target.run(neighbor, &cap) {
        Ok(t) => Ok(!gold.accepts(&t)),
        Err(QueryError::TooManyRows { .. }) => Ok(true),
        Err(e) => Err(e),
    }
}

/// Distils one schema's suite into `dir` (`<db_id>_<k>.sqlite`; the original as `_0`).
pub fn distill_schema(
    input: &SchemaInput,
    dir: &Path,
    options: &DistillOptions,
) -> Result<SchemaOutcome, SuiteError> {
    let mut d = Distillation::new(input, dir, options)?;
    let base = d.choose_base()?;
    d.validate_on_base(&base);
    d.write_base(&base)?;
    d.draw_databases()?;
    d.sweep_near_misses()?;
    d.write_exclusions()?;
    Ok(d.into_outcome())
}

/// One schema's distillation ([`distill_schema`]): the golds prepared with their neighbors and
/// probes, the suite kept so far, and the tallies its outcome reports. Its phases, in order:
/// [`Distillation::new`] (the suite's directory, the golds), [`Distillation::choose_base`],
/// [`Distillation::validate_on_base`], [`Distillation::write_base`],
/// [`Distillation::draw_databases`] (the greedy draws), [`Distillation::sweep_near_misses`],
/// [`Distillation::write_exclusions`], [`Distillation::into_outcome`].
struct Distillation<'a> {
    input: &'a SchemaInput,
    dir: &'a Path,
    options: &'a DistillOptions,
    db_id: String,
    started: Instant,
    /// Per query: the time limit only (the base) …
    limits: Limits,
    /// … neighbors' and probes' own step budget (see `differs`) …
    neighbor_limits: Limits,
    /// … and golds': fifty times the neighbors' on a drawn database (past it the database is
    /// not used).
    gold_limits: Limits,
    /// The golds' constants, before focusing on one.
    constants: Constants,
    /// Per gold, in the schema's order: prepared for execution, with its targets still open …
    prepared: Vec<Prepared>,
    /// … and what distillation did for it.
    outcomes: Vec<GoldOutcome>,
    /// File names of the suite, in order.
    databases: Vec<String>,
    /// The next random database's number (`<db_id>_<k>`).
    next_k: usize,
    /// Random databases drawn, and those rejected as the base (with why, the first few).
    sampled: usize,
    rejected: usize,
    rejections: Vec<String>,
    /// Kept databases drawn for one gold alone, and of the sweep, with the gold's item index.
    alone_kept: Vec<(String, usize)>,
    swept_kept: Vec<(String, usize)>,
    /// What keeping a database checks of the other golds, and the exclusions' tallies.
    keeping: Keeping,
    /// Per gold, the databases drawn for it alone; and the usual databases drawn.
    alone_drawn: Vec<usize>,
    usual_drawn: usize,
    yields: Yields,
    /// Per worker, the canvas each drawn database is filled in (the first also serves this
    /// thread between draws).
    canvases: Vec<Mutex<Option<Canvas>>>,
    /// With a time budget, its end (the sweep stops there) and when the draws stop: at
    /// `1 - SWEEP_SHARE` of it, the sweep has the rest.
    deadline: Option<Instant>,
    draws_until: Option<Instant>,
}

/// The database every gold's neighbors are validated on, first of the suite: the original,
/// else the first random database on which every gold runs.
enum Base {
    Original {
        name: String,
        db: Database,
    },
    /// Its seed: its twin (the same rows in reverse order) tells whether a gold's question
    /// has a natural answer on it.
    Random {
        name: String,
        conn: rusqlite::Connection,
        seed: u64,
    },
}

impl Base {
    /// Its file name in the suite.
    fn name(&self) -> &str {
        match self {
            Base::Original { name, .. } | Base::Random { name, .. } => name,
        }
    }

    fn target(&self) -> Target<'_> {
        match self {
            Base::Original { db, .. } => Target::File(db),
            Base::Random { conn, .. } => Target::Memory(conn),
        }
    }

    /// A random base's seed.
    fn seed(&self) -> Option<u64> {
        match self {
            Base::Original { .. } => None,
            Base::Random { seed, .. } => Some(*seed),
        }
    }
}

/// One drawn database ([`Distillation::next_draw`]): its number and seed, the gold it is
/// drawn for alone or focused on, the other golds it witnesses, and its constants.
struct Draw {
    k: usize,
    seed: u64,
    /// Drawn for this gold alone ([`Constants::alone`]) …
    alone: Option<usize>,
    /// … or focused on this one, witnessing `others` too.
    focus: usize,
    others: Vec<usize>,
    /// Respelled for a gold natural data never matches ([`Constants::respelled`]).
    respell: bool,
    constants: Constants,
}

/// What a drawn database tells of the open golds, gathered from their [`Examined`].
#[derive(Default)]
struct Told {
    /// Golds whose question has no natural answer here.
    excluded: Vec<usize>,
    /// (gold, neighbor, target) told apart by this database …
    found: Vec<(usize, usize, usize)>,
    /// … and (gold, probe) satisfied.
    satisfied: Vec<(usize, usize)>,
    /// Golds that fail here (with why): this database is no part of their suites.
    failing: Vec<(usize, QueryError)>,
}

impl Told {
    fn gather(open: &[usize], examined: Vec<Examined>) -> Told {
        let mut told = Told::default();
        for (&g, e) in open.iter().zip(examined) {
            if let Some(error) = e.failure {
                told.failing.push((g, error));
            } else if e.ambiguous {
                told.excluded.push(g);
            }
            told.found
                .extend(e.found.into_iter().map(|(n, t)| (g, n, t)));
            told.satisfied
                .extend(e.satisfied.into_iter().map(|i| (g, i)));
        }
        told
    }
}

impl<'a> Distillation<'a> {
    /// Prepares the suite's directory (an earlier suite's files removed, the constraints
    /// written) and the golds: their neighbors and probes, and the comparisons natural data
    /// never satisfies.
    fn new(
        input: &'a SchemaInput,
        dir: &'a Path,
        options: &'a DistillOptions,
    ) -> Result<Distillation<'a>, SuiteError> {
        let started = Instant::now();
        let db_id = input.schema.db_id.clone();
        let limits = Limits {
            timeout: options.query_timeout,
            ..Limits::default()
        };
        let neighbor_limits = Limits {
            max_steps: options.max_steps,
            ..limits
        };
        let gold_limits = Limits {
            max_steps: options.max_steps.map(|m| m.saturating_mul(50)),
            ..limits
        };
        let constants =
            Constants::from_golds(input.golds.iter().map(|g| g.gold.as_str()), &input.schema);
        prepare_directory(input, dir)?;
        let (prepared, mut outcomes) = prepare_golds(input, options, &constants);
        if let Some(path) = &input.original {
            let conn = open_original(path).map_err(|e| SuiteError::Database {
                path: path.clone(),
                message: e.to_string(),
            })?;
            for o in &mut outcomes {
                o.unmatched_constants = unmatched_constants(&conn, &input.schema, &o.gold);
            }
        }
        // Golds natural data never matches are pursued on databases respelled for them.
        let natural: Vec<bool> = outcomes
            .iter()
            .map(|o| o.unmatched_constants.is_empty())
            .collect();
        Ok(Distillation {
            input,
            dir,
            options,
            db_id,
            started,
            limits,
            neighbor_limits,
            gold_limits,
            constants,
            alone_drawn: vec![0; prepared.len()],
            prepared,
            outcomes,
            databases: Vec::new(),
            next_k: 1,
            sampled: 0,
            rejected: 0,
            rejections: Vec::new(),
            alone_kept: Vec::new(),
            swept_kept: Vec::new(),
            keeping: Keeping {
                gold_limits,
                reject_ambiguous: options.reject_ambiguous,
                natural,
                ambiguous: 0,
                respelled: Vec::new(),
            },
            usual_drawn: 0,
            yields: Yields::default(),
            canvases: (0..work_pool::threads().max(1))
                .map(|_| Mutex::new(None))
                .collect(),
            deadline: options.time_budget.map(|b| started + b),
            draws_until: options
                .time_budget
                .map(|b| started + b.mul_f64(1.0 - SWEEP_SHARE)),
        })
    }

    /// The base: the original, else the first random database every gold runs on (those on
    /// which one fails are rejected, the first few with why).
    fn choose_base(&mut self) -> Result<Base, SuiteError> {
        let db_id = &self.db_id;
        if let Some(path) = &self.input.original {
            return Ok(Base::Original {
                name: format!("{db_id}_0.sqlite"),
                db: Database::file(path),
            });
        }
        loop {
            if self.next_k > self.options.max_databases.max(1) * 2 {
                return Err(SuiteError::Generate {
                    db_id: db_id.clone(),
                    message: "no random database on which every gold runs".into(),
                });
            }
            let k = self.next_k;
            self.next_k += 1;
            self.sampled += 1;
            let seed = database_seed(self.options.seed, db_id, k);
            let conn = random_db::in_memory(&self.input.schema, &self.constants, seed)?;
            let failure = self
                .prepared
                .iter()
                .zip(&self.input.golds)
                .find_map(|(p, g)| {
                    run_query(&conn, &p.gold, &self.gold_limits)
                        .err()
                        .map(|e| (g.index, e))
                });
            let Some((index, e)) = failure else {
                return Ok(Base::Random {
                    name: format!("{db_id}_{k}.sqlite"),
                    conn,
                    seed,
                });
            };
            self.rejected += 1;
            if self.rejections.len() < REJECTIONS_REPORTED {
                self.rejections.push(format!(
                    "{db_id}_{k} (as the base): the gold of item {index} fails: {e}"
                ));
            }
        }
    }

    /// Validates every gold's neighbors on the base ([`BaseCheck::validate`]), in parallel
    /// over golds when it is a file.
    fn validate_on_base(&mut self, base: &Base) {
        let check = BaseCheck {
            name: base.name(),
            schema: &self.input.schema,
            constants: &self.constants,
            seed: base.seed(),
            limits: &self.limits,
            neighbor_limits: &self.neighbor_limits,
            gold_limits: &self.gold_limits,
            reject_ambiguous: self.options.reject_ambiguous,
        };
        let (prepared, outcomes) = (&mut self.prepared, &mut self.outcomes);
        match base {
            Base::Original { db, .. } => work_pool::run(|| {
                prepared
                    .par_iter_mut()
                    .zip(outcomes.par_iter_mut())
                    .for_each(|(p, o)| check.validate(p, o, &Target::File(db)))
            }),
            Base::Random { .. } => {
                let target = base.target();
                prepared
                    .iter_mut()
                    .zip(outcomes.iter_mut())
                    .for_each(|(p, o)| check.validate(p, o, &target))
            }
        }
    }

    /// Writes the base as the suite's first database: the original copied (a `.sql` script
    /// made a database file), or the random base written.
    fn write_base(&mut self, base: &Base) -> Result<(), SuiteError> {
        let to = self.dir.join(base.name());
        match &self.input.original {
            Some(path) if path.extension().is_some_and(|e| e == "sql") => {
                let err = |e: rusqlite::Error| SuiteError::Database {
                    path: path.clone(),
                    message: e.to_string(),
                };
                let conn = open_original(path).map_err(err)?;
                conn.execute("VACUUM INTO ?1", [to.to_string_lossy().as_ref()])
                    .map_err(err)?;
            }
            Some(path) => {
                std::fs::copy(path, &to).map_err(|error| SuiteError::Io { path: to, error })?;
            }
            None => {
                let k = self.next_k - 1;
                let seed = database_seed(self.options.seed, &self.db_id, k);
                random_db::write(&to, &self.input.schema, &self.constants, seed)?;
            }
        }
        self.databases.push(base.name().to_owned());
        Ok(())
    }

    /// Greedy: draws random databases while some target is not told apart (or, for the first
    /// quarter of the budget, some probe is not satisfied); keeps a database iff it tells
    /// apart a target, or satisfies a probe, that no kept database does.
    fn draw_databases(&mut self) -> Result<(), SuiteError> {
        let probe_budget = self.options.max_databases / 4;
        loop {
            let probing = self.sampled < probe_budget;
            let open = self.open_golds(probing);
            if open.is_empty()
                || self.sampled >= self.options.max_databases
                || self.draws_until.is_some_and(|d| Instant::now() >= d)
            {
                return Ok(());
            }
            let draw = self.next_draw(&open);
            let examined = self.examine_draw(&draw, &open, probing)?;
            self.keep_if_it_tells(&draw, &open, examined)?;
        }
    }

    /// The golds with a target still open (or, `probing`, a probe still to satisfy).
    fn open_golds(&self, probing: bool) -> Vec<usize> {
        let prepared = &self.prepared;
        (0..prepared.len())
            .filter(|&g| {
                prepared[g].targets.iter().any(|t| !t.is_empty())
                    || (probing && prepared[g].open_probes.contains(&true))
            })
            .collect()
    }

    /// The next database to draw. It is drawn either for one open gold alone (a few rows,
    /// its witness only: [`Constants::alone`]) or as a usual one, focused on the open golds
    /// in turn and witnessing others. One in four is each; the other half goes to the kind
    /// that has told more targets apart per database lately ([`Yields`]).
    fn next_draw(&mut self, open: &[usize]) -> Draw {
        let k = self.next_k;
        self.next_k += 1;
        self.sampled += 1;
        let seed = database_seed(self.options.seed, &self.db_id, k);
        let alone_turn = match k % 4 {
            0 => false,
            2 => true,
            _ => self.yields.favours_alone(),
        };
        let alone = alone_turn.then(|| self.most_open_alone(open)).flatten();
        let turn = self.usual_drawn;
        if alone.is_none() {
            self.usual_drawn += 1;
        }
        let focus = alone.unwrap_or(open[turn % open.len()]);
        if let Some(g) = alone {
            self.alone_drawn[g] += 1;
        }
        let others = match alone {
            None => self.witnessed_others(open, turn, focus),
            Some(_) => Vec::new(),
        };
        let schema = &self.input.schema;
        let constants = self
            .constants
            .focused_on(&self.input.golds[focus].gold, schema)
            .witnessing(
                others.iter().map(|&g| self.input.golds[g].gold.as_str()),
                schema,
            );
        // A database for a gold natural data never matches spells its constants as it does,
        // and serves only such golds.
        let respell = !self.keeping.natural[focus];
        let constants = if respell {
            constants.respelled()
        } else {
            constants
        };
        let constants = if alone.is_some() {
            constants.alone()
        } else {
            constants
        };
        // The base and the first database kept stay as they were drawn before wider values and
        // the witnesses' later draws (`Constants::later`).
        let constants = if self.databases.len() >= 2 {
            constants.later()
        } else {
            constants
        };
        Draw {
            k,
            seed,
            alone,
            focus,
            others,
            respell,
            constants,
        }
    }

    /// The open gold with the most neighbors still open per database of its own so far.
    fn most_open_alone(&self, open: &[usize]) -> Option<usize> {
        open.iter().copied().max_by(|&a, &b| {
            let weight = |g: usize| {
                let left = self.prepared[g]
                    .targets
                    .iter()
                    .filter(|t| !t.is_empty())
                    .count();
                left as f64 / (1 + self.alone_drawn[g]) as f64
            };
            weight(a).total_cmp(&weight(b)).then(b.cmp(&a))
        })
    }

    /// The other golds a usual database witnesses: spread over the open ones, and natural
    /// like the focus.
    fn witnessed_others(&self, open: &[usize], turn: usize, focus: usize) -> Vec<usize> {
        let per_database = self.options.witnesses_per_database;
        let natural = &self.keeping.natural;
        let stride = (open.len() / per_database.max(1)).max(1);
        let mut others: Vec<usize> = Vec::new();
        for j in 1..open.len() {
            let g = open[(turn + j * stride) % open.len()];
            if others.len() + 1 >= per_database {
                break;
            }
            if g != focus && natural[g] == natural[focus] && !others.contains(&g) {
                others.push(g);
            }
        }
        others
    }

    /// Examines every open gold on the drawn database, in parallel (a database respelled for
    /// other golds only runs a natural gold, for its exclusions).
    fn examine_draw(
        &self,
        draw: &Draw,
        open: &[usize],
        probing: bool,
    ) -> Result<Vec<Examined>, SuiteError> {
        let how = Examination {
            gold_limits: &self.gold_limits,
            neighbor_limits: &self.neighbor_limits,
            reject_ambiguous: self.options.reject_ambiguous,
            probing,
            deadline: self.draws_until,
        };
        let natural = &self.keeping.natural;
        examine_open(
            open,
            &self.canvases,
            &self.input.schema,
            &draw.constants,
            draw.seed,
            |g, target, twin| {
                let role = if draw.respell && natural[g] {
                    Role::AnswerOnly
                } else if g == draw.focus || draw.others.contains(&g) {
                    Role::Witnessed
                } else {
                    Role::Unwitnessed
                };
                let (p, probes) = (&self.prepared[g], &self.outcomes[g].probes);
                examine(p, probes, target, twin, &how, role)
            },
        )
    }

    /// Keeps the drawn database if it tells a target apart or satisfies a probe. A kept
    /// database must run every gold (a gold never fails on its own suite), and is no part of
    /// the suite of a gold whose question has no natural answer on it.
    fn keep_if_it_tells(
        &mut self,
        draw: &Draw,
        open: &[usize],
        examined: Vec<Examined>,
    ) -> Result<(), SuiteError> {
        let schema = &self.input.schema;
        let name = format!("{}_{}.sqlite", self.db_id, draw.k);
        let told = {
            let mut first_canvas = self.canvases[0].lock().unwrap_or_else(|e| e.into_inner());
            let conn = canvas::held(&mut first_canvas, schema, &draw.constants, draw.seed)?;
            let target = Target::Memory(conn);
            let mut twin = Twin {
                schema,
                constants: &draw.constants,
                seed: draw.seed,
                conn: None,
            };
            let mut told = Told::gather(open, examined);
            self.yields.record(draw.alone.is_some(), told.found.len());
            if told.found.is_empty() && told.satisfied.is_empty() {
                return Ok(());
            }
            let others = (0..self.prepared.len()).filter(|g| !open.contains(g));
            let (more_failing, more_excluded) = self.keeping.others_on(
                &self.prepared,
                &self.outcomes,
                others,
                &target,
                &mut twin,
                draw.respell,
            )?;
            told.failing.extend(more_failing);
            told.excluded.extend(more_excluded);
            told
        };
        let Told {
            excluded,
            mut found,
            satisfied,
            failing,
        } = told;
        self.keeping
            .record(&name, &mut self.outcomes, failing, &excluded, draw.respell);
        random_db::write(&self.dir.join(&name), schema, &draw.constants, draw.seed)?;
        if let Some(g) = draw.alone {
            self.alone_kept.push((name.clone(), self.outcomes[g].index));
        }
        // Close targets from the back so indices stay valid.
        found.sort_unstable();
        for &(g, n, t) in found.iter().rev() {
            self.prepared[g].targets[n].remove(t);
            if self.prepared[g].targets[n].is_empty() {
                self.outcomes[g].neighbors[n].distinguished_by = Some(name.clone());
            }
        }
        for &(g, i) in &satisfied {
            self.prepared[g].open_probes[i] = false;
            self.outcomes[g].probes[i].satisfied_by = Some(name.clone());
        }
        self.databases.push(name);
        Ok(())
    }

    /// The near-miss sweep: databases of a gold's own, its witness and one near miss each
    /// ([`sweep::sweep`]), kept as the draws' are.
    fn sweep_near_misses(&mut self) -> Result<(), SuiteError> {
        let swept_how = Examination {
            gold_limits: &self.gold_limits,
            neighbor_limits: &self.neighbor_limits,
            reject_ambiguous: self.options.reject_ambiguous,
            probing: false,
            deadline: self.deadline,
        };
        let sweep_input = sweep::SweepInput {
            schema: &self.input.schema,
            constants: &self.constants,
            golds: self
                .input
                .golds
                .iter()
                .zip(&self.keeping.natural)
                .map(|(g, &n)| (g.gold.as_str(), n))
                .collect(),
            how: &swept_how,
            seed: self.options.seed,
            db_id: &self.db_id,
        };
        let swept = sweep::sweep(&sweep_input, &mut self.prepared, &self.outcomes)?;
        for s in swept {
            self.keep_swept(s)?;
        }
        Ok(())
    }

    /// Keeps a database of the sweep, checking the other golds on it as a drawn one.
    fn keep_swept(&mut self, s: sweep::Swept) -> Result<(), SuiteError> {
        let schema = &self.input.schema;
        let k = self.next_k;
        self.next_k += 1;
        let name = format!("{}_{k}.sqlite", self.db_id);
        let conn = random_db::in_memory(schema, &s.constants, s.seed)?;
        let target = Target::Memory(&conn);
        let mut twin = Twin {
            schema,
            constants: &s.constants,
            seed: s.seed,
            conn: None,
        };
        let respell = !self.keeping.natural[s.gold];
        let others = (0..self.prepared.len()).filter(|&g| g != s.gold);
        let (failing, excluded) = self.keeping.others_on(
            &self.prepared,
            &self.outcomes,
            others,
            &target,
            &mut twin,
            respell,
        )?;
        self.keeping
            .record(&name, &mut self.outcomes, failing, &excluded, respell);
        random_db::write(&self.dir.join(&name), schema, &s.constants, s.seed)?;
        self.swept_kept
            .push((name.clone(), self.outcomes[s.gold].index));
        for &n in &s.closed {
            self.outcomes[s.gold].neighbors[n].distinguished_by = Some(name.clone());
        }
        self.databases.push(name);
        Ok(())
    }

    /// Writes, per gold (its text as in the gold file), the databases that are no part of its
    /// suite ([`sqlsuite::dataset::SUITE_EXCLUSIONS`]).
    fn write_exclusions(&self) -> Result<(), SuiteError> {
        let mut exclusions = sqlsuite::dataset::Exclusions::new();
        for (g, o) in self.input.golds.iter().zip(&self.outcomes) {
            // A database is named once.
            if !o.ambiguous_on.is_empty() || !o.respelled_on.is_empty() || !o.fails_on.is_empty() {
                let e = exclusions.entry(g.gold.clone()).or_default();
                for name in o
                    .ambiguous_on
                    .iter()
                    .chain(&o.respelled_on)
                    .chain(&o.fails_on)
                {
                    if !e.contains(name) {
                        e.push(name.clone());
                    }
                }
            }
        }
        let exclusions_path = self.dir.join(sqlsuite::dataset::SUITE_EXCLUSIONS);
        let json = serde_json::to_string_pretty(&exclusions).map_err(|e| SuiteError::Generate {
            db_id: self.db_id.clone(),
            message: e.to_string(),
        })?;
        std::fs::write(&exclusions_path, json).map_err(|error| SuiteError::Io {
            path: exclusions_path,
            error,
        })
    }

    /// What distillation did for the schema.
    fn into_outcome(self) -> SchemaOutcome {
        let bytes = self
            .databases
            .iter()
            .filter_map(|n| std::fs::metadata(self.dir.join(n)).ok())
            .map(|m| m.len())
            .sum();
        SchemaOutcome {
            db_id: self.db_id,
            has_original: self.input.original.is_some(),
            sampled: self.sampled,
            rejected: self.rejected,
            rejections: self.rejections,
            ambiguous: self.keeping.ambiguous,
            respelled: self.keeping.respelled,
            alone: self.alone_kept,
            swept: self.swept_kept,
            databases: self.databases,
            bytes,
            seconds: self.started.elapsed().as_secs_f64(),
            golds: self.outcomes,
            constraints: self.input.constraints.clone(),
        }
    }
}

/// Makes the suite's directory `dir`, removes an earlier suite's files for the schema there and
/// writes the constraints its random databases are generated within.
fn prepare_directory(input: &SchemaInput, dir: &Path) -> Result<(), SuiteError> {
    let db_id = &input.schema.db_id;
    std::fs::create_dir_all(dir).map_err(|error| SuiteError::Io {
        path: dir.to_path_buf(),
        error,
    })?;
    clear_suite(dir, db_id)?;
    let constraints_path = dir.join(CONSTRAINTS_FILE);
    std::fs::write(&constraints_path, input.constraints.to_file_text(db_id)).map_err(|error| {
        SuiteError::Io {
            path: constraints_path,
            error,
        }
    })
}

/// Every gold of the schema prepared for execution, with its neighbors (drawn from a generator
/// of its own) and probes, and its outcome so far.
fn prepare_golds(
    input: &SchemaInput,
    options: &DistillOptions,
    constants: &Constants,
) -> (Vec<Prepared>, Vec<GoldOutcome>) {
    let db_id = &input.schema.db_id;
    let exec = &options.exec;
    let tables = input.schema.table_columns();
    let mut facts = input.schema.column_facts();
    facts.text_bounds = constants.text_bounds(&input.schema);
    facts.gold_texts = constants.admitted_texts(&input.schema);
    let mut outcomes: Vec<GoldOutcome> = Vec::new();
    let mut prepared: Vec<Prepared> = Vec::new();
    for g in &input.golds {
        let gold = exec.gold_plan(&g.gold);
        let mut rng =
            fastrand::Rng::with_seed(database_seed(options.seed, db_id, usize::MAX - g.index));
        let ns = neighbors(&gold.text, &tables, &facts, &mut rng);
        let ps: Vec<ProbeOutcome> = probes(&gold.sql, &tables, &facts, input.schema.profiled)
            .into_iter()
            .map(|probe| ProbeOutcome {
                probe,
                satisfied_by: None,
            })
            .collect();
        let factored_gold = factored(&gold.sql);
        prepared.push(Prepared {
            presupposes: Presupposition::of(&gold.sql),
            targets: ns
                .iter()
                .map(|n| targets(exec, &gold, n, factored_gold.is_some()))
                .collect(),
            factored_gold,
            options: gold.compare,
            order: gold.order_plan(),
            gold: gold.sql,
            open_probes: vec![true; ps.len()],
        });
        outcomes.push(GoldOutcome {
            index: g.index,
            same_gold: g.same_gold.clone(),
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
            probes: ps,
            gold_error: None,
            ambiguous_on: Vec::new(),
            fails_on: Vec::new(),
            first_failure: None,
            unmatched_constants: Vec::new(),
            respelled_on: Vec::new(),
        });
    }
    (prepared, outcomes)
}

/// What validating the golds' neighbors on the base needs ([`Distillation::validate_on_base`]).
struct BaseCheck<'b> {
    /// The base's file name, which tells apart the neighbors it distinguishes.
    name: &'b str,
    schema: &'b SuiteSchema,
    constants: &'b Constants,
    /// A random base's seed, for its twin.
    seed: Option<u64>,
    limits: &'b Limits,
    neighbor_limits: &'b Limits,
    gold_limits: &'b Limits,
    reject_ambiguous: bool,
}

impl BaseCheck<'_> {
    /// Validates one gold's neighbors on the base `target`: a neighbor that fails there is
    /// dropped; the targets the base tells apart are closed — unless the gold's question has
    /// no natural answer on a random base (a tie decides a superlative): then the base tells
    /// none of its neighbors apart. It stays in the gold's suite (the one database every gold
    /// is sure to run on: a gold that fails everywhere else would be left with none). A gold
    /// that fails on the base has no neighbors or probes.
    fn validate(&self, p: &mut Prepared, o: &mut GoldOutcome, target: &Target) {
        let gold = match target.run(&p.gold, self.limits) {
            Ok(t) => t,
            Err(e) => {
                o.gold_error = Some(e.to_string());
                o.failed = o.neighbors.len();
                o.neighbors.clear();
                o.probes.clear();
                p.targets.clear();
                p.open_probes.clear();
                return;
            }
        };
        let ambiguous = self.reject_ambiguous
            && self.seed.is_some_and(|seed| {
                let mut twin = Twin {
                    schema: self.schema,
                    constants: self.constants,
                    seed,
                    conn: None,
                };
                // A twin that cannot be drawn leaves the question open: not told apart here.
                p.presupposes
                    .fails(
                        &p.gold,
                        &gold,
                        p.options,
                        target,
                        &mut twin,
                        self.gold_limits,
                    )
                    .unwrap_or(true)
            });
        let gold = Answer::new(gold, p.options, &p.order, target, self.limits);
        self.check_probes(&mut p.open_probes, o, target, &gold, ambiguous);
        let factored_steps = p.factored_steps(target, gold.rows.steps, self.limits);
        self.check_neighbors(&mut p.targets, factored_steps, o, target, &gold, ambiguous);
    }

    /// A probe that does not run on the base is dropped; one the base satisfies is closed.
    fn check_probes(
        &self,
        open_probes: &mut Vec<bool>,
        o: &mut GoldOutcome,
        target: &Target,
        gold: &Answer,
        ambiguous: bool,
    ) {
        let mut kept_probes = Vec::new();
        for mut probe in o.probes.drain(..) {
            if let Ok(satisfied) = differs(
                target,
                gold,
                gold.rows.steps,
                &probe.probe.sql,
                self.neighbor_limits,
            ) {
                if satisfied && !ambiguous {
                    probe.satisfied_by = Some(self.name.to_owned());
                }
                kept_probes.push(probe);
            }
        }
        *open_probes = kept_probes
            .iter()
            .map(|x| x.satisfied_by.is_none())
            .collect();
        o.probes = kept_probes;
    }

    /// A neighbor that fails on the base (as written) is dropped; of the others, the targets
    /// the base tells apart are closed (none where it is `ambiguous`), and a neighbor with none
    /// left is distinguished by the base. Where the gold's factored form runs in fewer steps
    /// (`factored_steps`), its targets run factored too ([`Prepared::factored_steps`]).
    fn check_neighbors(
        &self,
        targets: &mut Vec<Vec<Text>>,
        factored_steps: Option<u64>,
        o: &mut GoldOutcome,
        target: &Target,
        gold: &Answer,
        ambiguous: bool,
    ) {
        let factor = factored_steps.is_some();
        let basis = factored_steps.unwrap_or(gold.rows.steps);
        let differs_here = |sql: &str| differs(target, gold, basis, sql, self.neighbor_limits);
        let mut keep = Vec::new();
        let mut kept_targets = Vec::new();
        for (n, mut ts) in o.neighbors.drain(..).zip(targets.drain(..)) {
            let as_written = match differs_here(ts[0].run_as(factor)) {
                Ok(d) => d,
                Err(_) => {
                    o.failed += 1;
                    continue;
                }
            };
            let open = if ambiguous {
                ts
            } else {
                let mut open = Vec::with_capacity(ts.len());
                if !as_written {
                    open.push(ts[0].clone());
                }
                for t in ts.drain(..).skip(1) {
                    if let Ok(false) | Err(QueryError::Timeout { .. }) =
                        differs_here(t.run_as(factor))
                    {
                        open.push(t);
                    }
                }
                open
            };
            let mut n = n;
            if open.is_empty() {
                n.distinguished_by = Some(self.name.to_owned());
            }
            keep.push(n);
            kept_targets.push(open);
        }
        o.neighbors = keep;
        *targets = kept_targets;
    }
}

/// Targets told apart per drawn database, by kind (drawn for one gold alone, or usual): a
/// moving average, the newest database weighing `YIELD_WEIGHT`. Where golds answer on usual
/// rows, a usual database witnessing 16 golds tells more apart; where their joins multiply
/// past their limits there (ATIS), a database of a gold's own can. Counted per
/// database, not per second, so the choice does not depend on the machine.
#[derive(Default)]
struct Yields {
    alone: Option<f64>,
    usual: Option<f64>,
}

const YIELD_WEIGHT: f64 = 0.25;

impl Yields {
    fn record(&mut self, alone: bool, found: usize) {
        let y = if alone {
            &mut self.alone
        } else {
            &mut self.usual
        };
        let found = found as f64;
        *y = Some(y.map_or(found, |m| m + YIELD_WEIGHT * (found - m)));
    }

    /// Databases of a gold's own have told more apart lately (both kinds measured).
    fn favours_alone(&self) -> bool {
        matches!((self.alone, self.usual), (Some(a), Some(u)) if a > u)
    }
}

/// What one drawn database tells of one gold that still has neighbors to tell apart.
#[derive(Default)]
struct Examined {
    /// The gold fails here: the database is no part of its suite.
    failure: Option<QueryError>,
    /// Its question has no natural answer here ([`Presupposition::fails`]).
    ambiguous: bool,
    /// (neighbor, target) told apart here.
    found: Vec<(usize, usize)>,
    /// Its probes satisfied here.
    satisfied: Vec<usize>,
    /// (neighbor, target) stopped here by their limits (steps or time): they told nothing.
    stopped: Vec<(usize, usize)>,
}

/// The limits and switches every gold is examined with on a drawn database.
#[derive(Clone, Copy)]
struct Examination<'a> {
    gold_limits: &'a Limits,
    neighbor_limits: &'a Limits,
    reject_ambiguous: bool,
    probing: bool,
    /// The time budget's end (`--time-budget`): past it, no further neighbor runs here. What
    /// the database told apart until then stands (each is told apart there); the draw stops.
    deadline: Option<Instant>,
}

impl Examination<'_> {
    /// The time budget has ended.
    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Of the golds run on a database about to be kept: those that fail there (with why), and
/// those whose question has no natural answer there.
type OthersOn = (Vec<(usize, QueryError)>, Vec<usize>);

/// What keeping a database checks of the golds besides those it was examined for, and the
/// tallies of the suite's exclusions.
struct Keeping {
    gold_limits: Limits,
    reject_ambiguous: bool,
    /// Per gold: natural data matches its constants ([`unmatched_constants`]).
    natural: Vec<bool>,
    /// (gold, database) pairs left out: no natural answer there.
    ambiguous: usize,
    /// The databases respelled for a gold natural data never matches.
    respelled: Vec<String>,
}

impl Keeping {
    /// Runs the golds `others` on a database about to be kept (a gold never fails on its own
    /// suite, and a database is no part of the suite of a gold whose question has no natural
    /// answer there): those that fail, with why, and those left out. A database `respell`ed
    /// for another gold only runs a natural gold.
    fn others_on(
        &self,
        prepared: &[Prepared],
        outcomes: &[GoldOutcome],
        others: impl Iterator<Item = usize>,
        target: &Target,
        twin: &mut Twin,
        respell: bool,
    ) -> Result<OthersOn, SuiteError> {
        let mut failing = Vec::new();
        let mut excluded = Vec::new();
        for g in others.filter(|&g| outcomes[g].gold_error.is_none()) {
            let p = &prepared[g];
            match target.run(&p.gold, &self.gold_limits) {
                Ok(_) if respell && self.natural[g] => {}
                Ok(answer) => {
                    if self.reject_ambiguous
                        && p.presupposes.fails(
                            &p.gold,
                            &answer,
                            p.options,
                            target,
                            twin,
                            &self.gold_limits,
                        )?
                    {
                        excluded.push(g);
                    }
                }
                Err(e) => failing.push((g, e)),
            }
        }
        Ok((failing, excluded))
    }

    /// Records the kept database `name` in the outcomes of the golds that fail on it, of
    /// those it is no part of the suite of, and (`respell`ed) of the natural golds.
    fn record(
        &mut self,
        name: &str,
        outcomes: &mut [GoldOutcome],
        failing: Vec<(usize, QueryError)>,
        excluded: &[usize],
        respell: bool,
    ) {
        for (g, e) in failing {
            let o = &mut outcomes[g];
            o.fails_on.push(name.to_string());
            o.first_failure
                .get_or_insert_with(|| format!("on {name}: {e}"));
        }
        self.ambiguous += excluded.len();
        for &g in excluded {
            outcomes[g].ambiguous_on.push(name.to_string());
        }
        if respell {
            for (o, _) in outcomes.iter_mut().zip(&self.natural).filter(|(_, n)| **n) {
                o.respelled_on.push(name.to_string());
            }
            self.respelled.push(name.to_string());
        }
    }
}

/// What a drawn database is to one gold examined on it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// It holds a witness for the gold: the one it is focused on, or one of the others.
    Witnessed,
    /// It holds none.
    Unwitnessed,
    /// It is respelled for another gold, and this one's constants are spelled as natural
    /// data spells them: the gold only runs, for its exclusions.
    AnswerOnly,
}

fn examine(
    p: &Prepared,
    probes: &[ProbeOutcome],
    target: &Target,
    twin: &mut Twin,
    how: &Examination,
    role: Role,
) -> Result<Examined, SuiteError> {
    let mut e = Examined::default();
    let gold = match target.run(&p.gold, how.gold_limits) {
        Ok(t) => t,
        Err(error) => {
            e.failure = Some(error);
            return Ok(e);
        }
    };
    if role == Role::AnswerOnly {
        return Ok(e);
    }
    // Where the gold's question has no natural answer, this database is no part of its
    // suite: it tells none of its neighbors apart.
    if how.reject_ambiguous
        && p.presupposes
            .fails(&p.gold, &gold, p.options, target, twin, how.gold_limits)?
    {
        e.ambiguous = true;
        return Ok(e);
    }
    // A costly gold whose answer is empty on a database that holds no witness for it: its
    // neighbors seldom answer otherwise there, and cost the most to run (`COSTLY_EMPTY`).
    if gold.rows.is_empty()
        && role == Role::Unwitnessed
        && how
            .neighbor_limits
            .max_steps
            .is_some_and(|m| gold.steps > m.saturating_mul(COSTLY_EMPTY))
    {
        return Ok(e);
    }
    let gold = Answer::new(gold, p.options, &p.order, target, how.gold_limits);
    let factored_steps = p.factored_steps(target, gold.rows.steps, how.gold_limits);
    let factor = factored_steps.is_some();
    let basis = factored_steps.unwrap_or(gold.rows.steps);
    for (n, ts) in p.targets.iter().enumerate() {
        if how.past_deadline() {
            break;
        }
        for (t, text) in ts.iter().enumerate() {
            match differs(
                target,
                &gold,
                basis,
                text.run_as(factor),
                how.neighbor_limits,
            ) {
                Ok(true) | Err(QueryError::Sql(_)) => e.found.push((n, t)),
                Err(QueryError::Budget { .. } | QueryError::Timeout { .. }) => {
                    e.stopped.push((n, t))
                }
                _ => {}
            }
        }
    }
    // Probes run as written, their budget relative to the gold's as written.
    if how.probing && !how.past_deadline() {
        for (i, _) in p.open_probes.iter().enumerate().filter(|(_, o)| **o) {
            let sql = &probes[i].probe.sql;
            if let Ok(true) = differs(target, &gold, gold.rows.steps, sql, how.neighbor_limits) {
                e.satisfied.push(i);
            }
        }
    }
    Ok(e)
}

/// Runs `examine` for every gold of `open` on the drawn database `seed`, on the work pool's
/// threads: each worker fills its own canvas with it (the same seed draws the same rows) when
/// it first takes a gold. Returns the results in `open`'s order, which do not depend on the
/// number of workers.
fn examine_open<F>(
    open: &[usize],
    canvases: &[Mutex<Option<Canvas>>],
    schema: &SuiteSchema,
    constants: &Constants,
    seed: u64,
    examine: F,
) -> Result<Vec<Examined>, SuiteError>
where
    F: Fn(usize, &Target, &mut Twin) -> Result<Examined, SuiteError> + Sync,
{
    let next = AtomicUsize::new(0);
    let workers = canvases.len().clamp(1, open.len().max(1));
    let parts = (0..workers)
        .into_par_iter()
        .map(|w| {
            let mut twin = Twin {
                schema,
                constants,
                seed,
                conn: None,
            };
            let mut slot = canvases[w].lock().unwrap_or_else(|e| e.into_inner());
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= open.len() {
                    break;
                }
                let conn = canvas::held(&mut slot, schema, constants, seed)?;
                out.push((i, examine(open[i], &Target::Memory(conn), &mut twin)?));
            }
            Ok(out)
        })
        .collect::<Vec<Result<_, SuiteError>>>();
    let mut examined: Vec<Option<Examined>> = open.iter().map(|_| None).collect();
    for part in parts {
        for (i, e) in part? {
            examined[i] = Some(e);
        }
    }
    Ok(examined
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect())
}

/// A random database with every table's rows inserted in reverse order, made on first need.
struct Twin<'a> {
    schema: &'a SuiteSchema,
    constants: &'a Constants,
    seed: u64,
    conn: Option<rusqlite::Connection>,
}

impl Twin<'_> {
    fn run(
        &mut self,
        sql: &str,
        limits: &Limits,
    ) -> Result<Result<ResultTable, QueryError>, SuiteError> {
        let conn = match self.conn.take() {
            Some(c) => c,
            None => random_db::in_memory_ordered(self.schema, self.constants, self.seed, true)?,
        };
        Ok(run_query(self.conn.insert(conn), sql, limits))
    }
}

/// What a gold's question presupposes of a database, read once from its SQL:
///
/// * a superlative (`LIMIT`, or a `max`/`min`) ranges over something: its answer is not empty;
/// * an aggregate (`max`, `min`, `avg`, `sum`) ranges over something: its answer is not a single
///   row of NULLs;
/// * a superlative (`ORDER BY … LIMIT k`) picks its rows by the order, not by a tie: its k-th
///   and (k+1)-th rows differ on the sort keys ([`ties::tie_checks`]); where that cannot be
///   checked (a LIMIT without ORDER BY, a check that does not run), the same rows inserted in
///   reverse order (the twin) must give the same answer.
struct Presupposition {
    limits: usize,
    extreme: bool,
    aggregate: bool,
    ties: Vec<ties::TieCheck>,
}

impl Presupposition {
    fn of(gold: &str) -> Presupposition {
        let toks = sqlsuite::sql_tokens::tokenize(gold);
        let has = |w: &str| toks.iter().any(|t| t.is_word(w));
        let extreme = has("max") || has("min");
        let limits = toks.iter().filter(|t| t.is_word("limit")).count();
        Presupposition {
            limits,
            extreme,
            aggregate: extreme || has("avg") || has("sum"),
            ties: if limits > 0 {
                ties::tie_checks(gold)
            } else {
                Vec::new()
            },
        }
    }

    /// Does `gold`, whose `answer` on `target` is given, have no natural answer there?
    fn fails(
        &self,
        gold: &str,
        answer: &ResultTable,
        options: CompareOptions,
        target: &Target,
        twin: &mut Twin,
        limits: &Limits,
    ) -> Result<bool, SuiteError> {
        if (self.limits > 0 || self.extreme) && answer.rows.is_empty() {
            return Ok(true);
        }
        let all_null = |row: &Vec<sqlsuite::denotation::Value>| {
            row.iter()
                .all(|v| matches!(v, sqlsuite::denotation::Value::Null))
        };
        if self.aggregate && answer.rows.len() == 1 && all_null(&answer.rows[0]) {
            return Ok(true);
        }
        if self.limits == 0 {
            return Ok(false);
        }
        let mut checked = 0;
        for c in &self.ties {
            let Ok(keys) = target.run(&c.sql, limits) else {
                continue;
            };
            checked += 1;
            if keys.rows.len() > c.limit && keys.rows[c.limit - 1] == keys.rows[c.limit] {
                return Ok(true);
            }
        }
        if checked == self.limits {
            return Ok(false);
        }
        Ok(match twin.run(gold, limits)? {
            Ok(other) => !equivalent(answer, &other, options),
            Err(_) => true,
        })
    }
}

/// Removes an earlier suite's files for `db_id` from `dir` (only `<db_id>_<k>.sqlite`).
fn clear_suite(dir: &Path, db_id: &str) -> Result<(), SuiteError> {
    let io = |error| SuiteError::Io {
        path: dir.to_path_buf(),
        error,
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
            std::fs::remove_file(&path).map_err(|error| SuiteError::Io { path, error })?;
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
    let mut results: Vec<(usize, SchemaOutcome)> = work_pool::run(|| {
        order
            .par_iter()
            .map(|&i| {
                let input = &inputs[i];
                let o = distill_schema(input, &out.join(&input.schema.db_id), options)?;
                progress(&o);
                Ok((i, o))
            })
            .collect::<Result<_, SuiteError>>()
    })?;
    results.sort_by_key(|(i, _)| *i);
    Ok(results.into_iter().map(|(_, o)| o).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(gold: &str, factored_gold: Option<String>) -> Prepared {
        let plan = ExecOptions::default().gold_plan(gold);
        Prepared {
            gold: gold.to_owned(),
            factored_gold,
            options: plan.compare,
            order: plan.order_plan(),
            presupposes: Presupposition::of(gold),
            targets: Vec::new(),
            open_probes: Vec::new(),
        }
    }

    fn texts(sqls: &[&str]) -> Vec<Vec<Text>> {
        sqls.iter()
            .map(|sql| {
                vec![Text {
                    sql: (*sql).to_owned(),
                    factored: None,
                }]
            })
            .collect()
    }

    /// The (neighbor, target) pairs `p` tells apart on `conn`, examined in `role` without the
    /// presupposition check (so a tied database is examined at all; the twin is never drawn).
    fn found(
        p: &Prepared,
        conn: &rusqlite::Connection,
        neighbor_limits: &Limits,
        role: Role,
    ) -> Vec<(usize, usize)> {
        found_by(p, conn, neighbor_limits, role, None)
    }

    /// [`found`], with the time budget ending at `deadline`.
    fn found_by(
        p: &Prepared,
        conn: &rusqlite::Connection,
        neighbor_limits: &Limits,
        role: Role,
        deadline: Option<Instant>,
    ) -> Vec<(usize, usize)> {
        examined(p, conn, neighbor_limits, role, deadline)
            .unwrap()
            .found
    }

    /// What `examine` tells of `p` on `conn` (see [`found`]).
    fn examined(
        p: &Prepared,
        conn: &rusqlite::Connection,
        neighbor_limits: &Limits,
        role: Role,
        deadline: Option<Instant>,
    ) -> Result<Examined, SuiteError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sql");
        std::fs::write(&path, "CREATE TABLE T (k INT);\n").unwrap();
        let schema = super::super::schema::from_database("t", &path).unwrap();
        let constants = Constants::default();
        let gold_limits = Limits::default();
        let how = Examination {
            gold_limits: &gold_limits,
            neighbor_limits,
            reject_ambiguous: false,
            probing: false,
            deadline,
        };
        let mut twin = Twin {
            schema: &schema,
            constants: &constants,
            seed: 0,
            conn: None,
        };
        examine(p, &[], &Target::Memory(conn), &mut twin, &how, role)
    }

    /// [`found`] on a database made by `setup`, witnessed, within the default limits.
    fn told_apart(p: &Prepared, setup: &str) -> Vec<(usize, usize)> {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(setup).unwrap();
        found(p, &conn, &Limits::default(), Role::Witnessed)
    }

    #[test]
    fn a_neighbor_is_told_apart_only_where_no_choice_among_the_golds_tied_rows_gives_its_answer() {
        let table = "CREATE TABLE teacher (name TEXT, hometown TEXT);";
        let tied =
            format!("{table} INSERT INTO teacher VALUES ('a', 'X'), ('b', 'Y'), ('c', 'Z');");
        let decided = format!(
            "{table} INSERT INTO teacher VALUES ('a', 'X'), ('b', 'Y'), ('c', 'Z'), ('d', 'X');"
        );
        // A tie at the LIMIT: every hometown counts one, so any of them is the gold's answer.
        let mut p = prepared(
            "SELECT hometown FROM teacher GROUP BY hometown ORDER BY count(*) DESC LIMIT 1",
            None,
        );
        // Two neighbors that pick the first and the last of them: one differs from whichever
        // the gold picks.
        p.targets = texts(&[
            "SELECT hometown FROM teacher GROUP BY hometown ORDER BY hometown LIMIT 1",
            "SELECT hometown FROM teacher GROUP BY hometown ORDER BY hometown DESC LIMIT 1",
            "SELECT hometown FROM teacher GROUP BY hometown ORDER BY count(*) DESC LIMIT 2",
        ]);
        assert_eq!(told_apart(&p, &tied), vec![(2, 0)]);
        assert_eq!(told_apart(&p, &decided), vec![(1, 0), (2, 0)]);

        // Ties in the order: rows of equal count may come in any order.
        let mut p = prepared(
            "SELECT hometown , count(*) FROM teacher GROUP BY hometown ORDER BY count(*)",
            None,
        );
        p.targets = texts(&[
            "SELECT hometown , count(*) FROM teacher GROUP BY hometown \
             ORDER BY count(*) , hometown DESC",
            "SELECT hometown , count(*) FROM teacher GROUP BY hometown ORDER BY count(*) DESC",
        ]);
        assert_eq!(told_apart(&p, &tied), Vec::new());
        assert_eq!(told_apart(&p, &decided), vec![(1, 0)]);

        // An order only inside a subquery orders nothing the answer shows.
        let mut p = prepared(
            "SELECT name FROM teacher WHERE hometown IN \
             (SELECT hometown FROM teacher ORDER BY name)",
            None,
        );
        p.targets = texts(&["SELECT name FROM teacher ORDER BY name DESC"]);
        assert_eq!(told_apart(&p, &decided), Vec::new());
    }

    #[test]
    fn the_kind_of_database_that_told_more_apart_lately_gets_the_free_turns() {
        let mut y = Yields::default();
        // Until both kinds have been measured, the free turns stay usual.
        assert!(!y.favours_alone());
        y.record(true, 40);
        assert!(!y.favours_alone());
        y.record(false, 10);
        assert!(y.favours_alone());
        // A moving average: one rich usual database (10 + (100 - 10) / 4 = 32.5) does not yet
        // outweigh 40; a second one (32.5 + (100 - 32.5) / 4 = 49.4) does.
        y.record(false, 100);
        assert!(y.favours_alone());
        y.record(false, 100);
        assert!(!y.favours_alone());
        // Databases of a gold's own that tell nothing lose their lead as well.
        y.record(true, 200);
        assert!(y.favours_alone());
        for _ in 0..3 {
            y.record(true, 0);
        }
        assert!(!y.favours_alone(), "{:?} against {:?}", y.alone, y.usual);
    }

    #[test]
    fn targets_run_factored_only_where_the_gold_runs_sooner_so() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE T (k, v); CREATE TABLE U (k, w);")
            .unwrap();
        for i in 0..60 {
            conn.execute_batch(&format!(
                "INSERT INTO T VALUES ({i}, {}); INSERT INTO U VALUES ({i}, {});",
                i % 3,
                i % 4
            ))
            .unwrap();
        }
        let target = Target::Memory(&conn);
        let limits = Limits::default();
        let gold =
            "SELECT T.k FROM T , U WHERE ( T.k = U.k AND T.v = 1 ) OR ( T.k = U.k AND U.w = 2 )";
        let answer = |p: &Prepared| target.run(&p.gold, &limits).unwrap();

        // Factored, the join drives the plan: fewer steps, and the budget follows them.
        let p = prepared(gold, factored(gold));
        assert!(p.factored_gold.is_some());
        let written = answer(&p).steps;
        let steps = p.factored_steps(&target, written, &limits);
        assert!(
            steps.is_some_and(|s| s < written),
            "{steps:?} against {written}"
        );

        // A form that costs more (here a needless cross join) is not used.
        let costly = "SELECT DISTINCT T.k FROM T , U , U AS V , U AS W \
                      WHERE T.k = U.k AND V.w + W.w >= 0 AND ( T.v = 1 OR U.w = 2 )";
        let p = prepared(gold, Some(costly.to_owned()));
        assert_eq!(answer(&p).steps, written);
        assert_eq!(p.factored_steps(&target, written, &limits), None);

        // Without shared conjuncts there is nothing to choose.
        let p = prepared(gold, None);
        assert_eq!(p.factored_steps(&target, written, &limits), None);
    }

    #[test]
    fn a_patient_turn_tells_apart_a_neighbor_the_usual_budget_stops_and_gives_up_after_two_stops() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE T (k); CREATE TABLE U (k);")
            .unwrap();
        for i in 0..150 {
            conn.execute_batch(&format!(
                "INSERT INTO T VALUES ({i}); INSERT INTO U VALUES ({i});"
            ))
            .unwrap();
        }
        // Counts: one row each, so no neighbor is stopped early by the gold's row count.
        let mut p = prepared(
            "SELECT count(*) FROM T , U WHERE T.k = U.k AND U.k = 3",
            None,
        );
        p.targets = texts(&[
            // `AND` made `OR`: every pair of rows is tried, far past the usual budget.
            "SELECT count(*) FROM T , U WHERE T.k = U.k OR U.k = 3",
            "SELECT count(*) FROM T , U WHERE T.k = U.k AND U.k > 3",
            "SELECT count(*) FROM T , U WHERE T.k = U.k AND T.k = 3",
        ]);
        let usual = Limits {
            max_steps: Some(2_000),
            ..Limits::default()
        };
        let patient = Limits {
            max_steps: Some(2_000 * sweep::PATIENCE),
            ..Limits::default()
        };
        let run = |p: &Prepared, limits: &Limits| examined(p, &conn, limits, Role::Witnessed, None);

        // Within the usual budget the cheap neighbor is told apart; the costly one is stopped.
        let e = run(&p, &usual).unwrap();
        assert_eq!((e.found, e.stopped), (vec![(1, 0)], vec![(0, 0)]));
        let mut patience = sweep::Patience::new(&p);
        assert_eq!(patience.turn(&mut p, |p| run(p, &usual)).unwrap(), vec![1]);
        assert_eq!(
            patience.turn(&mut p, |p| run(p, &usual)).unwrap(),
            Vec::<usize>::new()
        );
        // Stopped twice, it takes no further turn (its target set aside, then restored).
        let turn = patience.turn(&mut p, |p| {
            assert!(p.targets[0].is_empty() && p.targets[2].len() == 1);
            run(p, &patient)
        });
        assert_eq!(turn.unwrap(), Vec::<usize>::new());
        assert_eq!(
            p.targets.iter().map(Vec::len).collect::<Vec<_>>(),
            [1, 0, 1]
        );

        // With the patient budget it answers, and is told apart; the equivalent one is not.
        let mut patience = sweep::Patience::new(&p);
        assert_eq!(
            patience.turn(&mut p, |p| run(p, &patient)).unwrap(),
            vec![0]
        );
        assert_eq!(
            p.targets.iter().map(Vec::len).collect::<Vec<_>>(),
            [0, 0, 1]
        );
    }

    #[test]
    fn past_the_time_budget_no_neighbor_runs() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE T (k); INSERT INTO T VALUES (1), (2);")
            .unwrap();
        let mut p = prepared("SELECT k FROM T WHERE k = 1", None);
        p.targets = texts(&["SELECT k FROM T WHERE k >= 1"]);
        let limits = Limits::default();
        let later = Instant::now() + std::time::Duration::from_secs(3600);
        assert_eq!(
            found_by(&p, &conn, &limits, Role::Witnessed, Some(later)),
            vec![(0, 0)]
        );
        let passed = Instant::now();
        assert_eq!(
            found_by(&p, &conn, &limits, Role::Witnessed, Some(passed)),
            Vec::new()
        );
    }

    #[test]
    fn a_costly_empty_answer_skips_the_neighbors_only_where_the_gold_is_not_witnessed() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE T (k, v); CREATE TABLE U (k, w);")
            .unwrap();
        for i in 0..60 {
            conn.execute_batch(&format!(
                "INSERT INTO T VALUES ({i}, {i}); INSERT INTO U VALUES ({i}, {i});"
            ))
            .unwrap();
        }
        // No index can serve `T.v + U.w`: every pair is tried, about 30,000 steps, to find none.
        let gold = "SELECT T.k FROM T , U WHERE T.v + U.w = 999";
        let neighbor = "SELECT T.k FROM T , U WHERE T.v + U.w >= 999";
        let loose = "SELECT T.k FROM T , U WHERE T.v + U.w <= 999";
        let mut p = prepared(gold, None);
        p.targets = texts(&[neighbor, loose]);
        let examined = |max_steps: u64, witnessed: bool| {
            let neighbor_limits = Limits {
                max_steps: Some(max_steps),
                ..Limits::default()
            };
            let role = if witnessed {
                Role::Witnessed
            } else {
                Role::Unwitnessed
            };
            found(&p, &conn, &neighbor_limits, role)
        };
        // The loosened comparison answers every pair: told apart wherever it runs.
        assert_eq!(examined(2_000, true), vec![(1, 0)]);
        // More than five times the neighbors' budget for an empty answer, unwitnessed: skipped.
        assert_eq!(examined(2_000, false), Vec::new());
        // A gold within five times the budget is examined witnessed or not.
        assert_eq!(examined(1_000_000, false), vec![(1, 0)]);
    }
}
