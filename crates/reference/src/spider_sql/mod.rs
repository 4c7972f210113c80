//! Spider **exact set match** (ESM) and **hardness**, reimplemented from the
//! semantics of the official evaluator (`process_sql.py` / `evaluation.py`
//! of the Spider test-suite evaluation).
//!
//! * [`load_schemas`] reads `tables.json` (original table/column names,
//!   lower-cased) and builds the foreign-key canonicalisation map.
//! * [`parse`] turns a query into the reference's nested structure
//!   ([`Sql`]), failing exactly where the reference fails.
//! * [`hardness`] classifies a parsed gold query.
//! * [`exact_match`] scores a prediction against a gold query.
//! * The official per-hardness table is built from verdicts by `report::spider_table`.
//!
//! # Official behaviour reproduced by [`Mode::Official`]
//!
//! * Every substring `value` of the **prediction** is replaced by `1` before
//!   parsing (this happens inside [`exact_match`]; callers must pass the raw
//!   prediction). The gold query is not rewritten.
//! * A prediction that fails to parse is scored as an empty query: it never
//!   matches (every parsable gold query has at least one FROM unit), but its
//!   partial scores are still reported; the error is in
//!   [`EsmOutcome::pred_parse_error`].
//! * Literal values are not compared (except inside FROM sub-queries, which
//!   the reference leaves untouched), `DISTINCT` is ignored at the top level
//!   and in set-operation operands, foreign-key columns are mapped to one
//!   canonical column, JOIN `ON` predicates are not compared, and only the
//!   presence of `LIMIT` is compared, not its value.
//!
//! [`Mode::Strict`] differs in exactly three ways: no `value` substitution,
//! `ON` predicates compared (component `join(on)`, `a = b` ≡ `b = a`), and
//! `LIMIT` values compared (component `limit`).
//!
//! # Notes for callers
//!
//! * Pass each prediction as the reference's `evaluate()` sees it: the line
//!   with surrounding white space removed and cut at the first TAB.
//! * Schemas come from `tables.json` rather than the SQLite files; on every
//!   Spider dev database that has a file the verdicts are identical.
//! * Tokenization follows NLTK's word tokenizer (as of 3.10) applied to the
//!   whole string; Punkt sentence splitting is not reproduced. It only
//!   matters when a word ending in `.` is followed by white space inside the
//!   query, which no Spider dev query or prediction does.
//! * Where the reference crashes instead of scoring (a condition in which a
//!   conjunction takes the place of a comparison), a gold query is an error
//!   and a prediction scores as unparsable. Queries nested deeper than
//!   100 levels are rejected the same way (the reference fails a few
//!   hundred levels deep, at Python's recursion limit; no real query comes
//!   close to either bound).

mod ast;
mod eval;
mod parser;
mod schema;
mod tokenize;

pub use ast::Sql;
pub use eval::COMPONENTS;
pub use schema::{load_schemas, Schema};

use std::fmt;

/// Where and why parsing stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Index of the token at which parsing stopped (`None` when the failure
    /// is not tied to a token position, e.g. unbalanced quotes).
    token_index: Option<usize>,
    /// Text of that token, when there is one.
    token: Option<String>,
    /// What went wrong.
    message: String,
}

impl ParseError {
    /// Builds an error.
    fn new(token_index: Option<usize>, token: Option<String>, message: impl Into<String>) -> Self {
        ParseError {
            token_index,
            token,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.token_index, &self.token) {
            (Some(i), Some(t)) => write!(f, "{} at token {i} `{t}`", self.message),
            (Some(i), None) => write!(f, "{} at token {i} (end of input)", self.message),
            (None, Some(t)) => write!(f, "{} (`{t}`)", self.message),
            (None, None) => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// Spider hardness levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hardness {
    /// `easy`
    Easy,
    /// `medium`
    Medium,
    /// `hard`
    Hard,
    /// `extra`
    Extra,
}

impl Hardness {
    /// The reference's name: `easy`, `medium`, `hard` or `extra`.
    pub fn as_str(self) -> &'static str {
        match self {
            Hardness::Easy => "easy",
            Hardness::Medium => "medium",
            Hardness::Hard => "hard",
            Hardness::Extra => "extra",
        }
    }
}

impl fmt::Display for Hardness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Comparison mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Reproduces the official evaluator exactly.
    #[default]
    Official,
    /// Also compares `ON` predicates and `LIMIT` values, and does not
    /// rewrite `value` in the prediction.
    Strict,
    /// The SParC-era evaluator (the one that printed SParC's
    /// `evaluation_examples/eval_output.txt`): as [`Mode::Official`], except
    /// that the FROM tables are compared only when the gold joins several
    /// tables, so `SELECT * FROM a` matches `SELECT * FROM b`.
    LegacySparc,
}

/// Score of one partial-match component for one item, as the reference
/// computes it (`acc`, `rec` and `f1` are each 0 or 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartialScore {
    /// Accuracy (precision).
    pub acc: f64,
    /// Recall.
    pub rec: f64,
    /// F1.
    pub f1: f64,
    /// Number of gold units (the reference's `label_total`; for `and/or`
    /// the reference swaps it with `pred_total`, reproduced here).
    pub label_total: usize,
    /// Number of predicted units (`pred_total`).
    pub pred_total: usize,
    /// Number of matched units.
    pub count: usize,
}

/// Result of comparing one prediction with its gold query.
#[derive(Debug, Clone, PartialEq)]
pub struct EsmOutcome {
    /// Exact set match verdict.
    pub exact: bool,
    /// Hardness of the gold query.
    pub hardness: Hardness,
    /// Why the prediction could not be parsed (it was then scored as an
    /// empty query).
    pub pred_parse_error: Option<String>,
    /// Partial scores by component, in [`COMPONENTS`] order (then
    /// `join(on)` and `limit` in strict mode). To rebuild the official
    /// per-hardness table, add `acc` where `pred_total > 0`, `rec` where
    /// `label_total > 0`, and `f1` always, per level and component.
    pub partial: Vec<(&'static str, PartialScore)>,
    /// Components whose F1 is not 1, plus `from` when the FROM
    /// tables differ. Empty exactly when `exact` is true.
    pub differing_components: Vec<&'static str>,
}

/// Parses `sql` the way the reference's `get_sql` does (official mode).
pub fn parse(schema: &Schema, sql: &str) -> Result<Sql, ParseError> {
    parser::parse_query(schema, sql, false)
}

/// Parses `sql` for the given mode (strict mode keeps `LIMIT` values).
fn parse_with_mode(schema: &Schema, sql: &str, mode: Mode) -> Result<Sql, ParseError> {
    parser::parse_query(schema, sql, mode == Mode::Strict)
}

/// Hardness of a parsed gold query, as the reference's `eval_hardness`.
pub fn hardness(sql: &Sql) -> Hardness {
    eval::hardness(sql)
}

/// Message for a query the reference parses but then cannot evaluate: a
/// condition in which a conjunction takes the place of a comparison, as in
/// `WHERE a = 1 b = 2 AND c = 3` (the missing `AND` shifts the list). The
/// reference crashes on it; here a gold query gives an error and a
/// prediction is scored as unparsable.
const UNSUPPORTED: &str =
    "condition with a missing comparison (the reference evaluator crashes on it)";

/// Exact set match of the raw prediction `pred` against `gold`.
///
/// Returns `Err` only when the gold query cannot be parsed. In
/// [`Mode::Official`] the prediction's `value` substrings are replaced by
/// `1` here; callers must not do it themselves.
pub fn exact_match(
    schema: &Schema,
    gold: &str,
    pred: &str,
    mode: Mode,
) -> Result<EsmOutcome, ParseError> {
    let mut gold_sql = parse_with_mode(schema, gold, mode)?;
    if eval::reference_crashes(&gold_sql) {
        return Err(ParseError::new(None, None, UNSUPPORTED));
    }
    let level = hardness(&gold_sql);
    let pred_text = match mode {
        Mode::Official | Mode::LegacySparc => pred.replace("value", "1"),
        Mode::Strict => pred.to_string(),
    };
    let (mut pred_sql, pred_parse_error) = match parse_with_mode(schema, &pred_text, mode) {
        Ok(s) if eval::reference_crashes(&s) => (Sql::default(), Some(UNSUPPORTED.to_string())),
        Ok(s) => (s, None),
        Err(e) => (Sql::default(), Some(e.to_string())),
    };
    eval::canonicalize(&mut gold_sql, schema, mode);
    eval::canonicalize(&mut pred_sql, schema, mode);
    let (exact, partial, differing_components) = eval::exact(&pred_sql, &gold_sql, mode);
    Ok(EsmOutcome {
        exact,
        hardness: level,
        pred_parse_error,
        partial,
        differing_components,
    })
}

#[cfg(test)]
mod tests;
