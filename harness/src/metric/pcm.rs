//! Partial Component Match, SEDE's metric: gold and prediction are parsed (MsSql dialect) and
//! their components compared category by category (`spec/pcm.md`). No database is needed.
//!
//! A prediction is correct when PCM-EM is 1. The verdict carries the F1 of each category
//! (as component scores) and `pcm_f1`, `pcm_em`, `pcm_f1_novalues`, `pcm_em_novalues` (as
//! scores the summary averages); a failure lists, per category, the elements only one side has.

use std::fmt::Write;

use serde::Deserialize;

use super::{ComponentScore, Metric, Verdict};
use crate::backend::Database;
use crate::dataset::Item;
use crate::execution::Executor;
use crate::pcm::{self, Element, PcmScore, Rules, Variant};

/// `[metrics.pcm]` options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PcmOptions {
    /// `"sede"` reproduces the reference evaluator, its known defects included.
    pub compat: Option<PcmCompat>,
}

/// Which reference to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PcmCompat {
    Sede,
}

/// The PCM metric.
#[derive(Debug, Clone)]
pub struct Pcm {
    rules: Rules,
}

/// Elements listed per side and category in a failure message.
const MAX_LISTED: usize = 12;
/// Characters shown of one listed element.
const MAX_ELEMENT_CHARS: usize = 120;

impl Pcm {
    pub fn new(options: &PcmOptions) -> Pcm {
        Pcm {
            rules: match options.compat {
                Some(PcmCompat::Sede) => Rules::SEDE,
                None => Rules::DEFAULT,
            },
        }
    }
}

fn score_names(variant: Variant) -> (&'static str, &'static str) {
    match variant {
        Variant::Values => ("pcm_f1", "pcm_em"),
        Variant::NoValues => ("pcm_f1_novalues", "pcm_em_novalues"),
    }
}

fn shown(e: &Element) -> String {
    let s = e.to_string();
    match s.char_indices().nth(MAX_ELEMENT_CHARS) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s,
    }
}

fn listed(elements: &[Element]) -> String {
    let mut parts: Vec<String> = elements.iter().take(MAX_LISTED).map(shown).collect();
    if elements.len() > MAX_LISTED {
        parts.push(format!("… and {} more", elements.len() - MAX_LISTED));
    }
    parts.join(" | ")
}

/// Per-category F1 on one line: `select 1.00, from 0.67`.
fn per_category(score: &PcmScore) -> String {
    score
        .categories
        .iter()
        .map(|c| format!("{} {:.2}", c.category.as_str(), c.f1))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Metric for Pcm {
    fn name(&self) -> &'static str {
        "pcm"
    }

    fn needs_database(&self) -> bool {
        false
    }

    fn evaluate(&self, item: &Item, prediction: &str, _: &[Database], _: &Executor) -> Verdict {
        let gold = match pcm::parse(&item.gold, self.rules) {
            Ok(g) => g,
            Err(e) => return Verdict::gold_error(format!("the gold does not parse: {e}")),
        };
        let zero = || {
            Variant::ALL
                .into_iter()
                .flat_map(|v| {
                    let (f1, em) = score_names(v);
                    [(f1, 0.0), (em, 0.0)]
                })
                .collect()
        };
        let predicted = match pcm::parse(prediction, self.rules) {
            Ok(p) => p,
            Err(e) => {
                return Verdict::incorrect(
                    "parse_error",
                    format!("the prediction does not parse (PCM-F1 0): {e}"),
                    String::new(),
                )
                .with_scores(zero())
            }
        };
        let values = pcm::score(&gold, &predicted, self.rules, Variant::Values);
        let no_values = pcm::score(&gold, &predicted, self.rules, Variant::NoValues);
        let mut scores = Vec::new();
        for (variant, s) in [(Variant::Values, &values), (Variant::NoValues, &no_values)] {
            let (f1, em) = score_names(variant);
            scores.push((f1, s.f1));
            scores.push((em, if s.exact { 1.0 } else { 0.0 }));
        }
        let components = values
            .categories
            .iter()
            .map(|c| ComponentScore {
                component: c.category.as_str(),
                acc: c.precision,
                rec: c.recall,
                f1: c.f1,
                label_total: c.gold,
                pred_total: c.predicted,
            })
            .collect();
        let verdict = if values.exact {
            Verdict::correct()
        } else {
            let mut details = String::new();
            for c in values.categories.iter().filter(|c| c.f1 < 1.0) {
                let _ = writeln!(
                    details,
                    "{}: F1 {:.4} (precision {:.4}, recall {:.4}; {} gold, {} predicted elements)",
                    c.category.as_str(),
                    c.f1,
                    c.precision,
                    c.recall,
                    c.gold,
                    c.predicted
                );
                if !c.unmatched_gold.is_empty() {
                    let _ = writeln!(details, "  gold only:       {}", listed(&c.unmatched_gold));
                }
                if !c.unmatched_predicted.is_empty() {
                    let _ = writeln!(
                        details,
                        "  prediction only: {}",
                        listed(&c.unmatched_predicted)
                    );
                }
            }
            let _ = writeln!(
                details,
                "no values (values anonymised, ON ignored): PCM-F1 {:.4}, PCM-EM {} ({})",
                no_values.f1,
                u8::from(no_values.exact),
                per_category(&no_values)
            );
            Verdict::incorrect(
                "components_differ",
                format!("PCM-F1 {:.4}: {}", values.f1, per_category(&values)),
                details,
            )
        };
        verdict.with_components(components).with_scores(scores)
    }
}
