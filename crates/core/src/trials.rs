//! Trials: manifests → libtest trials, the test harness of a model repository.
//!
//! A test target with `harness = false` is three lines:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     sqlsuite::trials::run(&["datasets/spider.toml"])
//! }
//! ```
//!
//! Trials, per prediction set of each manifest:
//! * `<dataset>::<set>::<index>_<db_id>`: one per item. Correct passes. Incorrect fails with the
//!   reason (strict mode), or — in regression mode — fails only if some metric judged it correct
//!   in the accepted snapshot and does not now, and is otherwise reported as ignored, "known
//!   failure: exec=row_count (<reason>)"; an item the accepted snapshot does not record (there
//!   is none yet) has no known failure and fails as in strict mode. Items the accepted snapshot
//!   records as failing under every metric are listed as ignored (`--list --ignored`), so
//!   cargo-nextest skips them rather than running them and reporting a pass. An item no metric
//!   could evaluate (missing database) is reported as ignored with the reason.
//! * `<dataset>::<set>::snapshot`: the insta snapshot of the set's verdicts; its failure says
//!   what changed, flipped items first ([`crate::report::snapshot_change`]).
//! * `<dataset>::<set>::gate`: the gate's `min_accuracy` (when the manifest sets one).
//!
//! A manifest or dataset that cannot be loaded is one failed trial `<manifest stem>::load` with
//! the error (file, line, column); data declared `when_missing = "ignore"` that is absent is one
//! ignored trial `<manifest stem>::data` with the reasons.
//!
//! Filtering (`-- concert_singer`), `--list`, `--exact`, `--test-threads` and friends are
//! libtest's; one process per trial (cargo-nextest) works too.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use crate::evaluation::{Evaluation, OpenError};
use crate::manifest::{GateMode, LoadError};
use crate::report::outcome::{self, Outcome};
use crate::report::snapshot::{self, Accepted};
use crate::report::snapshot_change::{self, count};
use crate::report::{gate, summary::Summary};
use crate::run::Run;

/// Environment variable that turns "data unavailable" from ignored into failed (CI sets it).
pub const REQUIRE_DATA_ENV: &str = "SQLSUITE_REQUIRE_SHARED";
/// The variable that names the shared data directory (default `../shared`).
pub const SHARED_ENV: &str = "SQLSUITE_SHARED";

/// Runs the trials of the given manifests with libtest's command-line arguments.
pub fn run(manifests: &[&str]) -> ExitCode {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    let mut evaluations = Vec::new();
    for path in manifests {
        let (t, e) = trials_for(Path::new(path));
        trials.extend(t);
        evaluations.extend(e);
    }
    run_trials(&args, trials, &evaluations)
}

/// Runs trials (the manifests' and any of the caller's own), then prints one summary line per
/// fully evaluated prediction set.
pub fn run_trials(
    args: &Arguments,
    trials: Vec<Trial>,
    evaluations: &[Arc<Evaluation>],
) -> ExitCode {
    let trials = if args.list || args.ignored {
        flag_known_failures(trials, evaluations)
    } else {
        trials
    };
    let conclusion = libtest_mimic::run(args, trials);
    if !args.list {
        for eval in evaluations {
            print_summaries(eval);
        }
    }
    conclusion.exit_code()
}

/// The item trials of known failures marked ignored, for a listing (`--list`, which
/// cargo-nextest reads to decide what to run: a test listed as ignored is skipped, not run and
/// passed) and for `--ignored` (which runs only those). In a plain run they stay unmarked, so
/// that they run and libtest shows each one's reason beside "ignored"; either way a known
/// failure is reported as ignored, never as passed.
fn flag_known_failures(trials: Vec<Trial>, evaluations: &[Arc<Evaluation>]) -> Vec<Trial> {
    let known: HashSet<String> = evaluations.iter().flat_map(|e| known_failures(e)).collect();
    if known.is_empty() {
        return trials;
    }
    trials
        .into_iter()
        .map(|t| {
            let ignored = known.contains(t.name());
            t.with_ignored_flag(ignored)
        })
        .collect()
}

/// The names of the item trials that are known failures: in regression mode, items the set's
/// accepted snapshot records as failing and correct under no metric
/// ([`Accepted::is_known_failure`]), which therefore cannot regress.
fn known_failures(eval: &Evaluation) -> Vec<String> {
    if eval.manifest.gate.mode != GateMode::Regression {
        return Vec::new();
    }
    let mut names = Vec::new();
    for (set, preds) in eval.dataset.predictions.iter().enumerate() {
        let Some(accepted) = Accepted::read(&snapshot::path(&eval.manifest, &preds.name)) else {
            continue;
        };
        names.extend(
            (0..eval.items().len())
                .filter(|&i| accepted.is_known_failure(i))
                .map(|i| item_trial_name(eval, set, i)),
        );
    }
    names
}

/// `<dataset>::<set>::<index>_<db_id>`.
fn item_trial_name(eval: &Evaluation, set: usize, i: usize) -> String {
    let width = eval.index_width();
    format!(
        "{}::{}::{i:0width$}_{}",
        eval.dataset.name,
        eval.dataset.predictions[set].name,
        eval.items()[i].db_id
    )
}

#[doc(hidden)]
/// A trial standing for data (or a server) that is not there: ignored with `why`, or failed
/// when [`data_required`].
pub fn unavailable_trial(name: impl Into<String>, why: String) -> Trial {
    let required = data_required();
    Trial::ignorable_test(name, move || {
        if required {
            Err(Failed::from(format!("{why} ({REQUIRE_DATA_ENV}=1)")))
        } else {
            Ok(Completion::ignored_with(why))
        }
    })
}

#[doc(hidden)]
/// True when missing shared data must fail instead of being ignored (`SQLSUITE_REQUIRE_SHARED=1`).
pub fn data_required() -> bool {
    std::env::var(REQUIRE_DATA_ENV).is_ok_and(|v| v == "1")
}

#[doc(hidden)]
/// The shared data directory: `SQLSUITE_SHARED`, default `../shared`, made absolute against the
/// current directory. Absolute, because a test that writes a manifest elsewhere (a temporary
/// directory) must not have its shared paths resolved against that manifest's directory.
pub fn shared_dir() -> PathBuf {
    let dir =
        std::env::var_os(SHARED_ENV).map_or_else(|| PathBuf::from("../shared"), PathBuf::from);
    std::path::absolute(&dir).unwrap_or(dir)
}

fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(
        || "manifest".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// The trials of one manifest, and the evaluation behind them (if it could be opened).
pub fn trials_for(path: &Path) -> (Vec<Trial>, Option<Arc<Evaluation>>) {
    let eval = match Evaluation::open(path) {
        Ok(e) => Arc::new(e),
        Err(OpenError::Manifest(LoadError::Unavailable(reasons))) => {
            let reasons: Vec<String> = reasons.iter().map(ToString::to_string).collect();
            let why = format!("data unavailable: {}", reasons.join("; "));
            return (
                vec![unavailable_trial(format!("{}::data", stem(path)), why)],
                None,
            );
        }
        Err(e) => {
            let msg = e.to_string();
            let trial = Trial::test(format!("{}::load", stem(path)), move || Err(msg.into()));
            return (vec![trial], None);
        }
    };

    let mut trials = Vec::new();
    let ds = eval.dataset.name.clone();
    for (set, preds) in eval.dataset.predictions.iter().enumerate() {
        let accepted = Arc::new(Accepted::read(&snapshot::path(&eval.manifest, &preds.name)));
        let prefix = format!("{ds}::{}", preds.name);
        for i in 0..eval.items().len() {
            let name = item_trial_name(&eval, set, i);
            let (eval, accepted) = (eval.clone(), accepted.clone());
            trials.push(Trial::ignorable_test(name, move || {
                item_trial(&eval, set, i, accepted.as_ref().as_ref())
            }));
        }
        {
            let (eval, accepted) = (eval.clone(), accepted.clone());
            trials.push(Trial::test(format!("{prefix}::snapshot"), move || {
                snapshot_trial(&eval, set, accepted.as_ref().as_ref())
            }));
        }
        if !eval.manifest.gate.min_accuracy.is_empty() {
            let eval = eval.clone();
            trials.push(Trial::test(format!("{prefix}::gate"), move || {
                gate_trial(&eval, set)
            }));
        }
    }
    (trials, Some(eval))
}

fn item_trial(
    eval: &Evaluation,
    set: usize,
    i: usize,
    accepted: Option<&Accepted>,
) -> Result<Completion, Failed> {
    let mode = eval.manifest.gate.mode;
    match outcome::of(i, eval.judged(set, i), mode, accepted) {
        Outcome::Passed => Ok(Completion::Completed),
        Outcome::Ignored(why) => Ok(Completion::ignored_with(why)),
        Outcome::Failed(message) => Err(message.into()),
    }
}

fn snapshot_trial(
    eval: &Evaluation,
    set: usize,
    accepted: Option<&Accepted>,
) -> Result<(), Failed> {
    let run = eval.run(&[set]);
    let set = &run.sets[0];
    let content = snapshot::render(&run, set);
    let insta = snapshot::assert_with_insta(&run.manifest, &set.name, &content);
    if insta.is_ok() {
        return Ok(());
    }
    let path = snapshot::path(&run.manifest, &set.name);
    let review = "review with `cargo insta review`, or accept with INSTA_UPDATE=always";
    let (Some(accepted), Ok(accepted_text)) = (accepted, std::fs::read_to_string(&path)) else {
        return Err(format!(
            "no accepted snapshot at {}: the new one waits for review ({review})",
            path.display()
        )
        .into());
    };
    let change = snapshot_change::describe(&run, set, accepted, &accepted_text, &content);
    let regressed = !snapshot::flips(set, accepted).regressed.is_empty();
    if eval.manifest.gate.mode == GateMode::Regression && !regressed {
        // Only improvements (or reason changes): the regression gate passes; the new snapshot
        // waits for review.
        println!(
            "note: {} changed without regressions; {review}:\n{change}",
            path.display()
        );
        return Ok(());
    }
    Err(format!(
        "snapshot {} does not match: {change}{review}",
        path.display()
    )
    .into())
}

fn gate_trial(eval: &Evaluation, set: usize) -> Result<(), Failed> {
    let run = eval.run(&[set]);
    let set = &run.sets[0];
    let failures: Vec<String> = run
        .metrics
        .iter()
        .filter_map(|m| gate::check(&run.manifest.gate, &Summary::of(&run, set, m)).err())
        .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}

/// After the trials: one line per prediction set whose results were all computed.
fn print_summaries(eval: &Evaluation) {
    let judged: Vec<usize> = (0..eval.dataset.predictions.len())
        .filter(|&set| eval.is_judged(set))
        .collect();
    if judged.is_empty() {
        return;
    }
    // Every pair is judged already: the run runs no prediction (the gold checks' queries
    // are the metrics' gold queries, cached).
    let run = eval.run(&judged);
    for set in &run.sets {
        print_summary(&run, set);
    }
    println!(
        "{} {}",
        run.dataset,
        crate::report::gold_checks::line(&run.gold_checks)
    );
}

/// One prediction set's headline per metric, and how it compares with its accepted snapshot.
fn print_summary(run: &Run, set: &crate::run::SetRun) {
    for metric in &run.metrics {
        let s = Summary::of(run, set, metric);
        println!("{}::{} {}", run.dataset, set.name, s.headline());
    }
    if let Some(accepted) = Accepted::read(&snapshot::path(&run.manifest, &set.name)) {
        let f = snapshot::flips(set, &accepted);
        println!(
            "  vs accepted snapshot: {} regressed {:?}, {} newly correct {:?}, {}",
            f.regressed.len(),
            f.regressed,
            f.fixed.len(),
            f.fixed,
            count(f.known_failures, "known failure")
        );
    }
}
