//! Gold checks: what is wrong, or doubtful, with the golds themselves, found once per
//! evaluation and shown by every report (`spec/gold_checks.md`).
//!
//! The stage runs after the dataset is read and before any report: it comes to a
//! [`GoldChecks`] value, a list of (item, check, reason) that the text summary, the snapshot,
//! JSON lines and the HTML report render. It needs no prediction. Checks that run the gold run
//! it as the first metric that runs queries does ([`crate::metric::Metric::gold_queries`]),
//! through the evaluation's executor, so the gold cache answers them.
//!
//! A new check is one file here defining a [`GoldCheckEntry`] (`pub const ENTRY`) and one line
//! in [`crate::registry::GOLD_CHECKS`].

pub mod clock;
pub mod duplicate;
pub mod empty;
pub mod fails;
pub mod suite;
pub mod ties;

use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;

use crate::backend::Database;
use crate::dataset::Item;
use crate::executor::{Executor, QueryResult};
use crate::metric::GoldQueries;
use crate::work_pool;

/// One gold found wanting by one check.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The item's position among the dataset's items.
    pub item: usize,
    /// The check's code (`empty_result`, `ties_at_limit`, …).
    pub check: &'static str,
    /// Why, in one line (which database, which error, which other item).
    pub reason: String,
}

/// What every check found, in item order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoldChecks {
    /// The dataset's items (the denominator of the counts).
    pub items: usize,
    /// Whether the checks that run the gold ran (some metric runs queries).
    pub ran_queries: bool,
    /// Every finding, sorted by item, then check.
    pub findings: Vec<Finding>,
}

impl GoldChecks {
    /// Check code → items it flags.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        let mut counts = BTreeMap::new();
        for f in &self.findings {
            *counts.entry(f.check).or_default() += 1;
        }
        counts
    }

    /// Items flagged by at least one check.
    pub fn flagged_items(&self) -> usize {
        let mut items: Vec<usize> = self.findings.iter().map(|f| f.item).collect();
        items.dedup();
        items.len()
    }

    /// The findings about item `item`.
    pub fn of_item(&self, item: usize) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.item == item)
    }
}

/// What a check reads: the items, their databases, the gold as the metrics run it, the
/// executor.
pub struct GoldContext<'a> {
    /// The dataset's items.
    pub items: &'a [Item],
    /// Per item: its databases, or why there are none.
    pub databases: &'a [Result<Vec<Database>, String>],
    /// Per item: the gold's queries as the first metric that runs queries runs them (`None`
    /// when no metric does).
    pub queries: &'a [Option<GoldQueries>],
    /// Runs them (its gold cache shared with the metrics).
    pub executor: &'a Executor,
}

/// The gold's result on one database: the first of its alternatives that runs, or the error
/// of the last.
pub type GoldResult = Arc<QueryResult>;

impl GoldContext<'_> {
    /// Item `item`'s databases and gold queries, when it has both.
    pub fn runnable(&self, item: usize) -> Option<(&[Database], &GoldQueries)> {
        let dbs = self.databases.get(item)?.as_ref().ok()?;
        let queries = self.queries.get(item)?.as_ref()?;
        (!queries.alternatives.is_empty() && !dbs.is_empty()).then_some((dbs.as_slice(), queries))
    }

    /// Item `item`'s gold on each of its databases ([`GoldResult`]); empty when it has no
    /// database or no metric runs it.
    pub fn results(&self, item: usize) -> Vec<(&Database, GoldResult)> {
        let Some((dbs, queries)) = self.runnable(item) else {
            return Vec::new();
        };
        dbs.iter()
            .map(|db| {
                let mut last = None;
                for sql in &queries.alternatives {
                    let r = self.executor.gold(db, sql, &queries.limits);
                    if r.is_ok() {
                        return (db, r);
                    }
                    last = Some(r);
                }
                // `runnable` ensured one alternative at least.
                (db, last.unwrap_or_else(|| Arc::new(Ok(Default::default()))))
            })
            .collect()
    }

    /// `check` of every item, in parallel on the work pool: each item's (code, reason) pairs
    /// as findings.
    pub fn each_item(
        &self,
        check: impl Fn(usize) -> Vec<(&'static str, String)> + Sync,
    ) -> Vec<Finding> {
        work_pool::run(|| {
            (0..self.items.len())
                .into_par_iter()
                .flat_map_iter(|item| {
                    check(item).into_iter().map(move |(check, reason)| Finding {
                        item,
                        check,
                        reason,
                    })
                })
                .collect()
        })
    }
}

/// Runs every check of a dataset.
pub type RunCheck = fn(&GoldContext<'_>) -> Vec<Finding>;

/// What the composition root ([`crate::registry`]) knows of a gold check. Each check module
/// defines one as `pub const ENTRY`.
#[derive(Clone, Copy)]
pub struct GoldCheckEntry {
    /// The check's name (`spec/gold_checks.md`).
    pub name: &'static str,
    /// The codes its findings carry (`ties` finds `ties_at_limit`, `ties_in_order`, …).
    pub codes: &'static [&'static str],
    /// Whether it runs the gold (then it runs only where a metric runs queries).
    pub runs_queries: bool,
    /// The check.
    pub run: RunCheck,
}

impl std::fmt::Debug for GoldCheckEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoldCheckEntry")
            .field("name", &self.name)
            .field("codes", &self.codes)
            .finish()
    }
}

/// Every check of `checks` over `context`: the findings sorted by item, then check.
pub fn run(checks: &[GoldCheckEntry], context: &GoldContext<'_>) -> GoldChecks {
    let ran_queries = context.queries.iter().any(Option::is_some);
    let mut findings: Vec<Finding> = checks
        .iter()
        .filter(|c| ran_queries || !c.runs_queries)
        .flat_map(|c| (c.run)(context))
        .collect();
    findings.sort();
    findings.dedup();
    GoldChecks {
        items: context.items.len(),
        ran_queries,
        findings,
    }
}

/// `db (and N of M databases more)`: the first database a finding holds on, and how many more.
pub fn on_databases(first: &Database, more: usize, of: usize) -> String {
    if more == 0 {
        if of > 1 {
            format!("{} (1 of {of} databases)", first.label())
        } else {
            first.label()
        }
    } else {
        format!("{} and {more} more of {of} databases", first.label())
    }
}
