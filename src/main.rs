//! `sqlsuite`: the command line over the same library the test harness uses.
//!
//! * `sqlsuite eval <manifest> [--format text|jsonl|junit] [--predictions NAME]…`
//! * `sqlsuite diff <manifest> A B`
//! * `sqlsuite report <manifest> [--predictions A] [--against B] -o report.html`
//! * `sqlsuite bench <manifest>`
//! * `sqlsuite distill <manifest> [--out DIR] [--seed N] [--budget N] [--time-budget SECS]`
//! * `sqlsuite compose <spider json> --tables FILE --databases DIR --out DIR [--split clauses|template] [--seed N]`

mod bench;
mod bench_bleu;
mod bench_sqleval;
mod compose;
mod diff;
mod distill;
mod progress;
mod report;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use sqlsuite::manifest::GateMode;
use sqlsuite::metric::Status;
use sqlsuite::report::snapshot::{self, Accepted};
use sqlsuite::report::{gate, jsonl, junit, summary::Summary};
use sqlsuite::Evaluation;

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
        #[arg(long, default_value_t = sqlsuite::test_suite::distill::DEFAULT_MAX_STEPS)]
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
            format,
            predictions,
            jobs,
        } => set_jobs(jobs).and_then(|()| eval(&manifest, format, &predictions)),
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
        } => set_jobs(jobs).and_then(|()| bench::run(&manifest, timeout_ms)),
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
                    ComposeSplit::Clauses => sqlsuite::compose::SplitMode::Clauses,
                    ComposeSplit::Template => sqlsuite::compose::SplitMode::Template,
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

fn eval(manifest: &PathBuf, format: Format, only: &[String]) -> anyhow::Result<ExitCode> {
    let eval = Evaluation::open(manifest)?;
    let sets: Vec<usize> = (0..eval.dataset.predictions.len())
        .filter(|&s| only.is_empty() || only.contains(&eval.dataset.predictions[s].name))
        .collect();
    if let Some(unknown) = only
        .iter()
        .find(|n| !eval.dataset.predictions.iter().any(|p| &p.name == *n))
    {
        anyhow::bail!(
            "{}: no prediction set named {unknown:?}",
            manifest.display()
        );
    }
    let total = sets.len() * eval.items().len();
    let bar = progress::Progress::new(total as u64, "evaluating");
    // One pass over every (set, item) pair: both cores stay busy until the last item.
    eval.evaluate_sets(&sets, &|| bar.inc());
    bar.finish();
    if let Format::Junit = format {
        emit(&junit::render(&eval, &sets))?;
    }

    let mut gate_failures = Vec::new();
    for &set in &sets {
        let name = &eval.dataset.predictions[set].name;
        if let Format::Jsonl = format {
            for line in jsonl::lines(&eval, set) {
                emit(&format!("{line}\n"))?;
            }
        }
        for metric in eval.metrics() {
            let summary = Summary::of(&eval, set, metric);
            if let Format::Text = format {
                emit(&format!(
                    "{}::{name}\n{}\n",
                    eval.dataset.name,
                    summary.render()
                ))?;
            }
            if let Err(e) = gate::check(&eval.manifest.gate, &summary) {
                gate_failures.push(e);
            }
        }
        match eval.manifest.gate.mode {
            GateMode::Strict => {
                let failed = (0..eval.items().len())
                    .filter(|&i| {
                        matches!(
                            eval.result(set, i).status(),
                            Status::Incorrect | Status::GoldError
                        )
                    })
                    .count();
                if failed > 0 {
                    gate_failures.push(format!(
                        "{}::{name}: {failed} items not correct (strict mode)",
                        eval.dataset.name
                    ));
                }
            }
            GateMode::Regression => match Accepted::read(&snapshot::path(&eval, set)) {
                Some(accepted) => {
                    let f = snapshot::flips(&eval, set, &accepted);
                    if !f.regressed.is_empty() {
                        gate_failures.push(format!(
                            "{}::{name}: {} items regressed against the accepted snapshot: {:?}",
                            eval.dataset.name,
                            f.regressed.len(),
                            f.regressed
                        ));
                    }
                }
                None => eprintln!(
                    "note: no accepted snapshot {} to compare with",
                    snapshot::path(&eval, set).display()
                ),
            },
        }
    }
    if gate_failures.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        for f in &gate_failures {
            eprintln!("gate: {f}");
        }
        Ok(ExitCode::from(1))
    }
}
