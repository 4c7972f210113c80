//! `empty_result`: the gold returns nothing on a database of its item — no row, or only rows
//! of NULLs (an aggregate over no row: `MAX(…)` gives one NULL row). A prediction that returns
//! nothing else is judged correct there whatever it asks, and the question may have no natural
//! answer on that database.

use crate::denotation::{ResultTable, Value};

use super::{on_databases, Finding, GoldCheckEntry, GoldContext};

/// `empty_result` in the registry.
pub const ENTRY: GoldCheckEntry = GoldCheckEntry {
    name: "empty_result",
    codes: &["empty_result"],
    runs_queries: true,
    run,
};

/// `Some("no row")` / `Some("only NULL")` when the result holds nothing.
pub fn nothing(table: &ResultTable) -> Option<&'static str> {
    if table.rows.is_empty() {
        Some("no row")
    } else if table
        .rows
        .iter()
        .all(|row| row.iter().all(|v| *v == Value::Null))
    {
        Some("only NULL")
    } else {
        None
    }
}

fn run(context: &GoldContext<'_>) -> Vec<Finding> {
    context.each_item(|item| {
        let results = context.results(item);
        let empty: Vec<_> = results
            .iter()
            .filter_map(|(db, r)| {
                let table = r.as_ref().as_ref().ok()?;
                nothing(table).map(|what| (*db, what))
            })
            .collect();
        match empty.first() {
            None => Vec::new(),
            Some((db, what)) => vec![(
                ENTRY.name,
                format!(
                    "returns {what} on {}",
                    on_databases(db, empty.len() - 1, results.len())
                ),
            )],
        }
    })
}
