//! Alignment quality: how many question words are tagged, how many clauses get an empty
//! fragment, how much of each question the fragments cover; and the same with each adjustment
//! rule switched, which is the measurement behind each rule.

use std::collections::BTreeMap;

use super::clauses::ClauseKind;
use super::recombine::render;
use super::tagging::{Normalizer, Rules};
use super::{align, Alignment, NaturalNames, SourcePair};

/// Alignment counts over a set of source pairs (punctuation is not a word here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quality {
    /// Question words.
    pub words: usize,
    /// Words with at least one tag.
    pub tagged: usize,
    /// Words inside some clause's fragment.
    pub in_fragments: usize,
    /// Clauses.
    pub clauses: usize,
    /// Clauses whose fragment has no word.
    pub empty_fragments: usize,
}

impl Quality {
    /// Share of words tagged.
    pub fn coverage(&self) -> f64 {
        ratio(self.tagged, self.words)
    }

    /// Share of words inside some fragment.
    pub fn fragment_coverage(&self) -> f64 {
        ratio(self.in_fragments, self.words)
    }

    /// Share of clauses with an empty fragment.
    pub fn empty_share(&self) -> f64 {
        ratio(self.empty_fragments, self.clauses)
    }

    /// Adds one alignment's counts.
    pub fn add(&mut self, a: &Alignment) {
        let mut inside = vec![false; a.words.len()];
        for f in &a.fragments {
            for &p in f {
                if let Some(x) = inside.get_mut(p) {
                    *x = true;
                }
            }
        }
        for (i, w) in a.words.iter().enumerate() {
            if is_word(w) {
                self.words += 1;
                self.tagged += usize::from(a.tags[i] != 0);
                self.in_fragments += usize::from(inside[i]);
            }
        }
        self.clauses += a.clauses.len();
        self.empty_fragments += a
            .fragments
            .iter()
            .filter(|f| {
                !f.iter()
                    .any(|&p| a.words.get(p).is_some_and(|w| is_word(w)))
            })
            .count();
    }
}

/// Whether a question token is a word (has a letter or digit).
pub fn is_word(w: &str) -> bool {
    w.chars().any(char::is_alphanumeric)
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Overall quality and quality over the source pairs whose query has each clause kind.
pub fn by_kind(alignments: &[Alignment]) -> (Quality, BTreeMap<ClauseKind, Quality>) {
    let mut all = Quality::default();
    let mut per: BTreeMap<ClauseKind, Quality> = BTreeMap::new();
    for a in alignments {
        all.add(a);
        let mut kinds: Vec<ClauseKind> = a.clauses.iter().map(|c| c.kind).collect();
        kinds.dedup();
        for k in kinds {
            per.entry(k).or_default().add(a);
        }
    }
    (all, per)
}

/// One variant of the rules against the rules as run.
#[derive(Clone, Debug, Default)]
pub struct Variant {
    /// What was switched.
    pub name: String,
    /// Quality under the variant.
    pub quality: Quality,
    /// Words whose tags differ from the run's.
    pub tags_changed: usize,
    /// Clause fragments that differ from the run's.
    pub fragments_changed: usize,
    /// The first changed fragment: question, clause, fragment as run, fragment in the variant.
    pub example: Option<[String; 4]>,
}

/// Quality under `rules` and under each variant with one rule switched, with what each
/// variant changes.
pub fn ablation(
    sources: &[(usize, &SourcePair)],
    schemas: &BTreeMap<String, NaturalNames>,
    norm: &Normalizer,
    rules: Rules,
) -> Vec<Variant> {
    let variants = [
        ("as run".to_owned(), rules),
        (
            switched("and_wh_select", rules.and_wh_select),
            Rules {
                and_wh_select: !rules.and_wh_select,
                ..rules
            },
        ),
        (
            switched("noun_wh_not_select", rules.noun_wh_not_select),
            Rules {
                noun_wh_not_select: !rules.noun_wh_not_select,
                ..rules
            },
        ),
        (
            switched("first_word_select", rules.first_word_select),
            Rules {
                first_word_select: !rules.first_word_select,
                ..rules
            },
        ),
        (
            switched("fill_between", rules.fill_between),
            Rules {
                fill_between: !rules.fill_between,
                ..rules
            },
        ),
        (
            "no adjustment rule".to_owned(),
            Rules {
                and_wh_select: false,
                noun_wh_not_select: false,
                first_word_select: false,
                fill_between: false,
            },
        ),
    ];
    let run = |r: Rules| -> Vec<Alignment> {
        sources
            .iter()
            .filter_map(|&(i, s)| align(i, s, schemas.get(&s.db_id), norm, r).ok())
            .collect()
    };
    let base = run(rules);
    variants
        .into_iter()
        .map(|(name, r)| {
            let aligned = run(r);
            let mut v = Variant {
                name,
                ..Variant::default()
            };
            for (a, b) in aligned.iter().zip(&base) {
                v.quality.add(a);
                v.tags_changed += a.tags.iter().zip(&b.tags).filter(|(x, y)| x != y).count();
                for (c, (fa, fb)) in a.fragments.iter().zip(&b.fragments).enumerate() {
                    if fa == fb {
                        continue;
                    }
                    v.fragments_changed += 1;
                    if v.example.is_none() {
                        let all: Vec<usize> = (0..a.words.len()).collect();
                        v.example = Some([
                            render(&a.words, &all),
                            a.clauses[c].text.clone(),
                            render(&b.words, fb),
                            render(&a.words, fa),
                        ]);
                    }
                }
            }
            v
        })
        .collect()
}

fn switched(name: &str, on: bool) -> String {
    format!("{name} {}", if on { "off" } else { "on" })
}
