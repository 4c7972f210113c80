//! BLEU against sacreBLEU: `tests/fixtures/bleu/sacrebleu.json` holds 621 hypothesis/reference
//! sets (21 hand-written edge cases, 600 seeded random ones, 1–3 references each) with the
//! `13a` tokens, sentence BLEU and corpus BLEU that sacreBLEU 2.6.0 computed for them
//! (`make_fixture.py` beside it). Every number must agree to 1e-6.

use std::path::Path;

use serde_json::Value;
use sqlsuite::dataset::Item;
use sqlsuite::metric::bleu::{BleuMetric, BleuOptions};
use sqlsuite::metric::Metric;
use sqlsuite_reference::sacrebleu::{self, preprocess};

struct Case {
    hypothesis: String,
    references: Vec<String>,
    tokens: String,
    sentence: f64,
    sentence_lowercase: f64,
}

fn fixture() -> (Value, Vec<Case>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bleu/sacrebleu.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let cases = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| Case {
            hypothesis: i["hypothesis"].as_str().unwrap().to_owned(),
            references: i["references"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_owned())
                .collect(),
            tokens: i["tokens"].as_str().unwrap().to_owned(),
            sentence: i["sentence_bleu"].as_f64().unwrap(),
            sentence_lowercase: i["sentence_bleu_lowercase"].as_f64().unwrap(),
        })
        .collect();
    (v, cases)
}

fn items(cases: &[Case]) -> Vec<Item> {
    cases
        .iter()
        .enumerate()
        .map(|(i, c)| Item {
            references: c.references.clone(),
            ..Item::new(i, "-", c.references[0].clone(), format!("fixture#{i}"))
        })
        .collect()
}

fn corpus(cases: &[Case], lowercase: bool) -> f64 {
    let metric = BleuMetric {
        options: BleuOptions {
            lowercase,
            pass_bleu: None,
        },
    };
    let items = items(cases);
    let pairs: Vec<(&Item, &str)> = items
        .iter()
        .zip(cases)
        .map(|(i, c)| (i, c.hypothesis.as_str()))
        .collect();
    let scores = metric.corpus_scores(&pairs);
    assert_eq!(scores.len(), 1);
    assert_eq!(scores[0].0, "bleu");
    100.0 * scores[0].1
}

#[test]
fn tokens_agree_with_sacrebleu_13a() {
    let (_, cases) = fixture();
    let differ: Vec<_> = cases
        .iter()
        .filter(|c| preprocess(&c.hypothesis, false) != c.tokens)
        .map(|c| {
            (
                c.hypothesis.clone(),
                preprocess(&c.hypothesis, false),
                c.tokens.clone(),
            )
        })
        .collect();
    assert!(differ.is_empty(), "{} differ: {differ:#?}", differ.len());
}

#[test]
fn sentence_bleu_agrees_with_sacrebleu_to_1e6() {
    let (_, cases) = fixture();
    let mut worst = 0.0f64;
    for lowercase in [false, true] {
        for c in &cases {
            let refs: Vec<String> = c
                .references
                .iter()
                .map(|r| preprocess(r, lowercase))
                .collect();
            let ours = sacrebleu::sentence(&preprocess(&c.hypothesis, lowercase), &refs).score;
            let theirs = if lowercase {
                c.sentence_lowercase
            } else {
                c.sentence
            };
            assert!(
                (ours - theirs).abs() <= 1e-6,
                "{:?} vs {:?} (lowercase {lowercase}): ours {ours}, sacreBLEU {theirs}",
                c.hypothesis,
                c.references
            );
            worst = worst.max((ours - theirs).abs());
        }
    }
    eprintln!(
        "{} sentences × 2, largest difference {worst:e}",
        cases.len()
    );
    // The fixture is not degenerate: both perfect and zero and in-between scores occur.
    assert!(cases.iter().any(|c| c.sentence == 0.0));
    assert!(cases.iter().any(|c| c.sentence > 99.99));
    assert!(
        cases
            .iter()
            .filter(|c| c.sentence > 1.0 && c.sentence < 99.0)
            .count()
            > 300
    );
}

#[test]
fn corpus_bleu_agrees_with_sacrebleu_to_1e6() {
    let (v, cases) = fixture();
    let hand = v["hand_written_items"].as_u64().unwrap() as usize;
    for (ours, theirs) in [
        (corpus(&cases, false), v["corpus_bleu"].as_f64().unwrap()),
        (
            corpus(&cases, true),
            v["corpus_bleu_lowercase"].as_f64().unwrap(),
        ),
        (
            corpus(&cases[..hand], false),
            v["corpus_bleu_hand_written"].as_f64().unwrap(),
        ),
    ] {
        assert!(
            (ours - theirs).abs() <= 1e-6,
            "ours {ours}, sacreBLEU {theirs}"
        );
    }
    // Corpus BLEU is not the mean of sentence BLEU: the check above can tell them apart.
    let mean = cases.iter().map(|c| c.sentence).sum::<f64>() / cases.len() as f64;
    assert!((mean - v["corpus_bleu"].as_f64().unwrap()).abs() > 0.5);
}
