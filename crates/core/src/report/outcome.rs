//! A prediction's trial outcome: what its libtest trial reports and its JUnit test case records.
//!
//! Correct passes. An item no metric could evaluate is ignored with the reasons. Incorrect (or
//! a gold error) fails with the failure message in strict mode; in regression mode it fails
//! only if some metric judged it correct in the accepted snapshot and does not now (the message
//! then says under which), and is otherwise ignored as a known failure, the ignore message
//! saying each failing metric's code and reason. Without an accepted snapshot that records the
//! item nothing is known of it: regression mode then fails it as strict mode does, saying so.

use super::message;
use super::snapshot::Accepted;
use crate::manifest::GateMode;
use crate::metric::Status;
use crate::run::Judged;

/// The last line of an incorrect item's failure in regression mode when no accepted snapshot
/// records the item (there is none yet, or it predates the item).
pub const NO_SNAPSHOT: &str = "regression mode: no accepted snapshot records this item, so its \
     failure is not a known one and fails as in strict mode; accept the snapshot (`cargo insta \
     review`) to fail only regressions\n";

/// How long a reason may be in a known failure's ignore message.
const REASON_WIDTH: usize = 100;

/// `known failure: exec=rows_differ (values differ: …)`: each metric that is not correct, with
/// its reason on one line, cut to [`REASON_WIDTH`] characters. What the runner shows beside
/// "ignored".
pub fn known_failure(judged: Judged<'_>) -> String {
    let failing: Vec<String> = judged
        .result
        .verdicts
        .iter()
        .filter(|(_, v)| v.status != Status::Correct)
        .map(|(m, v)| {
            format!(
                "{m}={} ({})",
                v.code,
                message::one_line(&v.reason, REASON_WIDTH)
            )
        })
        .collect();
    format!("known failure: {}", failing.join("; "))
}

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
    if regression_mode && !accepted.is_some_and(|a| a.codes.contains_key(&i)) {
        // A known failure needs an accepted snapshot that knows the item: judged as in strict
        // mode.
        return match of(i, judged, GateMode::Strict, None) {
            Outcome::Failed(mut msg) => {
                msg.push_str(NO_SNAPSHOT);
                Outcome::Failed(msg)
            }
            other => other,
        };
    }
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
            Outcome::Ignored(known_failure(judged))
        }
        Status::Incorrect | Status::GoldError => Outcome::Failed(message::failure(judged)),
    }
}
