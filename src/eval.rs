//! `sqlsuite eval` in the worker process ([`crate::supervise`] runs it): every chosen
//! prediction set judged in one pass, verdicts streamed to the journal as they come (with
//! `--resume`, only those the journal of an earlier run of the same evaluation lacks) and, with
//! `--format jsonl`, to the output in order as soon as every item before them is judged
//! ([`InOrder`]); then the other formats' output and the gate.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use sqlsuite::evaluation::in_order::{InOrder, Sink};
use sqlsuite::evaluation::Watch;
use sqlsuite::manifest::{GateMode, Manifest};
use sqlsuite::metric;
use sqlsuite::metric::Status;
use sqlsuite::report::snapshot::{self, Accepted};
use sqlsuite::report::snapshot_change::count;
use sqlsuite::report::summary::{Disagreement, Summary};
use sqlsuite::report::{gate, jsonl, junit};
use sqlsuite::run::{Judged, SetRun};
use sqlsuite::{Evaluation, ItemResult, Run};

use crate::cli::{EvalArgs, Format};
use crate::journal::{identity, resume, Journal};
use crate::supervise;
use crate::{emit, progress, set_named};

/// Fault injection for the supervisor's tests: a prediction whose text is exactly the value of
/// this variable aborts the process as it starts (as a crash inside SQLite would).
const ABORT_ON: &str = "SQLSUITE_FAULT_ABORT_ON";

/// The worker's [`Watch`]: progress, the journal, and the fault injection.
struct Worker<'a> {
    eval: &'a Evaluation,
    bar: Option<&'a progress::Progress>,
    journal: Option<Journal<'a>>,
    /// (set, item) pairs whose verdicts came from the journal: not written to it again.
    restored: BTreeSet<(usize, usize)>,
    abort_on: Option<String>,
    /// `--format jsonl`: the lines, in order as they come.
    stream: Option<&'a dyn Watch>,
}

impl Watch for Worker<'_> {
    fn started(&self, set: usize, item: usize) {
        if let Some(journal) = &self.journal {
            journal.started(set, item);
        }
        if self.abort_on.as_deref() == Some(self.eval.prediction(set, item)) {
            std::process::abort();
        }
    }

    fn finished(&self, set: usize, item: usize, result: &ItemResult, elapsed: Duration) {
        match &self.journal {
            Some(journal) if !self.restored.contains(&(set, item)) => {
                journal.finished(set, item, result, elapsed);
            }
            _ => {}
        }
        // After the journal: what was printed is in the journal, so a worker that resumes
        // after a death prints the same bytes first (the supervisor prints them once).
        if let Some(stream) = self.stream {
            stream.finished(set, item, result, elapsed);
        }
        if let Some(bar) = self.bar {
            bar.inc();
        }
    }
}

/// `--format jsonl` as a [`Sink`]: each set's first line (made before the run: nothing is
/// computed while lines are written), then each item's lines, written as told.
struct JsonLines<'a> {
    eval: &'a Evaluation,
    /// Per set position: its first line, until written.
    headers: Vec<Option<String>>,
    /// The first write that failed; nothing is written after it.
    failed: Option<anyhow::Error>,
}

impl<'a> JsonLines<'a> {
    fn new(eval: &'a Evaluation, sets: &[usize]) -> JsonLines<'a> {
        let mut headers = vec![None; eval.dataset.predictions.len()];
        for &set in sets {
            headers[set] = Some(jsonl::header(
                &eval.dataset.name,
                &eval.dataset.predictions[set].name,
                eval.provenance().of_set(set),
                eval.gold_checks(),
                eval.items(),
            ));
        }
        JsonLines {
            eval,
            headers,
            failed: None,
        }
    }

    fn write(&mut self, text: &str) {
        if self.failed.is_none() {
            self.failed = emit(text).err();
        }
    }
}

impl Sink for JsonLines<'_> {
    fn set_begins(&mut self, set: usize) {
        if let Some(header) = self.headers.get_mut(set).and_then(Option::take) {
            self.write(&format!("{header}\n"));
        }
    }

    fn judged(&mut self, set: usize, item: usize, judged: Judged<'_>) {
        let predictions = &self.eval.dataset.predictions[set];
        let extracted = predictions.extracted.get(item).copied().flatten();
        let name = &self.eval.dataset.name;
        let mut text = String::new();
        for line in jsonl::item_lines(name, &predictions.name, judged, extracted) {
            text.push_str(&line);
            text.push('\n');
        }
        self.write(&text);
    }
}

/// What the gate's mode says of a set beyond its thresholds: items not correct (strict), items
/// regressed against the accepted snapshot (regression).
fn gate_mode_failure(run: &Run, set: &SetRun) -> Option<String> {
    match run.manifest.gate.mode {
        GateMode::Strict => {
            let failed = set
                .results
                .iter()
                .filter(|r| matches!(r.status(), Status::Incorrect | Status::GoldError))
                .count();
            (failed > 0).then(|| {
                format!(
                    "{}::{}: {} not correct (strict mode)",
                    run.dataset,
                    set.name,
                    count(failed, "item")
                )
            })
        }
        GateMode::Regression => {
            let path = snapshot::path(&run.manifest, &set.name);
            let Some(accepted) = Accepted::read(&path) else {
                eprintln!(
                    "note: no accepted snapshot {} to compare with",
                    path.display()
                );
                return None;
            };
            let f = snapshot::flips(set, &accepted);
            (!f.regressed.is_empty()).then(|| {
                format!(
                    "{}::{}: {} regressed against the accepted snapshot: {:?}",
                    run.dataset,
                    set.name,
                    count(f.regressed.len(), "item"),
                    f.regressed
                )
            })
        }
    }
}

/// The positions of the prediction sets `only` names (all if none), in the manifest's order.
fn chosen_sets(eval: &Evaluation, manifest: &Path, only: &[String]) -> anyhow::Result<Vec<usize>> {
    for name in only {
        set_named(eval, manifest, name)?;
    }
    Ok((0..eval.dataset.predictions.len())
        .filter(|&s| only.is_empty() || only.contains(&eval.dataset.predictions[s].name))
        .collect())
}

/// `--crashed`: the verdict `crash` for each prediction the supervisor found aborting.
fn record_crashed(eval: &Evaluation, manifest: &Path, crashed: &[String]) -> anyhow::Result<()> {
    for crashed in crashed {
        let (item, status, name) = supervise::parse_crashed(crashed)?;
        let set = set_named(eval, manifest, &name)?;
        anyhow::ensure!(item < eval.items().len(), "--crashed: no item {item}");
        eval.record(
            set,
            item,
            eval.crashed(&format!(
                "the prediction aborted the process that ran it ({status}); it was not run again"
            )),
        );
    }
    Ok(())
}

/// (set, item) pairs.
type Pairs = BTreeSet<(usize, usize)>;

/// The journal this run writes (`--journal`), and the (set, item) pairs whose verdicts it
/// took from the journal of an earlier run (`--resume`), recorded in `eval`.
fn open_journal<'a>(
    args: &EvalArgs,
    eval: &'a Evaluation,
    sets: &[usize],
) -> anyhow::Result<(Option<Journal<'a>>, Pairs)> {
    let Some(path) = &args.journal else {
        return Ok((None, BTreeSet::new()));
    };
    let identity = identity::of(eval, &args.manifest, sets)?;
    if args.resume {
        match resume::read(path, eval, sets, &identity)? {
            Some(earlier) if earlier.has_header => {
                eprintln!(
                    "{}",
                    earlier.describe(path, sets.len() * eval.items().len())
                );
                let journal = Journal::resume(path, eval, &earlier)?;
                let restored = earlier
                    .results
                    .into_iter()
                    .filter(|((set, item), result)| eval.record(*set, *item, result.clone()))
                    .map(|(pair, _)| pair)
                    .collect();
                return Ok((Some(journal), restored));
            }
            Some(earlier) => eprintln!(
                "sqlsuite: the journal {} holds nothing judged ({} bytes without a newline \
                 ignored): starting it afresh",
                path.display(),
                earlier.torn_bytes
            ),
            None => eprintln!(
                "sqlsuite: no journal {} to resume: starting a new one",
                path.display()
            ),
        }
    }
    Ok((
        Some(Journal::create(path, eval, &identity)?),
        BTreeSet::new(),
    ))
}

/// `--probe ITEM:SET`: that one prediction judged, its verdict written to the journal only.
fn probe(args: &EvalArgs, eval: &Evaluation, probe: &str) -> anyhow::Result<ExitCode> {
    let (item, name) = supervise::parse_probe(probe)?;
    let set = set_named(eval, &args.manifest, &name)?;
    anyhow::ensure!(item < eval.items().len(), "--probe: no item {item}");
    let (journal, restored) = open_journal(args, eval, &[set])?;
    let worker = Worker {
        eval,
        bar: None,
        journal,
        restored,
        abort_on: std::env::var(ABORT_ON).ok(),
        stream: None,
    };
    worker.started(set, item);
    let result = eval.judge(set, item);
    worker.finished(set, item, result, Duration::ZERO);
    Ok(ExitCode::SUCCESS)
}

/// The evaluation `manifest` describes; with `counterexamples` (the flag of `eval` and
/// `report`), its exec metric shrinks counterexamples whatever the manifest says.
pub fn open(manifest: &Path, counterexamples: bool) -> anyhow::Result<Evaluation> {
    let mut loaded = Manifest::load(manifest)?;
    if counterexamples {
        loaded = loaded
            .with_metric_flag("exec", "counterexamples", true)
            .map_err(|e| anyhow::anyhow!("--counterexamples: {e}"))?;
    }
    Ok(Evaluation::new(loaded)?)
}

pub fn run(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let (manifest, format) = (args.manifest.as_path(), args.format);
    let eval = open(manifest, args.counterexamples)?;
    record_crashed(&eval, manifest, &args.crashed)?;
    if let Some(p) = &args.probe {
        return probe(args, &eval, p);
    }
    let sets = chosen_sets(&eval, manifest, &args.predictions)?;
    if let Some(warning) = eval.unpinned_clock_warning() {
        eprintln!("warning: {warning}");
    }
    let (journal, restored) = open_journal(args, &eval, &sets)?;
    let abort_on = std::env::var(ABORT_ON).ok();
    let total = sets.len() * eval.items().len();
    let bar = progress::Progress::new(total as u64, "evaluating");
    let stream = matches!(format, Format::Jsonl)
        .then(|| InOrder::new(&eval, &sets, JsonLines::new(&eval, &sets)));
    // One pass over every (set, item) pair: both cores stay busy until the last item.
    let worker = Worker {
        eval: &eval,
        bar: Some(&bar),
        journal,
        restored,
        abort_on,
        stream: stream.as_ref().map(|s| s as &dyn Watch),
    };
    let run = eval.run_watched(&sets, &worker);
    bar.finish();
    drop(worker);
    if let Some(failed) = stream.and_then(|s| s.finish().failed) {
        return Err(failed);
    }
    if let Format::Junit = format {
        emit(&junit::render(&run))?;
    }

    let mut gate_failures = Vec::new();
    for set in &run.sets {
        for metric in &run.metrics {
            let summary = Summary::of(&run, set, metric);
            if let Format::Text = format {
                emit(&format!(
                    "{}::{}\n{}\n",
                    run.dataset,
                    set.name,
                    summary.render_with_hardness()
                ))?;
            }
            if let Err(e) = gate::check(&run.manifest.gate, &summary) {
                gate_failures.push(e);
            }
        }
        // BIRD's set-based EX beside the stricter execution match: the items they judge apart.
        let pair = (metric::ex::ENTRY.name, metric::exec::ENTRY.name);
        if let (Format::Text, Some(d)) = (format, Disagreement::between(&run, set, pair.0, pair.1))
        {
            emit(&format!("{}::{}\n{}\n", run.dataset, set.name, d.render()))?;
        }
        gate_failures.extend(gate_mode_failure(&run, set));
    }
    if let Format::Text = format {
        emit(&format!(
            "{}: {}",
            run.dataset,
            sqlsuite::report::gold_checks::render(&run)
        ))?;
    }
    if gate_failures.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        for f in &gate_failures {
            eprintln!("gate: {f}");
        }
        Ok(ExitCode::from(1))
    }
}
