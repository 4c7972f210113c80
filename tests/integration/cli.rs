//! The `sqlsuite` command line, end to end, on the demo dataset and on small datasets built in a
//! temporary directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sha2::{Digest, Sha256};

fn sqlsuite(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqlsuite"))
        .args(args)
        .output()
        .expect("run sqlsuite")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The item lines of `--format jsonl` output (without each set's provenance line).
fn item_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON object per line"))
        .filter(|l| l.get("provenance").is_none())
        .collect()
}

fn demo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/demo")
}

/// A manifest in `dir` over the demo's gold and databases, with the given prediction files and
/// extra TOML.
fn demo_manifest(dir: &Path, predictions: &[(&str, &Path)], extra: &str) -> PathBuf {
    let demo = demo_dir();
    let mut toml = format!(
        "[dataset]\nname = \"t\"\nformat = \"spider\"\ngold = \"{}\"\n\n[databases]\npath = \"{}/db/{{db_id}}/{{db_id}}.sql\"\n\n",
        demo.join("gold.sql").display(),
        demo.display()
    );
    for (name, file) in predictions {
        toml.push_str(&format!(
            "[[predictions]]\nname = \"{name}\"\nfile = \"{}\"\n\n",
            file.display()
        ));
    }
    toml.push_str(extra);
    let path = dir.join("m.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

#[test]
fn eval_prints_the_summary_of_each_prediction_set() {
    let out = sqlsuite(&["eval", "datasets/demo/demo.toml"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("demo::v1\nexec: 13/20 correct = 65.00%"),
        "{stdout}"
    );
    assert!(
        stdout.contains("demo::v2\nexec: 15/20 correct = 75.00%"),
        "{stdout}"
    );
    assert!(
        stdout.contains("library     10      10        6    60.00%"),
        "{stdout}"
    );
}

/// With `[dataset] tables`, items have Spider's hardness and `eval` prints the table per
/// hardness (in the official order, easy to extra) between the headline and the `db_id` rows;
/// an unknown `--predictions` name lists the known ones.
#[test]
fn eval_prints_accuracy_per_hardness_and_lists_the_known_sets() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = own_schema(dir.path());
    let m = manifest.to_str().unwrap();
    let out = sqlsuite(&["eval", m]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let (table_at, db_at) = (
        stdout.find("\n  hardness  items  scored  correct  accuracy\n"),
        stdout.find("\n  db_id  "),
    );
    let (Some(table_at), Some(db_at)) = (table_at, db_at) else {
        panic!("no hardness or db_id table:\n{stdout}");
    };
    assert!(table_at < db_at, "{stdout}");
    // Its rows: groups in the official order, adding up to the headline's counts.
    let rows: Vec<Vec<&str>> = stdout[table_at..db_at]
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let order = ["easy", "medium", "hard", "extra"];
    let positions: Vec<usize> = rows
        .iter()
        .map(|r| order.iter().position(|o| *o == r[0]).expect("a hardness"))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{stdout}");
    let sum = |column: usize| -> usize {
        rows.iter()
            .map(|r| r[column].parse::<usize>().unwrap())
            .sum()
    };
    let headline = stdout.lines().find(|l| l.starts_with("exec: ")).unwrap();
    let counts = headline["exec: ".len()..].split(' ').next().unwrap();
    assert_eq!(counts, format!("{}/{}", sum(3), sum(2)), "{stdout}");
    assert_eq!(sum(1), 4, "{stdout}");

    // JSON lines carry each item's hardness, the same the table counts.
    let out = sqlsuite(&["eval", m, "--format", "jsonl"]);
    let lines = item_lines(&text(&out.stdout));
    for r in &rows {
        let n = lines.iter().filter(|l| l["hardness"] == r[0]).count();
        assert_eq!(n.to_string(), r[1], "{lines:?}");
    }

    // An unknown set: exit status 2, naming the known ones (as `diff` does).
    let out = sqlsuite(&["eval", m, "--predictions", "v3"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no prediction set named \"v3\" (known: p)"),
        "{stderr}"
    );
}

/// BIRD's set-based EX beside the stricter execution match: the summary names the items they
/// judge apart (spec/bird.md §3).
#[test]
fn eval_lists_the_items_ex_and_exec_judge_apart() {
    let dir = tempfile::tempdir().unwrap();
    let gold = std::fs::read_to_string(demo_dir().join("gold.sql")).unwrap();
    let mut lines: Vec<String> = gold
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_owned())
        .collect();
    // Item 1 returns its rows twice (EX compares sets: correct; exec counts them: wrong); item 4
    // swaps the two columns (exec matches columns in any order: correct; EX compares tuples:
    // wrong).
    lines[1] = format!("{} UNION ALL {}", lines[1], lines[1]);
    lines[4] = "SELECT T2.name, T1.title FROM books AS T1 JOIN authors AS T2 ON T1.author_id = \
                T2.author_id WHERE T1.genre = 'Science'"
        .to_owned();
    let file = dir.path().join("p.txt");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let manifest = demo_manifest(
        dir.path(),
        &[("p", &file)],
        "[metrics.exec]\nkeep_distinct = true\n[metrics.ex]\n",
    );
    let out = sqlsuite(&["eval", manifest.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "t::p\nex and exec disagree on 2 items: correct under ex only: 1; under exec only: 4\n"
        ),
        "{stdout}"
    );
}

/// A BIRD item's evidence is shown with the item in the report, correct or not.
#[test]
fn the_report_shows_birds_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let items = r#"[{"question_id": 0, "db_id": "library", "question": "How many books?",
        "evidence": "books <means> rows of books", "SQL": "SELECT count(*) FROM books",
        "difficulty": "simple"},
      {"question_id": 1, "db_id": "library", "question": "Titles?",
        "evidence": "title & nothing else", "SQL": "SELECT title FROM books",
        "difficulty": "moderate"}]"#;
    std::fs::write(dir.path().join("items.json"), items).unwrap();
    let predictions = r#"{"0": "SELECT count(*) FROM books\t----- bird -----\tlibrary",
        "1": "SELECT 1\t----- bird -----\tlibrary"}"#;
    std::fs::write(dir.path().join("p.json"), predictions).unwrap();
    let manifest = dir.path().join("m.toml");
    let toml = format!(
        "[dataset]\nname = \"b\"\nformat = \"bird\"\ngold = \"items.json\"\n\n[databases]\n\
         path = \"{}/db/{{db_id}}/{{db_id}}.sql\"\n\n[[predictions]]\nname = \"p\"\nfile = \"p.json\"\n\n\
         [metrics.ex]\n",
        demo_dir().display()
    );
    std::fs::write(&manifest, toml).unwrap();
    let out_file = dir.path().join("r.html");
    let out = sqlsuite(&[
        "report",
        manifest.to_str().unwrap(),
        "-o",
        out_file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&out_file).unwrap();
    // Item 0 is correct, item 1 is not: both show their evidence, escaped.
    assert!(
        html.contains("<b>evidence</b> books &lt;means&gt; rows of books"),
        "no evidence for the correct item"
    );
    assert!(
        html.contains("<b>evidence</b> title &amp; nothing else"),
        "no evidence for the failing item"
    );
}

#[test]
fn jsonl_is_one_object_per_item_and_metric() {
    let out = sqlsuite(&[
        "eval",
        "datasets/demo/demo.toml",
        "--format",
        "jsonl",
        "--predictions",
        "v2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect();
    // The set's provenance comes first: the prediction file's hash, the databases' digest.
    let provenance = lines.remove(0);
    assert_eq!(provenance["dataset"], "demo");
    assert_eq!(provenance["predictions"], "v2");
    let p = &provenance["provenance"];
    let v2 = std::fs::read(demo_dir().join("predictions/v2.txt")).unwrap();
    let v2_sha: String = Sha256::digest(&v2)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(p["predictions"]["file"], "v2.txt");
    assert_eq!(p["predictions"]["sha256"], v2_sha.as_str());
    assert_eq!(p["gold"]["file"], "gold.sql");
    assert_eq!(p["databases"]["kind"], "files");
    let files: Vec<&str> = p["databases"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["library/library.sql", "school/school.sql"]);
    assert_eq!(p["metrics"][0]["metric"], "exec");
    assert_eq!(p["metrics"][0]["options"]["timeout_ms"], 2000);
    assert!(lines.iter().all(|l| l.get("provenance").is_none()));
    assert_eq!(lines.len(), 20);
    let item11 = &lines[11];
    assert_eq!(item11["dataset"], "demo");
    assert_eq!(item11["predictions"], "v2");
    assert_eq!(item11["index"], 11);
    assert_eq!(item11["db_id"], "school");
    assert_eq!(item11["metric"], "exec");
    assert_eq!(item11["verdict"], "incorrect");
    assert_eq!(item11["reason"], "rows_differ");
    // The gold and the prediction as their files have them, and the differing rows of each
    // side (bounded: each list says how many rows it has in all).
    let gold = std::fs::read_to_string(demo_dir().join("gold.sql")).unwrap();
    let gold11 = gold.lines().nth(11).unwrap().split('\t').next().unwrap();
    assert_eq!(item11["gold"], gold11);
    let v2_text = String::from_utf8(v2.clone()).unwrap();
    assert_eq!(item11["prediction"], v2_text.lines().nth(11).unwrap());
    let details = item11["details"].as_str().unwrap();
    assert!(
        details.contains("only in gold (") && details.contains("only in prediction ("),
        "{item11}"
    );
    // The same differing rows as data: each side's rows (at most 20), under its columns, and
    // how many it has in all, as the details count them.
    let rows = &item11["rows"];
    assert_eq!(rows["database"], "school.sql", "{item11}");
    assert_eq!(rows["shown"], "difference");
    for (side, label) in [
        ("gold", "only in gold ("),
        ("predicted", "only in prediction ("),
    ] {
        let count = rows[side]["count"].as_u64().unwrap();
        assert!(details.contains(&format!("{label}{count} row")), "{item11}");
        let shown = rows[side]["rows"].as_array().unwrap();
        assert_eq!(shown.len() as u64, count.min(20));
        assert!(!rows[side]["columns"].as_array().unwrap().is_empty());
    }
    assert_eq!(rows["truncated"], false);
    // Only incorrect verdicts whose rows differ carry rows.
    for l in &lines {
        let differ = ["rows_differ", "row_count", "column_count", "order"]
            .contains(&l["reason"].as_str().unwrap());
        assert_eq!(l.get("rows").is_some(), differ, "{l}");
    }
    // The demo has no questions, hardness or categories; a correct item has no details.
    assert!(item11.get("question").is_none() && item11.get("hardness").is_none());
    assert!(lines[0]["verdict"] == "correct" && lines[0].get("details").is_none());
    let correct = lines.iter().filter(|l| l["verdict"] == "correct").count();
    assert_eq!(correct, 15);
    // SQLite counts the steps: each line carries the gold's, and those of a prediction that ran
    // to its end.
    for l in &lines {
        assert!(l["steps"]["gold"].as_u64().is_some_and(|n| n > 0), "{l}");
        if l["verdict"] == "correct" {
            assert!(l["steps"]["prediction"].is_u64(), "{l}");
        }
    }
}

/// The lines `eval --format jsonl` streams are, byte for byte, those the library makes from the
/// finished run (`report::jsonl::lines`, what the Python package returns), in the order the
/// sets are asked for.
#[test]
fn streamed_jsonl_is_the_librarys_lines_of_the_whole_run() {
    let out = sqlsuite(&[
        "eval",
        "datasets/demo/demo.toml",
        "--format",
        "jsonl",
        "--predictions",
        "v2",
        "--predictions",
        "v1",
        "--jobs",
        "2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let eval = sqlsuite::Evaluation::open("datasets/demo/demo.toml").unwrap();
    let run = eval.run(&[0, 1]);
    let mut expected = String::new();
    for set in &run.sets {
        for line in sqlsuite::report::jsonl::lines(&run, set) {
            expected.push_str(&line);
            expected.push('\n');
        }
    }
    let streamed = text(&out.stdout);
    // The command prints the sets in the manifest's order whatever order they are named in.
    assert_eq!(streamed, expected);
    assert_eq!(streamed.lines().count(), 2 * 21);
}

/// A prediction stopped at the gold's row count (it has more) carries the gold's rows and no
/// predicted row: its count is unknown, more than the gold's; a cell of every type is JSON
/// (integers, text; `truncated` says rows are left out).
#[test]
fn jsonl_rows_of_a_prediction_stopped_at_the_gold_row_count() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = std::fs::read_to_string(demo_dir().join("predictions/v1.txt")).unwrap();
    let mut lines: Vec<&str> = v1.lines().collect();
    // Item 1's gold has a few titles; every pair of books has many more rows.
    lines[1] = "SELECT a.title, b.book_id FROM books AS a, books AS b";
    let file = dir.path().join("wide.txt");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let manifest = demo_manifest(dir.path(), &[("wide", &file)], "");
    let out = sqlsuite(&["eval", manifest.to_str().unwrap(), "--format", "jsonl"]);
    let items = item_lines(&text(&out.stdout));
    let item1 = items.iter().find(|l| l["index"] == 1).unwrap();
    assert_eq!(item1["reason"], "row_count", "{item1}");
    let rows = &item1["rows"];
    let gold = rows["gold"]["count"].as_u64().unwrap();
    assert!(gold > 0, "{item1}");
    assert_eq!(rows["gold"]["rows"].as_array().unwrap().len() as u64, gold);
    assert!(rows["gold"]["rows"][0][0].is_string(), "{item1}");
    assert_eq!(
        rows["predicted"]["count"],
        serde_json::Value::Null,
        "{item1}"
    );
    assert_eq!(rows["predicted"]["more_than"], gold, "{item1}");
    assert_eq!(rows["predicted"]["rows"].as_array().unwrap().len(), 0);
    assert_eq!(rows["shown"], "results");
    assert_eq!(rows["truncated"], true);
}

#[test]
fn bench_measures_the_step_budget_against_wall_clock_limits() {
    let run = |more: &[&str]| {
        let mut args = vec!["bench", "datasets/demo/demo.toml", "--jobs", "2"];
        args.extend(more);
        let out = sqlsuite(&args);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
        stdout
    };
    let changed = |stdout: &str| -> usize {
        let line = stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("verdicts changed by the budget: "))
            .unwrap_or_else(|| panic!("no count of changed verdicts:\n{stdout}"));
        line.parse().unwrap()
    };
    let generous = run(&[]);
    for expected in [
        "exec, wall-clock limits only (2000 ms per query), one pool:",
        "exec, step budget 1000000 + 100 × the gold's steps",
        "the 40 predictions that finish within the limits, least CPU of 3 rounds;",
        "against raw SQLite, every pair's queries (60, one thread)",
        // Golds the two sets share, and predictions they both made, run once.
        "against raw SQLite, each distinct query once (44, 2 threads)",
        "light predictions (gold and prediction within 100000 steps each under the budget)",
        "step-budget overhead: with a budget that never fires",
        "% of 2 cores)",
    ] {
        assert!(generous.contains(expected), "{expected}:\n{generous}");
    }
    assert_eq!(changed(&generous), 0, "{generous}");
    // A budget of the gold's own steps stops every prediction that does more work than its
    // gold; the listing names them with both codes.
    let tight = run(&["--budget-floor", "0", "--budget-multiplier", "1"]);
    let n = changed(&tight);
    assert!(n > 0, "{tight}");
    assert!(tight.contains("→ step_budget"), "{tight}");
}

#[test]
fn the_gate_says_by_how_much_it_was_missed() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = demo_dir().join("predictions/v1.txt");
    let m = demo_manifest(
        dir.path(),
        &[("v1", &v1)],
        "[gate]\nmode = \"regression\"\nmin_accuracy = { exec = 0.9 }\n",
    );
    let out = sqlsuite(&["eval", m.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("t::v1: exec accuracy 65.00% (13/20) is below the gate's minimum 90.00% by 25.00 points"),
        "{stderr}"
    );
}

#[test]
fn regression_mode_fails_only_on_items_that_were_correct() {
    let dir = tempfile::tempdir().unwrap();
    let snapshots = dir.path().join("snapshots");
    std::fs::create_dir(&snapshots).unwrap();
    // Accept v1's verdicts as the snapshot of a prediction set named "model".
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/demo__v1.snap"),
        snapshots.join("t__model.snap"),
    )
    .unwrap();
    let extra = "[gate]\nmode = \"regression\"\n\n[report]\nsnapshots = \"snapshots\"\n";
    // The same predictions: nothing regressed.
    let v1 = demo_dir().join("predictions/v1.txt");
    let m = demo_manifest(dir.path(), &[("model", &v1)], extra);
    let out = sqlsuite(&["eval", m.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A new model version: item 11 flips from correct to wrong (3 others are fixed).
    let v2 = demo_dir().join("predictions/v2.txt");
    let m = demo_manifest(dir.path(), &[("model", &v2)], extra);
    let out = sqlsuite(&["eval", m.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("t::model: 1 item regressed against the accepted snapshot: [11]"),
        "{stderr}"
    );
}

#[test]
fn manifest_errors_name_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = demo_dir().join("predictions/v1.txt");
    let m = demo_manifest(dir.path(), &[("v1", &v1)], "[metrics.exec]\ntimeout = 5\n");
    let out = sqlsuite(&["eval", m.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    let expected = format!("{}:14:1: unknown field `timeout`", m.display());
    assert!(stderr.contains(&expected), "{stderr}");
}

#[test]
fn a_prediction_count_that_does_not_match_the_gold_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let short = dir.path().join("short.txt");
    std::fs::write(&short, "SELECT 1\nSELECT 2\n").unwrap();
    let m = demo_manifest(dir.path(), &[("short", &short)], "");
    let out = sqlsuite(&["eval", m.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("short.txt has 2 lines but gold file"),
        "{stderr}"
    );
    assert!(stderr.contains("gold.sql has 20 items"), "{stderr}");
}

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    format!("{:x}", Sha256::digest(bytes))
}

#[test]
fn hostile_predictions_cannot_change_a_byte() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db/shop");
    std::fs::create_dir_all(&db_dir).unwrap();
    let db = db_dir.join("shop.sqlite");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);
             INSERT INTO item(name, price) VALUES ('pen', 1.5), ('ink', 3.0), ('pad', 2.25);",
        )
        .unwrap();
    }
    let before = sha256(&db);
    let hostile = [
        "DROP TABLE item",
        "DELETE FROM item",
        "UPDATE item SET price = 0",
        "INSERT INTO item(name, price) VALUES ('x', 9)",
        "CREATE TABLE evil(x)",
        "ALTER TABLE item ADD COLUMN y",
        "PRAGMA writable_schema = 1",
        "PRAGMA journal_mode = WAL",
        "ATTACH DATABASE 'evil.sqlite' AS evil",
        "VACUUM",
        "VACUUM INTO 'copy.sqlite'",
        "CREATE TEMP TABLE item AS SELECT 1 AS id",
        "BEGIN IMMEDIATE",
        "SELECT count(*) FROM item; DELETE FROM item",
        "REINDEX",
    ];
    let gold: String = hostile
        .iter()
        .map(|_| "SELECT count(*) FROM item\tshop\n")
        .collect();
    std::fs::write(dir.path().join("gold.sql"), gold).unwrap();
    std::fs::write(dir.path().join("p.txt"), hostile.join("\n") + "\n").unwrap();
    std::fs::write(
        dir.path().join("m.toml"),
        "[dataset]\nname = \"h\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\
         [databases]\npath = \"db/{db_id}/{db_id}.sqlite\"\n\
         [[predictions]]\nname = \"p\"\nfile = \"p.txt\"\n",
    )
    .unwrap();
    let out = sqlsuite(&[
        "eval",
        dir.path().join("m.toml").to_str().unwrap(),
        "--format",
        "jsonl",
    ]);
    let stdout = text(&out.stdout);
    let lines = item_lines(&stdout);
    assert_eq!(lines.len(), hostile.len(), "{stdout}");
    for (line, sql) in lines.iter().zip(hostile) {
        // Several statements are no one query in the default mode (spec/exec.md §3a): nothing
        // runs. (`compat` runs the first alone, which reads; tests/integration/statements.rs.)
        let reason = match sql.starts_with("SELECT") {
            true => "several_statements",
            false => "sql_error",
        };
        assert_eq!(line["verdict"], "incorrect", "{sql}: {line}");
        assert_eq!(line["reason"], reason, "{sql}: {line}");
    }
    assert_eq!(sha256(&db), before, "the database file changed");
    let files: Vec<String> = std::fs::read_dir(&db_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        files,
        vec!["shop.sqlite"],
        "no journal, WAL or attached file appears"
    );
    assert!(!dir.path().join("evil.sqlite").exists());
    assert!(!dir.path().join("copy.sqlite").exists());
}

/// A small SQL-Eval dataset of our own: questions CSV, a `.sql` script database, predictions CSV.
fn sqleval_dataset(dir: &Path, predictions: &str) -> PathBuf {
    std::fs::create_dir_all(dir.join("db")).unwrap();
    std::fs::write(
        dir.join("db/shop.sql"),
        "CREATE TABLE item(id INTEGER, name TEXT, price REAL);\n\
         INSERT INTO item VALUES (1, 'pen', 1.5), (2, 'ink', 7.0), (3, 'pad', 3.25);\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("questions.csv"),
        "question,query,db_name,query_category\n\
         Which items cost more than 2?,\"SELECT {id, name} FROM item WHERE price > 2\",shop,where\n\
         List items sorted by price,SELECT name FROM item ORDER BY price DESC,shop,order_by\n\
         How many items?,SELECT COUNT(*) FROM item;SELECT COUNT(id) FROM item,shop,count\n",
    )
    .unwrap();
    std::fs::write(dir.join("predictions.csv"), predictions).unwrap();
    let m = dir.join("sqleval.toml");
    std::fs::write(
        &m,
        "[dataset]\nname = \"shop\"\nformat = \"sqleval\"\ngold = \"questions.csv\"\n\
         [databases]\npath = \"db/{db_id}.sql\"\n\
         [[predictions]]\nname = \"model\"\nfile = \"predictions.csv\"\n",
    )
    .unwrap();
    m
}

#[test]
fn sqleval_reports_categories_and_exact_vs_subset() {
    let dir = tempfile::tempdir().unwrap();
    let m = sqleval_dataset(
        dir.path(),
        "question,generated_query\n\
         a,\"SELECT name, price FROM item WHERE price > 2\"\n\
         b,SELECT name FROM item ORDER BY price\n\
         c,SELECT COUNT(*) AS n FROM item\n",
    );
    let out = sqlsuite(&["eval", m.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("sqleval: 2/3 correct = 66.67% (3 items, 1 incorrect)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("correct, by kind: exact 1, subset 1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("not correct, by reason: no_match 1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("order_by      1       1        0     0.00%"),
        "{stdout}"
    );
}

#[test]
fn sqleval_prediction_rows_must_match_the_questions() {
    let dir = tempfile::tempdir().unwrap();
    let m = sqleval_dataset(dir.path(), "generated_query\nSELECT 1\nSELECT 2\n");
    let out = sqlsuite(&["eval", m.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("predictions.csv has 2 rows but gold file"),
        "{stderr}"
    );
    assert!(stderr.contains("questions.csv has 3 items"), "{stderr}");
}

/// A user's own schema: a database, a `tables.json` and three golds (four items: the last
/// asks the first's question in other words), in a temporary directory.
fn own_schema(dir: &Path) -> PathBuf {
    let db_dir = dir.join("db/shop");
    std::fs::create_dir_all(&db_dir).unwrap();
    let conn = rusqlite::Connection::open(db_dir.join("shop.sqlite")).unwrap();
    conn.execute_batch(
        "CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER);
         CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), total REAL);
         INSERT INTO customer VALUES (1, 'Ann', 34), (2, 'Bob', 41), (3, 'Cid', 29);
         INSERT INTO orders VALUES (1, 1, 9.5), (2, 1, 20.0), (3, 2, 5.25);",
    )
    .unwrap();
    let tables = r#"[{"db_id": "shop",
        "table_names_original": ["customer", "orders"],
        "table_names": ["customer", "orders"],
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
         SELECT name FROM customer WHERE age >= 34\tshop\n",
    )
    .unwrap();
    // Two golds as predictions, and a near miss the original database cannot tell apart (it
    // has no NULL total; whether a suite may, is the constraints' question).
    std::fs::write(
        dir.join("pred.txt"),
        "SELECT name FROM customer WHERE age >= 34\n\
         SELECT T1.name, count(T2.total) FROM customer AS T1 JOIN orders AS T2 ON T1.id = T2.customer_id GROUP BY T1.id\n\
         SELECT name FROM customer ORDER BY age DESC LIMIT 1\n\
         SELECT name FROM customer WHERE age > 33\n",
    )
    .unwrap();
    let manifest = "[dataset]\nname = \"shop\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\
         tables = \"tables.json\"\n\n[databases]\npath = \"db/{db_id}/{db_id}.sqlite\"\n\n\
         [[predictions]]\nname = \"p\"\nfile = \"pred.txt\"\n\n[metrics.exec]\n";
    let path = dir.join("shop.toml");
    std::fs::write(&path, manifest).unwrap();
    path
}

/// `sqlsuite distill <manifest> --out <dir>` with a small budget and a fixed seed.
fn distill_into(manifest: &Path, out_dir: &Path) -> String {
    distill_into_with(manifest, out_dir, &[])
}

fn distill_into_with(manifest: &Path, out_dir: &Path, more: &[&str]) -> String {
    let mut args = vec![
        "distill",
        manifest.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--budget",
        "200",
        "--seed",
        "5",
    ];
    args.extend_from_slice(more);
    let o = sqlsuite(&args);
    assert!(
        o.status.success(),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

/// Evaluates `manifest` with its databases replaced by the suite in `suite_dir`: one JSON
/// object per item.
fn eval_on_suite(manifest: &Path, suite_dir: &Path) -> Vec<serde_json::Value> {
    let suite_manifest = suite_dir.with_extension("toml");
    let m = std::fs::read_to_string(manifest).unwrap().replace(
        "db/{db_id}/{db_id}.sqlite",
        &format!("{}/{{db_id}}/*.sqlite", suite_dir.display()),
    );
    std::fs::write(&suite_manifest, m).unwrap();
    let o = sqlsuite(&[
        "eval",
        suite_manifest.to_str().unwrap(),
        "--format",
        "jsonl",
    ]);
    item_lines(&text(&o.stdout))
}

#[test]
fn distill_writes_a_deterministic_suite_that_eval_uses() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = own_schema(dir.path());
    let run = |out: &str, jobs: &str| {
        let out_dir = dir.path().join(out);
        let stdout = distill_into_with(&manifest, &out_dir, &["--jobs", jobs]);
        (out_dir, stdout)
    };
    // Each drawn database examines the golds on several workers at once: the suite does not
    // depend on how many.
    let (a, summary) = run("a", "3");
    let (b, _) = run("b", "1");
    assert!(summary.contains("shop"), "{summary}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("report.json")).unwrap()).unwrap();
    // The fourth item's gold is the first's: distilled once, and its suite serves both.
    assert_eq!(report["totals"]["golds"], 3, "{report}");
    assert_eq!(report["totals"]["items"], 4, "{report}");
    assert_eq!(
        report["golds"][0]["same_gold"],
        serde_json::json!([3]),
        "{report}"
    );
    let neighbors = report["totals"]["neighbors"].as_u64().unwrap();
    let distinguished = report["totals"]["distinguished"].as_u64().unwrap();
    assert!(
        neighbors >= 30 && distinguished * 100 >= neighbors * 95,
        "{report}"
    );
    let files = |d: &Path| {
        let mut f: Vec<(String, String)> = std::fs::read_dir(d.join("shop"))
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    sha256(&p),
                )
            })
            .collect();
        f.sort();
        f
    };
    let suite = files(&a);
    let names: Vec<&str> = suite.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.len() >= 4
            && names[..3] == ["constraints.toml", "exclusions.json", "shop_0.sqlite"]
            && names[3..].iter().all(|n| n.ends_with(".sqlite")),
        "{suite:?}"
    );
    assert_eq!(suite, files(&b), "same seed, same suite, on 3 workers or 1");

    // Test-suite accuracy: the suite glob in a manifest.
    let lines = eval_on_suite(&manifest, &a);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[0]["verdict"], "correct", "{lines:?}");
    assert_eq!(lines[3]["verdict"], "correct", "{lines:?}");
    assert_eq!(lines[2]["verdict"], "correct", "{lines:?}");
    // count(T2.total) differs from count(*) only where total is NULL: the original database
    // holds no NULL there, so the induced constraints say it never does, and the suite agrees
    // with people that the two count the same.
    assert_eq!(lines[1]["verdict"], "correct", "{lines:?}");
    let constraints = std::fs::read_to_string(a.join("shop/constraints.toml")).unwrap();
    assert!(
        constraints.contains("[columns.\"orders.total\"]\nnot_null = true"),
        "{constraints}"
    );
}

#[test]
fn distill_writes_a_suite_elsewhere_than_the_manifest_globs() {
    // A manifest for evaluating on a suite: its schemas from `[distill] schema`, its databases
    // a glob over a directory that does not exist yet; `--out` writes the suite elsewhere.
    let dir = tempfile::tempdir().unwrap();
    own_schema(dir.path());
    let manifest = dir.path().join("on_suite.toml");
    std::fs::write(
        &manifest,
        "[dataset]\nname = \"shop\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\n\
         [databases]\npath = \"not_yet/{db_id}/*.sqlite\"\n\n[metrics.exec]\n\n\
         [distill]\nschema = [\"db/{db_id}/{db_id}.sqlite\"]\n",
    )
    .unwrap();
    let out_dir = dir.path().join("elsewhere");
    distill_into(&manifest, &out_dir);
    let written = std::fs::read_dir(out_dir.join("shop"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "sqlite")
        })
        .count();
    assert!(written >= 1 && out_dir.join("report.json").is_file());
    assert!(
        !dir.path().join("not_yet").exists(),
        "nothing written where it was not asked"
    );
    // A single-database pattern names an original to read: it must exist.
    let single = dir.path().join("single.toml");
    std::fs::write(
        &single,
        std::fs::read_to_string(&manifest)
            .unwrap()
            .replace("not_yet/{db_id}/*.sqlite", "missing/{db_id}.sqlite"),
    )
    .unwrap();
    let o = sqlsuite(&[
        "distill",
        single.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("missing"), "{}", text(&o.stderr));
}

#[test]
fn distill_draws_as_many_databases_as_the_manifest_budgets() {
    // `[distill] budget` sets how many random databases a schema draws; `--budget` overrides
    // it; 0 is refused with the file and line.
    let dir = tempfile::tempdir().unwrap();
    own_schema(dir.path());
    let manifest = dir.path().join("budgeted.toml");
    let text_of = |budget: &str| {
        format!(
            "[dataset]\nname = \"shop\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\n\
             [databases]\npath = \"suite/{{db_id}}/*.sqlite\"\n\n[metrics.exec]\n\n\
             [distill]\nschema = [\"db/{{db_id}}/{{db_id}}.sqlite\"]\nbudget = {budget}\n"
        )
    };
    std::fs::write(&manifest, text_of("150")).unwrap();
    let drawn = |out: &str, more: &[&str]| {
        let out_dir = dir.path().join(out);
        let mut args = vec![
            "distill",
            manifest.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ];
        args.extend_from_slice(more);
        let o = sqlsuite(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
                .unwrap();
        report["max_databases"].as_u64().unwrap()
    };
    assert_eq!(drawn("from_manifest", &[]), 150);
    assert_eq!(drawn("from_flag", &["--budget", "120"]), 120);
    std::fs::write(&manifest, text_of("0")).unwrap();
    let o = sqlsuite(&["distill", manifest.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("budgeted.toml:13:") && err.contains("budget"),
        "{err}"
    );
}

#[test]
fn distill_gives_a_gold_that_failed_databases_of_its_own() {
    // ATIS in small: key-less tables, eight golds joining two cities through airports, and a
    // gold whose `OR` leaves two aliases unjoined in each branch, so that per flight it runs
    // a cross product of the other tables. Over the rows witnessing eight golds it runs past
    // its step budget; on a database witnessing it alone it answers.
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db/air");
    std::fs::create_dir_all(&db_dir).unwrap();
    rusqlite::Connection::open(db_dir.join("air.sqlite"))
        .unwrap()
        .execute_batch(
            "CREATE TABLE CITY (CITY_CODE TEXT, CITY_NAME TEXT);
             CREATE TABLE SERVICE (CITY_CODE TEXT, AIRPORT_CODE TEXT);
             CREATE TABLE FLIGHT (FLIGHT_ID INTEGER, AIRLINE TEXT, FROM_AIRPORT TEXT, TO_AIRPORT TEXT);",
        )
        .unwrap();
    let tables = "FROM CITY AS C0 , SERVICE AS S0 , CITY AS C1 , SERVICE AS S1 , FLIGHT AS F";
    let mut golds = vec![format!(
        "SELECT DISTINCT F.FLIGHT_ID {tables} WHERE F.AIRLINE = \"UA\" AND ( ( F.TO_AIRPORT = \
         S0.AIRPORT_CODE AND S0.CITY_CODE = C0.CITY_CODE AND C0.CITY_NAME = \"DENVER\" ) OR ( \
         F.FROM_AIRPORT = S1.AIRPORT_CODE AND S1.CITY_CODE = C1.CITY_CODE AND C1.CITY_NAME = \
         \"DENVER\" ) )"
    )];
    let cities = [
        "BOSTON", "ATLANTA", "DALLAS", "MIAMI", "TAMPA", "OAKLAND", "TORONTO", "DENVER", "SEATTLE",
    ];
    for pair in cities.windows(2) {
        golds.push(format!(
            "SELECT DISTINCT F.FLIGHT_ID {tables} WHERE C0.CITY_CODE = S0.CITY_CODE AND \
             C0.CITY_NAME = \"{}\" AND F.FROM_AIRPORT = S0.AIRPORT_CODE AND C1.CITY_CODE = \
             S1.CITY_CODE AND C1.CITY_NAME = \"{}\" AND F.TO_AIRPORT = S1.AIRPORT_CODE",
            pair[0], pair[1]
        ));
    }
    let lines: Vec<String> = golds.iter().map(|g| format!("{g}\tair\n")).collect();
    std::fs::write(dir.path().join("gold.sql"), lines.concat()).unwrap();
    let manifest = dir.path().join("air.toml");
    std::fs::write(
        &manifest,
        "[dataset]\nname = \"air\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\n\
         [databases]\npath = \"suite/{db_id}/*.sqlite\"\n\n[metrics.exec]\n\n\
         [distill]\nschema = [\"db/{db_id}/{db_id}.sqlite\"]\n",
    )
    .unwrap();
    // Six seeds: one seed's three or four databases of its own are a small draw.
    let (mut told, mut valid, mut failed) = (0, 0, 0);
    for seed in 1..=6 {
        let out_dir = dir.path().join("suite");
        let seed = seed.to_string();
        let o = sqlsuite(&[
            "distill",
            manifest.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--budget",
            "60",
            "--seed",
            &seed,
            "--max-steps",
            "1000",
            "--witnesses",
            "8",
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
                .unwrap();
        let or_gold = &report["golds"][0];
        if or_gold["fails_on"]
            .as_array()
            .is_some_and(|f| !f.is_empty())
        {
            failed += 1;
        }
        told += or_gold["distinguished"].as_u64().unwrap();
        valid += or_gold["valid"].as_u64().unwrap();
        // The databases drawn for one gold alone are reported (the OR gold's among them),
        // and are in the suite.
        let alone = report["schemas"][0]["alone"].as_array().unwrap();
        assert!(
            alone.iter().any(|entry| entry[1] == 0),
            "a database drawn for the OR gold (item 0), seed {seed}: {report}"
        );
        for entry in alone {
            assert!(entry[1].as_u64().is_some_and(|i| i < 9), "{entry}");
            let name = entry[0].as_str().unwrap();
            assert!(out_dir.join("air").join(name).is_file(), "{name}");
        }
        let summary = std::fs::read_to_string(out_dir.join("summary.txt")).unwrap();
        assert!(
            summary.contains(&format!(
                "{} suite databases drawn for one gold alone, a few rows per table",
                alone.len()
            )),
            "{summary}"
        );
    }
    assert!(
        failed >= 5,
        "the premise: the OR gold fails on some drawn database (for {failed} seeds of 6)"
    );
    // Measured over the six seeds: 596 of its 711 neighbors told apart; 358 with every
    // database witnessing eight golds (the rule before databases of a gold's own).
    assert!(told * 4 >= valid * 3, "{told} of {valid} told apart");
}

#[test]
fn distill_generates_within_the_authors_constraints() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = own_schema(dir.path());
    // The dataset's author says a total may be missing, and names a vocabulary.
    std::fs::create_dir(dir.path().join("constraints")).unwrap();
    std::fs::write(
        dir.path().join("constraints/shop.toml"),
        "[columns.\"orders.total\"]\nnot_null = false\n\n\
         [columns.\"customer.name\"]\nvalues = [\"Ann\", \"Bob\", \"Cid\", \"Dee\"]\n",
    )
    .unwrap();
    let text_of = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        format!("{text_of}\n[distill]\nconstraints = \"constraints/{{db_id}}.toml\"\n"),
    )
    .unwrap();
    let out_dir = dir.path().join("suite");
    distill_into(&manifest, &out_dir);
    let written = std::fs::read_to_string(out_dir.join("shop/constraints.toml")).unwrap();
    assert!(
        written.contains("[columns.\"orders.total\"]\nnot_null = false"),
        "{written}"
    );
    assert!(
        written.contains("values = [\"Ann\", \"Bob\", \"Cid\", \"Dee\"]"),
        "{written}"
    );
    let lines = eval_on_suite(&manifest, &out_dir);
    // Now the suite holds a NULL total, and the near miss is told apart there.
    assert_eq!(lines[1]["verdict"], "incorrect", "{lines:?}");
    assert!(
        lines[1]["message"].as_str().unwrap().contains("on shop_"),
        "the failure names the database: {lines:?}"
    );
    assert_eq!(lines[0]["verdict"], "correct", "{lines:?}");
    // A name outside the vocabulary never appears (but for the golds' own constants).
    for db in std::fs::read_dir(out_dir.join("shop")).unwrap() {
        let p = db.unwrap().path();
        if p.extension().is_none_or(|e| e != "sqlite") {
            continue;
        }
        let conn = rusqlite::Connection::open(&p).unwrap();
        let odd: i64 = conn
            .query_row(
                "SELECT count(*) FROM customer WHERE name NOT IN ('Ann', 'Bob', 'Cid', 'Dee')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(odd, 0, "{}", p.display());
    }

    // A typo in the author's file names the file and the column.
    std::fs::write(
        dir.path().join("constraints/shop.toml"),
        "[columns.\"orders.totl\"]\nnot_null = false\n",
    )
    .unwrap();
    let o = sqlsuite(&[
        "distill",
        manifest.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let stderr = text(&o.stderr);
    assert!(
        stderr.contains("constraints/shop.toml") && stderr.contains("no column \"orders.totl\""),
        "{stderr}"
    );
}

#[test]
fn diff_lists_flipped_items_and_fails_on_regressions() {
    let out = sqlsuite(&["diff", "datasets/demo/demo.toml", "v1", "v2"]);
    let stdout = text(&out.stdout);
    // v2 breaks item 11: a regression, exit status 1.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(stdout.starts_with("demo: v1 -> v2, 20 items\n"), "{stdout}");
    // Accuracy before and after, and the difference: eval's numbers for each set.
    let eval = text(&sqlsuite(&["eval", "datasets/demo/demo.toml"]).stdout);
    let accuracy = |set: &str| {
        let headline = eval
            .split(&format!("demo::{set}\nexec: "))
            .nth(1)
            .and_then(|rest| rest.lines().next())
            .expect("eval's headline");
        // `13/20 correct = 65.00% (…)` → `65.00% (13/20)`
        let (counts, rest) = headline.split_once(" correct = ").unwrap();
        let percent = rest.split_once(' ').unwrap().0;
        (
            format!("{percent} ({counts})"),
            percent.trim_end_matches('%').parse::<f64>().unwrap(),
        )
    };
    let ((a, pa), (b, pb)) = (accuracy("v1"), accuracy("v2"));
    let row = format!("\nexec      {a}  {b}  {:>8}\n", format!("{:+.2}", pb - pa));
    assert!(stdout.contains(&row), "{row:?} in\n{stdout}");
    assert!(
        stdout.contains("\nexec: 1 regressed, 3 newly correct, 0 reasons changed\n"),
        "{stdout}"
    );
    // One block per flipped item, under its direction and reason.
    let regressed = stdout
        .find("== exec: regressed (1), by v2's reason ==")
        .unwrap();
    let fixed = stdout
        .find("== exec: newly correct (3), by v1's reason ==")
        .unwrap();
    assert!(regressed < fixed, "{stdout}");
    assert!(
        stdout[regressed..fixed].contains("\nrows_differ (1)\n\n  11 school\n    gold  SELECT "),
        "{stdout}"
    );
    let fixes = &stdout[fixed..];
    let (sql_error, row_count) = (
        fixes.find("\nsql_error (2)\n").unwrap(),
        fixes.find("\nrow_count (1)\n").unwrap(),
    );
    assert!(sql_error < row_count, "{stdout}");
    for item in ["\n  06 library\n", "\n  08 library\n"] {
        let at = fixes.find(item).unwrap();
        assert!(sql_error < at && at < row_count, "{stdout}");
    }
    // Short lines: every query and reason cut to --width (100 by default).
    assert!(stdout.lines().all(|l| l.chars().count() <= 120), "{stdout}");

    // v2 -> v1 regresses the three items v2 fixed.
    let out = sqlsuite(&["diff", "datasets/demo/demo.toml", "v2", "v1"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("exec: 3 regressed, 1 newly correct"),
        "{stdout}"
    );

    // Only improvements: exit status 0.
    let dir = tempfile::tempdir().unwrap();
    let v1 = demo_dir().join("predictions/v1.txt");
    let fixed = dir.path().join("fixed.txt");
    let mut lines: Vec<String> = std::fs::read_to_string(&v1)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let v2: Vec<String> = std::fs::read_to_string(demo_dir().join("predictions/v2.txt"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines[6] = v2[6].clone();
    std::fs::write(&fixed, lines.join("\n") + "\n").unwrap();
    let m = demo_manifest(dir.path(), &[("old", &v1), ("new", &fixed)], "");
    let out = sqlsuite(&["diff", m.to_str().unwrap(), "old", "new"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "exec: 0 regressed, 1 newly correct, 0 reasons changed\n\n\
             == exec: newly correct (1), by old's reason ==\n\nsql_error (1)\n\n  06 library\n"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains(": regressed ("), "{stdout}");

    // An unknown set: exit status 2, naming the known ones.
    let out = sqlsuite(&["diff", "datasets/demo/demo.toml", "v1", "v3"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no prediction set named \"v3\" (known: v1, v2)"),
        "{stderr}"
    );
}

/// An XML element read back: its name, attributes, child elements and text.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attributes: std::collections::BTreeMap<String, String>,
    children: Vec<Element>,
    text: String,
}

/// Parses a whole XML document with quick-xml (a malformed one fails the test).
fn parse_xml(xml: &str) -> Element {
    use quick_xml::events::{BytesStart, Event};
    use quick_xml::XmlVersion;
    fn element(e: &BytesStart<'_>) -> Element {
        Element {
            name: e.name().as_ref().to_owned(),
            attributes: e
                .attributes()
                .map(|a| {
                    let a = a.expect("a well-formed attribute");
                    (
                        a.key.as_ref().to_owned(),
                        a.normalized_value(XmlVersion::Explicit1_0)
                            .expect("a well-formed value")
                            .into_owned(),
                    )
                })
                .collect(),
            ..Element::default()
        }
    }
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut stack = vec![Element::default()];
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) => stack.push(element(&e)),
            Event::Empty(e) => stack.last_mut().unwrap().children.push(element(&e)),
            Event::End(_) => {
                let done = stack.pop().unwrap();
                stack.last_mut().unwrap().children.push(done);
            }
            Event::Text(t) => stack.last_mut().unwrap().text.push_str(&t.xml10_content()),
            Event::GeneralRef(r) => {
                let c = match r.resolve_char_ref().expect("a valid reference") {
                    Some(c) => c.to_string(),
                    None => quick_xml::escape::resolve_predefined_entity(&r)
                        .expect("a predefined entity")
                        .to_owned(),
                };
                stack.last_mut().unwrap().text.push_str(&c);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(stack.len(), 1, "unclosed elements");
    let mut document = stack.pop().unwrap();
    assert_eq!(document.children.len(), 1, "one root element");
    document.children.pop().unwrap()
}

/// Checks an element tree against the JUnit schema CI servers read (the structure of Jenkins'
/// junit-10.xsd): which element may hold which, the allowed and the required attributes, and
/// counts that agree with the test cases.
fn check_junit_structure(e: &Element, parent: Option<&str>) {
    // (element, allowed parents, required attributes, optional attributes)
    type Rule = (&'static str, &'static [&'static str], Names, Names);
    type Names = &'static [&'static str];
    const RULES: &[Rule] = &[
        (
            "testsuites",
            &[],
            &[],
            &["name", "time", "tests", "failures", "errors"],
        ),
        (
            "testsuite",
            &["testsuites", "testsuite"],
            &["name", "tests", "failures", "errors"],
            &[
                "group",
                "time",
                "skipped",
                "timestamp",
                "hostname",
                "id",
                "package",
                "file",
                "log",
                "url",
            ],
        ),
        ("properties", &["testsuite"], &[], &[]),
        ("property", &["properties"], &["name", "value"], &[]),
        (
            "testcase",
            &["testsuite"],
            &["name"],
            &["time", "classname", "group"],
        ),
        ("failure", &["testcase"], &[], &["type", "message"]),
        ("error", &["testcase"], &[], &["type", "message"]),
        ("skipped", &["testcase"], &[], &["type", "message"]),
        ("system-out", &["testcase", "testsuite"], &[], &[]),
        ("system-err", &["testcase", "testsuite"], &[], &[]),
    ];
    let Some((_, parents, required, optional)) = RULES.iter().find(|r| r.0 == e.name) else {
        panic!("<{}> is no JUnit element", e.name);
    };
    match parent {
        None => assert_eq!(e.name, "testsuites", "the root"),
        Some(p) => assert!(parents.contains(&p), "<{}> inside <{p}>", e.name),
    }
    for key in e.attributes.keys() {
        assert!(
            required.contains(&key.as_str()) || optional.contains(&key.as_str()),
            "<{}> has no attribute {key}",
            e.name
        );
    }
    for key in *required {
        assert!(e.attributes.contains_key(*key), "<{}> needs {key}", e.name);
    }
    if matches!(
        e.name.as_str(),
        "testsuites" | "testsuite" | "properties" | "property"
    ) {
        assert!(e.text.trim().is_empty(), "<{}> holds no text", e.name);
    }
    if e.name == "testsuite" {
        let cases: Vec<&Element> = e.children.iter().filter(|c| c.name == "testcase").collect();
        let with = |name: &str| {
            cases
                .iter()
                .filter(|c| c.children.iter().any(|o| o.name == name))
                .count()
                .to_string()
        };
        assert_eq!(e.attributes["tests"], cases.len().to_string());
        assert_eq!(e.attributes["failures"], with("failure"));
        assert_eq!(e.attributes["errors"], with("error"));
        assert_eq!(e.attributes["skipped"], with("skipped"));
    }
    for c in &e.children {
        check_junit_structure(c, Some(&e.name));
    }
}

/// The test case `name` of a suite, whose class name is the suite's name.
fn testcase<'a>(suite: &'a Element, name: &str) -> &'a Element {
    let c = suite
        .children
        .iter()
        .find(|c| c.name == "testcase" && c.attributes["name"] == name)
        .unwrap_or_else(|| panic!("no test case {name}"));
    assert_eq!(c.attributes["classname"], suite.attributes["name"]);
    c
}

#[test]
fn junit_has_a_test_case_per_item_with_the_trial_message() {
    use sqlsuite::report::message;

    // Regression mode (the demo's manifest): known failures are skipped, with the reason.
    let out = sqlsuite(&["eval", "datasets/demo/demo.toml", "--format", "junit"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let xml = text(&out.stdout);
    assert!(
        xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"),
        "{xml}"
    );
    let root = parse_xml(&xml);
    check_junit_structure(&root, None);
    assert_eq!(root.attributes["tests"], "40");
    let names: Vec<&str> = root
        .children
        .iter()
        .map(|s| s.attributes["name"].as_str())
        .collect();
    assert_eq!(names, ["demo::v1", "demo::v2"]);
    let v1 = &root.children[0];
    assert_eq!(
        (
            v1.attributes["tests"].as_str(),
            v1.attributes["failures"].as_str(),
            v1.attributes["skipped"].as_str()
        ),
        ("20", "0", "7")
    );
    let case = testcase;
    let skipped = case(v1, "03_library");
    assert_eq!(skipped.children[0].name, "skipped");
    // The code and the reason, as the trial's ignore message says it.
    let message = &skipped.children[0].attributes["message"];
    assert!(
        message.starts_with("known failure: exec=rows_differ (values differ"),
        "{message}"
    );
    assert!(case(v1, "00_library").children.is_empty());
    // Provenance and the summary are the suite's properties.
    let properties = &v1.children[0];
    assert_eq!(properties.name, "properties");
    let property = |name: &str| {
        properties
            .children
            .iter()
            .find(|p| p.attributes["name"] == name)
            .map(|p| p.attributes["value"].clone())
            .unwrap_or_else(|| panic!("no property {name}"))
    };
    assert!(property("provenance.predictions").starts_with("v1.txt sha256:"));
    assert!(property("provenance.databases").starts_with("2 files sha256:"));
    assert_eq!(
        property("summary.exec"),
        "exec: 13/20 correct = 65.00% (20 items, 7 incorrect)"
    );

    // Strict mode: each incorrect item fails with the message its trial prints, even when the
    // prediction holds characters XML cannot carry.
    let dir = tempfile::tempdir().unwrap();
    let mut lines: Vec<String> = std::fs::read_to_string(demo_dir().join("predictions/v1.txt"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines[0] = "SELECT 'bell\u{7}' < 1 AND \"x\" & 1".to_owned();
    let predictions = dir.path().join("p.txt");
    std::fs::write(&predictions, lines.join("\n") + "\n").unwrap();
    let m = demo_manifest(
        dir.path(),
        &[("p", &predictions)],
        "[gate]\nmode = \"strict\"\n",
    );
    let out = sqlsuite(&["eval", m.to_str().unwrap(), "--format", "junit"]);
    assert_eq!(out.status.code(), Some(1), "strict mode fails");
    let root = parse_xml(&text(&out.stdout));
    check_junit_structure(&root, None);
    let suite = &root.children[0];
    assert_eq!(suite.attributes["failures"], "8");
    assert_eq!(suite.attributes["skipped"], "0");
    let eval = sqlsuite::Evaluation::open(&m).unwrap();
    for i in [0, 3, 13] {
        let c = case(suite, &format!("{i:02}_{}", eval.items()[i].db_id));
        let failure = &c.children[0];
        assert_eq!(failure.name, "failure");
        let trial_message = message::failure(eval.judged(0, i)).replace('\u{7}', "\u{FFFD}");
        assert_eq!(failure.text.trim_end(), trial_message.trim_end());
        assert!(
            failure.attributes["message"].starts_with("exec: "),
            "{failure:?}"
        );
        assert_eq!(
            failure.attributes["type"],
            format!("exec={}", eval.judge(0, i).verdicts[0].1.code)
        );
    }
}

/// A prediction that aborts the process (fault injection: `SQLSUITE_FAULT_ABORT_ON`) costs that
/// prediction its verdict, `crash`, and nothing else: the supervisor finds it among the
/// predictions the journal shows running, by running each alone, and runs the rest again.
#[test]
fn a_prediction_that_aborts_the_process_gets_crash_and_the_rest_their_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let v2 = demo_dir().join("predictions/v2.txt");
    let killer = std::fs::read_to_string(&v2)
        .unwrap()
        .lines()
        .nth(3)
        .unwrap()
        .to_owned();
    let manifest = demo_manifest(dir.path(), &[("v2", &v2)], "");
    let plain = sqlsuite(&["eval", manifest.to_str().unwrap(), "--format", "jsonl"]);
    let journal = dir.path().join("journal.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_sqlsuite"))
        .args([
            "eval",
            manifest.to_str().unwrap(),
            "--format",
            "jsonl",
            "--journal",
        ])
        .arg(&journal)
        .env("SQLSUITE_FAULT_ABORT_ON", &killer)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    // The strict gate fails both runs (items not correct); neither dies of a signal.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(plain.status.code(), Some(1));
    assert!(
        stderr.contains("v2 item 3 dies alone (signal 6)"),
        "{stderr}"
    );
    let (before, after) = (
        item_lines(&text(&plain.stdout)),
        item_lines(&text(&out.stdout)),
    );
    assert_eq!(before.len(), 20);
    assert_eq!(after.len(), 20);
    // Lines the dead worker printed (streamed) are not printed again by the one that resumed.
    assert_eq!(
        text(&out.stdout).lines().count(),
        text(&plain.stdout).lines().count()
    );
    let indexes: Vec<&serde_json::Value> = after.iter().map(|l| &l["index"]).collect();
    let in_order: Vec<serde_json::Value> = (0..20).map(serde_json::Value::from).collect();
    assert_eq!(indexes, in_order.iter().collect::<Vec<_>>());
    for (b, a) in before.iter().zip(&after) {
        if a["index"] == 3 {
            assert_eq!(a["reason"], "crash", "{a}");
            assert_eq!(a["verdict"], "incorrect", "{a}");
        } else {
            assert_eq!(a, b, "every other item keeps its verdict");
        }
    }
    // The journal holds every item once, the crashed one included: the run after the death
    // continued from it (--resume) and judged only what had not finished.
    let finished: Vec<serde_json::Value> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["event"] == "finished")
        .collect();
    assert_eq!(finished.len(), 20);
    assert!(finished
        .iter()
        .any(|l| l["item"] == 3 && l["verdicts"][0]["reason"] == "crash"));
    assert!(finished.iter().all(|l| l["elapsed_ms"].as_f64().is_some()));
}

/// `--journal=FILE` is the user's journal as much as `--journal FILE`: the supervisor passes it
/// on rather than adding a second one (clap refuses two).
#[test]
fn the_journal_may_be_given_with_an_equals_sign() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.jsonl");
    let out = sqlsuite(&[
        "eval",
        "datasets/demo/demo.toml",
        "--predictions",
        "v1",
        &format!("--journal={}", journal.display()),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let finished = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"event\":\"finished\""))
        .count();
    assert_eq!(finished, 20);
}

/// Stand-ins for BIRD's `evaluation_ex.py` / `evaluation_f1.py`: the reference's command-line
/// options (argparse rejects any other), its database layout and gold file, a real set
/// comparison, and a log line in its format. `SHIFT` is added to the Soft-F1 total.
const FAKE_SCRIPT: &str = r#"import argparse, json, sqlite3, sys
p = argparse.ArgumentParser()
for o in ["--predicted_sql_path", "--ground_truth_path", "--db_root_path", "--diff_json_path",
          "--sql_dialect", "--output_log_path"]:
    p.add_argument(o, type=str, required=True)
p.add_argument("--num_cpus", type=int, required=True)
p.add_argument("--meta_time_out", type=float, required=True)
a = p.parse_args()
preds = [v.split("\t----- bird -----\t")[0] for v in json.load(open(a.predicted_sql_path)).values()]
golds = [l.rstrip("\n").split("\t") for l in open(a.ground_truth_path)]
assert len(open(a.diff_json_path).readlines()) == len(golds)
res = []
for pred, (gold, db) in zip(preds, golds):
    c = sqlite3.connect(a.db_root_path + db + "/" + db + ".sqlite")
    try:
        res.append(int(set(c.execute(pred).fetchall()) == set(c.execute(gold).fetchall())))
    except Exception:
        res.append(0)
total = 100 * sum(res) / len(res) + SHIFT
with open(a.output_log_path, "a") as f:
    f.write("{:20} {:<20.2f} {:<20.2f} {:<20.2f} {:<20.2f}\n".format(METRIC, 0, 0, 0, total))
"#;

#[test]
fn bench_against_birds_scripts_runs_them_on_each_suite_database_and_compares_totals() {
    if Command::new("python3").arg("--version").output().is_err() {
        println!("skipped: no python3 to run the stand-in scripts");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("suite/x")).unwrap();
    // Two suite databases; on the second, the prediction of item 1 is right by chance. (The
    // stand-in's Soft-F1 is its EX: predictions either equal to the gold's rows or sharing no
    // value with them, where the two are equal.)
    for (k, rows) in [(1, "(1), (2), (3)"), (2, "(1), (2), (3), (4), (5)")] {
        let c = rusqlite::Connection::open(d.join(format!("suite/x/x_{k}.sqlite"))).unwrap();
        c.execute_batch(&format!(
            "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES {rows};"
        ))
        .unwrap();
    }
    let gold = serde_json::json!([
        {"question_id": 0, "db_id": "x", "question": "q0", "evidence": "", "SQL": "SELECT a FROM t", "difficulty": "simple"},
        {"question_id": 1, "db_id": "x", "question": "q1", "evidence": "", "SQL": "SELECT COUNT(*) FROM t", "difficulty": "moderate"},
    ]);
    std::fs::write(d.join("gold.json"), gold.to_string()).unwrap();
    let predictions = serde_json::json!({
        "0": "SELECT a FROM t\t----- bird -----\tx",
        "1": "SELECT 5\t----- bird -----\tx",
    });
    std::fs::write(d.join("p.json"), predictions.to_string()).unwrap();
    std::fs::write(
        d.join("bird.toml"),
        format!(
            "[dataset]\nname = \"b\"\nformat = \"bird\"\ngold = \"{0}/gold.json\"\n\n\
             [databases]\npath = \"{0}/suite/{{db_id}}/*.sqlite\"\n\n\
             [[predictions]]\nname = \"p\"\nfile = \"{0}/p.json\"\n\n[metrics.ex]\n",
            d.display()
        ),
    )
    .unwrap();
    let run = |shift: &str| {
        let scripts = d.join(format!("scripts{shift}"));
        std::fs::create_dir_all(&scripts).unwrap();
        for (file, metric, add) in [
            ("evaluation_ex.py", "EX", "0"),
            ("evaluation_f1.py", "Soft-F1", shift),
        ] {
            let text = FAKE_SCRIPT
                .replace("SHIFT", add)
                .replace("METRIC", &format!("{metric:?}"));
            std::fs::write(scripts.join(file), text).unwrap();
        }
        let manifest = d.join("bird.toml");
        let out = sqlsuite(&[
            "bench",
            manifest.to_str().unwrap(),
            "--reference",
            scripts.to_str().unwrap(),
            "--databases",
            "2",
            "--jobs",
            "2",
        ]);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
        stdout
    };
    let agreeing = run("0");
    for expected in [
        "bench b: 1 prediction sets × 2 items, on database 1 … 2 of each schema's suite",
        "database 1: BIRD's scripts ",
        "database 2: BIRD's scripts ",
        "totals equal as the reference prints them: 2 of 2 (set, database) pairs",
    ] {
        assert!(agreeing.contains(expected), "{expected}:\n{agreeing}");
    }
    assert!(!agreeing.contains("differs"), "{agreeing}");
    let off = run("1");
    assert!(
        off.contains("totals equal as the reference prints them: 0 of 2"),
        "{off}"
    );
    assert!(
        off.contains("differs: database 2, p: BIRD's scripts EX 100.00 Soft-F1 101.00, sqlsuite EX 100.00 Soft-F1 100.00"),
        "{off}"
    );
}
