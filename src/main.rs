//! `sqlsuite`: the command line over the same library the test harness uses.
//!
//! * `sqlsuite eval <manifest> [--format text|jsonl|junit] [--predictions NAME]… [--journal FILE [--resume]]`
//! * `sqlsuite diff <manifest> A B`
//! * `sqlsuite report <manifest> [--predictions A] [--against B] -o report.html`
//! * `sqlsuite bench <manifest>`
//! * `sqlsuite distill <manifest> [--out DIR] [--seed N] [--budget N] [--time-budget SECS]`
//! * `sqlsuite load-postgres <manifest> [--only DB_ID]… [--admin-env VAR]`
//! * `sqlsuite compose <spider json> --tables FILE --databases DIR --out DIR [--split clauses|template] [--seed N]`
//!
//! Each subcommand's arguments are one struct in [`cli`]; `main` hands it to the subcommand's
//! module (`eval::run(&EvalArgs)`, …) after sizing the work pool by its `--jobs`.

mod bench;
mod cli;
mod compose;
mod diff;
mod distill;
mod eval;
mod journal;
mod load_postgres;
mod progress;
mod report;
mod supervise;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let result = match &Cli::parse().command {
        // The supervisor runs this same command again in a worker process (`--worker`).
        Command::Eval(args) if !args.worker => supervise::run(
            &args.manifest,
            std::env::args_os().skip(1).collect(),
            args.journal.as_deref(),
            args.resume,
        ),
        Command::Eval(args) => args.common.apply().and_then(|()| eval::run(args)),
        Command::Diff(args) => args.common.apply().and_then(|()| diff::run(args)),
        Command::Report(args) => args.common.apply().and_then(|()| report::run(args)),
        Command::Bench(args) => args.common.apply().and_then(|()| bench::run(args)),
        Command::Distill(args) => args.common.apply().and_then(|()| distill::run(args)),
        Command::Compose(args) => args.common.apply().and_then(|()| compose::run(args)),
        Command::LoadPostgres(args) => args.common.apply().and_then(|()| load_postgres::run(args)),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Writes to stdout; a closed pipe (`| head`) ends the output quietly.
fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        other => Ok(other?),
    }
}

/// The position of the manifest's prediction set `name`; an unknown name is an error that
/// lists the known ones (`eval --predictions`, `diff`).
fn set_named(
    eval: &sqlsuite::Evaluation,
    manifest: &std::path::Path,
    name: &str,
) -> anyhow::Result<usize> {
    let sets = &eval.dataset.predictions;
    sets.iter().position(|p| p.name == name).ok_or_else(|| {
        let known: Vec<&str> = sets.iter().map(|p| p.name.as_str()).collect();
        anyhow::anyhow!(
            "{}: no prediction set named {name:?} (known: {})",
            manifest.display(),
            known.join(", ")
        )
    })
}
