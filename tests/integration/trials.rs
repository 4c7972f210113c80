//! Trials as libtest sees them: names, filtering, `--exact`, strict and regression outcomes,
//! failure messages, skipped items and unavailable data.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Conclusion};
use sqlsuite::report::message;
use sqlsuite::trials::{data_required, run_trials, trials_for};
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

/// Runs a manifest's trials as a model repository's target does (`run_trials`, with the
/// evaluation), and returns what libtest printed.
fn run_printed(manifest: &Path, args: &[&str]) -> String {
    let (trials, eval) = trials_for(manifest);
    let log = tempfile::NamedTempFile::new().unwrap();
    let log_path = log.path().to_string_lossy().into_owned();
    let mut argv = vec!["trials", "--test-threads", "1", "--logfile", &log_path];
    argv.extend_from_slice(args);
    let evaluations: Vec<_> = eval.into_iter().collect();
    run_trials(&Arguments::from_iter(argv), trials, &evaluations);
    std::fs::read_to_string(log.path()).unwrap()
}

/// The item trials an accepted demo snapshot records as not correct.
fn accepted_failures() -> Vec<String> {
    let mut names = Vec::new();
    for set in ["v1", "v2"] {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("snapshots/demo__{set}.snap"));
        let text = std::fs::read_to_string(path).unwrap();
        for line in text.split("\nitems:\n").nth(1).unwrap().lines() {
            let parts: Vec<&str> = line.split_whitespace().collect();
            if parts[2] != "exec=correct" {
                names.push(format!("demo::{set}::{}_{}", parts[0], parts[1]));
            }
        }
    }
    names
}

#[test]
fn known_failures_are_listed_as_ignored_so_nextest_skips_them() {
    // What cargo-nextest reads: `--list --ignored` names exactly the accepted failures.
    let listed = run_printed(&demo().join("demo.toml"), &["--list", "--ignored"]);
    let names: Vec<String> = listed
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_owned)
        .collect();
    let expected = accepted_failures();
    assert!(!expected.is_empty());
    assert_eq!(names, expected, "{listed}");
    // A plain run runs them and shows each one's reason beside "ignored".
    let printed = run_printed(&demo().join("demo.toml"), &["v1::"]);
    for name in expected.iter().filter(|n| n.starts_with("demo::v1::")) {
        assert!(
            printed
                .lines()
                .any(|l| l.starts_with(&format!("test {name} "))
                    && l.contains("ignored (known failure: exec=")),
            "{name}:\n{printed}"
        );
    }
    // Strict mode has no known failures to list.
    let dir = tempfile::tempdir().unwrap();
    let strict = run_printed(
        &demo_with_mode(dir.path(), "strict"),
        &["--list", "--ignored"],
    );
    assert!(!strict.contains(": test"), "{strict}");
}

#[test]
fn without_an_accepted_snapshot_no_failure_is_known() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = demo_with_mode(dir.path(), "regression");
    let empty = dir.path().join("no-snapshots");
    std::fs::create_dir_all(&empty).unwrap();
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        &format!("{}/snapshots", env!("CARGO_MANIFEST_DIR")),
        &empty.display().to_string(),
    );
    std::fs::write(&manifest, text).unwrap();
    // v1's 7 incorrect items fail (not ignored), and so does its snapshot trial.
    let c = run(&manifest, &["v1::"]);
    assert_eq!(
        (c.num_passed, c.num_failed, c.num_ignored),
        (13 + 1, 7 + 1, 0)
    );
    let printed = run_printed(&manifest, &["--exact", "demo::v1::03_library"]);
    assert!(
        printed.contains("no accepted snapshot records this item"),
        "{printed}"
    );
    assert!(!run_printed(&manifest, &["--list", "--ignored"]).contains(": test"));
}

#[test]
fn a_snapshot_failure_says_the_flipped_items_first() {
    use sqlsuite::report::diff::Diff;
    // v1's accepted snapshot holds v2's verdicts: against it, v1 regresses what v2 fixed.
    let dir = tempfile::tempdir().unwrap();
    let manifest = demo_with_mode(dir.path(), "regression");
    let snapshots = dir.path().join("snapshots");
    std::fs::create_dir_all(&snapshots).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("snapshots/demo__v2.snap"),
        snapshots.join("demo__v1.snap"),
    )
    .unwrap();
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        &format!("{}/snapshots", root.display()),
        &snapshots.display().to_string(),
    );
    std::fs::write(&manifest, text).unwrap();
    let printed = run_printed(&manifest, &["--exact", "demo::v1::snapshot"]);
    let message = printed
        .split("---- demo::v1::snapshot ----\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no failure:\n{printed}"));

    let run = Evaluation::open(demo().join("demo.toml"))
        .unwrap()
        .run_all();
    let flips = Diff::of(&run, &run.sets[1], &run.sets[0]);
    let exec = &flips.metrics[0];
    let mut regressed: Vec<usize> = exec.regressed.values().flatten().copied().collect();
    regressed.sort();
    let head = format!(
        "does not match: {} item{} regressed, {} newly correct, ",
        regressed.len(),
        if regressed.len() == 1 { "" } else { "s" },
        exec.fixes()
    );
    assert!(message.lines().next().unwrap().contains(&head), "{message}");
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(
        lines[1],
        format!("regressed ({}):", regressed.len()),
        "{message}"
    );
    for (k, i) in regressed.iter().enumerate() {
        let v2 = &run.sets[1].results[*i].verdict("exec").unwrap().code;
        let v1 = &run.sets[0].results[*i].verdict("exec").unwrap().code;
        let want = format!("  {i:02} {}  exec: {v2} -> {v1}", run.items[*i].db_id);
        assert_eq!(lines[2 + k], want, "{message}");
    }
    // The summary's changes come after the items; insta's own lines stay out.
    let items_end = message.find("newly correct (").unwrap();
    let others = message.find("other changed lines (").unwrap();
    assert!(items_end < others, "{message}");
    assert!(
        message.contains("\n  - exec: ") && message.contains("\n  + exec: "),
        "{message}"
    );
    assert!(
        !message.contains("Source:") && !message.contains("failed in line"),
        "{message}"
    );
}
