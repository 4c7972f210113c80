//! `sqlsuite eval --journal FILE --resume`: a run killed at any point and resumed gives the
//! output of an uninterrupted run byte for byte, in every format; a journal of another
//! evaluation, or damaged other than by a kill, is refused. Kills are simulated by cutting an
//! uninterrupted run's journal at line boundaries and in the middle of lines; the SIGKILL
//! campaign on Spider is `.ci/resume-faults` (spec/exec.md, "Resuming a run"). The manifests pin
//! the clock: on the machine's, the provenance names the time each run began.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FORMATS: [&str; 3] = ["text", "jsonl", "junit"];

fn eval(manifest: &Path, more: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqlsuite"))
        .arg("eval")
        .arg(manifest)
        .args(more)
        .output()
        .expect("run sqlsuite")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/demo")
}

/// The demo's two prediction sets (exec: rows, messages, details, steps) in `dir`, so that
/// changing a file there changes nothing of the project's.
fn demo_copy(dir: &Path) -> PathBuf {
    for f in ["v1.txt", "v2.txt"] {
        std::fs::copy(demo().join("predictions").join(f), dir.join(f)).unwrap();
    }
    let manifest = format!(
        "[dataset]\nname = \"demo\"\nclock = \"2024-05-01T12:00:00Z\"\nformat = \"spider\"\ngold = \"{}\"\n\n\
         [databases]\npath = \"{}/db/{{db_id}}/{{db_id}}.sql\"\n\n\
         [[predictions]]\nname = \"v1\"\nfile = \"v1.txt\"\n\n\
         [[predictions]]\nname = \"v2\"\nfile = \"v2.txt\"\n\n\
         [metrics.exec]\ntimeout_ms = 2000\n",
        demo().join("gold.sql").display(),
        demo().display()
    );
    let path = dir.join("demo.toml");
    std::fs::write(&path, manifest).unwrap();
    path
}

/// Exact set match's component scores and exec's gold flag `ties_at_limit` (two customers
/// share the highest age), which the demo has neither of: the fields a resumed verdict must
/// carry besides code and message.
fn own_schema(dir: &Path) -> PathBuf {
    let db_dir = dir.join("db/shop");
    std::fs::create_dir_all(&db_dir).unwrap();
    let conn = rusqlite::Connection::open(db_dir.join("shop.sqlite")).unwrap();
    conn.execute_batch(
        "CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER);
         CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), total REAL);
         INSERT INTO customer VALUES (1, 'Ann', 41), (2, 'Bob', 41), (3, 'Cid', 29);
         INSERT INTO orders VALUES (1, 1, 9.5), (2, 1, 20.0), (3, 2, 5.25);",
    )
    .unwrap();
    let tables = r#"[{"db_id": "shop",
        "table_names_original": ["customer", "orders"], "table_names": ["customer", "orders"],
        "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "age"], [1, "id"], [1, "customer_id"], [1, "total"]],
        "column_names": [[-1, "*"], [0, "id"], [0, "name"], [0, "age"], [1, "id"], [1, "customer id"], [1, "total"]],
        "column_types": ["text", "number", "text", "number", "number", "number", "number"],
        "primary_keys": [1, 4], "foreign_keys": [[5, 1]]}]"#;
    std::fs::write(dir.join("tables.json"), tables).unwrap();
    std::fs::write(
        dir.join("gold.sql"),
        "SELECT name FROM customer WHERE age >= 34\tshop\n\
         SELECT T1.name, count(*) FROM customer AS T1 JOIN orders AS T2 ON T1.id = T2.customer_id GROUP BY T1.id\tshop\n\
         SELECT name FROM customer ORDER BY age DESC LIMIT 1\tshop\n\
         SELECT sum(total) FROM orders\tshop\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("pred.txt"),
        "SELECT name, age FROM customer WHERE age > 33\n\
         SELECT T1.name, count(T2.total) FROM customer AS T1 JOIN orders AS T2 ON T1.id = T2.customer_id GROUP BY T1.id\n\
         SELECT name FROM customer ORDER BY age DESC LIMIT 1\n\
         SELECT sum(total) FROM orders WHERE total > 6\n",
    )
    .unwrap();
    let manifest = "[dataset]\nname = \"shop\"\nclock = \"2024-05-01T12:00:00Z\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\
         tables = \"tables.json\"\n\n[databases]\npath = \"db/{db_id}/{db_id}.sqlite\"\n\n\
         [[predictions]]\nname = \"p\"\nfile = \"pred.txt\"\n\n[metrics.exec]\n\n\
         [metrics.exact_match]\nmode = \"official\"\n";
    let path = dir.join("shop.toml");
    std::fs::write(&path, manifest).unwrap();
    path
}

/// The uninterrupted run's stdout and exit code in each format, and its journal.
struct Uninterrupted {
    outputs: Vec<(&'static str, Vec<u8>, Option<i32>)>,
    journal: Vec<u8>,
}

fn uninterrupted(manifest: &Path, dir: &Path) -> Uninterrupted {
    let journal = dir.join("full.jsonl");
    let outputs = FORMATS
        .iter()
        .map(|&format| {
            let out = eval(manifest, &["--format", format]);
            assert!(out.status.code().is_some_and(|c| c < 2), "{}", stderr(&out));
            (format, out.stdout, out.status.code())
        })
        .collect();
    let with_journal = eval(
        manifest,
        &["--format", "jsonl", "--journal", path(&journal)],
    );
    assert!(with_journal.status.code().is_some_and(|c| c < 2));
    Uninterrupted {
        outputs,
        journal: std::fs::read(&journal).unwrap(),
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Where a kill may leave a journal: nothing, a torn first line, line boundaries (after the
/// first line, the second, a third, half, two thirds, all but one, all) and the middle of the
/// line after some of them (a torn last line).
fn cut_points(journal: &[u8]) -> Vec<usize> {
    let mut ends = vec![0];
    ends.extend(
        journal
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .map(|(i, _)| i + 1),
    );
    let n = ends.len() - 1;
    let mut cuts = vec![0, 5];
    for k in [1, 2, n / 3, n / 2, 2 * n / 3, n - 1, n] {
        cuts.push(ends[k]);
    }
    for k in [1, n / 3, n / 2, n - 1] {
        cuts.push((ends[k] + ends[k + 1]) / 2);
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

fn finished_lines(journal: &[u8]) -> usize {
    String::from_utf8_lossy(journal)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a whole journal line"))
        .filter(|l| l["event"] == "finished")
        .count()
}

/// Resumes from `journal` cut at `cut` in every format; each must print the uninterrupted
/// output. Returns the last resumption's stderr.
fn resume_at(manifest: &Path, dir: &Path, full: &Uninterrupted, cut: usize) -> String {
    let journal = dir.join("j.jsonl");
    let mut last = String::new();
    for (format, expected, code) in &full.outputs {
        std::fs::write(&journal, &full.journal[..cut]).unwrap();
        let out = eval(
            manifest,
            &["--format", format, "--journal", path(&journal), "--resume"],
        );
        last = stderr(&out);
        assert_eq!(
            out.status.code(),
            *code,
            "cut at byte {cut}, {format}: {last}"
        );
        assert!(
            out.stdout == *expected,
            "cut at byte {cut}: --format {format} differs from the uninterrupted run:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
        // The continued journal is whole: every line reads, and each pair finished once.
        let text = std::fs::read(&journal).unwrap();
        let finished = finished_lines(&text);
        let pairs = finished_lines(&full.journal);
        assert_eq!(finished, pairs, "cut at byte {cut}");
    }
    last
}

fn resumes_everywhere(manifest: &Path, dir: &Path) {
    let full = uninterrupted(manifest, dir);
    let cuts = cut_points(&full.journal);
    assert!(cuts.len() >= 10, "{} cut points", cuts.len());
    for &cut in &cuts {
        let said = resume_at(manifest, dir, &full, cut);
        let torn = cut > 0 && full.journal[cut - 1] != b'\n';
        if cut > 0 && full.journal[..cut].contains(&b'\n') {
            assert!(said.contains("resuming from the journal"), "{said}");
            assert_eq!(
                said.contains("1 journal line ignored and cut off: the last"),
                torn,
                "cut at byte {cut}: {said}"
            );
        } else if torn {
            assert!(said.contains("holds nothing judged"), "{said}");
        }
    }
}

#[test]
fn a_run_resumed_after_a_kill_anywhere_prints_the_uninterrupted_output() {
    let dir = tempfile::tempdir().unwrap();
    resumes_everywhere(&demo_copy(dir.path()), dir.path());
}

#[test]
fn resumed_verdicts_keep_component_scores_gold_flags_and_steps() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = own_schema(dir.path());
    let journal = dir.path().join("j.jsonl");
    let out = eval(
        &manifest,
        &["--format", "jsonl", "--journal", path(&journal)],
    );
    assert!(out.status.code().is_some_and(|c| c < 2), "{}", stderr(&out));
    let text = std::fs::read_to_string(&journal).unwrap();
    // The fixture gives what it is there for.
    assert!(text.contains(r#""gold_flags":["ties_at_limit"]"#), "{text}");
    assert!(text.contains(r#""component":"select""#), "{text}");
    assert!(text.contains(r#""steps":{"gold":"#), "{text}");
    resumes_everywhere(&manifest, dir.path());
}

#[test]
fn resumed_bleu_scores_are_the_same_numbers() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["gold.json", "v1.txt", "v2.txt"] {
        std::fs::copy(demo().join("sql2text").join(f), dir.path().join(f)).unwrap();
    }
    let manifest = dir.path().join("s.toml");
    std::fs::write(
        &manifest,
        "[dataset]\nname = \"s\"\nclock = \"2024-05-01T12:00:00Z\"\nformat = \"sql2text\"\ngold = \"gold.json\"\n\n\
         [[predictions]]\nname = \"v1\"\nfile = \"v1.txt\"\n\n\
         [[predictions]]\nname = \"v2\"\nfile = \"v2.txt\"\n\n\
         [metrics.bleu]\npass_bleu = 50.0\n\n[metrics.text_match]\n",
    )
    .unwrap();
    resumes_everywhere(&manifest, dir.path());
}

/// The kept verdicts are the journal's, not judged again: a message edited in the journal
/// shows in the resumed output.
#[test]
fn kept_verdicts_come_from_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = demo_copy(dir.path());
    let journal = dir.path().join("j.jsonl");
    let first = eval(
        &manifest,
        &["--format", "jsonl", "--journal", path(&journal)],
    );
    assert!(first.status.code().is_some_and(|c| c < 2));
    let text = std::fs::read_to_string(&journal).unwrap();
    let edited = text.replacen(r#""message":""#, r#""message":"EDITED "#, 1);
    assert_ne!(edited, text);
    std::fs::write(&journal, edited).unwrap();
    let out = eval(
        &manifest,
        &["--format", "jsonl", "--journal", path(&journal), "--resume"],
    );
    assert!(out.status.code().is_some_and(|c| c < 2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("40 of 40 verdicts kept, 0 judged now"),
        "{}",
        stderr(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("EDITED ").count(), 1, "{stdout}");
}

/// Runs `--resume` on a journal of the demo copy after `change`; returns the error.
fn refused_after(change: impl FnOnce(&Path, &Path), more: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let manifest = demo_copy(dir.path());
    let journal = dir.path().join("j.jsonl");
    let first = eval(&manifest, &["--journal", path(&journal)]);
    assert!(
        first.status.code().is_some_and(|c| c < 2),
        "{}",
        stderr(&first)
    );
    change(dir.path(), &journal);
    let before = std::fs::read(&journal).unwrap();
    let mut args = vec!["--journal", path(&journal), "--resume"];
    args.extend(more);
    let out = eval(&manifest, &args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        before,
        "a refused journal is left alone"
    );
    let said = stderr(&out);
    assert!(
        said.contains(&format!(
            "cannot resume from the journal {}",
            journal.display()
        )),
        "{said}"
    );
    said
}

#[test]
fn a_journal_of_another_evaluation_is_refused_saying_what_differs() {
    let said = refused_after(
        |dir, _| {
            let f = dir.join("v2.txt");
            let text = std::fs::read_to_string(&f).unwrap();
            std::fs::write(&f, text.replacen("SELECT", "select", 1)).unwrap();
        },
        &[],
    );
    assert!(
        said.contains("it was written by another evaluation"),
        "{said}"
    );
    assert!(said.contains("sets.v2.predictions.sha256"), "{said}");

    let said = refused_after(
        |dir, _| {
            let f = dir.join("demo.toml");
            let text = std::fs::read_to_string(&f).unwrap();
            std::fs::write(&f, text.replace("timeout_ms = 2000", "timeout_ms = 3000")).unwrap();
        },
        &[],
    );
    assert!(said.contains("manifest.sha256"), "{said}");
    assert!(
        said.contains("provenance.metrics.0.options.timeout_ms: 2000 in the journal, 3000 now"),
        "{said}"
    );

    let said = refused_after(|_, _| {}, &["--predictions", "v1"]);
    assert!(
        said.contains(r#"predictions: ["v1","v2"] in the journal, ["v1"] now"#),
        "{said}"
    );
}

#[test]
fn a_journal_damaged_other_than_by_a_kill_is_refused() {
    // A line in the middle cut short: not what a kill leaves.
    let said = refused_after(
        |_, journal| {
            let text = std::fs::read_to_string(journal).unwrap();
            let mut lines: Vec<&str> = text.lines().collect();
            let cut = &lines[5][..lines[5].len() / 2];
            lines[5] = cut;
            std::fs::write(journal, lines.join("\n") + "\n").unwrap();
        },
        &[],
    );
    assert!(said.contains("line 6: not a journal line"), "{said}");
    // A journal without the identity line (an older sqlsuite's).
    let said = refused_after(
        |_, journal| {
            let text = std::fs::read_to_string(journal).unwrap();
            let rest = text.split_once('\n').unwrap().1;
            std::fs::write(journal, rest).unwrap();
        },
        &[],
    );
    assert!(
        said.contains("line 1: the first line is not the evaluation's identity"),
        "{said}"
    );
}

/// `--resume` without a journal there yet starts one: a loop that always resumes needs no
/// first run of its own.
#[test]
fn resume_without_a_journal_starts_one() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = demo_copy(dir.path());
    let journal = dir.path().join("new.jsonl");
    let plain = eval(&manifest, &["--format", "jsonl"]);
    let out = eval(
        &manifest,
        &["--format", "jsonl", "--journal", path(&journal), "--resume"],
    );
    assert!(stderr(&out).contains("no journal"), "{}", stderr(&out));
    assert_eq!(out.stdout, plain.stdout);
    assert!(std::fs::read_to_string(&journal)
        .unwrap()
        .starts_with(r#"{"event":"evaluation""#));
}
