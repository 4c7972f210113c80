//! `[metrics.ex]`: BIRD's execution accuracy (EX) as its `evaluation_ex.py` computes it — the
//! exec metric with `compat = "bird"` (both queries as written, their rows compared as sets of
//! tuples, any error incorrect), under a name of its own so that a manifest can hold it beside
//! `[metrics.exec]`, the stricter execution match (duplicates counted, order where the gold
//! orders, ties allowed), and the two be compared item by item (`spec/bird.md`).
//!
//! Its table takes the query limits only (`timeout_ms`, `max_rows`, `max_steps`).

use super::exec::Exec;
use super::{Metric, MetricEntry, Resources};
use crate::backend::QueryLimits;
use crate::config::{ManifestError, Section};
use crate::exec_plan::{ExecCompat, ExecOptions};

/// `[metrics.ex]` in the registry.
pub const ENTRY: MetricEntry = MetricEntry {
    name: "ex",
    runs_queries: true,
    build,
};

fn build(section: &Section<'_>, _: &Resources) -> Result<Box<dyn Metric>, ManifestError> {
    let limits = super::limits_only(section)?;
    Ok(Box::new(Exec::named(ENTRY.name, options(limits))))
}

/// The exec options that are BIRD's EX, under `limits`.
pub fn options(limits: QueryLimits) -> ExecOptions {
    ExecOptions {
        limits,
        keep_distinct: true,
        replace_value_placeholder: false,
        repair_operators: false,
        compat: Some(ExecCompat::Bird),
        ..ExecOptions::default()
    }
}
