//! Defog SQL-Eval: the pair datasets (`datasets/sqleval_sqlite.toml`, `sqleval_postgres.toml`:
//! one trial per (gold, candidate) pair, executed on the real backend), and conformance with the
//! reference's own verdicts (`${SQLSUITE_SHARED:-../shared}/data/sqleval/reference`).
//!
//! Trials:
//! * `sqleval_<dialect>::candidates::<pair>_<db>`: the pair judged by the metric (compat mode);
//! * `sqleval::conformance::<dialect>::compat`: every executed verdict equals the reference's
//!   (`exact_match`, `correct`), those of the pairs whose queries read the clock (`'now'`,
//!   `CURRENT_DATE`) included: both manifests pin the clock to the moment the reference ran
//!   (`[dataset] clock`; measured: spec/sqleval.md §7), and a manifest on the machine's clock
//!   fails. PostgreSQL: the backend refuses a server whose clock is not on the pinned date
//!   (`.ci/postgres` starts one that is);
//! * `sqleval::conformance::<dialect>::default`: every executed verdict in default mode equals the
//!   default-mode verdict on the reference's own result tables, and the pairs where default mode
//!   departs from the reference are listed with the rule behind each;
//! * `sqleval::reference::<dialect>::compare`: the comparison alone, on the reference's result
//!   tables (`gold_rows` / `cand_rows`): compat agrees on 100 %; default-mode changes are listed;
//! * `sqleval::questions::<dialect>::gold_against_itself`: the shipped questions file (all eleven
//!   databases, five of them outside the pairs) read as a dataset, with the first expanded
//!   alternative of every gold as the prediction (a JSON-lines file keyed by index, written in
//!   reverse order): every one must be an exact match on the dialect's backend;
//! * `sqleval::reference::<dialect>::expand`: `expand_gold(gold)` equals the reference's
//!   expanded alternatives.
//!
//! The PostgreSQL dataset needs a server (`SQLSUITE_POSTGRES`, see `.ci/postgres`); without one
//! its trials are reported as ignored with the reason, and fail under `SQLSUITE_REQUIRE_SHARED=1`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Completion, Failed, Trial};
use sqlsuite::clock::Clock;
use sqlsuite::dataset::sqleval::unescape;
use sqlsuite::manifest::LoadError;
use sqlsuite::metric::sqleval::{Sqleval, SqlevalOptions};
use sqlsuite::metric::{is_correct_code, Metric, Status};
use sqlsuite::registry::OpenError;
use sqlsuite::trials;
use sqlsuite::{Evaluation, Manifest};
use sqlsuite_reference::defog::{
    compare_with_fixes, compare_with_gold_sql, expand_gold, tables_from_reference_json, Fixes,
    Mode, Table,
};

use crate::Trials;

const DIALECTS: [&str; 2] = ["sqlite", "postgres"];

fn reference_dir() -> PathBuf {
    trials::shared_dir().join("data/sqleval/reference")
}

pub fn trials() -> Trials {
    let dir = reference_dir();
    let mut trials = Vec::new();
    if !dir.is_dir() {
        let why = format!("data unavailable: {} is missing", dir.display());
        trials.push(trials::unavailable_trial("sqleval::reference::data", why));
    } else {
        for dialect in DIALECTS {
            let file = dir.join(format!("pairs_{dialect}.tsv"));
            let f2 = file.clone();
            trials.push(Trial::test(
                format!("sqleval::reference::{dialect}::compare"),
                move || check_compare(&file),
            ));
            trials.push(Trial::test(
                format!("sqleval::reference::{dialect}::expand"),
                move || check_expand(&f2),
            ));
        }
    }
    let questions_dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
    for dialect in DIALECTS {
        let questions = questions_dir.join(format!("questions_gen_{dialect}.csv"));
        if questions.is_file() {
            trials.push(Trial::ignorable_test(
                format!("sqleval::questions::{dialect}::gold_against_itself"),
                move || gold_against_itself(dialect, &questions),
            ));
        }
    }
    let mut evaluations = Vec::new();
    for dialect in DIALECTS {
        let manifest = format!("datasets/sqleval_{dialect}.toml");
        let (t, eval) = trials::trials_for(Path::new(&manifest));
        trials.extend(t);
        let Some(eval) = eval else { continue };
        let file = dir.join(format!("pairs_{dialect}.tsv"));
        let (e, f) = (eval.clone(), file.clone());
        trials.push(Trial::test(
            format!("sqleval::conformance::{dialect}::compat"),
            move || check_executed_compat(&e, &f),
        ));
        let m = manifest.clone();
        trials.push(Trial::test(
            format!("sqleval::conformance::{dialect}::default"),
            move || check_executed_default(&m, &file),
        ));
        evaluations.push(eval);
    }
    (trials, evaluations)
}

/// (exact, correct) of an executed verdict.
fn executed(eval: &Evaluation, i: usize) -> Result<(bool, bool, String), String> {
    let result = eval.judge(0, i);
    let v = result
        .verdict("sqleval")
        .ok_or("the manifest does not enable sqleval")?;
    if v.status == Status::Skipped {
        return Err(format!("item {i} skipped: {}", v.reason));
    }
    Ok((
        v.code == "correct",
        is_correct_code(&v.code),
        v.code.clone(),
    ))
}

fn aligned(eval: &Evaluation, pairs: &[Pair]) -> Result<(), String> {
    if eval.items().len() != pairs.len() {
        return Err(format!(
            "{} items but {} pairs",
            eval.items().len(),
            pairs.len()
        ));
    }
    Ok(())
}

/// Compat mode, executed on the backend, against the reference's verdicts.
fn check_executed_compat(eval: &Evaluation, path: &Path) -> Result<(), Failed> {
    pinned(eval.manifest.clock)?;
    let pairs = read_pairs(path)?;
    aligned(eval, &pairs)?;
    let mut disagreements = Vec::new();
    for (i, pair) in pairs.iter().enumerate() {
        let (exact, correct, code) = executed(eval, i)?;
        if (exact, correct) != (pair.exact, pair.correct) {
            let result = eval.judge(0, i);
            let reason = result
                .verdict("sqleval")
                .map(|v| v.reason.clone())
                .unwrap_or_default();
            disagreements.push(format!(
                "{}: reference ({}, {}), ours {code} ({reason}){}",
                pair.id,
                pair.exact,
                pair.correct,
                if pair.reads_the_clock() {
                    " [reads the clock]"
                } else {
                    ""
                }
            ));
        }
    }
    println!(
        "conformance sqleval executed on {} (clock: {}): compat agrees on {} of {} pairs{}",
        eval.databases().map_or("no databases", |d| d.backend),
        eval.provenance().clock,
        pairs.len() - disagreements.len(),
        pairs.len(),
        clock_note(&pairs)
    );
    if disagreements.is_empty() && !pairs.is_empty() {
        Ok(())
    } else {
        Err(disagreements.join("\n").into())
    }
}

/// Default mode, executed, against default mode on the reference's own result tables.
fn check_executed_default(manifest: &str, path: &Path) -> Result<(), Failed> {
    let m = Manifest::load(manifest).map_err(|e| e.to_string())?;
    pinned(m.clock)?;
    let options: SqlevalOptions = m
        .metric_options("sqleval")
        .map_err(|e| e.to_string())?
        .ok_or("the manifest does not enable sqleval")?;
    let default = SqlevalOptions {
        compat: None,
        ..options
    };
    let eval = Evaluation::with_metrics(m, |_| {
        Ok(vec![Box::new(Sqleval::new(default)) as Box<dyn Metric>])
    })
    .map_err(|e| e.to_string())?;
    let eval = Arc::new(eval);
    let pairs = read_pairs(path)?;
    aligned(&eval, &pairs)?;
    eval.run(&[0]);
    let mut disagreements = Vec::new();
    let mut departures = Vec::new();
    for (i, pair) in pairs.iter().enumerate() {
        let (exact, correct, code) = executed(&eval, i)?;
        let expected = match tables(pair) {
            Ok((gold, cand)) => {
                let v = compare_with_gold_sql(
                    &gold,
                    None,
                    &cand,
                    &pair.question,
                    &pair.category,
                    Mode::Default,
                );
                (v.exact_match, v.correct)
            }
            Err(_) => (false, false),
        };
        if (exact, correct) != expected {
            disagreements.push(format!(
                "{}: default mode on the reference's tables {expected:?}, executed {code}{}",
                pair.id,
                if pair.reads_the_clock() {
                    " [reads the clock]"
                } else {
                    ""
                }
            ));
        }
        if (exact, correct) != (pair.exact, pair.correct) {
            departures.push(format!(
                "  {}: reference ({}, {}) -> default {code}",
                pair.id, pair.exact, pair.correct
            ));
        }
    }
    println!(
        "default mode executed: departs from the reference on {} of {} pairs (rules: see the \
         reference::compare trial and spec/sqleval.md):\n{}{}",
        departures.len(),
        pairs.len(),
        departures.join("\n"),
        clock_note(&pairs)
    );
    if disagreements.is_empty() && !pairs.is_empty() {
        Ok(())
    } else {
        Err(disagreements.join("\n").into())
    }
}

/// Every disagreement counts, those of pairs that read the clock included: the manifest must pin
/// the clock to the moment the reference ran (spec/sqleval.md §7).
fn pinned(clock: Clock) -> Result<(), String> {
    match clock {
        Clock::Pinned(_) => Ok(()),
        Clock::System => Err(
            "[dataset] clock = \"system\": the pairs that read the clock \
             (CURRENT_DATE, 'now') would be judged on today's date, not the reference's; pin the \
             moment the reference ran (spec/sqleval.md §7)"
                .into(),
        ),
    }
}

/// How many pairs read the clock: all counted, at the pinned moment.
fn clock_note(pairs: &[Pair]) -> String {
    let reading = pairs.iter().filter(|p| p.reads_the_clock()).count();
    format!(
        "\n{reading} pairs read the clock (gold or candidate), judged at the pinned moment: \
         every disagreement counted, none excluded"
    )
}

impl Pair {
    /// Its gold or candidate reads the current date or time ([`sqlsuite::clock::reads_clock`]).
    fn reads_the_clock(&self) -> bool {
        sqlsuite::clock::reads_clock(&self.gold) || sqlsuite::clock::reads_clock(&self.candidate)
    }
}

struct Pair {
    id: String,
    category: String,
    question: String,
    gold: String,
    candidate: String,
    exact: bool,
    correct: bool,
    gold_rows: String,
    cand_rows: String,
    error: String,
}

fn read_pairs(path: &std::path::Path) -> Result<Vec<Pair>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty file")?.split('\t').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| format!("no column {name}"))
    };
    let (id, cat, q, gold, cand, ex, cor, gr, cr, err) = (
        col("pair_id")?,
        col("query_category")?,
        col("question")?,
        col("gold")?,
        col("candidate")?,
        col("exact_match")?,
        col("correct")?,
        col("gold_rows")?,
        col("cand_rows")?,
        col("error")?,
    );
    let mut pairs = Vec::new();
    for (n, line) in lines.enumerate() {
        if line.is_empty() {
            continue;
        }
        let f: Vec<String> = line.split('\t').map(unescape).collect();
        if f.len() != header.len() {
            return Err(format!("line {}: {} fields", n + 2, f.len()));
        }
        pairs.push(Pair {
            id: f[id].clone(),
            category: f[cat].clone(),
            question: f[q].clone(),
            gold: f[gold].clone(),
            candidate: f[cand].clone(),
            exact: f[ex] == "1",
            correct: f[cor] == "1",
            gold_rows: f[gr].clone(),
            cand_rows: f[cr].clone(),
            error: f[err].clone(),
        });
    }
    Ok(pairs)
}

fn tables(pair: &Pair) -> Result<(Vec<Table>, Table), String> {
    let gold = tables_from_reference_json(&pair.gold_rows)?;
    let cand = tables_from_reference_json(&pair.cand_rows)?
        .into_iter()
        .next()
        .ok_or("no candidate table")?;
    Ok((gold, cand))
}

/// The default-mode fixes, one at a time, to name the rule behind a changed verdict.
fn single_fixes() -> Vec<(&'static str, Fixes)> {
    let none = Fixes::none();
    vec![
        (
            "no broadcasting fast path",
            Fixes {
                no_broadcast: true,
                ..none
            },
        ),
        (
            "ORDER BY without direction ascending",
            Fixes {
                order_by_ascending: true,
                ..none
            },
        ),
        (
            "own ORDER BY per gold alternative",
            Fixes {
                own_gold_sql: true,
                ..none
            },
        ),
        (
            "tolerant exact cells / nulls only equal nulls",
            Fixes {
                tolerant_exact: true,
                ..none
            },
        ),
        (
            "no raising (duplicate names, mixed-type sort)",
            Fixes {
                no_raise: true,
                ..none
            },
        ),
        (
            "exact ignores column names (bijection)",
            Fixes {
                column_bijection: true,
                ..none
            },
        ),
    ]
}

fn check_compare(path: &std::path::Path) -> Result<(), Failed> {
    let pairs = read_pairs(path)?;
    let mut agree = 0;
    let mut disagreements = Vec::new();
    let mut changed = Vec::new();
    let mut raised = 0;
    for pair in &pairs {
        let (gold, cand) = match tables(pair) {
            Ok(t) => t,
            Err(e) if !pair.error.is_empty() => {
                // nothing to compare; the reference raised
                let _ = e;
                agree += 1;
                continue;
            }
            Err(e) => {
                disagreements.push(format!("{}: tables: {e}", pair.id));
                continue;
            }
        };
        let expected = if pair.error.is_empty() {
            (pair.exact, pair.correct)
        } else {
            (false, false)
        };
        let v = compare_with_gold_sql(
            &gold,
            Some(&pair.gold),
            &cand,
            &pair.question,
            &pair.category,
            Mode::Compat,
        );
        if !pair.error.is_empty() && v.reason.contains("raises") {
            raised += 1;
        }
        if (v.exact_match, v.correct) == expected {
            agree += 1;
        } else {
            disagreements.push(format!(
                "{}: reference {:?}, ours {:?} ({}){}",
                pair.id,
                expected,
                (v.exact_match, v.correct),
                v.reason,
                if pair.error.is_empty() {
                    String::new()
                } else {
                    format!(" [reference error: {}]", pair.error)
                }
            ));
        }
        let d = compare_with_gold_sql(
            &gold,
            Some(&pair.gold),
            &cand,
            &pair.question,
            &pair.category,
            Mode::Default,
        );
        if (d.exact_match, d.correct) != (v.exact_match, v.correct) {
            let rules: Vec<&str> = single_fixes()
                .into_iter()
                .filter(|(_, fixes)| {
                    let one = compare_with_fixes(
                        &gold,
                        Some(&pair.gold),
                        &cand,
                        &pair.question,
                        &pair.category,
                        *fixes,
                    );
                    (one.exact_match, one.correct) != (v.exact_match, v.correct)
                })
                .map(|(name, _)| name)
                .collect();
            changed.push(format!(
                "  {}: compat {:?} -> default {:?} [{}] ({})",
                pair.id,
                (v.exact_match, v.correct),
                (d.exact_match, d.correct),
                if rules.is_empty() {
                    "combination of fixes".to_owned()
                } else {
                    rules.join("; ")
                },
                d.reason
            ));
        }
    }
    println!(
        "conformance sqleval {}: compat agrees on {agree} of {} pairs ({:.2} %)",
        path.display(),
        pairs.len(),
        100.0 * agree as f64 / pairs.len().max(1) as f64
    );
    println!(
        "reference raised on {} pairs; compat raises on {raised} of them",
        pairs.iter().filter(|p| !p.error.is_empty()).count()
    );
    println!("default mode changes {} verdicts:", changed.len());
    for c in &changed {
        println!("{c}");
    }
    if disagreements.is_empty() && !pairs.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} disagreements:\n{}",
            disagreements.len(),
            disagreements.join("\n")
        )
        .into())
    }
}

fn check_expand(path: &std::path::Path) -> Result<(), Failed> {
    let pairs = read_pairs(path)?;
    let mut seen = std::collections::BTreeSet::new();
    let (mut agree, mut total) = (0, 0);
    let mut differences = Vec::new();
    for pair in &pairs {
        if pair.gold_rows.trim().is_empty() || !seen.insert(pair.gold.clone()) {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(&pair.gold_rows) {
            Ok(v) => v,
            Err(e) => {
                differences.push(format!("{}: gold_rows: {e}", pair.id));
                continue;
            }
        };
        let expected: Vec<String> = value
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.get("sql").and_then(|s| s.as_str()).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        total += 1;
        let ours = expand_gold(&pair.gold);
        if ours == expected {
            agree += 1;
        } else {
            differences.push(format!(
                "{}:\n  ours {ours:?}\n  reference {expected:?}",
                pair.id
            ));
        }
    }
    println!(
        "conformance sqleval expand {}: {agree} of {total} distinct golds expand identically",
        path.display()
    );
    if differences.is_empty() && total > 0 {
        Ok(())
    } else {
        Err(differences.join("\n").into())
    }
}

/// The questions file as a dataset, each gold's first alternative as its prediction.
fn gold_against_itself(dialect: &str, questions: &Path) -> Result<Completion, Failed> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let items =
        sqlsuite::dataset::sqleval::read_gold(questions, None).map_err(|e| e.to_string())?;
    let metric = sqlsuite::metric::sqleval::Sqleval::new(Default::default());
    let mut lines = Vec::new();
    for item in items.iter().rev() {
        let first = metric
            .alternatives(&item.gold)
            .into_iter()
            .next()
            .ok_or_else(|| format!("{}: the gold expands to nothing", item.source))?;
        lines.push(serde_json::json!({"index": item.index, "generated_query": first}).to_string());
    }
    let predictions = dir.path().join("first_alternatives.jsonl");
    std::fs::write(&predictions, lines.join("\n")).map_err(|e| e.to_string())?;
    let shared = questions.parent().unwrap_or(Path::new("."));
    let databases = match dialect {
        "postgres" => "backend = \"postgres\"".to_owned(),
        _ => format!("path = {:?}", shared.join("sqlite/{db_id}.sqlite")),
    };
    let text = format!(
        "[dataset]\nname = \"questions_{dialect}\"\nformat = \"sqleval\"\ngold = {:?}\n\
         when_missing = \"ignore\"\n[databases]\n{databases}\n[[predictions]]\n\
         name = \"first_alternative\"\nfile = {:?}\n[metrics.sqleval]\n",
        questions.display().to_string(),
        predictions.display().to_string(),
    );
    let manifest_path = dir.path().join("questions.toml");
    let opened = Manifest::parse(&manifest_path, &text).map_err(OpenError::from);
    let eval = match opened.and_then(Evaluation::new) {
        Ok(eval) => eval,
        Err(OpenError::Manifest(LoadError::Unavailable(why))) => {
            let why: Vec<String> = why.iter().map(ToString::to_string).collect();
            if trials::data_required() {
                return Err(why.join("; ").into());
            }
            return Ok(Completion::ignored_with(why.join("; ")));
        }
        Err(e) => return Err(e.to_string().into()),
    };
    eval.run(&[0]);
    let mut wrong = Vec::new();
    let mut categories = std::collections::BTreeSet::new();
    for (i, item) in eval.items().iter().enumerate() {
        categories.insert(item.category.clone().unwrap_or_default());
        let v = eval
            .judge(0, i)
            .verdict("sqleval")
            .cloned()
            .ok_or("no sqleval verdict")?;
        if v.code != "correct" {
            wrong.push(format!(
                "{} ({}): {} {}",
                item.source, item.db_id, v.code, v.reason
            ));
        }
    }
    println!(
        "{dialect}: {} of {} golds match their own first alternative exactly ({} categories)",
        eval.items().len() - wrong.len(),
        eval.items().len(),
        categories.len()
    );
    if wrong.is_empty() && eval.items().len() == 210 && categories.len() == 6 {
        Ok(Completion::Completed)
    } else {
        Err(wrong.join("\n").into())
    }
}
