//! SEDE PCM conformance against the reference evaluator's own scores
//! (`${SQLSUITE_SHARED:-../shared}/data/sede/reference`).
//!
//! Trials:
//! * `sede::reference::preprocessing`: compat mode's text preprocessing must give the string the
//!   reference parsed (`gold_processed`) for every pair's gold.
//! * `sede::reference::pairs_compat`: on every pair both parsers parse, compat mode's PCM-EM must
//!   agree with the reference's on ≥ 99 % of pairs and the mean |ΔPCM-F1| must be ≤ 0.01, for
//!   both variants. Prints the numbers and every disagreeing pair.
//! * `sede::reference::pairs_default`: lists every pair whose score changes in default mode and
//!   the rules (`spec/pcm.md`) that change it (kept as the snapshot
//!   `snapshots/sede__default_changes.snap`); fails if default mode loses a pair the reference
//!   parses, or if a rule changes no pair. Default mode scores the raw texts where the file has
//!   them (`original_vs_fixed`), else the texts the perturbations were made on.
//! * `sede::reference::gold_vs_gold`: every val gold the reference parses scores 1 against
//!   itself, in both modes and both variants.
//!
//! `SEDE_SHOW=<pair_id>` prints that pair's elements per category in both modes.

use std::path::{Path, PathBuf};

use libtest_mimic::{Failed, Trial};
use sqlsuite::dataset::sqleval::unescape;
use sqlsuite::report::snapshot;
use sqlsuite::trials;
use sqlsuite_reference::pcm::{self, Category, Rules, Variant};

use crate::Trials;

fn sede_dir() -> PathBuf {
    trials::shared_dir().join("data/sede")
}

pub fn trials() -> Trials {
    let dir = sede_dir();
    let mut trials = Vec::new();
    if !dir.join("reference").is_dir() {
        let why = format!("data unavailable: {}/reference is missing", dir.display());
        trials.push(trials::unavailable_trial("sede::reference::data", why));
    } else {
        let pairs = dir.join("reference/pairs_val.tsv");
        let p2 = pairs.clone();
        let p3 = pairs.clone();
        trials.push(Trial::test("sede::reference::preprocessing", move || {
            check_preprocessing(&pairs)
        }));
        trials.push(Trial::test("sede::reference::pairs_compat", move || {
            check_compat(&p2)
        }));
        trials.push(Trial::test("sede::reference::pairs_default", move || {
            check_default(&p3)
        }));
        let d = dir.clone();
        trials.push(Trial::test("sede::reference::gold_vs_gold", move || {
            check_gold_vs_gold(&d)
        }));
    }
    (trials, Vec::new())
}

/// A TSV file as rows of named fields.
fn read_tsv(path: &Path) -> Result<Vec<std::collections::HashMap<String, String>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .ok_or("empty file")?
        .split('\t')
        .map(str::to_owned)
        .collect();
    let mut rows = Vec::new();
    for (n, line) in lines.enumerate() {
        if line.is_empty() {
            continue;
        }
        let f: Vec<String> = line.split('\t').map(unescape).collect();
        if f.len() != header.len() {
            return Err(format!("{}:{}: {} fields", path.display(), n + 2, f.len()));
        }
        rows.push(header.iter().cloned().zip(f).collect());
    }
    Ok(rows)
}

/// One (gold, prediction) pair and the reference's scores.
struct Pair {
    id: String,
    gold: String,
    prediction: String,
    gold_processed: String,
    kind: String,
    prediction_raw: String,
    gold_ok: bool,
    pred_ok: bool,
    /// PCM-F1, PCM-EM for [`Variant::Values`] then [`Variant::NoValues`].
    reference: [(f64, f64); 2],
}

fn read_pairs(path: &Path) -> Result<Vec<Pair>, String> {
    let num = |r: &std::collections::HashMap<String, String>, k: &str| -> f64 {
        r.get(k).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN)
    };
    read_tsv(path)?
        .into_iter()
        .map(|r| {
            let field = |k: &str| r.get(k).cloned().ok_or_else(|| format!("no column {k}"));
            Ok(Pair {
                id: field("pair_id")?,
                gold: field("gold")?,
                prediction: field("prediction")?,
                gold_processed: field("gold_processed")?,
                kind: field("kind")?,
                prediction_raw: field("prediction_raw")?,
                gold_ok: field("gold_ok")? == "1",
                pred_ok: field("pred_ok")? == "1",
                reference: [
                    (num(&r, "pcm_f1"), num(&r, "pcm_em")),
                    (num(&r, "pcm_f1_noval"), num(&r, "pcm_em_noval")),
                ],
            })
        })
        .collect()
}

fn check_preprocessing(path: &Path) -> Result<(), Failed> {
    let pairs = read_pairs(path)?;
    let mut differ = Vec::new();
    let mut compared = 0;
    for p in pairs.iter().filter(|p| !p.gold_processed.is_empty()) {
        compared += 1;
        let ours = pcm::reference_text::preprocess_for_parser(&p.gold)
            .unwrap_or_default()
            .to_lowercase();
        if ours.trim() != p.gold_processed.trim() {
            differ.push(format!(
                "{}:\n  ours {ours:?}\n  ref  {:?}",
                p.id, p.gold_processed
            ));
        }
    }
    println!(
        "conformance sede preprocessing: {} of {compared} golds give the reference's parsed text",
        compared - differ.len()
    );
    if differ.is_empty() {
        Ok(())
    } else {
        Err(differ.join("\n").into())
    }
}

impl Pair {
    /// The (gold, prediction) default mode scores: the raw texts where the file has both (the
    /// query before and after its manual fix), else the gold as the reference parsed it and
    /// the perturbed prediction (perturbations were made on that text), so that both sides
    /// are written alike.
    fn default_inputs(&self) -> (&str, &str) {
        if self.kind == "original_vs_fixed" || self.gold_processed.is_empty() {
            (&self.gold, &self.prediction_raw)
        } else {
            (&self.gold_processed, &self.prediction)
        }
    }

    /// The inputs for `rules`: compat mode reads what the reference read.
    fn inputs(&self, rules: Rules) -> (&str, &str) {
        if rules.reference_text {
            (&self.gold, &self.prediction)
        } else {
            self.default_inputs()
        }
    }
}

/// Our (PCM-F1, PCM-EM) for a pair, or why it is not scored.
fn ours(
    gold: &str,
    prediction: &str,
    rules: Rules,
    variant: Variant,
) -> Result<(f64, f64), String> {
    let g = pcm::parse(gold, rules).map_err(|e| format!("gold: {e}"))?;
    let p = match pcm::parse(prediction, rules) {
        Ok(p) => p,
        Err(_) => return Ok((0.0, 0.0)),
    };
    let s = pcm::score(&g, &p, rules, variant);
    Ok((s.f1, if s.exact { 1.0 } else { 0.0 }))
}

fn show(p: &Pair) {
    if std::env::var("SEDE_SHOW").ok().as_deref() != Some(p.id.as_str()) {
        return;
    }
    for (mode, rules) in [("compat", Rules::SEDE), ("default", Rules::DEFAULT)] {
        for variant in Variant::ALL {
            println!("== {} {mode} {variant:?}", p.id);
            let (Ok(g), Ok(q)) = (pcm::parse(&p.gold, rules), pcm::parse(&p.prediction, rules))
            else {
                println!("   does not parse");
                continue;
            };
            let (gc, qc) = (g.components(rules, variant), q.components(rules, variant));
            for c in Category::ALL {
                let join = |v: &[pcm::Element]| {
                    v.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(" | ")
                };
                println!("  {:<9} gold: {}", c.as_str(), join(gc.get(c)));
                println!("  {:<9} pred: {}", "", join(qc.get(c)));
            }
            let s = pcm::score(&g, &q, rules, variant);
            for c in &s.categories {
                println!("  {} f1 {:.4}", c.category.as_str(), c.f1);
            }
        }
    }
}

fn check_compat(path: &Path) -> Result<(), Failed> {
    let pairs = read_pairs(path)?;
    let mut failures = Vec::new();
    for (v, variant) in Variant::ALL.into_iter().enumerate() {
        let (mut n, mut em_agree, mut sum_delta) = (0usize, 0usize, 0.0f64);
        let mut not_parsed = Vec::new();
        let mut disagree = Vec::new();
        for p in pairs.iter().filter(|p| p.gold_ok && p.pred_ok) {
            if v == 0 {
                show(p);
            }
            let parses = pcm::parse(&p.gold, Rules::SEDE).is_ok()
                && pcm::parse(&p.prediction, Rules::SEDE).is_ok();
            if !parses {
                not_parsed.push(p.id.clone());
                continue;
            }
            let (f1, em) = ours(&p.gold, &p.prediction, Rules::SEDE, variant)?;
            let (rf1, rem) = p.reference[v];
            n += 1;
            let delta = (f1 - rf1).abs();
            sum_delta += delta;
            if em == rem {
                em_agree += 1;
            }
            if em != rem || delta > 1e-9 {
                disagree.push(format!(
                    "  {} ours f1 {f1:.4} em {em} / reference f1 {rf1:.4} em {rem}",
                    p.id
                ));
            }
        }
        let agreement = em_agree as f64 / n.max(1) as f64;
        let mean_delta = sum_delta / n.max(1) as f64;
        println!(
            "conformance sede compat {variant:?}: {n} pairs both parsers parse ({} the reference parses and we do not: {}); PCM-EM agreement {em_agree}/{n} = {:.2} %; mean |ΔPCM-F1| = {mean_delta:.4}; {} pairs differ",
            not_parsed.len(),
            not_parsed.join(", "),
            100.0 * agreement,
            disagree.len()
        );
        for d in &disagree {
            println!("{d}");
        }
        if agreement < 0.99 || mean_delta > 0.01 || n == 0 {
            failures.push(format!(
                "{variant:?}: PCM-EM agreement {:.2} % (need ≥ 99 %), mean |ΔF1| {mean_delta:.4} (need ≤ 0.01) over {n} pairs",
                100.0 * agreement
            ));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}

fn check_default(path: &Path) -> Result<(), Failed> {
    let pairs = read_pairs(path)?;
    let mut lines = Vec::new();
    let mut per_rule: Vec<(&str, usize)> = Rules::each_reference_behaviour()
        .iter()
        .map(|(name, _)| (*name, 0))
        .collect();
    let mut joint = 0;
    let mut lost = Vec::new();
    let fmt = |r: &Result<(f64, f64), String>| match r {
        Ok((f1, em)) => format!("F1 {f1:.4} EM {em}"),
        Err(e) => format!("excluded ({e})"),
    };
    for p in &pairs {
        if p.gold_ok && p.pred_ok {
            let (g, q) = p.default_inputs();
            if pcm::parse(g, Rules::DEFAULT).is_err() || pcm::parse(q, Rules::DEFAULT).is_err() {
                lost.push(p.id.clone());
            }
        }
        for variant in Variant::ALL {
            let score = |rules: Rules| {
                let (g, q) = p.inputs(rules);
                ours(g, q, rules, variant)
            };
            // Scores compare; an excluded pair is excluded whatever the parser's message.
            let compat = score(Rules::SEDE);
            let default = score(Rules::DEFAULT);
            if compat.as_ref().ok() == default.as_ref().ok() {
                continue;
            }
            // A rule changes the pair if setting it alone to the reference's behaviour moves
            // the default score.
            let rules: Vec<&str> = Rules::each_reference_behaviour()
                .into_iter()
                .filter(|(_, r)| score(*r).ok() != default.clone().ok())
                .map(|(name, _)| name)
                .collect();
            for (name, n) in per_rule.iter_mut() {
                if rules.contains(name) {
                    *n += 1;
                }
            }
            if rules.is_empty() {
                joint += 1;
            }
            lines.push(format!(
                "{} {variant:?}: compat {} -> default {} [{}]",
                p.id,
                fmt(&compat),
                fmt(&default),
                if rules.is_empty() {
                    "only the rules together".to_owned()
                } else {
                    rules.join(", ")
                }
            ));
        }
    }
    let counts: Vec<String> = per_rule.iter().map(|(r, n)| format!("{r} {n}")).collect();
    let header = format!(
        "{} (pair, variant) scores of {} change in default mode; pairs changed per rule: {}; by the rules only together: {joint}",
        lines.len(),
        2 * pairs.len(),
        counts.join(", ")
    );
    println!("conformance sede default: {header}");
    for l in &lines {
        println!("  {l}");
    }
    let mut failures = Vec::new();
    if !lost.is_empty() {
        failures.push(format!(
            "default mode does not parse pairs the reference parses: {}",
            lost.join(", ")
        ));
    }
    let unused: Vec<&str> = per_rule
        .iter()
        .filter(|(_, n)| *n == 0)
        .map(|(r, _)| *r)
        .collect();
    if !unused.is_empty() {
        failures.push(format!("rules that change no pair: {}", unused.join(", ")));
    }
    let report = format!("{header}\n{}\n", lines.join("\n"));
    if let Err(e) = snapshot::assert_named(
        Path::new("snapshots"),
        "sede__default_changes",
        path,
        &report,
    ) {
        failures.push(e);
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}

fn check_gold_vs_gold(dir: &Path) -> Result<(), Failed> {
    let reference = read_tsv(&dir.join("reference/sede_val_gold_vs_gold.tsv"))?;
    let text = std::fs::read_to_string(dir.join("val.jsonl")).map_err(|e| e.to_string())?;
    let golds: Vec<String> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()
                .and_then(|v| v.get("QueryBody")?.as_str().map(str::to_owned))
                .unwrap_or_default()
        })
        .collect();
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    for (mode, rules) in [("compat", Rules::SEDE), ("default", Rules::DEFAULT)] {
        let (mut scored, mut unparsed) = (0, 0);
        for row in &reference {
            let index: usize = row
                .get("index")
                .and_then(|i| i.parse().ok())
                .unwrap_or(usize::MAX);
            let Some(gold) = golds.get(index) else {
                return Err(format!("gold index {index} not in val.jsonl").into());
            };
            if row.get("gold_ok").map(String::as_str) != Some("1") {
                continue;
            }
            let Ok(parsed) = pcm::parse(gold, rules) else {
                unparsed += 1;
                continue;
            };
            scored += 1;
            for variant in Variant::ALL {
                let s = pcm::score(&parsed, &parsed, rules, variant);
                if s.f1 != 1.0 || !s.exact {
                    failures.push(format!("{mode} {variant:?} gold #{index}: f1 {}", s.f1));
                }
            }
        }
        counts.push(format!(
            "{mode}: {scored} golds score 1 against themselves ({unparsed} the reference parses and we do not)"
        ));
    }
    println!("conformance sede gold vs gold: {}", counts.join("; "));
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}
