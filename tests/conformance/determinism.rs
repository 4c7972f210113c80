//! Deterministic verdicts: the same manifest evaluated by `sqlsuite eval --format jsonl` with
//! one worker, with two, and with two while other processes keep both cores busy must print
//! byte-identical JSON lines (provenance and every verdict, reasons included).
//!
//! Wall-clock limits are what could make them differ, so the manifests bound predictions by a
//! deterministic step budget (`gold_relative_budget`) and leave the time limit far away; each
//! includes predictions right at their budget (one at it, one a step past it).
//!
//! * `determinism::demo`: the demo's gold and databases, its two prediction sets and two more
//!   whose first item is exactly at / just past the budget.
//! * `determinism::spider_sample`: all of Spider dev with three of the shared models, tie-aware
//!   (the default outside `compat`), under a tight budget (`2,000 + 2 × the gold's steps`) that
//!   about a hundred predictions reach — the cartesian products that take the 10 s timeout in
//!   `datasets/spider.toml` stop here within milliseconds, so the whole trial takes about a
//!   second. Ignored with the reason without the shared data; a failure under
//!   `SQLSUITE_REQUIRE_SHARED=1`.
//! * `determinism::pinned_clock`: a manifest whose gold reads the clock (`date('now', …)`),
//!   with `[dataset] clock` pinned, evaluated by the binary under two different simulated
//!   system clocks (`faketime`, Debian's package of libfaketime; ignored with the reason
//!   without it): byte-identical JSON lines, provenance `"clock":"pinned …"`, the gold flagged
//!   `reads_clock`; the same manifest with `clock = "system"` under the same two clocks gives
//!   different verdicts (so the pinning is what makes them equal).
//!
//! The manifests these trials write pin the clock: provenance records the machine's time when
//! the clock is not pinned, which would differ between the runs compared.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use libtest_mimic::{Completion, Failed, Trial};
use sqlsuite::backend::sqlite::Sqlite;
use sqlsuite::backend::{Backend, Database, Limits};
use sqlsuite::trials;

use crate::Trials;

pub fn trials() -> Trials {
    let spider = trials::shared_dir().join("data/spider");
    let mut trials = vec![
        Trial::test("determinism::demo", demo),
        Trial::ignorable_test("determinism::pinned_clock", pinned_clock),
    ];
    if spider.join("dev_gold.sql").is_file() {
        trials.push(Trial::test("determinism::spider_sample", move || {
            spider_sample(&spider)
        }));
    } else {
        trials.push(trials::unavailable_trial(
            "determinism::spider_sample",
            format!(
                "Spider dev not found at {} (set {})",
                spider.display(),
                trials::SHARED_ENV
            ),
        ));
    }
    (trials, Vec::new())
}

/// Processes that spin until dropped (killed by their own handle).
struct Busy(Vec<Child>);

impl Busy {
    fn start(n: usize) -> Result<Busy, Failed> {
        let mut children = Vec::new();
        for _ in 0..n {
            let child = Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .stdout(Stdio::null())
                .spawn()
                .map_err(|e| format!("cannot start a busy loop: {e}"))?;
            children.push(child);
        }
        Ok(Busy(children))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn eval_jsonl(manifest: &Path, jobs: usize) -> Result<Vec<u8>, Failed> {
    let out = Command::new(env!("CARGO_BIN_EXE_sqlsuite"))
        .args(["eval", "--format", "jsonl", "--jobs", &jobs.to_string()])
        .arg(manifest)
        .output()
        .map_err(|e| format!("run sqlsuite: {e}"))?;
    // Exit 1 is a failed gate (strict mode: some prediction is wrong), not an error.
    if !matches!(out.status.code(), Some(0 | 1)) {
        return Err(format!(
            "sqlsuite eval failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(out.stdout)
}

/// Evaluates `manifest` three ways and requires byte-identical output; returns it.
pub(crate) fn same_three_ways(manifest: &Path) -> Result<String, Failed> {
    let one = eval_jsonl(manifest, 1)?;
    let two = eval_jsonl(manifest, 2)?;
    let busy = {
        let _busy = Busy::start(2)?;
        eval_jsonl(manifest, 2)?
    };
    for (label, other) in [("--jobs 2", &two), ("--jobs 2 on busy cores", &busy)] {
        if *other != one {
            let a = String::from_utf8_lossy(&one);
            let b = String::from_utf8_lossy(other);
            let first = a
                .lines()
                .zip(b.lines())
                .find(|(x, y)| x != y)
                .map(|(x, y)| format!("--jobs 1: {x}\n{label}: {y}"))
                .unwrap_or_else(|| "the outputs differ in length".into());
            return Err(format!("{label} differs from --jobs 1:\n{first}").into());
        }
    }
    Ok(String::from_utf8_lossy(&one).into_owned())
}

/// Steps the query takes on the database.
fn steps(db: &Database, sql: &str) -> Result<u64, Failed> {
    Sqlite::default()
        .execute(db, sql, &Limits::default())
        .map(|t| t.steps)
        .map_err(|e| format!("{sql}: {e}").into())
}

/// `SELECT count(*) FROM books`, the demo's first gold, with `n` rows of busy work.
fn counting(n: u64) -> String {
    format!(
        "SELECT count(*) FROM books WHERE (WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL \
         SELECT x + 1 FROM n WHERE x < {n}) SELECT count(*) FROM n) > 0"
    )
}

fn demo() -> Result<(), Failed> {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/demo");
    let library = Database::file(demo.join("db/library/library.sql"));
    // One prediction exactly at the budget, one just past it.
    let at = counting(20_000);
    let budget = steps(&library, &at)?;
    let mut n = 20_000;
    let past = loop {
        n += 1;
        if steps(&library, &counting(n))? > budget {
            break counting(n);
        }
    };
    let dir = tempfile::tempdir()?;
    let v1 = std::fs::read_to_string(demo.join("predictions/v1.txt"))?;
    let mut files = Vec::new();
    for (name, first) in [("at_budget", &at), ("past_budget", &past)] {
        let mut lines: Vec<&str> = v1.lines().collect();
        lines[0] = first;
        let path = dir.path().join(format!("{name}.txt"));
        std::fs::write(&path, lines.join("\n") + "\n")?;
        files.push((name.to_owned(), path));
    }
    files.push(("v1".into(), demo.join("predictions/v1.txt")));
    files.push(("v2".into(), demo.join("predictions/v2.txt")));
    let manifest = write_manifest(
        dir.path(),
        &demo.join("gold.sql"),
        &format!("{}/db/{{db_id}}/{{db_id}}.sql", demo.display()),
        &files,
        (budget, 0),
    )?;
    let out = same_three_ways(&manifest)?;
    // The budget items are there, on either side of it.
    let first = |set: &str| {
        out.lines()
            .find(|l| l.contains(&format!("\"predictions\":\"{set}\",\"index\":0,")))
            .unwrap_or_default()
            .to_owned()
    };
    if !first("at_budget").contains("\"reason\":\"correct\"")
        || !first("past_budget").contains("\"reason\":\"step_budget\"")
    {
        return Err(format!(
            "expected correct at the budget ({budget} steps) and step_budget past it:\n{}\n{}",
            first("at_budget"),
            first("past_budget")
        )
        .into());
    }
    Ok(())
}

/// A strict manifest (no snapshots) with a step budget of `floor + multiplier × the gold's
/// steps` and a time limit no query reaches.
fn write_manifest(
    dir: &Path,
    gold: &Path,
    databases: &str,
    predictions: &[(String, PathBuf)],
    (floor, multiplier): (u64, u64),
) -> Result<PathBuf, Failed> {
    let mut toml = format!(
        "[dataset]\nname = \"det\"\nformat = \"spider\"\ngold = \"{}\"\nclock = \"2020-01-01T00:00:00Z\"\n\n[databases]\npath = \"{databases}\"\n\n",
        gold.display()
    );
    for (name, file) in predictions {
        toml.push_str(&format!(
            "[[predictions]]\nname = \"{name}\"\nfile = \"{}\"\n\n",
            file.display()
        ));
    }
    toml.push_str(&format!(
        "[metrics.exec]\ntimeout_ms = 600000\ngold_relative_budget = {{ floor = {floor}, multiplier = {multiplier} }}\n"
    ));
    let path = dir.join("m.toml");
    std::fs::write(&path, toml)?;
    Ok(path)
}

fn spider_sample(spider: &Path) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let mut files = Vec::new();
    for model in ["dev_1", "dev_5", "dev_13"] {
        files.push((
            model.to_owned(),
            spider.join(format!("predictions/{model}.txt")),
        ));
    }
    let manifest = write_manifest(
        dir.path(),
        &spider.join("dev_gold.sql"),
        &format!("{}/database/{{db_id}}/{{db_id}}.sqlite", spider.display()),
        &files,
        (2_000, 2),
    )?;
    let out = same_three_ways(&manifest)?;
    let budgeted = out.matches("\"reason\":\"step_budget\"").count();
    if budgeted < 50 {
        return Err(format!("only {budgeted} predictions reached their step budget").into());
    }
    println!(
        "spider: {} lines identical three ways, {budgeted} predictions at their step budget",
        out.lines().count()
    );
    Ok(())
}

/// `sqlsuite eval --format jsonl` on `manifest` under a simulated system clock standing at
/// `at` (UTC) when the process starts; `None` without `faketime`.
fn eval_jsonl_at(manifest: &Path, at: &str) -> Result<Option<String>, Failed> {
    let out = match Command::new("faketime")
        .env("TZ", "UTC")
        .args(["-f", &format!("@{at}")])
        .arg(env!("CARGO_BIN_EXE_sqlsuite"))
        .args(["eval", "--format", "jsonl"])
        .arg(manifest)
        .output()
    {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("run faketime: {e}").into()),
    };
    if !matches!(out.status.code(), Some(0 | 1)) {
        return Err(format!(
            "sqlsuite eval under faketime failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(Some(String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// The pinned moment, two simulated days (the first at the pinned moment, so a system clock
/// agrees with the pinned one there), and the dataset: orders placed 2024-03-01, -04-15, -04-30;
/// the gold counts the last 30 days' (`date('now', '-30 days')`: 2 at the pinned moment, 0 in
/// 2027), the prediction the orders since a fixed 2024-04-01 (always 2).
const PINNED: &str = "2024-05-01T12:00:00Z";
const DAYS: [&str; 2] = ["2024-05-01 12:00:00", "2027-06-15 21:30:00"];

fn clock_manifest(dir: &Path, clock: &str) -> Result<PathBuf, Failed> {
    std::fs::create_dir_all(dir.join("db/shop"))?;
    std::fs::write(
        dir.join("db/shop/shop.sql"),
        "CREATE TABLE orders (id INTEGER, placed TEXT);\n\
         INSERT INTO orders VALUES (1, '2024-03-01'), (2, '2024-04-15'), (3, '2024-04-30');\n",
    )?;
    std::fs::write(
        dir.join("gold.sql"),
        "SELECT count(*) FROM orders WHERE placed >= date('now', '-30 days')\tshop\n",
    )?;
    std::fs::write(
        dir.join("pred.txt"),
        "SELECT count(*) FROM orders WHERE placed >= '2024-04-01'\n",
    )?;
    let path = dir.join(format!("clock_{}.toml", clock.replace([':', '-'], "")));
    std::fs::write(
        &path,
        format!(
            "[dataset]\nname = \"clock\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\
             clock = \"{clock}\"\n[databases]\npath = \"db/{{db_id}}/{{db_id}}.sql\"\n\
             [[predictions]]\nname = \"p\"\nfile = \"pred.txt\"\n[metrics.exec]\n"
        ),
    )?;
    Ok(path)
}

/// The verdict lines (the provenance line left out).
fn verdicts(jsonl: &str) -> Vec<&str> {
    jsonl.lines().filter(|l| l.contains("\"index\":")).collect()
}

fn pinned_clock() -> Result<Completion, Failed> {
    let dir = tempfile::tempdir()?;
    let pinned = clock_manifest(dir.path(), PINNED)?;
    let system = clock_manifest(dir.path(), "system")?;
    let mut runs = Vec::new();
    for (manifest, day) in [
        (&pinned, DAYS[0]),
        (&pinned, DAYS[1]),
        (&system, DAYS[0]),
        (&system, DAYS[1]),
    ] {
        match eval_jsonl_at(manifest, day)? {
            Some(out) => runs.push(out),
            None => {
                return Ok(Completion::ignored_with(
                    "faketime not installed (Debian: apt-get install faketime)",
                ))
            }
        }
    }
    let [p1, p2, s1, s2] = [&runs[0], &runs[1], &runs[2], &runs[3]];
    let mut problems = Vec::new();
    if p1 != p2 {
        problems.push(format!(
            "pinned: the JSON lines differ between the two days:\n{p1}\n{p2}"
        ));
    }
    if !p1.contains(&format!("\"clock\":\"pinned {PINNED}\"")) {
        problems.push(format!(
            "pinned: the provenance does not show the clock:\n{p1}"
        ));
    }
    if !p1.contains("\"reason\":\"correct\"") || !p1.contains("\"gold_flags\":[\"reads_clock\"]") {
        problems.push(format!(
            "pinned: expected a correct verdict on a gold flagged reads_clock:\n{p1}"
        ));
    }
    if verdicts(s1) == verdicts(s2) {
        problems.push(format!(
            "system: the verdicts are the same on both days, so this test shows nothing:\n{s1}\n{s2}"
        ));
    }
    if !s1.contains("\"clock\":\"system 2024-05-01T12:00:") {
        problems.push(format!(
            "system: the provenance does not show the system time:\n{s1}"
        ));
    }
    println!(
        "pinned clock: {} JSON lines byte-identical on {} and {}; system clock: verdicts {:?} vs {:?}",
        p1.lines().count(),
        DAYS[0],
        DAYS[1],
        verdicts(s1).iter().map(|l| l.contains("\"reason\":\"correct\"")).collect::<Vec<_>>(),
        verdicts(s2).iter().map(|l| l.contains("\"reason\":\"correct\"")).collect::<Vec<_>>(),
    );
    if problems.is_empty() {
        Ok(Completion::Completed)
    } else {
        Err(problems.join("\n").into())
    }
}
