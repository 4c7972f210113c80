//! One timed pass of the work pool over (prediction set, item) pairs, as `sqlsuite eval`
//! judges them: wall time, the process's CPU time, how busy the workers kept the cores, and the
//! slowest item.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use sqlsuite::metric::exec::{Exec, ExecOptions};
use sqlsuite::metric::Metric;
use sqlsuite::{Evaluation, Manifest};

use crate::progress::Progress;

/// What a pass measured.
pub struct Pass {
    pub wall: Duration,
    /// User and system CPU time of the whole process during the pass.
    pub cpu: Duration,
    /// Worker threads in the pool.
    pub threads: usize,
    /// For each worker, when (from the start) it finished its last item; a worker that got
    /// none finished at zero.
    finished: Vec<Duration>,
    /// The slowest item: its wall time, set and item.
    pub worst: Option<(Duration, usize, usize)>,
}

impl Pass {
    /// CPU time over the cores' wall time: 1.0 when every worker was busy from start to end.
    pub fn busy_share(&self) -> f64 {
        self.cpu.as_secs_f64() / (self.wall.as_secs_f64() * self.threads as f64).max(1e-9)
    }

    /// How long before the end the first worker ran out of work: the time cores stood idle
    /// while another still worked on its last items.
    pub fn idle_tail(&self) -> Duration {
        let first_done = self.finished.iter().min().copied().unwrap_or_default();
        self.wall.saturating_sub(first_done)
    }

    /// `12.34 s wall, 24.01 s CPU (97 % of 2 cores), idle tail 0.12 s`.
    pub fn describe(&self) -> String {
        format!(
            "{:.2} s wall, {:.2} s CPU ({:.0} % of {} cores), the first core idle {:.2} s before \
             the end",
            self.wall.as_secs_f64(),
            self.cpu.as_secs_f64(),
            100.0 * self.busy_share(),
            self.threads,
            self.idle_tail().as_secs_f64()
        )
    }
}

/// User plus system CPU time of this process, all threads.
pub fn cpu_time() -> Duration {
    // SAFETY: getrusage writes into the zeroed struct it is given and reads nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return Duration::ZERO;
        }
        usage
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// Every (set, item) pair of the evaluation, sets outermost.
pub fn all_pairs(eval: &Evaluation) -> Vec<(usize, usize)> {
    let (sets, items) = (eval.dataset.predictions.len(), eval.items().len());
    (0..sets)
        .flat_map(|s| (0..items).map(move |i| (s, i)))
        .collect()
}

/// Judges `pairs` on the work pool (one parallel pass, as `sqlsuite eval` does), timing it.
pub fn run(eval: &Evaluation, pairs: &[(usize, usize)], label: &str) -> Pass {
    let bar = Progress::new(pairs.len() as u64, label);
    let threads = sqlsuite::work_pool::threads();
    let finished: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let cpu = cpu_time();
    let start = Instant::now();
    let worst = sqlsuite::work_pool::run(|| {
        pairs
            .par_iter()
            .map(|&(s, i)| {
                let t = Instant::now();
                eval.judge(s, i);
                bar.inc();
                if let Some(worker) = rayon::current_thread_index().and_then(|w| finished.get(w)) {
                    worker.fetch_max(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
                }
                (t.elapsed(), s, i)
            })
            .max_by_key(|(d, _, _)| *d)
    });
    let wall = start.elapsed();
    let cpu = cpu_time().saturating_sub(cpu);
    bar.finish();
    Pass {
        wall,
        cpu,
        threads,
        finished: finished
            .iter()
            .map(|f| Duration::from_nanos(f.load(Ordering::Relaxed)))
            .collect(),
        worst,
    }
}

/// Judges every pair (as `sqlsuite eval` does), timing it: the wall time and the slowest item
/// (time, set, index).
pub fn timed(eval: &Evaluation, label: &str) -> (Duration, Option<(Duration, usize, usize)>) {
    let pass = run(eval, &all_pairs(eval), label);
    (pass.wall, pass.worst)
}

/// A fresh evaluation (cold caches) of `manifest` by the exec metric made with `options`.
pub fn evaluation(manifest: &Manifest, options: ExecOptions) -> anyhow::Result<Evaluation> {
    Ok(Evaluation::with_metrics(manifest.clone(), move |_| {
        Ok(vec![Box::new(Exec::new(options)) as Box<dyn Metric>])
    })?)
}

/// The least of the rounds' times.
pub fn least(rounds: &[Duration]) -> Duration {
    rounds.iter().min().copied().unwrap_or_default()
}

pub fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}
