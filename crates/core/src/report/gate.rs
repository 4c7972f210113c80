//! The CI gate's accuracy thresholds.

use super::summary::Summary;
use crate::manifest::Gate;

/// Checks a summary against the gate's `min_accuracy` for its metric. `Err` says by how much it
/// missed.
pub fn check(gate: &Gate, summary: &Summary) -> Result<(), String> {
    let Some(&min) = gate.min_accuracy.get(&summary.metric) else {
        return Ok(());
    };
    // A metric with a corpus score of its own name (corpus BLEU) is gated on it.
    if let Some((_, score)) = summary.corpus.iter().find(|(n, _)| *n == summary.metric) {
        if score + 1e-12 >= min {
            return Ok(());
        }
        return Err(format!(
            "{}::{}: corpus {} {:.2} is below the gate's minimum {:.2} by {:.2}",
            summary.dataset,
            summary.predictions,
            summary.metric,
            100.0 * score,
            100.0 * min,
            100.0 * (min - score)
        ));
    }
    let acc = summary.total.accuracy();
    if acc + 1e-12 >= min {
        return Ok(());
    }
    Err(format!(
        "{}::{}: {} accuracy {:.2}% ({}/{}) is below the gate's minimum {:.2}% by {:.2} points",
        summary.dataset,
        summary.predictions,
        summary.metric,
        100.0 * acc,
        summary.total.correct,
        summary.total.scored(),
        100.0 * min,
        100.0 * (min - acc)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::Tally;

    #[test]
    fn says_by_how_much() {
        let mut gate = Gate::default();
        gate.min_accuracy.insert("exec".into(), 0.5);
        let mut s = Summary {
            dataset: "d".into(),
            predictions: "v1".into(),
            metric: "exec".into(),
            total: Tally {
                items: 10,
                correct: 4,
                incorrect: 6,
                ..Tally::default()
            },
            reasons: Default::default(),
            by_db: Default::default(),
            by_hardness: Vec::new(),
            by_turn: Default::default(),
            correct_kinds: Default::default(),
            by_category: Default::default(),
            interactions: None,
            score_sums: Vec::new(),
            corpus: Vec::new(),
            corpus_by_category: Default::default(),
        };
        let e = check(&gate, &s).unwrap_err();
        assert!(
            e.contains("40.00% (4/10) is below the gate's minimum 50.00% by 10.00 points"),
            "{e}"
        );
        s.total.correct = 5;
        s.total.incorrect = 5;
        assert_eq!(check(&gate, &s), Ok(()));
        s.metric = "other".into();
        s.total.correct = 0;
        assert_eq!(check(&gate, &s), Ok(()));

        // A corpus score named like the metric is what is gated, not the accuracy.
        gate.min_accuracy.insert("bleu".into(), 0.25);
        s.metric = "bleu".into();
        s.total.correct = 10;
        s.corpus = vec![("bleu".into(), 0.2)];
        let e = check(&gate, &s).unwrap_err();
        assert!(
            e.contains("corpus bleu 20.00 is below the gate's minimum 25.00 by 5.00"),
            "{e}"
        );
        s.corpus = vec![("bleu".into(), 0.25)];
        assert_eq!(check(&gate, &s), Ok(()));
    }
}
