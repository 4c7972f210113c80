//! Trials as libtest sees them: names, filtering, `--exact`, strict and regression outcomes,
//! failure messages, skipped items and unavailable data.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Conclusion};
use sqlsuite::report::message;
use sqlsuite::trials::{data_required, trials_for};
use sqlsuite::Evaluation;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/demo")
}

/// Runs a manifest's trials in-process. libtest's report goes to a log file, so that the nested
/// "test result" lines never mix with this test binary's own.
fn run(manifest: &Path, args: &[&str]) -> Conclusion {
    let (trials, _) = trials_for(manifest);
    let log = tempfile::NamedTempFile::new().unwrap();
    let log_path = log.path().to_string_lossy().into_owned();
    let mut argv = vec![
        "trials",
        "--test-threads",
        "1",
        "--logfile",
        log_path.as_str(),
    ];
    argv.extend_from_slice(args);
    libtest_mimic::run(&Arguments::from_iter(argv), trials)
}

/// The demo manifest with another gate mode, written next to the demo data.
fn demo_with_mode(dir: &Path, mode: &str) -> PathBuf {
    let text = std::fs::read_to_string(demo().join("demo.toml"))
        .unwrap()
        .replace("mode = \"regression\"", &format!("mode = \"{mode}\""))
        .replace(
            "gold = \"gold.sql\"",
            &format!("gold = \"{}\"", demo().join("gold.sql").display()),
        )
        .replace(
            "\"db/{db_id}",
            &format!("\"{}/db/{{db_id}}", demo().display()),
        )
        .replace(
            "\"predictions/",
            &format!("\"{}/predictions/", demo().display()),
        )
        .replace(
            "\"../../snapshots\"",
            &format!("\"{}/snapshots\"", env!("CARGO_MANIFEST_DIR")),
        );
    let path = dir.join("demo.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn trial_names_are_dataset_set_and_padded_index_with_db() {
    let (trials, _) = trials_for(&demo().join("demo.toml"));
    let names: Vec<&str> = trials.iter().map(|t| t.name()).collect();
    assert_eq!(names.len(), 2 * (20 + 2));
    assert_eq!(names[0], "demo::v1::00_library");
    assert_eq!(names[19], "demo::v1::19_school");
    assert!(names.contains(&"demo::v1::snapshot"));
    assert!(names.contains(&"demo::v2::gate"));
}

#[test]
fn filters_and_exact_select_trials_like_libtest() {
    let manifest = demo().join("demo.toml");
    let c = run(&manifest, &["school"]);
    assert_eq!(c.num_filtered_out, 44 - 20);
    let c = run(&manifest, &["--exact", "demo::v1::03_library"]);
    assert_eq!(c.num_passed + c.num_failed + c.num_ignored, 1);
    let c = run(&manifest, &["--list"]);
    assert_eq!(c.num_passed + c.num_failed, 0);
}

#[test]
fn regression_mode_reports_known_failures_as_ignored() {
    // The demo's accepted snapshots hold each set's own verdicts: nothing regresses.
    let c = run(&demo().join("demo.toml"), &["v1::"]);
    assert_eq!((c.num_passed, c.num_failed, c.num_ignored), (13 + 2, 0, 7));
}

#[test]
fn strict_mode_fails_every_incorrect_prediction() {
    let dir = tempfile::tempdir().unwrap();
    let c = run(&demo_with_mode(dir.path(), "strict"), &["v1::"]);
    assert_eq!((c.num_passed, c.num_failed, c.num_ignored), (13 + 2, 7, 0));
}

#[test]
fn failure_messages_show_queries_reason_and_rows() {
    let eval = Evaluation::open(demo().join("demo.toml")).unwrap();
    // v1 item 13 sorts descending where the gold sorts ascending.
    let m = message::failure(eval.judged(0, 13));
    assert!(m.starts_with("gold:       SELECT"), "{m}");
    assert!(m.contains("\nprediction: "), "{m}");
    assert!(m.contains("gold.sql:14 (db school)"), "{m}");
    assert!(m.contains("exec: same rows in a different order"), "{m}");
    assert!(
        m.contains("gold rows (") && m.contains("predicted rows ("),
        "{m}"
    );
    // v1 item 3 selects the wrong column: the differing rows of each side are shown.
    let m = message::failure(eval.judged(0, 3));
    assert!(m.contains("exec: values differ"), "{m}");
    assert!(
        m.contains("only in gold (") && m.contains("only in prediction ("),
        "{m}"
    );
    // v1 item 6 does not parse: SQLite's message.
    let m = message::failure(eval.judged(0, 6));
    assert!(m.contains("exec: prediction failed: near"), "{m}");
    assert!(m.contains("syntax error"), "{m}");
}

#[test]
fn items_without_a_database_are_ignored_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("db/here")).unwrap();
    std::fs::write(
        dir.path().join("db/here/here.sql"),
        "CREATE TABLE t(x); INSERT INTO t VALUES (1);",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("gold.sql"),
        "SELECT x FROM t\there\nSELECT x FROM t\tgone\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("p.txt"),
        "SELECT x FROM t\nSELECT x FROM t\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("m.toml"),
        "[dataset]\nname = \"s\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\
         [databases]\npath = \"db/{db_id}/{db_id}.sql\"\n\
         [[predictions]]\nname = \"p\"\nfile = \"p.txt\"\n",
    )
    .unwrap();
    let m = dir.path().join("m.toml");
    let eval = Evaluation::open(&m).unwrap();
    let v = eval.judge(0, 1).verdict("exec").unwrap().clone();
    assert_eq!(v.code, "missing_database");
    assert!(v.reason.contains("gone.sql not found"), "{v:?}");
    let c = run(&m, &["--skip", "snapshot"]);
    // Item 0 passes, item 1 is ignored (its reason is the message above).
    assert_eq!((c.num_passed, c.num_failed, c.num_ignored), (1, 0, 1));
}

#[test]
fn unavailable_data_is_one_ignored_trial_unless_required() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ext.toml"),
        "[dataset]\nname = \"ext\"\nformat = \"spider\"\ngold = \"nowhere/gold.sql\"\nwhen_missing = \"ignore\"\n\
         [databases]\npath = \"nowhere/{db_id}.sqlite\"\n",
    )
    .unwrap();
    let (trials, eval) = trials_for(&dir.path().join("ext.toml"));
    assert!(eval.is_none());
    assert_eq!(trials.len(), 1);
    assert_eq!(trials[0].name(), "ext::data");
    let c = run(&dir.path().join("ext.toml"), &[]);
    if data_required() {
        assert_eq!(c.num_failed, 1);
    } else {
        assert_eq!(c.num_ignored, 1);
    }
}

#[test]
fn a_run_judges_exactly_the_sets_it_is_given() {
    let eval = Evaluation::open("datasets/demo/demo.toml").unwrap();
    let n = eval.items().len();
    let run = eval.run(&[1]);
    assert!((0..n).all(|i| eval.computed(1, i).is_some()));
    assert!((0..n).all(|i| eval.computed(0, i).is_none()));
    assert_eq!(run.sets.len(), 1);
    assert_eq!(run.sets[0].name, "v2");
    // The same verdicts as judging one item at a time.
    let alone = Evaluation::open("datasets/demo/demo.toml").unwrap();
    assert!((0..n).all(|i| alone.judge(1, i) == &run.sets[0].results[i]));
}
