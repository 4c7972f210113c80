//! Predictions of several statements (spec/exec.md §3a): the fixture
//! `tests/fixtures/several_statements.tsv` judged by the exec metric in both modes, with and
//! without `keep_distinct`, on the demo library database. Each row says which verdict each
//! configuration must give and why; a prediction of several statements is `several_statements`
//! in the default mode, and the trial message says so.

use std::path::{Path, PathBuf};

use sqlsuite::report::message;
use sqlsuite::{Evaluation, Manifest};

const GOLD: &str = "SELECT count(*) FROM books";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

struct Row {
    prediction: String,
    /// compat, compat with keep_distinct, default (either keep_distinct).
    expect: [String; 3],
    why: String,
}

fn fixture() -> Vec<Row> {
    let path = root().join("tests/fixtures/several_statements.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "{}: {l}", path.display());
            assert!(!f[4].trim().is_empty(), "every row says why: {l}");
            Row {
                prediction: f[0].to_owned(),
                expect: [f[1].to_owned(), f[2].to_owned(), f[3].to_owned()],
                why: f[4].to_owned(),
            }
        })
        .collect()
}

/// The fixture's predictions under `[metrics.exec]` with `options`.
fn evaluation(dir: &Path, rows: &[Row], options: &str) -> Evaluation {
    let gold: String = rows.iter().map(|_| format!("{GOLD}\tlibrary\n")).collect();
    let predictions: String = rows.iter().map(|r| format!("{}\n", r.prediction)).collect();
    std::fs::write(dir.join("gold.sql"), gold).unwrap();
    std::fs::write(dir.join("p.txt"), predictions).unwrap();
    let db: PathBuf = root().join("datasets/demo/db/{db_id}/{db_id}.sql");
    let text = format!(
        "[dataset]\nname = \"s\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\
         [databases]\npath = \"{}\"\n\
         [[predictions]]\nname = \"p\"\nfile = \"p.txt\"\n\
         [metrics.exec]\n{options}\n",
        db.display()
    );
    let path = dir.join("m.toml");
    std::fs::write(&path, &text).unwrap();
    Evaluation::new(Manifest::load(&path).unwrap()).unwrap()
}

fn code(eval: &Evaluation, item: usize) -> String {
    let result = eval.judge(0, item);
    let (_, verdict) = result.verdicts.iter().find(|(m, _)| *m == "exec").unwrap();
    verdict.code.clone()
}

#[test]
fn several_statements_are_judged_as_each_mode_says() {
    let rows = fixture();
    let configurations = [
        ("compat = \"test_suite_sql_eval\"", 0),
        ("compat = \"test_suite_sql_eval\"\nkeep_distinct = true", 1),
        ("", 2),
        ("keep_distinct = true", 2),
    ];
    let mut wrong = Vec::new();
    let (mut several, mut one) = (0, 0);
    for (options, column) in configurations {
        let dir = tempfile::tempdir().unwrap();
        let eval = evaluation(dir.path(), &rows, options);
        for (i, row) in rows.iter().enumerate() {
            let got = code(&eval, i);
            if got != row.expect[column] {
                wrong.push(format!(
                    "[{}] {:?}: {got}, expected {} ({})",
                    options.replace('\n', ", "),
                    row.prediction,
                    row.expect[column],
                    row.why
                ));
            }
        }
        if column == 2 {
            // The trial message names the reason and quotes the second statement.
            for (i, row) in rows.iter().enumerate() {
                if row.expect[2] != "several_statements" {
                    one += 1;
                    continue;
                }
                several += 1;
                let m = message::failure(eval.judged(0, i));
                if !(m.contains("several_statements") && m.contains("the second: `")) {
                    wrong.push(format!(
                        "the message names neither reason nor statement: {m}"
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Both sides are exercised: predictions the default mode refuses and ones it runs.
    assert!(several > 0 && one > 0, "{several} refused, {one} run");
}
