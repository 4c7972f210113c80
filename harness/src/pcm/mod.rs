//! Partial Component Match (PCM-F1, PCM-EM), SEDE's metric (Hazoom, Malik, Bogin 2021;
//! reference `hirupert/sede`, `src/metrics/partial_match_eval`), in pure Rust over sqlparser's
//! MsSql dialect. The rules, the reference behaviour they reproduce and every difference are in
//! `spec/pcm.md`.
//!
//! The flow: query text → [`prepare`] (parameters, or the reference's preprocessing in compat
//! mode) → [`parse`] → [`Parsed::components`] (the elements of each category, [`components`]) →
//! [`score::score`] (F1 per category, PCM-F1 / PCM-EM).

pub mod components;
pub mod node;
pub mod params;
pub mod reference_text;
pub mod score;

use sqlparser::ast::{Query, SetExpr, Statement};
use sqlparser::dialect::MsSqlDialect;
use sqlparser::parser::{Parser, ParserOptions};

pub use components::{Category, Components, Element};
pub use score::{CategoryScore, Matching, PcmScore};

use components::Extraction;
use node::Naming;

/// The deliberate differences from the reference, each one switchable so that a changed score
/// can be traced to the rule that changes it. Default mode has none of the reference's
/// behaviours; `compat = "sede"` has all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// The reference's text preprocessing (lower-casing, brackets to quoted names, parameters
    /// to quoted strings, its comment/`DECLARE` regexes with their flag bugs, the last
    /// `;`-separated statement, `'` → `"`, one statement) instead of typed parameter
    /// placeholders over the whole batch.
    pub reference_text: bool,
    /// The reference's list-matching helper instead of multiset matching.
    pub reference_matching: bool,
    /// The reference's omissions of nested parts of a query.
    pub drop_nested: bool,
    /// The reference's dropping of zero-valued numbers.
    pub drop_zero: bool,
}

impl Rules {
    /// Default mode: the metric as specified.
    pub const DEFAULT: Rules = Rules {
        reference_text: false,
        reference_matching: false,
        drop_nested: false,
        drop_zero: false,
    };
    /// `compat = "sede"`: the reference's behaviour where it is feasible.
    pub const SEDE: Rules = Rules {
        reference_text: true,
        reference_matching: true,
        drop_nested: true,
        drop_zero: true,
    };

    /// Each rule's name (as `spec/pcm.md` names it) and the default rules with that one rule set
    /// to the reference's behaviour.
    pub fn each_reference_behaviour() -> [(&'static str, Rules); 4] {
        let d = Rules::DEFAULT;
        [
            (
                "reference_text",
                Rules {
                    reference_text: true,
                    ..d
                },
            ),
            (
                "reference_matching",
                Rules {
                    reference_matching: true,
                    ..d
                },
            ),
            (
                "drop_nested",
                Rules {
                    drop_nested: true,
                    ..d
                },
            ),
            (
                "drop_zero",
                Rules {
                    drop_zero: true,
                    ..d
                },
            ),
        ]
    }

    fn matching(&self) -> Matching {
        if self.reference_matching {
            Matching::Reference
        } else {
            Matching::Multiset
        }
    }
}

/// Which PCM: values kept and ON clauses parsed (PCM-F1 / PCM-EM, the reference's training
/// configuration), or values anonymised and ON clauses ignored (the `NoValues` variants of the
/// paper's Table 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    Values,
    NoValues,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Values, Variant::NoValues];
}

/// Why a query has no components.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("the reference's preprocessing rejects the query")]
    Rejected,
    #[error("{0}")]
    Syntax(String),
    #[error("no SELECT query in the batch")]
    NoQuery,
    #[error("{0} statements; the reference's parser reads exactly one")]
    NotOneStatement(usize),
}

/// The text to parse: parameters substituted, or the reference's preprocessing.
pub fn prepare(sql: &str, rules: Rules) -> Result<String, ParseError> {
    if rules.reference_text {
        reference_text::preprocess(sql).ok_or(ParseError::Rejected)
    } else {
        Ok(params::substitute(sql))
    }
}

/// A parsed query batch.
#[derive(Debug, Clone)]
pub struct Parsed {
    statements: Vec<Statement>,
    naming: Naming,
}

/// Parses `sql` (prepared per `rules`) with the MsSql dialect, statements not needing `;`.
pub fn parse(sql: &str, rules: Rules) -> Result<Parsed, ParseError> {
    let text = prepare(sql, rules)?;
    let options = ParserOptions::new().with_trailing_commas(false);
    let options = ParserOptions {
        require_semicolon_stmt_delimiter: false,
        ..options
    };
    let statements = Parser::new(&MsSqlDialect {})
        .with_options(options)
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| ParseError::Syntax(e.to_string()))?;
    let parsed = Parsed {
        statements,
        naming: if rules.reference_text {
            Naming::KeepQuotes
        } else {
            Naming::Bare
        },
    };
    if rules.reference_text {
        if parsed.statements.len() != 1 {
            return Err(ParseError::NotOneStatement(parsed.statements.len()));
        }
        if !matches!(parsed.statements[0], Statement::Query(_)) {
            return Err(ParseError::NoQuery);
        }
    } else if parsed.queries().next().is_none() {
        return Err(ParseError::NoQuery);
    }
    Ok(parsed)
}

impl Parsed {
    /// The batch's queries: `SELECT` statements and the queries that feed `INSERT`s.
    fn queries(&self) -> impl Iterator<Item = &Query> {
        self.statements.iter().filter_map(|s| match s {
            Statement::Query(q) => Some(q.as_ref()),
            Statement::Insert(i) => i.source.as_deref(),
            _ => None,
        })
    }

    /// The elements of each category, all queries' bodies merged.
    pub fn components(&self, rules: Rules, variant: Variant) -> Components {
        let extraction = Extraction {
            anonymize_values: variant == Variant::NoValues,
            on_clauses: variant == Variant::Values,
            drop_nested: rules.drop_nested,
            drop_zero: rules.drop_zero,
            naming: self.naming,
        };
        let mut out = Components::default();
        for q in self.queries() {
            if matches!(q.body.as_ref(), SetExpr::Values(_)) {
                continue;
            }
            out.merge(extraction.query(q));
        }
        out
    }
}

/// The scores of one prediction against one gold, both parsed.
pub fn score(gold: &Parsed, predicted: &Parsed, rules: Rules, variant: Variant) -> PcmScore {
    score::score(
        &gold.components(rules, variant),
        &predicted.components(rules, variant),
        rules.matching(),
    )
}
