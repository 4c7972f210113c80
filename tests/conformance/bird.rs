//! BIRD mini-dev (`datasets/bird.toml`, spec/bird.md) on test suites sqlsuite distils from the
//! published database profile (the real databases are not in the shared data):
//!
//! * `bird::predictions_keyed_in_order`: every shipped prediction file keys its values `"0"` …
//!   `"499"` in that order, so pairing a value with the item its key names (sqlsuite) is pairing
//!   it by position (the reference);
//! * on a sample schema's suite (`SAMPLE`, distilled as `sqlsuite distill` does it: seed 0, the
//!   manifest's budget): the distillation report (no gold error, the share of neighbors told apart
//!   printed and held above a floor), and every gold of the schema judged correct against itself
//!   by all four metrics (`exec`, `ex`, `soft_f1`, `r_ves`) on every database of its suite;
//! * `bird::reference::database_1`: on database 1 of the suite, EX and Soft-F1 of the 13 SQLite
//!   prediction sets equal, item for item, what BIRD's own scripts computed on that database
//!   (`tests/fixtures/bird_reference_db1.tsv`; spec/bird.md, "Conformance");
//! * `bird::deterministic`: the 13 sets under all four metrics on database 1 of each suite,
//!   `sqlsuite eval --format jsonl` with one worker, two, and two on busy cores: byte-identical
//!   output, R-VES included (it counts SQLite steps, not time);
//! * `bird::extraction`: the 31 published prediction files (all three dialects) read with
//!   `extract = "answer"`: every answer with a fence gives SQL without one, every other answer is
//!   left as written, and the counts per file are printed (spec/bird.md, "Answers as models
//!   write them");
//! * `bird::fixture`: the project's hand-checked predictions (`tests/fixtures/bird_equivalences.tsv`)
//!   under the strict `exec` on the suites: every equivalent correct, every control wrong, every
//!   control listed as `missed` still correct (the list of what the suites miss stays exact).
//!
//! CI checks the sample; the complete check (every schema, 6,500 items) runs on the suites
//! `sqlsuite distill datasets/bird.toml` writes:
//! `SQLSUITE_BIRD_SUITE=target/suites/bird cargo test --release --test conformance -- bird::`.
//!
//! Without the shared data the trials are reported as ignored; `SQLSUITE_REQUIRE_SHARED=1`
//! turns that into a failure.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use libtest_mimic::{Failed, Trial};
use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};

use sqlsuite::backend::sqlite::Sqlite;
use sqlsuite::dataset::extract::{extract, Rule};
use sqlsuite::dataset::{DatabaseLocator, Item};
use sqlsuite::executor::Executor;
use sqlsuite::metric::exec::{Exec, ExecOptions};
use sqlsuite::metric::{Metric, Status};
use sqlsuite::{registry, trials, Evaluation, Manifest};
use sqlsuite_distill::{distill_all, schema_inputs, DistillOptions, Report};

use crate::Trials;

const MANIFEST: &str = "datasets/bird.toml";
/// The schema CI distils (40 items; its suite takes about 15 s).
const SAMPLE: &[&str] = &["toxicology"];
const REFERENCE: &str = "tests/fixtures/bird_reference_db1.tsv";
const FIXTURE: &str = "tests/fixtures/bird_equivalences.tsv";
/// Where the complete check finds every schema's suite.
const SUITE_ENV: &str = "SQLSUITE_BIRD_SUITE";
/// The share of neighbors the sample's suite tells apart, at least (measured 0.933 for
/// toxicology at seed 0; spec/bird.md §6 has every schema's).
const FLOOR: f64 = 0.93;
/// The metrics of `datasets/bird.toml`.
const EVERY_METRIC: &str =
    "[metrics.exec]\nkeep_distinct = true\nreplace_value_placeholder = false\n\
                            repair_operators = false\ntimeout_ms = 30000\n[metrics.ex]\n\
                            timeout_ms = 30000\n[metrics.soft_f1]\ntimeout_ms = 30000\n\
                            [metrics.r_ves]\ntimeout_ms = 30000\n";

pub fn trials() -> Trials {
    let manifest = match Manifest::load(MANIFEST) {
        Ok(m) => m,
        Err(e) => {
            let name = "bird::manifest";
            return (
                vec![Trial::test(name, move || Err(e.to_string().into()))],
                Vec::new(),
            );
        }
    };
    if !manifest.gold.is_file() {
        let why = format!(
            "BIRD data unavailable: {} not found (set {})",
            manifest.gold.display(),
            trials::SHARED_ENV
        );
        let names = [
            "bird::predictions_keyed_in_order",
            "bird::suite_sample::report",
            "bird::suite_sample::golds_right",
            "bird::reference::database_1",
            "bird::deterministic",
            "bird::extraction",
            "bird::fixture",
        ];
        return (
            names
                .iter()
                .map(|n| trials::unavailable_trial(*n, why.clone()))
                .collect(),
            Vec::new(),
        );
    }
    let manifest = Arc::new(manifest);
    let m = manifest.clone();
    let mut list = vec![Trial::test("bird::predictions_keyed_in_order", move || {
        keyed_in_order(&m)
    })];
    let m = manifest.clone();
    list.push(Trial::test("bird::suite_sample::report", move || {
        report(suite(&m)?)
    }));
    let m = manifest.clone();
    list.push(Trial::test("bird::suite_sample::golds_right", move || {
        golds_right(&m, suite(&m)?)
    }));
    let m = manifest.clone();
    list.push(Trial::test("bird::reference::database_1", move || {
        database_1(&m, suite(&m)?)
    }));
    let m = manifest.clone();
    list.push(Trial::test("bird::deterministic", move || {
        deterministic(&m, suite(&m)?)
    }));
    let m = manifest.clone();
    list.push(Trial::test("bird::extraction", move || extraction(&m)));
    let m = manifest;
    list.push(Trial::test("bird::fixture", move || {
        fixture(&m, suite(&m)?)
    }));
    (list, Vec::new())
}

/// The keys of a JSON object, in the file's order.
struct Keys;

impl<'de> Visitor<'de> for Keys {
    type Value = Vec<String>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
        let mut keys = Vec::new();
        while let Some((key, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
            keys.push(key);
        }
        Ok(keys)
    }
}

fn keyed_in_order(manifest: &Manifest) -> Result<(), Failed> {
    let items = std::fs::read_to_string(&manifest.gold)?;
    let items: Vec<serde_json::Value> = serde_json::from_str(&items)?;
    for set in &manifest.predictions {
        let text = std::fs::read_to_string(&set.file)?;
        let keys = serde_json::Deserializer::from_str(&text).deserialize_map(Keys)?;
        let expected: Vec<String> = (0..items.len()).map(|i| i.to_string()).collect();
        if keys != expected {
            let at = keys.iter().zip(&expected).position(|(a, b)| a != b);
            return Err(format!(
                "{}: {} keys, not \"0\" … \"{}\" in order (first difference at position {at:?})",
                set.file.display(),
                keys.len(),
                items.len() - 1
            )
            .into());
        }
    }
    println!(
        "bird: {} prediction files keyed \"0\" … \"{}\" in order",
        manifest.predictions.len(),
        items.len() - 1
    );
    Ok(())
}

/// Every published prediction file (BIRD's JSON, all dialects) read with `extract = "answer"`.
fn extraction(manifest: &Manifest) -> Result<(), Failed> {
    let dir = manifest
        .predictions
        .first()
        .and_then(|p| p.file.parent())
        .ok_or("datasets/bird.toml names no prediction file")?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut problems = Vec::new();
    let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
    for file in &files {
        let answers: BTreeMap<String, String> =
            serde_json::from_str(&std::fs::read_to_string(file)?)?;
        let mut found: BTreeMap<&str, usize> = BTreeMap::new();
        for (key, value) in &answers {
            let answer = value.split("\t----- bird -----\t").next().unwrap_or(value);
            let fenced = answer.contains("```");
            match extract(Rule::Answer, answer) {
                Some((sql, taken)) => {
                    *found.entry(taken.found).or_default() += 1;
                    if sql.contains("```") || sql.is_empty() || !fenced {
                        problems.push(format!("{}[{key}]: took {sql:?}", file.display()));
                    }
                }
                None if fenced => {
                    problems.push(format!("{}[{key}]: a fence left in place", file.display()));
                }
                None => *found.entry("as written").or_default() += 1,
            }
        }
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        if found.len() > 1 {
            println!("bird extraction: {name}: {found:?}");
        }
        for (k, v) in found {
            *totals.entry(k).or_default() += v;
        }
    }
    println!("bird extraction: {} files: {totals:?}", files.len());
    if files.len() != 31 {
        problems.push(format!(
            "{} prediction files in {}, not 31",
            files.len(),
            dir.display()
        ));
    }
    all_right(problems)
}

/// The suites checked, distilled once per process: `bird_postgres` copies the same sample.
static SUITE: OnceLock<Result<Suite, String>> = OnceLock::new();

/// The suites checked ([`Suite::open`] on the first call).
fn suite(manifest: &Manifest) -> Result<&'static Suite, String> {
    SUITE
        .get_or_init(|| Suite::open(manifest))
        .as_ref()
        .map_err(Clone::clone)
}

/// The directory of the sample's suite (`SAMPLE`'s schemas, distilled on the first call, as
/// the trials here check it); `None` when `SQLSUITE_BIRD_SUITE` names every schema's suite.
pub fn sample_suite() -> Result<Option<(PathBuf, Vec<String>)>, String> {
    let manifest = Manifest::load(MANIFEST).map_err(|e| e.to_string())?;
    let suite = suite(&manifest)?;
    Ok((!suite.schemas.is_empty()).then(|| (suite.dir.clone(), suite.schemas.clone())))
}

/// The suites checked: the sample, distilled here, or every schema's (`SQLSUITE_BIRD_SUITE`).
struct Suite {
    dir: PathBuf,
    /// Empty: every schema.
    schemas: Vec<String>,
    /// The distillation's report (the sample only).
    report: Option<Report>,
}

impl Suite {
    fn open(manifest: &Manifest) -> Result<Suite, String> {
        if let Ok(dir) = std::env::var(SUITE_ENV) {
            return Ok(Suite {
                dir: PathBuf::from(dir),
                schemas: Vec::new(),
                report: None,
            });
        }
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bird-sample");
        let composition =
            registry::compose_for_writing_databases(manifest).map_err(|e| e.to_string())?;
        let only: Vec<String> = SAMPLE.iter().map(|s| s.to_string()).collect();
        let inputs = schema_inputs(manifest, &composition, &only).map_err(|e| e.to_string())?;
        // As `sqlsuite distill datasets/bird.toml` does it: the manifest's exec options and
        // budget, every other default.
        let exec: ExecOptions = manifest
            .metric_options("exec")
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        let defaults = DistillOptions::default();
        let options = DistillOptions {
            exec,
            max_databases: manifest.distill.budget.unwrap_or(defaults.max_databases),
            ..defaults
        };
        let outcomes = distill_all(&inputs, &dir, &options, &|_| {}).map_err(|e| e.to_string())?;
        let report = Report::new(options.seed, false, options.max_databases, 0.0, &outcomes);
        Ok(Suite {
            dir,
            schemas: only,
            report: Some(report),
        })
    }

    fn includes(&self, db_id: &str) -> bool {
        self.schemas.is_empty() || self.schemas.iter().any(|s| s == db_id)
    }

    /// Writes `dir/bird.toml`, a manifest over this suite: BIRD's gold, `sets` as (name,
    /// file), `metrics` as TOML sections, databases `pattern` under the suite's directory.
    fn write_manifest(
        &self,
        manifest: &Manifest,
        sets: &[(String, PathBuf)],
        metrics: &str,
        pattern: &str,
        dir: &Path,
    ) -> Result<PathBuf, String> {
        let absolute =
            |p: &Path| std::fs::canonicalize(p).map_err(|e| format!("{}: {e}", p.display()));
        let suite = std::path::absolute(&self.dir).map_err(|e| e.to_string())?;
        let mut text = format!(
            "[dataset]\nname = \"bird\"\nformat = \"bird\"\ngold = {:?}\n\n[databases]\npath = {:?}\n\n",
            absolute(&manifest.gold)?,
            suite.join(pattern)
        );
        for (name, file) in sets {
            let file = absolute(file)?;
            let _ = write!(text, "[[predictions]]\nname = {name:?}\nfile = {file:?}\n");
        }
        text.push_str(metrics);
        let path = dir.join("bird.toml");
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
        Ok(path)
    }

    /// The evaluation of [`Suite::write_manifest`]'s manifest.
    fn evaluation(
        &self,
        manifest: &Manifest,
        sets: &[(String, PathBuf)],
        metrics: &str,
        pattern: &str,
    ) -> Result<Evaluation, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let path = self.write_manifest(manifest, sets, metrics, pattern, dir.path())?;
        Evaluation::open(&path).map_err(|e| e.to_string())
    }
}

fn report(suite: &Suite) -> Result<(), Failed> {
    let Some(report) = &suite.report else {
        println!("bird: the suites of {SUITE_ENV} (their report is theirs)");
        return Ok(());
    };
    println!("{}", report.summary());
    let t = &report.totals;
    let mut problems = Vec::new();
    if t.gold_errors > 0 {
        problems.push(format!("{} golds fail on their database", t.gold_errors));
    }
    if t.distinguished_fraction < FLOOR {
        problems.push(format!(
            "{:.3} % of neighbors distinguished, under the floor {:.1} %",
            100.0 * t.distinguished_fraction,
            100.0 * FLOOR
        ));
    }
    all_right(problems)
}

/// The BIRD gold file written as a prediction set in BIRD's JSON format (`{"0": "SQL\t----- bird
/// -----\tdb_id", …}`), in a temporary directory kept as long as the first value lives.
pub(crate) fn golds_as_predictions(gold: &Path) -> Result<(tempfile::TempDir, PathBuf), Failed> {
    let items: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(gold)?)?;
    let keyed: BTreeMap<String, String> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let sql = item["SQL"].as_str().unwrap_or_default();
            let db = item["db_id"].as_str().unwrap_or_default();
            (i.to_string(), format!("{sql}\t----- bird -----\t{db}"))
        })
        .collect();
    let dir = tempfile::tempdir()?;
    let gold_set = dir.path().join("gold.json");
    std::fs::write(&gold_set, serde_json::to_string(&keyed)?)?;
    Ok((dir, gold_set))
}

/// Every gold of the suite's schemas judged correct against itself by every metric of the
/// manifest, on every database of its suite; items of other schemas are skipped (no database).
fn golds_right(manifest: &Manifest, suite: &Suite) -> Result<(), Failed> {
    let (_dir, gold_set) = golds_as_predictions(&manifest.gold)?;
    let eval = suite.evaluation(
        manifest,
        &[("gold".to_owned(), gold_set)],
        EVERY_METRIC,
        "{db_id}/*.sqlite",
    )?;
    let run = eval.run_all();
    let set = &run.sets[0];
    let mut judged = 0;
    let mut wrong = Vec::new();
    for (item, result) in run.items.iter().zip(&set.results) {
        if !suite.includes(&item.db_id) {
            continue;
        }
        for (metric, verdict) in &result.verdicts {
            judged += 1;
            if verdict.status != Status::Correct {
                wrong.push(format!(
                    "{} {}: {metric} {}",
                    item.index, item.db_id, verdict.reason
                ));
            }
        }
    }
    println!("bird: {judged} gold verdicts on the suite");
    if judged == 0 {
        return Err("no gold judged".into());
    }
    all_right(wrong)
}

/// One line of the reference's verdicts.
struct Expected {
    set: String,
    index: usize,
    db_id: String,
    ex: bool,
    soft_f1: f64,
}

fn read_reference() -> Result<Vec<Expected>, String> {
    let text = std::fs::read_to_string(REFERENCE).map_err(|e| format!("{REFERENCE}: {e}"))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.starts_with("set\t") {
            continue;
        }
        let bad = || format!("{REFERENCE}:{}: {line:?}", n + 1);
        let f: Vec<&str> = line.split('\t').collect();
        let [set, index, db_id, ex, soft_f1] = f[..] else {
            return Err(bad());
        };
        out.push(Expected {
            set: set.to_owned(),
            index: index.parse().map_err(|_| bad())?,
            db_id: db_id.to_owned(),
            ex: ex == "1",
            soft_f1: soft_f1.parse().map_err(|_| bad())?,
        });
    }
    Ok(out)
}

/// EX and Soft-F1 on database 1 of each suite, item for item against the reference's.
fn database_1(manifest: &Manifest, suite: &Suite) -> Result<(), Failed> {
    let expected = read_reference()?;
    let sets: Vec<(String, PathBuf)> = manifest
        .predictions
        .iter()
        .map(|p| (p.name.clone(), p.file.clone()))
        .collect();
    let metrics = "[metrics.ex]\ntimeout_ms = 30000\n[metrics.soft_f1]\ntimeout_ms = 30000\n";
    let eval = suite.evaluation(manifest, &sets, metrics, "{db_id}/{db_id}_1.sqlite")?;
    let run = eval.run_all();
    let mut compared = 0;
    let mut problems = Vec::new();
    for e in expected.iter().filter(|e| suite.includes(&e.db_id)) {
        let set = run
            .set(&e.set)
            .ok_or_else(|| format!("{REFERENCE}: no prediction set {:?}", e.set))?;
        let result = &set.results[e.index];
        let ex = result.verdict("ex").map(|v| v.status == Status::Correct);
        let f1 = result
            .verdict("soft_f1")
            .and_then(|v| v.scores.iter().find(|(k, _)| *k == "soft_f1").map(|s| s.1))
            .unwrap_or(0.0);
        compared += 1;
        if ex != Some(e.ex) || (f1 - e.soft_f1).abs() > 1e-9 {
            problems.push(format!(
                "{} {} {}: reference EX {} Soft-F1 {}, ours EX {ex:?} Soft-F1 {f1}",
                e.set, e.index, e.db_id, e.ex as u8, e.soft_f1
            ));
        }
    }
    println!(
        "bird: EX and Soft-F1 of {compared} (set, item) pairs on database 1 against the \
         reference: {} disagree",
        problems.len()
    );
    if compared == 0 {
        return Err("nothing compared".into());
    }
    all_right(problems)
}

/// Every verdict and R-VES score byte-identical whatever the workers and the load.
fn deterministic(manifest: &Manifest, suite: &Suite) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let sets: Vec<(String, PathBuf)> = manifest
        .predictions
        .iter()
        .map(|p| (p.name.clone(), p.file.clone()))
        .collect();
    let path = suite.write_manifest(
        manifest,
        &sets,
        EVERY_METRIC,
        "{db_id}/{db_id}_1.sqlite",
        dir.path(),
    )?;
    // Pinned: on the machine's clock the provenance names the moment each run began, and the
    // golds that read the clock would answer for that moment.
    let text = std::fs::read_to_string(&path)?;
    std::fs::write(
        &path,
        text.replacen(
            "[dataset]\n",
            "[dataset]\nclock = \"2024-06-01T00:00:00Z\"\n",
            1,
        ),
    )?;
    let out = crate::determinism::same_three_ways(&path)?;
    let rewarded = out
        .matches("\"metric\":\"r_ves\",\"verdict\":\"correct\"")
        .count();
    println!(
        "bird: {} JSON lines identical three ways, {rewarded} R-VES rewards among them",
        out.lines().count()
    );
    if rewarded == 0 {
        return Err("no R-VES reward in the output".into());
    }
    Ok(())
}

/// The fixture's lines of the suite's schemas, judged by the manifest's strict `exec` on each
/// gold's suite.
fn fixture(manifest: &Manifest, suite: &Suite) -> Result<(), Failed> {
    let items: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&manifest.gold)?)?;
    let options: ExecOptions = manifest
        .metric_options("exec")
        .map_err(|e| e.to_string())?
        .ok_or("datasets/bird.toml has no [metrics.exec]")?;
    let exec = Exec::new(options);
    let executor = Executor::new(Box::new(Sqlite::default()), None);
    let pattern = std::path::absolute(suite.dir.join("{db_id}/*.sqlite"))?;
    let locator = DatabaseLocator::new(&pattern.to_string_lossy()).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(FIXTURE)?;
    let (mut judged, mut missed) = (0, 0);
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let at = format!("{FIXTURE}:{}", n + 1);
        let [index, expect, class, prediction, _why] = line.split('\t').collect::<Vec<_>>()[..]
        else {
            return Err(format!("{at}: not five tab-separated fields").into());
        };
        let index: usize = index
            .parse()
            .map_err(|_| format!("{at}: index {index:?}"))?;
        let item = items.get(index).ok_or(format!("{at}: no item {index}"))?;
        let (Some(gold), Some(db_id)) = (item["SQL"].as_str(), item["db_id"].as_str()) else {
            return Err(format!("{at}: item {index} has no SQL or db_id").into());
        };
        if !suite.includes(db_id) {
            continue;
        }
        let databases = locator.resolve_for(db_id, gold)?;
        let verdict = exec.evaluate(
            &Item::new(index, db_id, gold, "bird"),
            prediction,
            &databases,
            &executor,
        );
        judged += 1;
        let correct = verdict.status == Status::Correct;
        let right = match expect {
            "equivalent" => correct,
            "different" => verdict.status == Status::Incorrect,
            "missed" => {
                missed += 1;
                println!(
                    "bird fixture, missed by the suites: {at} ({class}): {}",
                    verdict.code
                );
                correct
            }
            other => return Err(format!("{at}: expect {other:?}").into()),
        };
        if !right {
            problems.push(format!(
                "{at} {expect} ({class}) judged {}: {}",
                verdict.code, verdict.reason
            ));
        }
    }
    println!(
        "bird: {judged} fixture lines judged ({missed} known misses), {} wrong",
        problems.len()
    );
    if judged == 0 {
        return Err("no fixture line for the suite's schemas".into());
    }
    all_right(problems)
}

/// Passes when nothing is listed; fails with the list, one problem a line.
fn all_right(problems: Vec<String>) -> Result<(), Failed> {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{} problems:\n{}", problems.len(), problems.join("\n")).into())
    }
}
