//! The project's own trials, in one test binary (`cargo test --test conformance`; filter by
//! prefix: `cargo test --test conformance -- spider::`). Each module is one dataset, reference
//! or property the project checks, and gives its trials (and the evaluations whose summaries
//! are printed after them):
//!
//! * real data against the reference evaluators' own verdicts: [`spider`], [`sparc`],
//!   [`sqleval`] (SQLite and PostgreSQL), [`sede`], [`sede_reference`], [`bird`] (on suites
//!   distilled from BIRD's published profile), [`bird_postgres`] (its PostgreSQL golds and sets
//!   on those suites copied to a server); [`statements`] (predictions of several statements in
//!   every real set, both modes);
//! * what sqlsuite builds itself: [`test_suite`] (distilled Spider suites), [`classical`] (the
//!   classical datasets' suites), [`compose`] (SpiderCompose);
//! * untrusted input and hard limits: [`postgres`], [`postgres_clock`] (a pinned clock on a
//!   server: accepted on its date, refused otherwise), [`fuzz_readers`] (the hostile campaign is a
//!   binary of its own, `tests/hostile`: it measures the memory of the processes it starts);
//! * what people see and do: [`report`] (the HTML report in headless Chromium),
//!   [`insta_workflow`] (the real `cargo insta`), [`nextest_workflow`] (known failures under
//!   the real `cargo nextest`), [`determinism`] (byte-identical output
//!   whatever the threads and the load).
//!
//! Data they need and do not find (the shared data, a server, Chromium, `cargo-insta`) makes
//! them ignored with the reason; `SQLSUITE_REQUIRE_SHARED=1` (as `.ci/run` sets) makes that a
//! failure.

mod bird;
mod bird_postgres;
mod classical;
mod compose;
mod determinism;
mod fuzz_readers;
mod insta_workflow;
mod nextest_workflow;
mod pg_client;
mod postgres;
mod postgres_clock;
mod report;
mod sede;
mod sede_reference;
mod sparc;
mod spider;
mod sqleval;
mod statements;
mod test_suite;

use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Trial};
use sqlsuite::Evaluation;

/// A module's trials, and the evaluations behind them whose summaries are printed after the
/// trials ran.
pub type Trials = (Vec<Trial>, Vec<Arc<Evaluation>>);

fn main() -> ExitCode {
    if let Some(code) = insta_workflow::as_model_repository() {
        return code;
    }
    let args = Arguments::from_args();
    let modules: [fn() -> Trials; 18] = [
        spider::trials,
        bird::trials,
        bird_postgres::trials,
        sparc::trials,
        sqleval::trials,
        sede::trials,
        sede_reference::trials,
        test_suite::trials,
        classical::trials,
        compose::trials,
        postgres::trials,
        postgres_clock::trials,
        fuzz_readers::trials,
        report::trials,
        insta_workflow::trials,
        nextest_workflow::trials,
        determinism::trials,
        statements::trials,
    ];
    let mut trials = Vec::new();
    let mut evaluations = Vec::new();
    for module in modules {
        let (t, e) = module();
        trials.extend(t);
        evaluations.extend(e);
    }
    sqlsuite::trials::run_trials(&args, trials, &evaluations)
}
