//! `sqlsuite eval` runs its evaluation in a child process (the same command with `--worker`)
//! and watches it: a prediction that aborts the process (a crash inside SQLite, a signal) costs
//! that one prediction its verdict, not the run. The worker writes a journal
//! ([`crate::journal`]); when it dies, the predictions it shows running are each run alone in a
//! probe process; one that dies alone gets the verdict `crash`, and the run continues from the
//! journal (`--resume`: what finished is not judged again) with those verdicts given
//! (`--crashed`). Output, gate and exit code are the worker's. The worker's output passes
//! through the supervisor as it comes (`--format jsonl` streams): a worker that resumes after a
//! death prints again, first, the bytes its predecessor printed (they come from verdicts the
//! journal holds, written before they were printed), and those are skipped here, so each is
//! printed once.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus, Stdio};

use crate::journal;

/// Runs that died with nobody to blame (each in-flight prediction survived alone) before the
/// supervisor gives up: a signal from outside, or queries that abort only together.
const UNEXPLAINED_DEATHS: usize = 2;

/// A prediction found to abort the process that runs it.
struct Crash {
    set: String,
    item: usize,
    status: String,
}

/// Supervises `sqlsuite eval <args>` (`args` as given, without the program name);
/// `journal` is the user's `--journal`, if any, and `resume` whether the user said `--resume`.
pub fn run(
    manifest: &Path,
    args: Vec<OsString>,
    journal: Option<&Path>,
    resume: bool,
) -> anyhow::Result<ExitCode> {
    let scratch = tempfile::tempdir()?;
    // The user's `--journal` (in whatever form it was written) stays among `args`; otherwise
    // the worker gets one here.
    let own_journal = journal.is_none();
    let journal: PathBuf = journal.map_or_else(|| scratch.path().join("journal.jsonl"), Into::into);
    let mut crashes: Vec<Crash> = Vec::new();
    let mut unexplained = 0;
    // After a death the worker continues from the journal (the user's `--resume` is among
    // `args` already).
    let mut add_resume = false;
    // Bytes of output printed by the workers so far.
    let mut printed: u64 = 0;
    loop {
        let mut worker = Command::new(std::env::current_exe()?);
        worker.args(&args).arg("--worker");
        if own_journal {
            worker.arg("--journal").arg(&journal);
        }
        if add_resume {
            worker.arg("--resume");
        }
        for c in &crashes {
            worker
                .arg("--crashed")
                .arg(format!("{}:{}:{}", c.item, c.status, c.set));
        }
        let mut child = worker.stdout(Stdio::piped()).spawn()?;
        if let Some(out) = child.stdout.take() {
            printed = printed.max(forward(out, printed)?);
        }
        let status = child.wait()?;
        let Some(death) = died(status) else {
            return Ok(ExitCode::from(
                status.code().unwrap_or(1).clamp(0, 255) as u8
            ));
        };
        add_resume = !resume;
        let suspects = journal::in_flight(&journal)?;
        eprintln!(
            "sqlsuite: the evaluation died ({death}) while running {}; running each alone",
            names(&suspects)
        );
        let mut found = 0;
        for (set, item) in suspects.iter() {
            let probe = Command::new(std::env::current_exe()?)
                .arg("eval")
                .arg(manifest)
                .args(["--worker", "--jobs", "1", "--probe"])
                .arg(format!("{item}:{set}"))
                .arg("--journal")
                .arg(scratch.path().join("probe.jsonl"))
                .stdout(Stdio::null())
                .status()?;
            if let Some(death) = died(probe) {
                eprintln!("sqlsuite: {set} item {item} dies alone ({death}): its verdict is crash");
                crashes.push(Crash {
                    set: set.clone(),
                    item: *item,
                    status: death,
                });
                found += 1;
            }
        }
        if found == 0 {
            unexplained += 1;
            if unexplained >= UNEXPLAINED_DEATHS {
                anyhow::bail!(
                    "{}: the evaluation died {unexplained} times ({death}) and none of the \
                     predictions running then ({}) dies alone",
                    manifest.display(),
                    names(&suspects)
                );
            }
        }
    }
}

/// Copies a worker's output to ours as it comes, but for its first `skip` bytes (printed
/// already); returns how many bytes the worker wrote. Where our output is closed (`| head`),
/// stops reading: the worker's next write fails and it ends quietly.
fn forward(mut out: impl Read, skip: u64) -> anyhow::Result<u64> {
    let mut buffer = vec![0u8; 1 << 16];
    let mut read: u64 = 0;
    let stdout = std::io::stdout();
    loop {
        let n = match out.read(&mut buffer) {
            Ok(0) => return Ok(read),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => anyhow::bail!("cannot read the evaluation's output: {e}"),
        };
        let start = usize::try_from(skip.saturating_sub(read)).map_or(n, |s| s.min(n));
        read += n as u64;
        let mut lock = stdout.lock();
        match lock
            .write_all(&buffer[start..n])
            .and_then(|()| lock.flush())
        {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(read),
            Err(e) => anyhow::bail!("cannot write the output: {e}"),
        }
    }
}

/// How the process died (a signal), or `None` if it exited.
fn died(status: ExitStatus) -> Option<String> {
    if status.code().is_some() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return Some(format!("signal {signal}"));
        }
    }
    Some(status.to_string())
}

fn names(pairs: &[(String, usize)]) -> String {
    if pairs.is_empty() {
        return "no prediction".to_owned();
    }
    pairs
        .iter()
        .map(|(set, item)| format!("{set} item {item}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A `--probe ITEM:SET` argument (the set last: its name may hold a colon).
pub fn parse_probe(text: &str) -> anyhow::Result<(usize, String)> {
    match text.split_once(':') {
        Some((item, set)) if !set.is_empty() => match item.parse() {
            Ok(item) => Ok((item, set.to_owned())),
            Err(_) => anyhow::bail!("--probe: expected ITEM:SET, got {text:?}"),
        },
        _ => anyhow::bail!("--probe: expected ITEM:SET, got {text:?}"),
    }
}

/// A `--crashed ITEM:STATUS:SET` argument.
pub fn parse_crashed(text: &str) -> anyhow::Result<(usize, String, String)> {
    let (item, rest) = parse_probe(text)?;
    match rest.split_once(':') {
        Some((status, set)) if !set.is_empty() => Ok((item, status.to_owned(), set.to_owned())),
        _ => anyhow::bail!("--crashed: expected ITEM:STATUS:SET, got {text:?}"),
    }
}
