//! The snapshot workflow a model repository follows, with the real `cargo insta`:
//! `insta::pending_then_accepted` copies the demo dataset and its accepted snapshots into a
//! temporary model repository, changes one prediction of `v1` so that an item's verdict flips
//! (incorrect → correct), runs `cargo insta test` there and checks that it reports the pending
//! snapshot (`snapshots/demo__v1.snap.new`), then `cargo insta accept`, and that the accepted
//! snapshot now records the flipped verdict and a second `cargo insta test` has nothing pending.
//!
//! To stay cheap, the temporary repository does not compile sqlsuite: its `tests/demo.rs` runs
//! this test binary (named by `SQLSUITE_TRIAL_RUNNER`), which, given `SQLSUITE_TRIALS_OF`, runs
//! the trials of that manifest with `sqlsuite::trials::run` exactly as a model repository's
//! own test target would. So `cargo insta test` builds a crate without dependencies (about a
//! second) and drives the library's real trials and insta.
//!
//! Needs `cargo-insta` (`.ci/run` installs it): without it the trial is reported as ignored
//! with the reason, and fails under `SQLSUITE_REQUIRE_SHARED=1`.

use std::path::Path;
use std::process::{Command, ExitCode, Output};
use std::time::Instant;

use libtest_mimic::{Failed, Trial};
use sqlsuite::trials;

use crate::Trials;

/// Set for the runner: the manifest whose trials to run.
const TRIALS_OF: &str = "SQLSUITE_TRIALS_OF";
/// Set for the temporary repository's test: the binary that runs the trials.
const RUNNER: &str = "SQLSUITE_TRIAL_RUNNER";
const NAME: &str = "insta::pending_then_accepted";

/// When the temporary repository runs this binary as its trial runner: the trials of the
/// manifest `SQLSUITE_TRIALS_OF` names, run as a model repository runs them.
pub fn as_model_repository() -> Option<ExitCode> {
    let manifest = std::env::var_os(TRIALS_OF)?;
    Some(trials::run(&[&manifest.to_string_lossy()]))
}

pub fn trials() -> Trials {
    let trial =
        if cargo(&["insta", "--version"], Path::new(".")).is_some_and(|o| o.status.success()) {
            Trial::test(NAME, pending_then_accepted)
        } else {
            trials::unavailable_trial(
                NAME,
                "cargo-insta is not installed (`cargo install cargo-insta --locked`; .ci/run \
             installs it)"
                    .to_owned(),
            )
        };
    (vec![trial], Vec::new())
}

/// `cargo <args>` in `dir`, in an environment of its own (its own target directory: the outer
/// `cargo test` holds the lock of ours; no `CI` or `INSTA_*` settings of the caller).
pub fn cargo(args: &[&str], dir: &Path) -> Option<Output> {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("CI");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("INSTA_") {
            command.env_remove(key);
        }
    }
    if let Ok(runner) = std::env::current_exe() {
        command.env(RUNNER, runner);
    }
    command.output().ok()
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()))?;
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

const CARGO_TOML: &str = r#"[package]
name = "model"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "src/lib.rs"
test = false
doctest = false

[[test]]
name = "demo"
harness = false

[workspace]
"#;

const DEMO_RS: &str = r#"fn main() -> std::process::ExitCode {
    let runner = std::env::var_os("SQLSUITE_TRIAL_RUNNER").expect("SQLSUITE_TRIAL_RUNNER");
    let status = std::process::Command::new(runner)
        .args(std::env::args_os().skip(1))
        .env("SQLSUITE_TRIALS_OF", "datasets/demo/demo.toml")
        .status()
        .expect("run the trials");
    std::process::ExitCode::from(status.code().unwrap_or(101) as u8)
}
"#;

pub fn show(o: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A temporary model repository in `repo`: a crate whose test target `demo` runs the demo
/// dataset's trials (through this binary), the demo's data and its accepted snapshots.
pub fn model_repository(repo: &Path) -> Result<(), Failed> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let write = |path: &str, text: &str| -> Result<(), Failed> {
        let path = repo.join(path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        std::fs::write(path, text).map_err(|e| e.to_string().into())
    };
    write("Cargo.toml", CARGO_TOML)?;
    write("src/lib.rs", "")?;
    write("tests/demo.rs", DEMO_RS)?;
    let demo = repo.join("datasets/demo");
    for part in ["db", "predictions"] {
        copy_dir(&root.join("datasets/demo").join(part), &demo.join(part))
            .map_err(|e| e.to_string())?;
    }
    for file in ["demo.toml", "gold.sql"] {
        std::fs::copy(root.join("datasets/demo").join(file), demo.join(file))
            .map_err(|e| e.to_string())?;
    }
    std::fs::create_dir_all(repo.join("snapshots")).map_err(|e| e.to_string())?;
    for set in ["v1", "v2"] {
        let name = format!("snapshots/demo__{set}.snap");
        std::fs::copy(root.join(&name), repo.join(&name)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn pending_then_accepted() -> Result<(), Failed> {
    let started = Instant::now();
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let repo = tmp.path();
    model_repository(repo)?;
    let demo = repo.join("datasets/demo");

    // v1's first item judged row_count in its accepted snapshot now predicts the gold itself.
    let accepted =
        std::fs::read_to_string(repo.join("snapshots/demo__v1.snap")).map_err(|e| e.to_string())?;
    let line = accepted
        .lines()
        .find(|l| l.ends_with(" exec=row_count"))
        .ok_or("no row_count item in demo__v1.snap")?;
    let index: usize = line[..line.find(' ').unwrap_or(0)]
        .parse()
        .map_err(|_| format!("bad item line {line:?}"))?;
    let gold = std::fs::read_to_string(demo.join("gold.sql")).map_err(|e| e.to_string())?;
    let gold_sql = gold
        .lines()
        .nth(index)
        .and_then(|l| l.split('\t').next())
        .ok_or("no gold line")?;
    let predictions_path = demo.join("predictions/v1.txt");
    let mut predictions: Vec<String> = std::fs::read_to_string(&predictions_path)
        .map_err(|e| e.to_string())?
        .lines()
        .map(str::to_owned)
        .collect();
    predictions[index] = gold_sql.to_owned();
    std::fs::write(&predictions_path, predictions.join("\n") + "\n").map_err(|e| e.to_string())?;

    // `cargo insta test`: the flip is an improvement, so the trials pass (regression gate) and
    // the new snapshot waits for review.
    let test = cargo(&["insta", "test"], repo).ok_or("cannot run cargo insta test")?;
    let pending = repo.join("snapshots/demo__v1.snap.new");
    let output = show(&test);
    if !pending.is_file() {
        return Err(format!("no pending {}:\n{output}", pending.display()).into());
    }
    if !output.contains("demo__v1.snap") || !output.contains("cargo insta review") {
        return Err(
            format!("cargo insta test does not report the pending snapshot:\n{output}").into(),
        );
    }
    if repo.join("snapshots/demo__v2.snap.new").exists() {
        return Err(format!("v2 changed too:\n{output}").into());
    }
    let listed = cargo(&["insta", "pending-snapshots"], repo).ok_or("cannot run cargo insta")?;
    if !show(&listed).contains("demo__v1.snap") {
        return Err(format!("cargo insta pending-snapshots:\n{}", show(&listed)).into());
    }

    // `cargo insta accept` takes it: the accepted snapshot records the item as correct.
    let accept = cargo(&["insta", "accept"], repo).ok_or("cannot run cargo insta accept")?;
    if !accept.status.success() || pending.exists() {
        return Err(format!("cargo insta accept:\n{}", show(&accept)).into());
    }
    let now =
        std::fs::read_to_string(repo.join("snapshots/demo__v1.snap")).map_err(|e| e.to_string())?;
    let flipped = line.replace(" exec=row_count", " exec=correct");
    if !now.lines().any(|l| l == flipped) {
        return Err(format!("the accepted snapshot lacks {flipped:?}:\n{now}").into());
    }

    // Nothing is pending any more.
    let again = cargo(&["insta", "test"], repo).ok_or("cannot run cargo insta test")?;
    if !again.status.success() || pending.exists() {
        return Err(format!("second cargo insta test:\n{}", show(&again)).into());
    }
    println!(
        "cargo insta test, accept, test again: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
