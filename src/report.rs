//! `sqlsuite report <manifest> [--predictions A] [--against B | --against-snapshot] -o
//! report.html`: one self-contained HTML file for a person to read a prediction set (flipped
//! items first when compared with another set or with its accepted snapshot), or — with
//! neither option, for a manifest with several sets — every set on one page.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use sqlsuite::report::snapshot::{self, Accepted};
use sqlsuite::report::{html, overview};
use sqlsuite::Evaluation;

use crate::cli::ReportArgs;

/// What the reported set is compared with.
pub enum Against<'a> {
    Nothing,
    /// Another prediction set, by name.
    Set(&'a str),
    /// The set's accepted snapshot.
    Snapshot,
}

/// What `--against` / `--against-snapshot` ask to compare with.
fn compared_with(args: &ReportArgs) -> Against<'_> {
    match (args.against.as_deref(), args.against_snapshot) {
        (Some(name), _) => Against::Set(name),
        (None, true) => Against::Snapshot,
        (None, false) => Against::Nothing,
    }
}

pub fn run(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let (manifest, out) = (args.manifest.as_path(), args.out.as_path());
    let (predictions, against) = (args.predictions.as_deref(), compared_with(args));
    let eval = crate::eval::open(manifest, args.counterexamples)?;
    let sets = &eval.dataset.predictions;
    let set = |name: &str| {
        sets.iter().position(|p| p.name == name).with_context(|| {
            let known: Vec<&str> = sets.iter().map(|p| p.name.as_str()).collect();
            format!(
                "{}: no prediction set named {name:?} (known: {})",
                manifest.display(),
                known.join(", ")
            )
        })
    };
    if sets.is_empty() {
        anyhow::bail!("{}: the manifest has no prediction set", manifest.display())
    }
    if predictions.is_none() && matches!(against, Against::Nothing) && sets.len() > 1 {
        return write_overview(&eval, out);
    }
    let a = match predictions {
        Some(name) => set(name)?,
        None => 0,
    };
    let b = match against {
        Against::Set(name) => Some(set(name)?),
        _ => None,
    };
    let accepted = match against {
        Against::Snapshot => {
            let path = snapshot::path(&eval.manifest, &sets[a].name);
            Some(Accepted::read(&path).with_context(|| {
                format!(
                    "{}: no accepted snapshot of {} to compare with ({} is missing or unreadable)",
                    manifest.display(),
                    sets[a].name,
                    path.display()
                )
            })?)
        }
        _ => None,
    };
    let evaluated: Vec<usize> = std::iter::once(a).chain(b).collect();
    let bar =
        crate::progress::Progress::new((evaluated.len() * eval.items().len()) as u64, "evaluating");
    let run = eval.run_with_progress(&evaluated, &|| bar.inc());
    bar.finish();
    let compared = match (run.sets.get(1), &accepted) {
        (Some(b), _) => Some(html::Against::Set(b)),
        (None, Some(acc)) => Some(html::Against::Snapshot(acc)),
        (None, None) => None,
    };
    let page = html::render(&run, &run.sets[0], compared)?;
    std::fs::write(out, page).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// Every prediction set on one page.
fn write_overview(eval: &Evaluation, out: &Path) -> anyhow::Result<ExitCode> {
    let bar = crate::progress::Progress::new(
        (eval.dataset.predictions.len() * eval.items().len()) as u64,
        "evaluating",
    );
    let sets: Vec<usize> = (0..eval.dataset.predictions.len()).collect();
    let run = eval.run_with_progress(&sets, &|| bar.inc());
    bar.finish();
    let page = overview::render(&run)?;
    std::fs::write(out, page).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}
