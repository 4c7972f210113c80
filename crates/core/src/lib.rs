#![deny(missing_docs)]
//! sqlsuite: evaluate text-to-SQL predictions the way the field's reference metrics do, one
//! named trial per prediction.
//!
//! A model repository needs one call: [`trials::run`] in a `harness = false` test target
//! runs one libtest trial per prediction of each manifest, plus a snapshot and a gate trial per
//! prediction set. Programs evaluate with [`Evaluation`] and read the [`Run`] it returns.
//!
//! # The flow
//!
//! Data flows one way, and the modules are named for the stage they are:
//!
//! ```text
//! manifest ─► registry ─► dataset ─► evaluation ─► run ─► report / trials
//!  (TOML)     (formats,    (items,     │  (each prediction judged
//!              backends,    prediction │   once by each metric)
//!              metrics)     sets)      ▼
//!                                   metric ─► exec_plan ─► executor ─► backend
//!                                 (verdict)   (the SQL     (caches)    (SQLite,
//!                                              a metric                 PostgreSQL)
//!                                              runs)
//! ```
//!
//! * [`manifest`] reads a dataset's TOML manifest ([`config`]: located TOML, errors at
//!   `file:line:column`); [`registry`] composes it into a gold format, a backend and metrics.
//! * [`dataset`] reads gold and prediction files into [`dataset::Item`]s.
//! * [`evaluation`] judges each prediction with each [`Metric`]; [`run`] is what that comes to,
//!   as plain data: [`Run`], [`ItemResult`], [`Verdict`].
//! * [`exec_plan`] is the SQL the exec metric runs (shared with the distiller and the
//!   benchmark); [`executor`] runs queries through a [`Backend`] with caches; [`denotation`]
//!   compares result tables with Python's semantics.
//! * [`report`] turns a run into summaries, snapshots, JSON lines, JUnit and HTML; [`trials`]
//!   into libtest trials; [`provenance`] says what the verdicts depend on besides the code.
//! * [`gold_check`] finds what is wrong with the golds themselves (failing, empty,
//!   tie-dependent, clock-reading, unreliable suites, duplicates), once per evaluation; every
//!   report shows it.
//! * [`clock`] is the moment `'now'` denotes (`[dataset] clock`), and which queries read it.
//! * [`sql_tokens`] is a small SQL lexer keeping byte spans; [`work_pool`] the one pool of
//!   worker threads with stacks deep enough for untrusted SQL.
//!
//! # Extending
//!
//! A metric, a gold format or a backend is one file defining its entry ([`MetricEntry`],
//! [`FormatEntry`](dataset::FormatEntry), [`BackendEntry`]) and one line in a [`Registry`].
//!
//! # Cargo features
//!
//! Without features the crate has what a model repository needs: SQLite, every format, the
//! exec, exact match, SQL-Eval, BLEU and text-match metrics, trials, snapshots, text and JSON
//! lines. `postgres` adds the PostgreSQL backend, `pcm` SEDE's PCM metric, `html` the HTML
//! reports, `junit` JUnit XML; `full` all of them.

pub mod backend;
pub mod clock;
pub mod config;
pub mod counterexample;
pub mod dataset;
pub mod denotation;
pub mod evaluation;
pub mod exec_plan;
pub mod executor;
pub mod gold_check;
pub mod manifest;
mod memo;
pub mod metric;
pub mod provenance;
pub mod registry;
pub mod report;
pub mod run;
pub mod sql_tokens;
pub mod trials;
pub mod work_pool;

pub use backend::{Backend, BackendEntry, Database};
pub use evaluation::Evaluation;
pub use manifest::Manifest;
pub use metric::{Metric, MetricEntry, Status, Verdict};
pub use registry::{compose, Registry};
pub use run::{ItemResult, Run};
