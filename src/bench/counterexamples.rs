//! `sqlsuite bench --counterexamples`: the CPU time minimal counterexamples add to an
//! evaluation (`spec/counterexample.md`). Every prediction set is judged by the exec metric as
//! the manifest says, and again with `counterexamples = true`, each afresh (cold caches, the
//! manifest's `[cache]` dropped) and alternating, [`ROUNDS`] rounds; each side's least CPU is
//! compared. Then what the counterexamples were: how many, re-checked, 1-minimal, their rows.

use std::process::ExitCode;

use sqlsuite::counterexample::Found;
use sqlsuite::metric::exec::ExecOptions;
use sqlsuite::metric::Status;
use sqlsuite::{Evaluation, Manifest};

use super::pass::{self, evaluation, least, secs};

/// Rounds of each side; the ratio takes the least CPU of each.
const ROUNDS: usize = 3;

/// Benchmarks the counterexamples of `manifest`'s exec metric (options `exec`).
pub fn run(manifest: Manifest, exec: ExecOptions) -> anyhow::Result<ExitCode> {
    let base = ExecOptions {
        counterexamples: false,
        ..exec.clone()
    };
    let with = ExecOptions {
        counterexamples: true,
        ..exec
    };
    let (mut base_cpu, mut with_cpu) = (Vec::new(), Vec::new());
    let mut last = None;
    for round in 1..=ROUNDS {
        let plain = evaluation(&manifest, base.clone())?;
        let pairs = pass::all_pairs(&plain);
        if round == 1 {
            println!(
                "bench {} --counterexamples: {} predictions ({} sets), {ROUNDS} rounds, each \
                 side afresh, alternating",
                plain.dataset.name,
                pairs.len(),
                plain.dataset.predictions.len()
            );
        }
        let b = pass::run(&plain, &pairs, "exec").cpu;
        drop(plain);
        let shrinking = evaluation(&manifest, with.clone())?;
        let w = pass::run(&shrinking, &pairs, "exec with counterexamples").cpu;
        println!(
            "  round {round}: {:.2} s CPU without, {:.2} s with ({:+.1} %)",
            secs(b),
            secs(w),
            100.0 * (secs(w) / secs(b).max(1e-9) - 1.0)
        );
        base_cpu.push(b);
        with_cpu.push(w);
        last = Some((shrinking, pairs));
    }
    let (b, w) = (least(&base_cpu), least(&with_cpu));
    println!(
        "exec, least CPU of {ROUNDS} rounds: {:.2} s without counterexamples, {:.2} s with; \
         ratio {:.3} ({:+.1} % added)",
        secs(b),
        secs(w),
        secs(w) / secs(b).max(1e-9),
        100.0 * (secs(w) / secs(b).max(1e-9) - 1.0)
    );
    if let Some((eval, pairs)) = last {
        println!("{}", Shown::count(&eval, &pairs).describe());
    }
    Ok(ExitCode::SUCCESS)
}

/// What the counterexamples of one evaluation were.
#[derive(Default)]
struct Shown {
    /// Incorrect exec verdicts.
    incorrect: usize,
    /// Of those, the ones whose rows differ.
    rows_differ: usize,
    /// Counterexamples shown (each re-checked before it is shown).
    shown: usize,
    /// Of those, 1-minimal.
    minimal: usize,
    /// Rows left in the tables read, per counterexample shown.
    rows: Vec<usize>,
    /// Probes, all together.
    probes: usize,
}

impl Shown {
    fn count(eval: &Evaluation, pairs: &[(usize, usize)]) -> Shown {
        let mut n = Shown::default();
        for &(s, i) in pairs {
            let judged = eval.judge(s, i);
            let Some(v) = judged.verdict("exec") else {
                continue;
            };
            if v.status != Status::Incorrect {
                continue;
            }
            n.incorrect += 1;
            if sqlsuite::counterexample::ROWS_DIFFER.contains(&v.code.as_str()) {
                n.rows_differ += 1;
            }
            if let Some(Found::Shown(c)) = v.counterexample.as_deref() {
                n.shown += 1;
                n.minimal += usize::from(c.minimal);
                n.rows.push(c.rows);
                n.probes += c.probes;
            }
        }
        n.rows.sort_unstable();
        n
    }

    fn describe(&self) -> String {
        let at = |q: f64| {
            let i = ((self.rows.len() as f64 * q).ceil() as usize).saturating_sub(1);
            self.rows.get(i).copied().unwrap_or(0)
        };
        format!(
            "counterexamples: {} shown (each re-checked) of {} incorrect verdicts whose rows \
             differ ({} incorrect in all); {} 1-minimal; rows left median {}, p95 {}, max {}; \
             {} probes",
            self.shown,
            self.rows_differ,
            self.incorrect,
            self.minimal,
            at(0.5),
            at(0.95),
            self.rows.last().copied().unwrap_or(0),
            self.probes
        )
    }
}
