//! The command line's own numbers (`sqlsuite eval --format jsonl`), to compare a rendered page
//! with: per prediction set and metric, the counts overall and per `db_id`, and each item's
//! verdict.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Items, scored (correct or incorrect) and correct.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub items: usize,
    pub scored: usize,
    pub correct: usize,
}

impl Counts {
    fn add(&mut self, verdict: &str) {
        self.items += 1;
        if verdict == "correct" || verdict == "incorrect" {
            self.scored += 1;
        }
        if verdict == "correct" {
            self.correct += 1;
        }
    }
}

/// One set's numbers under one metric.
#[derive(Debug, Default)]
pub struct MetricNumbers {
    pub total: Counts,
    pub by_db: BTreeMap<String, Counts>,
    /// Per item index: (verdict, reason code).
    pub verdicts: BTreeMap<usize, (String, String)>,
}

/// Set → metric → numbers.
pub type Numbers = BTreeMap<String, BTreeMap<String, MetricNumbers>>;

/// Runs `sqlsuite eval <manifest> --format jsonl --predictions <set>…` and tallies its lines.
pub fn of(manifest: &Path, sets: &[&str]) -> Numbers {
    let mut args = vec![
        "eval".to_owned(),
        manifest.display().to_string(),
        "--format".to_owned(),
        "jsonl".to_owned(),
    ];
    for set in sets {
        args.extend(["--predictions".to_owned(), (*set).to_owned()]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_sqlsuite"))
        .args(&args)
        .output()
        .expect("run sqlsuite");
    // 0 or 1 (the gate); 2 is a bad manifest.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut numbers = Numbers::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let Some(index) = v["index"].as_u64() else {
            continue; // a provenance line
        };
        let field = |k: &str| v[k].as_str().expect(k).to_owned();
        let m = numbers
            .entry(field("predictions"))
            .or_default()
            .entry(field("metric"))
            .or_default();
        let verdict = field("verdict");
        m.total.add(&verdict);
        m.by_db.entry(field("db_id")).or_default().add(&verdict);
        m.verdicts
            .insert(index as usize, (verdict, field("reason")));
    }
    numbers
}

/// The items that flipped from set `b` to set `a` (as `sqlsuite diff b a` counts them):
/// regressed (correct in `b`, incorrect in `a` under some metric) and fixed (incorrect in `b`,
/// correct in `a` under some metric, regressed under none); each in item order.
pub fn flips(numbers: &Numbers, a: &str, b: &str) -> (Vec<usize>, Vec<usize>) {
    let (na, nb) = (&numbers[a], &numbers[b]);
    let flipped = |from: &str, to: &str| -> Vec<usize> {
        let mut out: Vec<usize> = na
            .iter()
            .flat_map(|(metric, m)| {
                m.verdicts.iter().filter_map(move |(i, (va, _))| {
                    let vb = &nb[metric].verdicts[i].0;
                    (vb == from && va == to).then_some(*i)
                })
            })
            .collect();
        out.sort();
        out.dedup();
        out
    };
    let regressed = flipped("correct", "incorrect");
    let fixed = flipped("incorrect", "correct")
        .into_iter()
        .filter(|i| !regressed.contains(i))
        .collect();
    (regressed, fixed)
}
