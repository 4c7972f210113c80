//! A prediction's trial outcome: what its libtest trial reports and its JUnit test case records.
//!
//! Correct passes. An item no metric could evaluate is ignored with the reasons. Incorrect (or
//! a gold error) fails with the failure message in strict mode; in regression mode it fails
//! only if some metric judged it correct in the accepted snapshot and does not now (the message
//! then says under which), and is otherwise ignored as a known failure.

use super::message;
use super::snapshot::Accepted;
use crate::manifest::GateMode;
use crate::metric::Status;
use crate::run::Judged;

/// What a prediction's trial comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Passed.
    Passed,
    /// Failed, with the message to show.
    Failed(String),
    /// Ignored (skipped), with the reason.
    Ignored(String),
}

/// The outcome of the prediction at position `i` of its set, under the gate's `mode`, against
/// the set's accepted snapshot if there is one.
pub fn of(i: usize, judged: Judged<'_>, mode: GateMode, accepted: Option<&Accepted>) -> Outcome {
    let result = judged.result;
    let regression_mode = mode == GateMode::Regression;
    if regression_mode {
        let regressed = accepted
            .map(|a| a.regressions(i, result))
            .unwrap_or_default();
        if !regressed.is_empty() {
            let mut msg = message::failure(judged);
            msg.push_str(&format!(
                "regression: correct under {} in the accepted snapshot\n",
                regressed.join(", ")
            ));
            return Outcome::Failed(msg);
        }
    }
    match result.status() {
        Status::Correct => Outcome::Passed,
        Status::Skipped => {
            let reasons: Vec<&str> = result
                .verdicts
                .iter()
                .map(|(_, v)| v.reason.as_str())
                .collect();
            Outcome::Ignored(reasons.join("; "))
        }
        Status::Incorrect | Status::GoldError if regression_mode => {
            Outcome::Ignored(format!("known failure: {}", result.codes()))
        }
        Status::Incorrect | Status::GoldError => Outcome::Failed(message::failure(judged)),
    }
}
