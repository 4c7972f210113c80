//! `sqlsuite bench`: a full evaluation of every prediction set, timed against a baseline
//! measured in the same run. Which benchmark runs depends on the manifest's metrics:
//!
//! * `--reference` (a BIRD manifest): [`bird`], EX and Soft-F1 against BIRD's own scripts;
//! * `bleu` (SQL-to-text): [`bleu`], scoring against tokenizing only;
//! * `sqleval`: [`sqleval`], against a plain client of the manifest's engine;
//! * `--counterexamples`: [`counterexamples`], the exec metric with and without them;
//! * otherwise: [`exec`], execution accuracy against raw SQLite ([`raw`]), with a
//!   gold-relative step budget, the exact-match and plug_value timings.
//!
//! Every timed pass of the evaluation is one [`pass`].

mod bird;
mod bleu;
mod counterexamples;
mod exec;
mod pass;
mod raw;
mod sqleval;

use std::process::ExitCode;

use sqlsuite::metric::exec::ExecOptions;
use sqlsuite::metric::sqleval::SqlevalOptions;

use crate::cli::BenchArgs;

pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let mut loaded = sqlsuite::Manifest::load(&args.manifest)?;
    // The benchmark measures execution: a manifest's [cache] dir, which may serve golds from
    // disk, is ignored.
    loaded.cache = None;
    if let Some(scripts) = &args.reference {
        let reference = bird::Reference {
            scripts,
            python: &args.python,
            databases: args.databases.max(1),
        };
        return bird::run(loaded, &reference);
    }
    let enabled: Vec<&str> = sqlsuite::registry::compose(&loaded)?
        .metrics
        .iter()
        .map(|m| m.name())
        .collect();
    if enabled.contains(&"bleu") {
        return bleu::run(loaded);
    }
    if enabled.contains(&"sqleval") {
        let mut options: SqlevalOptions = loaded.metric_options("sqleval")?.unwrap_or_default();
        if let Some(ms) = args.timeout_ms {
            options.limits.timeout_ms = ms;
        }
        return sqleval::run(loaded, options);
    }
    let mut options: ExecOptions = loaded.metric_options("exec")?.unwrap_or_default();
    if let Some(ms) = args.timeout_ms {
        options.limits.timeout_ms = ms;
    }
    if args.counterexamples {
        return counterexamples::run(loaded, options);
    }
    exec::run(loaded, options, args.budget(), enabled.contains(&"exec"))
}
