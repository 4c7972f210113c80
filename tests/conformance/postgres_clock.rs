//! A pinned clock on a real PostgreSQL server (`postgres::pinned_clock`): sqlsuite cannot set
//! the server's clock, so it reads it and accepts a pin only on the server's own date
//! (spec/manifest.md, "The clock"). Whatever clock the server runs on (`.ci/postgres` starts it at
//! SQL-Eval's moment; `SQLSUITE_PG_CLOCK=system` on the machine's), the trial reads it and:
//!
//! * pins a manifest to noon of the server's date: it opens, its clock-reading gold
//!   (`SELECT CURRENT_DATE`) is judged, and the provenance records the pin and the server's
//!   clock as read;
//! * pins the same manifest 400 days earlier, as a user's server that nobody pinned would be
//!   for the manifest: opening it is refused, the message naming the pinned moment, the
//!   server's clock and how to pin a server (`SQLSUITE_PG_CLOCK=… .ci/postgres start`);
//! * a backend made for that other day fails every new session with `open_error` (the check
//!   on connect, for a server whose clock moves off the date during a run).
//!
//! Needs `SQLSUITE_POSTGRES` (`.ci/postgres start`); without it the trial is ignored with the
//! reason (a failure under `SQLSUITE_REQUIRE_SHARED=1`).

use std::path::Path;

use libtest_mimic::{Failed, Trial};
use sqlsuite::backend::postgres::Postgres;
use sqlsuite::backend::{Backend, Database, Limits, QueryError};
use sqlsuite::clock::{Clock, Moment};
use sqlsuite::registry::OpenError;
use sqlsuite::{trials, Evaluation};

use crate::Trials;

const ENV: &str = "SQLSUITE_POSTGRES";
const NAME: &str = "postgres::pinned_clock";
const DAY_MS: i64 = 86_400_000;

pub fn trials() -> Trials {
    let trial = match std::env::var(ENV).ok().filter(|v| !v.is_empty()) {
        None => trials::unavailable_trial(
            NAME,
            format!("no PostgreSQL server configured: {ENV} is not set (`.ci/postgres start`)"),
        ),
        Some(conn) => Trial::test(NAME, move || pinned_clock(&conn)),
    };
    (vec![trial], Vec::new())
}

/// The server's date, as a day number since 1970-01-01 (UTC).
fn server_day(conn: &str) -> Result<i64, Failed> {
    let now = Postgres::new(conn)?.server_clock(&Database::Named("postgres".into()))?;
    Ok(Moment::parse(&now)?.unix_millis().div_euclid(DAY_MS))
}

/// Noon of day number `day`.
fn noon(day: i64) -> Result<Moment, Failed> {
    Moment::from_unix_millis(day * DAY_MS + DAY_MS / 2).ok_or_else(|| "day out of range".into())
}

fn write_manifest(dir: &Path, clock: Moment) -> Result<std::path::PathBuf, Failed> {
    std::fs::write(dir.join("gold.sql"), "SELECT CURRENT_DATE\tpostgres\n")?;
    std::fs::write(dir.join("pred.txt"), "SELECT CURRENT_DATE\n")?;
    let manifest = dir.join(format!("pinned_{}.toml", clock.unix_millis()));
    std::fs::write(
        &manifest,
        format!(
            "[dataset]\nname = \"pgclock\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\
             clock = \"{clock}\"\n\n[databases]\nbackend = \"postgres\"\nname = \"{{db_id}}\"\n\
             connection_env = \"{ENV}\"\n\n[[predictions]]\nname = \"p\"\nfile = \"pred.txt\"\n\n\
             [metrics.exec]\n"
        ),
    )?;
    Ok(manifest)
}

fn pinned_clock(conn: &str) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    // The server's date, read again if it turned midnight meanwhile.
    let mut day = server_day(conn)?;
    let mut accepted = Evaluation::open(write_manifest(dir.path(), noon(day)?)?);
    if accepted.is_err() && server_day(conn)? != day {
        day = server_day(conn)?;
        accepted = Evaluation::open(write_manifest(dir.path(), noon(day)?)?);
    }
    let same_day = noon(day)?;
    let eval = accepted.map_err(|e| format!("pinned to the server's date {same_day}: {e}"))?;
    eval.run_all();
    let verdict = eval.judge(0, 0).verdict("exec").map(|v| v.code.clone());
    if verdict.as_deref() != Some("correct") {
        return Err(format!("SELECT CURRENT_DATE against itself: {verdict:?}").into());
    }
    let provenance = eval.provenance().clock.clone();
    if !provenance.starts_with(&format!(
        "pinned {same_day} (server: {}",
        &same_day.to_string()[..10]
    )) {
        return Err(format!("provenance clock: {provenance}").into());
    }

    let other_day = noon(day - 400)?;
    let message = match Evaluation::open(write_manifest(dir.path(), other_day)?) {
        Ok(_) => return Err(format!("pinned to {other_day}: opened on the server's clock").into()),
        Err(OpenError::Backend { message, .. }) => message,
        Err(e) => return Err(format!("pinned to {other_day}: not a backend error: {e}").into()),
    };
    let faketime = other_day.to_string().replace('T', " ");
    for part in [
        format!("clock = \"{other_day}\""),
        format!("server's clock reads {}", &same_day.to_string()[..10]),
        format!(
            "SQLSUITE_PG_CLOCK=\"{}\" .ci/postgres start",
            faketime.trim_end_matches('Z')
        ),
    ] {
        if !message.contains(&part) {
            return Err(format!("the refusal does not say {part:?}:\n{message}").into());
        }
    }

    let backend = Postgres::at(conn, Clock::Pinned(other_day))?;
    let session = backend.execute(
        &Database::Named("postgres".into()),
        "SELECT 1",
        &Limits::default(),
    );
    match session {
        Err(QueryError::Open { message, .. }) if message.contains(&other_day.to_string()) => {}
        other => return Err(format!("a session on another day gave {other:?}").into()),
    }
    println!("pinned {same_day}: accepted (provenance {provenance}); pinned {other_day}: refused:\n{message}");
    Ok(())
}
