//! `gold_error`: the gold fails on a database of its item (an error, a time or row limit), so
//! no prediction can be judged there.

use super::{on_databases, Finding, GoldCheckEntry, GoldContext};

/// `gold_error` in the registry.
pub const ENTRY: GoldCheckEntry = GoldCheckEntry {
    name: "gold_error",
    codes: &["gold_error"],
    runs_queries: true,
    run,
};

fn run(context: &GoldContext<'_>) -> Vec<Finding> {
    context.each_item(|item| {
        let results = context.results(item);
        let failed: Vec<_> = results
            .iter()
            .filter_map(|(db, r)| r.as_ref().as_ref().err().map(|e| (*db, e)))
            .collect();
        match failed.first() {
            None => Vec::new(),
            Some((db, error)) => vec![(
                ENTRY.name,
                format!(
                    "fails on {}: {error}",
                    on_databases(db, failed.len() - 1, results.len())
                ),
            )],
        }
    })
}
