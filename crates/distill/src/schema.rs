//! The schema a random database is generated from: tables, typed columns, primary and foreign
//! keys (from Spider's `tables.json`), the original database's own `CREATE TABLE` statements
//! when there is one, and the values its columns hold.
//!
//! It reads the constraints' vocabulary ([`super::constraints`]: column rules, references'
//! origins) and nothing that builds on it: induction ([`super::induce`]) and the witness
//! ([`super::witness`], which also refines a schema by the golds' text comparisons) do.

use std::collections::HashMap;
use std::path::Path;

use super::constraints::{ColumnRules, Constraints, ReferenceOrigin};
use super::neighbors::ColumnFacts;
use super::SuiteError;
use sqlsuite::backend::sqlite::quote_identifier as ident;
use sqlsuite::dataset::tables::{self, TablesEntry};

/// How a column's random values are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Int,
    Real,
    Text,
    Time,
    Bool,
}

/// One column.
#[derive(Debug, Clone)]
pub struct Column {
    /// The name as the database spells it.
    pub name: String,
    pub kind: ColumnKind,
    /// Distinct values the original database holds in this column (a sample), if any.
    pub original: Vec<rusqlite::types::Value>,
    /// Values of the column's shape its sample lacks (a profile's extremes,
    /// [`crate::profile`]): drawn only into databases whose constants are
    /// [`crate::random_db::Constants::later`].
    pub wider: Vec<rusqlite::types::Value>,
    /// A profile's samples of the column share one layout of digit runs, not a date
    /// (`profile::shaped_samples`): its values, the wider ones included, have that layout.
    pub layout: bool,
    /// Declared NOT NULL (or part of the primary key) in the original database.
    pub not_null: bool,
    /// What generated values must respect ([`SuiteSchema::with_constraints`]).
    pub rules: ColumnRules,
}

#[derive(Debug, Clone)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
    /// Positions of the primary-key columns.
    pub primary_key: Vec<usize>,
    /// Generated databases give it at least one row.
    pub non_empty: bool,
}

/// A foreign key: (table, column) references (table, column), by position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForeignKey {
    pub table: usize,
    pub column: usize,
    pub parent_table: usize,
    pub parent_column: usize,
    /// Declared by the schema, a join some gold makes, …
    pub source: ReferenceOrigin,
    /// Generated data respects it: every non-NULL value references a parent row. Otherwise
    /// references may dangle (a join the golds make that the original's data does not bear).
    pub enforced: bool,
}

/// Everything the generator needs about one schema.
#[derive(Debug, Clone)]
pub struct SuiteSchema {
    pub db_id: String,
    pub tables: Vec<Table>,
    pub foreign_keys: Vec<ForeignKey>,
    /// The original database's `CREATE TABLE` statements (types, constraints as declared), or
    /// statements built from `tables.json` when there is no original.
    pub ddl: Vec<String>,
    /// Table order for generation: parents before children (cycles broken by declaration order).
    pub order: Vec<usize>,
    /// A published profile stands for the data (no original database): the suites may draw
    /// what only such schemas draw (duplicate answers, [`crate::witness::Witness::answered`]).
    pub profiled: bool,
}

/// Distinct original values kept per column.
const ORIGINAL_VALUES: usize = 200;

/// Reads every schema of a Spider-style `tables.json`, by `db_id`.
/// An entry the schemas cannot be built from is an error naming the file and the entry.
pub fn read_tables_json(path: &Path) -> Result<HashMap<String, SuiteSchema>, SuiteError> {
    let mut out = HashMap::new();
    for (k, r) in tables::read(path)
        .map_err(sqlsuite::dataset::DatasetError::from)?
        .into_iter()
        .enumerate()
    {
        let s = from_raw(r).map_err(|e| match e {
            SuiteError::Schema { db_id, message } => {
                SuiteError::Dataset(sqlsuite::dataset::DatasetError::File {
                    path: path.to_path_buf(),
                    message: format!("entry {k} (db_id {db_id:?}): {message}"),
                })
            }
            other => other,
        })?;
        out.insert(s.db_id.clone(), s);
    }
    Ok(out)
}

fn from_raw(r: TablesEntry) -> Result<SuiteSchema, SuiteError> {
    let bad = |message: String| SuiteError::Schema {
        db_id: r.db_id.clone(),
        message,
    };
    let column_types = r
        .column_types
        .as_deref()
        .ok_or_else(|| bad("no column_types".into()))?;
    let mut tables: Vec<Table> = r
        .table_names_original
        .iter()
        .map(|t| Table {
            name: t.clone(),
            columns: Vec::new(),
            primary_key: Vec::new(),
            non_empty: false,
        })
        .collect();
    // Global column id → (table, position).
    let mut position: Vec<Option<(usize, usize)>> = Vec::new();
    for (id, (t, name)) in r.column_names_original.iter().enumerate() {
        if *t < 0 {
            position.push(None);
            continue;
        }
        let t = *t as usize;
        let table = tables.get_mut(t).ok_or_else(|| {
            bad(format!(
                "column {name} names table {t}, which does not exist"
            ))
        })?;
        let kind = match column_types.get(id).map(String::as_str) {
            Some("number") => ColumnKind::Int,
            Some("time") => ColumnKind::Time,
            Some("boolean") => ColumnKind::Bool,
            _ => ColumnKind::Text,
        };
        position.push(Some((t, table.columns.len())));
        table.columns.push(Column {
            name: name.clone(),
            kind,
            original: Vec::new(),
            wider: Vec::new(),
            layout: false,
            not_null: false,
            rules: ColumnRules::default(),
        });
    }
    let lookup = |id: usize| position.get(id).copied().flatten();
    for pk in &r.primary_keys {
        let ids: Vec<usize> = match pk {
            serde_json::Value::Number(n) => n.as_u64().map(|n| n as usize).into_iter().collect(),
            serde_json::Value::Array(a) => a
                .iter()
                .filter_map(|v| v.as_u64().map(|n| n as usize))
                .collect(),
            _ => Vec::new(),
        };
        for id in ids {
            if let Some((t, c)) = lookup(id) {
                tables[t].primary_key.push(c);
            }
        }
    }
    let foreign_keys = r
        .foreign_keys
        .iter()
        .filter_map(|&(child, parent)| {
            let (table, column) = lookup(child)?;
            let (parent_table, parent_column) = lookup(parent)?;
            Some(ForeignKey {
                table,
                column,
                parent_table,
                parent_column,
                source: ReferenceOrigin::Declared,
                enforced: true,
            })
        })
        .collect();
    let ddl = tables.iter().map(create_statement).collect();
    let mut s = SuiteSchema {
        db_id: r.db_id,
        tables,
        foreign_keys,
        ddl,
        order: Vec::new(),
        profiled: false,
    };
    s.order = topological_order(&s);
    Ok(s)
}

/// A column's kind from its declared SQL type (SQLite's affinity rules, plus dates and
/// booleans).
fn kind_of_declared(ty: &str) -> ColumnKind {
    let t = ty.to_ascii_lowercase();
    if t.contains("int") {
        ColumnKind::Int
    } else if ["real", "floa", "doub", "dec", "numeric"]
        .iter()
        .any(|k| t.contains(k))
    {
        ColumnKind::Real
    } else if t.contains("date") || t.contains("time") {
        ColumnKind::Time
    } else if t.contains("bool") {
        ColumnKind::Bool
    } else {
        ColumnKind::Text
    }
}

/// The schema a database defines (a `.sqlite` file, a `.sql` script or a schema `.csv`; its
/// rows are not read here): its tables, declared column types, primary keys and the foreign
/// keys whose parent column exists, as schema `db_id`.
pub fn from_database(db_id: &str, path: &Path) -> Result<SuiteSchema, SuiteError> {
    let err = |e: rusqlite::Error| SuiteError::Database {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let conn = open_original(path).map_err(err)?;
    let names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
        .and_then(|mut stmt| stmt.query_map([], |r| r.get(0))?.collect())
        .map_err(err)?;
    let names: Vec<String> = names.into_iter().filter(|n| !is_internal(n)).collect();
    let mut tables = Vec::new();
    // (table, column name, parent table name, parent column name or None for its key).
    let mut declared: Vec<(usize, String, String, Option<String>)> = Vec::new();
    for (ti, name) in names.iter().enumerate() {
        let columns: Vec<(String, String)> = conn
            .prepare(&format!("PRAGMA table_info({})", ident(name)))
            .and_then(|mut stmt| {
                stmt.query_map([], |r| Ok((r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .map_err(err)?;
        tables.push(Table {
            name: name.clone(),
            columns: columns
                .into_iter()
                .map(|(name, ty)| Column {
                    name,
                    kind: kind_of_declared(&ty),
                    original: Vec::new(),
                    wider: Vec::new(),
                    layout: false,
                    not_null: false,
                    rules: ColumnRules::default(),
                })
                .collect(),
            primary_key: Vec::new(),
            non_empty: false,
        });
        let fks: Vec<(String, String, Option<String>)> = conn
            .prepare(&format!("PRAGMA foreign_key_list({})", ident(name)))
            .and_then(|mut stmt| {
                stmt.query_map([], |r| Ok((r.get(2)?, r.get(3)?, r.get(4)?)))?
                    .collect()
            })
            .map_err(err)?;
        for (parent, from, to) in fks {
            declared.push((ti, from, parent, to));
        }
    }
    let position = |tables: &[Table], t: &str, c: &str| -> Option<(usize, usize)> {
        let ti = tables.iter().position(|x| x.name.eq_ignore_ascii_case(t))?;
        let ci = tables[ti]
            .columns
            .iter()
            .position(|x| x.name.eq_ignore_ascii_case(c))?;
        Some((ti, ci))
    };
    let mut s = SuiteSchema {
        db_id: db_id.to_owned(),
        tables,
        foreign_keys: Vec::new(),
        ddl: Vec::new(),
        order: Vec::new(),
        profiled: false,
    }
    .with_original(path)?;
    for (ti, from, parent, to) in declared {
        let Some((_, column)) = position(&s.tables, &s.tables[ti].name.clone(), &from) else {
            continue;
        };
        let parent_column = match &to {
            Some(to) => position(&s.tables, &parent, to),
            None => {
                let pt = s
                    .tables
                    .iter()
                    .position(|x| x.name.eq_ignore_ascii_case(&parent));
                pt.and_then(|pt| match s.tables[pt].primary_key[..] {
                    [k] => Some((pt, k)),
                    _ => None,
                })
            }
        };
        // A key naming a column its parent does not have is not enforceable: left out.
        let Some((parent_table, parent_column)) = parent_column else {
            continue;
        };
        s.foreign_keys.push(ForeignKey {
            table: ti,
            column,
            parent_table,
            parent_column,
            source: ReferenceOrigin::Declared,
            enforced: true,
        });
    }
    s.order = topological_order(&s);
    Ok(s)
}

/// A `CREATE TABLE` from `tables.json` alone: declared types give SQLite's usual affinities.
fn create_statement(t: &Table) -> String {
    if is_internal(&t.name) {
        return String::new();
    }
    let cols: Vec<String> = t
        .columns
        .iter()
        .map(|c| {
            let ty = match c.kind {
                ColumnKind::Int | ColumnKind::Bool => "INTEGER",
                ColumnKind::Real => "REAL",
                ColumnKind::Text | ColumnKind::Time => "TEXT",
            };
            format!("{} {ty}", ident(&c.name))
        })
        .collect();
    format!("CREATE TABLE {} ({})", ident(&t.name), cols.join(", "))
}

/// Opens an original database for the generator's own catalog queries: a `.sqlite` file
/// read-only, or a `.sql` script (the demo's format) or schema `.csv` loaded into memory.
pub fn open_original(path: &Path) -> rusqlite::Result<rusqlite::Connection> {
    match sqlsuite::backend::sqlite::load_script(path) {
        Some(loaded) => loaded,
        None => rusqlite::Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        ),
    }
}

/// Whether the rows of `table` are unique and non-NULL on the `key` columns.
fn respects_key(
    conn: &rusqlite::Connection,
    table: &str,
    key: &[usize],
    columns: &[Column],
) -> bool {
    let names: Vec<String> = key.iter().map(|&k| ident(&columns[k].name)).collect();
    let q = format!(
        "SELECT count(*) = (SELECT count(*) FROM (SELECT DISTINCT {list} FROM {t} WHERE {nn})) \
         AND count(*) = (SELECT count(*) FROM {t} WHERE {nn}) FROM {t}",
        list = names.join(", "),
        t = ident(table),
        nn = names
            .iter()
            .map(|n| format!("{n} IS NOT NULL"))
            .collect::<Vec<_>>()
            .join(" AND ")
    );
    conn.query_row(&q, [], |r| r.get::<_, bool>(0))
        .unwrap_or(false)
}

/// SQLite's own tables (`sqlite_sequence`, …): never created or filled by the generator.
pub fn is_internal(table: &str) -> bool {
    table.to_ascii_lowercase().starts_with("sqlite_")
}

/// Parents before children; a cycle is broken by taking the earliest declared table left.
fn topological_order(s: &SuiteSchema) -> Vec<usize> {
    let n = s.tables.len();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let ready = (0..n).find(|&t| {
            !done[t]
                && s.foreign_keys
                    .iter()
                    .all(|fk| fk.table != t || fk.parent_table == t || done[fk.parent_table])
        });
        let next = ready.unwrap_or_else(|| (0..n).find(|&t| !done[t]).unwrap_or(0));
        done[next] = true;
        order.push(next);
    }
    order
}

impl SuiteSchema {
    /// Takes the original database's own table definitions and column values: its `CREATE
    /// TABLE` statements replace the ones built from `tables.json`, numeric columns holding
    /// reals become real-valued, and each column keeps a sample of its distinct values.
    pub fn with_original(mut self, path: &Path) -> Result<SuiteSchema, SuiteError> {
        let err = |e: rusqlite::Error| SuiteError::Database {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        // Only the generator's own catalog queries run here (PRAGMA table_info needs a
        // connection without the untrusted-query authorizer); the file is opened read-only.
        let conn = open_original(path).map_err(err)?;
        let mut ddl = Vec::new();
        {
            let mut stmt = conn
                .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%'")
                .map_err(err)?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(err)?;
            for row in rows {
                let (name, sql) = row.map_err(err)?;
                ddl.push((name, sql));
            }
        }
        // Keep only tables the schema knows (in its order), so table positions agree.
        let mut statements = Vec::new();
        for t in &mut self.tables {
            if is_internal(&t.name) {
                statements.push(String::new());
                continue;
            }
            let Some((_, sql)) = ddl.iter().find(|(n, _)| n.eq_ignore_ascii_case(&t.name)) else {
                statements.push(create_statement(t));
                continue;
            };
            statements.push(sql.clone());
            let info = format!("PRAGMA table_info({})", ident(&t.name));
            // (name, not null, position in the primary key or 0).
            let columns: Vec<(String, bool, i64)> = conn
                .prepare(&info)
                .and_then(|mut stmt| {
                    stmt.query_map([], |r| {
                        Ok((
                            r.get::<_, String>(1)?.to_lowercase(),
                            r.get::<_, i64>(3)? != 0,
                            r.get::<_, i64>(5)?,
                        ))
                    })?
                    .collect()
                })
                .unwrap_or_default();
            let not_null: Vec<String> = columns
                .iter()
                .filter(|c| c.1)
                .map(|c| c.0.clone())
                .collect();
            // The database's own primary key (tables.json lists only the first column of a
            // composite key).
            let mut key: Vec<(i64, usize)> = columns
                .iter()
                .filter(|c| c.2 > 0)
                .filter_map(|c| {
                    let pos = t
                        .columns
                        .iter()
                        .position(|x| x.name.to_lowercase() == c.0)?;
                    Some((c.2, pos))
                })
                .collect();
            // A key the original does not declare stays if its data respects it (the classical
            // datasets' populated GeoQuery declares none; its schema-only database does).
            let keep_declared = key.is_empty()
                && t.primary_key.len() > 1
                && respects_key(&conn, &t.name, &t.primary_key, &t.columns);
            if !columns.is_empty() && !keep_declared {
                key.sort_unstable();
                t.primary_key = key.into_iter().map(|(_, pos)| pos).collect();
            }
            for c in &mut t.columns {
                c.not_null = not_null.contains(&c.name.to_lowercase());
                let q = format!(
                    "SELECT DISTINCT {} FROM {} WHERE {} IS NOT NULL LIMIT {ORIGINAL_VALUES}",
                    ident(&c.name),
                    ident(&t.name),
                    ident(&c.name)
                );
                let Ok(mut stmt) = conn.prepare(&q) else {
                    continue;
                };
                let values: Vec<rusqlite::types::Value> = stmt
                    .query_map([], |r| r.get::<_, rusqlite::types::Value>(0))
                    .map_err(err)?
                    .filter_map(Result::ok)
                    .collect();
                if c.kind == ColumnKind::Int
                    && values
                        .iter()
                        .any(|v| matches!(v, rusqlite::types::Value::Real(_)))
                {
                    c.kind = ColumnKind::Real;
                }
                c.original = values;
            }
        }
        self.ddl = statements;
        Ok(self)
    }

    /// Adds the joins the golds make (`a.x = b.y`) as foreign keys where the schema declares
    /// none between those columns, so random databases can satisfy them: the side that is not
    /// its table's primary key (else the later-declared table) references the other.
    pub fn with_joins<'a>(mut self, golds: impl IntoIterator<Item = &'a str>) -> SuiteSchema {
        let tables = self.table_columns();
        let find = |(t, c): &(String, String)| -> Option<(usize, usize)> {
            let ti = self
                .tables
                .iter()
                .position(|x| x.name.eq_ignore_ascii_case(t))?;
            let ci = self.tables[ti]
                .columns
                .iter()
                .position(|x| x.name.eq_ignore_ascii_case(c))?;
            Some((ti, ci))
        };
        let mut added = Vec::new();
        for gold in golds {
            for (a, b) in super::neighbors::join_pairs(gold, &tables) {
                let (Some(a), Some(b)) = (find(&a), find(&b)) else {
                    continue;
                };
                let linked = self
                    .foreign_keys
                    .iter()
                    .chain(&added)
                    .any(|f: &ForeignKey| {
                        ((f.table, f.column) == a && (f.parent_table, f.parent_column) == b)
                            || ((f.table, f.column) == b && (f.parent_table, f.parent_column) == a)
                    });
                if linked {
                    continue;
                }
                let a_key = self.tables[a.0].primary_key == [a.1];
                let b_key = self.tables[b.0].primary_key == [b.1];
                let (child, parent) = match (a_key, b_key) {
                    (true, false) => (b, a),
                    (false, true) => (a, b),
                    _ if a.0 > b.0 => (a, b),
                    _ => (b, a),
                };
                added.push(ForeignKey {
                    table: child.0,
                    column: child.1,
                    parent_table: parent.0,
                    parent_column: parent.1,
                    source: ReferenceOrigin::Golds,
                    enforced: false,
                });
            }
        }
        // A key joined to a column that references another table holds that table's keys
        // too (`TV_SERIES.SID = MADE_BY.MSID`, which references `COPYRIGHT.MSID`): it draws
        // from them, and is filled after them, so that rows satisfying the join can exist.
        let mut through = Vec::new();
        for f in &added {
            let (key, child) = ((f.parent_table, f.parent_column), (f.table, f.column));
            let declared = self
                .foreign_keys
                .iter()
                .find(|d| d.enforced && (d.table, d.column) == child && d.parent_table != key.0);
            let references_already = self
                .foreign_keys
                .iter()
                .chain(&added)
                .chain(&through)
                .any(|d| (d.table, d.column) == key);
            if let (Some(d), false) = (declared, references_already) {
                through.push(ForeignKey {
                    table: key.0,
                    column: key.1,
                    parent_table: d.parent_table,
                    parent_column: d.parent_column,
                    source: ReferenceOrigin::Golds,
                    enforced: false,
                });
            }
        }
        self.foreign_keys.extend(added);
        self.foreign_keys.extend(through);
        self.order = topological_order(&self);
        self
    }

    /// Per table, per column: never NULL (declared, or by the constraints), unique (a
    /// single-column key, or by the constraints) and numeric (an amount, not a key), for
    /// neighbor generation.
    pub fn column_facts(&self) -> ColumnFacts {
        let per_column = |f: &dyn Fn(usize, &Table, usize, &Column) -> bool| -> Vec<Vec<bool>> {
            self.tables
                .iter()
                .enumerate()
                .map(|(ti, t)| {
                    t.columns
                        .iter()
                        .enumerate()
                        .map(|(k, c)| f(ti, t, k, c))
                        .collect()
                })
                .collect()
        };
        ColumnFacts {
            not_null: per_column(&|_, t, k, c| {
                c.not_null || c.rules.is_not_null() || t.primary_key.contains(&k)
            }),
            unique: per_column(&|_, t, k, c| t.primary_key == [k] || c.rules.is_unique()),
            numeric: per_column(&|ti, t, k, c| {
                let key = t.primary_key.contains(&k)
                    || self
                        .foreign_keys
                        .iter()
                        .any(|f| (f.table, f.column) == (ti, k));
                let number = matches!(c.kind, ColumnKind::Int | ColumnKind::Real);
                number && !key && !c.rules.is_unique()
            }),
            numbers: per_column(&|_, _, _, c| matches!(c.kind, ColumnKind::Int | ColumnKind::Real)),
            references: self
                .foreign_keys
                .iter()
                .filter(|f| f.enforced)
                .map(|f| ((f.table, f.column), (f.parent_table, f.parent_column)))
                .collect(),
            formats: self
                .tables
                .iter()
                .map(|t| t.columns.iter().map(|c| c.rules.format.clone()).collect())
                .collect(),
            text_bounds: Vec::new(),
            layouts: self
                .tables
                .iter()
                .map(|t| t.columns.iter().map(|c| self.layout_of(c)).collect())
                .collect(),
            gold_texts: Vec::new(),
        }
    }

    /// A column's samples and wider values where the profile found one layout of digit runs
    /// in two samples or more ([`ColumnFacts::layouts`]).
    fn layout_of(&self, c: &Column) -> Option<Vec<String>> {
        let text = |v: &rusqlite::types::Value| match v {
            rusqlite::types::Value::Text(s) => Some(s.clone()),
            _ => None,
        };
        (c.layout && c.original.len() > 1)
            .then(|| c.original.iter().chain(&c.wider).filter_map(text).collect())
    }

    /// `(table, column)` positions of `Table.column` (names compared case-insensitively).
    fn locate(&self, name: &str) -> Option<(usize, usize)> {
        self.tables.iter().enumerate().find_map(|(ti, t)| {
            let rest = name
                .get(..t.name.len())
                .filter(|p| p.eq_ignore_ascii_case(&t.name))?;
            let column = name[rest.len()..].strip_prefix('.')?;
            let ci = t
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(column))?;
            Some((ti, ci))
        })
    }

    /// Generates within `constraints` from now on: column rules, non-empty tables, and which
    /// references are enforced (a reference the schema does not know yet is added). `origin`
    /// names the constraints in errors (a table or column they name must exist).
    pub fn with_constraints(
        mut self,
        constraints: &Constraints,
        origin: &str,
    ) -> Result<SuiteSchema, SuiteError> {
        let bad = |message: String| SuiteError::Schema {
            db_id: self.db_id.clone(),
            message: format!("{origin}: {message}"),
        };
        for (name, rules) in &constraints.tables {
            let t = self
                .tables
                .iter_mut()
                .find(|t| t.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| bad(format!("no table {name:?}")))?;
            t.non_empty = rules.non_empty == Some(true);
        }
        for (name, rules) in &constraints.columns {
            let (t, c) = self
                .locate(name)
                .ok_or_else(|| bad(format!("no column {name:?} (write \"Table.column\")")))?;
            self.tables[t].columns[c].rules = rules.clone();
        }
        for r in &constraints.references {
            let (t, c) = self
                .locate(&r.from)
                .ok_or_else(|| bad(format!("reference from {:?}: no such column", r.from)))?;
            let (pt, pc) = self
                .locate(&r.to)
                .ok_or_else(|| bad(format!("reference to {:?}: no such column", r.to)))?;
            match self
                .foreign_keys
                .iter_mut()
                .find(|f| (f.table, f.column, f.parent_table, f.parent_column) == (t, c, pt, pc))
            {
                Some(f) => f.enforced = r.enforce,
                None => self.foreign_keys.push(ForeignKey {
                    table: t,
                    column: c,
                    parent_table: pt,
                    parent_column: pc,
                    source: r.source,
                    enforced: r.enforce,
                }),
            }
        }
        self.order = topological_order(&self);
        Ok(self)
    }

    /// Tables and their column names, for neighbor generation.
    pub fn table_columns(&self) -> Vec<(String, Vec<String>)> {
        self.tables
            .iter()
            .map(|t| {
                (
                    t.name.clone(),
                    t.columns.iter().map(|c| c.name.clone()).collect(),
                )
            })
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small schema of the academic (MAS) dataset: authors, journals, publications and who
    /// wrote them (no foreign keys), the fixture of the witness's and the generator's tests.
    pub(crate) fn academic() -> SuiteSchema {
        let col = |name: &str, kind| Column {
            name: name.into(),
            kind,
            original: Vec::new(),
            wider: Vec::new(),
            layout: false,
            not_null: false,
            rules: Default::default(),
        };
        let table = |name: &str, columns: Vec<Column>, primary_key: Vec<usize>| Table {
            name: name.into(),
            columns,
            primary_key,
            non_empty: false,
        };
        SuiteSchema {
            db_id: "academic".into(),
            tables: vec![
                table(
                    "AUTHOR",
                    vec![col("AID", ColumnKind::Int), col("NAME", ColumnKind::Text)],
                    vec![0],
                ),
                table(
                    "JOURNAL",
                    vec![col("JID", ColumnKind::Int), col("NAME", ColumnKind::Text)],
                    vec![0],
                ),
                table(
                    "PUBLICATION",
                    vec![
                        col("PID", ColumnKind::Int),
                        col("TITLE", ColumnKind::Text),
                        col("JID", ColumnKind::Int),
                        col("YEAR", ColumnKind::Int),
                    ],
                    vec![0],
                ),
                table(
                    "WRITES",
                    vec![col("AID", ColumnKind::Int), col("PID", ColumnKind::Int)],
                    vec![0, 1],
                ),
            ],
            foreign_keys: Vec::new(),
            ddl: vec![
                "CREATE TABLE AUTHOR (AID INTEGER PRIMARY KEY, NAME TEXT)".into(),
                "CREATE TABLE JOURNAL (JID INTEGER PRIMARY KEY, NAME TEXT)".into(),
                "CREATE TABLE PUBLICATION (PID INTEGER PRIMARY KEY, TITLE TEXT, JID INTEGER, YEAR INTEGER)".into(),
                "CREATE TABLE WRITES (AID INTEGER, PID INTEGER, PRIMARY KEY (AID, PID))".into(),
            ],
            order: vec![0, 1, 2, 3],
            profiled: false,
        }
    }

    /// Found while writing the reader fuzzing: an entry without `column_types` (or naming a table that
    /// does not exist) was an error naming the `db_id` only, not the file.
    #[test]
    fn a_bad_entry_is_an_error_naming_the_file_and_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tables.json");
        std::fs::write(
            &path,
            r#"[{"db_id": "x", "table_names_original": ["t"], "column_names_original": [[0, "a"]]}]"#,
        )
        .unwrap();
        let e = read_tables_json(&path).unwrap_err().to_string();
        assert!(e.starts_with(&path.display().to_string()), "{e}");
        assert!(e.contains("entry 0 (db_id \"x\"): no column_types"), "{e}");
    }

    #[test]
    fn reads_keys_and_orders_parents_first() {
        let json = r#"[{"db_id": "x",
            "table_names_original": ["child", "parent"],
            "column_names_original": [[-1, "*"], [0, "id"], [0, "parent_id"], [1, "id"], [1, "score"]],
            "column_types": ["text", "number", "number", "number", "number"],
            "primary_keys": [1, 3],
            "foreign_keys": [[2, 3]]}]"#;
        let raw = tables::parse(json).unwrap();
        let s = from_raw(raw.into_iter().next().unwrap()).unwrap();
        assert_eq!(s.order, vec![1, 0]);
        assert_eq!(s.foreign_keys[0].parent_table, 1);
        assert_eq!(s.tables[0].primary_key, vec![0]);
        assert!(s.ddl[0].starts_with("CREATE TABLE \"child\""));
    }

    #[test]
    fn a_key_joined_to_a_referencing_column_references_its_parent_too() {
        let mut schema = academic();
        // WRITES.PID references PUBLICATION.PID; a gold joins it to JOURNAL.JID (as IMDB's
        // golds join MADE_BY.MSID, which references COPYRIGHT.MSID, to TV_SERIES.SID).
        schema.foreign_keys.push(ForeignKey {
            table: 3,
            column: 1,
            parent_table: 2,
            parent_column: 0,
            source: ReferenceOrigin::Declared,
            enforced: true,
        });
        let gold = "SELECT JOURNAL.NAME FROM JOURNAL, WRITES WHERE WRITES.PID = JOURNAL.JID";
        let s = schema.with_joins([gold]);
        let edges: Vec<_> = s
            .foreign_keys
            .iter()
            .map(|f| {
                (
                    (f.table, f.column),
                    (f.parent_table, f.parent_column),
                    f.enforced,
                )
            })
            .collect();
        assert!(edges.contains(&((3, 1), (1, 0), false)), "{edges:?}");
        assert!(edges.contains(&((1, 0), (2, 0), false)), "{edges:?}");
        let at = |t: usize| s.order.iter().position(|&x| x == t).unwrap();
        assert!(at(2) < at(1) && at(1) < at(3), "{:?}", s.order);
    }
}
