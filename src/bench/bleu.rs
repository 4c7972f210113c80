//! `sqlsuite bench` on a SQL-to-text manifest (`bleu` enabled): scores 10,000 (item, text)
//! pairs — the manifest's items and prediction sets, cycled — one thread, and times it against
//! a baseline measured in the same run: only the `13a` tokenization of every text, the least
//! any BLEU implementation does.

use std::process::ExitCode;
use std::time::Instant;

use sqlsuite::dataset::Item;
use sqlsuite::metric::bleu::{segments, BleuMetric, BleuOptions};
use sqlsuite::metric::Metric;
use sqlsuite::{Evaluation, Manifest};

/// Pairs scored per run.
const PAIRS: usize = 10_000;

pub fn run(manifest: Manifest) -> anyhow::Result<ExitCode> {
    let options: BleuOptions = manifest.metric_options("bleu")?.unwrap_or_default();
    let lowercase = options.lowercase;
    let metric = BleuMetric { options };
    let eval = Evaluation::new(manifest)?;
    let (sets, items) = (eval.dataset.predictions.len(), eval.items().len());
    if sets * items == 0 {
        anyhow::bail!("the manifest has no predictions to score");
    }
    let pairs: Vec<(&Item, &str)> = (0..PAIRS)
        .map(|k| {
            let (s, i) = ((k / items) % sets, k % items);
            (&eval.items()[i], eval.prediction(s, i))
        })
        .collect();
    println!(
        "bench {}: {PAIRS} pairs ({sets} prediction sets × {items} items, cycled), one thread",
        eval.dataset.name
    );
    let start = Instant::now();
    let mut tokens = 0usize;
    for (item, text) in &pairs {
        let (hypothesis, references) = segments(item, text, lowercase);
        tokens += hypothesis.len() + references.iter().map(String::len).sum::<usize>();
    }
    let baseline = start.elapsed().as_secs_f64();
    std::hint::black_box(tokens);
    let executor = eval.executor();
    let start = Instant::now();
    let mut correct = 0usize;
    for (item, text) in &pairs {
        let v = metric.evaluate(item, text, &[], executor);
        correct += usize::from(v.status == sqlsuite::Status::Correct);
    }
    let corpus = metric.corpus_scores(&pairs);
    let full = start.elapsed().as_secs_f64();
    println!("baseline (13a tokenization of every text): {baseline:.3} s");
    println!(
        "sentence BLEU + exact match per pair, corpus BLEU over all: {full:.3} s \
         ({correct} pass; corpus {}) = {:.2}× the baseline",
        corpus
            .iter()
            .map(|(n, v)| format!("{n} {:.2}", 100.0 * v))
            .collect::<Vec<_>>()
            .join(", "),
        full / baseline.max(1e-9)
    );
    Ok(ExitCode::SUCCESS)
}
