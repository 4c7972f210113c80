//! SParC's evaluation examples: one trial per turn (from `datasets/sparc.toml`), plus a
//! conformance trial that reproduces the official `eval_output.txt` table number for number.
//!
//! `eval_output.txt` was printed by the SParC-era evaluator, which differs from today's official
//! one in two ways: it dropped the file's last interaction (its counts are 131 interactions /
//! 319 turns of the 132 / 322 in `gold.txt`), and it compared FROM tables only when the gold
//! joins tables (exact match mode `legacy_sparc`). The conformance trial evaluates the examples
//! that way and compares every number of the table.

use std::path::{Path, PathBuf};

use libtest_mimic::{Failed, Trial};
use sqlsuite::metric::exact_match::{EsmMode, ExactMatch, ExactMatchOptions};
use sqlsuite::metric::Metric;
use sqlsuite::report::spider_table;
use sqlsuite::{trials, Evaluation, Manifest};

use crate::Trials;

const MANIFEST: &str = "datasets/sparc.toml";

pub fn trials() -> Trials {
    let (mut trials, eval) = trials::trials_for(Path::new(MANIFEST));
    if eval.is_some() {
        trials.push(Trial::test(
            "sparc::conformance::eval_output",
            reproduce_eval_output,
        ));
    }
    (trials, eval.into_iter().collect())
}

/// Writes `text` without its last blank-line-separated group.
fn without_last_interaction(text: &str) -> String {
    let trimmed = text.trim_end();
    match trimmed.rfind("\n\n") {
        Some(cut) => format!("{}\n", &trimmed[..cut]),
        None => String::new(),
    }
}

/// Rows of a table: `(name, numbers)` for every line with a name followed by numbers.
fn numeric_rows(table: &str) -> Vec<(String, Vec<String>)> {
    table
        .lines()
        .filter_map(|line| {
            let name = line.get(..20)?.trim();
            let cells: Vec<String> = line
                .get(21..)?
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            let numeric = !cells.is_empty() && cells.iter().all(|c| c.parse::<f64>().is_ok());
            (numeric && !name.is_empty()).then(|| (name.to_owned(), cells))
        })
        .collect()
}

fn reproduce_eval_output() -> Result<(), Failed> {
    let manifest = Manifest::load(MANIFEST).map_err(|e| e.to_string())?;
    let examples: PathBuf = manifest
        .gold
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let read = |name: &str| std::fs::read_to_string(examples.join(name)).map_err(|e| e.to_string());
    let gold = dir.path().join("gold.txt");
    let predict = dir.path().join("predict.txt");
    std::fs::write(&gold, without_last_interaction(&read("gold.txt")?))
        .map_err(|e| e.to_string())?;
    std::fs::write(&predict, without_last_interaction(&read("predict.txt")?))
        .map_err(|e| e.to_string())?;

    let mut truncated = manifest.clone();
    truncated.gold = gold;
    truncated.predictions[0].file = predict;
    truncated.cache = None;
    // The official run was `--etype match`: exact match alone, in the SParC-era mode.
    let eval = Evaluation::with_metrics(truncated, |resources| {
        let schemas = resources.schemas.clone().ok_or("no schemas")?;
        let options = ExactMatchOptions {
            mode: EsmMode::LegacySparc,
        };
        Ok(vec![
            Box::new(ExactMatch::new(&options, schemas)) as Box<dyn Metric>
        ])
    })
    .map_err(|e| e.to_string())?;
    let run = eval.run(&[0]);
    let ours = spider_table::table(&run, &run.sets[0])
        .ok_or("no official table (items have no hardness)")?;
    let expected = read("eval_output.txt")?;

    let ours = numeric_rows(&ours);
    let expected = numeric_rows(&expected);
    if expected.len() < 30 {
        return Err(format!(
            "only {} numeric rows found in eval_output.txt",
            expected.len()
        )
        .into());
    }
    let mut differences = Vec::new();
    if ours.len() != expected.len() {
        differences.push(format!("{} rows, official {}", ours.len(), expected.len()));
    }
    for ((name, values), (ename, evalues)) in ours.iter().zip(&expected) {
        if name != ename || values != evalues {
            differences.push(format!(
                "{name}: {values:?}\n  official {ename}: {evalues:?}"
            ));
        }
    }
    println!(
        "conformance sparc eval_output: {} of {} rows identical ({} numbers each)",
        expected.len() - differences.len().min(expected.len()),
        expected.len(),
        expected.first().map_or(0, |r| r.1.len())
    );
    if differences.is_empty() {
        Ok(())
    } else {
        Err(differences.join("\n").into())
    }
}
