//! The classical datasets (`datasets/classical.toml`, `spec/classical.md`) on suites sqlsuite
//! distils itself:
//!
//! * `classical::schemas`: every schema loads from the file `[distill] schema` names (the shipped
//!   schema-only database, else the text2sql-data schema CSV), and every gold of the dataset
//!   runs on it — for advising and ATIS, on the database built from the CSV alone;
//! * `classical::suite::<db_id>` (a sample of schemas: `SQLSUITE_CLASSICAL_SCHEMAS`, default
//!   geography; `all` for the eight): the schema distilled at `SQLSUITE_CLASSICAL_BUDGET`
//!   (default 300) databases into the target directory, then the reference's gold predictions
//!   file, read through the manifest with `subset` set to the schema, judged with the manifest's
//!   exec options (the reference's judgement): every gold correct, on every suite database
//!   (no database left out because the gold fails there); and the project's fixture
//!   (`tests/fixtures/classical_equivalences.tsv`) for that schema: every equivalent prediction
//!   correct, every control wrong (or, for a control the suite does not catch, the count
//!   printed: the sampled budget is small).
//!
//! The complete run checks the suites `sqlsuite distill datasets/classical.toml` wrote:
//! `SQLSUITE_CLASSICAL_SUITES=target/suites/classical SQLSUITE_CLASSICAL_SCHEMAS=all
//! cargo test --release --test classical`.
//!
//! Without the shared data the trials are reported as ignored; `SQLSUITE_REQUIRE_SHARED=1`
//! turns that into a failure.

use std::path::{Path, PathBuf};

use libtest_mimic::{Failed, Trial};

use sqlsuite::backend::sqlite::Sqlite;
use sqlsuite::backend::{Backend, Database, Limits};
use sqlsuite::dataset::{classical, DatabaseLocator, Item};
use sqlsuite::executor::Executor;
use sqlsuite::manifest::LoadError;
use sqlsuite::metric::exec::{Exec, ExecOptions};
use sqlsuite::metric::{Metric, Status};
use sqlsuite::registry::{self, OpenError};
use sqlsuite::report::snapshot;
use sqlsuite::trials;
use sqlsuite::{Evaluation, Manifest};
use sqlsuite_distill::{distill_all, schema_inputs, DistillOptions, Report};

use crate::Trials;

const MANIFEST: &str = "datasets/classical.toml";
const SAMPLE: &[&str] = &["geography"];
const BUDGET: usize = 300;
const SEED: u64 = 7;
const FIXTURE: &str = "tests/fixtures/classical_equivalences.tsv";
const ALL: &[&str] = &[
    "academic",
    "advising",
    "atis",
    "geography",
    "imdb",
    "restaurants",
    "scholar",
    "yelp",
];

pub fn trials() -> Trials {
    let mut trials = Vec::new();
    match Manifest::load(MANIFEST) {
        Err(LoadError::Unavailable(why)) => trials.push(trials::unavailable_trial(
            "classical::data",
            format!("data unavailable: {}", join(&why)),
        )),
        Err(e) => trials.push(Trial::test("classical::manifest", move || {
            Err(e.to_string().into())
        })),
        Ok(manifest) if !manifest.gold.is_file() => trials.push(trials::unavailable_trial(
            "classical::data",
            format!("data unavailable: {} not found", manifest.gold.display()),
        )),
        Ok(manifest) => {
            let m = manifest.clone();
            trials.push(Trial::test("classical::schemas", move || check_schemas(&m)));
            match sample() {
                Ok((schemas, budget)) => {
                    for db_id in schemas {
                        let m = manifest.clone();
                        trials.push(Trial::test(
                            format!("classical::suite::{db_id}"),
                            move || check_suite(&m, &db_id, budget),
                        ));
                    }
                }
                Err(e) => trials.push(Trial::test("classical::sample", move || Err(e.into()))),
            }
        }
    }
    (trials, Vec::new())
}

fn join(errors: &[impl ToString]) -> String {
    errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

fn sample() -> Result<(Vec<String>, usize), String> {
    let schemas = match std::env::var("SQLSUITE_CLASSICAL_SCHEMAS") {
        Ok(v) if v == "all" => ALL.iter().map(|s| s.to_string()).collect(),
        Ok(v) => v.split(',').map(|s| s.trim().to_owned()).collect(),
        Err(_) => SAMPLE.iter().map(|s| s.to_string()).collect(),
    };
    let budget = match std::env::var("SQLSUITE_CLASSICAL_BUDGET") {
        Ok(v) => v
            .parse()
            .map_err(|_| format!("SQLSUITE_CLASSICAL_BUDGET={v:?} is not a number"))?,
        Err(_) => BUDGET,
    };
    Ok((schemas, budget))
}

fn schema_file(manifest: &Manifest, db_id: &str) -> Result<PathBuf, String> {
    manifest
        .distill
        .schema
        .iter()
        .map(|p| PathBuf::from(p.replace("{db_id}", db_id)))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("no schema file for {db_id}"))
}

fn check_schemas(manifest: &Manifest) -> Result<(), Failed> {
    let items = classical::read_gold(&manifest.gold)?;
    let limits = Limits::default();
    // As the metric runs them (`YEAR(CURDATE())` replaced, as the reference does).
    let exec = exec_options(manifest)?;
    let mut failures = Vec::new();
    for db_id in ALL {
        let path = schema_file(manifest, db_id)?;
        let db = Database::file(&path);
        let golds: Vec<&Item> = items.iter().filter(|i| i.db_id == *db_id).collect();
        let mut ran = 0;
        for item in &golds {
            match Sqlite::default().execute(&db, &exec.gold_plan(&item.gold).sql, &limits) {
                Ok(_) => ran += 1,
                Err(e) => failures.push(format!("{} ({db_id}): {e}", item.index)),
            }
        }
        println!(
            "{db_id:12} {ran:5}/{:5} golds run on {}",
            golds.len(),
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        if golds.is_empty() {
            failures.push(format!("no gold of {db_id}"));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} failures:\n{}", failures.len(), failures.join("\n")).into())
    }
}

/// The directory the manifest's `[databases]` globs (`sqlsuite distill` writes it).
fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("classical-suites")
}

fn exec_options(manifest: &Manifest) -> Result<ExecOptions, String> {
    manifest
        .metric_options::<ExecOptions>("exec")
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "the manifest has no [metrics.exec]".to_owned())
}

fn check_suite(manifest: &Manifest, db_id: &str, budget: usize) -> Result<(), Failed> {
    let exec = exec_options(manifest)?;
    let given = std::env::var_os("SQLSUITE_CLASSICAL_SUITES").map(PathBuf::from);
    let out = match &given {
        // Suites `sqlsuite distill` wrote (the complete run): checked as they are.
        Some(dir) => dir.clone(),
        None => {
            let out = suite_dir();
            // The manifest globs target/suites/classical: it must exist to be composed.
            let glob_dir = manifest
                .path
                .parent()
                .unwrap_or(Path::new("."))
                .join("../target/suites/classical");
            std::fs::create_dir_all(&glob_dir)?;
            let composition = registry::compose(manifest).map_err(|e: OpenError| e.to_string())?;
            let inputs = schema_inputs(manifest, &composition, &[db_id.to_owned()])?;
            let options = DistillOptions {
                seed: SEED,
                max_databases: budget,
                exec: exec.clone(),
                ..DistillOptions::default()
            };
            let outcomes = distill_all(&inputs, &out, &options, &|_| {})?;
            print!(
                "{}",
                Report::new(SEED, false, budget, 0.0, &outcomes).summary()
            );
            out
        }
    };

    // The gold predictions file, read as a user would: the manifest with `subset` set and the
    // subset's lines of the file, databases globbing the suite just written.
    let dir = tempfile::tempdir()?;
    let items = classical::read_gold(&manifest.gold)?;
    let lines: Vec<String> = std::fs::read_to_string(&manifest.predictions[0].file)?
        .lines()
        .map(str::to_owned)
        .collect();
    if lines.len() != items.len() {
        return Err(format!("{} gold lines for {} items", lines.len(), items.len()).into());
    }
    let subset: Vec<&str> = items
        .iter()
        .filter(|i| i.db_id == db_id)
        .map(|i| lines[i.index].as_str())
        .collect();
    let predictions = dir.path().join("gold_subset.txt");
    std::fs::write(&predictions, subset.join("\n") + "\n")?;
    let text = std::fs::read_to_string(&manifest.path)?
        .replace(
            "when_missing = \"ignore\"",
            &format!("when_missing = \"fail\"\nsubset = \"{db_id}\""),
        )
        .replace(
            "../target/suites/classical",
            &out.display().to_string().replace('\\', "/"),
        )
        .replace(
            "${SQLSUITE_SHARED:-../../shared}/data/classical/classical_test_gold.txt",
            &predictions.display().to_string().replace('\\', "/"),
        )
        .replace(
            "${SQLSUITE_SHARED:-../../shared}",
            &trials::shared_dir()
                .canonicalize()?
                .display()
                .to_string()
                .replace('\\', "/"),
        );
    let subset_manifest = dir.path().join("classical.toml");
    std::fs::write(&subset_manifest, text)?;
    let evaluation = Evaluation::open(&subset_manifest)?;
    let run = evaluation.run(&[0]);
    let mut wrong = Vec::new();
    let mut left_out = 0;
    let mut correct = 0;
    for (item, result) in run.items.iter().zip(&run.sets[0].results) {
        let v = &result.verdicts[0].1;
        if v.status == Status::Correct {
            correct += 1;
        } else {
            wrong.push(format!("{} {}: {}", item.index, v.code, v.reason));
        }
        if !v.details.is_empty() {
            left_out += 1;
        }
    }
    println!(
        "{db_id}: gold predictions {correct}/{} correct on the suite; {left_out} left a \
         database out",
        subset.len()
    );
    if !wrong.is_empty() || left_out > 0 || correct != subset.len() {
        return Err(format!("gold predictions not all correct:\n{}", wrong.join("\n")).into());
    }
    // The accepted report of the gold file's evaluation, at the sampled budget (distillation is
    // deterministic given the seed).
    if budget == BUDGET && given.is_none() {
        snapshot::assert_named(
            Path::new("snapshots"),
            &format!("classical__gold_{db_id}"),
            &manifest.path,
            &snapshot::render(&run, &run.sets[0]),
        )?;
    }
    check_fixture(&items, &out, db_id, &exec)
}

/// One fixture line.
struct Pair {
    line: usize,
    index: usize,
    equivalent: bool,
    prediction: String,
    why: String,
}

fn read_fixture() -> Result<Vec<Pair>, String> {
    let text = std::fs::read_to_string(FIXTURE).map_err(|e| format!("{FIXTURE}: {e}"))?;
    let mut pairs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let bad = |m: String| format!("{FIXTURE}:{}: {m}", n + 1);
        let f: Vec<&str> = line.split('\t').collect();
        let [index, expect, _class, prediction, why] = f[..] else {
            return Err(bad(format!("{} fields, expected 5", f.len())));
        };
        let equivalent = match expect {
            "equivalent" => true,
            "different" => false,
            other => return Err(bad(format!("expect {other:?}"))),
        };
        pairs.push(Pair {
            line: n + 1,
            index: index.parse().map_err(|_| bad(format!("index {index:?}")))?,
            equivalent,
            prediction: prediction.to_owned(),
            why: why.to_owned(),
        });
    }
    Ok(pairs)
}

fn check_fixture(
    items: &[Item],
    out: &Path,
    db_id: &str,
    exec: &ExecOptions,
) -> Result<(), Failed> {
    let pairs = read_fixture()?;
    let metric = Exec::new(exec.clone());
    let executor = Executor::new(Box::new(Sqlite::default()), None);
    let locator = DatabaseLocator::new(&format!("{}/{{db_id}}/*.sqlite", out.display()))?;
    let (mut equivalent, mut different, mut caught) = (0, 0, 0);
    let mut errors = Vec::new();
    for p in &pairs {
        let item = items
            .get(p.index)
            .ok_or_else(|| format!("{FIXTURE}:{}: no item {}", p.line, p.index))?;
        if item.db_id != db_id {
            continue;
        }
        let databases = locator.resolve_for(db_id, &item.gold)?;
        let v = metric.evaluate(item, &p.prediction, &databases, &executor);
        if p.equivalent {
            equivalent += 1;
            if v.status != Status::Correct {
                errors.push(format!(
                    "{FIXTURE}:{}: equivalent but judged {}: {} ({})",
                    p.line, v.code, v.reason, p.why
                ));
            }
        } else {
            different += 1;
            if v.status == Status::Incorrect {
                caught += 1;
            } else {
                println!(
                    "  not caught at this budget: {FIXTURE}:{} ({})",
                    p.line, p.why
                );
            }
        }
    }
    println!(
        "{db_id}: fixture: {equivalent} equivalent ({} judged correct), {different} controls \
         ({caught} judged wrong)",
        equivalent - errors.len()
    );
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n").into())
    }
}
