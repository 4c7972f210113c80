//! `duplicate`: the item repeats an earlier one — the same database, the same gold (up to the
//! letter case of keywords and identifiers, and white space) and the same question (up to
//! letter case and white space; for a conversational turn, the same questions before it in its
//! interaction too). It counts twice in every accuracy.
//!
//! The same gold with a *different* question is not flagged: that is a paraphrase, which
//! Spider and others include on purpose (spec/gold_checks.md, "Duplicates"). Items without a
//! question (a gold file of SQL lines) are not compared: a paraphrase and a duplicate look alike
//! there.

use std::collections::HashMap;

use crate::dataset::Item;
use crate::sql_tokens::{tokenize, TokenKind};

use super::{Finding, GoldCheckEntry, GoldContext};

/// `duplicate` in the registry.
pub const ENTRY: GoldCheckEntry = GoldCheckEntry {
    name: "duplicate",
    codes: &["duplicate"],
    runs_queries: false,
    run,
};

/// The gold's tokens, keywords and identifiers in lower case.
fn gold_key(gold: &str) -> Vec<String> {
    tokenize(gold)
        .into_iter()
        .map(|t| match t.kind {
            TokenKind::Word => t.text.to_ascii_lowercase(),
            _ => t.text,
        })
        .collect()
}

fn text_key(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Item `i`'s question, with the questions before it in its interaction.
fn question_key(items: &[Item], i: usize) -> Option<Vec<String>> {
    let item = &items[i];
    let question = text_key(item.question.as_deref()?);
    let Some(turn) = item.turn else {
        return Some(vec![question]);
    };
    let mut key: Vec<String> = items[..i]
        .iter()
        .filter(|o| o.turn.is_some_and(|t| t.interaction == turn.interaction))
        .map(|o| o.question.as_deref().map(text_key).unwrap_or_default())
        .collect();
    key.push(question);
    Some(key)
}

type Key<'a> = (&'a str, Vec<String>, Vec<String>);

fn run(context: &GoldContext<'_>) -> Vec<Finding> {
    let items = context.items;
    let mut first: HashMap<Key<'_>, usize> = HashMap::new();
    let mut found = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(question) = question_key(items, i) else {
            continue;
        };
        let key = (item.db_id.as_str(), gold_key(&item.gold), question);
        match first.get(&key) {
            Some(&earlier) => found.push(Finding {
                item: i,
                check: ENTRY.name,
                reason: format!(
                    "repeats item {} ({}): the same database, gold and question",
                    items[earlier].index, items[earlier].source
                ),
            }),
            None => {
                first.insert(key, i);
            }
        }
    }
    found
}
