//! sqlsuite: evaluate text-to-SQL predictions the way the field's reference metrics do, one
//! named trial per prediction.
//!
//! Data flows one way: [`manifest`] → [`dataset`] (items) → [`execution`] (through a
//! [`backend`]) → [`metric`] (verdicts, comparing [`denotation`]s) → [`report`] and [`harness`].
//! [`evaluation`] holds one run's verdicts so every report reads the same ones.
//!
//! Reference reproductions the metrics build on: [`sql_text`] (the official evaluator's query
//! text preprocessing, sqlparse-compatible), [`spider_sql`] (the official Spider parser,
//! hardness and component comparison), [`plug_value`] (the `--plug_value` candidates),
//! [`sqleval`] (Defog SQL-Eval's gold expansion and result comparison) and [`pcm`] (SEDE's
//! Partial Component Match over sqlparser's MsSql dialect).
//!
//! [`test_suite`] distils test suites (neighbor queries, random databases, greedy selection);
//! a manifest whose `[databases]` pattern globs a suite evaluates with test-suite accuracy.

pub mod backend;
pub mod config;
pub mod dataset;
pub mod denotation;
pub mod evaluation;
pub mod execution;
pub mod harness;
pub mod manifest;
pub mod metric;
pub mod pcm;
pub mod plug_value;
pub mod registry;
pub mod report;
pub mod spider_sql;
pub mod sql_text;
pub mod sqleval;
pub mod test_suite;

pub use evaluation::Evaluation;
pub use manifest::Manifest;
