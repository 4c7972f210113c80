//! `sqlsuite bench <bird manifest> --reference DIR`: BIRD's EX and Soft-F1 of every prediction
//! set, timed against BIRD's own evaluation scripts in the same run, on the same databases.
//!
//! The reference judges one database per schema (`<root>/<db_id>/<db_id>.sqlite`), so both
//! sides run on database *k* of each schema's suite, for *k* = 1 … `--databases`: per set,
//! `evaluation_ex.py` then `evaluation_f1.py` as `run_evaluation.sh` runs them (a Python
//! process and a pool of `--jobs` workers each, the 30 s timeout), against `sqlsuite`'s
//! evaluation of the same sets with `[metrics.ex]` and `[metrics.soft_f1]` alone, no gold
//! cache. Each side's totals are compared as the reference prints them (two decimals), so the
//! ratio is between evaluations that agree. `.ci/bird-reference` installs the scripts.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use sqlsuite::{Evaluation, Manifest};

use super::pass::timed;

/// Where the reference is and how much to run.
pub struct Reference<'a> {
    /// BIRD's `evaluation/` directory.
    pub scripts: &'a Path,
    /// The Python that runs them.
    pub python: &'a Path,
    /// Suite databases per schema (database 1 … this).
    pub databases: usize,
}

/// One side's totals for one set on one database: EX and Soft-F1 over all items, × 100.
#[derive(Clone, Copy, Default)]
struct Totals {
    ex: f64,
    soft_f1: f64,
}

impl Totals {
    /// As the reference prints them: two decimals.
    fn printed(self) -> (String, String) {
        (format!("{:.2}", self.ex), format!("{:.2}", self.soft_f1))
    }
}

pub fn run(manifest: Manifest, reference: &Reference) -> anyhow::Result<ExitCode> {
    let eval = Evaluation::open(&manifest.path)?;
    let suites = Suites::of(&eval)?;
    let sets: Vec<(String, PathBuf)> = manifest
        .predictions
        .iter()
        .filter(|p| p.file.extension().is_some_and(|e| e == "json"))
        .map(|p| (p.name.clone(), p.file.clone()))
        .collect();
    for p in &manifest.predictions {
        if !sets.iter().any(|(name, _)| *name == p.name) {
            println!(
                "skipped {}: not in BIRD's JSON format, the only one its scripts read",
                p.name
            );
        }
    }
    let work = tempfile::tempdir()?;
    let inputs = ReferenceInputs::write(&eval, work.path())?;
    let jobs = sqlsuite::work_pool::threads();
    println!(
        "bench {}: {} prediction sets × {} items, on database 1 … {} of each schema's suite; \
         {} workers each side",
        eval.dataset.name,
        sets.len(),
        eval.items().len(),
        reference.databases,
        jobs
    );
    println!("reference: {}", python_versions(reference.python)?);
    let (mut theirs_wall, mut ours_wall) = (Duration::ZERO, Duration::ZERO);
    let mut disagreements = Vec::new();
    for k in 1..=reference.databases {
        let root = suites.root(k, &work.path().join(format!("db{k}")))?;
        let started = Instant::now();
        let mut theirs = BTreeMap::new();
        for (name, file) in &sets {
            theirs.insert(name.clone(), inputs.run(reference, &root, file, jobs)?);
        }
        let their_time = started.elapsed();
        let (ours, our_time) = ours(&manifest, &root, &sets, work.path())?;
        println!(
            "database {k}: BIRD's scripts {:.2} s, sqlsuite {:.2} s, ratio {:.1}",
            their_time.as_secs_f64(),
            our_time.as_secs_f64(),
            their_time.as_secs_f64() / our_time.as_secs_f64().max(1e-9)
        );
        for (name, _) in &sets {
            let (t, o) = (theirs[name].printed(), ours[name].printed());
            if t != o {
                disagreements.push(format!(
                    "database {k}, {name}: BIRD's scripts EX {} Soft-F1 {}, sqlsuite EX {} \
                     Soft-F1 {}",
                    t.0, t.1, o.0, o.1
                ));
            }
        }
        theirs_wall += their_time;
        ours_wall += our_time;
    }
    println!(
        "total: BIRD's scripts {:.2} s, sqlsuite {:.2} s; ratio reference / sqlsuite {:.1}",
        theirs_wall.as_secs_f64(),
        ours_wall.as_secs_f64(),
        theirs_wall.as_secs_f64() / ours_wall.as_secs_f64().max(1e-9)
    );
    let compared = sets.len() * reference.databases;
    println!(
        "totals equal as the reference prints them: {} of {compared} (set, database) pairs",
        compared - disagreements.len()
    );
    for d in &disagreements {
        println!("  differs: {d}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `python --version` and its `sqlite3` module's SQLite.
fn python_versions(python: &Path) -> anyhow::Result<String> {
    let out = Command::new(python)
        .args([
            "-c",
            "import sys, sqlite3; print('Python', sys.version.split()[0], 'sqlite3', sqlite3.sqlite_version)",
        ])
        .output()
        .with_context(|| format!("{}: cannot run (see .ci/bird-reference)", python.display()))?;
    if !out.status.success() {
        bail!(
            "{}: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Each schema's suite databases, in the order of their numbers.
struct Suites(BTreeMap<String, Vec<PathBuf>>);

impl Suites {
    fn of(eval: &Evaluation) -> anyhow::Result<Suites> {
        let mut suites: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
        for (i, item) in eval.items().iter().enumerate() {
            let databases = eval.dataset.databases[i]
                .as_ref()
                .map_err(|e| anyhow::anyhow!("item {i} ({}): {e}", item.db_id))?;
            let files = suites.entry(item.db_id.clone()).or_default();
            files.extend(
                databases
                    .iter()
                    .filter_map(|d| d.as_file().map(Path::to_path_buf)),
            );
        }
        for files in suites.values_mut() {
            // `x_2.sqlite` before `x_10.sqlite`.
            files.sort_by_key(|f| (f.as_os_str().len(), f.clone()));
            files.dedup();
        }
        Ok(Suites(suites))
    }

    /// `root/<db_id>/<db_id>.sqlite` linked to database `k` of each suite, as the reference
    /// finds databases.
    fn root(&self, k: usize, root: &Path) -> anyhow::Result<PathBuf> {
        for (db_id, files) in &self.0 {
            let file = files.get(k - 1).with_context(|| {
                format!("{db_id}: its suite has {} databases, not {k}", files.len())
            })?;
            let dir = root.join(db_id);
            std::fs::create_dir_all(&dir)?;
            let source = std::path::absolute(file)?;
            std::os::unix::fs::symlink(&source, dir.join(format!("{db_id}.sqlite")))
                .with_context(|| source.display().to_string())?;
        }
        Ok(root.to_path_buf())
    }
}

/// The files the reference reads besides the predictions: the gold (`SQL<TAB>db_id` lines)
/// and the difficulties (JSON lines).
struct ReferenceInputs {
    gold: PathBuf,
    difficulties: PathBuf,
    logs: PathBuf,
}

impl ReferenceInputs {
    fn write(eval: &Evaluation, dir: &Path) -> anyhow::Result<ReferenceInputs> {
        let (mut gold, mut difficulties) = (String::new(), String::new());
        for item in eval.items() {
            // One line per item, as BIRD's MySQL gold file joins its lines.
            let sql = item.gold.replace(['\n', '\r', '\t'], " ");
            let _ = writeln!(gold, "{sql}\t{}", item.db_id);
            let difficulty = item.category.as_deref().unwrap_or("simple");
            let _ = writeln!(
                difficulties,
                "{}",
                serde_json::json!({ "difficulty": difficulty })
            );
        }
        let inputs = ReferenceInputs {
            gold: dir.join("gold.sql"),
            difficulties: dir.join("difficulties.jsonl"),
            logs: dir.join("logs"),
        };
        std::fs::write(&inputs.gold, gold)?;
        std::fs::write(&inputs.difficulties, difficulties)?;
        std::fs::create_dir_all(&inputs.logs)?;
        Ok(inputs)
    }

    /// EX, then Soft-F1, of one set, as `run_evaluation.sh` runs the scripts.
    fn run(
        &self,
        reference: &Reference,
        root: &Path,
        predictions: &Path,
        jobs: usize,
    ) -> anyhow::Result<Totals> {
        let log = self.logs.join("result.txt");
        let _ = std::fs::remove_file(&log);
        for script in ["evaluation_ex.py", "evaluation_f1.py"] {
            let path = reference.scripts.join(script);
            let status = Command::new(reference.python)
                .arg("-u")
                .arg(&path)
                .arg("--db_root_path")
                .arg(format!("{}/", root.display()))
                .arg("--predicted_sql_path")
                .arg(predictions)
                .arg("--ground_truth_path")
                .arg(&self.gold)
                .args(["--num_cpus", &jobs.to_string(), "--meta_time_out", "30.0"])
                .arg("--diff_json_path")
                .arg(&self.difficulties)
                .args(["--sql_dialect", "SQLite", "--output_log_path"])
                .arg(&log)
                .stdout(Stdio::null())
                .status()
                .with_context(|| path.display().to_string())?;
            if !status.success() {
                bail!("{} on {}: {status}", path.display(), predictions.display());
            }
        }
        let text = std::fs::read_to_string(&log).with_context(|| log.display().to_string())?;
        Ok(Totals {
            ex: printed_total(&text, "EX")?,
            soft_f1: printed_total(&text, "Soft-F1")?,
        })
    }
}

/// The `total` column of the line the scripts log for `metric` (`EX  55.41  40.80  …  45.00`).
fn printed_total(log: &str, metric: &str) -> anyhow::Result<f64> {
    log.lines()
        .filter_map(|l| l.strip_prefix(metric))
        .filter(|rest| rest.starts_with(' '))
        .filter_map(|rest| rest.split_whitespace().last()?.parse().ok())
        .next()
        .with_context(|| format!("no {metric} line in the reference's log:\n{log}"))
}

/// sqlsuite's evaluation of `sets` on `root` with BIRD's two metrics, timed; its totals per set.
fn ours(
    manifest: &Manifest,
    root: &Path,
    sets: &[(String, PathBuf)],
    dir: &Path,
) -> anyhow::Result<(BTreeMap<String, Totals>, Duration)> {
    let mut text = format!(
        "[dataset]\nname = {:?}\nformat = \"bird\"\ngold = {:?}\n\n[databases]\npath = {:?}\n\n",
        manifest.name,
        std::path::absolute(&manifest.gold)?,
        root.join("{db_id}/{db_id}.sqlite")
    );
    for (name, file) in sets {
        let file = std::path::absolute(file)?;
        let _ = write!(text, "[[predictions]]\nname = {name:?}\nfile = {file:?}\n");
    }
    text.push_str("[metrics.ex]\ntimeout_ms = 30000\n[metrics.soft_f1]\ntimeout_ms = 30000\n");
    let path = dir.join("bench.toml");
    std::fs::write(&path, text)?;
    let eval = Evaluation::open(&path)?;
    let (wall, _) = timed(&eval, "evaluating ex, soft_f1");
    let items = eval.items().len().max(1) as f64;
    let mut totals = BTreeMap::new();
    for (s, (name, _)) in sets.iter().enumerate() {
        let mut sum = Totals::default();
        for i in 0..eval.items().len() {
            let judged = eval.judge(s, i);
            if let Some(v) = judged.verdict("ex") {
                sum.ex += f64::from(u8::from(v.status == sqlsuite::metric::Status::Correct));
            }
            if let Some(v) = judged.verdict("soft_f1") {
                sum.soft_f1 += v.scores.first().map_or(0.0, |s| s.1);
            }
        }
        totals.insert(
            name.clone(),
            Totals {
                ex: 100.0 * sum.ex / items,
                soft_f1: 100.0 * sum.soft_f1 / items,
            },
        );
    }
    Ok((totals, wall))
}
