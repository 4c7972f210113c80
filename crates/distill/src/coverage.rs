//! What a distillation run reports: per gold, neighbors generated, distinguished, the
//! undistinguished ones (their SQL and kind), the suite's size and whether the suite is
//! reliable for it; per schema, the suite's size on disk and the time it took. As JSON for
//! tools and as a readable summary.

use std::collections::BTreeMap;

use serde::Serialize;

use super::constraints::Constraints;
use super::distill::{GoldOutcome, SchemaOutcome};
use super::neighbors::Neighbor;
use super::probes::Probe;

/// Report of one gold.
#[derive(Debug, Clone, Serialize)]
pub struct GoldReport {
    /// The gold's first item.
    pub index: usize,
    /// Later items with the same gold, served by the same suite (not distilled again).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub same_gold: Vec<usize>,
    /// Its schema.
    pub db_id: String,
    /// The gold.
    pub gold: String,
    /// Neighbors generated.
    pub generated: usize,
    /// Dropped: they fail to run on the base database.
    pub failed: usize,
    /// Neighbors that run on the base database.
    pub valid: usize,
    /// Neighbors some suite database tells from the gold.
    pub distinguished: usize,
    /// The neighbors no suite database tells apart.
    pub undistinguished: Vec<Neighbor>,
    /// Probes run on the gold, and those no suite database satisfies.
    pub probes: usize,
    /// The probes no suite database satisfies.
    pub unsatisfied_probes: Vec<Probe>,
    /// The databases of its suite: the schema's, but for those on which its question has no
    /// natural answer (`ambiguous_on`) and those respelled for other golds.
    pub suite_size: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    /// Suite databases on which its question has no natural answer.
    pub ambiguous_on: Vec<String>,
    /// Suite databases on which the gold itself fails (no part of its suite), and the first
    /// failure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fails_on: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The first of those failures.
    pub first_failure: Option<String>,
    /// False iff some undistinguished neighbor is of a known-hard kind (many WHERE conjuncts,
    /// a `COUNT(…) op N` threshold): then the suite may accept a wrong prediction of that kind.
    /// Other undistinguished neighbors are, in the paper's experience, equivalent queries.
    pub reliable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Why the gold failed on the base database, if it did.
    pub gold_error: Option<String>,
    /// Comparisons natural data never satisfies: the gold's neighbors were told apart on
    /// databases respelled for such golds (and natural ones).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_constants: Vec<String>,
}

/// Report of one schema.
#[derive(Debug, Clone, Serialize)]
pub struct SchemaReport {
    /// The schema.
    pub db_id: String,
    /// Whether an original database was there to induce constraints from.
    pub has_original: bool,
    /// Distinct golds, and the items they stand for.
    pub golds: usize,
    /// Its items.
    pub items: usize,
    /// Random databases drawn.
    pub sampled: usize,
    /// Random databases rejected as the base.
    pub rejected: usize,
    /// Why, for the first few.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejections: Vec<String>,
    /// (gold, database) pairs left out: no natural answer there.
    pub ambiguous: usize,
    /// Suite databases respelled for golds natural data never matches.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub respelled: Vec<String>,
    /// Suite databases drawn for one gold alone (its witness alone, a few rows per table):
    /// (file name, the gold's item index).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alone: Vec<(String, usize)>,
    /// Suite databases of the near-miss sweep (a gold's witness and one near miss): (file
    /// name, the gold's item index).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub swept: Vec<(String, usize)>,
    /// The suite's databases.
    pub suite_size: usize,
    /// Their file names, in order.
    pub databases: Vec<String>,
    /// Bytes of the suite's files.
    pub bytes: u64,
    /// Wall time spent on the schema.
    pub seconds: f64,
    /// Valid neighbors of its golds.
    pub neighbors: usize,
    /// Of those, told apart by some suite database.
    pub distinguished: usize,
    /// How many rules of each kind the random databases were generated within …
    pub constraint_counts: BTreeMap<&'static str, usize>,
    /// … and the rules themselves (also written as the suite's `constraints.toml`).
    pub constraints: Constraints,
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The seed of every random choice.
    pub seed: u64,
    /// Neighbors count as distinguished only if every `plug_value` candidate is told apart too.
    pub plug_value: bool,
    /// The most random databases drawn per schema.
    pub max_databases: usize,
    /// Wall time of the whole distillation.
    pub wall_seconds: f64,
    /// Per schema.
    pub schemas: Vec<SchemaReport>,
    /// Per gold.
    pub golds: Vec<GoldReport>,
    /// Over every schema.
    pub totals: Totals,
}

#[derive(Debug, Clone, Serialize)]
/// Counts over every schema of a distillation.
pub struct Totals {
    /// Distinct golds (per schema), and the items they stand for.
    pub golds: usize,
    /// Their items.
    pub items: usize,
    /// Valid neighbors.
    pub neighbors: usize,
    /// Neighbors told apart.
    pub distinguished: usize,
    /// The fraction told apart.
    pub distinguished_fraction: f64,
    /// Golds with a comparison natural data never satisfies, their neighbors and how many of
    /// those are told apart …
    pub unmatched_golds: usize,
    /// Their neighbors …
    pub unmatched_neighbors: usize,
    /// … of which told apart …
    pub unmatched_distinguished: usize,
    /// … and the fraction distinguished over the other golds' neighbors.
    pub distinguished_fraction_matched: f64,
    /// Neighbors not told apart, by kind.
    pub undistinguished_by_kind: BTreeMap<String, usize>,
    /// Of those, of a known-hard kind.
    pub undistinguished_hard: usize,
    /// Golds with a hard neighbor not told apart.
    pub unreliable_golds: usize,
    /// Golds that failed on their base database.
    pub gold_errors: usize,
    /// Random databases drawn.
    pub databases_sampled: usize,
    /// Databases kept in the suites.
    pub suite_databases: usize,
    /// Bytes of the suites' files.
    pub bytes: u64,
    /// Rules of each kind over all schemas.
    pub constraint_counts: BTreeMap<&'static str, usize>,
    /// Per probe kind: (probes, satisfied by some suite database).
    pub probes: BTreeMap<&'static str, (usize, usize)>,
    /// (gold, database) pairs left out of the gold's suite, and the golds concerned.
    pub ambiguous: usize,
    /// Golds with such databases.
    pub golds_with_ambiguous: usize,
    /// (gold, database) pairs where the gold fails, and the golds concerned.
    pub gold_failures: usize,
    /// Golds with such databases.
    pub golds_failing: usize,
    /// Suite databases respelled for golds natural data never matches.
    pub respelled: usize,
    /// Suite databases drawn for one gold alone.
    pub alone: usize,
    /// Suite databases of the near-miss sweep.
    pub swept: usize,
}

fn gold_report(o: &GoldOutcome, suite_size: usize) -> GoldReport {
    let undistinguished: Vec<Neighbor> = o
        .neighbors
        .iter()
        .filter(|n| n.distinguished_by.is_none())
        .map(|n| n.neighbor.clone())
        .collect();
    GoldReport {
        index: o.index,
        same_gold: o.same_gold.clone(),
        db_id: o.db_id.clone(),
        gold: o.gold.clone(),
        generated: o.generated,
        failed: o.failed,
        valid: o.neighbors.len(),
        distinguished: o.neighbors.len() - undistinguished.len(),
        reliable: !undistinguished.iter().any(|n| n.hard.is_some()),
        probes: o.probes.len(),
        unsatisfied_probes: o
            .probes
            .iter()
            .filter(|p| p.satisfied_by.is_none())
            .map(|p| p.probe.clone())
            .collect(),
        undistinguished,
        suite_size: suite_size - o.ambiguous_on.len() - o.respelled_on.len() - o.fails_on.len(),
        ambiguous_on: o.ambiguous_on.clone(),
        fails_on: o.fails_on.clone(),
        first_failure: o.first_failure.clone(),
        gold_error: o.gold_error.clone(),
        unmatched_constants: o.unmatched_constants.clone(),
    }
}

impl Report {
    /// The report of a distillation with `seed` (`plug_value`-aware or not), drawing at most
    /// `max_databases` per schema, that took `wall_seconds`, from its schemas' outcomes.
    pub fn new(
        seed: u64,
        plug_value: bool,
        max_databases: usize,
        wall_seconds: f64,
        schemas: &[SchemaOutcome],
    ) -> Report {
        let mut golds: Vec<GoldReport> = schemas
            .iter()
            .flat_map(|s| s.golds.iter().map(|g| gold_report(g, s.databases.len())))
            .collect();
        golds.sort_by_key(|g| g.index);
        let schema_reports: Vec<SchemaReport> = schemas
            .iter()
            .map(|s| {
                let neighbors = s.golds.iter().map(|g| g.neighbors.len()).sum();
                let distinguished = s
                    .golds
                    .iter()
                    .flat_map(|g| &g.neighbors)
                    .filter(|n| n.distinguished_by.is_some())
                    .count();
                SchemaReport {
                    db_id: s.db_id.clone(),
                    has_original: s.has_original,
                    golds: s.golds.len(),
                    items: s.golds.iter().map(|g| 1 + g.same_gold.len()).sum(),
                    sampled: s.sampled,
                    rejected: s.rejected,
                    rejections: s.rejections.clone(),
                    ambiguous: s.ambiguous,
                    respelled: s.respelled.clone(),
                    alone: s.alone.clone(),
                    swept: s.swept.clone(),
                    suite_size: s.databases.len(),
                    databases: s.databases.clone(),
                    bytes: s.bytes,
                    seconds: s.seconds,
                    neighbors,
                    distinguished,
                    constraint_counts: s.constraints.counts(),
                    constraints: s.constraints.clone(),
                }
            })
            .collect();
        let neighbors: usize = golds.iter().map(|g| g.valid).sum();
        let distinguished: usize = golds.iter().map(|g| g.distinguished).sum();
        let mut by_kind = BTreeMap::new();
        let mut hard = 0;
        for n in golds.iter().flat_map(|g| &g.undistinguished) {
            *by_kind.entry(n.kind.as_str().to_owned()).or_insert(0) += 1;
            hard += usize::from(n.hard.is_some());
        }
        let fraction = |d: usize, n: usize| if n == 0 { 1.0 } else { d as f64 / n as f64 };
        let unmatched: Vec<&GoldReport> = golds
            .iter()
            .filter(|g| !g.unmatched_constants.is_empty())
            .collect();
        let unmatched_neighbors: usize = unmatched.iter().map(|g| g.valid).sum();
        let unmatched_distinguished: usize = unmatched.iter().map(|g| g.distinguished).sum();
        let mut probes: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
        for o in schemas.iter().flat_map(|s| &s.golds) {
            for p in &o.probes {
                let e = probes.entry(p.probe.kind.as_str()).or_default();
                e.0 += 1;
                e.1 += usize::from(p.satisfied_by.is_some());
            }
        }
        let totals = Totals {
            golds: golds.len(),
            items: golds.iter().map(|g| 1 + g.same_gold.len()).sum(),
            neighbors,
            distinguished,
            distinguished_fraction: fraction(distinguished, neighbors),
            unmatched_golds: unmatched.len(),
            unmatched_neighbors,
            unmatched_distinguished,
            distinguished_fraction_matched: fraction(
                distinguished - unmatched_distinguished,
                neighbors - unmatched_neighbors,
            ),
            undistinguished_by_kind: by_kind,
            undistinguished_hard: hard,
            unreliable_golds: golds.iter().filter(|g| !g.reliable).count(),
            gold_errors: golds.iter().filter(|g| g.gold_error.is_some()).count(),
            databases_sampled: schema_reports.iter().map(|s| s.sampled).sum(),
            suite_databases: schema_reports.iter().map(|s| s.suite_size).sum(),
            bytes: schema_reports.iter().map(|s| s.bytes).sum(),
            probes,
            ambiguous: schema_reports.iter().map(|s| s.ambiguous).sum(),
            golds_with_ambiguous: golds.iter().filter(|g| !g.ambiguous_on.is_empty()).count(),
            gold_failures: golds.iter().map(|g| g.fails_on.len()).sum(),
            golds_failing: golds.iter().filter(|g| !g.fails_on.is_empty()).count(),
            respelled: schema_reports.iter().map(|s| s.respelled.len()).sum(),
            alone: schema_reports.iter().map(|s| s.alone.len()).sum(),
            swept: schema_reports.iter().map(|s| s.swept.len()).sum(),
            constraint_counts: schema_reports
                .iter()
                .flat_map(|s| &s.constraint_counts)
                .fold(BTreeMap::new(), |mut all, (k, n)| {
                    *all.entry(*k).or_insert(0) += n;
                    all
                }),
        };
        Report {
            seed,
            plug_value,
            max_databases,
            wall_seconds,
            schemas: schema_reports,
            golds,
            totals,
        }
    }

    /// A readable summary: one line per schema, the totals, undistinguished neighbors by kind.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "{:<32} {:>5} {:>5} {:>7} {:>7} {:>6} {:>9} {:>8} {:>10}\n",
            "schema", "items", "golds", "neighb", "distin", "suite", "sampled", "KiB", "seconds"
        ));
        for r in &self.schemas {
            s.push_str(&format!(
                "{:<32} {:>5} {:>5} {:>7} {:>7} {:>6} {:>9} {:>8} {:>10.1}\n",
                format!(
                    "{}{}",
                    r.db_id,
                    if r.has_original { "" } else { " (random only)" }
                ),
                r.items,
                r.golds,
                r.neighbors,
                r.distinguished,
                r.suite_size,
                r.sampled,
                r.bytes.div_ceil(1024),
                r.seconds
            ));
        }
        let t = &self.totals;
        s.push_str(&format!(
            "total: {} items, {} distinct golds, {} neighbors, {} distinguished = {:.3}%; {} suite databases \
             ({:.2} MiB) from {} sampled; {} golds unreliable, {} gold errors; wall {:.1} s \
             (seed {}, at most {} databases per schema{})\n",
            t.items,
            t.golds,
            t.neighbors,
            t.distinguished,
            100.0 * t.distinguished_fraction,
            t.suite_databases,
            t.bytes as f64 / (1024.0 * 1024.0),
            t.databases_sampled,
            t.unreliable_golds,
            t.gold_errors,
            self.wall_seconds,
            self.seed,
            self.max_databases,
            if self.plug_value { ", plug_value" } else { "" }
        ));
        if t.unmatched_golds > 0 {
            s.push_str(&format!(
                "{} golds compare with a constant natural data never holds (spelled otherwise \
                 in the data; see report.json): {} of their {} neighbors told apart, on {} \
                 databases that spell it as they do and serve only them; over the other golds' \
                 neighbors: {:.3}%\n",
                t.unmatched_golds,
                t.unmatched_distinguished,
                t.unmatched_neighbors,
                t.respelled,
                100.0 * t.distinguished_fraction_matched
            ));
        }
        if !t.constraint_counts.is_empty() {
            s.push_str(&format!(
                "generated within constraints (each suite's constraints.toml): {}\n",
                counts(&t.constraint_counts)
            ));
        }
        if t.ambiguous > 0 {
            s.push_str(&format!(
                "{} (gold, database) pairs left out of the gold's suite ({} golds): its question \
                 has no natural answer there (a tie decides a superlative, or it ranges over \
                 nothing); listed in each suite's exclusions.json\n",
                t.ambiguous, t.golds_with_ambiguous
            ));
        }
        if t.gold_failures > 0 {
            s.push_str(&format!(
                "{} (gold, database) pairs left out of the gold's suite ({} golds): the gold \
                 fails there (first failure per gold in report.json); listed in each suite's \
                 exclusions.json\n",
                t.gold_failures, t.golds_failing
            ));
        }
        if t.alone > 0 {
            s.push_str(&format!(
                "{} suite databases drawn for one gold alone, a few rows per table (`alone` \
                 per schema in report.json)\n",
                t.alone
            ));
        }
        if t.swept > 0 {
            s.push_str(&format!(
                "{} suite databases of the near-miss sweep, a gold's witness and one near miss \
                 (`swept` per schema in report.json)\n",
                t.swept
            ));
        }
        if !t.probes.is_empty() {
            let kinds: Vec<String> = t
                .probes
                .iter()
                .map(|(k, (n, ok))| format!("{k} {ok} of {n}"))
                .collect();
            s.push_str(&format!(
                "probes satisfied (where natural data allows): {}\n",
                kinds.join(", ")
            ));
        }
        if !t.undistinguished_by_kind.is_empty() {
            s.push_str(&format!(
                "undistinguished by kind: {} ({} of a known-hard kind)\n",
                counts(&t.undistinguished_by_kind),
                t.undistinguished_hard
            ));
        }
        s
    }
}

/// `name n, name n, …` in the map's order.
fn counts<K: std::fmt::Display>(by: &BTreeMap<K, usize>) -> String {
    let listed: Vec<String> = by.iter().map(|(k, n)| format!("{k} {n}")).collect();
    listed.join(", ")
}
