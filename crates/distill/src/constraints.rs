//! The constraints random databases are generated within: what makes a database "natural" for
//! a schema, so that queries people judge equivalent stay equivalent on every suite database
//! (`spec/test_suite.md`, "Constraints").
//!
//! They are *induced* from the schema and the original database ([`super::induce`]), written
//! next to the suite as `constraints.toml`, and can be overridden or extended by the dataset's
//! author (the manifest's `[distill] constraints`).
//!
//! The file form: `[tables."T"]` (`non_empty`), `[columns."T.c"]` (every field optional: an
//! override file sets only what it changes) and `[[references]]` (`from = "T.c"`, `to = "P.k"`,
//! `enforce`).
//!
//! This is the vocabulary only (the rules, their TOML form and their merge): it reads no
//! schema, so the schema ([`super::schema`]) can hold its column rules and references, and
//! induction builds on both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::types::Value;
use serde::{Deserialize, Serialize};

use super::SuiteError;

/// A text column's letter case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Case {
    /// No upper-case letter.
    Lower,
    /// No lower-case letter.
    Upper,
    /// Every value starts with an upper-case letter.
    Capitalized,
    /// Anything.
    Any,
}

/// The characters of a text column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Chars {
    /// Digits only (codes, zip codes).
    Digits,
    /// Letters and spaces only.
    Letters,
    /// Letters, digits and spaces.
    Alphanumeric,
    /// Anything.
    Any,
}

/// Rules for one column. Every field is optional so that an override sets only what it changes;
/// absent means "no rule".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnRules {
    /// Never NULL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_null: Option<bool>,
    /// No two rows hold the same (non-NULL) value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unique: Option<bool>,
    /// No two values differ only in letter case (then `= 'Korea'` and `LIKE 'Korea'` agree).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_distinct: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<Case>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chars: Option<Chars>,
    /// Shortest and longest value, in characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<[u32; 2]>,
    /// An enumeration: the only values (besides the golds' own constants for the column).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<toml::Value>>,
    /// Smallest and largest number, or the earliest and latest date (text in `format`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<toml::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<toml::Value>,
    /// Numbers are whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integer: Option<bool>,
    /// Digits after the decimal point of real numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decimals: Option<u32>,
    /// Dates and times: `%Y`, `%m`, `%d`, `%H`, `%M`, `%S` in a fixed layout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Values seldom repeat: a gold ranks by the column (a superlative presupposes one
    /// answer), whose values are not unique. Ties still occur, as in the data, but a
    /// database's values are not drawn from a handful.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<bool>,
}

/// Rules for one table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRules {
    /// At least one row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_empty: Option<bool>,
}

/// Where a reference comes from (its provenance; written as a reference's `source` in the
/// constraints file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReferenceOrigin {
    /// A foreign key the schema declares.
    Declared,
    /// A join the golds make or a same-named key column, whose values the original database
    /// shows all occur in the referenced column.
    Data,
    /// A join the golds make, on a schema without an original database.
    Golds,
    /// Written by the dataset's author.
    Author,
    /// Listed in a published database profile (`[distill] profile`).
    Profile,
}

/// An inclusion dependency: every non-NULL value of `from` occurs in `to`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// `Table.column`.
    pub from: String,
    /// `Table.column`.
    pub to: String,
    /// Generated data respects it. A join the golds make whose values dangle in the original
    /// database is listed with `enforce = false` (references may dangle, as they do there).
    #[serde(default = "yes")]
    pub enforce: bool,
    #[serde(default = "author", skip_serializing_if = "is_author")]
    pub source: ReferenceOrigin,
}

fn yes() -> bool {
    true
}

fn author() -> ReferenceOrigin {
    ReferenceOrigin::Author
}

fn is_author(s: &ReferenceOrigin) -> bool {
    *s == ReferenceOrigin::Author
}

/// The constraints of one schema, in file form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constraints {
    #[serde(default)]
    pub tables: BTreeMap<String, TableRules>,
    #[serde(default)]
    pub columns: BTreeMap<String, ColumnRules>,
    #[serde(default)]
    pub references: Vec<Reference>,
}

impl ColumnRules {
    pub fn is_not_null(&self) -> bool {
        self.not_null == Some(true)
    }

    pub fn is_unique(&self) -> bool {
        self.unique == Some(true)
    }

    pub fn is_case_distinct(&self) -> bool {
        self.case_distinct == Some(true)
    }

    /// Sets every field `over` sets.
    fn merge(&mut self, over: &ColumnRules) {
        macro_rules! take {
            ($($f:ident),*) => {$(
                if over.$f.is_some() {
                    self.$f = over.$f.clone();
                }
            )*};
        }
        take!(
            not_null,
            unique,
            case_distinct,
            case,
            chars,
            length,
            values,
            min,
            max,
            integer,
            decimals,
            format,
            spread
        );
    }

    /// The enumeration as database values.
    pub fn enumeration(&self) -> Option<Vec<Value>> {
        self.values
            .as_ref()
            .map(|vs| vs.iter().filter_map(to_sql_value).collect())
    }
}

/// A TOML literal as a database value (strings, integers, floats, booleans as 0/1).
pub fn to_sql_value(v: &toml::Value) -> Option<Value> {
    match v {
        toml::Value::String(s) => Some(Value::Text(s.clone())),
        toml::Value::Integer(n) => Some(Value::Integer(*n)),
        toml::Value::Float(x) => Some(Value::Real(*x)),
        toml::Value::Boolean(b) => Some(Value::Integer(i64::from(*b))),
        _ => None,
    }
}

impl Constraints {
    /// Overrides: every field, table, column and reference `over` names replaces ours; a
    /// reference is the same when `from` and `to` are (case-insensitively).
    pub fn merge(&mut self, over: &Constraints) {
        for (name, t) in &over.tables {
            let key = find_key(&self.tables, name).unwrap_or_else(|| name.clone());
            let mine = self.tables.entry(key).or_default();
            if t.non_empty.is_some() {
                mine.non_empty = t.non_empty;
            }
        }
        for (name, c) in &over.columns {
            let key = find_key(&self.columns, name).unwrap_or_else(|| name.clone());
            self.columns.entry(key).or_default().merge(c);
        }
        for r in &over.references {
            match self
                .references
                .iter_mut()
                .find(|m| m.from.eq_ignore_ascii_case(&r.from) && m.to.eq_ignore_ascii_case(&r.to))
            {
                Some(m) => m.enforce = r.enforce,
                None => self.references.push(r.clone()),
            }
        }
    }

    /// Reads an override file.
    pub fn read(path: &Path) -> Result<Constraints, SuiteError> {
        let text = std::fs::read_to_string(path).map_err(|error| SuiteError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        toml::from_str(&text).map_err(|e| SuiteError::Constraints {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }

    /// The readable file written next to a suite.
    pub fn to_file_text(&self, db_id: &str) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# Constraints the random databases of {db_id} were generated within: induced from the\n\
             # schema and the original database, merged with the dataset's own (spec/test_suite.md).\n\
             # To change them, copy the entries to change into a file named by the manifest's\n\
             # [distill] constraints and distil again.\n\n{body}"
        )
    }

    /// Counts for the report: (rule, how many).
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        let mut out = BTreeMap::new();
        let mut add = |k: &'static str, yes: bool| {
            if yes {
                *out.entry(k).or_insert(0) += 1;
            }
        };
        for t in self.tables.values() {
            add("non_empty_tables", t.non_empty == Some(true));
        }
        for c in self.columns.values() {
            add("not_null", c.is_not_null());
            add("unique", c.is_unique());
            add("case_distinct", c.is_case_distinct());
            add(
                "case",
                c.case.is_some_and(|k| k != Case::Any) && c.format.is_none(),
            );
            add("chars", c.chars.is_some_and(|k| k != Chars::Any));
            add("enumerations", c.values.is_some());
            add("ranges", c.min.is_some() && c.format.is_none());
            add("date_formats", c.format.is_some());
            add("spread", c.spread == Some(true));
        }
        for r in &self.references {
            add("references", r.enforce);
            add(
                "references_from_data",
                r.enforce && r.source == ReferenceOrigin::Data,
            );
            add("references_not_enforced", !r.enforce);
        }
        out
    }
}

fn find_key<T>(map: &BTreeMap<String, T>, name: &str) -> Option<String> {
    map.keys().find(|k| k.eq_ignore_ascii_case(name)).cloned()
}

/// Where a schema's override file is: the manifest's `[distill] constraints` pattern with
/// `{db_id}` filled in.
pub fn override_path(pattern: &str, db_id: &str) -> PathBuf {
    PathBuf::from(pattern.replace("{db_id}", db_id))
}
