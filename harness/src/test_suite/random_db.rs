//! Random databases for a schema, deterministic given a seed: tables filled in foreign-key
//! order, small, with duplicates and NULLs, mixing uniform random values with the values the
//! original database holds and the golds' constants and their close variants.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use rusqlite::types::Value;
use rusqlite::Connection;

use super::neighbors::random_word;
use super::schema::{ColumnKind, SuiteSchema};
use super::tokens::{tokenize, TokenKind};
use super::SuiteError;

/// Constants the golds of a schema use, with their close variants: per column name (lower
/// case) they are compared with, and all of them together.
#[derive(Debug, Clone, Default)]
pub struct Constants {
    by_column: HashMap<String, Vec<Value>>,
    /// The constants of the gold this database is drawn for, by column: drawn most often, so
    /// that one gold's conditions can hold together.
    focus: HashMap<String, Vec<Value>>,
    /// The focused gold's constants exactly as written, by column: witness rows take them in
    /// turn, so that two conditions on the same column (two joined copies of a table, `IN`,
    /// `OR`) can both hold.
    focus_exact: HashMap<String, Vec<Value>>,
    numbers: Vec<Value>,
    strings: Vec<Value>,
    /// The largest `COUNT(…) op N` threshold (N ≤ [`MAX_THRESHOLD`]) of the golds: databases
    /// then sometimes have enough rows for groups that large.
    count_threshold: Option<usize>,
}

/// Count thresholds above this are not aimed at (databases stay small).
pub const MAX_THRESHOLD: usize = 200;

/// How far back from a constant to look for the column it is compared with.
const COLUMN_LOOKBACK: usize = 6;

impl Constants {
    /// Collects the constants of `golds` (each attached to the nearest column name before it)
    /// and their variants: n ± 1; a string's substrings, the string wrapped in other letters,
    /// a LIKE pattern without its `%`.
    pub fn from_golds<'a>(golds: impl IntoIterator<Item = &'a str>, schema: &SuiteSchema) -> Self {
        let columns: BTreeSet<String> = schema
            .tables
            .iter()
            .flat_map(|t| t.columns.iter().map(|c| c.name.to_lowercase()))
            .collect();
        let mut c = Constants::default();
        for gold in golds {
            let toks = tokenize(gold);
            for (i, t) in toks.iter().enumerate() {
                let variants = match t.kind {
                    TokenKind::Int => t
                        .text
                        .parse::<i64>()
                        .map(|n| {
                            vec![
                                Value::Integer(n),
                                Value::Integer(n.saturating_sub(1)),
                                Value::Integer(n.saturating_add(1)),
                            ]
                        })
                        .unwrap_or_default(),
                    TokenKind::Float => t
                        .text
                        .parse::<f64>()
                        .map(|x| {
                            vec![
                                Value::Real(x),
                                Value::Real(x - 0.001),
                                Value::Real(x + 0.001),
                            ]
                        })
                        .unwrap_or_default(),
                    TokenKind::Str => t.string_content().map(string_variants).unwrap_or_default(),
                    _ => continue,
                };
                let after_count = i >= 3
                    && toks[i - 2].is_symbol(")")
                    && matches!(
                        toks[i - 1].text.as_str(),
                        ">" | ">=" | "<" | "<=" | "=" | "!="
                    )
                    && toks[i.saturating_sub(7)..i - 2]
                        .iter()
                        .any(|t| t.is_word("count"));
                if let (true, TokenKind::Int, Ok(n)) =
                    (after_count, t.kind, t.text.parse::<usize>())
                {
                    if n <= MAX_THRESHOLD {
                        c.count_threshold = c.count_threshold.max(Some(n));
                    }
                }
                let column = toks[i.saturating_sub(COLUMN_LOOKBACK)..i]
                    .iter()
                    .rev()
                    .find(|w| w.kind == TokenKind::Word && columns.contains(&w.lower()))
                    .map(|w| w.lower());
                for v in variants {
                    match v {
                        Value::Text(_) => c.strings.push(v.clone()),
                        _ => c.numbers.push(v.clone()),
                    }
                    if let Some(col) = &column {
                        c.by_column.entry(col.clone()).or_default().push(v);
                    }
                }
            }
        }
        // A constant compared with a column also serves the columns it joins with.
        for f in &schema.foreign_keys {
            let child = schema.tables[f.table].columns[f.column].name.to_lowercase();
            let parent = schema.tables[f.parent_table].columns[f.parent_column]
                .name
                .to_lowercase();
            for (from, to) in [(&child, &parent), (&parent, &child)] {
                if let Some(vs) = c.by_column.get(from).cloned() {
                    let entry = c.by_column.entry(to.clone()).or_default();
                    for v in vs {
                        if !entry.contains(&v) {
                            entry.push(v);
                        }
                    }
                }
            }
        }
        for vs in c.by_column.values_mut() {
            dedup(vs);
        }
        dedup(&mut c.numbers);
        dedup(&mut c.strings);
        c
    }

    /// These constants, focused on one gold's: its constants are drawn most often.
    pub fn focused_on(&self, gold: &str, schema: &SuiteSchema) -> Constants {
        let mut c = self.clone();
        let own = Constants::from_golds([gold], schema);
        // The constants exactly as written weigh more than their variants.
        let exact: BTreeSet<String> = tokenize(gold)
            .iter()
            .filter_map(|t| match t.kind {
                TokenKind::Str => t.string_content().map(|s| key_text(&Value::Text(s))),
                TokenKind::Int => t
                    .text
                    .parse::<i64>()
                    .ok()
                    .map(|n| key_text(&Value::Integer(n))),
                TokenKind::Float => t
                    .text
                    .parse::<f64>()
                    .ok()
                    .map(|x| key_text(&Value::Real(x))),
                _ => None,
            })
            .collect();
        c.focus_exact = own
            .by_column
            .iter()
            .map(|(col, vs)| {
                let exact_values: Vec<Value> = vs
                    .iter()
                    .filter(|v| exact.contains(&key_text(v)))
                    .cloned()
                    .collect();
                (col.clone(), exact_values)
            })
            .filter(|(_, vs)| !vs.is_empty())
            .collect();
        c.focus = own
            .by_column
            .into_iter()
            .map(|(col, vs)| {
                let mut weighted = Vec::new();
                for v in vs {
                    let times = if exact.contains(&key_text(&v)) { 4 } else { 1 };
                    weighted.extend(std::iter::repeat_n(v, times));
                }
                (col, weighted)
            })
            .collect();
        c.count_threshold = own.count_threshold;
        c
    }
}

fn dedup(vs: &mut Vec<Value>) {
    let mut seen = BTreeSet::new();
    vs.retain(|v| seen.insert(key_text(v)));
}

fn string_variants(s: String) -> Vec<Value> {
    let core: String = s.replace('%', "");
    let chars: Vec<char> = core.chars().collect();
    let mut out = vec![Value::Text(core.clone())];
    if s.contains('%') {
        out.push(Value::Text(format!("a{core}gg")));
        out.push(Value::Text(format!("{core}x")));
        out.push(Value::Text(format!("x{core}")));
    } else {
        out.push(Value::Text(format!("a{core}gg")));
    }
    if chars.len() >= 2 {
        out.push(Value::Text(chars[1..].iter().collect()));
        out.push(Value::Text(chars[..chars.len() - 1].iter().collect()));
    }
    out.push(Value::Text(core.to_uppercase()));
    out
}

/// How one random database is shaped.
#[derive(Debug, Clone, Copy)]
struct Shape {
    max_rows: usize,
    min_rows: usize,
}

/// Fills an empty database (`conn`) with random rows for `schema`; everything drawn from `seed`.
/// With `reversed`, every table's rows are inserted in the opposite order (the same rows; a
/// query whose result depends on physical row order, e.g. ties under ORDER BY … LIMIT, may
/// answer differently on the two).
pub fn populate(
    conn: &Connection,
    schema: &SuiteSchema,
    constants: &Constants,
    seed: u64,
    reversed: bool,
) -> Result<(), SuiteError> {
    let err = |e: rusqlite::Error| SuiteError::Generate {
        db_id: schema.db_id.clone(),
        message: e.to_string(),
    };
    let mut rng = fastrand::Rng::with_seed(seed);
    conn.execute_batch("PRAGMA page_size = 512; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF;")
        .map_err(err)?;
    for ddl in schema.ddl.iter().filter(|d| !d.is_empty()) {
        conn.execute_batch(ddl).map_err(err)?;
    }
    let mut shape = Shape {
        max_rows: [2, 3, 5, 8, 12, 20][rng.usize(..6)],
        min_rows: 1,
    };
    if let Some(n) = constants.count_threshold {
        if rng.bool() && n + 2 > shape.max_rows {
            shape.max_rows = n + 2 + rng.usize(..=n / 4 + 2);
            shape.min_rows = n.saturating_sub(2).max(1);
        }
    }
    // Every column's original values, by whether they are text: a column sometimes borrows
    // another's, so that unrelated columns can hold equal values (and a wrong join column
    // shows).
    let mut borrowable: [Vec<&Value>; 2] = [Vec::new(), Vec::new()];
    for t in &schema.tables {
        for c in &t.columns {
            let text = matches!(c.kind, ColumnKind::Text | ColumnKind::Time);
            borrowable[usize::from(text)].extend(c.original.iter().take(20));
        }
    }
    // Witness rows: the first rows of each table take the focused gold's constants in every
    // column it compares at once (and reference each other's keys), so that conditions on
    // several columns and tables can hold together.
    let witness_rows = if !constants.focus.is_empty() && rng.u32(..100) < 70 {
        1 + rng.usize(..3)
    } else {
        0
    };
    let mut witnesses: HashMap<(usize, usize), Vec<Value>> = HashMap::new();
    // Values actually stored per (table, column) that other tables reference.
    let mut stored: HashMap<(usize, usize), Vec<Value>> = HashMap::new();
    let tx = conn.unchecked_transaction().map_err(err)?;
    for &t in &schema.order {
        let table = &schema.tables[t];
        if table.columns.is_empty() || super::schema::is_internal(&table.name) {
            continue;
        }
        // A table other tables must reference is never empty.
        let is_parent = schema
            .foreign_keys
            .iter()
            .any(|f| f.declared && f.parent_table == t && f.table != t);
        let rows = if rng.u32(..100) < 5 && !is_parent {
            0
        } else {
            rng.usize(shape.min_rows..=shape.max_rows)
        };
        let pools: Vec<ColumnPool> = table
            .columns
            .iter()
            .map(|c| ColumnPool::new(c, constants, &borrowable, &mut rng))
            .collect();
        let single_key = (table.primary_key.len() == 1).then(|| table.primary_key[0]);
        let mut used_keys: BTreeSet<String> = BTreeSet::new();
        let names: Vec<String> = table.columns.iter().map(|c| ident(&c.name)).collect();
        let marks: Vec<&str> = table.columns.iter().map(|_| "?").collect();
        let sql = format!(
            "INSERT OR IGNORE INTO {} ({}) VALUES ({})",
            ident(&table.name),
            names.join(", "),
            marks.join(", ")
        );
        let mut stmt = tx.prepare(&sql).map_err(err)?;
        // Per column: whether witness rows take the exact constants in turn (60 %), from
        // which offset.
        let rotation: Vec<u32> = table.columns.iter().map(|_| rng.u32(..100)).collect();
        let rotation_offset: Vec<usize> = table.columns.iter().map(|_| rng.usize(..8)).collect();
        let mut generated: Vec<(Vec<Value>, bool)> = Vec::with_capacity(rows);
        for r in 0..rows {
            let witness_row = r < witness_rows;
            let mut row: Vec<Value> = Vec::with_capacity(table.columns.len());
            for (k, col) in table.columns.iter().enumerate() {
                let fk = schema
                    .foreign_keys
                    .iter()
                    .find(|f| f.table == t && f.column == k && f.parent_table != t);
                let is_key = table.primary_key.contains(&k);
                let parents = fk.and_then(|f| stored.get(&(f.parent_table, f.parent_column)));
                let parent_witnesses = fk
                    .and_then(|f| witnesses.get(&(f.parent_table, f.parent_column)))
                    .filter(|w| !w.is_empty());
                let focus = constants.focus.get(&col.name.to_lowercase());
                let exact = constants
                    .focus_exact
                    .get(&col.name.to_lowercase())
                    .filter(|_| witness_row && !rotation.is_empty());
                let declared = fk.is_some_and(|f| f.declared);
                let mut v = match (witness_row, focus, parent_witnesses, parents) {
                    (true, _, Some(w), _) if declared => w[rng.usize(..w.len())].clone(),
                    (true, _, _, _) if exact.is_some() && !declared && rotation[k] < 60 => {
                        let e = exact.map_or(&[][..], |e| &e[..]);
                        e[(rotation_offset[k] + r) % e.len()].clone()
                    }
                    (true, Some(f), _, _) if !f.is_empty() && !declared => {
                        f[rng.usize(..f.len())].clone()
                    }
                    (true, _, Some(w), _) => w[rng.usize(..w.len())].clone(),
                    (_, _, _, Some(p)) if !p.is_empty() && (declared || rng.u32(..100) < 90) => {
                        p[rng.usize(..p.len())].clone()
                    }
                    _ => pools[k].draw(col.kind, &mut rng),
                };
                if Some(k) == single_key {
                    let mut tries = 0;
                    while used_keys.contains(&key_text(&v)) && tries < 20 {
                        v = match parents {
                            Some(p) if !p.is_empty() && tries < 10 => {
                                p[rng.usize(..p.len())].clone()
                            }
                            // A declared reference never dangles: the row is refused as a
                            // duplicate key instead.
                            Some(p) if !p.is_empty() && declared => p[rng.usize(..p.len())].clone(),
                            _ => pools[k].fresh(col.kind, &mut rng),
                        };
                        tries += 1;
                    }
                    used_keys.insert(key_text(&v));
                } else if !is_key && !col.not_null && rng.u32(..100) < pools[k].null_percent {
                    v = Value::Null;
                }
                row.push(v);
            }
            generated.push((row, witness_row));
        }
        if reversed {
            generated.reverse();
        }
        for (row, witness_row) in generated {
            // A row the table's declared constraints refuse (a text value for an INTEGER
            // PRIMARY KEY, say) is left out, like a duplicate key.
            match stmt.execute(rusqlite::params_from_iter(row.iter())) {
                Ok(_) if witness_row => {
                    for (k, v) in row.into_iter().enumerate() {
                        witnesses.entry((t, k)).or_default().push(v);
                    }
                }
                Ok(_) => {}
                Err(rusqlite::Error::SqliteFailure(..)) => {}
                Err(e) => return Err(err(e)),
            }
        }
        drop(stmt);
        // Remember what the children will reference.
        for f in schema.foreign_keys.iter().filter(|f| f.parent_table == t) {
            let col = &table.columns[f.parent_column];
            let q = format!(
                "SELECT {} FROM {} WHERE {} IS NOT NULL ORDER BY 1",
                ident(&col.name),
                ident(&table.name),
                ident(&col.name)
            );
            let mut s = tx.prepare(&q).map_err(err)?;
            let values: Vec<Value> = s
                .query_map([], |r| r.get::<_, Value>(0))
                .map_err(err)?
                .filter_map(Result::ok)
                .collect();
            stored.insert((t, f.parent_column), values);
        }
    }
    tx.commit().map_err(err)?;
    Ok(())
}

/// Writes the random database `seed` for `schema` to `path` (replacing any file there).
pub fn write(
    path: &Path,
    schema: &SuiteSchema,
    constants: &Constants,
    seed: u64,
) -> Result<(), SuiteError> {
    if path.exists() {
        std::fs::remove_file(path).map_err(|source| SuiteError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    }
    let conn = Connection::open(path).map_err(|e| SuiteError::Database {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    populate(&conn, schema, constants, seed, false)
}

/// The random database `seed` for `schema`, in memory, restricted to reading.
pub fn in_memory(
    schema: &SuiteSchema,
    constants: &Constants,
    seed: u64,
) -> Result<Connection, SuiteError> {
    in_memory_ordered(schema, constants, seed, false)
}

/// [`in_memory`], with each table's rows inserted in reverse order if `reversed`.
pub fn in_memory_ordered(
    schema: &SuiteSchema,
    constants: &Constants,
    seed: u64,
    reversed: bool,
) -> Result<Connection, SuiteError> {
    let conn = Connection::open_in_memory().map_err(|e| SuiteError::Generate {
        db_id: schema.db_id.clone(),
        message: e.to_string(),
    })?;
    populate(&conn, schema, constants, seed, reversed)?;
    crate::backend::sqlite::restrict(&conn);
    Ok(conn)
}

fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn key_text(v: &Value) -> String {
    match v {
        Value::Integer(n) => format!("i{n}"),
        Value::Real(x) => format!("r{x}"),
        Value::Text(s) => format!("t{s}"),
        Value::Blob(b) => format!("b{b:?}"),
        Value::Null => "null".into(),
    }
}

/// A column's values in one database: a few candidates, so rows repeat them.
struct ColumnPool {
    values: Vec<Value>,
    original: Vec<Value>,
    null_percent: u32,
}

fn pick<T: Clone>(from: &[T], rng: &mut fastrand::Rng) -> Option<T> {
    (!from.is_empty()).then(|| from[rng.usize(..from.len())].clone())
}

impl ColumnPool {
    fn new(
        col: &super::schema::Column,
        constants: &Constants,
        borrowable: &[Vec<&Value>; 2],
        rng: &mut fastrand::Rng,
    ) -> Self {
        let name = col.name.to_lowercase();
        let empty = Vec::new();
        let focus = constants.focus.get(&name).unwrap_or(&empty);
        let targeted = constants.by_column.get(&name).unwrap_or(&empty);
        let text = matches!(col.kind, ColumnKind::Text | ColumnKind::Time);
        let globals = if text {
            &constants.strings
        } else {
            &constants.numbers
        };
        let borrow = &borrowable[usize::from(text)];
        let mut pool = ColumnPool {
            values: Vec::new(),
            original: col.original.clone(),
            null_percent: if rng.u32(..100) < 70 { 0 } else { 15 },
        };
        let size = 1 + rng.usize(..6);
        for _ in 0..size {
            let r = rng.u32(..100);
            let v = match r {
                0..=49 => pick(focus, rng),
                50..=59 => pick(targeted, rng),
                60..=79 => pick(&pool.original, rng),
                80..=84 => pick(borrow, rng).cloned(),
                85..=89 => pick(globals, rng),
                _ => None,
            };
            let v = v
                .or_else(|| pick(&pool.original, rng))
                .unwrap_or_else(|| random_value(col.kind, rng));
            pool.values.push(v);
        }
        pool
    }

    fn draw(&self, kind: ColumnKind, rng: &mut fastrand::Rng) -> Value {
        if self.values.is_empty() {
            return random_value(kind, rng);
        }
        self.values[rng.usize(..self.values.len())].clone()
    }

    /// A value outside the pool, for unique keys.
    fn fresh(&self, kind: ColumnKind, rng: &mut fastrand::Rng) -> Value {
        if !self.original.is_empty() && rng.bool() {
            return self.original[rng.usize(..self.original.len())].clone();
        }
        match kind {
            ColumnKind::Int | ColumnKind::Bool => Value::Integer(rng.i64(0..10_000)),
            _ => random_value(kind, rng),
        }
    }
}

/// A uniform random value of the column's kind; small ranges so ties and duplicates occur.
fn random_value(kind: ColumnKind, rng: &mut fastrand::Rng) -> Value {
    match kind {
        ColumnKind::Int => Value::Integer(match rng.u32(..3) {
            0 => rng.i64(0..=10),
            1 => rng.i64(0..=100),
            _ => rng.i64(0..=10_000),
        }),
        ColumnKind::Real => Value::Real((rng.f64() * 1000.0).round() / 10.0),
        ColumnKind::Bool => Value::Integer(rng.i64(0..=1)),
        ColumnKind::Text => Value::Text({
            let len = 1 + rng.usize(..8);
            random_word(rng, len)
        }),
        ColumnKind::Time => {
            let date = format!(
                "{:04}-{:02}-{:02}",
                rng.u32(1970..=2025),
                rng.u32(1..=12),
                rng.u32(1..=28)
            );
            Value::Text(if rng.bool() {
                date
            } else {
                format!(
                    "{date} {:02}:{:02}:{:02}",
                    rng.u32(..24),
                    rng.u32(..60),
                    rng.u32(..60)
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_suite::schema::{Column, ForeignKey, Table};

    fn schema() -> SuiteSchema {
        let col = |name: &str, kind| Column {
            name: name.into(),
            kind,
            original: Vec::new(),
            not_null: false,
        };
        SuiteSchema {
            db_id: "t".into(),
            tables: vec![
                Table {
                    name: "parent".into(),
                    columns: vec![col("id", ColumnKind::Int), col("name", ColumnKind::Text)],
                    primary_key: vec![0],
                },
                Table {
                    name: "child".into(),
                    columns: vec![col("pid", ColumnKind::Int), col("at", ColumnKind::Time)],
                    primary_key: vec![],
                },
            ],
            foreign_keys: vec![ForeignKey {
                table: 1,
                column: 0,
                parent_table: 0,
                parent_column: 0,
                declared: true,
            }],
            ddl: vec![
                "CREATE TABLE parent (id INTEGER, name TEXT)".into(),
                "CREATE TABLE child (pid INTEGER, at TEXT)".into(),
            ],
            order: vec![0, 1],
        }
    }

    fn dump(conn: &Connection) -> Vec<String> {
        let mut out = Vec::new();
        for t in ["parent", "child"] {
            let mut s = conn.prepare(&format!("SELECT * FROM {t}")).unwrap();
            let rows = s
                .query_map([], |r| {
                    Ok(format!(
                        "{:?} {:?}",
                        r.get::<_, Value>(0)?,
                        r.get::<_, Value>(1)?
                    ))
                })
                .unwrap();
            out.extend(rows.map(Result::unwrap));
        }
        out
    }

    #[test]
    fn deterministic_keys_unique_and_references_resolve() {
        let s = schema();
        let c = Constants::from_golds(
            ["SELECT name FROM parent WHERE name = 'Alice' AND id = 34"],
            &s,
        );
        assert!(c.by_column["name"].contains(&Value::Text("aAlicegg".into())));
        assert!(c.by_column["id"].contains(&Value::Integer(33)));
        let mut saw_alice = false;
        for seed in 0..40 {
            let a = in_memory(&s, &c, seed).unwrap();
            let b = in_memory(&s, &c, seed).unwrap();
            assert_eq!(dump(&a), dump(&b), "seed {seed}");
            let dup: i64 = a
                .query_row(
                    "SELECT count(*) - count(DISTINCT id) FROM parent",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(dup, 0);
            let dangling: i64 = a
                .query_row(
                    "SELECT count(*) FROM child WHERE pid IS NOT NULL AND pid NOT IN (SELECT id FROM parent)",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            let children: i64 = a
                .query_row("SELECT count(*) FROM child", [], |r| r.get(0))
                .unwrap();
            assert!(dangling <= children);
            saw_alice |= dump(&a).iter().any(|r| r.contains("Alice"));
        }
        assert!(saw_alice, "gold constants reach the data");
        // Restricted: a generated database under evaluation cannot be changed.
        let a = in_memory(&s, &c, 1).unwrap();
        assert!(a.execute_batch("DELETE FROM parent").is_err());
    }
}
