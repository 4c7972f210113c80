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

use crate::metric::exact_match::{COMPONENTS, HARDNESS};
use crate::metric::{Status, Verdict};
use crate::run::{Run, SetRun};

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

impl Level {
    /// Counts one item: its exec and exact verdicts (`None`: not judged), and exact match's
    /// partial scores where given.
    fn add(&mut self, exec: Option<bool>, exact: Option<bool>, components: Option<&Verdict>) {
        self.count += 1;
        if let Some(ok) = exec {
            self.exec.add(f64::from(u8::from(ok)));
        }
        if let Some(ok) = exact {
            self.exact.add(f64::from(u8::from(ok)));
        }
        for score in components
            .map(|v| v.components.as_slice())
            .unwrap_or_default()
        {
            let Some(c) = COMPONENTS.iter().position(|c| *c == score.component) else {
                continue;
            };
            if score.pred_total > 0 {
                self.acc[c].add(score.acc);
            }
            if score.label_total > 0 {
                self.rec[c].add(score.rec);
            }
        }
    }
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
pub fn table(run: &Run, set: &SetRun) -> Option<String> {
    if run.items.iter().all(|i| i.group(HARDNESS.name).is_none()) {
        return None;
    }
    let tallies = Tallies::of(run, set);
    let has_exec = run.metrics.contains(&"exec");
    let has_exact = run.metrics.contains(&"exact_match");
    let mut out = tallies.levels_table(has_exec, has_exact);
    if !tallies.joint.is_empty() {
        out.push_str(&tallies.turns_table(has_exec, has_exact));
    }
    Some(out)
}

/// The counts behind the table: per hardness level (and all), per turn, and per interaction
/// whether every turn is right.
struct Tallies {
    levels: Vec<Level>,
    turns: Vec<Level>,
    /// interaction → (all exec correct, all exact correct)
    joint: std::collections::BTreeMap<usize, (bool, bool)>,
}

impl Tallies {
    /// Counts the set's verdicts of the items that have a hardness.
    fn of(run: &Run, set: &SetRun) -> Tallies {
        let mut t = Tallies {
            levels: vec![Level::default(); LEVELS.len()],
            turns: vec![Level::default(); TURNS.len()],
            joint: Default::default(),
        };
        for (item, result) in run.items.iter().zip(&set.results) {
            let Some(hardness) = item.group(HARDNESS.name) else {
                continue;
            };
            let exec = judged(result.verdict("exec"));
            let exact_verdict = result.verdict("exact_match");
            let exact = judged(exact_verdict);
            let Some(level) = LEVELS[..4].iter().position(|l| *l == hardness) else {
                continue;
            };
            for l in [level, 4] {
                t.levels[l].add(exec, exact, exact_verdict);
            }
            if let Some(turn) = item.turn {
                t.turns[turn.turn.min(4)].add(exec, exact, None);
                let entry = t.joint.entry(turn.interaction).or_insert((true, true));
                entry.0 &= exec == Some(true);
                entry.1 &= exact == Some(true);
            }
        }
        t
    }

    /// The levels' counts, execution and exact match accuracy and partial scores, with a
    /// `joint_all` column for interaction datasets.
    fn levels_table(&self, has_exec: bool, has_exact: bool) -> String {
        let interactions = !self.joint.is_empty();
        let mut names: Vec<&str> = LEVELS.to_vec();
        if interactions {
            names.push("joint_all");
        }
        let n = self.joint.len() as f64;
        let joint_exec = self.joint.values().filter(|(e, _)| *e).count() as f64 / n.max(1.0);
        let joint_exact = self.joint.values().filter(|(_, x)| *x).count() as f64 / n.max(1.0);
        let levels = &self.levels;

        let mut out = String::new();
        row(
            &mut out,
            "",
            &names.iter().map(|l| format!("{l:20}")).collect::<Vec<_>>(),
        );
        let mut counts: Vec<String> = levels.iter().map(|l| format!("{:<20}", l.count)).collect();
        if interactions {
            counts.push(format!("{:<20}", self.joint.len()));
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
            out.push_str(
                "\n====================== EXACT MATCHING ACCURACY =====================\n",
            );
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
        out
    }

    /// The per-turn counts and accuracies of an interaction dataset.
    fn turns_table(&self, has_exec: bool, has_exact: bool) -> String {
        let mut out = String::from("\n\n");
        row(
            &mut out,
            "",
            &TURNS.iter().map(|t| format!("{t:20}")).collect::<Vec<_>>(),
        );
        let counts: Vec<String> = self
            .turns
            .iter()
            .map(|t| format!("{:<20}", t.count))
            .collect();
        row(&mut out, "count", &counts);
        if has_exec {
            out.push_str(
                "=====================   TURN EXECUTION ACCURACY     =====================\n",
            );
            row(
                &mut out,
                "execution",
                &numbers(self.turns.iter().map(|t| t.exec.value())),
            );
        }
        if has_exact {
            out.push_str(
                "\n====================== TURN EXACT MATCHING ACCURACY =====================\n",
            );
            row(
                &mut out,
                "exact match",
                &numbers(self.turns.iter().map(|t| t.exact.value())),
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLES: &str = r#"[{
      "db_id": "shop",
      "table_names_original": ["item"],
      "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "price"]],
      "foreign_keys": []
    }]"#;

    /// Two easy items and one medium; exec and exact_match both enabled.
    fn run(dir: &std::path::Path) -> Run {
        std::fs::create_dir_all(dir.join("db/shop")).unwrap();
        std::fs::write(
            dir.join("db/shop/shop.sql"),
            "CREATE TABLE item(id INT, name TEXT, price REAL);
             INSERT INTO item VALUES (1, 'pen', 1.5), (2, 'ink', 3.0);",
        )
        .unwrap();
        std::fs::write(dir.join("tables.json"), TABLES).unwrap();
        std::fs::write(
            dir.join("gold.sql"),
            "SELECT count(*) FROM item\tshop\n\
             SELECT name FROM item\tshop\n\
             SELECT name, price FROM item WHERE price > 2\tshop\n",
        )
        .unwrap();
        // Item 0 right; item 1 the wrong column (exec and exact wrong); item 2 runs to the same
        // rows with another condition (exec right, exact wrong).
        std::fs::write(
            dir.join("p.txt"),
            "SELECT count(*) FROM item\nSELECT id FROM item\nSELECT name, price FROM item WHERE id = 2\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("m.toml"),
            "[dataset]\nname = \"t\"\nformat = \"spider\"\ngold = \"gold.sql\"\ntables = \"tables.json\"\n\
             [databases]\npath = \"db/{db_id}/{db_id}.sql\"\n\
             [[predictions]]\nname = \"p\"\nfile = \"p.txt\"\n\
             [metrics.exec]\n[metrics.exact_match]\n",
        )
        .unwrap();
        crate::Evaluation::open(dir.join("m.toml"))
            .unwrap()
            .run_all()
    }

    fn row<'a>(table: &'a str, name: &str) -> Vec<&'a str> {
        let line = table
            .lines()
            .find(|l| l.get(..20).is_some_and(|n| n.trim() == name))
            .unwrap_or_default();
        line.get(21..)
            .unwrap_or_default()
            .split_whitespace()
            .collect()
    }

    #[test]
    fn levels_exec_exact_and_partial_scores() {
        let dir = tempfile::tempdir().unwrap();
        let run = run(dir.path());
        let hardness: Vec<_> = run.items.iter().map(|i| i.group("hardness")).collect();
        assert_eq!(hardness, vec![Some("easy"), Some("easy"), Some("medium")]);
        let table = table(&run, &run.sets[0]).unwrap();
        //                               easy     medium   hard     extra    all
        assert_eq!(row(&table, "count"), ["2", "1", "0", "0", "3"]);
        assert_eq!(
            row(&table, "execution"),
            ["0.500", "1.000", "0.000", "0.000", "0.667"]
        );
        assert_eq!(
            row(&table, "exact match"),
            ["0.500", "0.000", "0.000", "0.000", "0.333"]
        );
        // select: the first section is accuracy; item 1 predicts `id` for `name`.
        assert_eq!(row(&table, "select")[0], "0.500");
        // IUEN: no item has set operations — 0 accuracy, 0 recall, F1 1 (the reference's rule).
        let iuen: Vec<_> = table
            .lines()
            .filter(|l| l.starts_with("IUEN"))
            .map(|l| l.split_whitespace().nth(1).unwrap_or_default())
            .collect();
        assert_eq!(iuen, ["0.000", "0.000", "1.000"]);
        assert!(!table.contains("joint_all"), "not an interaction dataset");
    }
}
