//! `sqlsuite distill`: distil a test suite for every schema of a manifest's golds and write it
//! with its report (`spec/test_suite.md`).

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;

use sqlsuite::metric::exec::ExecOptions;
use sqlsuite::Manifest;
use sqlsuite_distill::{distill_all, schema_inputs, DistillOptions, Report};

use crate::cli::DistillArgs;
use crate::progress::Progress;

pub fn run(args: &DistillArgs) -> anyhow::Result<ExitCode> {
    let manifest = Manifest::load(&args.manifest)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("target/suites").join(&manifest.name));
    std::fs::create_dir_all(&out).with_context(|| out.display().to_string())?;
    // A manifest may glob the suite it is distilled for (its `[distill]` names the schemas),
    // and `--out` may write it elsewhere: then the glob's directory need not exist.
    let composition = sqlsuite::registry::compose_for_writing_databases(&manifest)?;
    if composition
        .databases
        .as_ref()
        .is_some_and(|d| d.backend != sqlsuite::backend::sqlite::ENTRY.name)
    {
        anyhow::bail!(
            "{}: distillation writes SQLite test suites; this manifest's backend is not SQLite",
            args.manifest.display()
        );
    }
    let inputs = schema_inputs(&manifest, &composition, &args.only)?;
    let mut exec: ExecOptions = manifest.metric_options("exec")?.unwrap_or_default();
    exec.plug_value |= args.plug_value;
    let plug_value = exec.plug_value;
    let budget = args
        .budget
        .or(manifest.distill.budget)
        .unwrap_or(DistillOptions::default().max_databases);
    let options = DistillOptions {
        seed: args.seed,
        max_databases: budget,
        time_budget: args.time_budget.map(Duration::from_secs),
        exec,
        query_timeout: Duration::from_millis(args.timeout_ms),
        reject_ambiguous: !args.keep_ambiguous,
        witnesses_per_database: args.witnesses,
        max_steps: (args.max_steps > 0).then_some(args.max_steps),
    };
    let started = Instant::now();
    let bar = Progress::new(inputs.len() as u64, "distilling schemas");
    let outcomes = distill_all(&inputs, &out, &options, &|_| bar.inc())?;
    bar.finish();
    let report = Report::new(
        args.seed,
        plug_value,
        budget,
        started.elapsed().as_secs_f64(),
        &outcomes,
    );
    let json = serde_json::to_string_pretty(&report)?;
    let report_path = out.join("report.json");
    std::fs::write(&report_path, json).with_context(|| report_path.display().to_string())?;
    let summary = report.summary();
    let summary_path = out.join("summary.txt");
    std::fs::write(&summary_path, &summary).with_context(|| summary_path.display().to_string())?;
    print!("{summary}");
    println!(
        "suite: {}/{{db_id}}/*.sqlite; report: {}",
        out.display(),
        report_path.display()
    );
    Ok(ExitCode::SUCCESS)
}
