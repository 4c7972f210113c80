//! Hostile predictions for PostgreSQL: the SQLite campaign's classes in PostgreSQL's dialect,
//! and what only a server offers (transaction control, session state, sequences, large objects,
//! COPY, server files, other sessions, advisory locks). Seeded like [`super::generator`].

/// The kinds of attack on a PostgreSQL database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PgClass {
    /// DML, DDL, TRUNCATE, data-modifying CTEs, SELECT INTO.
    Write,
    /// COMMIT, ROLLBACK, SET TRANSACTION, set_config, SET, RESET, PREPARE, LISTEN, DISCARD.
    Session,
    /// nextval/setval, large objects, advisory locks held by the session.
    SideEffect,
    /// COPY to and from files and programs, pg_read_file, pg_ls_dir.
    FileAccess,
    /// pg_terminate_backend, pg_cancel_backend, pg_reload_conf, pg_sleep.
    Admin,
    /// repeat, string_agg, array_agg, cartesian generate_series, recursive CTEs.
    Resource,
    /// Parentheses, subqueries, CASE nested 100 to 10,000 deep; huge IN lists.
    DeepNesting,
    /// NUL bytes, long identifiers, several statements.
    Text,
}

impl PgClass {
    pub const ALL: [PgClass; 8] = [
        PgClass::Write,
        PgClass::Session,
        PgClass::SideEffect,
        PgClass::FileAccess,
        PgClass::Admin,
        PgClass::Resource,
        PgClass::DeepNesting,
        PgClass::Text,
    ];

    /// Classes whose every prediction must be refused outright (nothing runs).
    pub fn refused(self) -> bool {
        matches!(self, PgClass::Write | PgClass::FileAccess)
    }
}

fn pick<'t, T>(rng: &mut fastrand::Rng, items: &'t [T]) -> &'t T {
    &items[rng.usize(..items.len())]
}

/// One prediction against the scratch database's `victim` (id, name), `big` (10,000 rows) and
/// `victim_seq`; `scratch` is a path prefix for files a prediction tries to write.
pub fn prediction(rng: &mut fastrand::Rng, scratch: &str) -> (PgClass, String) {
    let class = PgClass::ALL[rng.usize(..PgClass::ALL.len())];
    let file = format!("{scratch}{}", rng.u32(..));
    let depth = *pick(rng, &[100usize, 1_000, 10_000]);
    let sql = match class {
        PgClass::Write => pick(
            rng,
            &[
                "DELETE FROM victim".to_owned(),
                "DELETE FROM victim RETURNING *".to_owned(),
                "UPDATE victim SET name = 'x' RETURNING id".to_owned(),
                "INSERT INTO victim VALUES (99, 'c') RETURNING id".to_owned(),
                "WITH d AS (DELETE FROM victim RETURNING *) SELECT * FROM d".to_owned(),
                "WITH u AS (UPDATE big SET v = 0 RETURNING 1) SELECT count(*) FROM u".to_owned(),
                "DROP TABLE victim".to_owned(),
                "TRUNCATE victim".to_owned(),
                "CREATE TABLE planted (a int)".to_owned(),
                "SELECT * INTO planted FROM victim".to_owned(),
                "CREATE TEMP TABLE planted AS SELECT * FROM victim".to_owned(),
                "CREATE FUNCTION f() RETURNS int AS 'SELECT 1' LANGUAGE sql".to_owned(),
                "CREATE INDEX planted ON victim(name)".to_owned(),
                "ALTER TABLE victim ADD COLUMN planted int".to_owned(),
                "DO $$ BEGIN DELETE FROM victim; END $$".to_owned(),
                "VACUUM victim".to_owned(),
                "LOCK TABLE victim".to_owned(),
                "ALTER DATABASE sqlsuite_hostile SET work_mem = '1MB'".to_owned(),
                "SELECT 1 FROM victim; DELETE FROM victim".to_owned(),
            ],
        )
        .clone(),
        PgClass::Session => pick(
            rng,
            &[
                "COMMIT",
                "ROLLBACK; DELETE FROM victim",
                "SET TRANSACTION READ WRITE",
                "SELECT set_config('transaction_read_only', 'off', false)",
                "SELECT set_config('default_transaction_read_only', 'off', false)",
                "SELECT set_config('statement_timeout', '0', false)",
                "SELECT set_config('work_mem', '4GB', false)",
                "SET statement_timeout = 0",
                "RESET ALL",
                "DISCARD ALL",
                "PREPARE p AS DELETE FROM victim",
                "LISTEN planted",
                "SELECT pg_notify('planted', 'x')",
            ],
        )
        .to_string(),
        PgClass::SideEffect => pick(
            rng,
            &[
                "SELECT nextval('victim_seq')",
                "SELECT setval('victim_seq', 100)",
                "SELECT lo_create(0)",
                "SELECT lo_from_bytea(0, 'x')",
                "SELECT pg_advisory_lock(17)",
                "SELECT pg_advisory_lock(17), pg_sleep(5)",
                "SELECT pg_try_advisory_lock(18)",
                "SELECT txid_current()",
            ],
        )
        .to_string(),
        PgClass::FileAccess => pick(
            rng,
            &[
                format!("COPY victim TO '{file}'"),
                format!("COPY (SELECT 1) TO PROGRAM 'touch {file}'"),
                "COPY victim FROM PROGRAM 'echo 5,x'".to_owned(),
                format!("SELECT lo_export(lo_from_bytea(0, 'x'), '{file}')"),
                "SELECT lo_import('/etc/hostname')".to_owned(),
                "COPY victim TO STDOUT".to_owned(),
            ],
        )
        .clone(),
        PgClass::Admin => pick(
            rng,
            &[
                "SELECT pg_terminate_backend(pg_backend_pid())",
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()",
                "SELECT pg_cancel_backend(pid) FROM pg_stat_activity",
                "SELECT pg_reload_conf()",
                "SELECT pg_sleep(100)",
                "SELECT pg_read_file('/etc/passwd')",
                "SELECT pg_ls_dir('.')",
            ],
        )
        .to_string(),
        PgClass::Resource => pick(
            rng,
            &[
                "SELECT repeat('x', 100000000)".to_owned(),
                "SELECT length(repeat('x', 900000000))".to_owned(),
                "SELECT string_agg(md5(g::text), '') FROM generate_series(1, 10000000) g".to_owned(),
                "SELECT array_agg(g) FROM generate_series(1, 100000000) g".to_owned(),
                "SELECT count(*) FROM big a, big b, big c".to_owned(),
                "SELECT * FROM big a, big b".to_owned(),
                "SELECT md5(g::text) FROM generate_series(1, 20000000) g ORDER BY 1".to_owned(),
                "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r".to_owned(),
                "WITH RECURSIVE r(x) AS (SELECT 'a'::text UNION ALL SELECT x || x FROM r) SELECT length(x) FROM r".to_owned(),
            ],
        )
        .clone(),
        PgClass::DeepNesting => match rng.usize(..4) {
            0 => format!("SELECT {}1{}", "(".repeat(depth), ")".repeat(depth)),
            1 => format!("SELECT {}1{}", "(SELECT ".repeat(depth), ")".repeat(depth)),
            2 => format!("SELECT {}1{}", "CASE WHEN true THEN ".repeat(depth), " END".repeat(depth)),
            _ => {
                let list: Vec<String> = (0..depth * 10).map(|i| i.to_string()).collect();
                format!("SELECT count(*) FROM big WHERE id IN ({})", list.join(", "))
            }
        },
        PgClass::Text => pick(
            rng,
            &[
                "SELECT count(*) FROM victim\0; DELETE FROM victim".to_owned(),
                format!("SELECT 1 AS {}", "x".repeat(100_000)),
                format!("SELECT count(*) FROM {}", "t".repeat(10_000)),
                "SELECT 1; SELECT 2".to_owned(),
                "SELECT 1 /* ; */; DELETE FROM victim".to_owned(),
                "SELECT E'\\xff'".to_owned(),
            ],
        )
        .clone(),
    };
    (class, sql)
}
