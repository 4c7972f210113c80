//! Trials under cargo-nextest, the runner of the README's CI recipe: `nextest::known_failures`
//! makes the temporary model repository of [`crate::insta_workflow`] (the demo dataset, its
//! accepted snapshots, a test target that runs the trials through this binary) and runs the real
//! `cargo nextest run` there.
//!
//! * With the accepted snapshots, every item they record as failing (a known failure in
//!   regression mode) is reported SKIP, not PASS, and every other trial passes.
//! * A plain `cargo test` of the same target reports each of them as ignored with its reason
//!   (`known failure: exec=rows_differ (values differ: …)`).
//! * Without accepted snapshots nothing is a known failure: the same items FAIL (as in strict
//!   mode, saying there is no accepted snapshot), and nothing is skipped.
//!
//! The expected sets come from the accepted snapshots' item lines, not from this file. Needs
//! `cargo-nextest` (`.ci/run` installs it): without it the trial is reported as ignored with
//! the reason, and fails under `SQLSUITE_REQUIRE_SHARED=1`.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use libtest_mimic::{Failed, Trial};
use sqlsuite::trials;

use crate::insta_workflow::{cargo, model_repository, show};
use crate::Trials;

const NAME: &str = "nextest::known_failures";

pub fn trials() -> Trials {
    let trial =
        if cargo(&["nextest", "--version"], Path::new(".")).is_some_and(|o| o.status.success()) {
            Trial::test(NAME, known_failures)
        } else {
            trials::unavailable_trial(
                NAME,
                "cargo-nextest is not installed (`cargo install cargo-nextest --locked`; .ci/run \
             installs it)"
                    .to_owned(),
            )
        };
    (vec![trial], Vec::new())
}

/// The trial names of the items an accepted snapshot records as not correct, and of the
/// others: `demo::v1::03_library`.
fn accepted_items(repo: &Path) -> Result<(BTreeSet<String>, BTreeSet<String>), Failed> {
    let (mut failing, mut correct) = (BTreeSet::new(), BTreeSet::new());
    for set in ["v1", "v2"] {
        let text = std::fs::read_to_string(repo.join(format!("snapshots/demo__{set}.snap")))
            .map_err(|e| e.to_string())?;
        let items = text.split("\nitems:\n").nth(1).ok_or("no item lines")?;
        for line in items.lines() {
            let parts: Vec<&str> = line.split_whitespace().collect();
            let [index, db, code] = parts[..] else {
                return Err(format!("unexpected item line {line:?}").into());
            };
            let name = format!("demo::{set}::{index}_{db}");
            if code == "exec=correct" {
                correct.insert(name);
            } else {
                failing.insert(name);
            }
        }
    }
    Ok((failing, correct))
}

/// nextest's status lines (`PASS [   0.012s] model::demo demo::v1::04_library`): the trial
/// names with each status.
fn statuses(output: &str, status: &str) -> BTreeSet<String> {
    output
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            l.strip_prefix(status)
                .filter(|rest| rest.starts_with(' '))?;
            l.split_whitespace()
                .last()
                .filter(|name| name.starts_with("demo::"))
                .map(str::to_owned)
        })
        .collect()
}

fn nextest(repo: &Path) -> Result<String, Failed> {
    let out = cargo(
        &[
            "nextest",
            "run",
            "--no-fail-fast",
            "--color",
            "never",
            "--status-level",
            "all",
            "--final-status-level",
            "none",
        ],
        repo,
    )
    .ok_or("cannot run cargo nextest")?;
    Ok(show(&out))
}

fn expect(
    what: &str,
    got: &BTreeSet<String>,
    want: &BTreeSet<String>,
    output: &str,
) -> Result<(), Failed> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, expected {want:?}\n{output}").into())
    }
}

fn known_failures() -> Result<(), Failed> {
    let started = Instant::now();
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let repo = tmp.path();
    model_repository(repo)?;
    let (failing, correct) = accepted_items(repo)?;
    if failing.is_empty() || correct.is_empty() {
        return Err("the demo's snapshots should have correct and failing items".into());
    }

    // With the accepted snapshots: known failures skipped, the rest passed.
    let output = nextest(repo)?;
    expect("SKIP", &statuses(&output, "SKIP"), &failing, &output)?;
    let mut passed = correct.clone();
    passed.extend(
        [
            "demo::v1::snapshot",
            "demo::v2::snapshot",
            "demo::v1::gate",
            "demo::v2::gate",
        ]
        .map(String::from),
    );
    expect("PASS", &statuses(&output, "PASS"), &passed, &output)?;
    expect(
        "FAIL",
        &statuses(&output, "FAIL"),
        &BTreeSet::new(),
        &output,
    )?;

    // libtest (cargo test) shows each known failure's reason beside "ignored".
    let out = cargo(&["test", "--test", "demo"], repo).ok_or("cannot run cargo test")?;
    let plain = show(&out);
    for name in &failing {
        let shown = plain.lines().any(|l| {
            l.starts_with(&format!("test {name} ")) && l.contains("ignored (known failure: exec=")
        });
        if !shown {
            return Err(format!("{name}: no ignored line with its reason\n{plain}").into());
        }
    }

    // Without accepted snapshots nothing is known: the failing items fail.
    std::fs::remove_dir_all(repo.join("snapshots")).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(repo.join("snapshots")).map_err(|e| e.to_string())?;
    let output = nextest(repo)?;
    expect(
        "SKIP without snapshots",
        &statuses(&output, "SKIP"),
        &BTreeSet::new(),
        &output,
    )?;
    let mut failed = failing.clone();
    failed.extend(["demo::v1::snapshot", "demo::v2::snapshot"].map(String::from));
    expect(
        "FAIL without snapshots",
        &statuses(&output, "FAIL"),
        &failed,
        &output,
    )?;
    if !output.contains("no accepted snapshot records this item") {
        return Err(format!("the failures do not say why:\n{output}").into());
    }
    println!(
        "cargo nextest run (with and without snapshots), cargo test: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
