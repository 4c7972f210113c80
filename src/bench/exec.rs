//! `sqlsuite bench` for execution accuracy: every prediction set judged by `exec`, timed
//! against a baseline measured in the same run — raw SQLite ([`super::raw`]) executing the
//! same golds and predictions, with the same per-query timeout: every pair's queries on one
//! thread, and each distinct query once on as many threads as the evaluation. Then the same
//! evaluation under a gold-relative step budget, exact set match, and plug_value.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use sqlsuite::metric::exact_match::{ExactMatch, ExactMatchOptions};
use sqlsuite::metric::exec::{ExecOptions, RelativeBudget};
use sqlsuite::metric::{Metric, Status};
use sqlsuite::{Evaluation, Manifest};

use super::pass::{self, evaluation, least, secs, timed, Pass};
use super::raw::{self, Job, Raw, Runs};

/// Rounds of the CPU comparisons; each ratio takes the least CPU of its side.
const ROUNDS: usize = 3;

/// Steps within which a query counts as light in the hot-path measurement.
const LIGHT_STEPS: u64 = 100_000;

/// Verdicts changed by the step budget, listed.
const SHOWN_CHANGES: usize = 20;

/// Benchmarks `manifest` (whose `[cache]` the caller dropped) with the exec metric made with
/// `exec`, the step budget measured being `budget`; `plug_value` times exec with plug_value
/// too (the manifest enables exec).
pub fn run(
    manifest: Manifest,
    exec: ExecOptions,
    budget: RelativeBudget,
    plug_value: bool,
) -> anyhow::Result<ExitCode> {
    let bench = Bench::new(manifest, exec)?;
    // 1. As the manifest says: wall-clock limits only.
    let (clock, before) = bench.wall_clock_limits()?;
    // 2. The same with a gold-relative step budget: predictions that do far more work than
    // their gold stop at the budget instead of the clock.
    let stepped = bench.step_budget(budget, &before)?;
    bench.print_changes(&clock, &stepped);
    bench.light(&stepped)?;
    // 3. On the predictions that finish within the limits: the whole job's CPU against raw
    // SQLite running the same queries, and a step budget that never fires against none.
    bench.finishing(&clock)?;
    bench.exact_match()?;
    if plug_value {
        bench.plug_value()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What every phase of the benchmark shares.
struct Bench {
    manifest: Manifest,
    /// The exec metric's options as the manifest says (and `--timeout-ms`).
    exec: ExecOptions,
    /// The dataset, its items and predictions; never judged (each phase judges afresh).
    eval: Evaluation,
    /// Every (set, item) pair.
    all: Vec<(usize, usize)>,
}

impl Bench {
    /// Opens the manifest and prints what is to be judged.
    fn new(manifest: Manifest, exec: ExecOptions) -> anyhow::Result<Bench> {
        let eval = evaluation(&manifest, exec.clone())?;
        let sets = eval.dataset.predictions.len();
        let items = eval.items().len();
        let skipped_items = eval.dataset.databases.iter().filter(|d| d.is_err()).count();
        println!(
            "bench {}: {sets} prediction sets × {items} items = {} predictions ({} on missing databases)",
            eval.dataset.name,
            sets * items,
            sets * skipped_items
        );
        let all = pass::all_pairs(&eval);
        Ok(Bench {
            manifest,
            exec,
            eval,
            all,
        })
    }

    /// Phase 1: every pair judged with the manifest's wall-clock limits only. Returns the
    /// evaluation (the later phases compare with its verdicts) and its pass.
    fn wall_clock_limits(&self) -> anyhow::Result<(Evaluation, Pass)> {
        let clock = evaluation(&self.manifest, self.exec.clone())?;
        let before = pass::run(&clock, &self.all, "exec, wall-clock limits");
        let judged = self
            .all
            .iter()
            .filter(|&&(s, i)| clock.judge(s, i).status() != Status::Skipped)
            .count();
        let timeouts = self
            .all
            .iter()
            .filter(|&&p| code(&clock, p).as_deref() == Some("timeout"))
            .count();
        println!(
            "exec, wall-clock limits only ({} ms per query), one pool: {}; {:.0} predictions/s \
             ({judged} judged, {timeouts} ran into the time limit)",
            self.exec.limits.timeout_ms,
            before.describe(),
            judged as f64 / secs(before.wall).max(1e-9)
        );
        Ok((clock, before))
    }

    /// Phase 2: every pair judged with the gold-relative step `budget` (the wall-clock limit
    /// kept as a safety net), timed against phase 1's pass `before`.
    fn step_budget(&self, budget: RelativeBudget, before: &Pass) -> anyhow::Result<Evaluation> {
        let budgeted = ExecOptions {
            gold_relative_budget: Some(budget),
            ..self.exec.clone()
        };
        let stepped = evaluation(&self.manifest, budgeted)?;
        let after = pass::run(&stepped, &self.all, "exec, gold-relative step budget");
        println!(
            "exec, step budget {} + {} × the gold's steps (wall-clock limit kept as a safety net): \
             {}; ratio of wall times {:.3} (before/after: {:.1}×)",
            budget.floor,
            budget.multiplier,
            after.describe(),
            secs(after.wall) / secs(before.wall).max(1e-9),
            secs(before.wall) / secs(after.wall).max(1e-9)
        );
        Ok(stepped)
    }

    /// The verdicts the step budget changed: how many, by transition, and the first few.
    fn print_changes(&self, clock: &Evaluation, stepped: &Evaluation) {
        let changed: Vec<(usize, usize)> = self
            .all
            .iter()
            .copied()
            .filter(|&p| code(clock, p) != code(stepped, p))
            .collect();
        println!("  verdicts changed by the budget: {}", changed.len());
        let mut transitions: BTreeMap<(String, String), usize> = BTreeMap::new();
        for &p in &changed {
            let key = (
                code(clock, p).unwrap_or_default(),
                code(stepped, p).unwrap_or_default(),
            );
            *transitions.entry(key).or_default() += 1;
        }
        for ((from, to), n) in &transitions {
            println!("    {from} → {to}: {n}");
        }
        for &(s, i) in changed.iter().take(SHOWN_CHANGES) {
            println!(
                "    {}::{}: {} → {}",
                self.eval.dataset.predictions[s].name,
                self.eval.items()[i].index,
                code(clock, (s, i)).unwrap_or_default(),
                code(stepped, (s, i)).unwrap_or_default()
            );
        }
        if changed.len() > SHOWN_CHANGES {
            println!("    … {} more", changed.len() - SHOWN_CHANGES);
        }
    }

    /// The per-query hot path: the light pairs (gold and prediction each within LIGHT_STEPS
    /// under the budget), where the queries cost least, so the work around them — text
    /// preprocessing, allocation, comparison — weighs most; against raw SQLite running each
    /// distinct query once.
    fn light(&self, stepped: &Evaluation) -> anyhow::Result<()> {
        let light: Vec<(usize, usize)> = self
            .all
            .iter()
            .copied()
            .filter(|&(s, i)| stepped.judge(s, i).status() != Status::Skipped)
            .filter(|&(s, i)| {
                let steps = stepped.judge(s, i).verdict("exec").and_then(|v| v.steps);
                steps.is_some_and(|st| {
                    st.gold <= LIGHT_STEPS && st.prediction.is_some_and(|p| p <= LIGHT_STEPS)
                })
            })
            .collect();
        let (mut raw_cpu, mut eval_cpu) = (Vec::new(), Vec::new());
        let mut raw_queries = 0;
        for _ in 0..ROUNDS {
            let raw = self.raw_baseline(&light, Runs::Distinct)?;
            raw_queries = raw.queries;
            raw_cpu.push(raw.cpu);
            let fresh = evaluation(&self.manifest, self.exec.clone())?;
            eval_cpu.push(pass::run(&fresh, &light, "exec, light predictions").cpu);
        }
        let (raw_cpu, eval_cpu) = (least(&raw_cpu), least(&eval_cpu));
        println!(
            "the {} light predictions (gold and prediction within {LIGHT_STEPS} steps each under \
             the budget), least CPU of {ROUNDS} rounds: sqlsuite eval (cold caches) {:.3} s CPU \
             against raw SQLite, each distinct query once ({raw_queries}, {} threads), {:.3} s; \
             ratio {:.3} (the per-query hot path)",
            light.len(),
            secs(eval_cpu),
            sqlsuite::work_pool::threads(),
            secs(raw_cpu),
            secs(eval_cpu) / secs(raw_cpu).max(1e-9)
        );
        Ok(())
    }

    /// The pairs whose prediction finished within the limits in phase 1 (`clock`): the whole
    /// job's CPU against raw SQLite running the same queries, and the step budget's overhead.
    fn finishing(&self, clock: &Evaluation) -> anyhow::Result<()> {
        let finishing: Vec<(usize, usize)> = self
            .all
            .iter()
            .copied()
            .filter(|&p| !matches!(code(clock, p).as_deref(), None | Some("timeout")))
            .filter(|&(s, i)| clock.judge(s, i).status() != Status::Skipped)
            .collect();
        self.finishing_rounds(&finishing)?.print(finishing.len());
        Ok(())
    }

    /// Measures `finishing` in ROUNDS rounds, each side afresh: raw SQLite (every pair, then
    /// each distinct query once), sqlsuite with wall-clock limits only, and sqlsuite with a
    /// step budget that never fires.
    fn finishing_rounds(&self, finishing: &[(usize, usize)]) -> anyhow::Result<FinishingCpu> {
        let never = ExecOptions {
            gold_relative_budget: Some(RelativeBudget {
                floor: u64::MAX / 2,
                multiplier: 1,
            }),
            ..self.exec.clone()
        };
        let (mut raw_cpu, mut distinct_cpu) = (Vec::new(), Vec::new());
        let (mut clock_cpu, mut never_cpu) = (Vec::new(), Vec::new());
        let (mut raw_queries, mut distinct_queries) = (0, 0);
        for round in 1..=ROUNDS {
            let raw = self.raw_baseline(finishing, Runs::EveryPair)?;
            let distinct = self.raw_baseline(finishing, Runs::Distinct)?;
            (raw_queries, distinct_queries) = (raw.queries, distinct.queries);
            if raw.timed_out > 0 {
                println!("  (round {round}: {} raw queries timed out)", raw.timed_out);
            }
            raw_cpu.push(raw.cpu);
            distinct_cpu.push(distinct.cpu);
            let fresh = evaluation(&self.manifest, self.exec.clone())?;
            clock_cpu.push(pass::run(&fresh, finishing, "exec, wall-clock limits").cpu);
            let fresh = evaluation(&self.manifest, never.clone())?;
            never_cpu.push(pass::run(&fresh, finishing, "exec, step budget").cpu);
        }
        Ok(FinishingCpu {
            raw: least(&raw_cpu),
            raw_queries,
            distinct: least(&distinct_cpu),
            distinct_queries,
            clock: least(&clock_cpu),
            never: least(&never_cpu),
        })
    }

    /// Exact set match: no database, parse and compare only (if the manifest has tables).
    fn exact_match(&self) -> anyhow::Result<()> {
        let Some(tables) = &self.manifest.tables else {
            return Ok(());
        };
        let esm = Evaluation::with_metrics(self.manifest.clone(), |resources| {
            let schemas = resources.schemas.clone().ok_or("no schemas")?;
            let esm = ExactMatch::new(&ExactMatchOptions::default(), schemas);
            Ok(vec![Box::new(esm) as Box<dyn Metric>])
        })?;
        let (wall, _) = timed(&esm, "evaluating exact_match");
        let predictions = self.all.len();
        println!(
            "exact_match ({} threads, schemas from {}): {predictions} predictions in {:.2} s = {:.0} items/s",
            sqlsuite::work_pool::threads(),
            tables.display(),
            secs(wall),
            predictions as f64 / secs(wall).max(1e-9)
        );
        Ok(())
    }

    /// QueryResult with plug_value: the prediction as written, then gold values in its slots.
    fn plug_value(&self) -> anyhow::Result<()> {
        let options = ExecOptions {
            plug_value: true,
            ..self.exec.clone()
        };
        let plugged = evaluation(&self.manifest, options.clone())?;
        let (wall, worst) = timed(&plugged, "evaluating exec with plug_value");
        let correct = self
            .all
            .iter()
            .filter(|&&(s, i)| plugged.judge(s, i).status() == Status::Correct)
            .count();
        println!(
            "exec with plug_value ({} threads): {:.2} s wall for {} predictions ({correct} correct); \
             worst item {}",
            sqlsuite::work_pool::threads(),
            secs(wall),
            self.all.len(),
            worst.map_or_else(String::new, |(d, s, i)| format!(
                "{}::{i} {:.2} s (timeout {} ms per query)",
                plugged.dataset.predictions[s].name,
                secs(d),
                options.limits.timeout_ms
            ))
        );
        Ok(())
    }

    /// Runs, raw, what the evaluation of `pairs` runs: per (item, database), the gold and the
    /// predictions as the exec metric runs them.
    fn raw_baseline(&self, pairs: &[(usize, usize)], runs: Runs) -> anyhow::Result<Raw> {
        let eval = &self.eval;
        let timeout = Duration::from_millis(self.exec.limits.timeout_ms);
        let mut by_item: Vec<Vec<usize>> = vec![Vec::new(); eval.items().len()];
        for &(set, item) in pairs {
            by_item[item].push(set);
        }
        let mut jobs: Vec<Job> = Vec::new();
        for (i, item) in eval.items().iter().enumerate() {
            let Ok(dbs) = &eval.dataset.databases[i] else {
                continue;
            };
            if by_item[i].is_empty() {
                continue;
            }
            for db in dbs {
                let predictions = by_item[i]
                    .iter()
                    .map(|&set| self.exec.prediction_plan(eval.prediction(set, i)).sql)
                    .collect();
                jobs.push(Job {
                    db: db.clone(),
                    gold: self.exec.gold_plan(&item.gold).sql,
                    predictions,
                });
            }
        }
        raw::measure(&jobs, timeout, runs)
    }
}

/// Phase 3's measurements on the predictions that finish: the least CPU of ROUNDS rounds of
/// each side, and the queries each raw baseline ran.
struct FinishingCpu {
    /// Raw SQLite, every pair's queries on one thread.
    raw: Duration,
    raw_queries: usize,
    /// Raw SQLite, each distinct query once on the work pool.
    distinct: Duration,
    distinct_queries: usize,
    /// sqlsuite eval (cold caches), wall-clock limits only.
    clock: Duration,
    /// sqlsuite eval (cold caches), a step budget that never fires.
    never: Duration,
}

impl FinishingCpu {
    /// The comparisons of the `finishing` predictions, as ratios.
    fn print(&self, finishing: usize) {
        let threads = sqlsuite::work_pool::threads();
        println!(
            "the {finishing} predictions that finish within the limits, least CPU of {ROUNDS} \
             rounds; sqlsuite eval (cold caches): {:.2} s CPU",
            secs(self.clock),
        );
        println!(
            "  against raw SQLite, every pair's queries ({}, one thread): {:.2} s CPU; \
             ratio {:.3}",
            self.raw_queries,
            secs(self.raw),
            secs(self.clock) / secs(self.raw).max(1e-9)
        );
        println!(
            "  against raw SQLite, each distinct query once ({}, {threads} threads): \
             {:.2} s CPU; ratio {:.3}",
            self.distinct_queries,
            secs(self.distinct),
            secs(self.clock) / secs(self.distinct).max(1e-9)
        );
        println!(
            "  step-budget overhead: with a budget that never fires {:.2} s CPU vs wall-clock limits \
             only {:.2} s; ratio {:.3}",
            secs(self.never),
            secs(self.clock),
            secs(self.never) / secs(self.clock).max(1e-9)
        );
    }
}

/// The exec verdict's code of the pair (set, item).
fn code(eval: &Evaluation, (s, i): (usize, usize)) -> Option<String> {
    eval.judge(s, i).verdict("exec").map(|v| v.code.clone())
}
