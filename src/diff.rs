//! `sqlsuite diff <manifest> A B [--reasons] [--width N] [--by-db]`: each metric's accuracy in
//! prediction sets A and B and the difference (per hardness, category, and `db_id` with
//! `--by-db`), then the items whose verdict flipped, per metric, direction
//! and reason. Exit status 0 when nothing regressed, 1 when some item regressed (correct in A,
//! incorrect in B), 2 on a bad manifest, dataset or set name.

use std::process::ExitCode;

use sqlsuite::report::diff::{Diff, RenderOptions};
use sqlsuite::Evaluation;

use crate::cli::DiffArgs;

pub fn run(args: &DiffArgs) -> anyhow::Result<ExitCode> {
    let (manifest, a, b) = (args.manifest.as_path(), args.a.as_str(), args.b.as_str());
    let eval = Evaluation::open(manifest)?;
    let (a, b) = (
        crate::set_named(&eval, manifest, a)?,
        crate::set_named(&eval, manifest, b)?,
    );
    let total = 2 * eval.items().len();
    let bar = crate::progress::Progress::new(total as u64, "evaluating");
    let run = eval.run_with_progress(&[a, b], &|| bar.inc());
    bar.finish();
    let diff = Diff::of(&run, &run.sets[0], &run.sets[1]);
    let options = RenderOptions {
        reasons: args.reasons,
        width: args.width,
        by_db: args.by_db,
    };
    crate::emit(&diff.render(&run, &options))?;
    Ok(if diff.regressions() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
