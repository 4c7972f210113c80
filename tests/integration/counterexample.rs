//! Minimal counterexamples on the demo (`spec/counterexample.md`): shown in the trial's
//! failure message and in JSON lines, re-checked, the databases untouched.

use std::path::{Path, PathBuf};

use sqlsuite::counterexample::Found;
use sqlsuite::report::{jsonl, message};
use sqlsuite::Evaluation;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/demo")
}

/// The demo manifest with `counterexamples = true`, written in `dir` (its paths made absolute).
fn demo_with_counterexamples(dir: &Path) -> PathBuf {
    let d = demo().display().to_string();
    let text = std::fs::read_to_string(demo().join("demo.toml"))
        .unwrap()
        .replace("gold = \"gold.sql\"", &format!("gold = \"{d}/gold.sql\""))
        .replace("\"db/{db_id}", &format!("\"{d}/db/{{db_id}}"))
        .replace("\"predictions/", &format!("\"{d}/predictions/"))
        .replace(
            "\"../../snapshots\"",
            &format!("\"{}/snapshots\"", env!("CARGO_MANIFEST_DIR")),
        )
        .replace(
            "[metrics.exec]\n",
            "[metrics.exec]\ncounterexamples = true\n",
        );
    assert!(text.contains("counterexamples = true"), "{text}");
    let path = dir.join("demo.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The demo's database scripts, path and bytes.
fn database_bytes() -> Vec<(PathBuf, Vec<u8>)> {
    ["library", "school"]
        .iter()
        .map(|db| {
            let path = demo().join(format!("db/{db}/{db}.sql"));
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect()
}

#[test]
fn incorrect_rows_get_a_rechecked_counterexample_in_the_message_and_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let before = database_bytes();
    let eval = Evaluation::open(demo_with_counterexamples(dir.path())).unwrap();
    let run = eval.run_all();
    let mut shown = 0;
    for set in &run.sets {
        for (i, result) in set.results.iter().enumerate() {
            let Some(v) = result.verdict("exec") else {
                continue;
            };
            let rows_differ = ["row_count", "column_count", "order", "rows_differ"];
            match v.counterexample.as_deref() {
                // Only verdicts whose rows differ get one.
                None => assert!(!rows_differ.contains(&v.code.as_str()), "{i}: {v:?}"),
                Some(Found::NotShown(why)) => panic!("item {i} of {}: {why}", set.name),
                Some(Found::Shown(c)) => {
                    shown += 1;
                    assert!(rows_differ.contains(&v.code.as_str()), "{v:?}");
                    assert!(c.minimal && c.rows <= c.original_rows, "{c:?}");
                    assert!(c.rows >= 1, "{c:?}");
                    let text = message::failure(run.judged(set, i));
                    assert!(text.contains("counterexample: "), "{text}");
                    assert!(text.contains("re-checked"), "{text}");
                }
            }
        }
    }
    assert!(shown > 0, "no counterexample shown");
    // Item 13: the gold orders the first-year students by birth date, the prediction the
    // other way round: two of them with different birth dates tell the two apart.
    let v1 = run.set("v1").unwrap();
    let v = v1.results[13].verdict("exec").unwrap();
    assert_eq!(v.code, "order");
    match v.counterexample.as_deref() {
        Some(Found::Shown(c)) => {
            assert_eq!(c.rows, 2, "{}", c.render());
            assert_eq!(c.tables[0].table, "students");
        }
        other => panic!("{other:?}"),
    }
    // The same in JSON lines: tables with their rows, both results, re-checked.
    let lines = jsonl::lines(&run, v1);
    let with: Vec<serde_json::Value> = lines
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| !l["counterexample"].is_null())
        .collect();
    assert!(!with.is_empty());
    for line in &with {
        let c = &line["counterexample"];
        assert_eq!(c["rechecked"], true, "{line}");
        assert!(
            c["tables"].as_array().is_some_and(|t| !t.is_empty()),
            "{line}"
        );
        assert!(c["gold"]["rows"].is_array() && c["predicted"]["rows"].is_array());
    }
    // The same in the HTML report: small tables, the table read and both results.
    let html = sqlsuite::report::html::render(&run, v1, None).unwrap();
    assert!(
        html.contains("<table class=\"cx\"><caption>counterexample: table students (2 rows)"),
        "no counterexample table in the HTML report"
    );
    assert!(html.contains("<caption>gold on it (2 rows)"));
    // The databases are byte for byte what they were.
    assert_eq!(database_bytes(), before);
}

/// The `counterexample` fields of `sqlsuite eval` on the demo as its manifest stands (no
/// `counterexamples` key), with `flags`, one string per JSON line that has one.
fn counterexamples_of_eval(flags: &[&str]) -> Vec<String> {
    let manifest = demo().join("demo.toml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sqlsuite"))
        .arg("eval")
        .arg(&manifest)
        .args(["--format", "jsonl"])
        .args(flags)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.lines().count() > 40,
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| !l["counterexample"].is_null())
        .map(|l| {
            format!(
                "{} {} {}",
                l["predictions"], l["index"], l["counterexample"]
            )
        })
        .collect()
}

/// `eval --counterexamples` turns them on without editing the manifest, and what it shows is
/// byte for byte the same with one worker or two, run after run: the bounds are probes and
/// SQLite steps, never time.
#[test]
fn the_flag_turns_them_on_and_they_do_not_depend_on_the_workers() {
    assert!(counterexamples_of_eval(&[]).is_empty());
    let one = counterexamples_of_eval(&["--counterexamples", "--jobs", "1"]);
    assert!(one.len() >= 6, "{one:#?}");
    assert!(
        one.iter().all(|c| c.contains("\"rechecked\":true")),
        "{one:#?}"
    );
    for _ in 0..2 {
        let two = counterexamples_of_eval(&["--counterexamples", "--jobs", "2"]);
        assert_eq!(two, one);
    }
}
