//! `ties_at_limit`, `ties_in_order`, `ties_in_subquery`: the gold's answer depends on how
//! ties are broken on a database of its item — its LIMIT cuts a group of rows its sort keys
//! tie (which rows), tied rows that differ come in an order nothing fixes (their order), or a
//! nested `ORDER BY … LIMIT` cuts a tie (the rows the subquery picks). The same tests as the
//! exec metric's tie-aware comparison (spec/exec.md §4b), run whatever its mode.

use std::collections::BTreeSet;

use crate::exec_plan::order::{gold_flags, order_plan};

use super::{Finding, GoldCheckEntry, GoldContext};

/// The tie checks in the registry.
pub const ENTRY: GoldCheckEntry = GoldCheckEntry {
    name: "ties",
    codes: &["ties_at_limit", "ties_in_order", "ties_in_subquery"],
    runs_queries: true,
    run,
};

fn reason(code: &str) -> &'static str {
    match code {
        "ties_at_limit" => "its LIMIT cuts rows its ORDER BY keys tie: which rows it returns depends on tie-breaking",
        "ties_in_order" => "rows its ORDER BY keys tie differ: their order depends on tie-breaking",
        _ => "a nested ORDER BY … LIMIT cuts a tie: the rows the subquery picks depend on tie-breaking",
    }
}

fn run(context: &GoldContext<'_>) -> Vec<Finding> {
    context.each_item(|item| {
        let Some((dbs, queries)) = context.runnable(item) else {
            return Vec::new();
        };
        let sql = &queries.alternatives[0];
        let lowered = sql.to_lowercase();
        if !lowered.contains("order by") {
            return Vec::new();
        }
        let order = order_plan(sql);
        let mut found = BTreeSet::new();
        // Per database, so that the reason names the first one it holds on.
        let mut first = Vec::new();
        for db in dbs {
            for code in gold_flags(
                sql,
                Some(&order),
                std::slice::from_ref(db),
                context.executor,
                &queries.limits,
            ) {
                if found.insert(code) {
                    first.push((code, db.label()));
                }
            }
        }
        first
            .into_iter()
            .map(|(code, db)| (code, format!("{} (on {db})", reason(code))))
            .collect()
    })
}
