//! Several statements in one prediction (spec/exec.md §3a), on every real prediction set of the
//! shared data: `statements::census` counts the predictions that hold more than one statement
//! (`sql_tokens::statements`: split at `;` outside strings, quoted identifiers and comments,
//! empty statements left out), sorts them by what the second statement is, and judges each in
//! both modes of its metric:
//!
//! * Spider's 14 dev sets and SParC: `exec` with `compat = "test_suite_sql_eval"` (the manifest)
//!   and without it (the default mode);
//! * BIRD's 13 SQLite sets: `ex` (`compat = "bird"`) and `exec` (the default mode, as
//!   `datasets/bird.toml` has it), on the published schemas with empty tables (the databases
//!   are not in the shared data; a refusal does not depend on rows); its 18 PostgreSQL and
//!   MySQL sets are counted only;
//! * SQL-Eval on SQLite: `sqleval` with `compat = "sqleval"` and without; on PostgreSQL counted
//!   only (no server needed);
//! * SEDE (T-SQL batches, which PCM reads whole by design, spec/pcm.md) and the classical gold
//!   predictions: counted only.
//!
//! It prints the table spec/exec.md §3a holds and requires: in the default mode every prediction
//! of several statements is `several_statements`; in `compat = "test_suite_sql_eval"` each is
//! judged as its first statement alone (the official evaluator keeps only that one); under
//! BIRD's `ex` each is `sql_error` (Python's `sqlite3` refuses it).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use libtest_mimic::{Failed, Trial};
use sqlsuite::metric::exec::{Exec, ExecOptions};
use sqlsuite::metric::sqleval::{Sqleval, SqlevalOptions};
use sqlsuite::metric::Metric;
use sqlsuite::sql_tokens::{same_up_to_case, statements, tokenize};
use sqlsuite::{trials, Evaluation, Manifest};

use crate::Trials;

/// The default mode's reason for a prediction of several statements.
const SEVERAL: &str = "several_statements";

pub fn trials() -> Trials {
    let shared = trials::shared_dir().join("data");
    if !shared.join("spider/dev_gold.sql").exists() {
        let why = format!("no shared data at {}", shared.display());
        return (
            vec![trials::unavailable_trial("statements::census", why)],
            Vec::new(),
        );
    }
    (vec![Trial::test("statements::census", census)], Vec::new())
}

/// What the second statement of a prediction is.
fn category(parts: &[&str]) -> &'static str {
    let Some(second) = parts.get(1) else {
        return "stray `;`";
    };
    if same_up_to_case(parts[0], second) {
        return "repeat";
    }
    let tokens = tokenize(second);
    let first = tokens.first().map(|t| t.lower()).unwrap_or_default();
    match first.as_str() {
        "select" | "with" | "values" | "(" => "query",
        "insert" | "update" | "delete" | "drop" | "create" | "alter" | "replace" | "attach"
        | "detach" | "pragma" | "vacuum" | "reindex" | "analyze" | "begin" | "commit"
        | "rollback" | "savepoint" | "release" | "end" => "write",
        "declare" | "set" | "if" | "print" | "go" | "use" | "exec" | "execute" => "batch",
        _ => "garbage",
    }
}

/// Whether a prediction holds more than one statement, or stray `;` after its only one (which
/// Python's `sqlite3` refuses too).
fn flagged(prediction: &str) -> Option<Vec<&str>> {
    let parts = statements(prediction);
    let semicolons = tokenize(prediction)
        .iter()
        .filter(|t| t.is_symbol(";"))
        .count();
    let stray = parts.len() == 1 && semicolons > 1;
    (parts.len() > 1 || stray).then_some(parts)
}

/// One prediction set's row.
#[derive(Default)]
struct Row {
    predictions: usize,
    categories: BTreeMap<&'static str, usize>,
    /// Per mode label: verdict code → count.
    verdicts: BTreeMap<&'static str, BTreeMap<String, usize>>,
}

impl Row {
    fn several(&self) -> usize {
        self.categories
            .iter()
            .filter(|(c, _)| **c != "stray `;`")
            .map(|(_, n)| n)
            .sum()
    }

    fn line(&self, name: &str, modes: &[&str]) -> String {
        let cats: Vec<String> = self
            .categories
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect();
        let mut line = format!(
            "| {name} | {} | {} | {} |",
            self.predictions,
            self.several(),
            cats.join(", ")
        );
        for mode in modes {
            let codes: Vec<String> = self
                .verdicts
                .get(mode)
                .map(|m| m.iter().map(|(c, n)| format!("{c} {n}")).collect())
                .unwrap_or_default();
            let _ = write!(line, " {} |", codes.join(", "));
        }
        line
    }
}

/// What the census writes: the table, the flagged predictions
/// (`dataset, set, item, category, verdicts`, target/tmp/statements_items.tsv) and the
/// predictions judged otherwise than required.
#[derive(Default)]
struct Census {
    table: String,
    items: String,
    failures: Vec<String>,
}

/// What a flagged prediction's verdicts must be: `(evaluation, set, item, its statements,
/// verdict code per mode)` → what is wrong.
type Check<'a> =
    dyn Fn(&Evaluation, usize, usize, &[&str], &BTreeMap<&str, String>) -> Vec<String> + 'a;

/// A judged mode: its label, the evaluation and the metric whose verdict counts.
struct Mode<'a> {
    label: &'static str,
    eval: &'a Evaluation,
    metric: &'static str,
}

/// Counts every set of `eval` (the first `judged` sets also judged in `modes`), checks each
/// flagged prediction with `check`, and appends the rows to `out`.
fn tally(
    dataset: &str,
    eval: &Evaluation,
    judged: usize,
    modes: &[Mode<'_>],
    check: &Check<'_>,
    out: &mut Census,
) {
    for (set, preds) in eval.dataset.predictions.iter().enumerate() {
        let mut row = Row {
            predictions: preds.queries.len(),
            ..Row::default()
        };
        for (item, prediction) in preds.queries.iter().enumerate() {
            let Some(parts) = flagged(prediction) else {
                continue;
            };
            *row.categories.entry(category(&parts)).or_default() += 1;
            if set >= judged {
                continue;
            }
            let mut codes = BTreeMap::new();
            for mode in modes {
                let result = mode.eval.judge(set, item);
                let code = result
                    .verdicts
                    .iter()
                    .find(|(m, _)| *m == mode.metric)
                    .map_or_else(|| "-".to_owned(), |(_, v)| v.code.clone());
                *row.verdicts
                    .entry(mode.label)
                    .or_default()
                    .entry(code.clone())
                    .or_default() += 1;
                codes.insert(mode.label, code);
            }
            let judged: Vec<String> = codes.iter().map(|(m, c)| format!("{m}={c}")).collect();
            let _ = writeln!(
                out.items,
                "{dataset}\t{}\t{item}\t{}\t{}",
                preds.name,
                category(&parts),
                judged.join(" ")
            );
            for why in check(eval, set, item, &parts, &codes) {
                out.failures
                    .push(format!("{dataset}/{} item {item}: {why}", preds.name));
            }
        }
        let labels: Vec<&str> = modes.iter().map(|m| m.label).collect();
        let name = format!("{dataset} {}", preds.name);
        let _ = writeln!(out.table, "{}", row.line(&name, &labels));
    }
}

/// The default mode refuses every prediction of several statements, and lets one with only
/// stray `;` run.
fn default_refuses(codes: &BTreeMap<&str, String>, parts: &[&str], label: &str) -> Vec<String> {
    let code = codes.get(label).map(String::as_str).unwrap_or("-");
    if code == "missing_database" {
        return Vec::new();
    }
    match parts.len() > 1 {
        true if code != SEVERAL => vec![format!("{label}: {code}, not {SEVERAL}")],
        false if code == SEVERAL => vec![format!("{label}: one statement judged {SEVERAL}")],
        _ => Vec::new(),
    }
}

fn spider_like(manifest: &str, out: &mut Census) -> Result<(), String> {
    let eval = Evaluation::open(manifest).map_err(|e| e.to_string())?;
    let options: ExecOptions = eval
        .manifest
        .metric_options("exec")
        .map_err(|e| e.to_string())?
        .ok_or("no exec metric")?;
    let default = ExecOptions {
        compat: None,
        ..options.clone()
    };
    let plain = eval
        .sharing_executor(|_| Ok(vec![Box::new(Exec::new(default)) as Box<dyn Metric>]))
        .map_err(|e| e.to_string())?;
    let modes = [
        Mode {
            label: "compat",
            eval: &eval,
            metric: "exec",
        },
        Mode {
            label: "default",
            eval: &plain,
            metric: "exec",
        },
    ];
    let first_alone = Exec::new(options);
    let check = |eval: &Evaluation,
                 _set: usize,
                 item: usize,
                 parts: &[&str],
                 codes: &BTreeMap<&str, String>| {
        let mut why = default_refuses(codes, parts, "default");
        if let Ok(dbs) = &eval.dataset.databases[item] {
            let alone =
                first_alone.evaluate(&eval.dataset.items[item], parts[0], dbs, eval.executor());
            if codes.get("compat") != Some(&alone.code) {
                why.push(format!(
                    "compat: {:?}, its first statement alone {}",
                    codes.get("compat"),
                    alone.code
                ));
            }
        }
        why
    };
    let name = eval.dataset.name.clone();
    let sets = eval.dataset.predictions.len();
    tally(&name, &eval, sets, &modes, &check, out);
    Ok(())
}

/// BIRD's manifest with every published prediction file (the 13 SQLite sets first) and the
/// published schemas (empty tables) as its databases.
fn bird_manifest() -> Result<(Manifest, usize), String> {
    let path = Path::new("datasets/bird.toml");
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut text = text.replace(
        "path = \"../target/suites/bird/{db_id}/*.sqlite\"",
        "path = \"${SQLSUITE_SHARED:-../../shared}/data/bird/schemas/{db_id}.sql\"",
    );
    let dir = trials::shared_dir().join("data/bird/predictions");
    let mut others: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with("_sqlite.json") && !n.ends_with("_SQLite.json"))
        .collect();
    others.sort();
    let sqlite = text.matches("[[predictions]]").count();
    // The extra sets go after the manifest's own: appended before `[metrics.ex]`.
    let extra: String = others
        .iter()
        .map(|n| {
            format!(
                "[[predictions]]\nname = \"{}\"\nfile = \"${{SQLSUITE_SHARED:-../../shared}}/data/bird/predictions/{n}\"\n",
                n.trim_start_matches("predict_mini_dev_").trim_end_matches(".json")
            )
        })
        .collect();
    text = text.replacen("[metrics.ex]", &format!("{extra}\n[metrics.ex]"), 1);
    Manifest::parse(path, &text)
        .map(|m| (m, sqlite))
        .map_err(|e| e.to_string())
}

fn bird(out: &mut Census) -> Result<(), String> {
    let (manifest, sqlite) = bird_manifest()?;
    let eval = Evaluation::new(manifest).map_err(|e| e.to_string())?;
    let modes = [
        Mode {
            label: "compat",
            eval: &eval,
            metric: "ex",
        },
        Mode {
            label: "default",
            eval: &eval,
            metric: "exec",
        },
    ];
    let check =
        |_: &Evaluation, _: usize, _: usize, parts: &[&str], codes: &BTreeMap<&str, String>| {
            let mut why = default_refuses(codes, parts, "default");
            if codes.get("compat").map(String::as_str) != Some("sql_error") {
                why.push(format!("ex: {:?}, not sql_error", codes.get("compat")));
            }
            why
        };
    tally("bird", &eval, sqlite, &modes, &check, out);
    Ok(())
}

fn sqleval(out: &mut Census) -> Result<(), String> {
    let eval = Evaluation::open("datasets/sqleval_sqlite.toml").map_err(|e| e.to_string())?;
    let options: SqlevalOptions = eval
        .manifest
        .metric_options("sqleval")
        .map_err(|e| e.to_string())?
        .ok_or("no sqleval metric")?;
    let default = SqlevalOptions {
        compat: None,
        ..options
    };
    let plain = eval
        .sharing_executor(|_| Ok(vec![Box::new(Sqleval::new(default)) as Box<dyn Metric>]))
        .map_err(|e| e.to_string())?;
    let modes = [
        Mode {
            label: "compat",
            eval: &eval,
            metric: "sqleval",
        },
        Mode {
            label: "default",
            eval: &plain,
            metric: "sqleval",
        },
    ];
    let check =
        |_: &Evaluation, _: usize, _: usize, _: &[&str], _: &BTreeMap<&str, String>| Vec::new();
    tally("sqleval_sqlite", &eval, 1, &modes, &check, out);
    Ok(())
}

/// Sets counted only (no judging), with the manifest's `[databases]` section replaced by
/// `databases` (the predictions are read whatever runs them: PostgreSQL's candidates without a
/// server, the classical golds without their suites).
fn counted(manifest: &str, databases: &str, out: &mut Census) -> Result<(), String> {
    let path = Path::new(manifest);
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let start = text.find("[databases]").ok_or("no [databases]")?;
    let end = text[start..]
        .find("[[predictions]]")
        .map_or(text.len(), |e| start + e);
    let text = format!("{}{databases}\n{}", &text[..start], &text[end..]);
    let manifest = Manifest::parse(path, &text).map_err(|e| e.to_string())?;
    let eval = Evaluation::new(manifest).map_err(|e| e.to_string())?;
    let name = eval.dataset.name.clone();
    let none =
        |_: &Evaluation, _: usize, _: usize, _: &[&str], _: &BTreeMap<&str, String>| Vec::new();
    tally(&name, &eval, 0, &[], &none, out);
    Ok(())
}

fn census() -> Result<(), Failed> {
    let mut out = Census {
        table: String::from(
            "| set | predictions | several | second statement | compat | default |\n\
             | --- | ---: | ---: | --- | --- | --- |\n",
        ),
        ..Census::default()
    };
    spider_like("datasets/spider.toml", &mut out)?;
    spider_like("datasets/sparc.toml", &mut out)?;
    bird(&mut out)?;
    sqleval(&mut out)?;
    let sqlite = "[databases]\npath = \"${SQLSUITE_SHARED:-../../shared}/data/sqleval/sqlite/{db_id}.sqlite\"";
    let schemas = "[databases]\npath = \"${SQLSUITE_SHARED:-../../shared}/data/classical/database/{db_id}/{db_id}.sqlite\"";
    for (manifest, databases) in [
        ("datasets/sqleval_postgres.toml", sqlite),
        ("datasets/classical.toml", schemas),
    ] {
        if let Err(e) = counted(manifest, databases, &mut out) {
            let _ = writeln!(out.table, "| {manifest} | not read: {e} | | | | |");
        }
    }
    // SEDE: T-SQL batches, read whole by PCM (spec/pcm.md); counted only.
    let eval = Evaluation::open("datasets/sede.toml").map_err(|e| e.to_string())?;
    let none =
        |_: &Evaluation, _: usize, _: usize, _: &[&str], _: &BTreeMap<&str, String>| Vec::new();
    tally("sede", &eval, 0, &[], &none, &mut out);
    println!("{}", out.table);
    let dir = Path::new("target/tmp");
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(dir.join("statements.md"), &out.table);
    let _ = std::fs::write(dir.join("statements_items.tsv"), &out.items);
    if out.failures.is_empty() {
        Ok(())
    } else {
        let n = out.failures.len();
        Err(format!("{n} predictions:\n{}", out.failures.join("\n")).into())
    }
}
