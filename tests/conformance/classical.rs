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
//!   printed: the sampled budget is small); and judged again with counterexamples (issue 54),
//!   the same verdicts, every wrong one whose rows differ with a counterexample, re-checked
//!   (how many, their rows and the CPU they added printed).
//!
//! The complete run checks the suites `sqlsuite distill datasets/classical.toml` wrote:
//! `SQLSUITE_CLASSICAL_SUITES=target/suites/classical SQLSUITE_CLASSICAL_SCHEMAS=all
//! cargo test --test conformance -- classical::suite --nocapture`.
//!
//! Without the shared data the trials are reported as ignored; `SQLSUITE_REQUIRE_SHARED=1`
//! turns that into a failure.

use std::path::{Path, PathBuf};
use std::time::Duration;

use libtest_mimic::{Failed, Trial};

use sqlsuite::backend::sqlite::Sqlite;
use sqlsuite::backend::{Backend, Database, Limits};
use sqlsuite::counterexample::Found;
use sqlsuite::dataset::{classical, DatabaseLocator, Item};
use sqlsuite::executor::Executor;
use sqlsuite::manifest::LoadError;
use sqlsuite::metric::exec::{Exec, ExecOptions};
use sqlsuite::metric::{Metric, Status, Verdict};
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
        // Suites `sqlsuite distill` wrote (the complete run): checked as they are (the path
        // made absolute: it goes into a manifest in a temporary directory).
        Some(dir) => dir
            .canonicalize()
            .map_err(|e| format!("SQLSUITE_CLASSICAL_SUITES={}: {e}", dir.display()))?,
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
    let pairs: Vec<Pair> = read_fixture()?
        .into_iter()
        .filter(|p| items.get(p.index).is_none_or(|i| i.db_id == db_id))
        .collect();
    let locator = DatabaseLocator::new(&format!("{}/{{db_id}}/*.sqlite", out.display()))?;
    let plain = judge_fixture(&pairs, items, &locator, exec)?;
    let mut errors = Vec::new();
    let (mut equivalent, mut different, mut caught) = (0, 0, 0);
    for (p, v) in pairs.iter().zip(&plain.verdicts) {
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
    errors.extend(check_counterexamples(
        &pairs, items, &locator, exec, &plain, db_id,
    )?);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n").into())
    }
}

/// The fixture's verdicts, in its order, and the CPU time this thread spent judging them.
struct Judged {
    verdicts: Vec<Verdict>,
    cpu: Duration,
}

/// Judges every pair of `pairs` by the exec metric made with `exec`, one after the other on
/// this thread.
fn judge_fixture(
    pairs: &[Pair],
    items: &[Item],
    locator: &DatabaseLocator,
    exec: &ExecOptions,
) -> Result<Judged, Failed> {
    let metric = Exec::new(exec.clone());
    let executor = Executor::new(Box::new(Sqlite::default()), None);
    let start = thread_cpu();
    let mut verdicts = Vec::new();
    for p in pairs {
        let item = items
            .get(p.index)
            .ok_or_else(|| format!("{FIXTURE}:{}: no item {}", p.line, p.index))?;
        let databases = locator.resolve_for(&item.db_id, &item.gold)?;
        verdicts.push(metric.evaluate(item, &p.prediction, &databases, &executor));
    }
    Ok(Judged {
        verdicts,
        cpu: thread_cpu().saturating_sub(start),
    })
}

/// Issue 54's measurement on the fixture: the pairs judged again with `counterexamples = true`
/// give the same verdicts, and every wrong verdict whose rows differ gets a counterexample
/// (each re-checked before it is shown). Prints how many, their rows and the CPU time they
/// added (this thread's, both passes back to back); returns what went wrong.
fn check_counterexamples(
    pairs: &[Pair],
    items: &[Item],
    locator: &DatabaseLocator,
    exec: &ExecOptions,
    plain: &Judged,
    db_id: &str,
) -> Result<Vec<String>, Failed> {
    let with = ExecOptions {
        counterexamples: true,
        ..exec.clone()
    };
    // Two rounds of each side, alternating (the first pass, `plain`, is one): each side's
    // least CPU is compared, and the second round's counterexamples must be the first's.
    let shrunk = judge_fixture(pairs, items, locator, &with)?;
    let plain_again = judge_fixture(pairs, items, locator, exec)?;
    let shrunk_again = judge_fixture(pairs, items, locator, &with)?;
    let mut errors = Vec::new();
    for ((p, a), b) in pairs
        .iter()
        .zip(&shrunk.verdicts)
        .zip(&shrunk_again.verdicts)
    {
        if a.counterexample != b.counterexample {
            errors.push(format!(
                "{FIXTURE}:{}: another counterexample the second time",
                p.line
            ));
        }
    }
    let (mut wrong, mut rows_differ, mut minimal) = (0, 0, 0);
    let mut rows = Vec::new();
    for ((p, before), v) in pairs.iter().zip(&plain.verdicts).zip(&shrunk.verdicts) {
        let at = format!("{FIXTURE}:{}", p.line);
        if (&before.status, &before.code) != (&v.status, &v.code) {
            errors.push(format!(
                "{at}: judged {} without counterexamples, {} with",
                before.code, v.code
            ));
        }
        if v.status != Status::Incorrect {
            if v.counterexample.is_some() {
                errors.push(format!("{at}: a counterexample for a verdict {}", v.code));
            }
            continue;
        }
        wrong += 1;
        if !sqlsuite::counterexample::ROWS_DIFFER.contains(&v.code.as_str()) {
            continue;
        }
        rows_differ += 1;
        match v.counterexample.as_deref() {
            Some(Found::Shown(c)) => {
                rows.push(c.rows);
                minimal += usize::from(c.minimal);
            }
            Some(Found::NotShown(why)) => errors.push(format!("{at}: no counterexample: {why}")),
            None => errors.push(format!("{at}: {} without a counterexample", v.code)),
        }
    }
    rows.sort_unstable();
    let at = |q: f64| {
        let i = ((rows.len() as f64 * q).ceil() as usize).saturating_sub(1);
        rows.get(i).copied().unwrap_or(0)
    };
    let base = plain.cpu.min(plain_again.cpu).as_secs_f64();
    let added = shrunk.cpu.min(shrunk_again.cpu).as_secs_f64();
    println!(
        "{db_id}: counterexamples: {} shown and re-checked of {rows_differ} wrong verdicts whose \
         rows differ ({wrong} wrong in all), {minimal} 1-minimal; rows left median {}, p95 {}, \
         max {}; CPU (this thread, least of 2 rounds) {base:.2} s without, {added:.2} s with \
         ({:+.0} %, {:.1} ms per counterexample; rounds {:.2}/{:.2} s and {:.2}/{:.2} s)",
        rows.len(),
        at(0.5),
        at(0.95),
        rows.last().copied().unwrap_or(0),
        100.0 * (added / base.max(1e-9) - 1.0),
        1000.0 * (added - base) / rows.len().max(1) as f64,
        plain.cpu.as_secs_f64(),
        shrunk.cpu.as_secs_f64(),
        plain_again.cpu.as_secs_f64(),
        shrunk_again.cpu.as_secs_f64()
    );
    Ok(errors)
}

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the struct it is given and reads nothing else.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}
