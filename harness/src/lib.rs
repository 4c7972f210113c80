//! sqlsuite: evaluate text-to-SQL predictions the way the field's reference metrics do, one
//! named trial per prediction.
//!
//! Data flows one way: [`manifest`] → [`dataset`] (items) → [`execution`] (through a
//! [`backend`]) → [`metric`] (verdicts, comparing [`denotation`]s) → [`report`] and [`harness`].
//! [`evaluation`] holds one run's verdicts so every report reads the same ones.
//!
//! The metrics build on [`reference`](mod@reference), the reference wing: byte-exact reproductions of other
//! evaluators (the official Spider evaluator's parser, exact match, query-text preprocessing and
//! `--plug_value`, the sqlparse behaviour they rely on, Defog SQL-Eval and SEDE's PCM). Only
//! [`metric`] reaches into it. [`python`] provides Python's string and number semantics
//! (`str.strip()`, `repr(float)`, …) to readers, denotations and the wing alike.
//!
//! [`test_suite`] distils test suites (neighbor queries, random databases, greedy selection);
//! a manifest whose `[databases]` pattern globs a suite evaluates with test-suite accuracy.

pub mod backend;
pub mod config;
pub mod dataset;
pub mod denotation;
pub mod evaluation;
pub mod executor;
pub mod harness;
pub mod manifest;
pub mod metric;
pub mod python;
pub mod reference;
pub mod registry;
pub mod report;
pub mod test_suite;

pub use evaluation::Evaluation;
pub use manifest::Manifest;
