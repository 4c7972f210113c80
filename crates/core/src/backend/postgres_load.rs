//! Copies SQLite databases (a test suite's files) into PostgreSQL, one database per file, so that
//! a dialect's golds and predictions run on the same data ([`load_sqlite`], [`load_suite`]).
//!
//! **Names.** A table or column whose name is a plain identifier (`[A-Za-z_][A-Za-z0-9_]*`) is
//! created in lower case, as PostgreSQL folds the unquoted names of a query (`T1.CustomerID` reads
//! `customerid`); any other name keeps its spelling and must be quoted (`"Examination Date"`,
//! `"T-CHO"`). Two names of a table that fold to the same are an error.
//!
//! **Types**, from the column's declared type: `DATE` is `date`, `DATETIME` and `TIMESTAMP`
//! `timestamp`; otherwise by SQLite's affinity rules, INTEGER `bigint`, TEXT `text`, REAL
//! `double precision` (every SQLite real, exactly), NUMERIC `numeric`, BLOB (or none) `bytea`.
//!
//! **Values** arrive exactly: integers, reals (their shortest round-trip decimal; infinities as
//! such), text (quotes, tabs, newlines, any Unicode), NULL. A value the column's PostgreSQL type
//! cannot hold, which SQLite's dynamic typing allows, arrives as NULL and is counted in the
//! [`LoadReport`] per column: text that is not an ISO date (`YYYY-MM-DD`) in a `date` column, or
//! not an ISO timestamp (`YYYY-MM-DD[ HH:MM[:SS[.ffffff]]]`) in a `timestamp` one; a number in
//! either; a real with a fraction in a `bigint` column; text in a number column; text holding a
//! NUL byte or invalid UTF-8; a blob outside `bytea`.
//!
//! **Privileges.** The connection must be a superuser's (or a role that may create databases).
//! Each database is created by the loader, marked with a comment holding the file's BLAKE3 hash
//! (a database whose mark matches its file is kept as it is, not loaded again; one whose mark
//! differs is dropped and loaded again; one without the mark is never touched), analysed, and
//! closed to everyone but `reader`, which may connect and `SELECT`, nothing else.
//!
//! **Keys.** A SQLite file need not declare the keys of the database it stands for (a suite
//! distilled from BIRD's profile does not); [`PrimaryKeys`] names them, per table, and each is
//! declared on the copy after its rows are in (`ALTER TABLE … ADD PRIMARY KEY`), which is what
//! lets PostgreSQL select a table's other columns under `GROUP BY` its key. A key the rows do not
//! satisfy (a NULL or a repeated value) is not declared: the [`LoadReport`] says which and why,
//! and the rows stay as they are. The keys are part of the mark: loading again with other keys
//! loads again.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use postgres::{Client, Config, NoTls};
use rusqlite::types::ValueRef;

/// The comment that marks a database this module created, before the file's hash.
pub const MARK: &str = "sqlsuite load ";

/// Why a database could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The connection string does not parse.
    #[error("invalid connection string: {0}")]
    Connection(String),
    /// The SQLite file could not be read.
    #[error("{path}: {message}")]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        message: String,
    },
    /// The server refused a statement (its SQLSTATE and message).
    #[error("PostgreSQL, database {database}: {message}")]
    Server {
        /// The database being loaded (or `postgres`, where it is created).
        database: String,
        /// The server's message.
        message: String,
    },
    /// A database of that name exists and was not created by this module: left alone.
    #[error(
        "database {0} exists and was not loaded by sqlsuite (no {MARK:?} comment): left alone"
    )]
    Foreign(String),
    /// Two names of one table fold to the same PostgreSQL name.
    #[error("{path}: table {table}: names {a:?} and {b:?} are the same in PostgreSQL")]
    Collision {
        /// The file.
        path: PathBuf,
        /// The table.
        table: String,
        /// One name.
        a: String,
        /// The other.
        b: String,
    },
    /// A suite's file pattern is not a valid glob.
    #[error("bad file pattern {0}")]
    Pattern(String),
}

/// What loading one file did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// The database was already loaded from this very file (its mark matched): nothing done.
    pub reused: bool,
    /// Tables created.
    pub tables: usize,
    /// Rows copied.
    pub rows: usize,
    /// Per `table.column`, the values its PostgreSQL type cannot hold, loaded as NULL.
    pub nulled: BTreeMap<String, usize>,
    /// Primary keys declared.
    pub keys: usize,
    /// Per table, why its primary key was not declared (the server's message, or a column the
    /// table lacks).
    pub keys_refused: BTreeMap<String, String>,
}

/// The primary key of each table of a database, by table name (letter case ignored when they
/// are matched with a file's tables and columns).
pub type PrimaryKeys = BTreeMap<String, Vec<String>>;

/// A PostgreSQL column type the loader creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PgType {
    /// `bigint`.
    BigInt,
    /// `double precision`.
    Double,
    /// `numeric`.
    Numeric,
    /// `text`.
    Text,
    /// `date`.
    Date,
    /// `timestamp` (without time zone).
    Timestamp,
    /// `bytea`.
    Bytea,
}

impl PgType {
    /// The type a column declared `declared` in SQLite gets (see the module's header).
    pub fn of_declared(declared: &str) -> PgType {
        let d = declared.trim().to_ascii_uppercase();
        match d.as_str() {
            "DATE" => return PgType::Date,
            "DATETIME" | "TIMESTAMP" => return PgType::Timestamp,
            _ => {}
        }
        // SQLite's affinity rules, in their order (https://sqlite.org/datatype3.html §3.1).
        if d.contains("INT") {
            PgType::BigInt
        } else if ["CHAR", "CLOB", "TEXT"].iter().any(|t| d.contains(t)) {
            PgType::Text
        } else if d.contains("BLOB") || d.is_empty() {
            PgType::Bytea
        } else if ["REAL", "FLOA", "DOUB"].iter().any(|t| d.contains(t)) {
            PgType::Double
        } else {
            PgType::Numeric
        }
    }

    /// The type's name in DDL.
    pub fn sql(self) -> &'static str {
        match self {
            PgType::BigInt => "bigint",
            PgType::Double => "double precision",
            PgType::Numeric => "numeric",
            PgType::Text => "text",
            PgType::Date => "date",
            PgType::Timestamp => "timestamp",
            PgType::Bytea => "bytea",
        }
    }
}

/// The PostgreSQL name of a SQLite table or column: lower case if plain, else as spelled.
pub fn pg_name(name: &str) -> String {
    let mut chars = name.chars();
    let plain = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_ascii_lowercase()
    } else {
        name.to_owned()
    }
}

/// `name` quoted as a PostgreSQL identifier.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `value` in `COPY … FROM STDIN`'s text format for a column of type `ty`, or `None` where
/// the type cannot hold it.
pub fn copy_field(value: ValueRef<'_>, ty: PgType) -> Option<String> {
    match (value, ty) {
        (ValueRef::Null, _) => Some("\\N".to_owned()),
        (ValueRef::Integer(i), PgType::BigInt | PgType::Double | PgType::Numeric) => {
            Some(i.to_string())
        }
        (ValueRef::Integer(i), PgType::Text) => Some(i.to_string()),
        (ValueRef::Real(r), PgType::BigInt) => {
            let whole = r.fract() == 0.0 && r >= -(2f64.powi(63)) && r < 2f64.powi(63);
            whole.then(|| format!("{}", r as i64))
        }
        (ValueRef::Real(r), PgType::Double) => Some(real_text(r)),
        (ValueRef::Real(r), PgType::Numeric | PgType::Text) if r.is_finite() => Some(real_text(r)),
        (ValueRef::Text(bytes), PgType::Text | PgType::Date | PgType::Timestamp) => {
            let text = std::str::from_utf8(bytes)
                .ok()
                .filter(|t| !t.contains('\0'))?;
            let fits = match ty {
                PgType::Date => is_iso_date(text),
                PgType::Timestamp => is_iso_timestamp(text),
                _ => true,
            };
            fits.then(|| escape(text))
        }
        (ValueRef::Blob(bytes), PgType::Bytea) => {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            Some(format!("\\\\x{hex}"))
        }
        _ => None,
    }
}

/// A real's shortest round-trip decimal, as PostgreSQL's `float8in` reads it.
fn real_text(r: f64) -> String {
    if r.is_nan() {
        "NaN".to_owned()
    } else if r.is_infinite() {
        if r > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        format!("{r}")
    }
}

/// Text escaped for `COPY`'s text format.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// The leading digits of `s` as a number, exactly `n` of them.
fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// `YYYY-MM-DD`, a day of the proleptic Gregorian calendar, years 1 to 9999.
pub fn is_iso_date(s: &str) -> bool {
    let (Some(y), Some(m), Some(d)) = (
        s.get(0..4).and_then(|p| digits(p, 4)),
        s.get(5..7).and_then(|p| digits(p, 2)),
        s.get(8..10).and_then(|p| digits(p, 2)),
    ) else {
        return false;
    };
    if s.len() != 10 || &s[4..5] != "-" || &s[7..8] != "-" || y == 0 || !(1..=12).contains(&m) {
        return false;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (1..=days).contains(&d)
}

/// [`is_iso_date`], then optionally ` HH:MM`, `:SS` and `.f` (1 to 6 digits; `T` for the space
/// too): what a `timestamp` holds exactly.
pub fn is_iso_timestamp(s: &str) -> bool {
    let (date, time) = match s.get(10..) {
        Some("") => return is_iso_date(s),
        Some(rest) if rest.starts_with([' ', 'T']) => (&s[..10], &rest[1..]),
        _ => return false,
    };
    if !is_iso_date(date) {
        return false;
    }
    let (clock, fraction) = match time.split_once('.') {
        Some((c, f)) => (c, Some(f)),
        None => (time, None),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    let ranges = [23, 59, 59];
    let clock_ok = (2..=3).contains(&parts.len())
        && parts
            .iter()
            .zip(ranges)
            .all(|(p, max)| digits(p, 2).is_some_and(|v| v <= max));
    let fraction_ok = fraction.is_none_or(|f| {
        parts.len() == 3 && (1..=6).contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit())
    });
    clock_ok && fraction_ok
}

/// One table of a SQLite file: its name and its columns' (name, declared type).
struct Table {
    name: String,
    columns: Vec<(String, String)>,
}

fn sqlite_error(path: &Path) -> impl Fn(rusqlite::Error) -> LoadError + '_ {
    move |e| LoadError::Sqlite {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

fn tables(db: &rusqlite::Connection, path: &Path) -> Result<Vec<Table>, LoadError> {
    let err = sqlite_error(path);
    let mut stmt = db
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' \
             ESCAPE '\\' ORDER BY name",
        )
        .map_err(&err)?;
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .map_err(&err)?
        .collect::<Result<_, _>>()
        .map_err(&err)?;
    let mut out = Vec::new();
    for name in names {
        let mut info = db
            .prepare("SELECT name, type FROM pragma_table_info(?1) ORDER BY cid")
            .map_err(&err)?;
        let columns = info
            .query_map([&name], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(&err)?
            .collect::<Result<_, _>>()
            .map_err(&err)?;
        out.push(Table { name, columns });
    }
    Ok(out)
}

/// The `CREATE TABLE` of `table` in PostgreSQL, checking that its names stay distinct.
fn create_table(table: &Table, path: &Path) -> Result<String, LoadError> {
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    let mut columns = Vec::new();
    for (name, declared) in &table.columns {
        let pg = pg_name(name);
        if let Some(a) = seen.insert(pg.clone(), name) {
            return Err(LoadError::Collision {
                path: path.to_owned(),
                table: table.name.clone(),
                a: a.to_owned(),
                b: name.clone(),
            });
        }
        columns.push(format!(
            "{} {}",
            quoted(&pg),
            PgType::of_declared(declared).sql()
        ));
    }
    Ok(format!(
        "CREATE TABLE {} ({})",
        quoted(&pg_name(&table.name)),
        columns.join(", ")
    ))
}

/// Copies `table`'s rows from `db` into the open transaction, counting what arrives as NULL.
fn copy_rows(
    db: &rusqlite::Connection,
    path: &Path,
    table: &Table,
    tx: &mut postgres::Transaction<'_>,
    report: &mut LoadReport,
) -> Result<(), LoadError> {
    let types: Vec<PgType> = table
        .columns
        .iter()
        .map(|(_, d)| PgType::of_declared(d))
        .collect();
    let names: Vec<String> = table.columns.iter().map(|(n, _)| quoted(n)).collect();
    let select = format!("SELECT {} FROM {}", names.join(", "), quoted(&table.name));
    let target: Vec<String> = table
        .columns
        .iter()
        .map(|(n, _)| quoted(&pg_name(n)))
        .collect();
    let copy = format!(
        "COPY {} ({}) FROM STDIN",
        quoted(&pg_name(&table.name)),
        target.join(", ")
    );
    let server = |e: postgres::Error| server_error("", e);
    let err = sqlite_error(path);
    let mut writer = tx.copy_in(&copy).map_err(server)?;
    let mut stmt = db.prepare(&select).map_err(&err)?;
    let mut rows = stmt.query([]).map_err(&err)?;
    let mut line = String::new();
    while let Some(row) = rows.next().map_err(&err)? {
        line.clear();
        for (i, ty) in types.iter().enumerate() {
            if i > 0 {
                line.push('\t');
            }
            let value = row.get_ref(i).map_err(&err)?;
            match copy_field(value, *ty) {
                Some(field) => line.push_str(&field),
                None => {
                    let column = format!("{}.{}", table.name, table.columns[i].0);
                    *report.nulled.entry(column).or_default() += 1;
                    line.push_str("\\N");
                }
            }
        }
        line.push('\n');
        writer
            .write_all(line.as_bytes())
            .map_err(|e| LoadError::Server {
                database: String::new(),
                message: e.to_string(),
            })?;
        report.rows += 1;
    }
    writer.finish().map_err(server)?;
    Ok(())
}

fn server_error(database: &str, e: postgres::Error) -> LoadError {
    LoadError::Server {
        database: database.to_owned(),
        message: server_message(&e),
    }
}

/// The server's SQLSTATE and message, or the client's error.
fn server_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.message()),
        None => e.to_string(),
    }
}

/// The user a libpq-style connection string logs in as (the role to grant `SELECT` to).
pub fn connection_user(connection: &str) -> Result<Option<String>, LoadError> {
    let config = Config::from_str(connection).map_err(|e| LoadError::Connection(e.to_string()))?;
    Ok(config.get_user().map(str::to_owned))
}

/// Loads the SQLite database `file` into a new database `database` on the server `admin`
/// connects to (see the module's header), granting `reader` (if any) `CONNECT` and `SELECT`.
pub fn load_sqlite(
    admin: &str,
    file: &Path,
    database: &str,
    reader: Option<&str>,
    keys: &PrimaryKeys,
) -> Result<LoadReport, LoadError> {
    let config = Config::from_str(admin).map_err(|e| LoadError::Connection(e.to_string()))?;
    let bytes = std::fs::read(file).map_err(|e| LoadError::Sqlite {
        path: file.to_owned(),
        message: e.to_string(),
    })?;
    let mut hasher = blake3::Hasher::new();
    hasher.update(&bytes);
    if !keys.is_empty() {
        // Without keys the mark is the file's hash alone, as before keys were declared.
        hasher.update(format!("{keys:?}").as_bytes());
    }
    let mark = format!("{MARK}{}", hasher.finalize().to_hex());
    let connect = |db: &str| {
        config
            .clone()
            .dbname(db)
            .connect(NoTls)
            .map_err(|e| server_error(db, e))
    };
    let mut server = connect("postgres")?;
    let existing: Option<Option<String>> = server
        .query_opt(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1",
            &[&database],
        )
        .map_err(|e| server_error("postgres", e))?
        .map(|row| row.get(0));
    match existing {
        Some(Some(comment)) if comment == mark => {
            return Ok(LoadReport {
                reused: true,
                ..LoadReport::default()
            })
        }
        Some(Some(comment)) if comment.starts_with(MARK) => {
            let drop = format!("DROP DATABASE {} WITH (FORCE)", quoted(database));
            server
                .batch_execute(&drop)
                .map_err(|e| server_error("postgres", e))?;
        }
        Some(_) => return Err(LoadError::Foreign(database.to_owned())),
        None => {}
    }
    let create = format!(
        "CREATE DATABASE {} ENCODING 'UTF8' TEMPLATE template0",
        quoted(database)
    );
    server
        .batch_execute(&create)
        .map_err(|e| server_error("postgres", e))?;
    let loaded = fill(&connect, file, database, reader, keys);
    let finish = match &loaded {
        // The mark last: a database without it was not loaded completely.
        Ok(_) => format!("COMMENT ON DATABASE {} IS '{mark}'", quoted(database)),
        Err(_) => format!("DROP DATABASE {} WITH (FORCE)", quoted(database)),
    };
    server
        .batch_execute(&finish)
        .map_err(|e| server_error("postgres", e))?;
    loaded
}

/// Creates and fills the tables of the new `database`, analyses it and sets its privileges.
fn fill(
    connect: &dyn Fn(&str) -> Result<Client, LoadError>,
    file: &Path,
    database: &str,
    reader: Option<&str>,
    keys: &PrimaryKeys,
) -> Result<LoadReport, LoadError> {
    let db =
        rusqlite::Connection::open_with_flags(file, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(sqlite_error(file))?;
    let tables = tables(&db, file)?;
    let mut client = connect(database)?;
    let server = |e: postgres::Error| server_error(database, e);
    let mut report = LoadReport::default();
    let mut tx = client.transaction().map_err(server)?;
    for table in &tables {
        tx.batch_execute(&create_table(table, file)?)
            .map_err(server)?;
        copy_rows(&db, file, table, &mut tx, &mut report).map_err(|e| match e {
            LoadError::Server { message, .. } => LoadError::Server {
                database: database.to_owned(),
                message: format!("table {}: {message}", table.name),
            },
            other => other,
        })?;
        report.tables += 1;
        let key = keys
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(&table.name));
        if let Some((_, columns)) = key.filter(|(_, columns)| !columns.is_empty()) {
            match declare_key(&mut tx, table, columns) {
                Ok(()) => report.keys += 1,
                Err(why) => {
                    report.keys_refused.insert(table.name.clone(), why);
                }
            }
        }
    }
    let db_name = quoted(database);
    let mut privileges = format!(
        "REVOKE ALL ON DATABASE {db_name} FROM PUBLIC; REVOKE ALL ON SCHEMA public FROM PUBLIC;"
    );
    if let Some(role) = reader {
        let role = quoted(role);
        privileges.push_str(&format!(
            "GRANT CONNECT ON DATABASE {db_name} TO {role}; \
             GRANT USAGE ON SCHEMA public TO {role}; \
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role};"
        ));
    }
    tx.batch_execute(&privileges).map_err(server)?;
    tx.commit().map_err(server)?;
    client.batch_execute("ANALYZE").map_err(server)?;
    Ok(report)
}

/// Declares `columns` (names as `keys` spell them; letter case ignored) the primary key of
/// `table`'s copy, inside a savepoint: if the rows do not satisfy it, the transaction goes on
/// without it and the server's message is returned.
fn declare_key(
    tx: &mut postgres::Transaction<'_>,
    table: &Table,
    columns: &[String],
) -> Result<(), String> {
    let mut names = Vec::new();
    for column in columns {
        let Some((name, _)) = table
            .columns
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(column))
        else {
            return Err(format!("no column {column:?}"));
        };
        names.push(quoted(&pg_name(name)));
    }
    let alter = format!(
        "ALTER TABLE {} ADD PRIMARY KEY ({})",
        quoted(&pg_name(&table.name)),
        names.join(", ")
    );
    let mut savepoint = tx
        .savepoint("primary_key")
        .map_err(|e| server_message(&e))?;
    match savepoint.batch_execute(&alter) {
        Ok(()) => savepoint.commit().map_err(|e| server_message(&e)),
        Err(e) => {
            let why = server_message(&e);
            savepoint.rollback().map_err(|e| server_message(&e))?;
            Err(why)
        }
    }
}

/// One file of a suite and what loading it came to.
#[derive(Debug)]
pub struct Loaded {
    /// The SQLite file.
    pub file: PathBuf,
    /// The PostgreSQL database's name.
    pub database: String,
    /// The report, or why it failed.
    pub outcome: Result<LoadReport, LoadError>,
}

/// The PostgreSQL name of a suite file: `names` with `{file}` replaced by the file's stem
/// (`toxicology_3` for `toxicology_3.sqlite`) and `{db_id}` by `db_id`.
pub fn suite_name(names: &str, db_id: &str, file: &Path) -> String {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    names.replace("{db_id}", db_id).replace("{file}", &stem)
}

/// Loads every file `files` (a glob with `{db_id}`) matches for each of `db_ids`, each as the
/// database [`suite_name`] names, with [`load_sqlite`] and the keys `keys` gives its `db_id`;
/// one outcome per file, in order.
pub fn load_suite(
    admin: &str,
    files: &str,
    names: &str,
    db_ids: &[String],
    reader: Option<&str>,
    keys: &dyn Fn(&str) -> PrimaryKeys,
) -> Result<Vec<Loaded>, LoadError> {
    let mut out = Vec::new();
    for db_id in db_ids {
        let pattern = files.replace("{db_id}", &glob::Pattern::escape(db_id));
        let mut found: Vec<PathBuf> = glob::glob(&pattern)
            .map_err(|e| LoadError::Pattern(format!("{pattern}: {e}")))?
            .filter_map(Result::ok)
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        let keys = keys(db_id);
        for file in found {
            let database = suite_name(names, db_id, &file);
            let outcome = load_sqlite(admin, &file, &database, reader, &keys);
            out.push(Loaded {
                file,
                database,
                outcome,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types() {
        let cases = [
            ("INTEGER", PgType::BigInt),
            ("int", PgType::BigInt),
            ("TEXT", PgType::Text),
            ("varchar(20)", PgType::Text),
            ("REAL", PgType::Double),
            ("DATE", PgType::Date),
            ("datetime", PgType::Timestamp),
            ("", PgType::Bytea),
            ("DECIMAL(5,2)", PgType::Numeric),
        ];
        for (declared, ty) in cases {
            assert_eq!(PgType::of_declared(declared), ty, "{declared}");
        }
    }

    #[test]
    fn names_fold_when_plain() {
        assert_eq!(pg_name("CustomerID"), "customerid");
        assert_eq!(pg_name("Examination Date"), "Examination Date");
        assert_eq!(pg_name("T-CHO"), "T-CHO");
        assert_eq!(pg_name("_x1"), "_x1");
        assert_eq!(pg_name("1st"), "1st");
        assert_eq!(quoted("a\"b"), "\"a\"\"b\"");
    }

    #[test]
    fn dates_and_timestamps() {
        assert!(is_iso_date("2000-02-29"));
        assert!(!is_iso_date("1900-02-29"));
        assert!(!is_iso_date("2011-13-01"));
        assert!(!is_iso_date("0000-01-01"));
        assert!(!is_iso_date("2011x"));
        assert!(!is_iso_date("1996-01-31a"));
        assert!(is_iso_timestamp("2014-04-23 20:29:39.0"));
        assert!(is_iso_timestamp("2014-09-01"));
        assert!(is_iso_timestamp("2014-09-01T10:00"));
        assert!(!is_iso_timestamp("2014-09-01 24:00:00"));
        assert!(!is_iso_timestamp("2014-09-01 10:00.5"));
        assert!(!is_iso_timestamp("2014-09-01 10:00:00.1234567"));
        assert!(!is_iso_timestamp("x2014-04-23 20:29:39.0"));
    }

    #[test]
    fn values_arrive_exactly_or_not_at_all() {
        use ValueRef::*;
        let f = |v, t| copy_field(v, t);
        assert_eq!(f(Null, PgType::Date).as_deref(), Some("\\N"));
        assert_eq!(f(Integer(-7), PgType::BigInt).as_deref(), Some("-7"));
        assert_eq!(f(Real(0.1), PgType::Double).as_deref(), Some("0.1"));
        assert_eq!(
            f(Real(1e-300), PgType::Double)
                .unwrap()
                .parse::<f64>()
                .unwrap(),
            1e-300
        );
        assert_eq!(
            f(Real(f64::INFINITY), PgType::Double).as_deref(),
            Some("Infinity")
        );
        assert_eq!(f(Real(3.0), PgType::BigInt).as_deref(), Some("3"));
        assert_eq!(f(Real(0.999), PgType::BigInt), None);
        assert_eq!(
            f(Text("it's\t\"x\"\n\\N é".as_bytes()), PgType::Text).as_deref(),
            Some("it's\\t\"x\"\\n\\\\N é")
        );
        assert_eq!(f(Text(b"a\0b"), PgType::Text), None);
        assert_eq!(f(Text(b"\xff"), PgType::Text), None);
        assert_eq!(f(Text(b"2011x"), PgType::Timestamp), None);
        assert_eq!(f(Integer(2011), PgType::Date), None);
        assert_eq!(f(Text(b"12"), PgType::BigInt), None);
        assert_eq!(
            f(Blob(&[1, 255]), PgType::Bytea).as_deref(),
            Some("\\\\x01ff")
        );
        assert_eq!(f(Blob(&[1]), PgType::Text), None);
    }

    #[test]
    fn suite_names_take_the_file_stem() {
        let file = Path::new("/s/toxicology/toxicology_12.sqlite");
        assert_eq!(
            suite_name("bird_{file}", "toxicology", file),
            "bird_toxicology_12"
        );
        assert_eq!(
            suite_name("{db_id}/{file}", "toxicology", file),
            "toxicology/toxicology_12"
        );
    }
}
