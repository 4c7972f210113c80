//! SEDE val: one trial per item (from `datasets/sede.toml`; the prediction set is the queries
//! before the dataset's manual fixes), plus `sede::gold_parse::snapshot`, the parse report of
//! the val and test golds: the parse rate of each mode and every gold that does not parse, with
//! the parser's message, kept as an insta snapshot.

use std::fmt::Write;
use std::path::Path;

use libtest_mimic::{Failed, Trial};
use sqlsuite::dataset::sede;
use sqlsuite::report::snapshot;
use sqlsuite::{trials, Manifest};
use sqlsuite_reference::pcm::{self, Rules};

use crate::Trials;

const MANIFEST: &str = "datasets/sede.toml";

pub fn trials() -> Trials {
    let (mut trials, eval) = trials::trials_for(Path::new(MANIFEST));
    if eval.is_some() {
        trials.push(Trial::test("sede::gold_parse::snapshot", gold_parse_report));
    }
    (trials, eval.into_iter().collect())
}

/// The parse report of `val.jsonl` and `test.jsonl` beside the manifest's gold.
fn gold_parse_report() -> Result<(), Failed> {
    let manifest = Manifest::load(MANIFEST).map_err(|e| e.to_string())?;
    let dir = manifest.gold.parent().unwrap_or(Path::new("."));
    let mut splits = Vec::new();
    for split in ["val", "test"] {
        let items =
            sede::read_gold(&dir.join(format!("{split}.jsonl"))).map_err(|e| e.to_string())?;
        splits.push((split, items));
    }
    let total: usize = splits.iter().map(|(_, items)| items.len()).sum();
    let mut report = String::new();
    for (mode, rules) in [("default", Rules::DEFAULT), ("compat sede", Rules::SEDE)] {
        let mut failures = Vec::new();
        for (split, items) in &splits {
            for item in items {
                if let Err(e) = pcm::parse(&item.gold, rules) {
                    let id = item
                        .source
                        .rsplit_once("(QuerySetId ")
                        .map_or("", |(_, r)| r);
                    failures.push(format!("  {split} #{} (QuerySetId {id}: {e}", item.index));
                }
            }
        }
        let parsed = total - failures.len();
        let _ = writeln!(
            report,
            "{mode}: {parsed}/{total} val+test golds parse = {:.2}%",
            100.0 * parsed as f64 / total.max(1) as f64
        );
        if mode == "default" {
            report.push_str(&failures.join("\n"));
            report.push('\n');
        }
    }
    println!("{report}");
    snapshot::assert_named(
        &manifest.snapshots,
        "sede__gold_parse",
        &manifest.path,
        &report,
    )
    .map_err(Failed::from)
}
