//! Partial Component Match, SEDE's metric: gold and prediction are parsed (MsSql dialect) and
//! their components compared category by category (`spec/pcm.md`). No database is needed.
//!
//! A prediction is correct when PCM-EM is 1. The verdict carries the F1 of each category
//! (as component scores) and `pcm_f1`, `pcm_em`, `pcm_f1_novalues`, `pcm_em_novalues` (as
//! scores the summary averages); a failure lists, per category, the elements only one side has.

use std::fmt::Write;

use serde::Deserialize;

use super::{ComponentScore, Metric, MetricEntry, Resources, Verdict};
use crate::backend::Database;
use crate::config::{FromSection, ManifestError, Section};
use crate::dataset::Item;
use crate::executor::Executor;
use sqlsuite_reference::pcm::{self, Element, PcmScore, Rules, Variant};

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
    /// SEDE's own evaluator (`sede/src/metrics/partial_match_eval`).
    Sede,
}

impl FromSection for PcmOptions {
    fn from_section(section: &Section<'_>) -> Result<Self, ManifestError> {
        section.read()
    }
}

/// `[metrics.pcm]` in the registry.
pub const ENTRY: MetricEntry = MetricEntry {
    name: "pcm",
    runs_queries: false,
    build,
};

fn build(section: &Section<'_>, _: &Resources) -> Result<Box<dyn Metric>, ManifestError> {
    Ok(Box::new(Pcm::new(&PcmOptions::from_section(section)?)))
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
    /// The metric with `options`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::sqlite::Sqlite;
    use crate::metric::Status;

    fn judge(options: &PcmOptions, gold: &str, prediction: &str) -> Verdict {
        let item = Item::new(0, "stackexchange", gold, "test");
        let executor = Executor::new(Box::new(Sqlite::default()), None);
        Pcm::new(options).evaluate(&item, prediction, &[], &executor)
    }

    fn score(v: &Verdict, name: &str) -> f64 {
        v.scores
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(f64::NAN, |(_, s)| *s)
    }

    #[test]
    fn verdicts_scores_and_messages() {
        let default = PcmOptions::default();
        let gold =
            "SELECT TOP ##N:int?10## Id, Score FROM Posts WHERE Score > 10 ORDER BY Score DESC";
        let v = judge(
            &default,
            gold,
            "select top 10 id, score from posts where score > 10 order by score desc",
        );
        assert_eq!(v.status, Status::Correct, "{v:?}");
        assert_eq!((score(&v, "pcm_f1"), score(&v, "pcm_em")), (1.0, 1.0));

        let v = judge(
            &default,
            gold,
            "SELECT TOP 10 Id FROM Posts WHERE Score > 5 ORDER BY Score DESC",
        );
        assert_eq!(v.code, "components_differ");
        assert!(v.reason.starts_with("PCM-F1 0."), "{}", v.reason);
        assert!(v.reason.contains("where 0."), "{}", v.reason);
        assert!(v.details.contains("gold only:       10"), "{}", v.details);
        assert!(v.details.contains("prediction only: 5"), "{}", v.details);
        // Values anonymised: only the dropped column still differs.
        assert_eq!(score(&v, "pcm_em_novalues"), 0.0);
        assert!(score(&v, "pcm_f1_novalues") > score(&v, "pcm_f1"));
        let where_ = v.components.iter().find(|c| c.component == "where");
        assert!(where_.is_some_and(|c| c.f1 < 1.0));

        let v = judge(&default, gold, "SELEC nothing");
        assert_eq!(v.code, "parse_error");
        assert_eq!(score(&v, "pcm_f1"), 0.0);

        let v = judge(&default, "SELECT FROM WHERE", "SELECT 1");
        assert_eq!(v.status, Status::GoldError);
        assert!(v.reason.contains("the gold does not parse"), "{}", v.reason);

        let compat = PcmOptions {
            compat: Some(PcmCompat::Sede),
        };
        let v = judge(
            &compat,
            gold,
            "select top 10 id, score from posts where score > 10 order by score desc",
        );
        assert_eq!(v.status, Status::Correct, "{v:?}");
    }
}
