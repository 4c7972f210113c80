//! `sqlsuite diff <manifest> A B`: the items whose verdict flipped between prediction sets A
//! and B, per metric, direction and reason. Exit status 0 when nothing regressed, 1 when some
//! item regressed (correct in A, incorrect in B), 2 on a bad manifest, dataset or set name.

use std::process::ExitCode;

use anyhow::Context;
use sqlsuite::report::diff::Diff;
use sqlsuite::Evaluation;

use crate::cli::DiffArgs;

pub fn run(args: &DiffArgs) -> anyhow::Result<ExitCode> {
    let (manifest, a, b) = (args.manifest.as_path(), args.a.as_str(), args.b.as_str());
    let eval = Evaluation::open(manifest)?;
    let set = |name: &str| {
        eval.dataset
            .predictions
            .iter()
            .position(|p| p.name == name)
            .with_context(|| {
                let known: Vec<&str> = eval
                    .dataset
                    .predictions
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect();
                format!(
                    "{}: no prediction set named {name:?} (known: {})",
                    manifest.display(),
                    known.join(", ")
                )
            })
    };
    let (a, b) = (set(a)?, set(b)?);
    let total = 2 * eval.items().len();
    let bar = crate::progress::Progress::new(total as u64, "evaluating");
    let run = eval.run_with_progress(&[a, b], &|| bar.inc());
    bar.finish();
    let diff = Diff::of(&run, &run.sets[0], &run.sets[1]);
    crate::emit(&diff.render(&run))?;
    Ok(if diff.regressions() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
