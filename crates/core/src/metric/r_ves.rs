//! `[metrics.r_ves]`: BIRD's Reward-based Valid Efficiency Score (`evaluation_ves.py`), made
//! deterministic. A prediction whose rows equal the gold's as sets (BIRD's EX, on every
//! database of the item) is rewarded by how much work it does against the gold: BIRD's buckets
//! ([`sqlsuite_reference::bird::reward`]) applied to the ratio of the gold's SQLite
//! virtual-machine steps to the prediction's (summed over the item's databases), where BIRD
//! times both 100 times on the machine at hand. Steps are the same on every machine and every
//! run; wall time is not (`spec/bird.md`, "R-VES").
//!
//! The item's score (`r_ves`) is 100·√reward: 0 when not set-equal, else 50, 70.71, 86.60,
//! 100 or 111.80; a set's R-VES is its mean over the scored items. The verdict is correct when
//! set-equal. A backend that counts no steps (PostgreSQL) gives no score: the item is skipped.
//! Options: the query limits (`timeout_ms`, `max_rows`, `max_steps`).

use sqlsuite_reference::bird;

use super::{bird_pair, Metric, MetricEntry, Resources, Verdict};
use crate::backend::{Database, Limits};
use crate::config::{ManifestError, Section};
use crate::dataset::Item;
use crate::denotation::{compare, CompareOptions};
use crate::executor::Executor;
use crate::metric::Steps;

/// `[metrics.r_ves]` in the registry.
pub const ENTRY: MetricEntry = MetricEntry {
    name: "r_ves",
    runs_queries: true,
    build,
};

fn build(section: &Section<'_>, _: &Resources) -> Result<Box<dyn Metric>, ManifestError> {
    let limits = super::limits_only(section)?;
    Ok(Box::new(RVes {
        limits: limits.limits(),
    }))
}

/// The R-VES metric.
#[derive(Debug, Clone)]
pub struct RVes {
    limits: Limits,
}

/// As sets of tuples, BIRD's EX.
const AS_SETS: CompareOptions = CompareOptions {
    order_matters: false,
    float_tolerance: 0.0,
    as_sets: true,
};

impl Metric for RVes {
    fn name(&self) -> &'static str {
        ENTRY.name
    }

    fn evaluate(
        &self,
        item: &Item,
        prediction: &str,
        databases: &[Database],
        executor: &Executor,
    ) -> Verdict {
        if !executor.backend().counts_steps() {
            let why = format!("{} counts no steps", executor.backend().name());
            return Verdict::skipped("no_steps", why);
        }
        let pairs = match bird_pair::run(item, prediction, databases, executor, &self.limits) {
            Ok(pairs) => pairs,
            Err(verdict) => return (*verdict).with_scores(vec![(ENTRY.name, 0.0)]),
        };
        let steps = Steps {
            gold: pairs.iter().map(|p| p.gold.steps).sum(),
            prediction: Some(pairs.iter().map(|p| p.prediction.steps).sum()),
        };
        if let Some(p) = pairs
            .iter()
            .find(|p| compare(&p.gold, &p.prediction, AS_SETS).is_err())
        {
            let on = match pairs.len() {
                1 => String::new(),
                _ => format!(" on {}", p.database),
            };
            let reason = format!("the rows differ from the gold's as sets{on} (reward 0)");
            return Verdict::incorrect("rows_differ", reason, "")
                .with_steps(Some(steps))
                .with_scores(vec![(ENTRY.name, 0.0)]);
        }
        let (gold, pred) = (steps.gold, steps.prediction.unwrap_or(0));
        // A prediction that does no work at all is as fast as can be.
        let ratio = match pred {
            0 => f64::INFINITY,
            p => gold as f64 / p as f64,
        };
        let reward = bird::reward(ratio);
        let reason = format!(
            "reward {reward} (the gold's {gold} steps / the prediction's {pred} = {ratio:.3})"
        );
        Verdict {
            reason,
            ..Verdict::correct()
        }
        .with_steps(Some(steps))
        .with_scores(vec![(ENTRY.name, bird::reward_score(reward))])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::sqlite::Sqlite;
    use crate::backend::QueryLimits;

    fn judge(gold: &str, pred: &str) -> Verdict {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sql");
        let rows: Vec<String> = (0..300).map(|i| format!("({i}, {})", i % 7)).collect();
        std::fs::write(
            &path,
            format!(
                "CREATE TABLE t(a INT, b INT); INSERT INTO t VALUES {};",
                rows.join(", ")
            ),
        )
        .unwrap();
        let item = Item::new(0, "db", gold, "test");
        let ex = Executor::new(Box::new(Sqlite::default()), None);
        let metric = RVes {
            limits: QueryLimits::default().limits(),
        };
        metric.evaluate(&item, pred, &[Database::file(path)], &ex)
    }

    #[test]
    fn rewards_come_from_the_ratio_of_steps_and_are_the_same_every_time() {
        // The same query: ratio 1, reward 1, score 100.
        let v = judge("SELECT b FROM t WHERE a = 5", "SELECT b FROM t WHERE a = 5");
        assert_eq!(
            (v.code.as_str(), v.scores[0].1),
            ("correct", 100.0),
            "{v:?}"
        );
        // A needlessly costly way to the same set (a self-join for each row): reward 0.25.
        let slow = "SELECT DISTINCT t.b FROM t, t AS u WHERE t.a = 5 AND u.a >= 0";
        let v = judge("SELECT b FROM t WHERE a = 5", slow);
        assert_eq!(v.code, "correct");
        assert_eq!(v.scores[0].1, 50.0, "{v:?}");
        assert_eq!(
            judge("SELECT b FROM t WHERE a = 5", slow),
            v,
            "deterministic"
        );
        // Not the same set: 0.
        let v = judge("SELECT b FROM t WHERE a = 5", "SELECT b FROM t WHERE a = 6");
        assert_eq!((v.code.as_str(), v.scores[0].1), ("rows_differ", 0.0));
    }
}
