//! `sqlsuite`: the command line over the same library the test harness uses.
//!
//! * `sqlsuite eval <manifest> [--format text|jsonl|junit] [--predictions NAME]…`
//! * `sqlsuite diff <manifest> A B`
//! * `sqlsuite report <manifest> [--predictions A] [--against B] -o report.html`
//! * `sqlsuite bench <manifest>`
//! * `sqlsuite distill <manifest> [--out DIR] [--seed N] [--budget N] [--time-budget SECS]`
//! * `sqlsuite compose <spider json> --tables FILE --databases DIR --out DIR [--split clauses|template] [--seed N]`

mod bench;
mod compose;
mod diff;
mod distill;
mod eval;
mod journal;
mod progress;
mod report;
mod supervise;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use sqlsuite::metric::exec::RelativeBudget;

#[derive(Parser)]
#[command(name = "sqlsuite", version, about = "Evaluate text-to-SQL predictions")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Summary tables (and the gate's verdict).
    Text,
    /// One JSON object per item and metric, each set's provenance first.
    Jsonl,
    /// JUnit XML: one testsuite per prediction set, one testcase per item.
    Junit,
}

#[derive(Clone, Copy, ValueEnum)]
enum ComposeSplit {
    /// Fewer than three clauses: train; three or more: test.
    Clauses,
    /// By query template (literals anonymized), each template to one side by a seeded hash.
    Template,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate every prediction set of a manifest; exit 1 if the gate fails.
    Eval {
        manifest: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Only these prediction sets (repeatable).
        #[arg(long = "predictions")]
        predictions: Vec<String>,
        /// Worker threads (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
        /// Also write each verdict to this file the moment it is known (JSON lines, with the
        /// wall time of each item); a run that dies keeps what it judged.
        #[arg(long)]
        journal: Option<PathBuf>,
        /// Run the evaluation in this process (the supervisor starts one with it).
        #[arg(long, hide = true)]
        worker: bool,
        /// ITEM:STATUS:SET: a prediction that aborted the worker; not run again (repeatable).
        #[arg(long, hide = true, requires = "worker")]
        crashed: Vec<String>,
        /// ITEM:SET: judge only this prediction and write only the journal.
        #[arg(long, hide = true, requires = "worker")]
        probe: Option<String>,
    },
    /// Items whose verdict flipped between prediction sets A and B, by metric, direction and
    /// reason; exit 1 if any item regressed (correct in A, incorrect in B).
    Diff {
        manifest: PathBuf,
        /// The reference prediction set (e.g. the deployed model).
        a: String,
        /// The prediction set compared with it (e.g. the candidate).
        b: String,
        /// Worker threads (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Write one self-contained HTML report of a prediction set: summaries, accuracy tables,
    /// every item with search and filters; flipped items first against another set or the
    /// accepted snapshot. Without --predictions and --against(-snapshot): every prediction set
    /// of the manifest on one page.
    Report {
        manifest: PathBuf,
        /// The prediction set to report (default: every set on one page; the manifest's first
        /// with --against).
        #[arg(long)]
        predictions: Option<String>,
        /// Compare with this prediction set: items that flipped come first.
        #[arg(long, conflicts_with = "against_snapshot")]
        against: Option<String>,
        /// Compare with the set's accepted snapshot (the manifest's `[report] snapshots`).
        #[arg(long)]
        against_snapshot: bool,
        /// The HTML file to write.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// Worker threads (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Time a full evaluation against raw SQLite executing the same queries once each.
    Bench {
        manifest: PathBuf,
        /// Worker threads for the evaluation (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
        /// Per-query timeout for both the baseline and the evaluation (default: the manifest's).
        #[arg(long)]
        timeout_ms: Option<u64>,
        /// The gold-relative step budget measured against wall-clock limits alone: a
        /// prediction may take this many SQLite steps…
        #[arg(long, default_value_t = 1_000_000)]
        budget_floor: u64,
        /// …plus this many times its gold's steps, per database.
        #[arg(long, default_value_t = 100)]
        budget_multiplier: u64,
    },
    /// Distil a test suite per schema (neighbor queries, random databases, greedy selection)
    /// and write it with a report; evaluate with a manifest whose [databases] globs it.
    Distill {
        manifest: PathBuf,
        /// Output directory: <out>/<db_id>/<db_id>_<k>.sqlite, report.json, summary.txt
        /// (default: target/suites/<dataset name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Seed of every random choice (neighbors and databases).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// At most this many random databases drawn per schema.
        #[arg(long, default_value_t = 2000)]
        budget: usize,
        /// Also stop drawing for a schema after this many seconds (the result then depends on
        /// the machine's speed).
        #[arg(long)]
        time_budget: Option<u64>,
        /// Only these db_ids (repeatable).
        #[arg(long = "only")]
        only: Vec<String>,
        /// Per-query time limit while distilling.
        #[arg(long, default_value_t = 2000)]
        timeout_ms: u64,
        /// Distil for evaluation with plug_value (also on if the manifest's [metrics.exec]
        /// says so): a neighbor counts as distinguished only if every candidate the metric
        /// would try is told apart too.
        #[arg(long)]
        plug_value: bool,
        /// Keep random databases on which some gold's question has no natural answer (a tie
        /// decides a superlative, a superlative or an aggregate ranges over nothing); by
        /// default they are rejected, so that equivalent predictions are not told apart there.
        #[arg(long)]
        keep_ambiguous: bool,
        /// Each drawn database holds witness rows (satisfying a gold's conjunction, and near
        /// misses) for this many golds still open, the one it is focused on first.
        #[arg(long, default_value_t = 8)]
        witnesses: usize,
        /// A neighbor may do at most this many SQLite steps per database (or ten times the
        /// gold's, if more) before it counts as telling nothing, like a timeout; 0: no limit.
        #[arg(long, default_value_t = sqlsuite_distill::distill::DEFAULT_MAX_STEPS)]
        max_steps: u64,
        /// Worker threads (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Build SpiderCompose from a Spider-format JSON file: clauses split, question words
    /// aligned, clauses of each query recombined (executed on the database), split by clause
    /// count; writes <out>/compose.json and <out>/report.md.
    Compose {
        /// Spider-format JSON array (db_id, query, question, question_toks).
        input: PathBuf,
        /// Spider's tables.json (natural-language table and column names).
        #[arg(long)]
        tables: PathBuf,
        /// Directory with <db_id>/<db_id>.sqlite.
        #[arg(long)]
        databases: PathBuf,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        #[arg(long, value_enum, default_value = "clauses")]
        split: ComposeSplit,
        /// Seed of the template split's hash.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Time limit of each composed query.
        #[arg(long, default_value_t = 10_000)]
        timeout_ms: u64,
        /// Worker threads (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Eval {
            manifest,
            worker: false,
            journal,
            ..
        } => supervise::run(
            &manifest,
            std::env::args_os().skip(1).collect(),
            journal.as_deref(),
        ),
        Command::Eval {
            manifest,
            format,
            predictions,
            jobs,
            journal,
            worker: true,
            crashed,
            probe,
        } => set_jobs(jobs).and_then(|()| {
            eval::run(
                &manifest,
                format,
                &eval::WorkerArgs {
                    only: predictions,
                    journal,
                    crashed,
                    probe,
                },
            )
        }),
        Command::Diff {
            manifest,
            a,
            b,
            jobs,
        } => set_jobs(jobs).and_then(|()| diff::run(&manifest, &a, &b)),
        Command::Report {
            manifest,
            predictions,
            against,
            against_snapshot,
            out,
            jobs,
        } => set_jobs(jobs).and_then(|()| {
            let against = match (against.as_deref(), against_snapshot) {
                (Some(name), _) => report::Against::Set(name),
                (None, true) => report::Against::Snapshot,
                (None, false) => report::Against::Nothing,
            };
            report::run(&manifest, predictions.as_deref(), against, &out)
        }),
        Command::Bench {
            manifest,
            jobs,
            timeout_ms,
            budget_floor,
            budget_multiplier,
        } => {
            let budget = RelativeBudget {
                floor: budget_floor,
                multiplier: budget_multiplier,
            };
            set_jobs(jobs).and_then(|()| bench::run(&manifest, timeout_ms, budget))
        }
        Command::Distill {
            manifest,
            out,
            seed,
            budget,
            time_budget,
            only,
            timeout_ms,
            plug_value,
            keep_ambiguous,
            witnesses,
            max_steps,
            jobs,
        } => set_jobs(jobs).and_then(|()| {
            distill::run(&distill::Args {
                manifest,
                out,
                seed,
                budget,
                time_budget_s: time_budget,
                only,
                timeout_ms,
                plug_value,
                keep_ambiguous,
                witnesses,
                max_steps,
            })
        }),
        Command::Compose {
            input,
            tables,
            databases,
            out,
            split,
            seed,
            timeout_ms,
            jobs,
        } => set_jobs(jobs).and_then(|()| {
            compose::run(&compose::Args {
                input,
                tables,
                databases,
                out,
                split: match split {
                    ComposeSplit::Clauses => sqlsuite_compose::SplitMode::Clauses,
                    ComposeSplit::Template => sqlsuite_compose::SplitMode::Template,
                },
                seed,
                timeout_ms,
            })
        }),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn set_jobs(jobs: Option<usize>) -> anyhow::Result<()> {
    sqlsuite::work_pool::set_threads(jobs.unwrap_or(0)).map_err(|e| anyhow::anyhow!(e))
}

/// Writes to stdout; a closed pipe (`| head`) ends the output quietly.
fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        other => Ok(other?),
    }
}
