//! Counts and accuracies of one prediction set under one metric.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::metric::exact_match::HARDNESS;
use crate::metric::Status;
use crate::run::{Run, SetRun};

/// Tallies for one group of items.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Items in the group.
    pub items: usize,
    /// Judged correct.
    pub correct: usize,
    /// Judged incorrect.
    pub incorrect: usize,
    /// Whose gold could not be evaluated.
    pub gold_errors: usize,
    /// Not evaluated.
    pub skipped: usize,
}

impl Tally {
    /// Counts one more item with `status`.
    pub fn add(&mut self, status: Status) {
        self.items += 1;
        match status {
            Status::Correct => self.correct += 1,
            Status::Incorrect => self.incorrect += 1,
            Status::GoldError => self.gold_errors += 1,
            Status::Skipped => self.skipped += 1,
        }
    }

    /// Items that were judged: neither skipped nor with a failing gold.
    pub fn scored(&self) -> usize {
        self.correct + self.incorrect
    }

    /// correct / scored (0 when nothing was scored).
    pub fn accuracy(&self) -> f64 {
        if self.scored() == 0 {
            0.0
        } else {
            self.correct as f64 / self.scored() as f64
        }
    }
}

/// One prediction set's results under one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The dataset.
    pub dataset: String,
    /// The prediction set.
    pub predictions: String,
    /// The metric.
    pub metric: String,
    /// Every item.
    pub total: Tally,
    /// Reason code → count, over incorrect, gold-error and skipped items.
    pub reasons: BTreeMap<String, usize>,
    /// Correct items by code, when a metric tells kinds of correct apart (SQL-Eval: `correct`
    /// for an exact match, `correct_subset` for a subset match only).
    pub correct_kinds: BTreeMap<String, usize>,
    /// Per `db_id`.
    pub by_db: BTreeMap<String, Tally>,
    /// Per Spider hardness (items labelled by [`HARDNESS`], with `[dataset] tables`), in the
    /// official order: easy, medium, hard, extra. Empty when the items have no hardness.
    pub by_hardness: Vec<(String, Tally)>,
    /// Datasets with question categories (SQL-Eval's `query_category`): per category.
    pub by_category: BTreeMap<String, Tally>,
    /// Conversational datasets: per turn position (`turn 1` … `turn 4`, `turn >4`, as the
    /// official evaluator groups them).
    pub by_turn: BTreeMap<String, Tally>,
    /// Conversational datasets: an interaction is correct iff all its turns are (interaction
    /// match); skipped or with a gold error if any turn is.
    pub interactions: Option<Tally>,
    /// Graded scores (`pcm_f1`, …) summed over the scored items, in the verdicts' order; their
    /// means are `sum / total.scored()`.
    pub score_sums: Vec<(String, f64)>,
    /// Corpus-level scores over the scored items (corpus BLEU, a fraction), as the metric
    /// computes them ([`Metric::corpus_scores`](crate::metric::Metric::corpus_scores)).
    pub corpus: Vec<(String, f64)>,
    /// The same per category, for categories with corpus scores.
    pub corpus_by_category: BTreeMap<String, Vec<(String, f64)>>,
}

/// The official evaluator's turn groups.
fn turn_label(turn: usize) -> String {
    if turn < 4 {
        format!("turn {}", turn + 1)
    } else {
        "turn >4".to_owned()
    }
}

impl Summary {
    /// Summarises set `set` of `run` under `metric`.
    pub fn of(run: &Run, set: &SetRun, metric: &str) -> Summary {
        let mut s = Summary {
            dataset: run.dataset.clone(),
            predictions: set.name.clone(),
            metric: metric.to_owned(),
            total: Tally::default(),
            reasons: BTreeMap::new(),
            correct_kinds: BTreeMap::new(),
            by_db: BTreeMap::new(),
            by_hardness: Vec::new(),
            by_category: BTreeMap::new(),
            by_turn: BTreeMap::new(),
            interactions: None,
            score_sums: Vec::new(),
            corpus: Vec::new(),
            corpus_by_category: BTreeMap::new(),
        };
        // Worst status per interaction: Correct < Incorrect < GoldError < Skipped.
        let mut interactions: BTreeMap<usize, Status> = BTreeMap::new();
        for (item, result) in run.items.iter().zip(&set.results) {
            let Some(v) = result.verdict(metric) else {
                continue;
            };
            s.total.add(v.status);
            if matches!(v.status, Status::Correct | Status::Incorrect) {
                for (name, value) in v.scores.iter() {
                    match s.score_sums.iter_mut().find(|(n, _)| n == name) {
                        Some((_, sum)) => *sum += value,
                        None => s.score_sums.push(((*name).to_owned(), *value)),
                    }
                }
            }
            s.by_db.entry(item.db_id.clone()).or_default().add(v.status);
            if let Some(h) = item.group(HARDNESS.name) {
                match s.by_hardness.iter_mut().find(|(name, _)| name == h) {
                    Some((_, t)) => t.add(v.status),
                    None => {
                        let mut t = Tally::default();
                        t.add(v.status);
                        s.by_hardness.push((h.to_owned(), t));
                    }
                }
            }
            if v.status != Status::Correct {
                *s.reasons.entry(v.code.clone()).or_default() += 1;
            } else {
                *s.correct_kinds.entry(v.code.clone()).or_default() += 1;
            }
            if let Some(c) = &item.category {
                s.by_category.entry(c.clone()).or_default().add(v.status);
            }
            if let Some(t) = item.turn {
                s.by_turn
                    .entry(turn_label(t.turn))
                    .or_default()
                    .add(v.status);
                let worst = interactions.entry(t.interaction).or_insert(Status::Correct);
                *worst = (*worst).max(v.status);
            }
        }
        // The official order, not the order of first appearance.
        let order = HARDNESS.order;
        s.by_hardness
            .sort_by_key(|(h, _)| order.iter().position(|o| *o == h).unwrap_or(order.len()));
        if let Some(corpus) = set.corpus(metric) {
            s.corpus = corpus.overall.clone();
            s.corpus_by_category = corpus.by_category.iter().cloned().collect();
        }
        if !interactions.is_empty() {
            let mut tally = Tally::default();
            for status in interactions.values() {
                tally.add(*status);
            }
            s.interactions = Some(tally);
        }
        s
    }

    /// The headline: `exec: 370/972 correct = 38.07% (1034 items; 602 incorrect, 62 skipped)`.
    pub fn headline(&self) -> String {
        let t = &self.total;
        let mut extra = vec![
            format!("{} items", t.items),
            format!("{} incorrect", t.incorrect),
        ];
        if t.gold_errors > 0 {
            extra.push(format!("{} gold errors", t.gold_errors));
        }
        if t.skipped > 0 {
            extra.push(format!("{} skipped", t.skipped));
        }
        format!(
            "{}: {}/{} correct = {:.2}% ({})",
            self.metric,
            t.correct,
            t.scored(),
            100.0 * t.accuracy(),
            extra.join(", ")
        )
    }

    /// Mean of each graded score over the scored items.
    pub fn score_means(&self) -> Vec<(&str, f64)> {
        let n = self.total.scored().max(1) as f64;
        self.score_sums
            .iter()
            .map(|(name, sum)| (name.as_str(), sum / n))
            .collect()
    }

    /// The full table as snapshots record it: [`Summary::render_overview`], then the
    /// per-database (and per-category) rows. (A snapshot of a dataset with hardness carries the
    /// official table instead of a hardness table: [`super::spider_table`].)
    pub fn render(&self) -> String {
        let mut out = self.render_overview();
        group_table(&mut out, "db_id", self.by_db.iter());
        if !self.by_category.is_empty() {
            group_table(&mut out, "category", self.by_category.iter());
        }
        out
    }

    /// What `sqlsuite eval` prints: [`Summary::render`] with the per-hardness rows (when the
    /// items have a hardness) between the overview and the per-database rows.
    pub fn render_with_hardness(&self) -> String {
        let mut out = self.render_overview();
        if !self.by_hardness.is_empty() {
            group_table(
                &mut out,
                HARDNESS.name,
                self.by_hardness.iter().map(|(h, t)| (h, t)),
            );
        }
        group_table(&mut out, "db_id", self.by_db.iter());
        if !self.by_category.is_empty() {
            group_table(&mut out, "category", self.by_category.iter());
        }
        out
    }

    /// Headline, graded score means, reasons, kinds of correct, interactions:
    /// everything but the group tables.
    pub fn render_overview(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.headline());
        if !self.score_sums.is_empty() {
            let t = &self.total;
            let means: Vec<String> = self
                .score_means()
                .iter()
                .map(|(name, mean)| format!("{name} {mean:.4}"))
                .collect();
            let _ = writeln!(
                out,
                "  mean over {} scored items: {}",
                t.scored(),
                means.join(", ")
            );
            let evaluable = t.items - t.gold_errors - t.skipped;
            let _ = writeln!(
                out,
                "  golds evaluable: {evaluable}/{} = {:.2}% ({} gold errors)",
                t.items,
                100.0 * evaluable as f64 / t.items.max(1) as f64,
                t.gold_errors
            );
        }
        if !self.corpus.is_empty() {
            let _ = writeln!(out, "  corpus (0–100): {}", scores_text(&self.corpus));
            for (c, scores) in &self.corpus_by_category {
                let _ = writeln!(out, "    {c}: {}", scores_text(scores));
            }
        }
        if !self.reasons.is_empty() {
            let reasons: Vec<String> = self
                .reasons
                .iter()
                .map(|(code, n)| format!("{code} {n}"))
                .collect();
            let _ = writeln!(out, "  not correct, by reason: {}", reasons.join(", "));
        }
        if self.correct_kinds.keys().any(|k| k != "correct") {
            let kinds: Vec<String> = self
                .correct_kinds
                .iter()
                .map(|(code, n)| {
                    let kind = match code.as_str() {
                        "correct" => "exact",
                        other => other.strip_prefix("correct_").unwrap_or(other),
                    };
                    format!("{kind} {n}")
                })
                .collect();
            let _ = writeln!(out, "  correct, by kind: {}", kinds.join(", "));
        }
        if let Some(t) = &self.interactions {
            let _ = writeln!(
                out,
                "  interaction match: {}/{} = {:.2}% ({} interactions)",
                t.correct,
                t.scored(),
                100.0 * t.accuracy(),
                t.items
            );
            let turns: Vec<String> = self
                .by_turn
                .iter()
                .map(|(label, t)| {
                    format!(
                        "{label} {}/{} = {:.2}%",
                        t.correct,
                        t.scored(),
                        100.0 * t.accuracy()
                    )
                })
                .collect();
            let _ = writeln!(out, "  question match by turn: {}", turns.join(", "));
        }
        out
    }
}

/// The items on which two metrics of one prediction set disagree, where both judged the item
/// (BIRD's set-based `ex` against the stricter `exec`, `spec/bird.md` §3).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Disagreement {
    /// The first metric.
    pub a: String,
    /// The second metric.
    pub b: String,
    /// Items correct under `a` and incorrect under `b`.
    pub only_a: Vec<usize>,
    /// Items correct under `b` and incorrect under `a`.
    pub only_b: Vec<usize>,
}

impl Disagreement {
    /// Compares metrics `a` and `b` item by item over `set`; `None` when the run lacks one.
    pub fn between(run: &Run, set: &SetRun, a: &str, b: &str) -> Option<Disagreement> {
        if !run.metrics.contains(&a) || !run.metrics.contains(&b) {
            return None;
        }
        let mut d = Disagreement {
            a: a.to_owned(),
            b: b.to_owned(),
            ..Disagreement::default()
        };
        for (item, result) in run.items.iter().zip(&set.results) {
            let (Some(x), Some(y)) = (result.verdict(a), result.verdict(b)) else {
                continue;
            };
            match (x.status, y.status) {
                (Status::Correct, Status::Incorrect) => d.only_a.push(item.index),
                (Status::Incorrect, Status::Correct) => d.only_b.push(item.index),
                _ => {}
            }
        }
        Some(d)
    }

    /// `ex and exec disagree on 3 items: correct under ex only: 4, 17; under exec only: 9`.
    pub fn render(&self) -> String {
        let list = |v: &[usize]| {
            if v.is_empty() {
                "none".to_owned()
            } else {
                v.iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        format!(
            "{} and {} disagree on {} items: correct under {} only: {}; under {} only: {}\n",
            self.a,
            self.b,
            self.only_a.len() + self.only_b.len(),
            self.a,
            list(&self.only_a),
            self.b,
            list(&self.only_b)
        )
    }
}

/// `bleu 23.45, …`: fractions on a 0–100 scale.
fn scores_text(scores: &[(String, f64)]) -> String {
    scores
        .iter()
        .map(|(n, v)| format!("{n} {:.2}", 100.0 * v))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A table of tallies, one row per group, in the order given.
fn group_table<'a>(
    out: &mut String,
    label: &str,
    groups: impl Iterator<Item = (&'a String, &'a Tally)> + Clone,
) {
    let width = groups
        .clone()
        .map(|(g, _)| g.len())
        .chain([label.len()])
        .max()
        .unwrap_or(5);
    let _ = writeln!(
        out,
        "  {:<width$}  {:>5}  {:>6}  {:>7}  {:>8}",
        label, "items", "scored", "correct", "accuracy"
    );
    for (group, t) in groups {
        let acc = if t.scored() == 0 {
            "-".to_owned()
        } else {
            format!("{:.2}%", 100.0 * t.accuracy())
        };
        let _ = writeln!(
            out,
            "  {:<width$}  {:>5}  {:>6}  {:>7}  {:>8}",
            group,
            t.items,
            t.scored(),
            t.correct,
            acc
        );
    }
}
