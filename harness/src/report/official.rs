//! The official Spider evaluator's score table: counts and accuracies per hardness (easy,
//! medium, hard, extra, all, and joint_all for interactions) for execution and exact match, the
//! partial component scores, and per-turn accuracies — the same numbers, in the same layout as
//! `evaluation.py` prints them, so they can be put side by side.
//!
//! Rules reproduced: a level's accuracy is correct / items at that level; a component's accuracy
//! (recall) is the mean of the items' accuracies (recalls) over items whose prediction (gold) has
//! that component; its F1 is computed from those two means, and is 1 when both are 0.
//! Differences: items sqlsuite could not judge under a metric (skipped, gold error) are left out
//! of that metric's denominators; the reference has no such items (it crashes instead).

use std::fmt::Write;

use crate::evaluation::Evaluation;
use crate::metric::{Status, Verdict};
use crate::spider_sql::COMPONENTS;

const LEVELS: [&str; 5] = ["easy", "medium", "hard", "extra", "all"];
const TURNS: [&str; 5] = ["turn 1", "turn 2", "turn 3", "turn 4", "turn > 4"];

#[derive(Default, Clone, Copy)]
struct Ratio {
    hits: f64,
    count: usize,
}

impl Ratio {
    fn add(&mut self, value: f64) {
        self.hits += value;
        self.count += 1;
    }
    fn value(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.hits / self.count as f64
        }
    }
}

#[derive(Default, Clone)]
struct Level {
    count: usize,
    exec: Ratio,
    exact: Ratio,
    acc: [Ratio; 10],
    rec: [Ratio; 10],
}

fn judged(v: Option<&Verdict>) -> Option<bool> {
    match v.map(|v| v.status) {
        Some(Status::Correct) => Some(true),
        Some(Status::Incorrect) => Some(false),
        _ => None,
    }
}

fn row(out: &mut String, name: &str, cells: &[String]) {
    let _ = write!(out, "{name:20} ");
    let _ = writeln!(out, "{}", cells.join(" "));
}

fn numbers(values: impl Iterator<Item = f64>) -> Vec<String> {
    values.map(|v| format!("{v:<20.3}")).collect()
}

/// The table for one prediction set, or `None` when its items have no hardness (no schema).
pub fn table(eval: &Evaluation, set: usize) -> Option<String> {
    let items = eval.items();
    if items.iter().all(|i| i.hardness.is_none()) {
        return None;
    }
    let has_exec = eval.metrics().any(|m| m == "exec");
    let has_exact = eval.metrics().any(|m| m == "exact_match");
    let mut levels: Vec<Level> = vec![Level::default(); LEVELS.len()];
    let mut turns: Vec<Level> = vec![Level::default(); TURNS.len()];
    // interaction → (all exec correct, all exact correct)
    let mut joint: std::collections::BTreeMap<usize, (bool, bool)> = Default::default();
    for (i, item) in items.iter().enumerate() {
        let Some(hardness) = item.hardness else {
            continue;
        };
        let result = eval.result(set, i);
        let exec = judged(result.verdict("exec"));
        let exact_verdict = result.verdict("exact_match");
        let exact = judged(exact_verdict);
        let Some(level) = LEVELS[..4].iter().position(|l| *l == hardness) else {
            continue;
        };
        for l in [level, 4] {
            let lv = &mut levels[l];
            lv.count += 1;
            if let Some(ok) = exec {
                lv.exec.add(f64::from(u8::from(ok)));
            }
            if let Some(ok) = exact {
                lv.exact.add(f64::from(u8::from(ok)));
            }
            for score in exact_verdict
                .map(|v| v.components.as_slice())
                .unwrap_or_default()
            {
                let Some(c) = COMPONENTS.iter().position(|c| *c == score.component) else {
                    continue;
                };
                if score.pred_total > 0 {
                    lv.acc[c].add(score.acc);
                }
                if score.label_total > 0 {
                    lv.rec[c].add(score.rec);
                }
            }
        }
        if let Some(t) = item.turn {
            let tl = &mut turns[t.turn.min(4)];
            tl.count += 1;
            if let Some(ok) = exec {
                tl.exec.add(f64::from(u8::from(ok)));
            }
            if let Some(ok) = exact {
                tl.exact.add(f64::from(u8::from(ok)));
            }
            let entry = joint.entry(t.interaction).or_insert((true, true));
            entry.0 &= exec == Some(true);
            entry.1 &= exact == Some(true);
        }
    }

    let interactions = !joint.is_empty();
    let mut names: Vec<&str> = LEVELS.to_vec();
    if interactions {
        names.push("joint_all");
    }
    let n = joint.len() as f64;
    let joint_exec = joint.values().filter(|(e, _)| *e).count() as f64 / n.max(1.0);
    let joint_exact = joint.values().filter(|(_, x)| *x).count() as f64 / n.max(1.0);

    let mut out = String::new();
    row(
        &mut out,
        "",
        &names.iter().map(|l| format!("{l:20}")).collect::<Vec<_>>(),
    );
    let mut counts: Vec<String> = levels.iter().map(|l| format!("{:<20}", l.count)).collect();
    if interactions {
        counts.push(format!("{:<20}", joint.len()));
    }
    row(&mut out, "count", &counts);
    let with_joint = |mut cells: Vec<String>, joint_value: f64| {
        if interactions {
            cells.push(format!("{joint_value:<20.3}"));
        }
        cells
    };
    if has_exec {
        out.push_str("=====================   EXECUTION ACCURACY     =====================\n");
        let cells = numbers(levels.iter().map(|l| l.exec.value()));
        row(&mut out, "execution", &with_joint(cells, joint_exec));
    }
    if has_exact {
        out.push_str("\n====================== EXACT MATCHING ACCURACY =====================\n");
        let cells = numbers(levels.iter().map(|l| l.exact.value()));
        row(&mut out, "exact match", &with_joint(cells, joint_exact));
        let sections = [
            "\n---------------------PARTIAL MATCHING ACCURACY----------------------\n",
            "---------------------- PARTIAL MATCHING RECALL ----------------------\n",
            "---------------------- PARTIAL MATCHING F1 --------------------------\n",
        ];
        for (k, title) in sections.iter().enumerate() {
            out.push_str(title);
            for (c, component) in COMPONENTS.iter().enumerate() {
                let cells = numbers(levels.iter().map(|l| {
                    let (a, r) = (l.acc[c].value(), l.rec[c].value());
                    match k {
                        0 => a,
                        1 => r,
                        _ if a == 0.0 && r == 0.0 => 1.0,
                        _ => 2.0 * a * r / (a + r),
                    }
                }));
                // The reference has no partial scores for joint_all: 0, 0 and an F1 of 1.
                row(
                    &mut out,
                    component,
                    &with_joint(cells, if k == 2 { 1.0 } else { 0.0 }),
                );
            }
        }
    }
    if interactions {
        out.push_str("\n\n");
        row(
            &mut out,
            "",
            &TURNS.iter().map(|t| format!("{t:20}")).collect::<Vec<_>>(),
        );
        let counts: Vec<String> = turns.iter().map(|t| format!("{:<20}", t.count)).collect();
        row(&mut out, "count", &counts);
        if has_exec {
            out.push_str(
                "=====================   TURN EXECUTION ACCURACY     =====================\n",
            );
            row(
                &mut out,
                "execution",
                &numbers(turns.iter().map(|t| t.exec.value())),
            );
        }
        if has_exact {
            out.push_str(
                "\n====================== TURN EXACT MATCHING ACCURACY =====================\n",
            );
            row(
                &mut out,
                "exact match",
                &numbers(turns.iter().map(|t| t.exact.value())),
            );
        }
    }
    Some(out)
}
