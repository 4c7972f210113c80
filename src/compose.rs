//! `sqlsuite compose`: a Spider-format JSON file turned into SpiderCompose (`spec/compose.md`).

use std::process::ExitCode;
use std::time::Duration;

use sqlsuite_compose::{self as compose, Options};

use crate::cli::ComposeArgs;
use crate::progress::Progress;

pub fn run(args: &ComposeArgs) -> anyhow::Result<ExitCode> {
    let sources = compose::read_sources(&args.input)?;
    let schemas = compose::read_schemas(&args.tables)?;
    let options = Options {
        split: args.split.into(),
        seed: args.seed,
        timeout: Duration::from_millis(args.timeout_ms),
        ..Options::default()
    };
    // One progress step per composed query; at most 2^(clauses - 1) per source pair.
    let estimate = sources.len() as u64 * 3;
    let bar = Progress::new(estimate, "composing");
    let composition = compose::compose(&sources, &schemas, &args.databases, options, &|| bar.inc());
    bar.finish();
    compose::write(&args.out, &composition, &args.input)?;
    let test = composition
        .pairs
        .iter()
        .filter(|p| p.split == "test")
        .count();
    eprintln!(
        "{} pairs ({} train, {test} test), {} composed queries failed; wrote {}",
        composition.pairs.len(),
        composition.pairs.len() - test,
        composition.failures.len(),
        args.out.join("compose.json").display()
    );
    Ok(ExitCode::SUCCESS)
}
