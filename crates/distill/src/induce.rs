//! Constraints induced from a schema (keys, declared foreign keys, the golds' joins), from
//! the golds themselves and from the original database when there is one
//! (`spec/test_suite.md`, "Constraints"): a column that holds no NULL is NOT NULL, one whose
//! values are distinct is unique, a join column whose values all occur in the joined key
//! references it, a text column's letter case and character classes, small enumerations,
//! numeric ranges, date formats, non-empty tables. Also the golds' comparisons natural data
//! never satisfies ([`unmatched_constants`]).
//!
//! It builds on the schema ([`super::schema`]) and writes the vocabulary of
//! [`super::constraints`], which the schema itself reads.

use std::path::Path;

use rusqlite::types::Value;
use rusqlite::Connection;

use super::constraints::{
    Case, Chars, ColumnRules, Constraints, Reference, ReferenceOrigin, TableRules,
};
use super::schema::{ColumnKind, SuiteSchema};
use super::SuiteError;
use sqlsuite::backend::sqlite::quote_identifier as ident;

/// A column whose values are all distinct is unique if it has at least this many, …
const UNIQUE_MIN_ROWS: i64 = 20;

/// At most this many distinct values make a text column an enumeration ...
const ENUM_MAX_VALUES: usize = 10;
/// ... when it has at least this many rows per distinct value.
const ENUM_ROWS_PER_VALUE: usize = 2;

/// Date and time layouts recognised in text columns, with the GLOB pattern that matches them.
const DATE_FORMATS: &[(&str, &str)] = &[
    (
        "%Y-%m-%d %H:%M:%S",
        "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]",
    ),
    (
        "%Y-%m-%dT%H:%M:%S",
        "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]",
    ),
    (
        "%Y-%m-%d %H:%M",
        "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]",
    ),
    ("%Y-%m-%d", "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"),
    ("%Y/%m/%d", "[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]"),
    ("%m/%d/%Y", "[0-9][0-9]/[0-9][0-9]/[0-9][0-9][0-9][0-9]"),
    ("%H:%M:%S", "[0-9][0-9]:[0-9][0-9]:[0-9][0-9]"),
];

fn to_toml_value(v: &Value) -> Option<toml::Value> {
    match v {
        Value::Text(s) => Some(toml::Value::String(s.clone())),
        Value::Integer(n) => Some(toml::Value::Integer(*n)),
        Value::Real(x) if x.is_finite() => Some(toml::Value::Float(*x)),
        _ => None,
    }
}

/// Column statistics read from the original database.
#[derive(Debug)]
struct Stats {
    rows: i64,
    non_null: i64,
    distinct: i64,
    texts: i64,
    numbers: i64,
    text_distinct: i64,
    text_distinct_folded: i64,
    has_upper: i64,
    has_lower: i64,
    not_capitalized: i64,
    not_digits: i64,
    not_letters: i64,
    not_alphanumeric: i64,
    min_len: Option<i64>,
    max_len: Option<i64>,
    min_num: Value,
    max_num: Value,
    fractional: i64,
    min_text: Option<String>,
    max_text: Option<String>,
}

fn column_stats(conn: &Connection, table: &str, column: &str) -> rusqlite::Result<Stats> {
    let c = ident(column);
    let text = format!("typeof({c}) = 'text'");
    let num = format!("typeof({c}) IN ('integer', 'real')");
    let sql = format!(
        "SELECT count(*), count({c}), count(DISTINCT {c}), \
         total({text}), total({num}), \
         count(DISTINCT CASE WHEN {text} THEN {c} END), \
         count(DISTINCT CASE WHEN {text} THEN lower({c}) END), \
         total({text} AND {c} <> lower({c})), total({text} AND {c} <> upper({c})), \
         total({text} AND NOT ({c} GLOB '[A-Z]*')), \
         total({text} AND {c} GLOB '*[^0-9]*'), \
         total({text} AND {c} GLOB '*[^A-Za-z ]*'), \
         total({text} AND {c} GLOB '*[^A-Za-z0-9 ]*'), \
         min(CASE WHEN {text} THEN length({c}) END), max(CASE WHEN {text} THEN length({c}) END), \
         min(CASE WHEN {num} THEN {c} END), max(CASE WHEN {num} THEN {c} END), \
         total(typeof({c}) = 'real' AND {c} <> CAST({c} AS INTEGER)), \
         min(CASE WHEN {text} THEN {c} END), max(CASE WHEN {text} THEN {c} END) \
         FROM {}",
        ident(table)
    );
    conn.query_row(&sql, [], |r| {
        let f = |i: usize| -> rusqlite::Result<i64> { Ok(r.get::<_, f64>(i)? as i64) };
        Ok(Stats {
            rows: r.get(0)?,
            non_null: r.get(1)?,
            distinct: r.get(2)?,
            texts: f(3)?,
            numbers: f(4)?,
            text_distinct: r.get(5)?,
            text_distinct_folded: r.get(6)?,
            has_upper: f(7)?,
            has_lower: f(8)?,
            not_capitalized: f(9)?,
            not_digits: f(10)?,
            not_letters: f(11)?,
            not_alphanumeric: f(12)?,
            min_len: r.get(13)?,
            max_len: r.get(14)?,
            min_num: r.get(15)?,
            max_num: r.get(16)?,
            fractional: f(17)?,
            min_text: r.get(18)?,
            max_text: r.get(19)?,
        })
    })
}

/// The date layout every text value of the column has, if any.
fn date_format(conn: &Connection, table: &str, column: &str) -> Option<&'static str> {
    let c = ident(column);
    DATE_FORMATS.iter().find_map(|(format, glob)| {
        let sql = format!(
            "SELECT count(*) FROM {} WHERE typeof({c}) = 'text' AND NOT ({c} GLOB '{glob}')",
            ident(table)
        );
        let off: i64 = conn.query_row(&sql, [], |r| r.get(0)).ok()?;
        (off == 0).then_some(*format)
    })
}

/// Distinct text values of a column, sorted.
fn text_values(conn: &Connection, table: &str, column: &str) -> Vec<String> {
    let c = ident(column);
    let sql = format!(
        "SELECT DISTINCT {c} FROM {} WHERE typeof({c}) = 'text' ORDER BY 1",
        ident(table)
    );
    conn.prepare(&sql)
        .and_then(|mut s| s.query_map([], |r| r.get::<_, String>(0))?.collect())
        .unwrap_or_default()
}

/// Digits after the decimal point in the column's sampled reals (at most 4).
fn decimals(values: &[Value]) -> u32 {
    values
        .iter()
        .filter_map(|v| match v {
            Value::Real(x) => {
                let s = format!("{x}");
                Some(s.split_once('.').map_or(0, |(_, d)| d.len() as u32))
            }
            _ => None,
        })
        .max()
        .unwrap_or(1)
        .min(4)
}

/// `count` rows of `from` whose value does not occur in `to` (both `(table, column)`), and how
/// many non-NULL values `from` has.
fn dangling(
    conn: &Connection,
    from: (&str, &str),
    to: (&str, &str),
) -> rusqlite::Result<(i64, i64)> {
    let sql = format!(
        "SELECT total({c} NOT IN (SELECT {p} FROM {pt} WHERE {p} IS NOT NULL)), count({c}) FROM {t}",
        c = ident(from.1),
        t = ident(from.0),
        p = ident(to.1),
        pt = ident(to.0),
    );
    conn.query_row(&sql, [], |r| Ok((r.get::<_, f64>(0)? as i64, r.get(1)?)))
}

/// … or if its name says it identifies something (`name`, `title`, `code`, `…_id`, e-mail and
/// phone numbers, or the table's own name: `airlines.Airline`; not a person's first, middle or
/// last name), or if it holds real numbers with fractions (measurements, where ties are
/// accidents), or if a gold ranks by it ([`ranked_by_golds`]).
fn names_an_identifier(table: &str, column: &str) -> bool {
    let n = column
        .to_ascii_lowercase()
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .to_owned();
    let singular = |w: &str| w.strip_suffix('s').unwrap_or(w).to_owned();
    let table = table.to_ascii_lowercase();
    if table.split('_').any(|w| singular(w) == singular(&n)) {
        return true;
    }
    let person = ["first", "middle", "last", "given", "family", "f", "l", "m"]
        .iter()
        .any(|p| n == format!("{p}name") || n == format!("{p}_name"));
    let suffixes = [
        "name",
        "title",
        "code",
        "id",
        "abbreviation",
        "email",
        "email_address",
        "phone",
        "phone_number",
        "cell_number",
        "ssn",
    ];
    !person && suffixes.iter().any(|s| n.ends_with(s))
}

/// Columns that some gold, reading one table only, groups by: the question presupposes that
/// their values repeat. `(table, column)` positions. (`DISTINCT x` and `count(DISTINCT x)`
/// are no such evidence: Spider's golds add them where nothing repeats.)
fn repeated_by_golds<'a>(
    schema: &SuiteSchema,
    golds: impl IntoIterator<Item = &'a str>,
) -> Vec<(usize, usize)> {
    use sqlsuite::sql_tokens::{tokenize, TokenKind};
    let mut out = Vec::new();
    for gold in golds {
        let toks = tokenize(gold);
        let mut tables: Vec<usize> = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            let after = i > 0 && (toks[i - 1].is_word("from") || toks[i - 1].is_word("join"));
            if !after || t.kind != TokenKind::Word {
                continue;
            }
            if let Some(k) = schema
                .tables
                .iter()
                .position(|x| x.name.eq_ignore_ascii_case(&t.text))
            {
                if !tables.contains(&k) {
                    tables.push(k);
                }
            }
        }
        let [table] = tables[..] else { continue };
        let column = |i: usize| -> Option<usize> {
            let t = toks.get(i)?;
            let t = if toks.get(i + 1).is_some_and(|d| d.is_symbol(".")) {
                toks.get(i + 2)?
            } else {
                t
            };
            schema.tables[table]
                .columns
                .iter()
                .position(|c| t.kind == TokenKind::Word && c.name.eq_ignore_ascii_case(&t.text))
        };
        for i in 0..toks.len() {
            let at = if toks[i].is_word("group") && toks.get(i + 1).is_some_and(|b| b.is_word("by"))
            {
                Some(i + 2)
            } else {
                None
            };
            if let Some(c) = at.and_then(column) {
                if !out.contains(&(table, c)) {
                    out.push((table, c));
                }
            }
        }
    }
    out
}

/// Columns some gold ranks by — sorts by (`ORDER BY x`) or takes the extreme of (`max(x)`,
/// `min(x)`) — among the tables it reads: a superlative question presupposes one answer, so
/// where the original's values are distinct they stay so (no ties at the top). `(table, column)`.
fn ranked_by_golds<'a>(
    schema: &SuiteSchema,
    golds: impl IntoIterator<Item = &'a str>,
) -> Vec<(usize, usize)> {
    use sqlsuite::sql_tokens::{tokenize, TokenKind};
    let mut out = Vec::new();
    for gold in golds {
        let toks = tokenize(gold);
        let tables: Vec<usize> = toks
            .iter()
            .enumerate()
            .filter(|(i, _)| *i > 0 && (toks[i - 1].is_word("from") || toks[i - 1].is_word("join")))
            .filter_map(|(_, t)| {
                schema
                    .tables
                    .iter()
                    .position(|x| x.name.eq_ignore_ascii_case(&t.text))
            })
            .collect();
        let mut ranked = |name: &str| {
            for &k in &tables {
                if let Some(c) = schema.tables[k]
                    .columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(name))
                {
                    if !out.contains(&(k, c)) {
                        out.push((k, c));
                    }
                }
            }
        };
        // The column at token `i`, past a qualifier `T1.`.
        let column_at = |i: usize| -> Option<&str> {
            let t = toks.get(i)?;
            let t = if toks.get(i + 1).is_some_and(|d| d.is_symbol(".")) {
                toks.get(i + 2)?
            } else {
                t
            };
            (t.kind == TokenKind::Word).then_some(t.text.as_str())
        };
        for i in 0..toks.len() {
            let after_order_by =
                i >= 2 && toks[i - 2].is_word("order") && toks[i - 1].is_word("by");
            let in_extremum = i >= 2
                && toks[i - 1].is_symbol("(")
                && (toks[i - 2].is_word("max") || toks[i - 2].is_word("min"));
            if after_order_by || in_extremum {
                if let Some(name) = column_at(i) {
                    ranked(name);
                }
            }
        }
    }
    out
}

/// Induces the constraints of `schema` from its keys and declared foreign keys, the joins it
/// carries from the golds (see [`SuiteSchema::with_joins`]), the golds themselves (a column
/// they group one table by is not unique) and, when there is one, the original database's
/// data.
pub fn induce<'a>(
    schema: &SuiteSchema,
    original: Option<&Path>,
    golds: impl IntoIterator<Item = &'a str>,
) -> Result<Constraints, SuiteError> {
    let golds: Vec<&str> = golds.into_iter().collect();
    let conn = match original {
        Some(path) => {
            Some(
                super::schema::open_original(path).map_err(|e| SuiteError::Database {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                })?,
            )
        }
        None => None,
    };
    let induction = Induction {
        schema,
        conn: conn.as_ref(),
        repeated: repeated_by_golds(schema, golds.iter().copied()),
        ranked: ranked_by_golds(schema, golds.iter().copied()),
    };
    let mut out = Constraints::default();
    for (ti, t) in schema.tables.iter().enumerate() {
        if super::schema::is_internal(&t.name) || t.columns.is_empty() {
            continue;
        }
        let rows = induction.rows(&t.name);
        out.tables.insert(
            t.name.clone(),
            TableRules {
                non_empty: Some(rows.is_none_or(|n| n > 0)),
            },
        );
        for ci in 0..t.columns.len() {
            out.columns
                .insert(induction.name(ti, ci), induction.column_rules(ti, ci, rows));
        }
    }
    induction.add_references(&mut out);
    Ok(out)
}

/// What induction reads: the schema, its original database if any, and the columns the golds
/// group one table by ([`repeated_by_golds`]) or rank by ([`ranked_by_golds`]).
struct Induction<'s> {
    schema: &'s SuiteSchema,
    conn: Option<&'s Connection>,
    repeated: Vec<(usize, usize)>,
    ranked: Vec<(usize, usize)>,
}

impl Induction<'_> {
    /// `Table.column`, as the constraints name a column.
    fn name(&self, t: usize, c: usize) -> String {
        let table = &self.schema.tables[t];
        format!("{}.{}", table.name, table.columns[c].name)
    }

    /// The original's row count of `table`, if there is an original.
    fn rows(&self, table: &str) -> Option<i64> {
        self.conn.and_then(|conn| {
            conn.query_row(&format!("SELECT count(*) FROM {}", ident(table)), [], |r| {
                r.get::<_, i64>(0)
            })
            .ok()
        })
    }

    /// A declared foreign key goes from column `c` of table `t`.
    fn declared_child(&self, t: usize, c: usize) -> bool {
        self.schema
            .foreign_keys
            .iter()
            .any(|f| f.table == t && f.column == c && f.source == ReferenceOrigin::Declared)
    }

    /// Column `c` of table `t` references another table: it is many-to-one unless it is its
    /// table's key (distinct values in the original are a small table's accident).
    fn references(&self, t: usize, c: usize) -> bool {
        self.schema
            .foreign_keys
            .iter()
            .any(|f| f.table == t && f.column == c && f.parent_table != t)
    }

    /// The rules of column `ci` of table `ti`, whose table has `rows` rows in the original:
    /// from the original's data where it has rows, else from the schema alone.
    fn column_rules(&self, ti: usize, ci: usize, rows: Option<i64>) -> ColumnRules {
        let (t, c) = (&self.schema.tables[ti], &self.schema.tables[ti].columns[ci]);
        let stats = self
            .conn
            .filter(|_| rows.is_some_and(|n| n > 0))
            .and_then(|conn| column_stats(conn, &t.name, &c.name).ok().map(|s| (conn, s)));
        match stats {
            Some((conn, s)) => self.rules_from_data(conn, ti, ci, &s),
            None => self.rules_without_data(ti, ci),
        }
    }

    /// No data: keys and foreign keys are never NULL, keys are unique.
    fn rules_without_data(&self, ti: usize, ci: usize) -> ColumnRules {
        let (t, c) = (&self.schema.tables[ti], &self.schema.tables[ti].columns[ci]);
        let key = t.primary_key.contains(&ci);
        let single_key = t.primary_key == [ci];
        let mut r = ColumnRules {
            not_null: Some(key || c.not_null || self.declared_child(ti, ci)),
            unique: Some(single_key),
            ..ColumnRules::default()
        };
        if matches!(c.kind, ColumnKind::Text | ColumnKind::Time) {
            r.case_distinct = Some(true);
        }
        if self.ranked.contains(&(ti, ci)) && !single_key {
            r.spread = Some(true);
        }
        r
    }

    /// The rules the original's data `s` shows: NOT NULL, unique (with evidence beyond
    /// distinct values), then a text column's or a numeric column's domain.
    fn rules_from_data(&self, conn: &Connection, ti: usize, ci: usize, s: &Stats) -> ColumnRules {
        let (t, c) = (&self.schema.tables[ti], &self.schema.tables[ti].columns[ci]);
        let key = t.primary_key.contains(&ci);
        let single_key = t.primary_key == [ci];
        let mut r = ColumnRules {
            not_null: Some(key || c.not_null || s.non_null == s.rows),
            ..ColumnRules::default()
        };
        let distinct = s.non_null >= 2 && s.distinct == s.non_null;
        let evidence = s.non_null >= UNIQUE_MIN_ROWS
            || names_an_identifier(&t.name, &c.name)
            || (s.fractional > 0 && s.texts == 0)
            || self.ranked.contains(&(ti, ci));
        r.unique = Some(
            single_key
                || (distinct
                    && evidence
                    && !self.repeated.contains(&(ti, ci))
                    && !self.references(ti, ci)),
        );
        if s.texts > 0 && s.numbers == 0 {
            text_rules(&mut r, conn, (&t.name, &c.name), s);
        } else if s.numbers > 0 && s.texts == 0 {
            // An identifier's values carry no range: a key numbered 1..12 in the original is
            // as natural numbered otherwise, and keys of two tables that both count from 1
            // hide a join on the wrong key pair.
            if !(single_key && s.fractional == 0) {
                r.min = to_toml_value(&s.min_num);
                r.max = to_toml_value(&s.max_num);
            }
            r.integer = Some(s.fractional == 0);
            if c.kind == ColumnKind::Real && s.fractional > 0 {
                r.decimals = Some(decimals(&c.original));
            }
        }
        if self.ranked.contains(&(ti, ci)) && !r.is_unique() && r.values.is_none() {
            r.spread = Some(true);
        }
        r
    }

    /// References: declared foreign keys always; the golds' joins and same-named key columns
    /// where the original's data shows the inclusion (or, without an original, the golds'
    /// joins). A join the golds make that dangles in the original is listed, not enforced.
    fn add_references(&self, out: &mut Constraints) {
        for (t, c, pt, pc, source) in self.reference_candidates() {
            let from = self.name(t, c);
            let to = self.name(pt, pc);
            let Some(enforce) = self.enforced(source, (t, c), (pt, pc)) else {
                continue;
            };
            let source = match (source, self.conn) {
                (ReferenceOrigin::Golds, Some(_)) if enforce => ReferenceOrigin::Data,
                (s, _) => s,
            };
            if enforce {
                // A reference is never NULL unless the original says it may be.
                if let Some(r) = out.columns.get_mut(&from) {
                    if self.conn.is_none() {
                        r.not_null = Some(true);
                    }
                }
            }
            out.references.push(Reference {
                from,
                to,
                enforce,
                source,
            });
        }
    }

    /// The schema's foreign keys, and with an original, every column named as another
    /// table's single-column key that is not linked to it yet, as `(table, column, parent
    /// table, parent column, origin)`.
    fn reference_candidates(&self) -> Vec<(usize, usize, usize, usize, ReferenceOrigin)> {
        let schema = self.schema;
        let mut candidates: Vec<(usize, usize, usize, usize, ReferenceOrigin)> = schema
            .foreign_keys
            .iter()
            .map(|f| (f.table, f.column, f.parent_table, f.parent_column, f.source))
            .collect();
        if self.conn.is_none() {
            return candidates;
        }
        for (pt, p) in schema.tables.iter().enumerate() {
            let [pk] = p.primary_key[..] else { continue };
            let key_name = &p.columns[pk].name;
            for (ct, c) in schema.tables.iter().enumerate() {
                if ct == pt {
                    continue;
                }
                for (cc, col) in c.columns.iter().enumerate() {
                    let known = candidates.iter().any(|&(a, b, x, y, _)| {
                        ((a, b) == (ct, cc) && (x, y) == (pt, pk))
                            || ((a, b) == (pt, pk) && (x, y) == (ct, cc))
                    });
                    if col.name.eq_ignore_ascii_case(key_name) && !known {
                        candidates.push((ct, cc, pt, pk, ReferenceOrigin::Data));
                    }
                }
            }
        }
        candidates
    }

    /// Whether a candidate reference from `(t, c)` to `(pt, pc)` is enforced, listed but not
    /// enforced, or (`None`) left out: a declared one, or any without an original, is
    /// enforced; else the original's data decides.
    fn enforced(
        &self,
        source: ReferenceOrigin,
        (t, c): (usize, usize),
        (pt, pc): (usize, usize),
    ) -> Option<bool> {
        let tables = &self.schema.tables;
        match (source, self.conn) {
            (ReferenceOrigin::Declared, _) => Some(true),
            (_, None) => Some(true),
            (_, Some(conn)) => {
                let ok = dangling(
                    conn,
                    (&tables[t].name, &tables[t].columns[c].name),
                    (&tables[pt].name, &tables[pt].columns[pc].name),
                );
                match ok {
                    Ok((0, n)) if n > 0 => Some(true),
                    // A join the golds make that dangles in the original: listed, not enforced.
                    Ok(_) if source == ReferenceOrigin::Golds => Some(false),
                    _ => None,
                }
            }
        }
    }
}

/// A text column's rules from the original's data `s` (`(table, column)` named): letter case
/// distinctness, and a date format with its range, or the letter case, the characters, the
/// lengths and a small enumeration.
fn text_rules(r: &mut ColumnRules, conn: &Connection, (table, column): (&str, &str), s: &Stats) {
    r.case_distinct = Some(s.text_distinct == s.text_distinct_folded);
    if let Some(format) = date_format(conn, table, column) {
        r.format = Some(format.to_owned());
        r.min = s.min_text.clone().map(toml::Value::String);
        r.max = s.max_text.clone().map(toml::Value::String);
        return;
    }
    r.case = Some(if s.has_lower == 0 && s.has_upper == 0 {
        Case::Any
    } else if s.has_upper == 0 {
        Case::Lower
    } else if s.has_lower == 0 {
        Case::Upper
    } else if s.not_capitalized == 0 {
        Case::Capitalized
    } else {
        Case::Any
    });
    r.chars = Some(if s.not_digits == 0 {
        Chars::Digits
    } else if s.not_letters == 0 {
        Chars::Letters
    } else if s.not_alphanumeric == 0 {
        Chars::Alphanumeric
    } else {
        Chars::Any
    });
    if let (Some(lo), Some(hi)) = (s.min_len, s.max_len) {
        r.length = Some([lo.max(0) as u32, hi.max(0) as u32]);
    }
    let distinct = s.text_distinct as usize;
    if (2..=ENUM_MAX_VALUES).contains(&distinct)
        && s.texts as usize >= ENUM_ROWS_PER_VALUE * distinct
        && !r.is_unique()
    {
        r.values = Some(
            text_values(conn, table, column)
                .into_iter()
                .map(toml::Value::String)
                .collect(),
        );
    }
}

/// The comparisons of `gold` that natural data never satisfies: `col = 'english'` (or `!=`)
/// where `col`'s values never differ only in letter case and the original spells the value
/// otherwise ('English') and never as the gold does. On natural databases such a comparison is
/// constant (as on the original), and so is much of the gold: its neighbors that edit around it
/// cannot be told apart. One message per comparison.
pub fn unmatched_constants(original: &Connection, schema: &SuiteSchema, gold: &str) -> Vec<String> {
    use sqlsuite::sql_tokens::{tokenize, TokenKind};
    let toks = tokenize(gold);
    let mut out = Vec::new();
    for i in 2..toks.len() {
        let (column, op, constant) = (&toks[i - 2], &toks[i - 1], &toks[i]);
        let Some(value) = constant.string_content() else {
            continue;
        };
        if column.kind != TokenKind::Word
            || !matches!(op.text.as_str(), "=" | "==" | "!=" | "<>")
            || value.contains('%')
        {
            continue;
        }
        let mut spelled = None;
        let mut exact = false;
        for t in &schema.tables {
            for c in t
                .columns
                .iter()
                .filter(|c| c.name.eq_ignore_ascii_case(&column.text) && c.rules.is_case_distinct())
            {
                let q = format!(
                    "SELECT sum({c} = ?1), min(CASE WHEN lower({c}) = lower(?1) THEN {c} END) FROM {t}",
                    c = ident(&c.name),
                    t = ident(&t.name)
                );
                let Ok((same, other)) = original.query_row(&q, [&value], |r| {
                    Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<String>>(1)?))
                }) else {
                    continue;
                };
                exact |= same.unwrap_or(0) > 0;
                if spelled.is_none() {
                    spelled = other.map(|o| (o, format!("{}.{}", t.name, c.name)));
                }
            }
        }
        if let (false, Some((other, at))) = (exact, spelled) {
            out.push(format!(
                "{} {} {}: the data spells it {other:?} ({at}), so on natural databases this \
                 comparison never holds",
                column.text, op.text, constant.text
            ));
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An original database and its schema: owners (a declared key, identifier-like and other
    /// columns) and pets joined to them by a gold (no declared foreign key).
    pub(crate) const ORIGINAL: &str = "
        CREATE TABLE owner (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, code TEXT,
                            joined TEXT, score REAL, nickname TEXT);
        INSERT INTO owner VALUES
          (1, 'Ann', 'Paris', 'AB1', '2001-02-03', 1.5, 'annie'),
          (2, 'Bob', 'Rome', 'CD2', '2002-03-04', 2.25, NULL),
          (3, 'Cid', 'Oslo', 'EF3', '2003-04-05', 3.75, 'cid'),
          (4, 'Dee', 'Lima', 'GH4', '2004-05-06', 4.5, 'dee');
        CREATE TABLE pet (pet_id INTEGER PRIMARY KEY, owner_id INTEGER, kind TEXT, age INTEGER);
        INSERT INTO pet VALUES (10, 1, 'cat', 3), (11, 2, 'dog', 4), (12, 3, 'cat', 5),
                               (13, 4, 'dog', 6), (14, 1, 'cat', 7), (15, 2, 'cat', 8);
        CREATE TABLE vet (vet_id INTEGER PRIMARY KEY, name TEXT);";

    pub(crate) const TABLES: &str = r#"[{"db_id": "zoo",
        "table_names_original": ["owner", "pet", "vet"],
        "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "city"], [0, "code"],
            [0, "joined"], [0, "score"], [0, "nickname"], [1, "pet_id"], [1, "owner_id"],
            [1, "kind"], [1, "age"], [2, "vet_id"], [2, "name"]],
        "column_types": ["text", "number", "text", "text", "text", "time", "number", "text",
            "number", "number", "text", "number", "number", "text"],
        "primary_keys": [1, 8, 12], "foreign_keys": []}]"#;

    pub(crate) const GOLDS: &[&str] = &[
        "SELECT T2.name FROM pet AS T1 JOIN owner AS T2 ON T1.owner_id = T2.id WHERE T1.kind = 'cat'",
        "SELECT code, count(*) FROM owner GROUP BY code",
        "SELECT name FROM owner WHERE city = 'paris'",
        "SELECT name FROM owner WHERE city = 'Lyon'",
        "SELECT count(*) FROM owner WHERE city = 'lyon'",
        "SELECT kind FROM pet ORDER BY age DESC LIMIT 1",
    ];

    /// The example schema with its original, the golds' joins and the induced constraints.
    pub(crate) fn example() -> (tempfile::TempDir, SuiteSchema, Constraints) {
        let dir = tempfile::tempdir().unwrap();
        let original = dir.path().join("zoo.sql");
        std::fs::write(&original, ORIGINAL).unwrap();
        let tables = dir.path().join("tables.json");
        std::fs::write(&tables, TABLES).unwrap();
        let schema = crate::schema::read_tables_json(&tables).unwrap()["zoo"]
            .clone()
            .with_original(&original)
            .unwrap()
            .with_joins(GOLDS.iter().copied());
        let c = induce(&schema, Some(&original), GOLDS.iter().copied()).unwrap();
        let schema = schema.with_constraints(&c, "induced").unwrap();
        (dir, schema, c)
    }

    #[test]
    fn induced_from_the_data_the_schema_and_the_golds() {
        let (_dir, _, c) = example();
        let col = |n: &str| c.columns[n].clone();
        // NOT NULL where the original holds no NULL, keys included.
        assert!(col("owner.city").is_not_null());
        assert!(col("owner.id").is_not_null());
        assert!(!col("owner.nickname").is_not_null());
        // Unique: the key; an identifier-like name; fractional measurements. Not a city (four
        // distinct values are an accident), not a reference, not a column a gold groups by.
        assert!(col("owner.id").is_unique());
        assert!(col("owner.name").is_unique());
        assert!(col("owner.score").is_unique());
        assert!(!col("owner.city").is_unique());
        assert!(!col("pet.owner_id").is_unique());
        assert!(
            !col("owner.code").is_unique(),
            "a gold groups owners by code"
        );
        // Value domains.
        assert_eq!(col("owner.city").case, Some(Case::Capitalized));
        assert_eq!(col("owner.city").chars, Some(Chars::Letters));
        assert_eq!(col("owner.code").chars, Some(Chars::Alphanumeric));
        assert_eq!(col("owner.nickname").case, Some(Case::Lower));
        assert!(col("owner.city").is_case_distinct());
        assert_eq!(col("owner.joined").format.as_deref(), Some("%Y-%m-%d"));
        assert_eq!(
            col("pet.kind").values,
            Some(vec!["cat".into(), "dog".into()]),
            "two values over six rows: an enumeration"
        );
        assert_eq!(col("owner.city").values, None, "four values over four rows");
        assert_eq!(col("pet.age").min, Some(toml::Value::Integer(3)));
        assert_eq!(col("pet.age").integer, Some(true));
        assert_eq!(col("owner.score").integer, Some(false));
        // The gold's join is a reference the data bears; tables with rows stay non-empty.
        assert_eq!(
            c.references,
            vec![Reference {
                from: "pet.owner_id".into(),
                to: "owner.id".into(),
                enforce: true,
                source: ReferenceOrigin::Data,
            }]
        );
        assert_eq!(c.tables["pet"].non_empty, Some(true));
        assert_eq!(c.tables["vet"].non_empty, Some(false));
    }

    #[test]
    fn without_data_keys_and_references_are_not_null() {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path().join("tables.json");
        std::fs::write(&tables, TABLES).unwrap();
        let schema = crate::schema::read_tables_json(&tables).unwrap()["zoo"]
            .clone()
            .with_joins(GOLDS.iter().copied());
        let c = induce(&schema, None, GOLDS.iter().copied()).unwrap();
        assert!(c.columns["pet.owner_id"].is_not_null());
        assert!(!c.columns["owner.city"].is_not_null());
        assert!(c.columns["owner.id"].is_unique());
        assert!(!c.columns["owner.name"].is_unique());
        assert_eq!(c.references[0].source, ReferenceOrigin::Golds);
        assert!(c.references[0].enforce);
        assert_eq!(c.tables["vet"].non_empty, Some(true));
    }

    #[test]
    fn the_written_file_reads_back_and_overrides_merge() {
        let (_dir, schema, mut c) = example();
        let text = c.to_file_text("zoo");
        assert!(text.starts_with("# Constraints"));
        let back: Constraints = toml::from_str(&text).unwrap();
        assert_eq!(back, c);
        let over: Constraints = toml::from_str(
            r#"
            [tables.VET]
            non_empty = true
            [columns."owner.city"]
            unique = true
            [[references]]
            from = "pet.owner_id"
            to = "owner.id"
            enforce = false
            [[references]]
            from = "vet.name"
            to = "owner.name"
            "#,
        )
        .unwrap();
        c.merge(&over);
        assert_eq!(c.tables["vet"].non_empty, Some(true));
        assert!(c.columns["owner.city"].is_unique());
        assert!(c.columns["owner.city"].is_not_null(), "other fields stay");
        assert!(!c.references[0].enforce);
        assert_eq!(c.references[1].source, ReferenceOrigin::Author);
        let s = schema.clone().with_constraints(&c, "zoo.toml").unwrap();
        assert!(s.tables[2].non_empty);
        assert!(s
            .foreign_keys
            .iter()
            .any(|f| (f.table, f.column, f.parent_table, f.enforced) == (2, 1, 0, true)));
        let typo: Constraints = toml::from_str("[columns.\"owner.cty\"]\nunique = true").unwrap();
        let err = schema.with_constraints(&typo, "zoo.toml").unwrap_err();
        assert!(
            err.to_string()
                .contains("zoo.toml: no column \"owner.cty\""),
            "{err}"
        );
        let unknown = toml::from_str::<Constraints>("[columns.\"owner.city\"]\nuniq = true");
        assert!(unknown.unwrap_err().to_string().contains("unknown field"));
    }
}
