//! A seeded generator of hostile predictions (issue 17's classes): each call draws one class and
//! one variant of it against a schema, as a single line of SQL text (the prediction files hold
//! one prediction per line). The same seed gives the same predictions.

use std::path::Path;

/// A table of the attacked database, with its columns and row count.
#[derive(Debug, Clone)]
pub struct Table {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: u64,
}

/// What the generator attacks: one database's tables, and a directory for the file names it
/// makes predictions write to (the test checks that nothing appears there).
pub struct Target<'a> {
    pub tables: &'a [Table],
    pub scratch: &'a Path,
}

/// The kinds of attack, each judged by the campaign and tallied in its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// DROP, DELETE, UPDATE, INSERT, REPLACE, UPSERT, CREATE (table, index, view, trigger,
    /// virtual table), ALTER.
    Write,
    /// ATTACH (new and existing paths), DETACH.
    Attach,
    /// PRAGMA writable_schema, journal_mode, query_only, user_version, mmap_size, temp_store.
    Pragma,
    /// load_extension, readfile/writefile/edit, VACUUM, VACUUM INTO.
    FileAccess,
    /// A read followed by a write, hidden behind comments or not.
    MultiStatement,
    /// Recursive CTEs without an end, growing strings.
    RecursiveCte,
    /// Cartesian products of the largest tables.
    Cartesian,
    /// randomblob, zeroblob, printf('%.*c'), replace, group_concat.
    MemoryBomb,
    /// instr, LIKE, GLOB, trim, replace at the value bounds: quadratic work inside one step.
    InStep,
    /// Parentheses, subqueries, CASE, function calls, FROM-subqueries, JSON paths, chained
    /// CTEs nested 100 to 10,000 deep.
    DeepNesting,
    /// Chained CTEs each joining the previous one three times (prepare-time expansion).
    CteExpansion,
    /// IN lists of 100,000 elements.
    HugeInList,
    /// A 5 MB line.
    HugeLine,
    /// NUL bytes inside the text.
    NulByte,
    /// Identifiers of 10,000 and 100,000 characters.
    LongIdentifier,
}

impl Class {
    pub const ALL: [Class; 15] = [
        Class::Write,
        Class::Attach,
        Class::Pragma,
        Class::FileAccess,
        Class::MultiStatement,
        Class::RecursiveCte,
        Class::Cartesian,
        Class::MemoryBomb,
        Class::InStep,
        Class::DeepNesting,
        Class::CteExpansion,
        Class::HugeInList,
        Class::HugeLine,
        Class::NulByte,
        Class::LongIdentifier,
    ];

    /// The only reasons a prediction of the class may get, where the class decides it: writes,
    /// attaching, pragmas, files and NUL bytes are refused (`sql_error`), several statements
    /// are no one query (`several_statements`, the default mode's), CTE expansion and 5 MB
    /// lines are over a bound (`resource_limit`). `None`: what the query computes decides.
    pub fn expected_reasons(self) -> Option<&'static [&'static str]> {
        match self {
            Class::Write | Class::Attach | Class::Pragma | Class::FileAccess => {
                Some(&["sql_error"])
            }
            // A NUL byte in one of several statements: refused either way.
            Class::NulByte => Some(&["sql_error", "several_statements"]),
            Class::MultiStatement => Some(&["several_statements"]),
            Class::CteExpansion | Class::HugeLine => Some(&["resource_limit"]),
            _ => None,
        }
    }
}

/// Every `HUGE_LINE_EVERY`-th item (from the 8th) is a 5 MB line, and no other: a campaign's
/// predictions file stays far smaller than the memory bound it checks (10,000 items: 50 such
/// lines, 250 MB).
pub const HUGE_LINE_EVERY: usize = 200;

/// The hostile prediction of item `i`: of a random class (but see [`HUGE_LINE_EVERY`]).
pub fn prediction(rng: &mut fastrand::Rng, i: usize, target: &Target) -> (Class, String) {
    let class = if i % HUGE_LINE_EVERY == 7 {
        Class::HugeLine
    } else {
        let others: Vec<Class> = Class::ALL
            .into_iter()
            .filter(|c| *c != Class::HugeLine)
            .collect();
        others[rng.usize(..others.len())]
    };
    (class, of_class(rng, class, target))
}

fn pick<'t, T>(rng: &mut fastrand::Rng, items: &'t [T]) -> &'t T {
    &items[rng.usize(..items.len())]
}

fn table<'t>(rng: &mut fastrand::Rng, target: &'t Target) -> &'t Table {
    pick(rng, target.tables)
}

fn column(rng: &mut fastrand::Rng, table: &Table) -> String {
    pick(rng, &table.columns).clone()
}

/// The largest table (most rows).
fn largest<'t>(target: &'t Target) -> &'t Table {
    target
        .tables
        .iter()
        .max_by_key(|t| t.rows)
        .unwrap_or(&target.tables[0])
}

fn q(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A path in the scratch directory (or, for some, under the system's temporary directory, with
/// a name the test checks afterwards).
fn path(rng: &mut fastrand::Rng, target: &Target) -> String {
    let name = format!("pwned_{}.sqlite", rng.u32(..));
    target.scratch.join(name).display().to_string()
}

fn of_class(rng: &mut fastrand::Rng, class: Class, target: &Target) -> String {
    let t = table(rng, target).clone();
    let tn = q(&t.name);
    let c = q(&column(rng, &t));
    let size = *pick(rng, &[1_000_000u64, 60_000_000, 1_000_000_000]);
    match class {
        Class::Write => match rng.usize(..14) {
            0 => format!("DROP TABLE {tn}"),
            1 => format!("DELETE FROM {tn}"),
            2 => format!("UPDATE {tn} SET {c} = NULL"),
            3 => format!("INSERT INTO {tn}({c}) VALUES (1)"),
            4 => format!("REPLACE INTO {tn}({c}) VALUES (1)"),
            5 => format!("INSERT INTO {tn}({c}) VALUES (1) ON CONFLICT DO UPDATE SET {c} = 2"),
            6 => "CREATE TABLE pwned(x)".to_owned(),
            7 => format!("CREATE INDEX pwned ON {tn}({c})"),
            8 => format!("CREATE VIEW pwned AS SELECT * FROM {tn}"),
            9 => format!(
                "CREATE TRIGGER pwned AFTER INSERT ON {tn} BEGIN DELETE FROM {tn}; END"
            ),
            10 => "CREATE VIRTUAL TABLE pwned USING fts5(x)".to_owned(),
            11 => format!("ALTER TABLE {tn} RENAME TO pwned"),
            12 => format!("ALTER TABLE {tn} ADD COLUMN pwned INTEGER"),
            _ => format!("CREATE TEMP TABLE {tn} AS SELECT 1 AS x"),
        },
        Class::Attach => match rng.usize(..4) {
            0 => format!("ATTACH DATABASE '{}' AS pwned", path(rng, target)),
            1 => "ATTACH DATABASE ':memory:' AS pwned".to_owned(),
            2 => "DETACH DATABASE main".to_owned(),
            _ => format!(
                "ATTACH DATABASE 'file:{}?mode=rwc' AS pwned",
                path(rng, target)
            ),
        },
        Class::Pragma => {
            let pragma = pick(
                rng,
                &[
                    "writable_schema = 1",
                    "journal_mode = WAL",
                    "journal_mode = DELETE",
                    "query_only = 0",
                    "user_version = 7",
                    "mmap_size = 1000000000",
                    "temp_store = 2",
                    "locking_mode = EXCLUSIVE",
                    "foreign_keys = 0",
                    "application_id = 1",
                ],
            );
            if rng.bool() {
                format!("PRAGMA {pragma}")
            } else {
                format!("PRAGMA main.{pragma}")
            }
        }
        Class::FileAccess => match rng.usize(..7) {
            0 => "SELECT load_extension('/lib/x86_64-linux-gnu/libc.so.6')".to_owned(),
            1 => "SELECT readfile('/etc/passwd')".to_owned(),
            2 => format!("SELECT writefile('{}', 'x')", path(rng, target)),
            3 => "SELECT edit('text', 'vi')".to_owned(),
            4 => "VACUUM".to_owned(),
            5 => format!("VACUUM INTO '{}'", path(rng, target)),
            _ => format!("VACUUM main INTO '{}'", path(rng, target)),
        },
        Class::MultiStatement => {
            let attach = format!("ATTACH '{}' AS p", path(rng, target));
            let write = pick(
                rng,
                &[
                    format!("DELETE FROM {tn}"),
                    format!("DROP TABLE {tn}"),
                    format!("UPDATE {tn} SET {c} = 0"),
                    attach,
                ],
            )
            .clone();
            match rng.usize(..4) {
                0 => format!("SELECT count(*) FROM {tn}; {write}"),
                1 => format!("SELECT 1 /* ; */; {write}"),
                2 => format!("SELECT ';' AS x;{write};"),
                _ => format!("{write}; SELECT count(*) FROM {tn}"),
            }
        }
        Class::RecursiveCte => match rng.usize(..4) {
            0 => "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r".to_owned(),
            1 => "WITH RECURSIVE r(x) AS (SELECT 'a' UNION ALL SELECT x || x FROM r) SELECT length(x) FROM r".to_owned(),
            2 => "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r".to_owned(),
            _ => format!("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r, {tn}) SELECT max(x) FROM r"),
        },
        Class::Cartesian => {
            let big = q(&largest(target).name);
            let k = rng.usize(2..6);
            let from: Vec<String> = (0..k).map(|i| format!("{big} t{i}")).collect();
            match rng.usize(..3) {
                0 => format!("SELECT count(*) FROM {}", from.join(", ")),
                1 => format!("SELECT * FROM {}", from.join(", ")),
                _ => format!("SELECT * FROM {} ORDER BY random()", from.join(", ")),
            }
        }
        Class::MemoryBomb => {
            let k = rng.usize(1..40);
            let f = pick(
                rng,
                &[
                    format!("zeroblob({size})"),
                    format!("randomblob({size})"),
                    format!("printf('%.*c', {size}, 'a')"),
                    "replace(printf('%.*c', 100000, 'a'), 'a', printf('%.*c', 1000, 'b'))".to_owned(),
                    format!("hex(zeroblob({size}))"),
                ],
            )
            .clone();
            match rng.usize(..3) {
                0 => format!("SELECT {}", vec![f; k].join(", ")),
                1 => format!("SELECT {f} FROM {tn}"),
                _ => format!("SELECT group_concat({f}) FROM {tn} a, {tn} b"),
            }
        }
        Class::InStep => match rng.usize(..5) {
            0 => "SELECT instr(printf('%.*c', 4000000, 'a'), printf('%.*c', 2000000, 'a') || 'b')".to_owned(),
            1 => "SELECT printf('%.*c', 60000000, 'a') LIKE '%' || printf('%.*c', 49000, 'a') || 'b'".to_owned(),
            2 => "SELECT printf('%.*c', 99000, 'a') LIKE '%' || printf('%.*c', 990, 'a') || 'b'".to_owned(),
            3 => "SELECT trim(printf('%.*c', 99000, 'a'), printf('%.*c', 99000, 'b'))".to_owned(),
            _ => "SELECT printf('%.*c', 99000, 'a') GLOB '*' || printf('%.*c', 990, 'a') || 'b'".to_owned(),
        },
        Class::DeepNesting => {
            let depth = *pick(rng, &[100usize, 1_000, 3_000, 10_000]);
            match rng.usize(..7) {
                0 => format!("SELECT {}1{}", "(".repeat(depth), ")".repeat(depth)),
                1 => format!("SELECT {}1{}", "(SELECT ".repeat(depth), ")".repeat(depth)),
                2 => format!("SELECT {}1{}", "CASE WHEN 1 THEN ".repeat(depth), " END".repeat(depth)),
                3 => format!("SELECT {}1{}", "abs(".repeat(depth), ")".repeat(depth)),
                4 => format!("SELECT * FROM {}{tn}{}", "(SELECT * FROM ".repeat(depth), ")".repeat(depth)),
                5 => format!("SELECT json_set('{{}}', '${}', 1)", ".a".repeat(depth * 10)),
                _ => {
                    let ctes: Vec<String> = (1..depth)
                        .map(|i| format!("c{i} AS (SELECT * FROM c{})", i - 1))
                        .collect();
                    format!("WITH c0 AS (SELECT 1 AS x), {} SELECT * FROM c{}", ctes.join(", "), depth - 1)
                }
            }
        }
        Class::CteExpansion => {
            let n = rng.usize(8..20);
            let ctes: Vec<String> = (1..=n)
                .map(|i| format!("t{i}(x) AS (SELECT a0.x FROM t{p} a0, t{p} a1, t{p} a2)", p = i - 1))
                .collect();
            format!("WITH t0(x) AS (SELECT 1), {} SELECT count(*) FROM t{n}", ctes.join(", "))
        }
        Class::HugeInList => {
            let n = *pick(rng, &[10_000usize, 100_000]);
            let list: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            format!("SELECT count(*) FROM {tn} WHERE {c} IN ({})", list.join(", "))
        }
        Class::HugeLine => match rng.usize(..3) {
            0 => format!("SELECT '{}'", "a".repeat(5 << 20)),
            1 => format!("SELECT count(*) FROM {tn} /* {} */", "x".repeat(5 << 20)),
            _ => format!("SELECT {}1", "1 + ".repeat((5 << 20) / 4)),
        },
        Class::NulByte => match rng.usize(..3) {
            0 => format!("SELECT count(*) FROM {tn}\0; DELETE FROM {tn}"),
            1 => format!("SELECT '\0' FROM {tn}"),
            _ => format!("SELECT count(*) FROM {tn} WHERE {c} = 'a\0b'"),
        },
        Class::LongIdentifier => {
            let n = *pick(rng, &[10_000usize, 100_000]);
            match rng.usize(..3) {
                0 => format!("SELECT 1 AS {}", "x".repeat(n)),
                1 => format!("SELECT count(*) FROM {}", "t".repeat(n)),
                _ => format!("SELECT \"{}\" FROM {tn}", "c".repeat(n)),
            }
        }
    }
}
