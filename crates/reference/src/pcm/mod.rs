//! Partial Component Match (PCM-F1, PCM-EM), SEDE's metric (Hazoom, Malik, Bogin 2021;
//! reference `hirupert/sede`, `src/metrics/partial_match_eval`), in pure Rust over sqlparser's
//! MsSql dialect. The rules, the reference behaviour they reproduce and every difference are in
//! `spec/pcm.md`.
//!
//! The flow: query text → its parameters substituted, or in compat mode the reference's
//! preprocessing ([`reference_text`]) → [`parse`] → [`Parsed::components`] (the elements of each
//! [`Category`]) → [`score()`] (F1 per category, PCM-F1 / PCM-EM).

mod components;
mod node;
mod params;
pub mod reference_text;
mod score;

use sqlparser::ast::{Query, SetExpr, Statement};
use sqlparser::dialect::MsSqlDialect;
use sqlparser::parser::{Parser, ParserOptions};

pub use components::{Category, Components, Element};
pub use score::{CategoryScore, PcmScore};

use components::Extraction;
use node::Naming;
use score::Matching;

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
    /// Values kept and `ON` clauses parsed: PCM-F1 and PCM-EM.
    Values,
    /// Values anonymised as `terminal` and `ON` clauses ignored: PCM-F1-NoValues and
    /// PCM-EM-NoValues.
    NoValues,
}

impl Variant {
    /// Both variants, in report order.
    pub const ALL: [Variant; 2] = [Variant::Values, Variant::NoValues];
}

/// Why a query has no components.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The reference's preprocessing gives up on the text before parsing (compat mode).
    #[error("the reference's preprocessing rejects the query")]
    Rejected,
    /// sqlparser's MsSql dialect does not parse the text; its message.
    #[error("{0}")]
    Syntax(String),
    /// The batch holds no query to score: no `SELECT`, nor an `INSERT` fed by one (in compat
    /// mode: its one statement is not a query).
    #[error("no SELECT query in the batch")]
    NoQuery,
    /// In compat mode, a batch of other than one statement (their number).
    #[error("{0} statements; the reference's parser reads exactly one")]
    NotOneStatement(usize),
}

/// The text to parse: parameters substituted, or the reference's preprocessing.
fn prepare(sql: &str, rules: Rules) -> Result<String, ParseError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn elements(sql: &str, rules: Rules, variant: Variant, category: Category) -> Vec<String> {
        let parsed = match parse(sql, rules) {
            Ok(p) => p,
            Err(e) => panic!("{sql}: {e}"),
        };
        parsed
            .components(rules, variant)
            .get(category)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn both_modes() -> [Rules; 2] {
        [Rules::DEFAULT, Rules::SEDE]
    }

    #[test]
    fn a_comparison_yields_its_terminals_operator_and_whole() {
        for rules in both_modes() {
            assert_eq!(
                elements(
                    "SELECT a FROM t WHERE b = 1",
                    rules,
                    Variant::Values,
                    Category::Where
                ),
                ["b", "1", "=", "[[b], [1], =]"]
            );
            assert_eq!(
                elements(
                    "SELECT a FROM t WHERE b = 1",
                    rules,
                    Variant::NoValues,
                    Category::Where
                ),
                ["b", "terminal", "=", "[[b], [terminal], =]"]
            );
        }
    }

    #[test]
    fn select_from_and_order_by_elements() {
        for rules in both_modes() {
            let sql = "SELECT TOP 10 Id, COUNT(*) FROM Posts p JOIN Users u ON u.Id = p.OwnerUserId ORDER BY Id DESC";
            assert_eq!(
                elements(sql, rules, Variant::Values, Category::Select),
                [
                    "id",
                    "count",
                    "*",
                    "[count, *]",
                    "[id, count, *, [count, *]]"
                ]
            );
            assert_eq!(elements(sql, rules, Variant::Values, Category::Top), ["10"]);
            assert_eq!(
                elements(sql, rules, Variant::Values, Category::From)[..3],
                ["posts", "users", "id"]
            );
            // ON clauses are ignored by the no-values variant.
            assert_eq!(
                elements(sql, rules, Variant::NoValues, Category::From),
                ["posts", "users", "[posts, users]"]
            );
            assert_eq!(
                elements(sql, rules, Variant::Values, Category::OrderBy),
                ["id", "desc", "[id, desc]", "[id, desc, [id, desc]]"]
            );
        }
    }

    #[test]
    fn reference_omissions_are_compat_only() {
        let sql = "SELECT a FROM t WHERE (b = 2 OR c = 3) AND d IN (SELECT e FROM u) AND f > 0";
        let compat = elements(sql, Rules::SEDE, Variant::Values, Category::Where);
        let default = elements(sql, Rules::DEFAULT, Variant::Values, Category::Where);
        for dropped in ["b", "c", "OR", "e", "u", "0"] {
            assert!(
                !compat.contains(&dropped.to_owned()),
                "{dropped} in {compat:?}"
            );
            assert!(
                default.contains(&dropped.to_owned()),
                "{dropped} not in {default:?}"
            );
        }
        assert!(compat.contains(&"IN".to_owned()) && compat.contains(&"f".to_owned()));

        // JSqlParser reads a leading NOT as its own node, and finds no expression in `t.*`.
        let sql = "SELECT p.* FROM posts p WHERE a = 1 AND NOT EXISTS (SELECT 1 FROM votes v)";
        let compat = elements(sql, Rules::SEDE, Variant::Values, Category::Where);
        assert!(!compat.contains(&"votes".to_owned()), "{compat:?}");
        let default = elements(sql, Rules::DEFAULT, Variant::Values, Category::Where);
        assert!(default.contains(&"NOT EXISTS".to_owned()), "{default:?}");
        assert!(elements(sql, Rules::SEDE, Variant::Values, Category::Select).is_empty());
        assert_eq!(
            elements(sql, Rules::DEFAULT, Variant::Values, Category::Select),
            ["p.*"]
        );
    }

    #[test]
    fn batches_and_set_operations() {
        let batch = "DECLARE @n int = 5\nSELECT a FROM t WHERE b = @n\nSELECT c FROM u";
        assert_eq!(
            elements(batch, Rules::DEFAULT, Variant::Values, Category::From),
            ["t", "u"]
        );
        // The reference reads one statement: after its DECLARE removal two remain.
        assert_eq!(
            parse(batch, Rules::SEDE).err(),
            Some(ParseError::NotOneStatement(2))
        );
        // …and of `;`-separated statements only the last.
        assert_eq!(
            elements(
                "SELECT a FROM t; SELECT c FROM u;",
                Rules::SEDE,
                Variant::Values,
                Category::From
            ),
            ["u"]
        );
        let union = "SELECT a FROM t UNION SELECT b FROM u ORDER BY 1";
        for rules in both_modes() {
            assert_eq!(
                elements(union, rules, Variant::Values, Category::Select),
                ["a", "b"]
            );
        }
        assert!(elements(union, Rules::SEDE, Variant::Values, Category::OrderBy).is_empty());
        assert!(!elements(union, Rules::DEFAULT, Variant::Values, Category::OrderBy).is_empty());
        let with = "WITH x AS (SELECT a FROM t) SELECT a FROM x";
        for rules in both_modes() {
            assert_eq!(
                elements(with, rules, Variant::Values, Category::From),
                ["x", "t"]
            );
        }
    }

    #[test]
    fn parameters_parse_in_both_modes() {
        let sql = "SELECT TOP ##N:int?25## [Id] AS [User Link] FROM Users WHERE Reputation > ##MinRep:int## AND Location LIKE '%##Place##%' AND DisplayName = ##Name:string##";
        for rules in both_modes() {
            assert_eq!(elements(sql, rules, Variant::Values, Category::Top), ["25"]);
        }
        let default = elements(sql, Rules::DEFAULT, Variant::Values, Category::Where);
        assert!(default.contains(&"'##name##'".to_owned()), "{default:?}");
        let compat = elements(sql, Rules::SEDE, Variant::Values, Category::Where);
        assert!(
            compat.contains(&"\"##name:string##\"".to_owned()),
            "{compat:?}"
        );
    }

    #[test]
    fn scoring_categories() {
        let rules = Rules::DEFAULT;
        let gold = parse("SELECT a, b FROM t WHERE c = 1", rules).unwrap();
        let same = score(&gold, &gold, rules, Variant::Values);
        assert!(same.exact && same.f1 == 1.0);
        // WHERE present on one side only scores 0; GROUP BY absent on both is not scored.
        let pred = parse("SELECT a, b FROM t", rules).unwrap();
        let s = score(&gold, &pred, rules, Variant::Values);
        let cats: Vec<(&str, f64)> = s
            .categories
            .iter()
            .map(|c| (c.category.as_str(), c.f1))
            .collect();
        assert_eq!(cats, [("select", 1.0), ("from", 1.0), ("where", 0.0)]);
        assert!((s.f1 - 2.0 / 3.0).abs() < 1e-12 && !s.exact);
        // One of two select columns: precision 1, recall 2/3 (a, b and the whole list).
        let pred = parse("SELECT a FROM t WHERE c = 1", rules).unwrap();
        let s = score(&gold, &pred, rules, Variant::Values);
        let select = &s.categories[0];
        assert_eq!((select.precision, select.recall), (1.0, 1.0 / 3.0));
        assert_eq!(select.unmatched_gold.len(), 2);
    }
}
