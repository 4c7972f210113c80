//! BLEU-4 for SQL-to-text, as sacreBLEU computes it (`spec/bleu.md`): per item the sentence
//! BLEU (exp smoothing, effective order) against the item's references, per prediction set or
//! group the corpus BLEU (exp smoothing, statistics summed over the items), both with the `13a`
//! tokenizer and on sacreBLEU's 0–100 scale.
//!
//! An item's trial passes on a text exact match (same `13a` tokens as a reference), or when the
//! manifest sets `pass_bleu` and the sentence BLEU reaches it (code `correct_bleu`). The verdict
//! carries `sentence_bleu` and `text_em` as scores the summary averages; the corpus BLEU is the
//! metric's corpus score `bleu`, which the gate's `min_accuracy = { bleu = … }` checks as a
//! fraction (BLEU / 100).

use std::fmt::Write;

use serde::Deserialize;

use super::{Metric, MetricEntry, Resources, Verdict};
use crate::backend::Database;
use crate::config::{FromSection, ManifestError, Section};
use crate::dataset::Item;
use crate::executor::Executor;
use sqlsuite_reference::sacrebleu::{self, Stats};

/// `[metrics.bleu]` options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BleuOptions {
    /// Lowercase prediction and references first (sacreBLEU's `-lc`).
    pub lowercase: bool,
    /// An item also passes when its sentence BLEU (0–100) reaches this.
    pub pass_bleu: Option<f64>,
}

impl FromSection for BleuOptions {
    fn from_section(section: &Section<'_>) -> Result<Self, ManifestError> {
        let options: BleuOptions = section.read()?;
        if let Some(t) = options.pass_bleu {
            if !(0.0..=100.0).contains(&t) {
                return Err(section.error(format!(
                    "pass_bleu = {t} must be a sentence BLEU between 0 and 100"
                )));
            }
        }
        Ok(options)
    }
}

/// `[metrics.bleu]` in the registry.
pub const ENTRY: MetricEntry = MetricEntry {
    name: "bleu",
    runs_queries: false,
    build,
};

fn build(section: &Section<'_>, _: &Resources) -> Result<Box<dyn Metric>, ManifestError> {
    Ok(Box::new(BleuMetric {
        options: BleuOptions::from_section(section)?,
    }))
}

/// The BLEU metric.
#[derive(Debug, Clone, Default)]
pub struct BleuMetric {
    /// Its options.
    pub options: BleuOptions,
}

/// An item's references: all of them where the dataset has several, else the gold.
pub fn references(item: &Item) -> &[String] {
    if item.references.is_empty() {
        std::slice::from_ref(&item.gold)
    } else {
        &item.references
    }
}

/// The preprocessed (`13a`-tokenized) prediction and references of one item.
pub fn segments(item: &Item, prediction: &str, lowercase: bool) -> (String, Vec<String>) {
    let refs = references(item)
        .iter()
        .map(|r| sacrebleu::preprocess(r, lowercase))
        .collect();
    (sacrebleu::preprocess(prediction, lowercase), refs)
}

/// `p1/p2/p3/p4 (BP b, hyp/ref tokens h/r)`.
fn breakdown(b: &sacrebleu::Bleu) -> String {
    let p: Vec<String> = b.precisions.iter().map(|p| format!("{p:.1}")).collect();
    format!(
        "precisions {} (BP {:.3}, tokens {}/{})",
        p.join("/"),
        b.brevity_penalty,
        b.stats.hyp_len,
        b.stats.ref_len
    )
}

impl Metric for BleuMetric {
    fn name(&self) -> &'static str {
        "bleu"
    }

    fn needs_database(&self) -> bool {
        false
    }

    fn evaluate(&self, item: &Item, prediction: &str, _: &[Database], _: &Executor) -> Verdict {
        let (hyp, refs) = segments(item, prediction, self.options.lowercase);
        if refs.iter().all(String::is_empty) {
            return Verdict::gold_error("the item has no reference text");
        }
        let exact = refs.contains(&hyp);
        let bleu = sacrebleu::sentence(&hyp, &refs);
        let scores = vec![
            ("sentence_bleu", bleu.score),
            ("text_em", if exact { 1.0 } else { 0.0 }),
        ];
        if exact {
            return Verdict::correct().with_scores(scores);
        }
        let passes = self.options.pass_bleu.is_some_and(|t| bleu.score >= t);
        let threshold = match self.options.pass_bleu {
            Some(t) => format!(", pass_bleu {t:.2}"),
            None => String::new(),
        };
        let reason = format!(
            "sentence BLEU {:.2}{threshold}, not an exact match; {}",
            bleu.score,
            breakdown(&bleu)
        );
        if passes {
            return Verdict {
                code: "correct_bleu".into(),
                reason,
                ..Verdict::correct()
            }
            .with_scores(scores);
        }
        let mut details = format!("tokens:     {hyp}\n");
        for r in &refs {
            let _ = writeln!(details, "reference:  {r}");
        }
        Verdict::incorrect("text_differs", reason, details).with_scores(scores)
    }

    fn corpus_scores(&self, pairs: &[(&Item, &str)]) -> Vec<(&'static str, f64)> {
        let mut total = Stats::default();
        for (item, prediction) in pairs {
            let (hyp, refs) = segments(item, prediction, self.options.lowercase);
            total += sacrebleu::segment_stats(&hyp, &refs);
        }
        vec![("bleu", sacrebleu::corpus(total).score / 100.0)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::sqlite::Sqlite;
    use crate::metric::Status;

    fn item(refs: &[&str]) -> Item {
        Item {
            references: refs.iter().map(|r| (*r).to_owned()).collect(),
            ..Item::new(0, "-", refs[0], "t#0")
        }
    }

    fn judge(options: BleuOptions, refs: &[&str], prediction: &str) -> Verdict {
        let ex = Executor::new(Box::new(Sqlite::default()), None);
        BleuMetric { options }.evaluate(&item(refs), prediction, &[], &ex)
    }

    #[test]
    fn passes_on_exact_tokens_or_at_the_threshold_and_fails_below_it() {
        let refs = ["How many singers are there?", "Count the singers."];
        // Spacing of punctuation does not matter; the second reference matches.
        let v = judge(BleuOptions::default(), &refs, "Count the singers .");
        assert_eq!((v.status, v.code.as_str()), (Status::Correct, "correct"));
        assert_eq!(v.scores[1], ("text_em", 1.0));

        let near = "How many singers are there in total?";
        let v = judge(BleuOptions::default(), &refs, near);
        assert_eq!(
            (v.status, v.code.as_str()),
            (Status::Incorrect, "text_differs")
        );
        let bleu = v.scores[0].1;
        assert!(bleu > 40.0 && bleu < 100.0, "{bleu}");
        assert!(v.reason.contains("sentence BLEU") && v.details.contains("reference:"));

        let at = |t: f64| BleuOptions {
            pass_bleu: Some(t),
            ..BleuOptions::default()
        };
        let v = judge(at(bleu), &refs, near);
        assert_eq!(
            (v.status, v.code.as_str()),
            (Status::Correct, "correct_bleu")
        );
        let v = judge(at(bleu + 0.01), &refs, near);
        assert_eq!(v.status, Status::Incorrect);
    }

    #[test]
    fn case_counts_unless_lowercased_and_an_empty_reference_is_a_gold_error() {
        let v = judge(
            BleuOptions::default(),
            &["List all names."],
            "list all names.",
        );
        assert_eq!(v.status, Status::Incorrect);
        let lc = BleuOptions {
            lowercase: true,
            ..BleuOptions::default()
        };
        let v = judge(lc, &["List all names."], "list all names.");
        assert_eq!(v.status, Status::Correct);
        let v = judge(BleuOptions::default(), &["  "], "anything");
        assert_eq!(v.status, Status::GoldError);
    }
}
