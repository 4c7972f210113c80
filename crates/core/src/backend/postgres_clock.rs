//! A pinned clock on PostgreSQL: sqlsuite cannot set a server's `now()` from a client, so it
//! reads it and checks it instead. A server whose clock was started at the pinned moment (the
//! throw-away server of `.ci/postgres` runs under libfaketime) is accepted; any other is refused,
//! with a message naming both clocks and how to pin a server.
//!
//! **Tolerance: the pinned moment's UTC date.** Sessions run in UTC, so `CURRENT_DATE`,
//! `date_trunc('week', now())`, `EXTRACT(YEAR FROM CURRENT_DATE)` and `AGE(CURRENT_DATE, x)` give
//! on any moment of that date what they give at the pinned moment. Every clock-reading query of
//! SQL-Eval's PostgreSQL pairs reads `CURRENT_DATE` only (56 in the golds, 51 in the
//! candidates), and its SQLite verdicts equal the reference's at any moment of 2026-11-21
//! (spec/sqleval.md §7). A server under libfaketime's start-at clock runs on from the moment
//! (a frozen clock stops PostgreSQL's timers: a CPU-bound query outlives its
//! `statement_timeout`), so `now()` and `clock_timestamp()` read the pinned moment plus the
//! time the server has been up: queries that read the time of day are pinned to the hour the
//! server started, not to the second. `spec/manifest.md`, "The clock".

use postgres::Client;

use crate::clock::Moment;

const DAY_MS: i64 = 86_400_000;

/// The server's clock (`now()`, the start of the session's transaction), to the millisecond.
pub fn read(client: &mut Client) -> Result<Moment, String> {
    let row = client
        .query_one("SELECT (extract(epoch FROM now()) * 1000)::int8", &[])
        .map_err(|e| format!("cannot read the server's clock: {e}"))?;
    let ms: i64 = row
        .try_get(0)
        .map_err(|e| format!("cannot read the server's clock: {e}"))?;
    Moment::from_unix_millis(ms).ok_or_else(|| format!("the server's clock is out of range: {ms}"))
}

/// `server` to the second, for messages and provenance.
pub fn to_second(server: Moment) -> Moment {
    let ms = server.unix_millis();
    Moment::from_unix_millis(ms - ms.rem_euclid(1000)).unwrap_or(server)
}

/// Whether a server whose clock reads `server` answers the queries of a manifest pinned to
/// `pinned` as they would be answered at that moment: the same UTC date (module docs).
pub fn check(server: Moment, pinned: Moment) -> Result<(), String> {
    let day = |m: Moment| m.unix_millis().div_euclid(DAY_MS);
    if day(server) == day(pinned) {
        return Ok(());
    }
    let date = &pinned.to_string()[..10];
    let faketime = pinned.to_string().replace('T', " ");
    let faketime = faketime.trim_end_matches('Z');
    Err(format!(
        "[dataset] clock = \"{pinned}\" pins the date to {date} (UTC), but the PostgreSQL \
         server's clock reads {}: its CURRENT_DATE and now() would answer another day. sqlsuite \
         cannot set a server's clock; run the server with its clock started at the moment \
         (libfaketime, on Debian: `TZ=UTC FAKETIME='@{faketime}' \
         LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 pg_ctl start …`; the \
         throw-away server: \
         `SQLSUITE_PG_CLOCK=\"{faketime}\" .ci/postgres start`), or write clock = \"system\" \
         to use the server's own clock (spec/manifest.md, \"The clock\")",
        to_second(server)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Moment {
        Moment::parse(text).unwrap()
    }

    #[test]
    fn a_server_on_the_pinned_date_is_accepted_and_any_other_refused() {
        let pinned = at("2026-11-21T12:00:00Z");
        for server in [
            "2026-11-21T12:00:00Z",
            "2026-11-21T12:47:03.250Z",
            "2026-11-21T00:00:00Z",
            "2026-11-21T23:59:59.999Z",
        ] {
            assert_eq!(check(at(server), pinned), Ok(()), "{server}");
        }
        for server in [
            "2026-11-20T23:59:59.999Z",
            "2026-11-22T00:00:00Z",
            "2026-11-29T20:31:05.120Z",
            "2025-11-21T12:00:00Z",
        ] {
            let error = check(at(server), pinned).unwrap_err();
            let shown = to_second(at(server)).to_string();
            assert!(error.contains(&shown), "{error}");
            assert!(error.contains("2026-11-21T12:00:00Z"), "{error}");
            assert!(
                error.contains("SQLSUITE_PG_CLOCK=\"2026-11-21 12:00:00\" .ci/postgres start"),
                "{error}"
            );
        }
    }
}
