//! sqlsuite: evaluate text-to-SQL predictions the way the field's reference metrics do, one
//! named trial per prediction.
//!
//! Data flows one way: [`manifest`] → [`dataset`] (items) → [`execution`] (through a
//! [`backend`]) → [`metric`] (verdicts, comparing [`denotation`]s) → [`report`] and [`harness`].
//! [`evaluation`] holds one run's verdicts so every report reads the same ones.

pub mod backend;
pub mod dataset;
pub mod denotation;
pub mod evaluation;
pub mod execution;
pub mod harness;
pub mod manifest;
pub mod metric;
pub mod plug_value;
pub mod report;
pub mod spider_sql;
pub mod sql_text;
pub mod sqleval;

pub use evaluation::Evaluation;
pub use manifest::Manifest;
