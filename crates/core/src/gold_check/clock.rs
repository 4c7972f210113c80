//! `reads_clock`: the gold reads the current date or time (`'now'`, `CURRENT_DATE`, …), so
//! its answer depends on the moment it runs unless the manifest pins the clock
//! (`[dataset] clock`, spec/manifest.md).

use crate::clock::reads_clock;

use super::{Finding, GoldCheckEntry, GoldContext};

/// `reads_clock` in the registry.
pub const ENTRY: GoldCheckEntry = GoldCheckEntry {
    name: "reads_clock",
    codes: &["reads_clock"],
    // Only a gold that runs reads the clock.
    runs_queries: true,
    run,
};

fn run(context: &GoldContext<'_>) -> Vec<Finding> {
    context
        .items
        .iter()
        .enumerate()
        .filter(|(i, item)| context.runnable(*i).is_some() && reads_clock(&item.gold))
        .map(|(item, _)| Finding {
            item,
            check: ENTRY.name,
            reason: "reads the current date or time: its answer depends on the moment".to_owned(),
        })
        .collect()
}
