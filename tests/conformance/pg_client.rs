//! A PostgreSQL client for the tests that check what predictions can and cannot do to a server
//! (`postgres`, `hostile`): connecting, errors with the server's message, and
//! fingerprints of what a prediction could change.

use std::str::FromStr;

use libtest_mimic::Failed;
use postgres::{Client, Config, NoTls};

/// A client error with the server's message (the `Display` of `postgres::Error` is terse).
pub fn pg(e: postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.message()),
        None => e.to_string(),
    }
}

/// A client of database `db` on the server `conn` names.
pub fn connect(conn: &str, db: &str) -> Result<Client, Failed> {
    let mut config = Config::from_str(conn).map_err(pg)?;
    config.dbname(db);
    Ok(config.connect(NoTls).map_err(pg)?)
}

/// What a prediction could change in a database's catalog: its relations, functions and large
/// objects, the database-level settings, and the sequence the scratch databases hold.
const CATALOG: &[&str] = &[
    "SELECT string_agg(relname || ':' || relkind::text, ',' ORDER BY relname) FROM pg_class \
     WHERE relnamespace = 'public'::regnamespace",
    "SELECT count(*)::text FROM pg_proc WHERE pronamespace = 'public'::regnamespace",
    "SELECT count(*)::text FROM pg_largeobject_metadata",
    "SELECT coalesce(string_agg(array_to_string(setconfig, ','), ';'), '') \
     FROM pg_db_role_setting",
    "SELECT last_value::text FROM victim_seq",
];

/// The answers of `queries` and then of the [`CATALOG`] queries (each one text value, or
/// NULL), one per line: equal fingerprints before and after a run say that nothing they look at
/// changed.
pub fn fingerprint(client: &mut Client, queries: &[&str]) -> Result<String, Failed> {
    let mut out = String::new();
    for query in queries.iter().chain(CATALOG) {
        let row = client.query_one(*query, &[]).map_err(pg)?;
        let v: Option<String> = row.get(0);
        out.push_str(&v.unwrap_or_default());
        out.push('\n');
    }
    Ok(out)
}
