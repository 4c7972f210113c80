//! `sqlsuite report <manifest> [--predictions A] [--against B] -o report.html`: one
//! self-contained HTML file for a person to read a prediction set (flipped items first when
//! compared with another), or — without `--predictions` and `--against`, for a manifest with
//! several sets — every set on one page.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use sqlsuite::report::{html, overview};
use sqlsuite::Evaluation;

pub fn run(
    manifest: &Path,
    predictions: Option<&str>,
    against: Option<&str>,
    out: &Path,
) -> anyhow::Result<ExitCode> {
    let eval = Evaluation::open(manifest)?;
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
    if predictions.is_none() && against.is_none() && sets.len() > 1 {
        return write_overview(&eval, out);
    }
    let a = match predictions {
        Some(name) => set(name)?,
        None => 0,
    };
    let b = against.map(set).transpose()?;
    let evaluated: Vec<usize> = std::iter::once(a).chain(b).collect();
    let bar =
        crate::progress::Progress::new((evaluated.len() * eval.items().len()) as u64, "evaluating");
    eval.evaluate_sets(&evaluated, &|| bar.inc());
    bar.finish();
    let page = html::render(&eval, a, b)?;
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
    eval.evaluate_all(&|| bar.inc());
    bar.finish();
    let page = overview::render(eval)?;
    std::fs::write(out, page).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}
