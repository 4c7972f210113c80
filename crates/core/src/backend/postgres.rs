//! The PostgreSQL backend: a query runs on a real server, inside a read-only transaction with a
//! statement timeout, and is rolled back whatever it did.
//!
//! A [`Database::Named`] is a database on the server the connection string points at
//! (`host=… port=… user=…`, or a `postgresql://` URL). `[databases]` names one per item
//! (`name = "{db_id}"`), or a test suite copied to the server (`suite = "…/{db_id}/*.sqlite"`,
//! `name = "prefix_{file}"`: every file of the suite is one database, its exclusions apply;
//! `postgres_load` copies them). Defences, each enough on its own for the
//! usual write statements:
//!
//! * the session is opened with `default_transaction_read_only = on`, and every query runs in
//!   `START TRANSACTION READ ONLY` which is always rolled back;
//! * the query is prepared (the extended protocol accepts exactly one statement, so `…; DROP …`
//!   is an error) and must describe result columns before it is executed — `COMMIT`, `SET`,
//!   `DO`, `CALL` and friends describe none and never run;
//! * `SET LOCAL statement_timeout` bounds the time on the server, and rows are fetched through a
//!   portal in batches of [`FETCH_BATCH`], at most `max_rows + 1` in all, each row's size counted
//!   as it arrives: past `max_rows` or `max_bytes` the query stops there, so a huge result is
//!   never transferred and never held;
//! * memory and disk on the server: `SET LOCAL work_mem` ([`WORK_MEM`], each sort or hash
//!   table spills to disk past it) and no parallel workers (each would have a `work_mem` of its
//!   own; see also `spec/exec.md`, "what is deterministic on PostgreSQL"), and the session's
//!   `temp_file_limit` ([`TEMP_FILE_LIMIT`]) where the role may set it (a superuser, or
//!   `GRANT SET ON PARAMETER temp_file_limit`; otherwise the server's own setting applies).
//!   Memory a single function builds (`repeat`, `string_agg`, `array_agg`) is bounded only by
//!   the server's 1 GB per value and what the operating system allows the server process: the
//!   operator's part (`.ci/postgres` starts the server under `ulimit -v`). A server error of
//!   class 53 (insufficient resources: out of memory, `temp_file_limit`) or 54 (program limit
//!   exceeded: a value or array too large) is `resource_limit`.
//!
//! Use a role with only `SELECT` privileges as well (`.ci/postgres` creates one).
//!
//! Values are decoded from the binary protocol: integers, floats (a `real` keeps its shortest
//! decimal form, as psycopg2 reads it), `numeric` as the nearest float (pandas' `coerce_float`),
//! text types, booleans, dates, times, timestamps, intervals, `uuid`, `json`/`jsonb`; anything
//! else becomes a text `<type:hex bytes>`, equal exactly when the bytes are. The session's time
//! zone is UTC, so date arithmetic does not depend on the server's setting.

use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};

use postgres::error::SqlState;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{FromSql, Type};
use postgres::{Client, Config, NoTls};

use serde::Deserialize;
use toml::Spanned;

use super::postgres_clock;
use super::{Backend, BackendEntry, Database, Databases, Limits, Naming, QueryError};
use crate::clock::{Clock, Moment};
use crate::config::{ManifestError, Section};
use crate::denotation::{ColumnType, ResultTable, Value};

/// `work_mem` of every query: a sort or hash table larger than this spills to disk. PostgreSQL's
/// default, pinned so that neither the server's configuration nor a prediction changes plans or
/// memory per node (SQL-Eval's reference verdicts were made with it).
pub const WORK_MEM: &str = "4MB";

/// `temp_file_limit` of every session, where the role may set it: a query whose temporary
/// files (spilled sorts, hashes, materialised CTEs) exceed it fails with `resource_limit`.
pub const TEMP_FILE_LIMIT: &str = "256MB";

/// The largest value a result may hold, in bytes, as on SQLite
/// ([`super::sqlite::MAX_VALUE_BYTES`]): a larger one is `resource_limit`, before it is decoded.
/// The server has built and sent it by then; what bounds that is the server's own memory.
pub const MAX_VALUE_BYTES: usize = 100_000;

/// Rows fetched per round trip from the query's portal.
pub const FETCH_BATCH: usize = 1_000;

/// Idle sessions kept open over all databases, as a share of the server's connection slots
/// (`max_connections` less `superuser_reserved_connections`): one in three, 32 of the default
/// 100, so that two processes judging at once and the server's other clients keep room. A test
/// suite has hundreds of databases, and the items of one schema visit each of its databases in
/// turn: a pool smaller than the schema's suite opens a session for nearly every query, a
/// server started with more slots keeps one per database ([`idle_sessions`]). Past it, a
/// session returned to the pool closes the idle session of another database; a session the
/// server refuses for want of slots (`too_many_connections`) closes every idle one and is asked
/// for once more.
pub const IDLE_SHARE: usize = 3;

/// The fewest idle sessions kept.
pub const MIN_IDLE: usize = 4;

/// Idle sessions kept where the server's slots cannot be read: a third of PostgreSQL's default
/// (100 less 3 reserved).
pub const UNREAD_IDLE: usize = 32;

/// Idle sessions kept for a server with `slots` connection slots ([`IDLE_SHARE`]).
pub fn idle_sessions(slots: i64) -> usize {
    (usize::try_from(slots).unwrap_or(0) / IDLE_SHARE).max(MIN_IDLE)
}

/// The SQLSTATE of a connection refused for want of slots, as [`Postgres::connect`] writes it.
const TOO_MANY_CONNECTIONS: &str = "(53300)";

/// `[databases] backend = "postgres"` in the registry.
pub const ENTRY: BackendEntry = BackendEntry {
    name: "postgres",
    configure,
    unconfigured: None,
};

/// The environment variable a PostgreSQL manifest takes its connection string from, unless it
/// names another with `connection_env`.
pub(crate) const DEFAULT_CONNECTION_ENV: &str = "SQLSUITE_POSTGRES";

/// `[databases]` for PostgreSQL.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    backend: Spanned<String>,
    #[serde(default)]
    name: Option<Spanned<String>>,
    #[serde(default)]
    connection_env: Option<Spanned<String>>,
    /// A test suite's files (a glob with `{db_id}`), each copied to the server as the database
    /// `name` names with `{file}` (its stem): `backend::postgres_load`.
    #[serde(default)]
    suite: Option<Spanned<String>>,
    // SQLite's key, read to say what to write instead.
    #[serde(default)]
    path: Option<Spanned<String>>,
}

/// `name` (default `{db_id}`) and the connection string from the environment variable
/// `connection_env` names; an unset variable is recorded in `missing`.
fn configure(
    section: &Section<'_>,
    missing: &mut Vec<ManifestError>,
) -> Result<Databases, ManifestError> {
    let options: Options = section.read()?;
    let source = section.source();
    if let Some(p) = &options.path {
        return Err(source.error(
            p.span(),
            "PostgreSQL databases are named, not files: write `name = \"{db_id}\"` instead of \
             `path`",
        ));
    }
    let naming = naming(section, &options)?;
    let (var, span) = match &options.connection_env {
        Some(v) => (source.string(v)?, v.span()),
        None => (DEFAULT_CONNECTION_ENV.to_owned(), options.backend.span()),
    };
    let connection = std::env::var(&var).ok().filter(|v| !v.trim().is_empty());
    if connection.is_none() {
        missing.push(source.error(
            span,
            format!(
                "no PostgreSQL server configured: environment variable {var} is not set \
                 (a connection string such as `host=127.0.0.1 port=5432 user=reader`)"
            ),
        ));
    }
    Ok(Databases {
        backend: ENTRY.name,
        naming,
        connection,
        open: |d| {
            let connection = d
                .connection
                .as_deref()
                .ok_or("backend = \"postgres\" without a connection string")?;
            let backend = Postgres::at(connection, d.clock)?;
            if let Some(pinned) = d.clock.pinned() {
                backend.verify_clock(pinned)?;
            }
            Ok(Box::new(backend))
        },
        clock: crate::clock::Clock::System,
    })
}

/// How `[databases]` names an item's databases: `name` (default `{db_id}`, which it must
/// contain), or with `suite`, one database per file of the suite, `name` (default `{file}`, which
/// it must contain) naming each file's copy.
fn naming(section: &Section<'_>, options: &Options) -> Result<Naming, ManifestError> {
    let source = section.source();
    let name = options
        .name
        .as_ref()
        .map(|n| source.string(n))
        .transpose()?;
    let Some(suite) = &options.suite else {
        let name = name.unwrap_or_else(|| "{db_id}".to_owned());
        if !name.contains("{db_id}") {
            let span = options.name.as_ref().map(Spanned::span).unwrap_or_default();
            return Err(source.error(span, "database name must contain {db_id}"));
        }
        return Ok(Naming::Names(name));
    };
    let files = source.path(suite)?.to_string_lossy().into_owned();
    if !files.contains("{db_id}") || !files.contains(['*', '?', '[']) {
        return Err(source.error(
            suite.span(),
            "suite must be a glob of files with {db_id} (\"suites/{db_id}/*.sqlite\")",
        ));
    }
    let names = name.unwrap_or_else(|| "{file}".to_owned());
    if !names.contains("{file}") {
        let span = options.name.as_ref().map(Spanned::span).unwrap_or_default();
        return Err(source.error(
            span,
            "with suite, the database name must contain {file} (each file's stem)",
        ));
    }
    Ok(Naming::Suite { files, names })
}

/// A PostgreSQL server, reached with a libpq-style connection string. Open sessions are pooled
/// per database and reused by whichever thread runs the next query.
pub struct Postgres {
    /// The parsed connection string, without a database name.
    config: Config,
    /// A pinned clock is checked against the server's on every new session
    /// ([`postgres_clock::check`]).
    clock: Clock,
    idle: Mutex<HashMap<String, Vec<Client>>>,
    /// How many idle sessions to keep, read from the server on the first session
    /// ([`idle_sessions`]).
    idle_cap: OnceLock<usize>,
}

impl fmt::Debug for Postgres {
    // Not the connection string: it may hold a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Postgres")
            .field("hosts", &self.config.get_hosts())
            .field("user", &self.config.get_user())
            .finish_non_exhaustive()
    }
}

impl Postgres {
    /// Validates `connection` (`host=… user=…` or `postgresql://…`); queries read the server's
    /// clock, whatever it says.
    pub fn new(connection: &str) -> Result<Postgres, String> {
        Postgres::at(connection, Clock::System)
    }

    /// [`Postgres::new`] for a manifest whose clock is `clock`: a pinned one is checked against
    /// the server's clock on every new session, and a session whose server reads another day
    /// fails to open ([`postgres_clock::check`]).
    pub fn at(connection: &str, clock: Clock) -> Result<Postgres, String> {
        let mut config =
            Config::from_str(connection).map_err(|e| format!("invalid connection string: {e}"))?;
        config
            .application_name("sqlsuite")
            .connect_timeout(std::time::Duration::from_secs(10));
        Ok(Postgres {
            config,
            clock,
            idle: Mutex::new(HashMap::new()),
            idle_cap: OnceLock::new(),
        })
    }

    /// Reads the server's clock on the database the connection string names (else `postgres`,
    /// which every server has) and checks it against `pinned`: the refusal at open, before any
    /// query runs.
    pub fn verify_clock(&self, pinned: Moment) -> Result<(), String> {
        let db = self.config.get_dbname().unwrap_or("postgres").to_owned();
        let mut client = self
            .config
            .clone()
            .dbname(&db)
            .connect(NoTls)
            .map_err(|e| {
                format!(
                    "[dataset] clock = \"{pinned}\": cannot read the PostgreSQL server's clock \
                 (database {db}) to check it: {e}"
                )
            })?;
        postgres_clock::check(postgres_clock::read(&mut client)?, pinned)
    }

    /// Returns `client`, a session of `db`, to the pool, closing another database's idle
    /// session (or, without one, this one) when as many as the server allows
    /// ([`idle_sessions`]) are open.
    fn keep_idle(&self, db: String, client: Client) {
        let cap = *self.idle_cap.get().unwrap_or(&UNREAD_IDLE);
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.values().map(Vec::len).sum::<usize>() >= cap {
            let other = idle
                .iter_mut()
                .find(|(name, sessions)| **name != db && !sessions.is_empty());
            match other {
                // Dropping a client closes its session.
                Some((_, sessions)) => drop(sessions.pop()),
                None => return,
            }
            idle.retain(|_, sessions| !sessions.is_empty());
        }
        idle.entry(db).or_default().push(client);
    }

    /// [`Postgres::connect`]; where the server has no slot left, once more after closing this
    /// backend's idle sessions (another process may hold the rest).
    fn connect_freeing_slots(&self, db: &str) -> Result<Client, QueryError> {
        match self.connect(db) {
            Err(QueryError::Open { message, .. }) if message.contains(TOO_MANY_CONNECTIONS) => {
                self.idle.lock().unwrap_or_else(|p| p.into_inner()).clear();
                std::thread::sleep(std::time::Duration::from_millis(200));
                self.connect(db)
            }
            other => other,
        }
    }

    fn connect(&self, db: &str) -> Result<Client, QueryError> {
        let open_error = |message: String| QueryError::Open {
            path: db.to_owned(),
            message,
        };
        // `postgres::Error`'s own text is "db error" for what the server refused: its message.
        let server_message = |e: postgres::Error| match e.as_db_error() {
            Some(d) => open_error(format!("{} ({})", d.message(), d.code().code())),
            None => open_error(e.to_string()),
        };
        let mut client = self
            .config
            .clone()
            .dbname(db)
            .connect(NoTls)
            .map_err(server_message)?;
        client
            .batch_execute(
                "SET default_transaction_read_only = on; SET TIME ZONE 'UTC'; \
                 SET IntervalStyle = 'postgres'",
            )
            .map_err(|e| open_error(e.to_string()))?;
        // A superuser or a role granted `SET ON PARAMETER temp_file_limit` bounds the session's
        // temporary files; any other role keeps the server's (or role's) own setting.
        match client.batch_execute(&format!("SET temp_file_limit = '{TEMP_FILE_LIMIT}'")) {
            Ok(()) => {}
            Err(e)
                if e.as_db_error().map(|d| d.code()) == Some(&SqlState::INSUFFICIENT_PRIVILEGE) => {
            }
            Err(e) => return Err(open_error(e.to_string())),
        }
        if self.idle_cap.get().is_none() {
            let slots = client
                .query_one(
                    "SELECT current_setting('max_connections')::bigint \
                     - current_setting('superuser_reserved_connections')::bigint",
                    &[],
                )
                .and_then(|row| row.try_get::<_, i64>(0));
            let _ = self.idle_cap.set(slots.map_or(UNREAD_IDLE, idle_sessions));
        }
        if let Some(pinned) = self.clock.pinned() {
            postgres_clock::read(&mut client)
                .and_then(|now| postgres_clock::check(now, pinned))
                .map_err(open_error)?;
        }
        Ok(client)
    }
}

impl Backend for Postgres {
    fn name(&self) -> &'static str {
        "postgres"
    }

    fn execute(
        &self,
        db: &Database,
        sql: &str,
        limits: &Limits,
    ) -> Result<ResultTable, QueryError> {
        let Database::Named(name) = db else {
            return Err(QueryError::Open {
                path: db.label(),
                message: "PostgreSQL databases are named, not files".into(),
            });
        };
        let name = name.clone();
        let pooled = self
            .idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(&name)
            .and_then(Vec::pop);
        let mut client = match pooled {
            Some(c) if !c.is_closed() => c,
            _ => self.connect_freeing_slots(&name)?,
        };
        let mut result = run_query(&mut client, sql, limits);
        if client.is_closed() {
            // The session ended under the query: another query may have terminated it
            // (`pg_terminate_backend` of a session of the same role), so the query runs once
            // more on a new session; one that ends its own session ends that one too.
            client = self.connect(&name)?;
            result = run_query(&mut client, sql, limits);
        }
        if !client.is_closed() {
            // Session-level advisory locks outlive the transaction's rollback; a query that
            // took one would make later queries on other sessions wait for it.
            if client
                .batch_execute("SELECT pg_advisory_unlock_all()")
                .is_ok()
            {
                self.keep_idle(name, client);
            }
        }
        result
    }

    fn clock(&self) -> Clock {
        self.clock
    }

    /// `SHOW server_version`'s first word (`15.8`, without a packager's suffix such as
    /// `(Debian 15.8-1.pgdg120+1)`), on a session of `db`.
    fn server_version(&self, db: &Database) -> Result<String, String> {
        let Database::Named(name) = db else {
            return Err(format!("{} is no named database", db.label()));
        };
        let mut client = self.connect(name).map_err(|e| e.to_string())?;
        let row = client
            .query_one("SHOW server_version", &[])
            .map_err(|e| e.to_string())?;
        let version: String = row.try_get(0).map_err(|e| e.to_string())?;
        Ok(version
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned())
    }

    fn server_clock(&self, db: &Database) -> Result<String, String> {
        let Database::Named(name) = db else {
            return Err(format!("{} is no named database", db.label()));
        };
        let mut client = self.connect(name).map_err(|e| e.to_string())?;
        postgres_clock::read(&mut client).map(|now| postgres_clock::to_second(now).to_string())
    }

    /// Server-side data has no file to hash: results are not cached on disk.
    fn content_hash(&self, _db: &Database) -> std::io::Result<String> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "a PostgreSQL database has no content hash",
        ))
    }
}

fn sql_error(e: &postgres::Error, limits: &Limits) -> QueryError {
    match e.as_db_error() {
        Some(db) if *db.code() == SqlState::QUERY_CANCELED => QueryError::Timeout {
            ms: limits.timeout.as_millis() as u64,
        },
        // Class 53, insufficient resources (out of memory, disk full, temp_file_limit), and 54,
        // program limit exceeded (a value, array or string buffer past 1 GB).
        Some(db) if matches!(db.code().code().get(..2), Some("53" | "54")) => {
            QueryError::ServerLimit(format!("{} ({})", db.message(), db.code().code()))
        }
        Some(db) => QueryError::Sql(db.message().to_owned()),
        None => QueryError::Sql(e.to_string()),
    }
}

fn run_query(client: &mut Client, sql: &str, limits: &Limits) -> Result<ResultTable, QueryError> {
    // The server's statement_timeout restarts with every fetch from the portal; the query's
    // time limit covers them all.
    let deadline = std::time::Instant::now() + limits.timeout;
    let err = |e: postgres::Error| sql_error(&e, limits);
    let mut tx = client
        .build_transaction()
        .read_only(true)
        .start()
        .map_err(err)?;
    // At least 1 ms: 0 would mean "no limit".
    let ms = limits.timeout.as_millis().clamp(1, i32::MAX as u128);
    tx.batch_execute(&format!(
        "SET LOCAL statement_timeout = {ms}; SET LOCAL work_mem = '{WORK_MEM}'; \
         SET LOCAL max_parallel_workers_per_gather = 0"
    ))
    .map_err(err)?;
    let stmt = tx.prepare(sql).map_err(err)?;
    if stmt.columns().is_empty() {
        return Err(QueryError::Sql(
            "not a query: only statements that read and return rows may run".into(),
        ));
    }
    let columns: Vec<String> = stmt.columns().iter().map(|c| c.name().to_owned()).collect();
    let column_types: Vec<ColumnType> = stmt
        .columns()
        .iter()
        .map(|c| column_type(c.type_()))
        .collect();
    let portal = tx.bind(&stmt, &[]).map_err(err)?;
    let mut table = ResultTable {
        columns,
        rows: Vec::new(),
        column_types,
        steps: 0,
    };
    let mut bytes = 0usize;
    // One row more than allowed tells that there are too many.
    let wanted = limits.max_rows.saturating_add(1);
    loop {
        if std::time::Instant::now() >= deadline {
            return Err(QueryError::Timeout {
                ms: limits.timeout.as_millis() as u64,
            });
        }
        let batch = FETCH_BATCH.min(wanted - table.rows.len());
        let mut rows = tx
            .query_portal_raw(&portal, i32::try_from(batch).unwrap_or(i32::MAX))
            .map_err(err)?;
        let mut fetched = 0;
        while let Some(row) = rows.next().map_err(err)? {
            fetched += 1;
            if table.rows.len() == limits.max_rows {
                return Err(QueryError::TooManyRows {
                    limit: limits.max_rows,
                });
            }
            let mut values = Vec::with_capacity(row.len());
            for i in 0..row.len() {
                let RawLength(length) = row
                    .try_get(i)
                    .map_err(|e| QueryError::Sql(format!("cannot read column {i}: {e}")))?;
                if length > MAX_VALUE_BYTES {
                    return Err(QueryError::ValueTooLarge {
                        bytes: length,
                        limit: MAX_VALUE_BYTES,
                    });
                }
                let Decoded(v) = row
                    .try_get(i)
                    .map_err(|e| QueryError::Sql(format!("cannot read column {i}: {e}")))?;
                bytes += v.weight();
                values.push(v);
            }
            limits.check_bytes(bytes)?;
            table.rows.push(values);
        }
        if fetched < batch {
            break;
        }
    }
    // Dropping `tx` rolls back.
    Ok(table)
}

fn column_type(ty: &Type) -> ColumnType {
    match *ty {
        Type::BOOL => ColumnType::Bool,
        Type::DATE => ColumnType::Date,
        Type::TIME => ColumnType::Time,
        Type::TIMESTAMP => ColumnType::Timestamp,
        Type::TIMESTAMPTZ => ColumnType::TimestampTz,
        Type::INTERVAL => ColumnType::Interval,
        _ => ColumnType::Plain,
    }
}

/// The length in bytes of a value's binary form (0 for NULL), read without copying it.
struct RawLength(usize);

impl<'a> FromSql<'a> for RawLength {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, DecodeError> {
        Ok(RawLength(raw.len()))
    }

    fn from_sql_null(_: &Type) -> Result<Self, DecodeError> {
        Ok(RawLength(0))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// One value of any type, decoded from the binary protocol.
struct Decoded(Value);

type DecodeError = Box<dyn Error + Sync + Send>;

impl<'a> FromSql<'a> for Decoded {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, DecodeError> {
        decode(ty, raw).map(Decoded)
    }

    fn from_sql_null(_: &Type) -> Result<Self, DecodeError> {
        Ok(Decoded(Value::Null))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

fn be<const N: usize>(raw: &[u8], at: usize) -> Result<[u8; N], DecodeError> {
    raw.get(at..at + N)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| "value too short".into())
}

fn decode(ty: &Type, raw: &[u8]) -> Result<Value, DecodeError> {
    Ok(match *ty {
        Type::BOOL => Value::Int(i64::from(raw.first().copied().unwrap_or(0) != 0)),
        Type::INT2 => Value::Int(i64::from(i16::from_be_bytes(be(raw, 0)?))),
        Type::INT4 => Value::Int(i64::from(i32::from_be_bytes(be(raw, 0)?))),
        Type::INT8 => Value::Int(i64::from_be_bytes(be(raw, 0)?)),
        Type::OID => Value::Int(i64::from(u32::from_be_bytes(be(raw, 0)?))),
        // A `real` reads as its shortest decimal text, as psycopg2 (text protocol) reads it.
        Type::FLOAT4 => {
            let f = f32::from_be_bytes(be(raw, 0)?);
            Value::Real(f.to_string().parse::<f64>().unwrap_or(f64::from(f)))
        }
        Type::FLOAT8 => Value::Real(f64::from_be_bytes(be(raw, 0)?)),
        Type::NUMERIC => Value::Real(numeric(raw)?),
        Type::DATE => {
            let days = i32::from_be_bytes(be(raw, 0)?);
            Value::Text(date_text(i64::from(days)))
        }
        Type::TIME => Value::Text(time_text(i64::from_be_bytes(be(raw, 0)?))),
        Type::TIMESTAMP => Value::Text(timestamp_text(i64::from_be_bytes(be(raw, 0)?))),
        Type::TIMESTAMPTZ => Value::Text(format!(
            "{}+00:00",
            timestamp_text(i64::from_be_bytes(be(raw, 0)?))
        )),
        Type::INTERVAL => {
            let micros = i64::from_be_bytes(be(raw, 0)?);
            let days = i64::from(i32::from_be_bytes(be(raw, 8)?));
            let months = i64::from(i32::from_be_bytes(be(raw, 12)?));
            // psycopg2: a year is 365 days, a month 30.
            let days = months / 12 * 365 + months % 12 * 30 + days;
            Value::Int(days * 86_400_000_000_000 + micros * 1000)
        }
        Type::UUID => Value::Text(uuid_text(raw)),
        Type::JSONB => {
            Value::Text(String::from_utf8_lossy(raw.get(1..).unwrap_or_default()).into())
        }
        _ if is_text(ty) => Value::Text(String::from_utf8_lossy(raw).into_owned()),
        _ => Value::Text(format!(
            "<{}:{}>",
            ty.name(),
            raw.iter().map(|b| format!("{b:02x}")).collect::<String>()
        )),
    })
}

fn is_text(ty: &Type) -> bool {
    matches!(
        *ty,
        Type::TEXT
            | Type::VARCHAR
            | Type::BPCHAR
            | Type::NAME
            | Type::CHAR
            | Type::UNKNOWN
            | Type::JSON
    ) || matches!(ty.kind(), postgres::types::Kind::Enum(_))
}

/// The binary `numeric` as the nearest `f64` (via its exact decimal text).
fn numeric(raw: &[u8]) -> Result<f64, DecodeError> {
    let ndigits = i16::from_be_bytes(be(raw, 0)?);
    let weight = i16::from_be_bytes(be(raw, 2)?);
    let sign = u16::from_be_bytes(be(raw, 4)?);
    match sign {
        0xC000 => return Ok(f64::NAN),
        0xD000 => return Ok(f64::INFINITY),
        0xF000 => return Ok(f64::NEG_INFINITY),
        _ => {}
    }
    let mut text = String::new();
    if sign == 0x4000 {
        text.push('-');
    }
    text.push('0');
    let ndigits = usize::try_from(ndigits).map_err(|_| "bad numeric")?;
    for i in 0..ndigits {
        let d = i16::from_be_bytes(be(raw, 8 + 2 * i)?);
        text.push_str(&format!("{d:04}"));
    }
    // Digits are base 10000; the first has weight `weight`, i.e. 10000^weight.
    let exponent = (i64::from(weight) - (ndigits as i64 - 1)) * 4;
    text.push_str(&format!("e{exponent}"));
    Ok(text.parse::<f64>()?)
}

/// Days since 2000-01-01 as `YYYY-MM-DD` (proleptic Gregorian).
fn date_text(days: i64) -> String {
    // Days since 1970-01-01, then Howard Hinnant's civil-from-days.
    let z = days + 10_957 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Microseconds since midnight as `HH:MM:SS[.ffffff]`.
fn time_text(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let mut s = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if frac != 0 {
        s.push_str(&format!(".{frac:06}"));
    }
    s
}

/// Microseconds since 2000-01-01 00:00 as ISO `YYYY-MM-DDTHH:MM:SS[.ffffff]`.
fn timestamp_text(micros: i64) -> String {
    match micros {
        i64::MAX => return "infinity".into(),
        i64::MIN => return "-infinity".into(),
        _ => {}
    }
    let day = micros.div_euclid(86_400_000_000);
    let rest = micros.rem_euclid(86_400_000_000);
    format!("{}T{}", date_text(day), time_text(rest))
}

fn uuid_text(raw: &[u8]) -> String {
    let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    if hex.len() != 32 {
        return hex;
    }
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_sessions_are_a_third_of_the_servers_slots() {
        // PostgreSQL's defaults: 100 connections, 3 reserved for superusers.
        assert_eq!(idle_sessions(97), UNREAD_IDLE);
        // A server started for a complete BIRD suite (`SQLSUITE_PG_MAX_CONNECTIONS=1000`):
        // one session for each of formula_1's 280 databases.
        assert_eq!(idle_sessions(997), 332);
        assert_eq!(idle_sessions(5), MIN_IDLE);
        assert_eq!(idle_sessions(-1), MIN_IDLE);
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(date_text(0), "2000-01-01");
        assert_eq!(date_text(-1), "1999-12-31");
        assert_eq!(date_text(59), "2000-02-29");
        assert_eq!(date_text(8_725), "2023-11-21");
        assert_eq!(time_text(3_723_000_001), "01:02:03.000001");
        assert_eq!(timestamp_text(-1), "1999-12-31T23:59:59.999999".to_string());
        assert_eq!(timestamp_text(86_400_000_000), "2000-01-02T00:00:00");
    }

    #[test]
    fn numerics() {
        // 12345.678: weight 1, digits [1, 2345, 6780], dscale 3.
        let mut raw = Vec::new();
        for v in [3i16, 1, 0, 3, 1, 2345, 6780] {
            raw.extend_from_slice(&v.to_be_bytes());
        }
        assert_eq!(numeric(&raw).unwrap(), 12345.678);
        // -0.05: weight -1, digits [500], sign negative.
        let mut raw = Vec::new();
        for v in [1i16, -1, 0x4000, 2, 500] {
            raw.extend_from_slice(&v.to_be_bytes());
        }
        assert_eq!(numeric(&raw).unwrap(), -0.05);
        // zero: no digits.
        let raw: Vec<u8> = [0i16, 0, 0, 0]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        assert_eq!(numeric(&raw).unwrap(), 0.0);
    }

    #[test]
    fn reals_keep_their_decimal_form() {
        let v = decode(&Type::FLOAT4, &1.1f32.to_be_bytes()).unwrap();
        assert_eq!(v, Value::Real(1.1));
    }

    #[test]
    fn intervals_count_months_as_30_days() {
        let mut raw = Vec::new();
        raw.extend_from_slice(&1_000_000i64.to_be_bytes());
        raw.extend_from_slice(&2i32.to_be_bytes());
        raw.extend_from_slice(&13i32.to_be_bytes());
        let ns = (365 + 30 + 2) * 86_400_000_000_000i64 + 1_000_000_000;
        assert_eq!(decode(&Type::INTERVAL, &raw).unwrap(), Value::Int(ns));
    }
}
