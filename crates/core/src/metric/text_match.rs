//! Text exact match for SQL-to-text: a prediction is correct when its `13a` tokens (sacreBLEU's
//! tokenizer, `spec/bleu.md`) equal those of one of the item's references — white space and the
//! spacing of punctuation do not matter, case does unless `lowercase` is set.

use serde::Deserialize;

use super::bleu::segments;
use super::{Metric, MetricEntry, Resources, Verdict};
use crate::backend::Database;
use crate::config::{FromSection, ManifestError, Section};
use crate::dataset::Item;
use crate::executor::Executor;

/// `[metrics.text_match]` options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TextMatchOptions {
    /// Compare lowercased texts.
    pub lowercase: bool,
}

impl FromSection for TextMatchOptions {
    fn from_section(section: &Section<'_>) -> Result<Self, ManifestError> {
        section.read()
    }
}

/// `[metrics.text_match]` in the registry.
pub const ENTRY: MetricEntry = MetricEntry {
    name: "text_match",
    runs_queries: false,
    build,
};

fn build(section: &Section<'_>, _: &Resources) -> Result<Box<dyn Metric>, ManifestError> {
    Ok(Box::new(TextMatch {
        options: TextMatchOptions::from_section(section)?,
    }))
}

/// The text exact-match metric.
#[derive(Debug, Clone, Default)]
pub struct TextMatch {
    /// Its options.
    pub options: TextMatchOptions,
}

impl Metric for TextMatch {
    fn name(&self) -> &'static str {
        "text_match"
    }

    fn needs_database(&self) -> bool {
        false
    }

    fn evaluate(&self, item: &Item, prediction: &str, _: &[Database], _: &Executor) -> Verdict {
        let (hyp, refs) = segments(item, prediction, self.options.lowercase);
        if refs.iter().all(String::is_empty) {
            return Verdict::gold_error("the item has no reference text");
        }
        if refs.contains(&hyp) {
            return Verdict::correct();
        }
        let closest = refs
            .iter()
            .min_by_key(|r| r.len().abs_diff(hyp.len()))
            .map(String::as_str)
            .unwrap_or_default();
        Verdict::incorrect(
            "text_differs",
            "the text matches no reference",
            format!("tokens:     {hyp}\nreference:  {closest}\n"),
        )
    }
}
