//! The exec plan: the SQL the exec metric runs, built in one place. The metric itself, the
//! distiller (which must judge neighbors exactly as the metric judges predictions) and the
//! benchmark all take their queries from here.
//!
//! A gold is prepared as the reference prepares it (tokenized operators repaired, DISTINCT
//! removed unless `keep_distinct`); a prediction too, after the `value` placeholder is replaced
//! when asked. The prepared *text* is what `plug_value` and the neighbor generator read; the
//! runnable *SQL* is that text with the current year substituted. Results are compared in order
//! iff the prepared gold contains `order by`.

mod options;
pub mod order;
pub mod ties;

use crate::denotation::CompareOptions;
use crate::sql_tokens::statements;
use sqlsuite_reference::bird::{self, Statement};
use sqlsuite_reference::plug_value::{self, Plug};
use sqlsuite_reference::spider_text::{fix_tokenized_operators, replace_cur_year};
use sqlsuite_reference::sqlparse::remove_distinct;

pub use options::{ExecCompat, ExecOptions, RelativeBudget};
use order::{order_plan, OrderPlan};

/// A gold as the exec metric runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldPlan {
    /// Prepared as the reference prepares it.
    pub text: String,
    /// What runs.
    pub sql: String,
    /// How a prediction's result is compared with the gold's.
    pub compare: CompareOptions,
}

/// A prediction as the exec metric runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionPlan {
    /// Prepared as the reference prepares it.
    pub text: String,
    /// What runs. Empty where nothing runs and no row comes back (BIRD: white space, comments,
    /// a lone `;`, as Python's `sqlite3` runs them).
    pub sql: String,
    /// Why the prediction cannot run at all (several statements: BIRD's Python `sqlite3`
    /// refuses them, and so does the default mode); `None` for a prediction that runs.
    pub refused: Option<Refusal>,
}

/// A prediction that is not run, and the verdict's reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The verdict's reason code: `sql_error` (BIRD, as Python's error) or
    /// `several_statements` (the default mode).
    pub code: &'static str,
    /// The verdict's message.
    pub message: String,
}

/// The default mode's reason code for a prediction of more than one statement.
pub const SEVERAL_STATEMENTS: &str = "several_statements";

/// How much of the second statement a refusal's message quotes (characters).
const QUOTED: usize = 60;

impl Refusal {
    /// BIRD: the error Python's `sqlite3` raises, as `evaluation_ex.py` scores it.
    fn python() -> Refusal {
        Refusal {
            code: "sql_error",
            message: format!("prediction failed: {}", bird::SEVERAL_STATEMENTS),
        }
    }

    /// The default mode: `statements` (at least two) are no one query to judge.
    fn several(statements: &[&str]) -> Refusal {
        // On one line, white space runs as one space.
        let second: Vec<&str> = statements
            .get(1)
            .map_or(Vec::new(), |s| s.split_whitespace().collect());
        let second = second.join(" ");
        let mut quoted: String = second.chars().take(QUOTED).collect();
        if quoted.len() < second.len() {
            quoted.push('…');
        }
        Refusal {
            code: SEVERAL_STATEMENTS,
            message: format!(
                "{SEVERAL_STATEMENTS}: the prediction is {} statements, not one query (the \
                 second: `{quoted}`); compat = \"test_suite_sql_eval\" judges the first alone, \
                 as the official evaluator does",
                statements.len()
            ),
        }
    }
}

/// The prediction with the gold's values plugged into its value slots (`plug_value`).
pub struct Plugged {
    plug: Plug,
}

impl Plugged {
    /// Every assignment, likeliest first, as it runs.
    pub fn candidates(&self) -> impl Iterator<Item = String> + '_ {
        self.plug.candidates().map(|c| replace_cur_year(&c))
    }

    /// How many values the gold has …
    pub fn gold_values(&self) -> usize {
        self.plug.gold_values().len()
    }

    /// … and how many value slots the prediction.
    pub fn slots(&self) -> usize {
        self.plug.slots()
    }

    /// Why no candidate is tried at all (too many string literals), if so.
    pub fn unread(&self) -> Option<&str> {
        self.plug.unread()
    }

    /// The number of assignments, `gold_values ^ slots` (saturating).
    pub fn count(&self) -> u128 {
        self.plug.count()
    }
}

impl ExecOptions {
    /// The plan of a gold.
    pub fn gold_plan(&self, gold: &str) -> GoldPlan {
        let text = self.prepare(gold);
        GoldPlan {
            sql: self.runnable(&text),
            compare: CompareOptions {
                order_matters: !self.bird() && text.to_lowercase().contains("order by"),
                float_tolerance: self.float_tolerance.unwrap_or(0.0),
                as_sets: self.bird(),
            },
            text,
        }
    }

    /// The plan of a prediction.
    pub fn prediction_plan(&self, prediction: &str) -> PredictionPlan {
        if self.bird() {
            let (sql, refused) = match bird::statement(prediction) {
                Statement::Empty => (String::new(), None),
                Statement::One(sql) => (sql.to_owned(), None),
                Statement::Several => (String::new(), Some(Refusal::python())),
            };
            return PredictionPlan {
                text: prediction.to_owned(),
                sql,
                refused,
            };
        }
        let prediction = match self.compat {
            Some(_) => prediction,
            None => match one_statement(prediction) {
                Ok(one) => one,
                Err(refusal) => {
                    return PredictionPlan {
                        text: prediction.to_owned(),
                        sql: String::new(),
                        refused: Some(refusal),
                    }
                }
            },
        };
        let text = if self.replace_value_placeholder {
            self.prepare(&prediction.replace("value", "1"))
        } else {
            self.prepare(prediction)
        };
        PredictionPlan {
            sql: self.runnable(&text),
            text,
            refused: None,
        }
    }

    /// What runs of a prepared text: the Spider evaluator's current year substituted, except
    /// for BIRD, which runs its queries as written.
    fn runnable(&self, text: &str) -> String {
        if self.bird() {
            text.to_owned()
        } else {
            replace_cur_year(text)
        }
    }

    /// BIRD's EX (`compat = "bird"`): both queries run as written, their rows compared as sets.
    fn bird(&self) -> bool {
        self.compat == Some(ExecCompat::Bird)
    }

    fn prepare(&self, sql: &str) -> String {
        if self.bird() {
            return sql.to_owned();
        }
        let fixed = if self.repair_operators {
            fix_tokenized_operators(sql)
        } else {
            sql.to_owned()
        };
        if self.keep_distinct {
            fixed
        } else {
            remove_distinct(&fixed)
        }
    }
}

/// The default mode's one statement of a prediction: several (split at `;` as SQLite's lexer
/// finds it) are refused; stray `;` after the only one (`SELECT 1;;`, which Python's `sqlite3`
/// would refuse) are dropped; anything else is the prediction as written.
fn one_statement(prediction: &str) -> Result<&str, Refusal> {
    let parts = statements(prediction);
    match parts.as_slice() {
        [_, _, ..] => Err(Refusal::several(&parts)),
        [one] if bird::statement(prediction) == Statement::Several => Ok(one),
        _ => Ok(prediction),
    }
}

impl GoldPlan {
    /// How the gold orders its rows, for the tie-aware comparison (its key query).
    pub fn order_plan(&self) -> OrderPlan {
        order_plan(&self.sql)
    }
}

impl PredictionPlan {
    /// `plug_value`: this prediction with `gold`'s values in its value slots.
    pub fn plugged(&self, gold: &GoldPlan) -> Plugged {
        Plugged {
            plug: plug_value::plug(&gold.text, &self.text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_mode_refuses_several_statements_and_compat_keeps_the_first() {
        let default = ExecOptions::default();
        let p = default.prediction_plan("SELECT a FROM t;\n  DELETE   FROM t;");
        let refusal = p.refused.expect("two statements are refused");
        assert_eq!(refusal.code, SEVERAL_STATEMENTS);
        assert!(
            refusal.message.contains("2 statements") && refusal.message.contains("`DELETE FROM t`"),
            "{}",
            refusal.message
        );
        assert!(p.sql.is_empty());
        // Stray `;` are no statement: the one statement runs, DISTINCT kept or not.
        for keep_distinct in [false, true] {
            let options = ExecOptions {
                keep_distinct,
                ..ExecOptions::default()
            };
            let p = options.prediction_plan("SELECT a FROM t ; ;");
            assert_eq!((p.refused, p.sql.as_str()), (None, "SELECT a FROM t"));
        }
        // `;` in a string is no split.
        assert_eq!(default.prediction_plan("SELECT 'a;b'").refused, None);
        // compat: the first statement, as the reference's DISTINCT removal keeps it.
        let compat = ExecOptions {
            compat: Some(ExecCompat::TestSuiteSqlEval),
            ..ExecOptions::default()
        };
        let p = compat.prediction_plan("SELECT a FROM t; DELETE FROM t");
        assert_eq!((p.refused, p.sql.as_str()), (None, "SELECT a FROM t; "));
    }

    #[test]
    fn one_preparation_for_gold_prediction_and_candidates() {
        let options = ExecOptions::default();
        let gold = options.gold_plan("SELECT DISTINCT name FROM t WHERE a > = 3 ORDER BY name");
        // DISTINCT removed as the reference removes it (its space stays).
        assert_eq!(gold.text, "SELECT  name FROM t WHERE a >= 3 ORDER BY name");
        assert_eq!(gold.sql, gold.text);
        assert!(gold.compare.order_matters);
        let p = options.prediction_plan("SELECT name FROM t WHERE a > value ORDER BY name");
        assert_eq!(p.sql, "SELECT name FROM t WHERE a > 1 ORDER BY name");
        let plugged = p.plugged(&gold);
        assert_eq!((plugged.gold_values(), plugged.slots()), (1, 1));
        // Candidates are written the way the reference writes them (lower case).
        assert_eq!(
            plugged.candidates().collect::<Vec<_>>(),
            ["select name from t where a > 3 order by name"]
        );
        let kept = ExecOptions {
            keep_distinct: true,
            replace_value_placeholder: false,
            float_tolerance: Some(0.01),
            ..ExecOptions::default()
        };
        let gold = kept.gold_plan("SELECT DISTINCT x FROM t");
        assert_eq!(gold.text, "SELECT DISTINCT x FROM t");
        assert!(!gold.compare.order_matters);
        assert_eq!(gold.compare.float_tolerance, 0.01);
        assert_eq!(
            kept.prediction_plan("SELECT value FROM t").text,
            "SELECT value FROM t"
        );
    }
}
