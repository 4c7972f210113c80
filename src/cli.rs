//! What the user can say: the subcommands and their arguments, one struct each, parsed by
//! clap's derive. Each subcommand's module takes its own struct (`eval::run(&EvalArgs)`, …);
//! the options every subcommand shares are one flattened [`CommonArgs`].

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use sqlsuite::metric::exec::RelativeBudget;

#[derive(Parser)]
#[command(name = "sqlsuite", version, about = "Evaluate text-to-SQL predictions")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Evaluate every prediction set of a manifest; exit 1 if the gate fails.
    Eval(EvalArgs),
    /// Accuracy in prediction sets A and B and the difference (per hardness or category too),
    /// then the items whose verdict flipped, by metric, direction and reason, one block each;
    /// exit 1 if any item regressed (correct in A, incorrect in B).
    Diff(DiffArgs),
    /// Write one self-contained HTML report of a prediction set: summaries, accuracy tables,
    /// every item with search and filters; flipped items first against another set or the
    /// accepted snapshot. Without --predictions and --against(-snapshot): every prediction set
    /// of the manifest on one page.
    Report(ReportArgs),
    /// Time a full evaluation against raw SQLite executing the same queries once each.
    Bench(BenchArgs),
    /// Distil a test suite per schema (neighbor queries, random databases, greedy selection)
    /// and write it with a report; evaluate with a manifest whose [databases] globs it.
    Distill(DistillArgs),
    /// Build SpiderCompose from a Spider-format JSON file: clauses split, question words
    /// aligned, clauses of each query recombined (executed on the database), split by clause
    /// count; writes <out>/compose.json and <out>/report.md.
    Compose(ComposeArgs),
    /// Copy the SQLite test suite a PostgreSQL manifest names (`[databases] suite`) to its
    /// server: one database per file, named by `name` with `{file}`, values as they are (those a
    /// column's type cannot hold as NULL, counted), SELECT granted to the manifest's role only.
    /// A database already loaded from the same file is kept.
    LoadPostgres(LoadPostgresArgs),
}

/// The options of every subcommand.
#[derive(Args)]
pub struct CommonArgs {
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
}

impl CommonArgs {
    /// Sizes the work pool.
    pub fn apply(&self) -> anyhow::Result<()> {
        sqlsuite::work_pool::set_threads(self.jobs.unwrap_or(0)).map_err(|e| anyhow::anyhow!(e))
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// Summary tables (and the gate's verdict).
    Text,
    /// One JSON object per item and metric, each set's provenance first.
    Jsonl,
    /// JUnit XML: one testsuite per prediction set, one testcase per item.
    Junit,
}

/// `sqlsuite eval`: the user's flags, and the hidden ones the supervisor gives its worker
/// ([`crate::supervise`] runs the same command again with `--worker`).
#[derive(Args)]
pub struct EvalArgs {
    pub manifest: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Only these prediction sets (repeatable).
    #[arg(long = "predictions")]
    pub predictions: Vec<String>,
    /// Shrink the database of each incorrect exec verdict whose rows differ to a minimal
    /// counterexample, for this run (`[metrics.exec] counterexamples = true` without editing
    /// the manifest; spec/counterexample.md).
    #[arg(long)]
    pub counterexamples: bool,
    #[command(flatten)]
    pub common: CommonArgs,
    /// Also write each verdict to this file the moment it is known (JSON lines, with the
    /// wall time of each item); a run that dies keeps what it judged.
    #[arg(long)]
    pub journal: Option<PathBuf>,
    /// Continue the interrupted run that wrote --journal: keep its verdicts, judge only the
    /// predictions it has none for, append to it; the output is that of an uninterrupted run.
    /// The journal must come from the same evaluation (manifest, input files, --predictions,
    /// sqlsuite build); a journal not there yet is started.
    #[arg(long, requires = "journal")]
    pub resume: bool,
    /// Run the evaluation in this process (the supervisor starts one with it).
    #[arg(long, hide = true)]
    pub worker: bool,
    /// ITEM:STATUS:SET: a prediction that aborted the worker; not run again (repeatable).
    #[arg(long, hide = true, requires = "worker")]
    pub crashed: Vec<String>,
    /// ITEM:SET: judge only this prediction and write only the journal.
    #[arg(long, hide = true, requires = "worker")]
    pub probe: Option<String>,
}

/// `sqlsuite diff`.
#[derive(Args)]
pub struct DiffArgs {
    pub manifest: PathBuf,
    /// The reference prediction set (e.g. the deployed model).
    pub a: String,
    /// The prediction set compared with it (e.g. the candidate).
    pub b: String,
    /// Also list the items whose reason changed (incorrect in both sets); by default only
    /// counted.
    #[arg(long)]
    pub reasons: bool,
    /// Cut each query and reason to this many characters (0: never cut).
    #[arg(long, default_value_t = sqlsuite::report::diff::RenderOptions::default().width)]
    pub width: usize,
    /// Add a row per `db_id` to the accuracy table.
    #[arg(long)]
    pub by_db: bool,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `sqlsuite report`.
#[derive(Args)]
pub struct ReportArgs {
    pub manifest: PathBuf,
    /// The prediction set to report (default: every set on one page; the manifest's first
    /// with --against).
    #[arg(long)]
    pub predictions: Option<String>,
    /// Compare with this prediction set: items that flipped come first.
    #[arg(long, conflicts_with = "against_snapshot")]
    pub against: Option<String>,
    /// Compare with the set's accepted snapshot (the manifest's `[report] snapshots`).
    #[arg(long)]
    pub against_snapshot: bool,
    /// The HTML file to write.
    #[arg(short = 'o', long = "out")]
    pub out: PathBuf,
    /// Show a minimal counterexample in each incorrect exec verdict whose rows differ (as
    /// `eval --counterexamples`).
    #[arg(long)]
    pub counterexamples: bool,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `sqlsuite bench`.
#[derive(Args)]
pub struct BenchArgs {
    pub manifest: PathBuf,
    #[command(flatten)]
    pub common: CommonArgs,
    /// Per-query timeout for both the baseline and the evaluation (default: the manifest's).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// The gold-relative step budget measured against wall-clock limits alone: a
    /// prediction may take this many SQLite steps…
    #[arg(long, default_value_t = 1_000_000)]
    pub budget_floor: u64,
    /// …plus this many times its gold's steps, per database.
    #[arg(long, default_value_t = 100)]
    pub budget_multiplier: u64,
    /// A BIRD manifest: time its EX and Soft-F1 against BIRD's own scripts in this
    /// `evaluation/` directory (`.ci/bird-reference` installs them and prints the options).
    #[arg(long)]
    pub reference: Option<PathBuf>,
    /// The Python that runs `--reference`'s scripts.
    #[arg(long, default_value = "python3")]
    pub python: PathBuf,
    /// With `--reference`: the suite databases per schema both sides run on (1 … this).
    #[arg(long, default_value_t = 3)]
    pub databases: usize,
    /// Only the CPU time minimal counterexamples add to the exec metric's evaluation: with
    /// and without, alternating, each side's least of three rounds.
    #[arg(long)]
    pub counterexamples: bool,
}

impl BenchArgs {
    /// The step budget `--budget-floor` and `--budget-multiplier` say.
    pub fn budget(&self) -> RelativeBudget {
        RelativeBudget {
            floor: self.budget_floor,
            multiplier: self.budget_multiplier,
        }
    }
}

/// `sqlsuite distill`.
#[derive(Args)]
pub struct DistillArgs {
    pub manifest: PathBuf,
    /// Output directory: <out>/<db_id>/<db_id>_<k>.sqlite, report.json, summary.txt
    /// (default: target/suites/<dataset name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed of every random choice (neighbors and databases).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// At most this many random databases drawn per schema (default: the manifest's
    /// `[distill] budget`, else 2000).
    #[arg(long)]
    pub budget: Option<usize>,
    /// Also stop drawing for a schema after this many seconds (the result then depends on
    /// the machine's speed).
    #[arg(long)]
    pub time_budget: Option<u64>,
    /// Only these db_ids (repeatable).
    #[arg(long = "only")]
    pub only: Vec<String>,
    /// Per-query time limit while distilling.
    #[arg(long, default_value_t = 2000)]
    pub timeout_ms: u64,
    /// Distil for evaluation with plug_value (also on if the manifest's [metrics.exec]
    /// says so): a neighbor counts as distinguished only if every candidate the metric
    /// would try is told apart too.
    #[arg(long)]
    pub plug_value: bool,
    /// Keep random databases on which some gold's question has no natural answer (a tie
    /// decides a superlative, a superlative or an aggregate ranges over nothing); by
    /// default they are rejected, so that equivalent predictions are not told apart there.
    #[arg(long)]
    pub keep_ambiguous: bool,
    /// Each drawn database holds witness rows (satisfying a gold's conjunction, and near
    /// misses) for this many golds still open, the one it is focused on first.
    #[arg(long, default_value_t = 8)]
    pub witnesses: usize,
    /// A neighbor may do at most this many SQLite steps per database (or ten times the
    /// gold's, if more) before it counts as telling nothing, like a timeout; 0: no limit.
    #[arg(long, default_value_t = sqlsuite_distill::DEFAULT_MAX_STEPS)]
    pub max_steps: u64,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ComposeSplit {
    /// Fewer than three clauses: train; three or more: test.
    Clauses,
    /// By query template (literals anonymized), each template to one side by a seeded hash.
    Template,
}

impl From<ComposeSplit> for sqlsuite_compose::SplitMode {
    fn from(split: ComposeSplit) -> Self {
        match split {
            ComposeSplit::Clauses => sqlsuite_compose::SplitMode::Clauses,
            ComposeSplit::Template => sqlsuite_compose::SplitMode::Template,
        }
    }
}

/// `sqlsuite compose`.
#[derive(Args)]
pub struct ComposeArgs {
    /// Spider-format JSON array (db_id, query, question, question_toks).
    pub input: PathBuf,
    /// Spider's tables.json (natural-language table and column names).
    #[arg(long)]
    pub tables: PathBuf,
    /// Directory with <db_id>/<db_id>.sqlite.
    #[arg(long)]
    pub databases: PathBuf,
    /// Output directory.
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, value_enum, default_value = "clauses")]
    pub split: ComposeSplit,
    /// Seed of the template split's hash.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Time limit of each composed query.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Args)]
pub struct LoadPostgresArgs {
    pub manifest: PathBuf,
    /// Only these schemas (db_ids); repeatable (default: every schema of the gold).
    #[arg(long)]
    pub only: Vec<String>,
    /// The environment variable holding a superuser's connection string.
    #[arg(long, default_value = "SQLSUITE_POSTGRES_ADMIN")]
    pub admin_env: String,
    #[command(flatten)]
    pub common: CommonArgs,
}
