//! The near-miss sweep (`spec/test_suite.md`, "The near-miss sweep"): once the random draws
//! stop, each gold with neighbors still open gets databases of its own that hold its witness
//! and one near miss, for every atom of every branch of its `OR`s in turn, and no other
//! random row. A gold whose joins multiply past its limits on random rows (ATIS: a top-level
//! `OR` of two seven-alias joins against a `MIN`) answers on these within its limits, and its
//! near misses reach each of its atoms instead of a random few.
//!
//! Once a gold's rounds end, its neighbors still open take [`patient`] turns on the databases
//! its sweep kept: a larger step budget, where a neighbor that lost a join condition
//! multiplies a few rows past the usual one.
//!
//! Golds are swept in parallel, each on its own; only the swept gold runs on its databases
//! here. The databases that tell something apart are kept afterwards, in the gold's order
//! ([`super::distill_schema`]), where the other golds run on them as on any kept database.

use std::time::Duration;

use rayon::prelude::*;

use super::{examine, Examination, Examined, GoldOutcome, Prepared, Role, Target, Text, Twin};
use crate::canvas::{self, Canvas};
use crate::random_db::{Constants, Sweep};
use crate::schema::SuiteSchema;
use crate::witness::Witness;
use crate::SuiteError;
use sqlsuite::backend::Limits;
use sqlsuite::work_pool;

/// At most how many times a gold's sequence of near misses is walked (each time with other
/// seeds and another kind of edge value: another value beside a constant, another side of a
/// join); [`IDLE_ROUNDS`] rounds in a row that tell nothing apart end the gold's sweep.
pub const ROUNDS: usize = 12;

/// Rounds in a row that tell nothing apart before a gold's sweep ends: one for each kind of
/// value beside a text constant ([`crate::witness::Instance::beside_in_turn`]).
pub const IDLE_ROUNDS: usize = 5;

/// A neighbor still open once a gold's rounds end runs again on the databases its sweep kept,
/// with this many times its step budget ([`patient`]): on a database of a few rows a
/// neighbor that lost a join condition answers within it, where it multiplies the gold's
/// aliases past the usual budget (ATIS: 10⁷ steps against the gold's 10³).
pub const PATIENCE: u64 = 150;

/// A neighbor stopped by the patient budget on this many of those databases is not run on
/// the others: the rest of the sweep's time goes to neighbors that answer within it.
pub const PATIENT_STOPS: usize = 2;

/// The time limit of a patient run, at least (the step budget stops it first on this machine;
/// the time limit of distillation, `--timeout-ms`, would stop it before its steps).
const PATIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// A database of the sweep that told something apart, to keep.
pub struct Swept {
    /// The gold it was drawn for (position in the schema's golds).
    pub gold: usize,
    pub constants: Constants,
    pub seed: u64,
    /// The neighbors it told apart last (no target of theirs left).
    pub closed: Vec<usize>,
}

/// What the sweep of one schema needs.
pub struct SweepInput<'a> {
    pub schema: &'a SuiteSchema,
    /// The schema's constants (before focusing).
    pub constants: &'a Constants,
    /// Per gold: its text, and whether natural data matches its constants (else its databases
    /// are respelled, as in the draws).
    pub golds: Vec<(&'a str, bool)>,
    pub how: &'a Examination<'a>,
    /// The run's seed and the schema: each database's seed derives from them.
    pub seed: u64,
    pub db_id: &'a str,
}

/// Sweeps every gold with a neighbor still open, in parallel; removes what each database
/// tells apart from the gold's targets, and returns those databases, by gold then in the
/// order drawn. Stops at the examination's deadline.
pub fn sweep(
    input: &SweepInput,
    prepared: &mut [Prepared],
    outcomes: &[GoldOutcome],
) -> Result<Vec<Swept>, SuiteError> {
    let parts: Vec<Result<Vec<Swept>, SuiteError>> = work_pool::run(|| {
        prepared
            .par_iter_mut()
            .zip(outcomes.par_iter())
            .enumerate()
            .map_init(
                || None::<Canvas>,
                |slot, (g, (p, o))| sweep_gold(input, g, p, o, slot),
            )
            .collect()
    });
    let mut kept = Vec::new();
    for part in parts {
        kept.extend(part?);
    }
    Ok(kept)
}

fn open(p: &Prepared) -> bool {
    p.targets.iter().any(|t| !t.is_empty())
}

fn sweep_gold(
    input: &SweepInput,
    g: usize,
    p: &mut Prepared,
    o: &GoldOutcome,
    slot: &mut Option<Canvas>,
) -> Result<Vec<Swept>, SuiteError> {
    let mut kept = Vec::new();
    let (gold, natural) = input.golds[g];
    if !open(p) || o.gold_error.is_some() {
        return Ok(kept);
    }
    let alternatives = Witness::alternatives(gold, input.schema);
    if alternatives.is_empty() {
        return Ok(kept);
    }
    let focused = input.constants.focused_on(gold, input.schema);
    let focused = if natural {
        focused
    } else {
        focused.respelled()
    };
    let mut step = 0u64;
    let mut idle = 0;
    for round in 0..ROUNDS {
        let kept_before = kept.len();
        for (branch, w) in alternatives.iter().enumerate() {
            for atom in std::iter::once(None).chain((0..w.gold_atoms).map(Some)) {
                if !open(p) || input.how.past_deadline() {
                    return Ok(kept);
                }
                step += 1;
                let seed = sweep_seed(input.seed, input.db_id, o.index, step);
                let constants = focused.clone().swept(Sweep {
                    branch,
                    atom,
                    round,
                });
                let e = examine_swept(input, p, o, input.how, &constants, seed, slot)?;
                if e.failure.is_some() || e.ambiguous || e.found.is_empty() {
                    continue;
                }
                let closed = close(p, e.found);
                kept.push(Swept {
                    gold: g,
                    constants,
                    seed,
                    closed,
                });
            }
        }
        idle = if kept.len() == kept_before {
            idle + 1
        } else {
            0
        };
        if idle >= IDLE_ROUNDS {
            break;
        }
    }
    patient(input, p, o, &mut kept, slot)?;
    Ok(kept)
}

/// Runs the gold's neighbors still open on the databases its sweep kept, in the order kept,
/// with [`PATIENCE`] times their step budget; a neighbor stopped on [`PATIENT_STOPS`] of them
/// is not run further. What one tells apart is closed there (`kept[i].closed`). Stops at the
/// examination's deadline.
fn patient(
    input: &SweepInput,
    p: &mut Prepared,
    o: &GoldOutcome,
    kept: &mut [Swept],
    slot: &mut Option<Canvas>,
) -> Result<(), SuiteError> {
    let limits = Limits {
        max_steps: input
            .how
            .neighbor_limits
            .max_steps
            .map(|m| m.saturating_mul(PATIENCE)),
        timeout: input.how.neighbor_limits.timeout.max(PATIENT_TIMEOUT),
        ..*input.how.neighbor_limits
    };
    let how = Examination {
        neighbor_limits: &limits,
        ..*input.how
    };
    let mut patience = Patience::new(p);
    for s in kept.iter_mut() {
        if !open(p) || how.past_deadline() {
            break;
        }
        let closed = patience.turn(p, |p| {
            examine_swept(input, p, o, &how, &s.constants, s.seed, slot)
        })?;
        s.closed.extend(closed);
    }
    Ok(())
}

/// Examines the gold on the database of the sweep `(constants, seed)`, filled in `slot`.
fn examine_swept(
    input: &SweepInput,
    p: &Prepared,
    o: &GoldOutcome,
    how: &Examination,
    constants: &Constants,
    seed: u64,
    slot: &mut Option<Canvas>,
) -> Result<Examined, SuiteError> {
    let conn = canvas::held(slot, input.schema, constants, seed)?;
    let mut twin = Twin {
        schema: input.schema,
        constants,
        seed,
        conn: None,
    };
    examine(
        p,
        &o.probes,
        &Target::Memory(conn),
        &mut twin,
        how,
        Role::Witnessed,
    )
}

/// Per neighbor of a gold: how many patient runs stopped it ([`PATIENT_STOPS`]).
pub(super) struct Patience {
    stops: Vec<usize>,
}

impl Patience {
    pub(super) fn new(p: &Prepared) -> Patience {
        Patience {
            stops: vec![0; p.targets.len()],
        }
    }

    /// One database's turn: `examine` sees `p` with the targets of the neighbors given up on
    /// set aside (the others keep their indices); what it tells apart is closed in `p`, what
    /// it stops counts. Returns the neighbors closed.
    pub(super) fn turn(
        &mut self,
        p: &mut Prepared,
        examine: impl FnOnce(&Prepared) -> Result<Examined, SuiteError>,
    ) -> Result<Vec<usize>, SuiteError> {
        let aside: Vec<(usize, Vec<Text>)> = (0..self.stops.len())
            .filter(|&n| self.stops[n] >= PATIENT_STOPS)
            .map(|n| (n, std::mem::take(&mut p.targets[n])))
            .collect();
        let e = examine(p);
        for (n, ts) in aside {
            p.targets[n] = ts;
        }
        let e = e?;
        let mut stopped: Vec<usize> = e.stopped.iter().map(|&(n, _)| n).collect();
        stopped.dedup();
        for n in stopped {
            self.stops[n] += 1;
        }
        Ok(close(p, e.found))
    }
}

/// Removes the (neighbor, target) pairs `found` from `p`'s targets; returns the neighbors left
/// with none.
fn close(p: &mut Prepared, mut found: Vec<(usize, usize)>) -> Vec<usize> {
    found.sort_unstable();
    // From the back, so indices stay valid.
    for &(n, t) in found.iter().rev() {
        p.targets[n].remove(t);
    }
    let mut closed: Vec<usize> = found.iter().map(|&(n, _)| n).collect();
    closed.dedup();
    closed.retain(|&n| p.targets[n].is_empty());
    closed
}

/// The seed of step `step` of the sweep of the gold of item `index`: apart from the draws'
/// seeds ([`super::database_seed`]).
fn sweep_seed(seed: u64, db_id: &str, index: usize, step: u64) -> u64 {
    let mut h = blake3::Hasher::new();
    h.update(b"sweep");
    h.update(&seed.to_le_bytes());
    h.update(db_id.as_bytes());
    h.update(&(index as u64).to_le_bytes());
    h.update(&step.to_le_bytes());
    let b = h.finalize();
    let mut eight = [0u8; 8];
    eight.copy_from_slice(&b.as_bytes()[..8]);
    u64::from_le_bytes(eight)
}
