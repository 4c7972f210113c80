//! The PostgreSQL backend against a real server.
//!
//! * `postgres::read_only`: hostile predictions, run through the backend connected as a
//!   **superuser** (so no privilege stops them; only the backend's own defences do), leave a
//!   scratch database's content, tables and settings exactly as they were, and the session keeps
//!   working afterwards;
//! * `postgres::types`: values decode as psycopg2 + pandas would see them;
//! * `postgres::timeout`: a long query is cancelled at the statement timeout.
//! * `postgres::resource_bounds`: every query runs with the backend's `work_mem`, no parallel
//!   workers and its `temp_file_limit`; a sort that spills past the limit, a value past
//!   [`MAX_VALUE_BYTES`], a result past `max_bytes` and (where the server runs under an address
//!   space limit, as `.ci/postgres` starts it) a memory bomb are each `resource_limit`, and
//!   neither this process nor the server's backend grows by more than a stated bound.
//!
//! Needs `SQLSUITE_POSTGRES_ADMIN`, a superuser connection string (`.ci/postgres start` prints
//! one); without it the trials are reported as ignored with the reason, and fail under
//! `SQLSUITE_REQUIRE_SHARED=1` (as in CI, which starts a server).

use std::str::FromStr;
use std::time::{Duration, Instant};

use crate::pg_client::{self as client, connect, pg};
use libtest_mimic::{Failed, Trial};
use postgres::{Client, Config, NoTls};
use sqlsuite::backend::postgres::{Postgres, MAX_VALUE_BYTES, TEMP_FILE_LIMIT, WORK_MEM};
use sqlsuite::backend::{Backend, Database, Limits, QueryError};
use sqlsuite::denotation::{ColumnType, Value};
use sqlsuite::trials;

use crate::Trials;

const ADMIN_ENV: &str = "SQLSUITE_POSTGRES_ADMIN";
const SCRATCH: &str = "sqlsuite_scratch";

pub fn trials() -> Trials {
    let admin = std::env::var(ADMIN_ENV).ok().filter(|v| !v.is_empty());
    let names = [
        "postgres::read_only",
        "postgres::types",
        "postgres::timeout",
        "postgres::server_version",
        "postgres::resource_bounds",
    ];
    let trials = match admin {
        None => names
            .iter()
            .map(|name| {
                trials::unavailable_trial(
                    *name,
                    format!(
                        "no PostgreSQL server configured: {ADMIN_ENV} is not set \
                         (`.ci/postgres start`)"
                    ),
                )
            })
            .collect(),
        Some(conn) => {
            let (c1, c2, c3, c4) = (conn.clone(), conn.clone(), conn.clone(), conn.clone());
            vec![
                Trial::test(names[0], move || read_only(&c1)),
                Trial::test(names[1], move || types(&c2)),
                Trial::test(names[2], move || timeout(&c3)),
                Trial::test(names[3], move || server_version(&c4)),
                Trial::test(names[4], move || resource_bounds(&conn)),
            ]
        }
    };
    (trials, Vec::new())
}

/// Everything a prediction could change that we can see: the rows of every table, and the
/// catalog ([`client::fingerprint`]).
const FINGERPRINT: &[&str] = &["SELECT string_agg(t::text, ';' ORDER BY t::text) FROM victim t"];

fn fingerprint(client: &mut Client) -> Result<String, Failed> {
    client::fingerprint(client, FINGERPRINT)
}

fn read_only(admin: &str) -> Result<(), Failed> {
    let mut root = connect(admin, "postgres")?;
    root.batch_execute(&format!("DROP DATABASE IF EXISTS {SCRATCH}"))
        .map_err(pg)?;
    root.batch_execute(&format!("CREATE DATABASE {SCRATCH}"))
        .map_err(pg)?;
    let result = hostile_predictions(admin);
    root.batch_execute(&format!("DROP DATABASE IF EXISTS {SCRATCH} WITH (FORCE)"))
        .map_err(pg)?;
    result
}

fn hostile_predictions(admin: &str) -> Result<(), Failed> {
    let mut setup = connect(admin, SCRATCH)?;
    setup
        .batch_execute(
            "CREATE TABLE victim (id int PRIMARY KEY, name text); \
             INSERT INTO victim VALUES (1, 'a'), (2, 'b'); \
             CREATE SEQUENCE victim_seq;",
        )
        .map_err(pg)?;
    let before = fingerprint(&mut setup)?;
    let backend = Postgres::new(admin)?;
    let db = Database::Named(SCRATCH.into());
    let limits = Limits {
        timeout: Duration::from_millis(2000),
        ..Limits::default()
    };
    let hostile = [
        "DELETE FROM victim",
        "DELETE FROM victim RETURNING *",
        "UPDATE victim SET name = 'x' RETURNING id",
        "INSERT INTO victim VALUES (3, 'c') RETURNING id",
        "WITH d AS (DELETE FROM victim RETURNING *) SELECT * FROM d",
        "DROP TABLE victim",
        "SELECT 1; DROP TABLE victim",
        "SELECT 1 FROM victim; DELETE FROM victim",
        "COMMIT",
        "ROLLBACK; DELETE FROM victim",
        "SET TRANSACTION READ WRITE",
        "SELECT set_config('transaction_read_only', 'off', false)",
        "SELECT set_config('default_transaction_read_only', 'off', false)",
        "CREATE TABLE planted (a int)",
        "SELECT * INTO planted FROM victim",
        "CREATE TEMP TABLE planted AS SELECT * FROM victim",
        "CREATE FUNCTION f() RETURNS int AS 'SELECT 1' LANGUAGE sql",
        "DO $$ BEGIN DELETE FROM victim; END $$",
        "SELECT nextval('victim_seq')",
        "SELECT setval('victim_seq', 100)",
        "SELECT lo_create(0)",
        "SELECT lo_import('/etc/hostname')",
        "COPY victim TO STDOUT",
        "COPY victim FROM STDIN",
        "ALTER DATABASE sqlsuite_scratch SET work_mem = '1MB'",
        "VACUUM victim",
        "LOCK TABLE victim",
        "PREPARE p AS DELETE FROM victim",
        "SELECT pg_terminate_backend(pg_backend_pid())",
    ];
    let mut problems = Vec::new();
    for sql in hostile {
        match backend.execute(&db, sql, &limits) {
            Ok(t) if sql.starts_with("SELECT pg_terminate_backend") => {
                problems.push(format!("{sql}: returned {:?}", t.rows));
            }
            Ok(_) if sql.starts_with("SELECT set_config") || sql.starts_with("SELECT lo_") => {
                // These run even in a read-only transaction (as a superuser); their effects are
                // transactional and rolled back, which the fingerprint below checks.
            }
            Ok(t) => problems.push(format!("{sql}: ran and returned {} rows", t.rows.len())),
            Err(QueryError::Sql(_)) | Err(QueryError::Open { .. }) => {}
            Err(e) => problems.push(format!("{sql}: unexpected error {e:?}")),
        }
        // The session still answers after every attempt (a killed one is replaced).
        match backend.execute(&db, "SELECT count(*) FROM victim", &limits) {
            Ok(t) if t.rows == vec![vec![Value::Int(2)]] => {}
            other => problems.push(format!("after {sql}: victim reads {other:?}")),
        }
    }
    let after = fingerprint(&mut setup)?;
    if before != after {
        problems.push(format!(
            "database changed:\nbefore:\n{before}\nafter:\n{after}"
        ));
    }
    if problems.is_empty() {
        println!(
            "{} hostile predictions run as a superuser: the database is unchanged",
            hostile.len()
        );
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

fn types(admin: &str) -> Result<(), Failed> {
    let backend = Postgres::new(admin)?;
    let db = Database::Named("postgres".into());
    let t = backend
        .execute(
            &db,
            "SELECT true AS b, 7::int2 AS s, 9000000000::int8 AS l, 12.34::numeric(10,2) AS n, \
             1.1::real AS r, 0.1::float8 AS d, 'ab'::char(3) AS c, 'x'::varchar AS v, \
             DATE '2024-02-29' AS dt, TIME '13:45:00.5' AS tm, \
             TIMESTAMP '2024-01-31 13:45:00' AS ts, TIMESTAMPTZ '2024-01-31 13:45:00+02' AS tz, \
             INTERVAL '1 day 02:00:00' AS iv, NULL::int AS nul, 'NaN'::numeric AS nan, \
             '5c0a6b9e-3b1c-4f34-9a3e-2d3f1b2c4d5e'::uuid AS u, '{\"k\": 1}'::jsonb AS j",
            &Limits::default(),
        )
        .map_err(|e| e.to_string())?;
    let row = &t.rows[0];
    let expect = [
        ("b", Value::Int(1), ColumnType::Bool),
        ("s", Value::Int(7), ColumnType::Plain),
        ("l", Value::Int(9_000_000_000), ColumnType::Plain),
        ("n", Value::Real(12.34), ColumnType::Plain),
        ("r", Value::Real(1.1), ColumnType::Plain),
        ("d", Value::Real(0.1), ColumnType::Plain),
        ("c", Value::Text("ab ".into()), ColumnType::Plain),
        ("v", Value::Text("x".into()), ColumnType::Plain),
        ("dt", Value::Text("2024-02-29".into()), ColumnType::Date),
        (
            "tm",
            Value::Text("13:45:00.500000".into()),
            ColumnType::Time,
        ),
        (
            "ts",
            Value::Text("2024-01-31T13:45:00".into()),
            ColumnType::Timestamp,
        ),
        (
            "tz",
            Value::Text("2024-01-31T11:45:00+00:00".into()),
            ColumnType::TimestampTz,
        ),
        (
            "iv",
            Value::Int(26 * 3_600_000_000_000),
            ColumnType::Interval,
        ),
        ("nul", Value::Null, ColumnType::Plain),
        (
            "u",
            Value::Text("5c0a6b9e-3b1c-4f34-9a3e-2d3f1b2c4d5e".into()),
            ColumnType::Plain,
        ),
        ("j", Value::Text("{\"k\": 1}".into()), ColumnType::Plain),
    ];
    let mut problems = Vec::new();
    for (name, value, kind) in expect {
        let Some(j) = t.columns.iter().position(|c| c == name) else {
            problems.push(format!("no column {name}"));
            continue;
        };
        if row[j] != value || t.column_types[j] != kind {
            problems.push(format!(
                "{name}: got {:?} {:?}, want {value:?} {kind:?}",
                row[j], t.column_types[j]
            ));
        }
    }
    let nan = t.columns.iter().position(|c| c == "nan");
    if !nan.is_some_and(|j| matches!(row[j], Value::Real(f) if f.is_nan())) {
        problems.push("numeric NaN does not read as a float NaN".into());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

fn timeout(admin: &str) -> Result<(), Failed> {
    let backend = Postgres::new(admin)?;
    let db = Database::Named("postgres".into());
    let limits = Limits {
        timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let start = Instant::now();
    let r = backend.execute(&db, "SELECT pg_sleep(30)", &limits);
    let took = start.elapsed();
    if !matches!(r, Err(QueryError::Timeout { ms: 300 })) {
        return Err(format!("pg_sleep(30) gave {r:?}").into());
    }
    // Bounded rows: a huge result stops at max_rows + 1 without transferring the rest.
    let few = Limits {
        max_rows: 10,
        ..Limits::default()
    };
    let r = backend.execute(&db, "SELECT generate_series(1, 100000000)", &few);
    if !matches!(r, Err(QueryError::TooManyRows { limit: 10 })) {
        return Err(format!("a 10^8-row result gave {r:?}").into());
    }
    println!("pg_sleep(30) interrupted after {took:?}");
    Ok(())
}

/// The version provenance records: `SHOW server_version`'s first word, as a client reads it.
fn server_version(admin: &str) -> Result<(), Failed> {
    let backend = Postgres::new(admin)?;
    let version = backend.server_version(&Database::Named("postgres".into()))?;
    let mut client = Config::from_str(admin)?.dbname("postgres").connect(NoTls)?;
    let full: String = client.query_one("SHOW server_version", &[])?.get(0);
    if full.split_whitespace().next() != Some(version.as_str()) {
        return Err(format!("server_version gave {version:?}; the server says {full:?}").into());
    }
    if version.is_empty() || !version.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("{version:?} is no version number").into());
    }
    println!("PostgreSQL {version} ({full})");
    Ok(())
}

/// A `VmHWM`/`VmSize`-style line of `/proc/<pid>/status`, in KiB; `None` where it cannot be
/// read (another machine, another user).
fn proc_kib(pid: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The address-space limit of a process in bytes, if it has one and we can read it.
fn address_space_limit(pid: &str) -> Option<u64> {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

fn resource_bounds(admin: &str) -> Result<(), Failed> {
    let backend = Postgres::new(admin)?;
    let db = Database::Named("postgres".into());
    // Long enough that the bounds, not the clock, stop each bomb.
    let limits = Limits {
        timeout: Duration::from_secs(60),
        ..Limits::default()
    };
    let run = |sql: &str, limits: &Limits| backend.execute(&db, sql, limits);
    let mut problems = Vec::new();

    // The settings every query runs with (one pooled session: the trial runs alone on it).
    let t = run(
        "SELECT current_setting('work_mem'), current_setting('max_parallel_workers_per_gather'), \
         current_setting('temp_file_limit'), pg_backend_pid()::text",
        &limits,
    )
    .map_err(|e| e.to_string())?;
    let row = &t.rows[0];
    let want = [WORK_MEM, "0", TEMP_FILE_LIMIT];
    for (got, want) in row.iter().zip(want) {
        if *got != Value::Text(want.into()) {
            problems.push(format!("setting: got {got:?}, want {want}"));
        }
    }
    let Value::Text(server_pid) = row[3].clone() else {
        return Err(format!("pg_backend_pid gave {:?}", row[3]).into());
    };

    // A sort that spills to disk: 20 million 32-byte keys, stopped by temp_file_limit.
    let start = Instant::now();
    let r = run(
        "SELECT count(*) FROM (SELECT md5(g::text) m FROM generate_series(1, 20000000) g \
         ORDER BY m) s",
        &limits,
    );
    let spill = start.elapsed();
    match &r {
        Err(e @ QueryError::ServerLimit(m)) if m.contains("temp_file_limit") => {
            assert_eq!(e.code(), "resource_limit");
        }
        other => problems.push(format!("the spilling sort gave {other:?}")),
    }

    // A 100 MB value: refused before it is decoded.
    let ours_before = proc_kib("self", "VmHWM:");
    let r = run("SELECT repeat('x', 100000000)", &limits);
    match &r {
        Err(
            e @ QueryError::ValueTooLarge {
                bytes: 100_000_000,
                limit,
            },
        ) if *limit == MAX_VALUE_BYTES => {
            assert_eq!(e.code(), "resource_limit");
        }
        other => problems.push(format!("repeat('x', 10^8) gave {other:?}")),
    }
    // A result of 100,000 rows of 90 kB each (9 GB): stopped at max_bytes (8 MiB here), having
    // fetched a batch of rows at most.
    let small = Limits {
        max_bytes: 8 << 20,
        ..limits
    };
    let r = run(
        "SELECT g, repeat('x', 90000) FROM generate_series(1, 100000) g",
        &small,
    );
    if !matches!(r, Err(QueryError::TooLarge { limit }) if limit == 8 << 20) {
        problems.push(format!("a 9 GB result gave {r:?}"));
    }
    let ours_after = proc_kib("self", "VmHWM:");
    // The 100 MB value arrives whole (as one protocol message) before it is refused; nothing
    // else of either result is held.
    if let (Some(before), Some(after)) = (ours_before, ours_after) {
        if after.saturating_sub(before) > 400 << 10 {
            problems.push(format!("this process grew from {before} to {after} KiB"));
        }
        println!("this process: peak {before} KiB before, {after} KiB after the result bombs");
    }

    // Memory one function builds: only the server's own limit stops it.
    let server_limit = address_space_limit(&server_pid).filter(|&l| l < 4 << 30);
    let r = run("SELECT length(repeat('x', 1000000000))", &limits);
    match (server_limit, &r) {
        (Some(_), Err(e @ QueryError::ServerLimit(m))) if m.contains("out of memory") => {
            assert_eq!(e.code(), "resource_limit");
        }
        (Some(l), other) => problems.push(format!(
            "under an address space limit of {l} bytes, repeat('x', 10^9) gave {other:?}"
        )),
        (None, _) => println!(
            "the server runs without an address space limit we can read: repeat('x', 10^9) \
             gave {r:?}"
        ),
    }
    match (proc_kib(&server_pid, "VmHWM:"), server_limit) {
        (Some(peak), Some(l)) if peak << 10 > l => problems.push(format!(
            "the server's backend peaked at {peak} KiB, over {l} bytes"
        )),
        (Some(peak), _) => println!("the server's backend peaked at {peak} KiB"),
        (None, _) => println!("the server's backend is not readable here"),
    }
    // The session survives all of it.
    match run("SELECT 1", &limits) {
        Ok(t) if t.rows == vec![vec![Value::Int(1)]] => {}
        other => problems.push(format!("after the bombs, SELECT 1 gave {other:?}")),
    }
    println!("spilling sort stopped after {spill:?}");
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}
