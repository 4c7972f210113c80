//! sqlsuite: evaluate text-to-SQL predictions the way the field's reference metrics do, one
//! named trial per prediction.
//!
//! Data flows one way: a [`Manifest`] is composed by the [`registry`] into a gold format, a
//! backend and metrics; the format's reader gives items and prediction sets ([`dataset`]); the
//! [`Evaluation`] judges each prediction once with each [`Metric`], which runs queries through
//! an [`Executor`](executor::Executor) (caches in front of a [`Backend`]) and compares their
//! results; reports and trials ([`harness`]) read those verdicts.
//!
//! The documented surface is what a user or an extension needs:
//! * to run: [`harness::run`] (a `cargo test` harness over manifests), [`Evaluation`];
//! * to extend: [`Metric`] and [`MetricEntry`], [`Backend`] and [`BackendEntry`],
//!   [`FormatEntry`](dataset::FormatEntry), listed in a [`Registry`] — one file and one line each
//!   (`ARCHITECTURE.md`);
//! * what comes out: [`Verdict`], [`Status`], [`ItemResult`].
//!
//! The other modules are public only for the command line and the project's own tests, and are
//! hidden from the documentation: the reports, the test-suite distiller, the reproductions of
//! other evaluators (the reference wing, reached only through the metrics) and Python's string
//! and number semantics.

pub mod backend;
pub mod dataset;
pub mod evaluation;
pub mod exec_plan;
pub mod executor;
pub mod manifest;
pub mod metric;
pub mod provenance;
pub mod registry;
pub mod run;
pub mod trials;
pub mod work_pool;

#[doc(hidden)]
pub mod config;
#[doc(hidden)]
pub mod denotation;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod sql_tokens;

pub use backend::{Backend, BackendEntry, Database};
pub use evaluation::Evaluation;
pub use manifest::Manifest;
pub use metric::{Metric, MetricEntry, Status, Verdict};
pub use registry::{compose, Registry};
pub use run::{ItemResult, Run};
